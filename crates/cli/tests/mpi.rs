//! `qflow run` under mpirun, end to end (feature `mpi`): outputs equal to
//! the serial run's to the bit, resume on another rank count (and from a
//! single-process checkpoint), the VTK field in pieces, partition files,
//! and failures that end every rank with one message from rank 0, never a
//! hang; with the feature `opencl` too, `--backend opencl` with one rank
//! per device (PoCL in CI: 2 ranks share its one device) equal to the
//! single-process OpenCL run to the bit. Each test starts mpirun itself with the rank counts it needs
//! (`--oversubscribe`: the CI machine has 2 cores).
#![cfg(feature = "mpi")]

mod mpirun;

use std::path::Path;
use std::process::Command;

use mpirun::*;

#[test]
fn mpi_runs_equal_the_serial_run_and_resume_on_any_rank_count() {
    let d = scratch("resume");
    let cloud = small_cloud(&d);
    let c = case(
        &d,
        "case.toml",
        &cloud,
        "",
        "[stop]\nmax_iters = 30\n[output]\ncheckpoint_every = 10\nplots = false\n",
    );
    let c = c.to_str().unwrap();
    let out = |n: &str| d.join(n).to_str().unwrap().to_string();
    ok(&qflow(&[
        "run",
        c,
        "-o",
        &out("serial"),
        "-q",
        "--threads",
        "1",
    ]));
    for ranks in [1, 2, 3, 4] {
        let o = out(&format!("np{ranks}"));
        ok(&mpirun(ranks, &["run", c, "-o", &o, "-q"]));
        assert_same_run(&d.join("serial"), Path::new(&o), &format!("{ranks} ranks"));
    }
    // 3 ranks to iteration 15, then 2 ranks x 2 threads on, VTK in pieces.
    let o = out("cut");
    ok(&mpirun(3, &["run", c, "-o", &o, "-q", "--max-iters", "15"]));
    ok(&mpirun(
        2,
        &[
            "run",
            c,
            "-o",
            &o,
            "-q",
            "--resume",
            "--threads",
            "2",
            "--vtk-pieces",
        ],
    ));
    assert_same_run(&d.join("serial"), Path::new(&o), "resumed on 2 ranks");
    let pvtu = read(&d.join("cut/field.pvtu"));
    for r in 0..2 {
        let piece = format!("field-{r:05}.vtu");
        assert!(pvtu.contains(&format!("Source=\"{piece}\"")), "{pvtu}");
        assert!(std::fs::metadata(d.join("cut").join(piece)).unwrap().len() > 1000);
    }
    // A single-process checkpoint resumed on 4 ranks, RCB, one-sided.
    let o = out("single");
    ok(&qflow(&["run", c, "-o", &o, "-q", "--max-iters", "12"]));
    ok(&mpirun(
        4,
        &[
            "run",
            c,
            "-o",
            &o,
            "-q",
            "--resume",
            "--partitioner",
            "rcb",
            "--exchange",
            "rma",
        ],
    ));
    assert_same_run(&d.join("serial"), Path::new(&o), "resumed on 4 ranks");
    let summary = read(&d.join("single/summary.toml"));
    assert!(
        summary.contains("[mpi]") && summary.contains("ranks = 4"),
        "{summary}"
    );
}

