//! The finite-volume method through `qflow`: the shipped cases run and
//! check themselves against OP2's numbers, bad input is refused before any
//! work with the key or element named.
// OP2's numbers are quoted as OP2 printed them, to 17 digits.
#![allow(clippy::excessive_precision)]

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
    assert_eq!(header, "iteration,rms,wall_seconds");
    assert_eq!(rows.len(), 1000);
    let summary = std::fs::read_to_string(d.join("out/summary.toml")).unwrap();
    assert!(summary.contains("check = \"passed\""), "{summary}");
    assert!(d.join("out/field.vtu").exists());
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
