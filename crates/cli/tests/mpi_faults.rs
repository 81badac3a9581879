//! Faults under mpirun (feature `mpi`): whatever goes wrong on one rank
//! ends every rank, with the reason, and never a hang. Agreed failures
//! (a case or cloud rank 0 cannot read, a checkpoint it cannot write, a
//! diverging run) end with one message from rank 0; an error or a panic
//! on one rank alone (injected with `QFLOW_FAULT_AT`) is printed by that
//! rank, which ends the job; a stop signal sent to one rank stops every
//! rank with a checkpoint and the signal's exit status; a rank killed
//! outright ends the job through mpirun.
#![cfg(feature = "mpi")]

mod mpirun;

use std::path::Path;
use std::time::{Duration, Instant};

use mpirun::*;

#[test]
fn failures_end_every_rank_with_one_message() {
    let d = scratch("fail");
    let cloud = small_cloud(&d);
    // Rank 0 cannot read the cloud: the others get the error, not a hang.
    let text = read(&cloud);
    let bad = d.join("bad.cloud");
    std::fs::write(&bad, &text[..text.len() / 3]).unwrap();
    let c = case(&d, "bad.toml", &bad, "", "");
    let o = mpirun(
        3,
        &[
            "run",
            c.to_str().unwrap(),
            "-o",
            d.join("o").to_str().unwrap(),
        ],
    );
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("bad.cloud"), "{e}");
    assert_eq!(e.matches("error:").count(), 1, "one message:\n{e}");
    assert!(!e.contains("panicked"), "{e}");
    // Unknown exchange: named.
    let c = case(&d, "two.toml", &cloud, "", "[stop]\nmax_iters = 2\n");
    let o = mpirun(
        2,
        &["run", c.to_str().unwrap(), "--exchange", "carrier-pigeon"],
    );
    assert!(stderr(&o).contains("carrier-pigeon"), "{}", stderr(&o));

    // A diverging run: every rank stops at the serial run's iteration, with
    // its point, and the last good state is written.
    let case_path = case(
        &d,
        "div.toml",
        &cloud,
        "cfl = 3.0",
        "[stop]\nmax_iters = 200\n[output]\nplots = false\n",
    );
    let cp = case_path.to_str().unwrap();
    let s = qflow(&["run", cp, "-o", d.join("ds").to_str().unwrap(), "-q"]);
    assert!(!s.status.success());
    let serial_msg = stderr(&s);
    let at = serial_msg.find("iteration ").expect("the serial message");
    // The message up to the output folder, which differs.
    let what = serial_msg[at..].lines().next().unwrap().to_string();
    let o = mpirun(3, &["run", cp, "-o", d.join("dm").to_str().unwrap(), "-q"]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains(&what), "serial: {what}\nmpi: {e}");
    assert_eq!(e.matches("error:").count(), 1, "one message:\n{e}");
    assert_same_run(&d.join("ds"), &d.join("dm"), "last good state");
}

/// A case on the small cloud that runs until stopped, writing a checkpoint
/// every 20 iterations.
fn endless_case(d: &Path, cloud: &Path) -> std::path::PathBuf {
    case(
        d,
        "endless.toml",
        cloud,
        "",
        "[stop]\nmax_iters = 100000000\n[output]\nplots = false\ncheckpoint_every = 20\n",
    )
}

#[test]
fn an_error_or_a_panic_on_one_rank_ends_every_rank_with_its_reason() {
    let d = scratch("fault");
    let cloud = small_cloud(&d);
    let c = endless_case(&d, &cloud);
    let c = c.to_str().unwrap();
    // An error returned on rank 1 alone, the others waiting for its halo.
    let t = Instant::now();
    let o = mpirun_with(
        3,
        &[("QFLOW_FAULT_AT", "1:30")],
        &["run", c, "-o", d.join("e").to_str().unwrap(), "-q"],
    );
    let e = stderr(&o);
    assert!(!o.status.success(), "{e}");
    assert!(
        e.contains("error: rank 1: a fault injected by QFLOW_FAULT_AT at iteration 30"),
        "{e}"
    );
    assert!(
        e.contains("the other ranks did not reach this error"),
        "{e}"
    );
    assert_eq!(e.matches("error:").count(), 1, "one message:\n{e}");
    // Within the grace period (10 s) and the job's start, not at the
    // helper's one-minute limit.
    assert!(t.elapsed() < Duration::from_secs(45), "{:?}", t.elapsed());

    // A panic on rank 2: its message, then the job ends.
    let o = mpirun_with(
        3,
        &[("QFLOW_FAULT_AT", "2:30:panic"), ("RUST_BACKTRACE", "0")],
        &["run", c, "-o", d.join("p").to_str().unwrap(), "-q"],
    );
    let e = stderr(&o);
    assert!(!o.status.success(), "{e}");
    assert!(e.contains("rank 2: panic; ending the MPI job"), "{e}");
    assert!(
        e.contains("a fault injected by QFLOW_FAULT_AT at iteration 30"),
        "{e}"
    );

    // Rank 0 cannot write the checkpoint of iteration 20 (a folder is in its
    // way): every rank stops at once with rank 0's one message.
    let out = d.join("w");
    std::fs::create_dir_all(out.join("checkpoint.qchk").join("in-the-way")).unwrap();
    let t = Instant::now();
    let o = mpirun(3, &["run", c, "-o", out.to_str().unwrap(), "-q"]);
    let e = stderr(&o);
    assert!(!o.status.success(), "{e}");
    assert!(e.contains("error: rank 0: writing the checkpoint"), "{e}");
    assert_eq!(e.matches("error:").count(), 1, "one message:\n{e}");
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
}

