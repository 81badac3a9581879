//! `qflow run`: one path for every method, backend and rank count. The
//! world is one process, or an MPI job when the binary has the feature
//! `mpi` and runs under `mpirun`; rank 0 reads the case (overrides
//! applied) and every rank gets its text, then the method's setup builds
//! the problem on rank 0, the layer distributes it, and the run driver of
//! `qflow-par` runs it.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};

use qflow_par::backend::{BackendKind, BackendSpec};
use qflow_par::comm::{Comm, ExchangeMode, SelfComm};
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::driver::StopReason;
use qflow_par::launch::agree;
use qflow_par::Exec;

use crate::case::{CaseFile, MethodName};

/// Command-line choices of `qflow run` that are not part of the case.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Backend, threads, device.
    pub backend: BackendSpec,
    /// Output folder overriding the case's.
    pub output: Option<PathBuf>,
    /// Step limit overriding the case's.
    pub max_iters: Option<u64>,
    /// Print only the summary.
    pub quiet: bool,
    /// Continue from the output folder's checkpoint.
    pub resume: bool,
    /// Under MPI: the partitioner (`metis`, `rcb` or `file:PATH`).
    pub partitioner: Option<String>,
    /// Under MPI: the halo exchange.
    pub exchange: Option<ExchangeMode>,
    /// Under MPI: one VTK piece per rank and a `field.pvtu` index.
    pub vtk_pieces: bool,
    /// Case overrides `section.key=value`.
    pub sets: Vec<String>,
}

/// How a run ended.
#[derive(Clone, Debug)]
pub struct Finished {
    /// The summary (rank 0).
    pub summary: Option<Summary>,
    /// Why it stopped.
    pub stop: StopReason,
    /// The output folder.
    pub out_dir: PathBuf,
}

impl Finished {
    /// Why the run stopped early, where that is a failure.
    pub fn message(&self) -> Option<String> {
        match &self.stop {
            StopReason::NonPhysical(m) => Some(format!(
                "{m}\nthe run stopped; outputs and checkpoint of the last good state are in {}",
                self.out_dir.display()
            )),
            _ => None,
        }
    }

    /// The process's exit status: 0 for a completed run, 128 + the signal
    /// for an interrupted one, 1 for a non-physical state.
    pub fn exit_code(&self) -> u8 {
        match &self.stop {
            StopReason::Signal(s) => (128 + s).clamp(1, 255) as u8,
            StopReason::NonPhysical(_) => 1,
            _ => 0,
        }
    }
}

/// The world of this process: an MPI job under a launcher (feature `mpi`),
/// else one process.
pub fn world() -> Result<Box<dyn Comm + Sync>> {
    #[cfg(feature = "mpi")]
    if qflow_par::comm::mpi::MpiComm::launched() {
        let c = qflow_par::comm::mpi::MpiComm::init()
            .ok_or_else(|| anyhow!("MPI was initialised twice"))?;
        return Ok(Box::new(c));
    }
    #[cfg(not(feature = "mpi"))]
    if let Some(n) = launched_ranks().filter(|&n| n > 1) {
        bail!(
            "started by an MPI launcher with {n} ranks, but this build has no MPI: \
             build with `cargo build --release --features mpi`"
        );
    }
    Ok(Box::new(SelfComm))
}

/// The number of ranks an MPI launcher started, from its environment.
#[cfg(not(feature = "mpi"))]
fn launched_ranks() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
}

/// An error that rank 0 of an MPI job reports for every rank: the other
/// ranks end with it silently, so a failure prints one message.
#[derive(Debug, thiserror::Error)]
#[error("reported by rank 0")]
pub struct ReportedByRankZero;

/// How long a rank that ran into an error waits for the other ranks to
/// reach it too before it ends the job ([`Comm::all_arrive_within`]):
/// ranks that share an error arrive within the time their work differs
/// by; a fault on one rank ends the job after this.
pub const FAULT_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs a case file. Rank 0 prints a failure or an early stop before the
/// world ends (MPI finalizes when it drops, and an exit on another rank
/// may end the job); the other ranks of an MPI job return
/// [`ReportedByRankZero`] instead of their copy of an error, which every
/// rank has (agreed, or the same on each). An error only some ranks have
/// (a fault: the others wait for them in an exchange or a reduction) is
/// printed by the ranks that have it, with their rank, and ends the job.
pub fn run_case(path: &Path, opts: &RunOptions) -> Result<Finished> {
    // The stop signals are caught from here on: one during the set-up
    // stops the run after its first step, with a checkpoint and the
    // signal's exit status (without this it killed the process, leaving
    // its lock).
    qflow_par::driver::signals::Signals::install().map_err(|e| anyhow!(e))?;
    let comm: std::sync::Arc<dyn Comm + Sync> = world()?.into();
    let rank0 = comm.rank() == 0;
    let jobs = comm.size() > 1;
    let result = run_on(Box::new(comm.clone()), path, opts);
    if let Err(e) = &result {
        if jobs && !comm.all_arrive_within(FAULT_GRACE) {
            crate::errln!(
                "error: rank {}: {e:#}\n(the other ranks did not reach this error within {} s: ending the job)",
                comm.rank(),
                FAULT_GRACE.as_secs()
            );
            comm.abort(1);
        }
    }
    match &result {
        Ok(f) if rank0 => {
            if let Some(m) = f.message() {
                crate::errln!("error: {m}");
            }
        }
        Err(e) if rank0 && jobs => crate::errln!("error: {e:#}"),
        _ => {}
    }
    drop(comm);
    match result {
        Err(_) if jobs => Err(ReportedByRankZero.into()),
        r => r,
    }
}