/// A Newton-Krylov case (rank 0 leads the Krylov solve, the others
/// evaluate as told) on 2 and 3 ranks, with the points renumbered (RCM)
/// and partitioned: the serial run's outputs to the bit, through a
/// resume on another rank count.
#[test]
fn newton_krylov_on_several_ranks_gives_the_serial_bits() {
    let d = scratch("newton");
    let cloud = small_cloud(&d);
    let c = case(
        &d,
        "nk.toml",
        &cloud,
        "scheme = \"newton-krylov\"\nlimiter = \"none\"\ncfl = 1.0\n",
        "[stop]\nmax_iters = 12\n[output]\ncheckpoint_every = 0\nplots = false\n",
    );
    let c = c.to_str().unwrap();
    let out = |n: &str| d.join(n).to_str().unwrap().to_string();
    let rcm = "solver.renumber=\"rcm\"";
    ok(&qflow(&[
        "run",
        c,
        "-o",
        &out("serial"),
        "-q",
        "--threads",
        "1",
        "--set",
        rcm,
    ]));
    for ranks in [2, 3] {
        let o = out(&format!("np{ranks}"));
        ok(&mpirun(ranks, &["run", c, "-o", &o, "-q", "--set", rcm]));
        assert_same_run(&d.join("serial"), Path::new(&o), &format!("{ranks} ranks"));
    }
    // Stopped at 10 (a multiple of jacobian_every, 5), resumed on 2 ranks.
    let o = out("cut");
    ok(&mpirun(
        3,
        &["run", c, "-o", &o, "-q", "--max-iters", "10", "--set", rcm],
    ));
    ok(&mpirun(
        2,
        &["run", c, "-o", &o, "-q", "--resume", "--set", rcm],
    ));
    assert_same_run(&d.join("serial"), Path::new(&o), "resumed on 2 ranks");
}

#[test]
fn every_exchange_and_a_partition_file_give_the_same_bits() {
    let d = scratch("modes");
    let cloud = small_cloud(&d);
    let c = case(
        &d,
        "case.toml",
        &cloud,
        "",
        "[stop]\nmax_iters = 8\n[output]\nplots = false\nvtk = false\n",
    );
    let c = c.to_str().unwrap();
    let serial = d.join("serial");
    ok(&qflow(&["run", c, "-o", serial.to_str().unwrap(), "-q"]));
    for (ranks, mode) in [
        (2, "blocking"),
        (3, "rma"),
        (2, "rma-fence"),
        (3, "nonblocking"),
    ] {
        let o = d.join(mode);
        ok(&mpirun(
            ranks,
            &[
                "run",
                c,
                "-o",
                o.to_str().unwrap(),
                "-q",
                "--exchange",
                mode,
            ],
        ));
        assert_same_run(&serial, &o, mode);
    }
    let part = d.join("p3.part");
    let o = qflow(&[
        "partition",
        cloud.to_str().unwrap(),
        "--parts",
        "3",
        "--method",
        "rcb",
        "-o",
        part.to_str().unwrap(),
    ]);
    ok(&o);
    let report = String::from_utf8_lossy(&o.stdout);
    for key in ["edge cut", "ghosts", "imbalance", "wall"] {
        assert!(report.contains(key), "{report}");
    }
    let spec = format!("file:{}", part.display());
    let o = d.join("file");
    ok(&mpirun(
        3,
        &[
            "run",
            c,
            "-o",
            o.to_str().unwrap(),
            "-q",
            "--partitioner",
            &spec,
        ],
    ));
    assert_same_run(&serial, &o, "partition file");
    // A partition for 3 ranks refused on 2, by rank 0, for every rank.
    let o = mpirun(
        2,
        &[
            "run",
            c,
            "-o",
            o.to_str().unwrap(),
            "-q",
            "--partitioner",
            &spec,
        ],
    );
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("3 parts but 2 are needed"), "{e}");
    assert_eq!(e.matches("error:").count(), 1, "one message:\n{e}");
}

