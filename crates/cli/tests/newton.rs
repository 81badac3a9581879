//! `scheme = "newton-krylov"` from a case file: it converges and stops on
//! its residue drop, resumes bit for bit from a checkpoint at a multiple of
//! `jacobian_every`, and its settings are checked with named errors.

mod common;

use std::path::Path;

use common::*;

fn case(dir: &Path, cloud: &Path, extra: &str) -> std::path::PathBuf {
    let p = dir.join("nk.toml");
    std::fs::write(
        &p,
        format!(
            "[cloud]\nfile = \"{}\"\n[flow]\nmach = 0.63\naoa = 2.0\n\
             [solver]\nscheme = \"newton-krylov\"\nlimiter = \"none\"\ncfl = 1.0\n{extra}\
             [stop]\nmax_iters = 40\nresidue_drop = 8.0\n\
             [output]\nplots = false\nvtk = false\ncheckpoint_every = 0\n",
            cloud.display()
        ),
    )
    .unwrap();
    p
}

#[test]
fn a_newton_krylov_case_converges_and_resumes_to_the_same_bits() {
    let d = scratch("newton");
    let cloud = small_section_cloud(&d, "naca0012", "small.cloud");
    let case = case(&d, &cloud, "jacobian_every = 4\n");
    let run = |out: &str, extra: &[&str]| {
        let o = d.join(out);
        let mut a = vec![
            "run",
            case.to_str().unwrap(),
            "-o",
            o.to_str().unwrap(),
            "-q",
        ];
        a.extend_from_slice(extra);
        let r = qflow(&a);
        assert!(r.status.success(), "{}", stderr(&r));
        history_without_clock(&o)
    };
    let straight = run("straight", &[]);
    let summary = std::fs::read_to_string(d.join("straight/summary.toml")).unwrap();
    assert!(summary.contains("stop = \"residue dropped\""), "{summary}");
    // A header and one row per iteration: eight orders in well under 40.
    assert!(straight.len() - 1 < 30, "{} iterations", straight.len() - 1);
    let cl = summary_cl(&d.join("straight"));
    assert!(cl > 0.2 && cl < 0.4, "Cl {cl}");
    // Stopped at 8 (a multiple of jacobian_every), resumed: the same rows.
    run("parts", &["--max-iters", "8"]);
    let resumed = run("parts", &["--resume"]);
    assert_eq!(resumed, straight);
}

#[test]
fn bad_newton_settings_are_named() {
    let d = scratch("newton-bad");
    let cloud = small_section_cloud(&d, "naca0012", "small.cloud");
    for (extra, needles) in [
        (
            "krylov_tolerance = 1.5\n",
            &["krylov_tolerance", "between 0 and 1"][..],
        ),
        (
            "krylov_vectors = 0\n",
            &["krylov_vectors", "between 1 and 200"],
        ),
        ("jacobian_every = 0\n", &["jacobian_every", "at least 1"]),
        (
            "implicit_cfl = -1.0\n",
            &["implicit_cfl", "from 1e-6 to 1e4"],
        ),
        (
            "implicit_cfl = 1e-320\n",
            &["implicit_cfl", "from 1e-6 to 1e4"],
        ),
        (
            "implicit_cfl = 1e5\n",
            &["implicit_cfl", "from 1e-6 to 1e4"],
        ),
        ("krylov_vectorz = 3\n", &["krylov_vectorz"]),
        (
            "preconditioner = \"lu_sgs\"\n",
            &["preconditioner", "lu_sgs", "lu-sgs"],
        ),
    ] {
        let case = case(&d, &cloud, extra);
        let o = qflow(&[
            "run",
            case.to_str().unwrap(),
            "-o",
            d.join("out").to_str().unwrap(),
        ]);
        assert_fails_with(&o, needles);
    }
}

/// `qflow bench` on a Newton-Krylov case times its iterations (it once
/// panicked: the scheme's preconditioner needs the stencils).
#[test]
fn bench_times_a_newton_krylov_case() {
    let d = scratch("newton-bench");
    let cloud = small_section_cloud(&d, "naca0012", "small.cloud");
    let case = case(&d, &cloud, "");
    let o = qflow(&[
        "bench",
        case.to_str().unwrap(),
        "--backend",
        "serial",
        "--iterations",
        "2",
        "--warmup",
        "1",
        "--repeats",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("flux_residual"), "{out}");
}

/// `qflow bench` without a case file takes `--set` for the flow and the
/// solver (it once ignored them silently: `solver.scheme=euler` timed
/// SSPRK43), and refuses keys it cannot honour or that are wrong.
#[test]
fn bench_without_a_case_takes_solver_settings() {
    let run = |sets: &[&str]| {
        let mut args = vec![
            "bench",
            "--points",
            "2000",
            "--backend",
            "serial",
            "--iterations",
            "1",
            "--warmup",
            "0",
            "--repeats",
            "1",
        ];
        for s in sets {
            args.extend(["--set", s]);
        }
        qflow(&args)
    };
    let o = run(&["solver.scheme=euler", "solver.inner_iterations=2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("euler (1 stage) with 2 inner iterations"),
        "{out}"
    );
    let o = run(&[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("ssprk43 (4 stages)"));
    assert_fails_with(
        &run(&["cloud.file=x.cloud"]),
        &["--set cloud.file", "--points"],
    );
    assert_fails_with(&run(&["solver.schema=euler"]), &["schema"]);
    assert_fails_with(&run(&["flow.mach=0.05"]), &["mach", "0.1"]);
}
