//! `qflow bench` on a case of every method: the method's figure, a row per
//! loop, and the figure's arithmetic checked against the summary's
//! definitions; a bench longer than a case's final time is refused.

mod common;

use common::{assert_fails_with, qflow, stderr};

/// The JSON report of `qflow bench CASE` with short runs.
fn bench(case: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "bench",
        case,
        "--backend",
        "serial",
        "--iterations",
        "2",
        "--warmup",
        "1",
        "--repeats",
        "3",
        "--json",
    ];
    args.extend(extra);
    let o = qflow(&args);
    assert!(o.status.success(), "{case}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("the report is JSON")
}

#[test]
fn every_method_is_timed_in_its_papers_figure() {
    let root = env!("CARGO_MANIFEST_DIR").to_string() + "/../../cases/";
    for (case, method, figure, set) in [
        ("naca0012-subsonic.toml", "lskum", "rdp", "points"),
        ("op2-airfoil-small.toml", "fv", "rdp", "cells"),
        ("oblique-shock-small.toml", "lw", "rdp", "cells"),
        ("dg-euler-2d.toml", "dg", "pid", "cells"),
    ] {
        let r = bench(&(root.clone() + case), &[]);
        assert_eq!(r["method"], method, "{case}");
        assert_eq!(r["figure"], figure, "{case}");
        assert_eq!(r["set"], set, "{case}");
        assert_eq!(r["backend"], "serial", "{case}");
        let elements = r["elements"].as_f64().unwrap();
        let units = r["units_per_step"].as_f64().unwrap();
        assert!(elements > 0.0, "{case}");
        // DG's PID divides by stages x nodes (lserk54: 5 stages, order 5
        // in 2D: 25 nodes per cell), the others by the work set.
        let want = if method == "dg" {
            5.0 * 25.0 * elements
        } else {
            elements
        };
        assert_eq!(units, want, "{case}");
        let kernels = r["kernels"].as_array().unwrap();
        assert!(!kernels.is_empty(), "{case}");
        let sum: f64 = kernels.iter().map(|k| k["seconds"].as_f64().unwrap()).sum();
        let (total, wall) = (r["total"].as_f64().unwrap(), r["wall"].as_f64().unwrap());
        assert!(total > 0.0 && wall > 0.0, "{case}: {total} {wall}");
        // The total is the median of the sums, each loop's the median of
        // its own: on one core and a quiet machine, close; the shares of
        // the medians sum to about one.
        let shares: f64 = kernels
            .iter()
            .map(|k| k["fraction"].as_f64().unwrap())
            .sum();
        assert!((shares - sum / total).abs() < 1e-9, "{case}");
        for k in kernels {
            let (lo, med, hi) = (k["min"].as_f64(), k["seconds"].as_f64(), k["max"].as_f64());
            assert!(lo <= med && med <= hi, "{case}: {k}");
        }
    }
}

#[test]
fn a_bench_past_the_final_time_is_refused() {
    let case = env!("CARGO_MANIFEST_DIR").to_string() + "/../../cases/dg-euler-2d.toml";
    let o = qflow(&[
        "bench",
        &case,
        "--set",
        "dg.final_time=0.001",
        "--iterations",
        "50",
    ]);
    assert_fails_with(&o, &["the bench runs", "final time", "--iterations"]);
}

#[test]
fn bench_takes_the_cases_settings() {
    let case = env!("CARGO_MANIFEST_DIR").to_string() + "/../../cases/op2-airfoil-small.toml";
    let r = bench(&case, &["--set", "fv.strategy=\"atomics\""]);
    let run = r["run"].as_str().unwrap();
    assert!(run.contains("atomics increments"), "{run}");
}