/// `--backend opencl` under mpirun: each rank on an OpenCL device (PoCL's
/// one CPU device in CI, shared by the ranks, which the log says once),
/// ghosts through the host; the outputs are the single-process OpenCL
/// run's to the bit. A device no rank can use stops the job with one
/// message naming the ranks; a device list is refused outside mpirun.
#[cfg(feature = "opencl")]
#[test]
fn opencl_ranks_equal_the_single_process_opencl_run() {
    if !qflow_par::backend::opencl::device_for_tests() {
        return;
    }
    let devices = qflow_par::backend::opencl::devices().expect("listed just now");
    let fp64 = devices.iter().filter(|d| d.fp64).count();
    let d = scratch("opencl");
    let cloud = small_cloud(&d);
    let c = case(
        &d,
        "case.toml",
        &cloud,
        "",
        "[stop]\nmax_iters = 20\n[output]\nplots = false\nvtk = false\n",
    );
    let c = c.to_str().unwrap();
    let out = |n: &str| d.join(n).to_str().unwrap().to_string();
    // One PoCL thread per rank (2 cores); the same launch settings on both.
    let env = [
        ("POCL_MAX_PTHREAD_COUNT", "1"),
        ("POCL_CPU_MAX_CU_NUM", "1"),
    ];
    let single = Command::new(QFLOW)
        .envs(env)
        .args(["run", c, "-o", &out("single"), "-q", "--backend", "opencl"])
        .args(["--work-group", "64"])
        .output()
        .unwrap();
    ok(&single);
    let o = mpirun_with(
        2,
        &env,
        &[
            "run",
            c,
            "-o",
            &out("np2"),
            "--backend",
            "opencl",
            "--work-group",
            "64",
        ],
    );
    ok(&o);
    assert_same_run(&d.join("single"), &d.join("np2"), "2 ranks on OpenCL");
    let e = stderr(&o);
    if fp64 < 2 {
        assert_eq!(
            e.matches("ranks on this node share").count(),
            1,
            "one line on shared devices:\n{e}"
        );
    }
    let summary = read(&d.join("np2/summary.toml"));
    assert!(summary.contains("per_rank = \"opencl"), "{summary}");
    // A list by local rank (both entries the first device), blocking exchange.
    ok(&mpirun_with(
        2,
        &env,
        &[
            "run",
            c,
            "-o",
            &out("list"),
            "-q",
            "--backend",
            "opencl",
            "--work-group",
            "64",
            "--device",
            "0,0",
            "--exchange",
            "blocking",
        ],
    ));
    assert_same_run(&d.join("single"), &d.join("list"), "--device 0,0");
    // A device no rank has: one message, naming both ranks.
    let o = mpirun_with(
        2,
        &env,
        &[
            "run",
            c,
            "-o",
            &out("bad"),
            "--backend",
            "opencl",
            "--device",
            "no-such-device",
        ],
    );
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("rank 0: --device no-such-device"), "{e}");
    assert_eq!(e.matches("error:").count(), 1, "one message:\n{e}");
    assert!(!e.contains("panicked"), "{e}");
    // A list outside mpirun.
    let o = qflow(&[
        "run",
        c,
        "-o",
        &out("one"),
        "--backend",
        "opencl",
        "--device",
        "0,0",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("mpirun"), "{}", stderr(&o));
}

/// The rms column of a run's history.
fn rms_history(dir: &Path) -> Vec<f64> {
    history(dir)
        .iter()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
        .collect()
}

