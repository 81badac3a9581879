//! Process edges a user or an adversary hits (issue 16): a full standard
//! output, a full disk, an output folder that cannot be made, impossible
//! thread counts, an output folder held by
//! another run, temporary files of killed runs, and the signal exits. Each
//! ends with a one-line error or a clean exit, never a panic.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const QFLOW: &str = env!("CARGO_BIN_EXE_qflow");

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qflow-robust-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn small_case() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/op2-airfoil-small.toml")
}

fn run(out: &Path, extra: &[&str]) -> Output {
    Command::new(QFLOW)
        .args([
            "run",
            small_case().to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .args(["--max-iters", "3", "--set", "output.plots=false", "-q"])
        .args(extra)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A failure as users should see it: a non-zero exit, the reason on one
/// `error:` line, no panic.
fn assert_clean_failure(o: &Output, reason: &str) {
    let e = stderr(o);
    assert!(!o.status.success(), "succeeded: {e}");
    assert!(!e.contains("panicked"), "panicked: {e}");
    let line = e
        .lines()
        .find(|l| l.starts_with("error:"))
        .unwrap_or_else(|| panic!("no error line: {e}"));
    assert!(line.contains(reason), "`{reason}` not in: {line}");
}

#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    let d = scratch("full");
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
    let Ok(full) = full else {
        eprintln!("SKIPPED: no /dev/full");
        return;
    };
    let o = Command::new(QFLOW)
        .args(["run", small_case().to_str().unwrap(), "-o"])
        .arg(d.join("out"))
        .args(["--max-iters", "3", "--set", "output.plots=false", "-q"])
        .stdout(Stdio::from(full))
        .output()
        .unwrap();
    assert_clean_failure(&o, "writing to standard output");
    let _ = std::fs::remove_dir_all(&d);
}

/// A disk that fills up under a run: a file-size limit of 16 KiB
/// (`ulimit -f`, with SIGXFSZ ignored so that a write past it fails with
/// EFBIG as a full disk fails with ENOSPC) stops the run at its first
/// checkpoint with one error line naming the file; no temporary is left,
/// nor the folder's lock. An output folder that cannot be made is named.
#[test]
fn a_full_disk_and_an_unwritable_output_folder_are_one_line_errors() {
    let d = scratch("disk");
    let out = d.join("out");
    let script = format!(
        "ulimit -f 16 && trap '' XFSZ && exec '{QFLOW}' run '{}' -o '{}' \
         --max-iters 3 --set output.plots=false -q",
        small_case().display(),
        out.display()
    );
    let o = Command::new("bash").args(["-c", &script]).output().unwrap();
    assert_clean_failure(&o, "File too large");
    assert!(stderr(&o).contains("checkpoint.qchk"), "{}", stderr(&o));
    let left: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");

    let file = d.join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let o = run(&file.join("out"), &[]);
    assert_clean_failure(&o, "cannot create output folder");
    // The folder itself a file (it said "File exists").
    let o = run(&file, &[]);
    assert_clean_failure(&o, "a file is there; give a folder");
    let _ = std::fs::remove_dir_all(&d);
}

/// Standard error that cannot be written (`2>/dev/full`): the log and the
/// messages are dropped and the run goes on (before, the log's writer
/// panicked reporting its own failure, exit 101, no outputs); a refused
/// case still exits 1.
#[test]
fn a_full_standard_error_is_not_a_panic() {
    let d = scratch("full-stderr");
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("SKIPPED: no /dev/full");
        return;
    };
    let full2 = full.try_clone().unwrap();
    let o = Command::new(QFLOW)
        .args(["run", small_case().to_str().unwrap(), "-o"])
        .arg(d.join("out"))
        .args(["--max-iters", "3", "--set", "output.plots=false"])
        .stderr(Stdio::from(full))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(d.join("out/summary.toml").exists());
    let o = Command::new(QFLOW)
        .args(["run", small_case().to_str().unwrap(), "-o"])
        .arg(d.join("bad"))
        .args(["--set", "fv.mach=0"])
        .stderr(Stdio::from(full2))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn impossible_thread_counts_are_refused_before_any_work() {
    let d = scratch("threads");
    let t = Instant::now();
    let o = run(
        &d.join("out"),
        &["--backend", "threads", "--threads", "99999999999"],
    );
    assert_clean_failure(&o, "--threads 99999999999");
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "took {:?}",
        t.elapsed()
    );
    assert!(!d.join("out/history.csv").exists(), "no work was done");
    let _ = std::fs::remove_dir_all(&d);
}

/// Another backend's options were ignored without a word; work-group sizes
/// were clamped into range (0 became 1), and on PoCL a group of 1024 or
/// more crashed DG's kernels (a segmentation fault, no message).
#[test]
fn options_of_another_backend_and_bad_work_groups_are_refused() {
    let d = scratch("backend-options");
    for (extra, reason) in [
        (
            &["--backend", "serial", "--threads", "2"][..],
            "--threads 2",
        ),
        (
            &["--backend", "threads", "--work-group", "64"][..],
            "--work-group 64",
        ),
        (&["--backend", "serial", "--device", "0"][..], "--device 0"),
        (
            &["--backend", "opencl", "--work-group", "0"][..],
            "--work-group 0",
        ),
        (
            &["--backend", "opencl", "--work-group", "48"][..],
            "give a power of two",
        ),
    ] {
        let o = run(&d.join("out"), extra);
        assert_clean_failure(&o, reason);
        assert!(!d.join("out/history.csv").exists(), "{extra:?}: ran");
    }
    // `--max-iters 0` ran no step, exit 0, over the folder's last history
    // and summary.
    let o = Command::new(QFLOW)
        .args(["run", small_case().to_str().unwrap(), "-o"])
        .arg(d.join("out"))
        .args(["--max-iters", "0", "-q"])
        .output()
        .unwrap();
    assert!(
        !o.status.success() && stderr(&o).contains("invalid value '0' for '--max-iters"),
        "{}",
        stderr(&o)
    );
    #[cfg(feature = "opencl")]
    if qflow_par::backend::opencl::device_for_tests() {
        let cpu_only = qflow_par::backend::opencl::devices()
            .unwrap()
            .iter()
            .filter(|d| d.fp64)
            .all(|d| d.device_type == "CPU");
        // Beyond any device's limit; on a CPU device (PoCL) beyond 256.
        let sizes: &[&str] = if cpu_only {
            &["1048576", "1024"]
        } else {
            &["1048576"]
        };
        for w in sizes {
            let o = run(&d.join("out"), &["--backend", "opencl", "--work-group", w]);
            assert_clean_failure(&o, &format!("--work-group {w}: at most"));
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// `--backend cuda` where it cannot run is one line naming what is
/// missing, exit 1, before any work: the build's feature, or (a build
/// with it, on a machine like CI's) the CUDA driver.
#[test]
fn a_cuda_run_without_cuda_is_one_line_before_any_work() {
    #[cfg(feature = "cuda")]
    if qflow_par::backend::cuda::driver_present() {
        eprintln!("SKIPPED: this machine has a CUDA driver");
        return;
    }
    let d = scratch("no-cuda");
    let t = Instant::now();
    let o = run(&d.join("out"), &["--backend", "cuda"]);
    let reason = if cfg!(feature = "cuda") {
        "no CUDA driver: libcuda.so.1 could not be loaded"
    } else {
        "this build has no CUDA backend: build with `--features cuda`"
    };
    assert_clean_failure(&o, reason);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stderr(&o).trim_end().lines().count(), 1, "{}", stderr(&o));
    assert!(!d.join("out").exists(), "the output folder was made");
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "took {:?}",
        t.elapsed()
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_output_folder_in_use_is_refused_and_a_dead_runs_lock_taken_over() {
    let d = scratch("lock");
    let out = d.join("out");
    std::fs::create_dir_all(&out).unwrap();
    // A live process (this test) holds it.
    std::fs::write(out.join(".qflow.lock"), std::process::id().to_string()).unwrap();
    let o = run(&out, &[]);
    assert_clean_failure(&o, "in use by another qflow run");
    assert!(!out.join("history.csv").exists());
    // The holder is gone (a pid above the kernel's maximum): taken over,
    // and released when the run ends.
    std::fs::write(out.join(".qflow.lock"), "4000000000").unwrap();
    // Temporary files of killed runs go; a live process's stays.
    std::fs::write(out.join(".checkpoint.qchk.tmp-4000000001"), "torn").unwrap();
    let live = format!(".history.csv.tmp-{}", std::process::id());
    std::fs::write(out.join(&live), "in progress").unwrap();
    let o = run(&out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("history.csv").exists());
    assert!(!out.join(".qflow.lock").exists(), "the lock is released");
    assert!(!out.join(".checkpoint.qchk.tmp-4000000001").exists());
    assert!(out.join(&live).exists());
    let _ = std::fs::remove_dir_all(&d);
}

/// SIGINT, SIGTERM and SIGHUP: the run stops after its step, writes its
/// checkpoint and summary, and exits 128 + the signal's number.
#[cfg(unix)]
/// The small case started into `out` with `extra` arguments, running
/// until stopped, once it has taken its folder (its lock exists).
fn spawn_until_locked(out: &Path, extra: &[&str]) -> std::process::Child {
    let child = Command::new(QFLOW)
        .args(["run", small_case().to_str().unwrap(), "-o"])
        .arg(out)
        .args([
            "--max-iters",
            "1000000",
            "-q",
            "--set",
            "output.plots=false",
        ])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !out.join(".qflow.lock").exists() && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(2));
    }
    child
}

#[test]
fn signals_stop_a_run_with_a_checkpoint_and_the_shells_exit_code() {
    let d = scratch("signals");
    for (sig, code) in [
        (libc::SIGINT, 130),
        (libc::SIGTERM, 143),
        (libc::SIGHUP, 129),
    ] {
        let out = d.join(format!("out{sig}"));
        let mut child = spawn_until_locked(&out, &[]);
        // A moment of stepping.
        std::thread::sleep(Duration::from_millis(2000));
        // SAFETY: a plain kill(2) of our own child.
        unsafe { libc::kill(child.id() as i32, sig) };
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "signal {sig}");
        let summary = std::fs::read_to_string(out.join("summary.toml")).unwrap();
        assert!(summary.contains("stop = \"interrupted\""), "{summary}");
        assert!(out.join("checkpoint.qchk").exists());
        assert!(!out.join(".qflow.lock").exists(), "the lock is released");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A stop signal during the set-up (here as soon as the run has taken its
/// folder, while it generates and plans a 240,000-cell mesh): the run
/// stops after its first step with a checkpoint and the signal's status,
/// instead of dying with its lock left behind.
#[test]
fn a_signal_during_the_setup_stops_after_the_first_step() {
    let d = scratch("early-signal");
    let out = d.join("out");
    let mut child = spawn_until_locked(
        &out,
        &[
            "--set",
            "mesh.generate.i=400",
            "--set",
            "mesh.generate.j=600",
        ],
    );
    // SAFETY: a plain kill(2) of our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    let summary = std::fs::read_to_string(out.join("summary.toml")).unwrap();
    assert!(summary.contains("stop = \"interrupted\""), "{summary}");
    assert!(summary.contains("iterations = 1\n"), "{summary}");
    assert!(out.join("checkpoint.qchk").exists());
    assert!(!out.join(".qflow.lock").exists(), "the lock is released");
    let _ = std::fs::remove_dir_all(&d);
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
    let o = run(&d.join("out"), &[]);
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
