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

/// The isothermal Euler cases: the simple wave to t = 0.5 (1D, order 6,
/// 32 cells: density L2 4.9e-7) and along the diagonal to t = 0.3 (2D,
/// order 5, 16 x 16: 1.7e-5), every variable's errors in the summary.
#[test]
fn the_shipped_euler_cases_run_with_their_errors() {
    for (name, t, bound, files) in [
        (
            "dg-euler-1d",
            0.5,
            2e-6,
            &["solution.csv", "solution.png"][..],
        ),
        (
            "dg-euler-2d",
            0.3,
            5e-5,
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
        assert_eq!(s["equation"].as_str(), Some("isothermal-euler"));
        assert_eq!(s["time"].as_float(), Some(t), "{name}");
        for key in ["l2_error", "l2_error_rho_u"] {
            let e = s[key].as_float().unwrap();
            assert!(e > 0.0 && e < bound, "{name}: {key} {e}");
        }
        assert_eq!(s.contains_key("l2_error_rho_v"), name.ends_with("2d"));
        for f in files {
            assert!(d.join(f).exists(), "{name}: no {f}");
        }
        let csv = std::fs::read_to_string(d.join("solution.csv")).unwrap();
        let header = csv.lines().next().unwrap();
        assert!(
            header.contains("rho,rho_u") && header.contains("rho_exact"),
            "{header}"
        );
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
        (
            "dg.equation=\"isothermal-euler\"",
            "[dg] initial = \"sine\"",
        ),
        ("dg.final_time=-1.0", "[dg] final_time = -1"),
    ] {
        let out = d.join("o");
        let o = run(&case("dg-advection-2d"), &out, &["--set", set]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && e.contains(needle), "{set}: {e}");
        assert!(!out.join("summary.toml").exists(), "{set}: ran anyway");
    }
    for (set, needle) in [
        ("dg.final_time=0.6", "breaks into a shock at t = 0.55"),
        ("dg.amplitude=1.5", "[dg] amplitude = 1.5"),
        ("dg.sound_speed=0.0", "[dg] sound_speed = 0"),
    ] {
        let out = d.join("o");
        let o = run(&case("dg-euler-2d"), &out, &["--set", set]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && e.contains(needle), "{set}: {e}");
        assert!(!out.join("summary.toml").exists(), "{set}: ran anyway");
    }
    let _ = std::fs::remove_dir_all(&d);
}
