//! The Lax-Wendroff method through `qflow`: the shipped small case runs
//! and writes its outputs, an interrupted run resumes to the same bits
//! without repeating history rows, a resume with other numbers is refused,
//! and bad input is refused before any work with the key named.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn small_case() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../cases/oblique-shock-small.toml")
}

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qflow-lw-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(out: &Path, extra: &[&str]) -> Output {
    let case = small_case();
    let mut a = vec![
        "run",
        case.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ];
    a.extend_from_slice(extra);
    Command::new(env!("CARGO_BIN_EXE_qflow"))
        .args(&a)
        .output()
        .unwrap()
}

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The summary's real value of `key`.
fn summary_value(out: &Path, key: &str) -> f64 {
    let s: toml::Table = toml::from_str(&read(&out.join("summary.toml"))).unwrap();
    s[key]
        .as_float()
        .unwrap_or_else(|| panic!("{key} in the summary"))
}

#[test]
fn the_small_case_runs_and_writes_its_outputs() {
    let d = temp("outputs");
    ok(&run(&d, &[]));
    let csv = read(&d.join("solution.csv"));
    assert_eq!(csv.lines().next(), Some("x,y,rho,u,v,p"));
    assert_eq!(csv.lines().count(), 1 + 200 * 50);
    for f in [
        "field.vtu",
        "density.png",
        "pressure.png",
        "centreline.png",
        "history.png",
    ] {
        let len = std::fs::metadata(d.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 1000, "{f}: {len} bytes");
    }
    let history = read(&d.join("history.csv"));
    assert!(history.starts_with("iteration,time,drho_dt"), "{history}");
    assert_eq!(history.lines().count(), 1 + 732);
    // The run's own measures against the exact solution.
    assert_eq!(summary_value(&d, "time"), 3.0);
    let l1 = summary_value(&d, "l1_density_error");
    assert!(l1 > 0.0 && l1 < 0.04, "L1 {l1}");
    for (k, tol) in [("incident_angle", 0.5), ("reflected_angle", 0.5)] {
        let (got, want) = (
            summary_value(&d, k),
            summary_value(&d, &format!("{k}_exact")),
        );
        assert!((got - want).abs() < tol, "{k}: {got} vs {want}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_interrupted_run_resumes_to_the_same_bits() {
    let d = temp("resume");
    let (whole, part) = (d.join("whole"), d.join("part"));
    let quick = ["--set", "output.plots=false", "--set", "output.vtk=false"];
    ok(&run(&whole, &quick));
    let mut first = quick.to_vec();
    first.extend(["--max-iters", "300"]);
    ok(&run(&part, &first));
    assert_eq!(read(&part.join("history.csv")).lines().count(), 1 + 300);
    let mut resumed = quick.to_vec();
    resumed.push("--resume");
    ok(&run(&part, &resumed));
    assert!(read(&part.join("solution.csv")) == read(&whole.join("solution.csv")));
    assert_eq!(
        read(&part.join("history.csv")),
        read(&whole.join("history.csv"))
            .lines()
            .map(|l| {
                // The wall-clock column differs; the rest must not.
                l.rsplit_once(',').map_or(l, |(a, _)| a).to_string()
            })
            .zip(read(&part.join("history.csv")).lines())
            .map(|(w, p)| {
                assert!(p.starts_with(&w), "{p} vs {w}");
                format!("{p}\n")
            })
            .collect::<String>()
    );
    // Other numbers: refused, naming the difference.
    let mut other = quick.to_vec();
    other.extend(["--resume", "--set", "lw.viscosity=paper"]);
    let o = run(&part, &other);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("cannot resume") && e.contains("viscosity"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_settings_are_refused_before_any_work() {
    let d = temp("bad");
    for (set, needle) in [
        ("lw.cfl=2.0", "[lw] cfl = 2"),
        ("lw.inflow=[1.0, 0.5, 0.0, 0.71429]", "not supersonic"),
        ("lw.shock_angle=70.0", "[lw] shock_angle = 70"),
        ("grid.nx=2", "[grid] nx = 2"),
        ("lw.final_time=-1.0", "[lw] final_time = -1"),
        ("lw.wall=sticky", "sticky"),
        // A step count that overflowed into a one-step run with exit 0.
        ("lw.final_time=1e300", "more than 1e12"),
        // Never reflected inside the domain; the summary compared region 3
        // with a patch of region 1.
        ("lw.shock_angle=10.0", "beyond the domain's end at x = 4"),
        (
            "lw.inflow=[1.0, 1e300, 0.0, 0.71429]",
            "give at most Mach 50",
        ),
    ] {
        let out = d.join("o");
        let o = run(&out, &["--set", set]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && e.contains(needle), "{set}: {e}");
        assert!(!out.join("summary.toml").exists(), "{set}: ran anyway");
    }
    // Ran with region 2 of the paper's flow against this one's region 1.
    let o = run(
        &d.join("o"),
        &[
            "--set",
            "lw.setup=paper-code",
            "--set",
            "lw.shock_angle=35.0",
        ],
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("fixes region 2"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

/// A run too short for a history picture (one step of 1e-20) failed after
/// its work and lost its history and summary; the picture is now a
/// warning.
#[test]
fn a_picture_the_data_cannot_make_is_a_warning() {
    let d = temp("short");
    let out = d.join("o");
    let o = run(&out, &["--set", "lw.final_time=1e-20"]);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stderr).contains("the history not drawn"));
    for f in ["history.csv", "summary.toml", "solution.csv", "density.png"] {
        assert!(out.join(f).exists(), "no {f}");
    }
    assert!(!out.join("history.png").exists());
    let _ = std::fs::remove_dir_all(&d);
}

/// A run stopped before its shocks have formed: the analysis says what it
/// cannot find instead of writing NaN into the summary.
#[test]
fn shocks_not_yet_formed_are_not_found_rather_than_nan() {
    let d = temp("early");
    let out = d.join("o");
    ok(&run(&out, &["--max-iters", "50"]));
    let s = read(&out.join("summary.toml"));
    assert!(!s.to_lowercase().contains("nan"), "{s}");
    assert!(s.contains("= \"not found\""), "{s}");
    let _ = std::fs::remove_dir_all(&d);
}
