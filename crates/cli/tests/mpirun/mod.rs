//! What the `qflow run`-under-mpirun tests share: starting mpirun with a
//! time limit (a hang is a failure, not a stuck CI job), a small cloud, case
//! files, and comparing outputs. Each test binary uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

pub const QFLOW: &str = env!("CARGO_BIN_EXE_qflow");

pub fn qflow(args: &[&str]) -> Output {
    Command::new(QFLOW)
        .args(args)
        .output()
        .expect("running qflow")
}

/// `mpirun -np ranks qflow args`, killed after a minute (a hang is a
/// failure, not a stuck CI job).
pub fn mpirun(ranks: usize, args: &[&str]) -> Output {
    mpirun_with(ranks, &[], args)
}

/// [`mpirun`] with environment variables for every rank.
pub fn mpirun_with(ranks: usize, env: &[(&str, &str)], args: &[&str]) -> Output {
    let child = spawn_mpirun(ranks, env, args);
    finish(child, &format!("mpirun -np {ranks} qflow {args:?}"))
}

/// `mpirun -np ranks qflow args` started, its output piped.
pub fn spawn_mpirun(ranks: usize, env: &[(&str, &str)], args: &[&str]) -> Child {
    Command::new("mpirun")
        .envs(env.iter().copied())
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["--oversubscribe", "-np", &ranks.to_string(), QFLOW])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mpirun (OpenMPI) is installed: scripts/install-deps.sh")
}

/// The output of `child` (mpirun), killed after a minute.
pub fn finish(mut child: Child, what: &str) -> Output {
    let t = Instant::now();
    while child.try_wait().expect("waiting for mpirun").is_none() {
        if t.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{what} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("mpirun output")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn ok(o: &Output) {
    assert!(o.status.success(), "failed:\n{}", stderr(o));
}

pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qflow-mpi-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn small_cloud(dir: &Path) -> PathBuf {
    let p = dir.join("small.cloud");
    ok(&qflow(&[
        "generate",
        "naca0012",
        "--wall-points",
        "48",
        "--rings",
        "16",
        "--far-field",
        "8",
        "-o",
        p.to_str().unwrap(),
    ]));
    p
}

/// A case file `name` on `cloud`: `solver` lines go in `[solver]` (which
/// keeps the cloud's numbering, so that the serial run reports the same
/// point as the distributed one when two go bad at once), `rest` after.
pub fn case(dir: &Path, name: &str, cloud: &Path, solver: &str, rest: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(
        &p,
        format!(
            "[cloud]\nfile = \"{}\"\n[solver]\nrenumber = \"none\"\n{solver}\n{rest}",
            cloud.display()
        ),
    )
    .unwrap();
    p
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// history.csv without the wall-clock column.
pub fn history(dir: &Path) -> Vec<String> {
    read(&dir.join("history.csv"))
        .lines()
        .map(|l| l.rsplit_once(',').map_or(l, |x| x.0).to_string())
        .collect()
}

/// solution.dat and history (all but the clock) are the same: both are
/// written with 17 significant digits, so equal text is equal bits.
pub fn assert_same_run(a: &Path, b: &Path, what: &str) {
    assert!(
        read(&a.join("solution.dat")) == read(&b.join("solution.dat")),
        "{what}: solution.dat differs"
    );
    assert_eq!(history(a), history(b), "{what}: history differs");
}
