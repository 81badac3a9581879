//! The `qflow` binary end to end: runs, outputs, and every kind of bad input
//! giving a named error and a non-zero exit, never a panic.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

fn write_case(dir: &Path, cloud: &Path, extra: &str) -> PathBuf {
    let p = dir.join("case.toml");
    std::fs::write(
        &p,
        format!(
            "[cloud]\nfile = \"{}\"\n[stop]\nmax_iters = 5\n{extra}",
            cloud.display()
        ),
    )
    .unwrap();
    p
}

#[test]
fn a_case_runs_and_writes_its_outputs() {
    let d = scratch("run");
    let cloud = small_cloud(&d);
    let o = qflow(&["check", cloud.to_str().unwrap()]);
    assert!(
        o.status.success(),
        "check failed: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    let case = write_case(&d, &cloud, "");
    let out = d.join("out");
    let o = qflow(&[
        "run",
        case.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary = String::from_utf8_lossy(&o.stdout);
    for key in ["iterations", "cl", "cd", "cm", "rdp", "flux_residual"] {
        assert!(summary.contains(key), "summary lacks {key}:\n{summary}");
    }
    let history = std::fs::read_to_string(out.join("history.csv")).unwrap();
    let mut lines = history.lines();
    assert_eq!(
        lines.next(),
        Some("iteration,log10_residue,residue,cl,cd,cm,wall_seconds")
    );
    assert_eq!(lines.count(), 5);
    let solution = std::fs::read_to_string(out.join("solution.dat")).unwrap();
    assert_eq!(solution.lines().count(), 1 + 48 * 16);
    assert!(out.join("summary.toml").exists());
    for f in [
        "surface.csv",
        "field.vtu",
        "history.png",
        "cp.png",
        "mach.png",
        "checkpoint.qchk",
    ] {
        let len = std::fs::metadata(out.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 100, "{f} missing or empty");
    }
    assert!(std::fs::read(out.join("history.png"))
        .unwrap()
        .starts_with(b"\x89PNG"));
    // no temporary file is left behind
    for e in std::fs::read_dir(&out).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.starts_with('.'), "left over: {name}");
    }
}

#[test]
fn bad_cloud_files_are_named_with_their_line() {
    let d = scratch("badcloud");
    let cloud = small_cloud(&d);
    let text = std::fs::read_to_string(&cloud).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "truncated",
            lines[..100].join("\n"),
            vec!["truncated", "declares 768", "has 99"],
        ),
        (
            "non-numeric",
            {
                let f: Vec<&str> = lines[5].splitn(2, ' ').collect();
                text.replacen(lines[5], &format!("1.5x {}", f[1]), 1)
            },
            vec![":6:", "point 5, x", "'1.5x' is not a number"],
        ),
        (
            "wrong count",
            text.replacen("768\n", "770\n", 1),
            vec!["truncated", "declares 770"],
        ),
        (
            "more points",
            text.replacen("768\n", "700\n", 1),
            vec!["declares 700 points but the file has 768 point lines"],
        ),
        (
            "neighbour out of range",
            {
                let f: Vec<&str> = lines[10].split_whitespace().collect();
                let mut g: Vec<String> = f.iter().map(|s| s.to_string()).collect();
                let last = g.len() - 1;
                g[last] = "99999".into();
                text.replacen(lines[10], &g.join(" "), 1)
            },
            vec![":11:", "point 10", "out of range"],
        ),
        (
            "NaN coordinate",
            {
                let f: Vec<&str> = lines[20].splitn(2, ' ').collect();
                text.replacen(lines[20], &format!("NaN {}", f[1]), 1)
            },
            vec![":21:", "point 20, x", "not finite"],
        ),
    ];
    for (what, bad, needles) in cases {
        let p = d.join(format!("{}.cloud", what.replace(' ', "_")));
        std::fs::write(&p, bad).unwrap();
        let case = write_case(&d, &p, "");
        let o = qflow(&[
            "run",
            case.to_str().unwrap(),
            "-o",
            d.join("o").to_str().unwrap(),
        ]);
        let mut n = needles.clone();
        let shown = p.display().to_string();
        n.push(&shown);
        assert_fails_with(&o, &n);
        // `check` reports the same file problems
        let o = qflow(&["check", p.to_str().unwrap()]);
        assert!(!o.status.success(), "{what}: check passed");
        assert!(!stderr(&o).contains("panicked"));
    }
}