fn run_on(comm: Box<dyn Comm>, path: &Path, opts: &RunOptions) -> Result<Finished> {
    if comm.size() == 1
        && (opts.partitioner.is_some() || opts.exchange.is_some() || opts.vtk_pieces)
    {
        bail!("--partitioner, --exchange and --vtk-pieces apply to runs under mpirun with a build that has `--features mpi`");
    }
    agree(&*comm, check_node_load(&*comm, opts)).map_err(|e| anyhow!(e))?;
    // Rank 0 reads the case; every rank gets its text.
    let read = if comm.rank() == 0 {
        CaseFile::load(path, &opts.sets)
            .map(|c| c.to_text())
            .map_err(|e| format!("{e:#}"))
    } else {
        Ok(String::new())
    };
    let mut text = agree(&*comm, read).map_err(|e| anyhow!(e))?.into_bytes();
    comm.broadcast(0, &mut text);
    let case = CaseFile::parse(&String::from_utf8_lossy(&text), path, &[])?;
    use crate::pipeline::run_case;
    match case.method {
        MethodName::Lskum => run_case::<crate::lskum_run::LskumRun>(comm, &case, opts),
        MethodName::Fv => run_case::<crate::fv_run::FvRun>(comm, &case, opts),
        MethodName::Lw => run_case::<crate::lw_run::LwRun>(comm, &case, opts),
        MethodName::Dg => run_case::<crate::dg_run::DgRun>(comm, &case, opts),
    }
}

/// Threads per CPU beyond which `--threads` (or ranks times threads on a
/// node) is refused: a few per core can make sense (tests of thread
/// counts, hyperthreads hidden by an affinity mask), thousands per core
/// cannot.
pub const MAX_THREADS_PER_CPU: usize = 16;

/// Refuses more ranks on a node, times the threads each runs, than the
/// node's CPUs can run ([`MAX_THREADS_PER_CPU`] each); the same verdict on
/// every rank of a node.
fn check_node_load(comm: &dyn Comm, opts: &RunOptions) -> Result<(), String> {
    let (_, on_node) = comm.node_rank();
    let threads = match opts.backend.kind {
        BackendKind::Threads => opts.backend.threads.max(1),
        _ => 1,
    };
    // SAFETY: sysconf only reads a system value.
    let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as usize;
    let most = MAX_THREADS_PER_CPU * cpus;
    if on_node * threads <= most {
        return Ok(());
    }
    Err(if threads > 1 {
        format!(
            "{on_node} ranks on this node with --threads {threads} each: {} threads on {cpus} \
             CPU(s), at most {most} ({MAX_THREADS_PER_CPU} per CPU) can run; give fewer ranks \
             or threads",
            on_node * threads
        )
    } else {
        format!(
            "{on_node} ranks on this node of {cpus} CPU(s): at most {most} \
             ({MAX_THREADS_PER_CPU} per CPU) can run; give fewer ranks (mpirun -np)"
        )
    })
}

/// Most time steps a run to a final time may take: more is a mistake in
/// the case (a final time or a CFL number off by orders of magnitude).
pub const MAX_STEPS: f64 = 1e12;

/// The step limit of a run to `final_time` that needs `steps` steps of
/// `dt` (with 2 of margin for the shortened last step), or an error
/// naming `section`'s keys when the time step is not a positive finite
/// number or the steps are more than [`MAX_STEPS`].
pub fn step_limit(section: &str, final_time: f64, (steps, dt): (f64, f64)) -> Result<u64> {
    if !(dt.is_finite() && dt > 0.0) {
        bail!(
            "{section}: the time step is {dt:e}: the wave speeds or the cfl number give no \
             usable step (a zero velocity with nothing else moving, or a cfl of 0 or inf)"
        );
    }
    if steps.is_nan() || steps > MAX_STEPS {
        bail!(
            "{section} final_time = {final_time:e} with a time step of {dt:e} needs {steps:.3e} \
             steps, more than {MAX_STEPS:e}: give an earlier final_time or a larger cfl"
        );
    }
    Ok(steps as u64 + 2)
}

