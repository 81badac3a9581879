//! Damaged inputs (issue 16): every shipped case file, a checkpoint, the
//! small oblique-shock case and clouds and meshes of every format, 120
//! seeded damaged copies of each (bytes flipped or overwritten, cut short,
//! lines dropped, values replaced); read, checked or run end to end, each
//! either goes through or stops with one named error: never a panic, never
//! a hang. (Moved from `robustness.rs`, which keeps the process edges.)

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const QFLOW: &str = env!("CARGO_BIN_EXE_qflow");

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qflow-damaged-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The small OP2 airfoil case, 3 iterations, no pictures, into `out`.
fn run(out: &Path) -> Output {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/op2-airfoil-small.toml");
    Command::new(QFLOW)
        .args(["run", case.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .args(["--max-iters", "3", "--set", "output.plots=false", "-q"])
        .output()
        .unwrap()
}

/// `n` damaged copies of `good` (bytes flipped, cut short, lines dropped
/// or doubled, values replaced), from `seed`.
fn damaged(good: &[u8], n: usize, seed: u64) -> Vec<Vec<u8>> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let mut b = good.to_vec();
            match rng.gen_range(0..5) {
                0 => {
                    let i = rng.gen_range(0..b.len());
                    b[i] ^= 1 << rng.gen_range(0..8);
                }
                1 => b.truncate(rng.gen_range(0..b.len())),
                2 => {
                    let i = rng.gen_range(0..b.len());
                    b[i] = rng.gen();
                }
                k => {
                    let s = String::from_utf8_lossy(&b).into_owned();
                    let mut lines: Vec<&str> = s.lines().collect();
                    let i = rng.gen_range(0..lines.len().max(1));
                    if k == 3 && !lines.is_empty() {
                        lines.remove(i);
                    } else if !lines.is_empty() {
                        let values = ["= -1", "= 0", "= 1e400", "= \"x\"", "= nan", "= [", "="];
                        let l = lines[i].split('=').next().unwrap_or("").to_string()
                            + values[rng.gen_range(0..values.len())];
                        let joined = lines
                            .iter()
                            .enumerate()
                            .map(|(j, x)| if j == i { l.clone() } else { x.to_string() })
                            .collect::<Vec<_>>()
                            .join("\n");
                        b = joined.into_bytes();
                        return b;
                    }
                    b = lines.join("\n").into_bytes();
                }
            }
            b
        })
        .collect()
}

/// Damaged case files (every shipped case, 120 copies each) and damaged
/// checkpoints (120 copies of a real one) never panic: a case either
/// parses and validates or gives a named error; a checkpoint either reads
/// or is refused.
#[test]
fn damaged_case_files_and_checkpoints_never_panic() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases");
    let mut panicked = 0;
    let mut copies = 0;
    for entry in std::fs::read_dir(&cases).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let good = std::fs::read(&path).unwrap();
        for (k, b) in damaged(&good, 120, copies as u64).iter().enumerate() {
            copies += 1;
            let r = catch_unwind(AssertUnwindSafe(|| {
                let text = String::from_utf8_lossy(b);
                let Ok(c) = qflow::case::CaseFile::parse(&text, &path, &[]) else {
                    return;
                };
                if let Ok(f) = c.get::<qflow::fv_case::FvCase>() {
                    let _ = f.validate().map_err(|e| assert!(!e.to_string().is_empty()));
                }
                if let Ok(l) = c.get::<qflow::lskum_case::LskumCase>() {
                    let _ = l.validate().map_err(|e| assert!(!e.to_string().is_empty()));
                }
                if let Ok(l) = c.get::<qflow::lw_case::LwCase>() {
                    let _ = l.validate().map_err(|e| assert!(!e.to_string().is_empty()));
                }
                if let Ok(l) = c.get::<qflow::dg_case::DgCase>() {
                    let _ = l.validate().map_err(|e| assert!(!e.to_string().is_empty()));
                }
            }));
            if r.is_err() {
                panicked += 1;
                eprintln!("{}: damaged copy {k} panicked", path.display());
            }
        }
    }
    assert!(copies >= 400, "{copies} damaged case files");
    // A real checkpoint.
    let d = scratch("damaged-checkpoint");
    let o = run(&d.join("out"));
    assert!(o.status.success(), "{}", stderr(&o));
    let cp_path = d.join("out/checkpoint.qchk");
    let good = std::fs::read(&cp_path).unwrap();
    assert!(qflow_par::driver::checkpoint::Checkpoint::from_bytes(&good, &cp_path).is_ok());
    let mut read = 0;
    for (k, b) in damaged(&good, 120, 99).iter().enumerate() {
        match catch_unwind(AssertUnwindSafe(|| {
            qflow_par::driver::checkpoint::Checkpoint::from_bytes(b, &cp_path).is_ok()
        })) {
            Ok(true) => read += 1,
            Ok(false) => {}
            Err(_) => {
                panicked += 1;
                eprintln!("damaged checkpoint {k} panicked");
            }
        }
    }
    eprintln!("{copies} damaged case files, 120 damaged checkpoints ({read} still read)");
    assert_eq!(panicked, 0, "damaged inputs panicked (see above)");
    let _ = std::fs::remove_dir_all(&d);
}

