//! The finite-volume method through `qflow`: the shipped cases run and
//! check themselves against OP2's numbers, bad input is refused before any
//! work with the key or element named.
// OP2's numbers are quoted as OP2 printed them, to 17 digits.
#![allow(clippy::excessive_precision)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../cases")
}

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qflow-fv-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn qflow(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qflow"))
        .args(args)
        .output()
        .unwrap()
}

fn run(case: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut a = vec![
        "run",
        case.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ];
    a.extend_from_slice(extra);
    qflow(&a)
}

fn history(out: &Path) -> (String, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(out.join("history.csv")).unwrap();
    let header = text.lines().next().unwrap().to_string();
    let rows = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|t| t.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

#[test]
fn the_small_case_passes_its_check_against_op2() {
    let d = temp("small");
    let o = run(
        &cases_dir().join("op2-airfoil-small.toml"),
        &d.join("out"),
        &[],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("PASSED"), "{stderr}");
    let (header, rows) = history(&d.join("out"));
    assert_eq!(header, "iteration,rms,log_rms_drop,wall_seconds");
    assert_eq!(rows.len(), 1000);
    let summary = std::fs::read_to_string(d.join("out/summary.toml")).unwrap();
    assert!(summary.contains("check = \"passed\""), "{summary}");
    assert!(d.join("out/field.vtu").exists());
    // Stopped early by --max-iters: the check is not made, and said so
    // (it was skipped without a word).
    let o = run(
        &cases_dir().join("op2-airfoil-small.toml"),
        &d.join("short"),
        &["--max-iters", "3"],
    );
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("[expect] rms not checked"));
    let summary = std::fs::read_to_string(d.join("short/summary.toml")).unwrap();
    assert!(summary.contains("check = \"not made"), "{summary}");
    // The surface pressure: one row per wall edge (40 on this mesh), a
    // wall cell near the leading edge at the isentropic stagnation value
    // ((1 + 0.2 M^2)^3.5 - 1) / (0.7 M^2) = 1.0406 for M 0.4 (the two
    // tiny cells wrapped round the leading edge of this coarse mesh
    // overshoot it), suction on both surfaces at zero incidence.
    let surface = std::fs::read_to_string(d.join("out/surface.csv")).unwrap();
    let cp: Vec<Vec<f64>> = surface
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|t| t.parse().unwrap()).collect())
        .collect();
    assert_eq!(surface.lines().next(), Some("x,y,cp"));
    assert_eq!(cp.len(), 40);
    assert!(cp.iter().all(|r| r[2].is_finite()));
    let m: f64 = 0.4;
    let stagnation = ((1.0 + 0.2 * m * m).powf(3.5) - 1.0) / (0.7 * m * m);
    assert!(
        cp.iter().any(|r| (r[2] - stagnation).abs() < 0.01),
        "no wall cell near the stagnation Cp {stagnation}"
    );
    let min = cp.iter().map(|r| r[2]).fold(f64::MAX, f64::min);
    assert!(min < -0.2, "suction peak Cp {min}");
    // In order along the wall: consecutive midpoints a wall edge apart
    // (at most 0.096 chord on this mesh; the wall is 2 chords round).
    let step = cp
        .windows(2)
        .map(|w| (w[0][0] - w[1][0]).hypot(w[0][1] - w[1][1]))
        .fold(0.0, f64::max);
    assert!(step < 0.12, "surface.csv jumps {step} between rows");
    // The pictures.
    for f in ["history.png", "cp.png", "mach.png"] {
        let png = std::fs::read(d.join("out").join(f)).unwrap();
        assert!(
            png.starts_with(b"\x89PNG") && png.len() > 10_000,
            "{f}: {} bytes",
            png.len()
        );
    }
    // A wrong expectation fails the run, with both numbers named.
    let o = run(
        &cases_dir().join("op2-airfoil-small.toml"),
        &d.join("out2"),
        &["--set", "expect.rms=1.9e-6", "--max-iters", "1000"],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && stderr.contains("FAILED"), "{stderr}");
    let _ = std::fs::remove_dir_all(&d);
}