/// OP2's Airfoil on 1-4 ranks: METIS cuts the cells, each rank runs its
/// cells' edges and the executed halo (the edges another rank owns that
/// reach its cells), so every cell receives all its fluxes on its own
/// rank. The order of a cell's increments follows the local numbering,
/// so the answer is round-off from the serial run: rms within 1e-12 at
/// every iteration, in every exchange mode, with threads (the owner-compute
/// plan over a rank's cells, the default), a two-level
/// plan, the structure-of-arrays and mixed layouts and (feature
/// `opencl`) on the device, its staged atomics too.
#[test]
fn fv_on_several_ranks_agrees_with_the_serial_run() {
    let d = scratch("fv");
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/op2-airfoil-small.toml");
    let case = case.to_str().unwrap();
    let common = [
        "--max-iters",
        "100",
        "--set",
        "output.plots=false",
        "--set",
        "output.vtk=false",
        "-q",
    ];
    let serial = d.join("serial");
    let mut args = vec!["run", case, "-o", serial.to_str().unwrap()];
    args.extend(common);
    ok(&qflow(&args));
    let want = rms_history(&serial);
    assert_eq!(want.len(), 100);
    let mut runs: Vec<(usize, Vec<&str>)> = Vec::new();
    for ranks in [2, 3, 4] {
        runs.push((ranks, vec![]));
    }
    for mode in ["blocking", "rma", "rma-fence"] {
        runs.push((3, vec!["--exchange", mode]));
    }
    runs.push((2, vec!["--backend", "threads", "--threads", "2"]));
    runs.push((2, vec!["--set", "fv.strategy=two-level"]));
    // Halo values packed from and unpacked into structures of arrays.
    runs.push((3, vec!["--set", "fv.layout=soa"]));
    // Only `res` as a structure of arrays, `q` and the rest as arrays of
    // structures.
    runs.push((2, vec!["--set", "fv.layout=mixed"]));
    if cfg!(feature = "opencl") {
        runs.push((2, vec!["--backend", "opencl"]));
        runs.push((2, vec!["--backend", "opencl", "--set", "fv.layout=soa"]));
        // The device's staged atomics on a rank's cells and halo edges.
        let staged = ["--backend", "opencl", "--set", "fv.strategy=staged-atomics"];
        runs.push((2, staged.to_vec()));
    }
    for (k, (ranks, extra)) in runs.iter().enumerate() {
        let out = d.join(format!("run{k}"));
        let mut args = vec!["run", case, "-o", out.to_str().unwrap()];
        args.extend(common);
        args.extend(extra.iter().copied());
        ok(&mpirun(*ranks, &args));
        let got = rms_history(&out);
        assert_eq!(got.len(), want.len(), "{ranks} ranks {extra:?}");
        for (it, (a, b)) in got.iter().zip(&want).enumerate() {
            assert!(
                (a - b).abs() <= 1e-12 * b,
                "{ranks} ranks {extra:?}, iteration {}: rms {a:e}, serial {b:e}",
                it + 1
            );
        }
        let summary = read(&out.join("summary.toml"));
        assert!(summary.contains("method = \"fv\""), "{summary}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// The Lax-Wendroff oblique shock on 1-4 ranks: the layer cuts the grid's
/// block into boxes (or strips) and derives the halos from the loops'
/// stencils; every loop is a gather, so every rank count, decomposition,
/// exchange mode and thread count gives the serial `solution.csv` to the
/// bit; the device (feature `opencl`) within 1e-12 of the largest value.
#[test]
fn lw_on_several_ranks_gives_the_serial_bits() {
    let d = scratch("lw");
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/oblique-shock-small.toml");
    let case = case.to_str().unwrap();
    let common = [
        "--set",
        "lw.final_time=0.4",
        "--set",
        "output.plots=false",
        "--set",
        "output.vtk=false",
        "-q",
    ];
    let serial = d.join("serial");
    let mut args = vec!["run", case, "-o", serial.to_str().unwrap()];
    args.extend(common);
    ok(&qflow(&args));
    let want = read(&serial.join("solution.csv"));
    assert_eq!(want.lines().count(), 1 + 200 * 50);
    let mut runs: Vec<(usize, Vec<&str>)> = Vec::new();
    for ranks in [1, 2, 3, 4] {
        runs.push((ranks, vec![]));
        runs.push((ranks, vec!["--set", "lw.decomposition=strips"]));
    }
    for mode in ["blocking", "rma", "rma-fence"] {
        runs.push((4, vec!["--exchange", mode]));
        runs.push((
            2,
            vec!["--exchange", mode, "--set", "lw.decomposition=strips"],
        ));
    }
    runs.push((2, vec!["--backend", "threads", "--threads", "2"]));
    runs.push((
        3,
        vec!["--set", "lw.viscosity=paper", "--set", "lw.wall=paper"],
    ));
    for (k, (ranks, extra)) in runs.iter().enumerate() {
        let out = d.join(format!("run{k}"));
        let mut args = vec!["run", case, "-o", out.to_str().unwrap()];
        args.extend(common);
        args.extend(extra.iter().copied());
        ok(&mpirun(*ranks, &args));
        let got = read(&out.join("solution.csv"));
        if extra.contains(&"lw.viscosity=paper") {
            assert_ne!(got, want, "the paper's filter changes the answer");
            let mut a = vec!["run", case, "-o"];
            let s = d.join(format!("serial{k}"));
            a.push(s.to_str().unwrap());
            a.extend(common);
            a.extend(extra.iter().copied());
            ok(&qflow(&a));
            assert!(
                got == read(&s.join("solution.csv")),
                "{ranks} ranks {extra:?}"
            );
        } else {
            assert!(got == want, "{ranks} ranks {extra:?}: solution.csv differs");
        }
        let summary = read(&out.join("summary.toml"));
        assert!(summary.contains("method = \"lw\""), "{summary}");
    }
    if cfg!(feature = "opencl") {
        let out = d.join("opencl");
        let mut args = vec!["run", case, "-o", out.to_str().unwrap()];
        args.extend(common);
        args.extend(["--backend", "opencl"]);
        ok(&mpirun(2, &args));
        let values = |t: &str| -> Vec<f64> {
            t.lines()
                .skip(1)
                .flat_map(|l| {
                    l.split(',')
                        .map(|x| x.parse::<f64>().unwrap())
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        let (a, b) = (values(&want), values(&read(&out.join("solution.csv"))));
        let scale = a.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let worst = a
            .iter()
            .zip(&b)
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        assert!(worst <= 1e-12 * scale, "opencl: worst {worst:e}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// Nodal DG on 1-4 ranks: the layer cuts the periodic block of cells into
/// boxes and exchanges the face neighbours; every loop is a gather, so
/// every rank count and exchange mode gives the serial `solution.csv` to
/// the bit, for advection and isothermal Euler in 2D and 3D.
#[test]
fn dg_on_several_ranks_gives_the_serial_bits() {
    let d = scratch("dg");
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases");
    let advection = cases.join("dg-advection-2d.toml");
    let euler = cases.join("dg-euler-2d.toml");
    let cube = cases.join("dg-advection-3d.toml");
    let mut runs: Vec<(&Path, usize, Vec<&str>)> = vec![
        (&advection, 2, vec![]),
        (&advection, 3, vec![]),
        (&advection, 4, vec![]),
    ];
    for mode in ["blocking", "rma", "rma-fence"] {
        runs.push((&advection, 4, vec!["--exchange", mode]));
    }
    runs.push((&advection, 2, vec!["--set", "dg.rk=\"rk4\""]));
    runs.push((&euler, 3, vec![]));
    runs.push((&euler, 4, vec!["--exchange", "rma"]));
    runs.push((&cube, 4, vec![]));
    runs.push((&cube, 3, vec!["--exchange", "blocking"]));
    let euler_3d = vec![
        "--set",
        "dg.dimensions=3",
        "--set",
        "dg.cells=[4, 4, 4]",
        "--set",
        "dg.velocity=[0.3, -0.2, 0.1]",
        "--set",
        "dg.order=3",
    ];
    runs.push((&euler, 4, euler_3d));
    let common = [
        "--set",
        "dg.final_time=0.1",
        "--set",
        "output.plots=false",
        "-q",
    ];
    for (k, (case, ranks, extra)) in runs.iter().enumerate() {
        let case = case.to_str().unwrap();
        let one = |out: &Path, ranks: usize| {
            let mut args = vec!["run", case, "-o", out.to_str().unwrap()];
            args.extend(common);
            // The exchange mode is for ranks only.
            if ranks > 1 || extra.first() != Some(&"--exchange") {
                args.extend(extra.iter().copied());
            }
            if ranks == 1 {
                ok(&qflow(&args));
            } else {
                ok(&mpirun(ranks, &args));
            }
            read(&out.join("solution.csv"))
        };
        let want = one(&d.join(format!("serial{k}")), 1);
        let got = one(&d.join(format!("run{k}")), *ranks);
        assert!(
            got == want,
            "{case} {ranks} ranks {extra:?}: solution.csv differs"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}