/// Damaged copies of the small oblique-shock case *run*, end to end, a few
/// steps each: every one either runs (exit 0, its outputs written) or
/// stops with one `error:` line and exit 1 before any work; none panics
/// (exit 101) or hangs.
#[test]
fn damaged_lw_cases_run_or_are_refused() {
    let d = scratch("damaged-lw");
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/oblique-shock-small.toml");
    let good = std::fs::read(&case).unwrap();
    let (mut ran, mut refused) = (0, 0);
    for (k, b) in damaged(&good, 120, 7).iter().enumerate() {
        let file = d.join(format!("case{k}.toml"));
        std::fs::write(&file, b).unwrap();
        let out = d.join(format!("out{k}"));
        let o = Command::new(env!("CARGO_BIN_EXE_qflow"))
            .args([
                "run",
                file.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "-q",
                "--max-iters",
                "3",
                "--set",
                "output.plots=false",
                "--set",
                "output.vtk=false",
            ])
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        match o.status.code() {
            Some(0) => {
                ran += 1;
                assert!(out.join("summary.toml").exists(), "copy {k}: no summary");
            }
            Some(1) => {
                refused += 1;
                assert!(e.starts_with("error:"), "copy {k}: {e}");
            }
            other => panic!(
                "damaged copy {k}: exit {other:?}\n{e}\n{}",
                String::from_utf8_lossy(b)
            ),
        }
    }
    eprintln!("120 damaged oblique-shock cases: {ran} ran, {refused} refused");
    assert!(ran > 0 && refused > 0, "{ran} ran, {refused} refused");
    let _ = std::fs::remove_dir_all(&d);
}

/// Runs `qflow run` on `case` (a few steps, no pictures): exit 0 with a
/// summary, or exit 1 with one `error:` line; anything else (a panic's
/// 101, a signal) fails the test. True when it ran.
fn runs_or_is_refused(case: &Path, out: &Path, what: &str) -> bool {
    let o = Command::new(QFLOW)
        .args(["run", case.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .args(["-q", "--max-iters", "2", "--set", "output.plots=false"])
        .args(["--set", "output.vtk=false"])
        .output()
        .unwrap();
    let e = stderr(&o);
    match o.status.code() {
        Some(0) => {
            assert!(out.join("summary.toml").exists(), "{what}: no summary");
            true
        }
        Some(1) => {
            assert!(
                e.lines().any(|l| l.starts_with("error:")) && !e.contains("panicked"),
                "{what}: {e}"
            );
            false
        }
        other => panic!("{what}: exit {other:?}\n{e}"),
    }
}

/// Damaged clouds (legacy text and native) and meshes (OP2's text and
/// native, SU2 and Gmsh with named markers), 120 copies of each, *run* end
/// to end, two iterations each:
/// every run either goes through or stops with one error line (a read
/// error, a check that fails, or a non-physical state after the first
/// steps); none panics or hangs.
#[test]
fn damaged_clouds_and_meshes_run_or_are_refused() {
    let d = scratch("damaged-runs");
    let make = |args: &[&str]| {
        let o = Command::new(QFLOW)
            .arg("generate")
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    };
    let inputs = [
        ("cloud.txt", "[cloud]\nfile = \"{}\"\n"),
        ("cloud.qfc", "[cloud]\nfile = \"{}\"\n"),
        ("mesh.dat", "method = \"fv\"\n[mesh]\nfile = \"{}\"\n"),
        ("mesh.qfm", "method = \"fv\"\n[mesh]\nfile = \"{}\"\n"),
        (
            "mesh.su2",
            "method = \"fv\"\n[mesh]\nfile = \"{}\"\nwall = [\"airfoil\"]\nfar_field = [\"farfield\"]\n",
        ),
        (
            "mesh.msh",
            "method = \"fv\"\n[mesh]\nfile = \"{}\"\nwall = [\"airfoil\"]\nfar_field = [\"farfield\"]\n",
        ),
    ];
    for (name, _) in &inputs[..2] {
        let out = d.join(name);
        make(&[
            "naca0012",
            "--wall-points",
            "40",
            "--rings",
            "10",
            "-o",
            out.to_str().unwrap(),
        ]);
    }
    for (name, _) in &inputs[2..4] {
        let out = d.join(name);
        make(&[
            "op2-naca0012",
            "--i",
            "8",
            "--j",
            "12",
            "-o",
            out.to_str().unwrap(),
        ]);
    }
    // The same mesh as SU2 and Gmsh files with named markers.
    common::write_su2_and_gmsh(
        &d.join("mesh.qfm"),
        &d.join("mesh.su2"),
        &d.join("mesh.msh"),
    );
    for (seed, (name, template)) in inputs.iter().enumerate() {
        let good = std::fs::read(d.join(name)).unwrap();
        // The undamaged input runs.
        let case = d.join(format!("good-{name}.toml"));
        let path = d.join(name);
        std::fs::write(&case, template.replace("{}", path.to_str().unwrap())).unwrap();
        assert!(runs_or_is_refused(
            &case,
            &d.join(format!("out-good-{name}")),
            name
        ));
        let (mut ran, mut refused) = (0, 0);
        for (k, b) in damaged(&good, 120, 1000 + seed as u64).iter().enumerate() {
            let file = d.join(format!("{k}-{name}"));
            std::fs::write(&file, b).unwrap();
            let case = d.join(format!("{k}-{name}.toml"));
            std::fs::write(&case, template.replace("{}", file.to_str().unwrap())).unwrap();
            let what = format!("damaged {name} copy {k}");
            if runs_or_is_refused(&case, &d.join(format!("out-{k}-{name}")), &what) {
                ran += 1;
            } else {
                refused += 1;
            }
        }
        eprintln!("120 damaged {name}: {ran} ran, {refused} refused");
        assert!(refused > 0, "{name}: no damaged copy was refused");
    }
    let _ = std::fs::remove_dir_all(&d);
}