/// The first two iterations on the 720,000-cell mesh, against OP2's own run
/// on its file (printed to 17 digits, docs/fv.md): the full-size mesh and
/// scheme in a second.
#[test]
fn the_720k_case_starts_as_op2_does() {
    let d = temp("720k");
    let o = run(
        &cases_dir().join("op2-airfoil.toml"),
        &d.join("out"),
        &[
            "--max-iters",
            "2",
            "--set",
            "output.vtk=false",
            "--set",
            "output.plots=false",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, rows) = history(&d.join("out"));
    for (row, want) in rows
        .iter()
        .zip([2.01864968263890804e-03, 1.91677552264019903e-03])
    {
        let rel = (row[1] - want).abs() / want;
        assert!(
            rel < 1e-13,
            "iteration {}: {} vs OP2 {want}",
            row[0],
            row[1]
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_input_is_refused_before_any_work() {
    let d = temp("bad");
    let small = cases_dir().join("op2-airfoil-small.toml");
    let o = run(&small, &d.join("o1"), &["--set", "fv.mach=0"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("[fv] mach = 0"), "{e}");
    assert!(!d.join("o1/history.csv").exists());
    // A mesh larger than this machine's memory (1.2e9 cells, ~560 GiB):
    // refused before it is generated (it used to abort allocating).
    let o = run(
        &small,
        &d.join("huge"),
        &[
            "--set",
            "mesh.generate.i=20000",
            "--set",
            "mesh.generate.j=20000",
        ],
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("GiB available"), "{e}");
    // A mesh file whose interior edge lies the wrong way round.
    let mesh = d.join("m.dat");
    let g = qflow(&[
        "generate",
        "op2-naca0012",
        "--i",
        "4",
        "--j",
        "6",
        "-o",
        mesh.to_str().unwrap(),
    ]);
    assert!(g.status.success());
    let text = std::fs::read_to_string(&mesh).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let header: Vec<usize> = lines[0]
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    let first_edge = 1 + header[0] + header[1];
    let f: Vec<&str> = lines[first_edge].split_whitespace().collect();
    lines[first_edge] = format!(" {} {} {} {} ", f[1], f[0], f[2], f[3]);
    std::fs::write(&mesh, lines.join("\n") + "\n").unwrap();
    let c = qflow(&["check", mesh.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&c.stdout);
    assert!(!c.status.success() && out.contains("edge 0: cell"), "{out}");
    let case = d.join("case.toml");
    std::fs::write(&case, "method = \"fv\"\n[mesh]\nfile = \"m.dat\"\n").unwrap();
    let o = run(&case, &d.join("o2"), &[]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("edge 0: cell"), "{e}");
    // A header with a count too many or too few is OP2's header, named as
    // such (it was read as a q-LSKUM cloud's point count).
    for (head, says) in [
        (format!("{} 7", lines[0]), "header: 5 fields where 4 belong"),
        (
            lines[0].trim().rsplit_once(' ').unwrap().0.to_string(),
            "boundary edge count: missing",
        ),
    ] {
        let mut l = lines.clone();
        l[0] = head;
        std::fs::write(&mesh, l.join("\n") + "\n").unwrap();
        let c = qflow(&["check", mesh.to_str().unwrap()]);
        let e = String::from_utf8_lossy(&c.stderr);
        assert!(!c.status.success() && e.contains(says), "{e}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A CFL number far above the scheme's limit: the run stops at the first
/// iteration whose state is not physical (a pressure or density not above
/// 0; it stopped only where the state was no longer finite, keeping
/// cells of negative pressure), exits non-zero, and its
/// outputs and checkpoint hold the state of the iteration before, to the
/// bit: the outputs of a run stopped there by its step limit.
#[test]
fn a_blown_up_iteration_stops_with_the_state_before_it() {
    let d = temp("blow");
    let small = cases_dir().join("op2-airfoil-small.toml");
    let hot = ["--set", "fv.cfl=5", "--set", "output.plots=false"];
    let o = run(&small, &d.join("blown"), &hot);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{e}");
    let at = e
        .split("iteration ")
        .nth(1)
        .and_then(|t| t.split(':').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no iteration in: {e}"));
    assert!(e.contains("a state that is not physical"), "{e}");
    let kept = (at - 1).to_string();
    let mut limited = hot.to_vec();
    limited.extend(["--max-iters", &kept]);
    let o = run(&small, &d.join("limited"), &limited);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let surface = std::fs::read_to_string(d.join("blown/surface.csv")).unwrap();
    assert!(
        !surface.to_lowercase().contains("nan"),
        "surface.csv holds NaN"
    );
    for f in ["surface.csv", "field.vtu"] {
        let a = std::fs::read(d.join("blown").join(f)).unwrap();
        let b = std::fs::read(d.join("limited").join(f)).unwrap();
        assert!(a == b, "{f}: not the state after iteration {kept}");
    }
    // The histories agree but for the wall clock (the last column).
    let rows = |o: &str| -> Vec<Vec<f64>> {
        let (_, r) = history(&d.join(o));
        r.into_iter().map(|r| r[..r.len() - 1].to_vec()).collect()
    };
    assert_eq!(rows("blown"), rows("limited"));
    assert_eq!(rows("blown").len() as u64, at - 1);
    // Blown up at the first iteration: no rms at all rather than NaN.
    let o = run(
        &small,
        &d.join("first"),
        &["--set", "fv.cfl=90", "--set", "output.plots=false"],
    );
    assert!(!o.status.success());
    let summary = std::fs::read_to_string(d.join("first/summary.toml")).unwrap();
    assert!(summary.contains("iterations = 0"), "{summary}");
    assert!(!summary.to_lowercase().contains("nan"), "{summary}");
    let _ = std::fs::remove_dir_all(&d);
}

/// A mesh written by `qflow generate` in either format, run from its file,
/// gives the generated mesh's history to the bit.
#[test]
fn mesh_files_in_either_format_run_like_the_generated_mesh() {
    let d = temp("files");
    let mut histories = Vec::new();
    for name in ["m.dat", "m.qfm", ""] {
        let case = d.join("case.toml");
        let mesh = if name.is_empty() {
            "generate = { kind = \"op2-naca0012\", i = 8, j = 12 }".to_string()
        } else {
            let g = qflow(&[
                "generate",
                "op2-naca0012",
                "--i",
                "8",
                "--j",
                "12",
                "-o",
                d.join(name).to_str().unwrap(),
            ]);
            assert!(g.status.success(), "{}", String::from_utf8_lossy(&g.stderr));
            let c = qflow(&["check", d.join(name).to_str().unwrap()]);
            assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stdout));
            format!("file = \"{name}\"")
        };
        std::fs::write(
            &case,
            format!("method = \"fv\"\n[mesh]\n{mesh}\n[stop]\nmax_iters = 20\n"),
        )
        .unwrap();
        let out = d.join(format!("out{}", histories.len()));
        let o = run(
            &case,
            &out,
            &["--set", "output.vtk=false", "--set", "output.plots=false"],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let (_, rows) = history(&out);
        histories.push(rows.iter().map(|r| r[1]).collect::<Vec<f64>>());
    }
    assert_eq!(histories[0], histories[2]);
    assert_eq!(histories[1], histories[2]);
    let _ = std::fs::remove_dir_all(&d);
}

/// OP2's mesh written as SU2 and Gmsh files (the wake cut's duplicated
/// nodes merged, boundaries as markers `airfoil` and `farfield`), run with
/// the markers mapped: the same flow as the generated mesh, to round-off
/// (the edges come in another order).
#[test]
fn su2_and_gmsh_files_with_mapped_markers_give_the_same_flow() {
    let d = temp("markers");
    let mesh = d.join("m.qfm");
    let g = qflow(&[
        "generate",
        "op2-naca0012",
        "--i",
        "8",
        "--j",
        "12",
        "-o",
        mesh.to_str().unwrap(),
    ]);
    assert!(g.status.success());
    common::write_su2_and_gmsh(&mesh, &d.join("m.su2"), &d.join("m.msh"));
    let mut histories = Vec::new();
    for file in ["m.qfm", "m.su2", "m.msh"] {
        let markers = if file == "m.qfm" {
            String::new()
        } else {
            "wall = [\"airfoil\"]\nfar_field = [\"farfield\"]\n".into()
        };
        let case = d.join("case.toml");
        std::fs::write(
            &case,
            format!(
                "method = \"fv\"\n[mesh]\nfile = \"{file}\"\n{markers}[stop]\nmax_iters = 20\n"
            ),
        )
        .unwrap();
        let out = d.join(format!("out-{file}"));
        let o = run(
            &case,
            &out,
            &["--set", "output.vtk=false", "--set", "output.plots=false"],
        );
        assert!(
            o.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let (_, rows) = history(&out);
        histories.push(rows.iter().map(|r| r[1]).collect::<Vec<f64>>());
    }
    for h in &histories[1..] {
        for (a, b) in h.iter().zip(&histories[0]) {
            assert!((a - b).abs() <= 1e-10 * b, "{a} vs {b}");
        }
    }
    // Without the mapping, the run names what is missing.
    let case = d.join("case.toml");
    std::fs::write(
        &case,
        "method = \"fv\"\n[mesh]\nfile = \"m.su2\"\nwall = [\"airfoil\"]\n",
    )
    .unwrap();
    let o = run(&case, &d.join("bad"), &[]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("`farfield` is not mapped"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// The mixed-cell case (triangles and quadrilaterals, 2 degrees) runs to
/// its outputs; its lift is positive and its summary has the forces; an
/// angle of attack out of range is refused before any work.
#[test]
fn the_mixed_mesh_case_lifts_at_an_angle_of_attack() {
    let d = temp("mixed");
    let out = d.join("out");
    let o = run(
        &cases_dir().join("fv-naca0012-mixed.toml"),
        &out,
        &["--max-iters", "1500"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: toml::Table = std::fs::read_to_string(out.join("summary.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let get = |k: &str| summary[k].as_float().unwrap();
    assert_eq!(summary["cells"].as_integer(), Some(10_800));
    assert_eq!(get("aoa"), 2.0);
    assert!(get("cl") > 0.1 && get("cl") < 0.4, "cl {}", get("cl"));
    assert!(get("cd").abs() < 0.1 && get("cm").abs() < 0.1);
    for f in [
        "surface.csv",
        "field.vtu",
        "cp.png",
        "mach.png",
        "history.png",
    ] {
        assert!(out.join(f).exists(), "{f}");
    }
    let o = run(
        &cases_dir().join("fv-naca0012-mixed.toml"),
        &d.join("bad"),
        &["--set", "fv.aoa=400"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("[fv] aoa = 400"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!d.join("bad").join("history.csv").exists());
    let _ = std::fs::remove_dir_all(&d);
}

/// The Gmsh-made meshes (triangles in MSH 4.1 binary, mixed cells in 2.2
/// ASCII) run from their cases towards a converged state with lift at 2
/// degrees: the rms falls by five orders, the lift is near the linear
/// theory's (2 pi alpha / sqrt(1 - M^2) = 0.253), the two meshes agree,
/// the suction is on the upper surface and `surface.csv` starts at the
/// trailing edge (the cp plot splits the wall there and at the leading edge).
#[test]
fn gmsh_meshes_run_to_forces_and_pictures() {
    let d = temp("gmsh-cases");
    let mut lift = Vec::new();
    for (kind, cells) in [("tri", 4318), ("mixed", 2141)] {
        let out = d.join(kind);
        let case = cases_dir().join(format!("fv-gmsh-naca0012-{kind}.toml"));
        let o = run(&case, &out, &["--max-iters", "6000"]);
        assert!(
            o.status.success(),
            "{kind}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let summary: toml::Table = std::fs::read_to_string(out.join("summary.toml"))
            .unwrap()
            .parse()
            .unwrap();
        let get = |k: &str| summary[k].as_float().unwrap();
        assert_eq!(summary["cells"].as_integer(), Some(cells), "{kind}");
        let (_, rows) = history(&out);
        assert!(
            get("rms") < 1e-5 * rows[0][1],
            "{kind}: rms {} from {}",
            get("rms"),
            rows[0][1]
        );
        assert!(
            get("cl") > 0.22 && get("cl") < 0.27,
            "{kind}: cl {}",
            get("cl")
        );
        assert!(
            get("cd") > 0.0 && get("cd") < 0.1,
            "{kind}: cd {}",
            get("cd")
        );
        lift.push(get("cl"));
        for f in ["field.vtu", "cp.png", "mach.png", "history.png"] {
            assert!(out.join(f).exists(), "{kind}: {f}");
        }
        let surface = std::fs::read_to_string(out.join("surface.csv")).unwrap();
        let rows: Vec<[f64; 3]> = surface
            .lines()
            .skip(1)
            .map(|l| {
                let v: Vec<f64> = l.split(',').map(|t| t.parse().unwrap()).collect();
                [v[0], v[1], v[2]]
            })
            .collect();
        let max_x = rows.iter().map(|r| r[0]).fold(f64::MIN, f64::max);
        assert_eq!(
            rows[0][0], max_x,
            "{kind}: surface.csv starts at the trailing edge"
        );
        let mean = |upper: bool| {
            let side: Vec<f64> = rows
                .iter()
                .filter(|r| (r[1] > 0.0) == upper)
                .map(|r| r[2])
                .collect();
            side.iter().sum::<f64>() / side.len() as f64
        };
        assert!(
            mean(true) < mean(false) - 0.05,
            "{kind}: suction on the upper surface"
        );
    }
    assert!((lift[0] - lift[1]).abs() < 0.02 * lift[0], "lift {lift:?}");
    // To convergence by the residue's drop: stopped once the rms has
    // fallen 6 orders below the first iteration's, well before max_iters.
    let out = d.join("drop");
    let case = cases_dir().join("fv-gmsh-naca0012-mixed.toml");
    let o = run(&case, &out, &["--set", "stop.residue_drop=6"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = std::fs::read_to_string(out.join("summary.toml")).unwrap();
    assert!(summary.contains("stop = \"residue dropped\""), "{summary}");
    let (header, rows) = history(&out);
    assert_eq!(header, "iteration,rms,log_rms_drop,wall_seconds");
    let last = rows.last().unwrap();
    assert!(last[0] < 12000.0 && last[2] <= -6.0, "{last:?}");
    assert!(
        rows[rows.len() - 2][2] > -6.0,
        "stopped at the first drop of 6 orders"
    );
    assert!((last[2] - (last[1] / rows[0][1]).log10()).abs() < 1e-12);
    let _ = std::fs::remove_dir_all(&d);
}

/// `qflow convert` of a mesh: Gmsh (markers mapped) to `.qfm`, `.qfm` to
/// OP2's text, and OP2's text read back: the same mesh each time; a Gmsh
/// file without its markers mapped is refused, naming them.
#[test]
fn meshes_convert_between_formats() {
    let d = temp("convert");
    let qfm = d.join("m.qfm");
    let o = qflow(&[
        "generate",
        "op2-naca0012",
        "--i",
        "8",
        "--j",
        "6",
        "-o",
        qfm.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (su2, msh) = (d.join("m.su2"), d.join("m.msh"));
    common::write_su2_and_gmsh(&qfm, &su2, &msh);
    let back = d.join("back.qfm");
    let args = |input: &Path, output: &Path| {
        vec![
            "convert".to_string(),
            input.display().to_string(),
            output.display().to_string(),
        ]
    };
    let mut a = args(&msh, &back);
    a.extend(["--wall", "airfoil", "--far-field", "farfield"].map(String::from));
    let o = qflow(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("144 quadrilaterals"));
    let dat = d.join("back.dat");
    let o = qflow(
        &args(&back, &dat)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (a, b) = (
        qflow_mesh::poly::native::read(&back).unwrap(),
        qflow_mesh::poly::op2::read(&dat).unwrap(),
    );
    assert_eq!(a, b);
    let o = qflow(
        &args(&su2, &d.join("x.qfm"))
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("airfoil, farfield") && e.contains("--wall"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