/// The processes whose parent is `parent` (from /proc).
fn children(parent: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: the name may hold spaces, not ')'.
        let after = stat.rsplit_once(')').map_or("", |x| x.1);
        if after.split_whitespace().nth(1) == Some(&parent.to_string()) {
            out.push(pid);
        }
    }
    out.sort_unstable();
    out
}

/// Starts the endless case on 3 ranks, waits for its first checkpoint
/// (the ranks are in the run loop, their signal handlers installed), and
/// sends `signal` to one of the ranks only.
fn signal_one_rank(d: &Path, c: &Path, out: &Path, signal: i32) -> std::process::Output {
    let child = spawn_mpirun(
        3,
        &[],
        &[
            "run",
            c.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "-q",
        ],
    );
    let t = Instant::now();
    while !out.join("checkpoint.qchk").exists() {
        assert!(
            t.elapsed() < Duration::from_secs(45),
            "no checkpoint in {d:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let ranks = children(child.id());
    assert_eq!(ranks.len(), 3, "mpirun's children: {ranks:?}");
    // SAFETY: kill(2) on a process of this test.
    assert_eq!(unsafe { libc::kill(ranks[1] as i32, signal) }, 0);
    finish(child, "the signalled job")
}

#[test]
fn a_signal_to_one_rank_stops_every_rank_and_a_killed_rank_ends_the_job() {
    let d = scratch("signal");
    let cloud = small_cloud(&d);
    let c = endless_case(&d, &cloud);
    // SIGTERM to one rank: all ranks stop at the same iteration, write the
    // checkpoint and the outputs, and exit 143.
    let out = d.join("term");
    let o = signal_one_rank(&d, &c, &out, libc::SIGTERM);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(143), "{e}");
    let summary = read(&out.join("summary.toml"));
    assert!(summary.contains("stop = \"interrupted\""), "{summary}");
    let iterations: usize = summary
        .lines()
        .find_map(|l| l.strip_prefix("iterations = "))
        .and_then(|v| v.trim().parse().ok())
        .expect("iterations in the summary");
    assert_eq!(
        read(&out.join("history.csv")).lines().count(),
        iterations + 1
    );
    // The checkpoint is the stop's: resuming continues from it.
    let o = mpirun(
        2,
        &[
            "run",
            c.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "-q",
            "--resume",
            "--max-iters",
            &(iterations + 5).to_string(),
        ],
    );
    ok(&o);
    assert_eq!(
        read(&out.join("history.csv")).lines().count(),
        iterations + 6
    );

    // SIGKILL to one rank: mpirun ends the job and names the rank's fate.
    let o = signal_one_rank(&d, &c, &d.join("kill"), libc::SIGKILL);
    let e = stderr(&o);
    assert!(!o.status.success(), "{e}");
    assert!(e.contains("signal 9"), "{e}");
}

#[test]
fn more_threads_on_a_node_than_its_cpus_can_run_are_refused_on_every_rank() {
    let d = scratch("load");
    let cloud = small_cloud(&d);
    let c = case(&d, "load.toml", &cloud, "", "[stop]\nmax_iters = 2\n");
    // SAFETY: sysconf only reads a system value.
    let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as usize;
    // Within the per-process limit (16 per CPU), beyond it for 3 ranks.
    let threads = (16 * cpus / 3 + 1).to_string();
    let out = d.join("o");
    let o = mpirun(
        3,
        &[
            "run",
            c.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--threads",
            &threads,
        ],
    );
    let e = stderr(&o);
    assert!(!o.status.success(), "{e}");
    assert!(e.contains(&format!("--threads {threads}")), "{e}");
    assert_eq!(e.matches("error:").count(), 1, "one message:\n{e}");
    assert!(!out.join("history.csv").exists(), "no work was done");
}