#[test]
fn bad_cases_and_paths_are_named() {
    let d = scratch("badcase");
    let cloud = small_cloud(&d);
    let out = d.join("o");
    let out = out.to_str().unwrap();

    let case = write_case(&d, &cloud, "[flow]\nmach = 0.5\nangle = 3\n");
    assert_fails_with(
        &qflow(&["run", case.to_str().unwrap(), "-o", out]),
        &["case.toml", "angle"],
    );

    let case = write_case(&d, &cloud, "[solver]\ncfl = 0\n");
    assert_fails_with(
        &qflow(&["run", case.to_str().unwrap(), "-o", out]),
        &["case.toml", "cfl"],
    );

    let case = write_case(&d, &d.join("nowhere.cloud"), "");
    assert_fails_with(
        &qflow(&["run", case.to_str().unwrap(), "-o", out]),
        &["nowhere.cloud", "does not exist"],
    );

    assert_fails_with(
        &qflow(&["run", d.join("missing.toml").to_str().unwrap()]),
        &["missing.toml"],
    );

    // an output folder that cannot be made: its parent is a file
    let case = write_case(&d, &cloud, "");
    let blocked = cloud.join("sub");
    assert_fails_with(
        &qflow(&[
            "run",
            case.to_str().unwrap(),
            "-o",
            blocked.to_str().unwrap(),
        ]),
        &["output folder", "small.cloud/sub"],
    );
}

