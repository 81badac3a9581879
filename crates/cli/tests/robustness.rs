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

/// A disk that fills up under a run, tried with a file-size limit
/// (`ulimit -f`, which fails a write as a full disk does, but by default
/// kills the writer with SIGXFSZ: exit 153, the temporary and the folder's
/// lock left behind; qflow ignores the signal so that the write fails with
/// EFBIG). At 16 KiB the first checkpoint passes the limit, at 400 KiB the
/// checkpoint (225 KiB) is written and `field.vtu` (744 KiB) passes it:
/// either way one error line naming the file and the limit, exit 1, no
/// temporary left, nor the folder's lock. An output folder that cannot be
/// made is named.
#[test]
fn a_full_disk_and_an_unwritable_output_folder_are_one_line_errors() {
    let d = scratch("disk");
    for (kib, file) in [(16, "checkpoint.qchk"), (400, "field.vtu")] {
        let out = d.join(format!("out-{kib}"));
        let script = format!(
            "ulimit -f {kib} && exec '{QFLOW}' run '{}' -o '{}' \
             --max-iters 3 --set output.plots=false -q",
            small_case().display(),
            out.display()
        );
        let o = Command::new("bash").args(["-c", &script]).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{kib} KiB: {}", stderr(&o));
        assert_clean_failure(&o, "File too large");
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(&format!("{}/{file}: ", out.display())), "{e}");
        assert!(
            e.contains(&format!(
                "file-size limit (`ulimit -f`) of {} bytes",
                kib * 1024
            )),
            "{e}"
        );
        let left: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(left.is_empty(), "{kib} KiB: left behind: {left:?}");
    }

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

/// A generated q-LSKUM cloud larger than this machine's memory (an O-grid
/// of 1,000,000 x 500 points took 56 s and 8 GB to fail) is refused
/// before it is generated: one line naming the points and the memory, at
/// once, and no output folder made.
#[test]
fn a_cloud_too_large_for_memory_is_refused_before_it_is_generated() {
    if std::fs::read_to_string("/proc/meminfo").is_err() {
        eprintln!("SKIPPED: no /proc/meminfo");
        return;
    }
    let d = scratch("huge-cloud");
    let out = d.join("out");
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/naca0012-subsonic.toml");
    let t = Instant::now();
    let o = Command::new(QFLOW)
        .args(["run", case.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .args(["--set", "cloud.generate.wall_points=1000000"])
        .args(["--set", "cloud.generate.rings=500"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_clean_failure(&o, "GiB available");
    assert!(stderr(&o).contains("(500000000 points)"), "{}", stderr(&o));
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    assert!(!out.exists(), "an output folder was made");
    let _ = std::fs::remove_dir_all(&d);
}

/// Two identical runs write checkpoints that differ only in the history's
/// wall seconds (each row's last f64) and so the CRC: the checkpoint of
/// one with the other's wall seconds is the other's, byte for byte
/// (docs/robustness.md; `scripts/compare-outputs.py` compares checkpoints
/// without them).
#[test]
fn identical_runs_write_checkpoints_that_differ_only_in_wall_seconds() {
    use qflow_par::driver::checkpoint::Checkpoint;
    let d = scratch("twice");
    let bytes: Vec<Vec<u8>> = ["a", "b"]
        .iter()
        .map(|name| {
            let o = run(&d.join(name), &[]);
            assert!(o.status.success(), "{}", stderr(&o));
            std::fs::read(d.join(name).join("checkpoint.qchk")).unwrap()
        })
        .collect();
    let path = d.join("a/checkpoint.qchk");
    let (a, b) = (
        Checkpoint::from_bytes(&bytes[0], &path).unwrap(),
        Checkpoint::from_bytes(&bytes[1], &path).unwrap(),
    );
    assert_eq!(a.to_bytes(), bytes[0], "the checkpoint does not round-trip");
    assert_eq!(a.history.len(), 3);
    let mut a_with_b_walls = a.clone();
    for (ra, rb) in a_with_b_walls.history.iter_mut().zip(&b.history) {
        ra.wall_seconds = rb.wall_seconds;
    }
    assert!(
        a_with_b_walls.to_bytes() == bytes[1],
        "the checkpoints differ in more than the wall seconds"
    );
    let _ = std::fs::remove_dir_all(&d);
}
