//! The nodal DG method through `qflow`: the shipped cases run to their
//! final time with the errors of a converged high-order run, write their
//! outputs, and bad settings are refused before any work.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn case(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../cases/{name}.toml"))
}

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qflow-dg-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(case: &Path, out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qflow"))
        .args([
            "run",
            case.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "-q",
        ])
        .args(extra)
        .output()
        .unwrap()
}

fn summary(out: &Path) -> toml::Table {
    toml::from_str(&std::fs::read_to_string(out.join("summary.toml")).unwrap()).unwrap()
}

/// One revolution: order 6 on 16 cells (1D) and order 8 on 8 x 8 (2D)
/// are converged to about 1e-8 (L2 4.7e-9 and 7.0e-9 measured); the run
/// ends at t = 1 exactly.
#[test]
fn the_shipped_cases_run_with_high_order_errors() {
    for (name, files) in [
        ("dg-advection-1d", &["solution.csv", "solution.png"][..]),
        (
            "dg-advection-2d",
            &["solution.csv", "field.vtu", "field.png"][..],
        ),
    ] {
        let d = temp(name);
        let o = run(&case(name), &d, &[]);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let s = summary(&d);
        assert_eq!(s["time"].as_float(), Some(1.0), "{name}");
        let l2 = s["l2_error"].as_float().unwrap();
        assert!(l2 > 0.0 && l2 < 1e-7, "{name}: L2 {l2}");
        assert!(s["pid"].as_float().unwrap() > 0.0);
        for f in files {
            assert!(d.join(f).exists(), "{name}: no {f}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}

#[test]
fn bad_settings_are_refused_before_any_work() {
    let d = temp("bad");
    for (set, needle) in [
        ("dg.order=0", "[dg] order = 0"),
        ("dg.cells=[4]", "[dg] cells = [4]"),
        ("dg.rk=\"euler\"", "euler"),
        ("dg.equation=\"isothermal-euler\"", "not built yet"),
        ("dg.final_time=-1.0", "[dg] final_time = -1"),
    ] {
        let out = d.join("o");
        let o = run(&case("dg-advection-2d"), &out, &["--set", set]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && e.contains(needle), "{set}: {e}");
        assert!(!out.join("summary.toml").exists(), "{set}: ran anyway");
    }
    let _ = std::fs::remove_dir_all(&d);
}
