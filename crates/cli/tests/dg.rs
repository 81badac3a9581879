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

/// The shipped cases end at their final time with their errors in the
/// summary: advection, one revolution (order 6 on 16 cells in 1D, order 8
/// on 8 x 8 in 2D: L2 4.7e-9 and 7.0e-9 measured; order 5 on 6^3 in 3D:
/// 3.5e-5); isothermal Euler, the
/// simple wave to t = 0.5 (1D, order 6, 32 cells: density L2 4.9e-7) and
/// along the diagonal to t = 0.3 (2D, order 5, 16 x 16: 1.7e-5), with every
/// variable's errors.
#[test]
fn the_shipped_cases_run_with_their_errors() {
    let (one, two) = (
        &["solution.csv", "solution.png"][..],
        &["solution.csv", "field.vtu", "field.png"][..],
    );
    for (name, t, bound, files) in [
        ("dg-advection-1d", 1.0, 1e-7, one),
        ("dg-advection-2d", 1.0, 1e-7, two),
        (
            "dg-advection-3d",
            1.0,
            1e-4,
            &["solution.csv", "field.vtr", "field.png"][..],
        ),
        ("dg-euler-1d", 0.5, 2e-6, one),
        ("dg-euler-2d", 0.3, 5e-5, two),
    ] {
        let d = temp(name);
        let o = run(&case(name), &d, &[]);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let s = summary(&d);
        assert_eq!(s["time"].as_float(), Some(t), "{name}");
        assert!(s["pid"].as_float().unwrap() > 0.0);
        for f in files {
            assert!(d.join(f).exists(), "{name}: no {f}");
        }
        let euler = name.contains("euler");
        let keys: &[&str] = if euler {
            &["l2_error", "l2_error_rho_u"]
        } else {
            &["l2_error"]
        };
        for key in keys {
            let e = s[*key].as_float().unwrap();
            assert!(e > 0.0 && e < bound, "{name}: {key} {e}");
        }
        if euler {
            assert_eq!(s["equation"].as_str(), Some("isothermal-euler"));
            assert_eq!(s.contains_key("l2_error_rho_v"), name.ends_with("2d"));
            let csv = std::fs::read_to_string(d.join("solution.csv")).unwrap();
            let header = csv.lines().next().unwrap();
            assert!(
                header.contains("rho,rho_u") && header.contains("rho_exact"),
                "{header}"
            );
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
        (
            "dg.equation=\"isothermal-euler\"",
            "[dg] initial = \"sine\"",
        ),
        ("dg.final_time=-1.0", "[dg] final_time = -1"),
        ("dg.final_time=0.0", "[dg] final_time = 0"),
        // Its memory estimate overflowed to 0, and the allocation panicked.
        (
            "dg.cells=[1048576, 1048576]",
            "at most 2147483648 cells in all",
        ),
        // Step counts that overflowed into a one-step run with exit 0.
        ("dg.final_time=1e300", "more than 1e12"),
        ("dg.velocity=[0.0, 0.0]", "the time step is inf"),
        // Ran 4 steps to l2_error 4e39 and exit 0.
        ("dg.cfl=1000", "[dg] cfl = 1000"),
        // Keys the case does not use were accepted and ignored.
        (
            "dg.sound_speed=2.0",
            "[dg] sound_speed: isothermal-euler's, unused",
        ),
        ("dg.seed=7", "[dg] seed: the multimode signal's, unused"),
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

/// Advection at a CFL number past the schemes' stability (accepted up to
/// 10) grew to 1e60 and ended "at the final time" with exit 0; with the
/// upwind flux the L2 norm cannot grow, so twice the initial norm stops
/// the run as diverging, keeping the last good state.
#[test]
fn a_diverging_advection_run_stops_cleanly() {
    let d = temp("diverge");
    let o = run(
        &case("dg-advection-1d"),
        &d,
        &["--set", "dg.cfl=2.0", "--threads", "1"],
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "exit 0: {e}");
    assert!(
        e.contains("more than twice the initial state's") && e.contains("smaller [dg] cfl"),
        "{e}"
    );
    let s = summary(&d);
    assert_eq!(s["stop"].as_str(), Some("non-physical state"), "{s:?}");
    let norms: Vec<f64> = std::fs::read_to_string(d.join("history.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().parse().unwrap())
        .collect();
    // The kept history: every norm within the bound (the initial one is
    // sqrt(1/2) for sin(2 pi x) on the unit interval).
    assert!(!norms.is_empty() && norms.iter().all(|&n| n <= 2.0 * 0.5_f64.sqrt() + 1e-12));
    let _ = std::fs::remove_dir_all(&d);
}

/// The multi-mode signal's seed and mode count are part of the problem: a
/// resume with another is refused, naming it.
#[test]
fn a_resume_with_another_multimode_signal_is_refused() {
    let d = temp("seed");
    let out = d.join("o");
    let multimode = ["--set", "dg.initial=\"multimode\"", "--set", "dg.modes=8"];
    let mut first = multimode.to_vec();
    first.extend(["--max-iters", "3"]);
    let o = run(&case("dg-advection-1d"), &out, &first);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut again = multimode.to_vec();
    again.extend(["--set", "dg.seed=2", "--resume"]);
    let o = run(&case("dg-advection-1d"), &out, &again);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("seed = 2"), "{e}");
    // Another grid: named (the settings are checked before the geometry).
    let mut cells = multimode.to_vec();
    cells.extend(["--set", "dg.cells=[20]", "--resume"]);
    let o = run(&case("dg-advection-1d"), &out, &cells);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("cells = [20]"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}