#[test]
fn a_diverging_run_stops_with_the_point_and_keeps_the_last_good_state() {
    let d = scratch("diverge");
    let cloud = small_cloud(&d);
    let case = d.join("case.toml");
    let text = format!(
        "[cloud]\nfile = \"{}\"\n[solver]\ncfl = 40.0\n[stop]\nmax_iters = 200\n",
        cloud.display()
    );
    std::fs::write(&case, text).unwrap();
    let out = d.join("o");
    let o = qflow(&["run", case.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_fails_with(
        &o,
        &[
            "non-physical state at point",
            "iteration",
            "x =",
            "y =",
            "last good",
        ],
    );
    // outputs of the last good state are there and finite
    let history = std::fs::read_to_string(out.join("history.csv")).unwrap();
    let done = history.lines().count() - 1;
    let solution = std::fs::read_to_string(out.join("solution.dat")).unwrap();
    assert!(solution
        .lines()
        .skip(1)
        .all(|l| !l.contains("NaN") && !l.contains("inf")));
    let e = stderr(&o);
    assert!(e.contains(&format!("after iteration {done} kept")), "{e}");
    // No iteration done: no residue or forces in the summary (they read 0).
    let summary = std::fs::read_to_string(out.join("summary.toml")).unwrap();
    assert_eq!(summary.contains("\ncl = "), done > 0, "{summary}");
    // the checkpoint holds the last good state
    let cp = qflow_par::driver::checkpoint::Checkpoint::read(&out.join("checkpoint.qchk")).unwrap();
    assert_eq!(cp.iteration, done as u64);
    let prim = cp.dats.iter().find(|d| d.name == "prim").expect("prim");
    assert_eq!(prim.dim, 4);
    assert!(prim
        .values
        .chunks(4)
        .all(|w| w[0] > 0.0 && w[3] > 0.0 && w.iter().all(|v| v.is_finite())));
}

#[test]
fn bad_generate_arguments_are_errors() {
    let d = scratch("gen");
    let o = d.join("g.cloud");
    let o = o.to_str().unwrap();
    assert_fails_with(&qflow(&["generate", "naca00x2", "-o", o]), &["naca00x2"]);
    assert_fails_with(
        &qflow(&["generate", "naca0012", "--rings", "0", "-o", o]),
        &["ring"],
    );
    assert_fails_with(
        &qflow(&["generate", "naca0012", "--far-field", "0.3", "-o", o]),
        &["far"],
    );
    // Options of the other generator were ignored without a word (`--i 5`
    // made the default 9,600-point cloud), and a mesh named .su2 was
    // written in OP2's text format, which `qflow check` then refused.
    assert_fails_with(
        &qflow(&["generate", "naca0012", "--i", "5", "-o", o]),
        &["--i", "op2-naca0012"],
    );
    let m = d.join("m.dat");
    let m = m.to_str().unwrap();
    let op2 = ["generate", "op2-naca0012", "--i", "5", "--j", "5", "-o"];
    assert_fails_with(
        &qflow(&[&op2[..], &[m, "--wall-points", "40"]].concat()),
        &["--wall-points"],
    );
    assert_fails_with(
        &qflow(&[&op2[..], &[m, "--far-field", "5"]].concat()),
        &["--far-field"],
    );
    let su2 = d.join("m.su2");
    assert_fails_with(
        &qflow(&[&op2[..], &[su2.to_str().unwrap()]].concat()),
        &["reads .su2 meshes but writes only"],
    );
    assert!(!su2.exists());
    // A mesh given to the clouds' commands was parsed as a cloud ("point
    // count: ..."). (And a killed command's temporary beside the output,
    // its process gone, is removed by the next: Ctrl-C left 48 MB ones.)
    let stale = d.join(".m.dat.tmp-4000000000");
    std::fs::write(&stale, "left by a killed generate").unwrap();
    let o = qflow(&[&op2[..], &[m]].concat());
    assert!(!stale.exists(), "the stale temporary stayed");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // An output that links elsewhere: the temporary lies beside the file
    // it names, and is removed there.
    let there = d.join("there");
    std::fs::create_dir_all(&there).unwrap();
    let link = d.join("linked.dat");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink("there/real.dat", &link).unwrap();
    let stale = there.join(".real.dat.tmp-4000000000");
    std::fs::write(&stale, "left by a killed generate").unwrap();
    let o = qflow(&[&op2[..], &[link.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        !stale.exists(),
        "the stale temporary beside the link's target stayed"
    );
    assert!(there.join("real.dat").exists() && link.is_symlink());
    let c = d.join("c.qfc");
    assert_fails_with(
        &qflow(&["convert", m, c.to_str().unwrap()]),
        &[
            "a finite-volume mesh",
            ".qfc is qflow's point-cloud format",
            ".qfm",
        ],
    );
    assert_fails_with(
        &qflow(&["partition", "--parts", "2", m]),
        &["a finite-volume mesh", "qflow partition"],
    );
}

/// `qflow generate --layout quadtree` writes a cloud `qflow check` passes;
/// bad quadtree settings, and keys of the other layout in a case's
/// `[cloud] generate`, are errors naming them.
#[test]
fn quadtree_clouds_are_generated_checked_and_their_settings_named() {
    let d = scratch("quadtree");
    let out = d.join("q.cloud");
    let gen = |extra: &[&str]| {
        let mut args = vec!["generate", "naca0012", "--layout", "quadtree"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["-o", out.to_str().unwrap()]);
        qflow(&args)
    };
    let o = gen(&["--wall-spacing", "0.02"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = qflow(&["check", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(report.contains("0 error(s), 0 warning(s)"), "{report}");
    // The legacy text's quadtree variant: `x y left right kind shape nx ny
    // depth min_dist n c1..cn`, the depths kept.
    let text = std::fs::read_to_string(&out).unwrap();
    let first: Vec<&str> = text.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(
        first[10].parse::<usize>().unwrap(),
        first.len() - 11,
        "{first:?}"
    );
    assert!(first[8].parse::<u32>().unwrap() >= 3, "depth {first:?}");
    assert_fails_with(&gen(&["--wall-spacing", "0.5"]), &["wall_spacing = 0.5"]);
    assert_fails_with(&gen(&["--grading", "1"]), &["grading = 1"]);
    assert_fails_with(&gen(&["--rings", "5"]), &["--rings", "O-grid"]);
    assert_fails_with(
        &qflow(&[
            "generate",
            "naca0012",
            "--grading",
            "5",
            "-o",
            out.to_str().unwrap(),
        ]),
        &["--grading", "quadtree"],
    );

    let case = d.join("case.toml");
    let o = d.join("o");
    for (generate, words) in [
        (
            r#"{ section = "naca0012", layout = "quadtree", far_field = 10.0 }"#,
            &["wall_spacing"][..],
        ),
        (
            r#"{ section = "naca0012", layout = "quadtree", wall_spacing = 0.02, rings = 9, far_field = 10.0 }"#,
            &["rings", "O-grid"][..],
        ),
        (
            r#"{ section = "naca0012", wall_points = 40, rings = 12, grading = 4.0, far_field = 10.0 }"#,
            &["grading", "quadtree"][..],
        ),
        (
            r#"{ section = "naca0012", far_field = 10.0 }"#,
            &["wall_points", "rings"][..],
        ),
        (
            r#"{ section = "naca0012", layout = "hexagons", far_field = 10.0 }"#,
            &["layout", "hexagons"][..],
        ),
    ] {
        std::fs::write(&case, format!("[cloud]\ngenerate = {generate}\n")).unwrap();
        assert_fails_with(
            &qflow(&["run", case.to_str().unwrap(), "-o", o.to_str().unwrap()]),
            words,
        );
    }
}

/// Every file under a final name in `dir` is whole: the checkpoint reads
/// back, history.csv has complete rows.
fn assert_outputs_whole(dir: &Path) {
    let cp = dir.join("checkpoint.qchk");
    if cp.exists() {
        qflow_par::driver::checkpoint::Checkpoint::read(&cp).expect("a whole checkpoint");
    }
    let h = dir.join("history.csv");
    if h.exists() {
        let text = std::fs::read_to_string(&h).unwrap();
        assert!(text.ends_with('\n'));
        for l in text.lines().skip(1) {
            assert_eq!(l.split(',').count(), 7, "partial row: {l}");
        }
    }
}

#[test]
fn a_killed_run_resumes_to_the_same_bits() {
    let d = scratch("resume");
    let cloud = small_cloud(&d);
    let case = d.join("case.toml");
    std::fs::write(
        &case,
        format!(
            "[cloud]\nfile = \"{}\"\n[solver]\ncfl = 0.5\n[stop]\nmax_iters = 400\n\
             [output]\ncheckpoint_every = 25\nplots = false\nvtk = false\n",
            cloud.display()
        ),
    )
    .unwrap();
    let (full, cut) = (d.join("full"), d.join("cut"));
    let o = qflow(&[
        "run",
        case.to_str().unwrap(),
        "-o",
        full.to_str().unwrap(),
        "-q",
        "--threads",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));

    // Start the same run and SIGKILL it between checkpoints.
    let mut child = Command::new(env!("CARGO_BIN_EXE_qflow"))
        .args([
            "run",
            case.to_str().unwrap(),
            "-o",
            cut.to_str().unwrap(),
            "-q",
            "--threads",
            "1",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let cp = cut.join("checkpoint.qchk");
    let t = std::time::Instant::now();
    loop {
        if let Ok(c) = qflow_par::driver::checkpoint::Checkpoint::read(&cp) {
            if c.iteration >= 100 {
                break;
            }
        }
        assert!(t.elapsed().as_secs() < 120, "no checkpoint appeared");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::thread::sleep(std::time::Duration::from_millis(37));
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "the run finished before it could be killed"
    );
    assert_outputs_whole(&cut);
    let killed_at = qflow_par::driver::checkpoint::Checkpoint::read(&cp)
        .unwrap()
        .iteration;
    assert!(killed_at < 400);

    let o = qflow(&[
        "run",
        case.to_str().unwrap(),
        "-o",
        cut.to_str().unwrap(),
        "-q",
        "--threads",
        "2",
        "--resume",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let a = std::fs::read_to_string(full.join("solution.dat")).unwrap();
    let b = std::fs::read_to_string(cut.join("solution.dat")).unwrap();
    assert!(
        a == b,
        "resumed solution differs (killed after iteration {killed_at})"
    );
    let cols = |p: &Path| -> Vec<String> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| l.rsplit_once(',').map_or(l, |x| x.0).to_string())
            .collect()
    };
    assert_eq!(
        cols(&full.join("history.csv")),
        cols(&cut.join("history.csv"))
    );
}

#[test]
fn resume_refuses_another_problem() {
    let d = scratch("resume-other");
    let cloud = small_cloud(&d);
    let case = write_case(&d, &cloud, "[output]\nplots = false\nvtk = false\n");
    let out = d.join("o");
    let o = qflow(&[
        "run",
        case.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let other = d.join("other.toml");
    std::fs::write(
        &other,
        format!(
            "[cloud]\nfile = \"{}\"\n[flow]\nmach = 0.8\n[stop]\nmax_iters = 9\n",
            cloud.display()
        ),
    )
    .unwrap();
    assert_fails_with(
        &qflow(&[
            "run",
            other.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--resume",
        ]),
        &["cannot resume", "mach"],
    );
    // Another cloud of the same size (a NACA 2412 of the same layout).
    let other_cloud = small_section_cloud(&d, "naca2412", "2412.cloud");
    let set = format!("cloud.file=\"{}\"", other_cloud.display());
    assert_fails_with(
        &qflow(&[
            "run",
            case.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--resume",
            "--set",
            &set,
        ]),
        &["cannot resume", "another mesh or cloud"],
    );
    assert_fails_with(
        &qflow(&[
            "run",
            case.to_str().unwrap(),
            "-o",
            d.join("empty").to_str().unwrap(),
            "--resume",
        ]),
        &["cannot resume", "checkpoint.qchk"],
    );
}

#[test]
fn convert_round_trips_losslessly() {
    let d = scratch("convert");
    let cloud = small_cloud(&d);
    let (a, b, c) = (d.join("a.qfc"), d.join("b.cloud"), d.join("c.qfc"));
    for (i, o) in [(&cloud, &a), (&a, &b), (&b, &c)] {
        let out = qflow(&["convert", i.to_str().unwrap(), o.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&c).unwrap());
    // legacy -> native -> legacy gives the same values (and here the same text)
    assert_eq!(std::fs::read(&cloud).unwrap(), std::fs::read(&b).unwrap());
    // a run reads the native format too
    let case = write_case(&d, &a, "[output]\nplots = false\nvtk = false\n");
    let o = qflow(&[
        "run",
        case.to_str().unwrap(),
        "-o",
        d.join("o").to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_fails_with(
        &qflow(&[
            "convert",
            cloud.to_str().unwrap(),
            a.to_str().unwrap(),
            "--to",
            "xml",
        ]),
        &["xml"],
    );
}

/// `generate -o NAME.qfc` writes the native binary format (other names the
/// legacy text), and `check` reads both: the same cloud, the same report.
#[test]
fn generate_writes_the_format_its_output_name_says_and_check_reads_both() {
    let d = scratch("generate-native");
    let args = |out: &Path| {
        qflow(&[
            "generate",
            "naca2412",
            "--wall-points",
            "40",
            "--rings",
            "12",
            "-o",
            out.to_str().unwrap(),
        ])
    };
    let (native, text) = (d.join("c.qfc"), d.join("c.cloud"));
    for p in [&native, &text] {
        let o = args(p);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(&std::fs::read(&native).unwrap()[..8], b"QFLOWCLD");
    assert!(std::fs::read_to_string(&text).unwrap().starts_with("480\n"));
    let report = |p: &Path| {
        let o = qflow(&["check", p.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        // The last line, without the file name.
        out.lines()
            .last()
            .unwrap()
            .split_once(": ")
            .unwrap()
            .1
            .to_string()
    };
    let r = report(&native);
    assert!(r.starts_with("480 points"), "{r}");
    assert_eq!(r, report(&text));
}

/// `far_field = "vortex"`: the point vortex of the lift at the outer
/// points raises the lift of a body in a close far field (8 chords here),
/// the lift it carries survives a resume to the bit, a checkpoint of the
/// other far field is refused, and a transonic free stream is refused.
#[test]
fn the_far_field_vortex_raises_the_lift_and_resumes_to_the_same_bits() {
    let d = scratch("vortex");
    let cloud = small_cloud(&d);
    let run = |far_field: &str, out: &str, extra: &[&str]| {
        let case = d.join(format!("{far_field}.toml"));
        std::fs::write(
            &case,
            format!(
                "[cloud]\nfile = \"{}\"\n[flow]\nfar_field = \"{far_field}\"\n\
                 [solver]\ncfl = 1.0\n[stop]\nmax_iters = 160\n\
                 [output]\nplots = false\nvtk = false\ncheckpoint_every = 0\n",
                cloud.display()
            ),
        )
        .unwrap();
        let mut a = vec!["run", case.to_str().unwrap(), "-o", out, "-q"];
        a.extend_from_slice(extra);
        qflow(&a)
    };
    let dir = |n: &str| d.join(n).to_str().unwrap().to_string();
    let (free, vortex, parts) = (dir("free"), dir("vortex"), dir("parts"));
    assert!(run("free-stream", &free, &[]).status.success());
    let o = run("vortex", &vortex, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (cl_free, cl_vortex) = (summary_cl(Path::new(&free)), summary_cl(Path::new(&vortex)));
    assert!(cl_free > 0.05, "{cl_free}");
    assert!(
        cl_vortex > cl_free + 1e-3,
        "free {cl_free}, vortex {cl_vortex}"
    );
    // 90 iterations, then a resume to 160: the straight run's bits.
    assert!(run("vortex", &parts, &["--max-iters", "90"])
        .status
        .success());
    let o = run("vortex", &parts, &["--resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        history_without_clock(Path::new(&parts)),
        history_without_clock(Path::new(&vortex))
    );
    // The free-stream run's checkpoint is another problem.
    assert_fails_with(
        &run("vortex", &free, &["--resume"]),
        &["cannot resume", "far_field"],
    );
    assert_fails_with(
        &run("vortex", &dir("fast"), &["--set", "flow.mach=0.97"]),
        &["far_field", "subsonic"],
    );
}

/// `limiter_freeze`: the limiter per point (the least over its stencil),
/// frozen once the residue has fallen that many orders: the run says at
/// which iteration; until then it is the run that never freezes, to the
/// bit, and not after; a resume after the freeze keeps the frozen values
/// (the run's bits); without the limiter the key is refused.
#[test]
fn the_limiter_freezes_after_its_drop_and_resumes_frozen() {
    let d = scratch("freeze");
    let cloud = small_cloud(&d);
    let case = d.join("fz.toml");
    std::fs::write(
        &case,
        format!(
            "[cloud]\nfile = \"{}\"\n[flow]\nmach = 1.2\naoa = 0.0\n[solver]\ncfl = 0.8\n\
             [stop]\nmax_iters = 240\n[output]\nplots = false\nvtk = false\ncheckpoint_every = 0\n",
            cloud.display()
        ),
    )
    .unwrap();
    let run = |out: &str, freeze: &str, extra: &[&str]| {
        let o = d.join(out);
        let set = format!("solver.limiter_freeze={freeze}");
        let mut a = vec![
            "run",
            case.to_str().unwrap(),
            "-o",
            o.to_str().unwrap(),
            "-q",
            "--set",
            &set,
        ];
        a.extend_from_slice(extra);
        let r = qflow(&a);
        assert!(r.status.success(), "{}", stderr(&r));
        (stderr(&r), history_without_clock(&o))
    };
    let (log, frozen) = run("frozen", "1.0", &[]);
    let at: usize = log
        .split("iteration ")
        .nth(1)
        .and_then(|t| t.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no freeze in: {log}"));
    assert!(log.contains("the limiter is frozen"), "{log}");
    assert!((3..200).contains(&at), "frozen at {at}");
    let (_, never) = run("never", "16", &[]);
    // Rows: a header, then iteration 1, 2, ...
    assert_eq!(frozen[..=at], never[..=at], "the same until the freeze");
    assert_ne!(frozen[at + 1], never[at + 1], "and not after it");
    let (_, _) = run("parts", "1.0", &["--max-iters", "200"]);
    let (_, resumed) = run("parts", "1.0", &["--resume"]);
    assert_eq!(resumed, frozen, "a resume after the freeze");
    assert_fails_with(
        &qflow(&[
            "run",
            case.to_str().unwrap(),
            "-o",
            d.join("none").to_str().unwrap(),
            "--set",
            "solver.limiter_freeze=2",
            "--set",
            "solver.limiter=\"none\"",
        ]),
        &["limiter_freeze", "venkatakrishnan"],
    );
}