/// One rank's numbers for the summary of a run on several ranks.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct RankReport {
    /// The rank.
    pub rank: usize,
    /// Elements of the work set it owns.
    pub owned: u64,
    /// Ghost elements of the work set it holds.
    pub ghosts: u64,
    /// Bytes of dats and exchange buffers held.
    pub bytes_held: u64,
    /// Peak resident memory (Linux `VmHWM`), bytes.
    pub peak_rss_bytes: u64,
    /// Seconds per step blocked waiting for halos.
    pub wait_seconds_per_step: f64,
    /// Seconds per step packing, posting, unpacking and polling.
    pub exchange_overhead_seconds_per_step: f64,
    /// Seconds per step in reductions.
    pub reduce_seconds_per_step: f64,
    /// Bytes sent per step.
    pub bytes_sent_per_step: f64,
}

/// A process's memory figure from `/proc/self/status` (bytes; 0 where
/// unknown).
pub fn proc_memory(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// Collects every rank's report on rank 0 (collective) and adds them to
/// the summary as a `[[rank]]` table.
pub fn add_rank_reports(
    ex: &Exec,
    work_set: &qflow_par::SetDecl,
    steps: u64,
    summary: Option<&mut Summary>,
) {
    let set = ex
        .part()
        .set(work_set)
        .expect("the work set is part of the problem");
    let st = ex.stats();
    let per = |x: f64| x / steps.max(1) as f64;
    let x = st.exchange;
    let mine = RankReport {
        rank: ex.rank(),
        owned: set.owned as u64,
        ghosts: (set.len - set.owned) as u64,
        bytes_held: ex.bytes() as u64,
        peak_rss_bytes: proc_memory("VmHWM:"),
        wait_seconds_per_step: per(x.wait.as_secs_f64()),
        exchange_overhead_seconds_per_step: per((x.start + x.unpack + x.progress).as_secs_f64()),
        reduce_seconds_per_step: per(st.reduce.as_secs_f64()),
        bytes_sent_per_step: per(x.bytes_sent as f64),
    };
    let encoded = serde_json::to_vec(&mine).expect("a report encodes");
    if ex.rank() != 0 {
        ex.comm().send(0, &encoded);
        return;
    }
    let mut all = vec![mine];
    for r in 1..ex.ranks() {
        if let Ok(rep) = serde_json::from_slice::<RankReport>(&ex.comm().receive(r)) {
            all.push(rep);
        }
    }
    let Some(s) = summary else { return };
    let per_rank = ex.backend_name();
    let rows = all
        .iter()
        .map(|r| {
            vec![
                ("rank".to_string(), Value::Int(r.rank as i64)),
                ("owned".into(), Value::Int(r.owned as i64)),
                ("ghosts".into(), Value::Int(r.ghosts as i64)),
                ("bytes_held".into(), Value::Int(r.bytes_held as i64)),
                ("peak_rss_bytes".into(), Value::Int(r.peak_rss_bytes as i64)),
                (
                    "wait_seconds_per_step".into(),
                    Value::Real(r.wait_seconds_per_step),
                ),
                (
                    "exchange_overhead_seconds_per_step".into(),
                    Value::Real(r.exchange_overhead_seconds_per_step),
                ),
                (
                    "reduce_seconds_per_step".into(),
                    Value::Real(r.reduce_seconds_per_step),
                ),
                (
                    "bytes_sent_per_step".into(),
                    Value::Real(r.bytes_sent_per_step),
                ),
            ]
        })
        .collect();
    s.tables.push(("rank".into(), rows));
    let owned: Vec<f64> = all.iter().map(|r| r.owned as f64).collect();
    let mean = owned.iter().sum::<f64>() / owned.len() as f64;
    let max = owned.iter().copied().fold(0.0, f64::max);
    let worst_wait = all
        .iter()
        .map(|r| r.wait_seconds_per_step)
        .fold(0.0, f64::max);
    s.sections.push((
        "mpi".into(),
        vec![
            ("ranks".into(), Value::Int(all.len() as i64)),
            ("per_rank".into(), Value::Text(per_rank)),
            ("exchange".into(), Value::Text(ex.mode().name().into())),
            ("load_imbalance".into(), Value::Real(max / mean.max(1.0))),
            (
                "ghosts".into(),
                Value::Int(all.iter().map(|r| r.ghosts as i64).sum()),
            ),
            ("max_wait_seconds_per_step".into(), Value::Real(worst_wait)),
        ],
    ));
}

/// A picture of a run's outputs: one its data cannot make (a run too
/// short for a history, an empty field) is said in a warning, and the
/// run's other outputs (history, fields, summary) are still written; a
/// picture that cannot be written is an error.
pub fn picture(drawn: Result<(), qflow_io::plot::PlotError>, what: &str) -> Result<()> {
    match drawn {
        Ok(()) => Ok(()),
        Err(e @ qflow_io::plot::PlotError::Invalid { .. }) => {
            tracing::warn!("{what} not drawn: {e}");
            Ok(())
        }
        Err(e) => Err(anyhow!("plotting {what}: {e}")),
    }
}

/// A run's history as the plot takes it.
pub fn plot_rows(rows: &[qflow_par::driver::history::Row]) -> Vec<qflow_io::plot::HistoryRow> {
    rows.iter()
        .map(|r| qflow_io::plot::HistoryRow {
            iteration: r.iteration,
            values: r.values.clone(),
        })
        .collect()
}
