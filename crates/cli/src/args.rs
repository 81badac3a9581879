//! Command-line options that several commands share: the backend (`qflow
//! run`, `qflow bench`), checked before any work.

use std::path::PathBuf;

use anyhow::Result;

use qflow_par::backend::{BackendKind, BackendSpec};
use qflow_par::comm::ExchangeMode;

use crate::run::{RunOptions, MAX_THREADS_PER_CPU};

/// The backend a command runs on, with its threads or device.
#[derive(Clone, Debug, clap::Args)]
pub struct BackendArgs {
    /// Backend: serial, threads, opencl or cuda.
    #[arg(long, default_value = "threads")]
    pub backend: BackendKind,
    /// Threads of the threads backend (default: all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Device of a device backend: index, P.D or part of its name (see
    /// `qflow devices`). Under mpirun, one rank per device: a list
    /// `--device 0,1` gives local rank r (its rank among the node's
    /// ranks) entry r mod the list's length; without it, local rank r
    /// takes device r mod the number of devices with fp64 (GPUs first).
    /// More ranks than devices share them (said once in the log).
    #[arg(long, verbatim_doc_comment)]
    pub device: Option<String>,
    /// Work-group size of a device backend, a power of two (default: 64;
    /// at most 256 on a CPU device such as PoCL).
    #[arg(long)]
    pub work_group: Option<usize>,
}

impl BackendArgs {
    /// The backend's specification, after refusing the options of another
    /// backend (they would be ignored), a work group that is no power of
    /// two, a thread count the machine cannot give and a backend this
    /// machine cannot run (no CUDA driver): each in one line, before any
    /// work.
    pub fn spec(&self) -> Result<BackendSpec> {
        let kind = self.backend;
        if !kind.on_device() {
            if let Some(d) = &self.device {
                anyhow::bail!(
                    "--device {d}: only the opencl and cuda backends run on a device (this run: {})",
                    kind.name()
                );
            }
            if let Some(w) = self.work_group {
                anyhow::bail!(
                    "--work-group {w}: only the opencl and cuda backends have work groups (this run: {})",
                    kind.name()
                );
            }
        }
        if let Some(w) = self.work_group.filter(|w| !w.is_power_of_two()) {
            anyhow::bail!("--work-group {w}: give a power of two (the reductions halve it)");
        }
        if kind != BackendKind::Threads && self.threads > 1 {
            anyhow::bail!(
                "--threads {}: only the threads backend runs more than one thread (this run: {})",
                self.threads,
                kind.name()
            );
        }
        check_threads(kind, self.threads)?;
        kind.probe().map_err(anyhow::Error::msg)?;
        Ok(BackendSpec {
            kind,
            threads: self.threads,
            device: self.device.clone(),
            work_group: self.work_group,
            ..BackendSpec::default()
        })
    }
}

/// Refuses more threads than this machine can run, and says so when more
/// threads are asked for than this process may run on (its CPU affinity,
/// e.g. one core per rank under OpenMPI's default binding): the threads
/// would share cores and run slower, not faster.
fn check_threads(kind: BackendKind, threads: usize) -> Result<()> {
    if kind != BackendKind::Threads || threads == 0 {
        return Ok(());
    }
    if let Ok(cpus) = std::thread::available_parallelism() {
        let most = MAX_THREADS_PER_CPU * cpus.get();
        if threads > most {
            anyhow::bail!(
                "--threads {threads}: this process may run on {} CPU(s); give at most {most} \
                 ({MAX_THREADS_PER_CPU} per CPU), or 0 for one per CPU",
                cpus.get()
            );
        }
        if threads > cpus.get() {
            tracing::warn!(
                "--threads {threads}, but this process may run on {} CPU(s) (its CPU affinity); \
                 the threads will share them. Under OpenMPI, which binds each rank to one core, \
                 add `--bind-to none` or `--map-by slot:PE={threads}` to mpirun",
                cpus.get()
            );
        }
    }
    Ok(())
}

/// `qflow run`'s options.
#[derive(Clone, Debug, clap::Args)]
pub struct RunArgs {
    /// The case file (TOML).
    pub case: PathBuf,
    /// Override a key of the case: `section.key=value` (the value in
    /// TOML syntax, or plain text for a string); repeatable.
    #[arg(long = "set", value_name = "SECTION.KEY=VALUE")]
    pub sets: Vec<String>,
    /// The backend.
    #[command(flatten)]
    pub backend: BackendArgs,
    /// Output folder (overrides the case's).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Iteration limit (overrides the case's), at least 1.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_iters: Option<u64>,
    /// Print only the summary.
    #[arg(short, long)]
    pub quiet: bool,
    /// Continue from the checkpoint in the output folder (the result is
    /// bit-identical to an uninterrupted run).
    #[arg(long)]
    pub resume: bool,
    /// Under mpirun: how to partition the cloud (metis, rcb, or
    /// file:PATH, a partition written by `qflow partition`).
    #[arg(long)]
    pub partitioner: Option<String>,
    /// Under mpirun: halo exchange (blocking, nonblocking, rma or rma-fence).
    #[arg(long)]
    pub exchange: Option<ExchangeMode>,
    /// Under mpirun: write the VTK field as one piece per rank plus
    /// field.pvtu (ParaView opens it as one data set) instead of
    /// gathering one field.vtu.
    #[arg(long)]
    pub vtk_pieces: bool,
}

impl RunArgs {
    /// The run's options, the backend checked.
    pub fn options(self) -> Result<RunOptions> {
        Ok(RunOptions {
            backend: self.backend.spec()?,
            output: self.output,
            max_iters: self.max_iters,
            quiet: self.quiet,
            resume: self.resume,
            partitioner: self.partitioner,
            exchange: self.exchange,
            vtk_pieces: self.vtk_pieces,
            sets: self.sets,
        })
    }
}
