//! Process edges a user or an adversary hits (issue 16, growing): a full
//! standard output, impossible thread counts, an output folder held by
//! another run, temporary files of killed runs, and the signal exits. Each
//! ends with a one-line error or a clean exit, never a panic.

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
#[test]
fn signals_stop_a_run_with_a_checkpoint_and_the_shells_exit_code() {
    let d = scratch("signals");
    for (sig, code) in [
        (libc::SIGINT, 130),
        (libc::SIGTERM, 143),
        (libc::SIGHUP, 129),
    ] {
        let out = d.join(format!("out{sig}"));
        let mut child = Command::new(QFLOW)
            .args(["run", small_case().to_str().unwrap(), "-o"])
            .arg(&out)
            .args([
                "--max-iters",
                "1000000",
                "--set",
                "output.plots=false",
                "-q",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Until it has taken its folder (setup done), then a moment of
        // stepping.
        let t = Instant::now();
        while !out.join(".qflow.lock").exists() && t.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(50));
        }
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
