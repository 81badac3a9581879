//! The run driver: one time loop for every method, on every backend and
//! any number of ranks.
//!
//! A method implements [`Method`]: its declarations, one step, the values
//! of a history row, and the numbers it keeps between steps. The driver
//! ([`run`]) does the rest: resume from a checkpoint, the steps inside the
//! backend's thread pool, stop rules (iterations, residue drop, final
//! time, a stop signal, a non-physical state with the last good state
//! kept), checkpoints every so many steps and at the end, progress,
//! `history.csv` with a header naming its columns, timings per loop, and
//! the method's outputs through a callback. Every rank runs it; only rank 0
//! writes.

pub mod checkpoint;
pub mod history;
pub mod progress;
pub mod signals;
pub mod solver;
pub mod summary;

/// A number as a message shows it: plainly from 1e-4 to 1e7 (`0.5`,
/// `1600`), in exponent form beyond (`1e-20`, `1e300`: Rust's `{}` writes
/// every digit of them, 300 for 1e300).
#[derive(Clone, Copy, Debug)]
pub struct Num(pub f64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let a = self.0.abs();
        if a == 0.0 || !a.is_finite() || (1e-4..1e7).contains(&a) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::decl::{DatDecl, GlobalDecl, LoopDecl, Role, SetDecl};
use crate::exec::{Exec, ExecError};
use crate::problem::Values;
use checkpoint::{Checkpoint, StateDat};
use history::Row;
use progress::Progress;
use signals::Signals;

/// A step that cannot go on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StepError {
    /// The state went non-physical; the method has put back the state of
    /// the start of the step. The message names where and what.
    #[error("{0}")]
    NonPhysical(String),
    /// The layer failed.
    #[error(transparent)]
    Exec(#[from] ExecError),
}

/// What a method declares to the layer, in one table: its name, loops,
/// dats, globals, device source, work set and history columns.
#[derive(Clone, Copy, Debug)]
pub struct Declared {
    /// The method's name, as in case files.
    pub name: &'static str,
    /// Every loop the method runs.
    pub loops: &'static [&'static LoopDecl],
    /// Every dat the method declares (those declared state go into
    /// checkpoints).
    pub dats: &'static [&'static DatDecl],
    /// Every global the method declares.
    pub globals: &'static [&'static GlobalDecl],
    /// The device source of its kernels (translated from the Rust).
    pub device_source: &'static str,
    /// The set whose size the speed is counted per (points, cells).
    pub work_set: &'static SetDecl,
    /// The names of the values of a history row.
    pub columns: &'static [&'static str],
}

/// What the driver needs of a method.
pub trait Method: Send {
    /// The method's declarations.
    fn declared(&self) -> Declared;
    /// The method's name, as in case files.
    fn name(&self) -> &'static str {
        self.declared().name
    }
    /// Every loop the method runs.
    fn loops(&self) -> &'static [&'static LoopDecl] {
        self.declared().loops
    }
    /// Every dat the method declares (those declared state go into
    /// checkpoints).
    fn dats(&self) -> &'static [&'static DatDecl] {
        self.declared().dats
    }
    /// Every global the method declares.
    fn globals(&self) -> &'static [&'static GlobalDecl] {
        self.declared().globals
    }
    /// The device source of its kernels (translated from the Rust).
    fn device_source(&self) -> &'static str {
        self.declared().device_source
    }
    /// The set whose size the speed is counted per (points, cells).
    fn work_set(&self) -> &'static SetDecl {
        self.declared().work_set
    }
    /// The names of the values of a history row.
    fn columns(&self) -> &'static [&'static str] {
        self.declared().columns
    }
    /// The column holding `log10` of the residue relative to its reference,
    /// which the residue-drop rule watches.
    fn log_residue_column(&self) -> Option<usize> {
        None
    }
    /// Prepares the executor before the first step (constants).
    fn start(&mut self, ex: &mut Exec) -> Result<(), StepError>;
    /// Runs step `iteration` (1-based) and writes its history values into
    /// `row`. On a non-physical state it puts back the state of the start
    /// of the step and returns [`StepError::NonPhysical`].
    fn step(&mut self, ex: &mut Exec, iteration: u64, row: &mut [f64]) -> Result<(), StepError>;
    /// The simulated time after the last step (unsteady methods).
    fn time(&self) -> Option<f64> {
        None
    }
    /// The numbers the method keeps between steps, for a checkpoint.
    fn books(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
    /// Restores them from a checkpoint.
    fn restore_books(&mut self, _books: &[(String, f64)]) -> Result<(), String> {
        Ok(())
    }
    /// A short rendering of a history row for the progress display.
    fn progress_label(&self, row: &[f64]) -> String {
        self.columns()
            .iter()
            .zip(row)
            .take(3)
            .map(|(c, v)| format!("{c} {v:.6}"))
            .collect::<Vec<_>>()
            .join("  ")
    }
}

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum StopReason {
    /// The step limit was reached.
    MaxIterations,
    /// The residue dropped by the requested orders of magnitude.
    Converged,
    /// The final time was reached.
    FinalTime,
    /// A signal asked to stop (its number).
    Signal(i32),
    /// The state went non-physical (the last good state was kept).
    NonPhysical(String),
}

impl StopReason {
    /// As a summary says it.
    pub fn label(&self) -> &'static str {
        match self {
            StopReason::MaxIterations => "iteration limit",
            StopReason::Converged => "residue dropped",
            StopReason::FinalTime => "final time",
            StopReason::Signal(_) => "interrupted",
            StopReason::NonPhysical(_) => "non-physical state",
        }
    }
}

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct RunConfig {
    /// Stop after this many steps in all (counting those of a resumed run).
    pub max_iters: u64,
    /// Stop once the residue has dropped by this many orders of magnitude.
    pub residue_drop: Option<f64>,
    /// Stop once the method's time reaches this.
    pub final_time: Option<f64>,
    /// Write a checkpoint every so many steps (0: only at the end).
    pub checkpoint_every: u64,
    /// Where rank 0 writes the checkpoint and `history.csv` (`None`:
    /// nowhere).
    pub out_dir: Option<PathBuf>,
    /// Continue from the checkpoint in `out_dir`.
    pub resume: bool,
    /// No progress display.
    pub quiet: bool,
    /// The settings that define the discrete problem (a checkpoint of
    /// another problem is refused).
    pub problem_key: String,
    /// Fingerprint of the problem's input.
    pub fingerprint: u64,
    /// Per set, the user's number of each element of the problem (a set
    /// not listed is numbered as in the problem). Rank 0 only.
    pub user_numbering: Vec<(&'static str, Vec<u32>)>,
}

/// Time spent in one loop.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopTime {
    /// The loop.
    pub name: &'static str,
    /// Calls.
    pub calls: u64,
    /// Wall-clock time.
    pub time: Duration,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    /// Steps done in all.
    pub iterations: u64,
    /// Steps done by this run.
    pub steps_run: u64,
    /// Why it stopped.
    pub stop: StopReason,
    /// The history (rank 0).
    pub history: Vec<Row>,
    /// Wall-clock seconds of this run's steps.
    pub wall_seconds: f64,
    /// Time per loop over this run's steps.
    pub loop_times: Vec<LoopTime>,
}

/// A run that failed before or between steps.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The checkpoint cannot be resumed from.
    #[error("cannot resume: {0}")]
    Resume(String),
    /// A file could not be written.
    #[error("{0}")]
    Write(String),
    /// The layer failed.
    #[error(transparent)]
    Exec(#[from] ExecError),
}

/// What the output callback is asked to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputPhase {
    /// A periodic checkpoint.
    Checkpoint,
    /// The end of the run.
    Final,
}

/// The checkpoint's file name in the output folder.
pub const CHECKPOINT: &str = "checkpoint.qchk";

/// What writes a method's outputs: called with the executor, the history
/// so far and the phase; an error stops the run.
pub type Outputs<'a> = dyn FnMut(&mut Exec, &[Row], OutputPhase) -> Result<(), String> + 'a;

/// Runs `method` on `ex` as `config` says; `outputs` writes the method's
/// own outputs (collective: it may gather) at the end and at checkpoints.
/// Collective over the ranks.
pub fn run(
    method: &mut dyn Method,
    ex: &mut Exec,
    config: &RunConfig,
    outputs: &mut Outputs<'_>,
) -> Result<RunOutcome, RunError> {
    let rank0 = ex.rank() == 0;
    let columns = method.columns();
    let mut history: Vec<Row> = Vec::new();
    let mut first = 0u64;
    let mut wall_before = 0.0;
    method.start(ex).map_err(|e| match e {
        StepError::Exec(e) => RunError::Exec(e),
        StepError::NonPhysical(m) => RunError::Resume(m),
    })?;
    if config.resume {
        let (iteration, rows) = resume(method, ex, config)?;
        first = iteration;
        wall_before = rows.last().map_or(0.0, |r| r.wall_seconds);
        history = rows;
    }
    let signals = Signals::install().map_err(RunError::Write)?;
    let mut st = Stepping {
        iteration: first,
        history,
        row: vec![0.0; columns.len()],
        progress: Progress::new(config.quiet || !rank0, first, config.max_iters),
        signals,
        fault: injected_fault(),
        start: Instant::now(),
        wall_before,
        rank0,
    };
    let mut stop = StopReason::MaxIterations;
    ex.reset_times();
    // A resume at or past the final time has nothing left to do (not an
    // "iteration limit").
    let done = matches!(
        (config.final_time, method.time()),
        (Some(t_end), Some(t)) if t >= t_end
    );
    if done {
        stop = StopReason::FinalTime;
    }
    // The steps run inside the backend's pool from one checkpoint to the
    // next: the pool's threads stay at work between steps (entering the
    // pool for each step woke a worker and put the caller to sleep every
    // step: docs/performance.md 6.3).
    let pool = ex.pool();
    if !done {
        loop {
            let segment = match &pool {
                Some(pool) => pool.install(|| run_steps(method, ex, config, &mut st)),
                None => run_steps(method, ex, config, &mut st),
            };
            match segment? {
                Some(reason) => {
                    stop = reason;
                    break;
                }
                None => {
                    write_checkpoint(method, ex, config, st.iteration, &st.history)?;
                    outputs(ex, &st.history, OutputPhase::Checkpoint).map_err(RunError::Write)?;
                }
            }
        }
    }
    let Stepping {
        iteration,
        history,
        progress,
        start,
        ..
    } = st;
    let wall_seconds = start.elapsed().as_secs_f64();
    progress.finish();
    write_checkpoint(method, ex, config, iteration, &history)?;
    outputs(ex, &history, OutputPhase::Final).map_err(RunError::Write)?;
    let mut written = Ok(());
    if rank0 {
        if let Some(dir) = &config.out_dir {
            written = history::write(&dir.join("history.csv"), columns, &history)
                .map_err(|e| e.to_string());
        }
    }
    crate::launch::agree(ex.comm(), written).map_err(RunError::Write)?;
    Ok(RunOutcome {
        iterations: iteration,
        steps_run: iteration - first,
        stop,
        history,
        wall_seconds,
        loop_times: ex.loop_times(),
    })
}

/// The driver's state over the steps of a run.
struct Stepping {
    /// Steps done in all.
    iteration: u64,
    /// The history (rank 0).
    history: Vec<Row>,
    /// The history row of the step just done.
    row: Vec<f64>,
    progress: Progress,
    signals: Signals,
    /// The fault [`FAULT_AT`] injects.
    fault: Option<(usize, u64, bool)>,
    /// When this run's steps started.
    start: Instant,
    /// Wall seconds of the run resumed from.
    wall_before: f64,
    rank0: bool,
}

/// Runs steps until the run stops (the reason) or a checkpoint is due
/// (`None`: the caller writes it and calls again).
fn run_steps(
    method: &mut dyn Method,
    ex: &mut Exec,
    config: &RunConfig,
    st: &mut Stepping,
) -> Result<Option<StopReason>, RunError> {
    while st.iteration < config.max_iters {
        if let Some(s) = st.signals.received() {
            ex.request_stop(s);
        }
        let it = st.iteration + 1;
        if let Some((_, _, panic)) = st.fault.filter(|&(r, i, _)| r == ex.rank() && i == it) {
            let what = format!("a fault injected by {FAULT_AT} at iteration {it}");
            if panic {
                panic!("{what}");
            }
            return Err(RunError::Write(what));
        }
        match method.step(ex, it, &mut st.row) {
            Ok(()) => {}
            Err(StepError::NonPhysical(m)) => return Ok(Some(StopReason::NonPhysical(m))),
            Err(StepError::Exec(e)) => return Err(e.into()),
        }
        st.iteration = it;
        let elapsed = st.start.elapsed().as_secs_f64();
        if st.rank0 {
            st.history.push(Row {
                iteration: it,
                values: st.row.clone(),
                wall_seconds: st.wall_before + elapsed,
            });
        }
        let row = &st.row;
        st.progress
            .update(it, &|| method.progress_label(row), elapsed);
        if let Some(s) = ex.stop_agreed() {
            // The signal every rank agreed on (a signal to one rank stops
            // all with its status).
            return Ok(Some(StopReason::Signal(if s > 0 {
                s
            } else {
                signal_hook::consts::SIGINT
            })));
        }
        if let (Some(drop), Some(c)) = (config.residue_drop, method.log_residue_column()) {
            if it > 2 && st.row[c] <= -drop {
                return Ok(Some(StopReason::Converged));
            }
        }
        if let (Some(t_end), Some(t)) = (config.final_time, method.time()) {
            if t >= t_end {
                return Ok(Some(StopReason::FinalTime));
            }
        }
        if config.checkpoint_every > 0 && it % config.checkpoint_every == 0 && it < config.max_iters
        {
            return Ok(None);
        }
    }
    Ok(Some(StopReason::MaxIterations))
}

/// The environment variable that makes one rank fail at the start of one
/// iteration, `RANK:ITERATION` (an error returned) or
/// `RANK:ITERATION:panic`: how the tests check that a fault on one rank
/// ends every rank with its reason.
pub const FAULT_AT: &str = "QFLOW_FAULT_AT";

/// The rank, iteration and kind (a panic or not) [`FAULT_AT`] names, if set
/// and well formed.
fn injected_fault() -> Option<(usize, u64, bool)> {
    let v = std::env::var(FAULT_AT).ok()?;
    let mut f = v.split(':').map(str::trim);
    let rank = f.next()?.parse().ok()?;
    let iteration = f.next()?.parse().ok()?;
    let panic = match f.next() {
        None => false,
        Some("panic") => true,
        Some(_) => return None,
    };
    Some((rank, iteration, panic))
}

/// Runs step `iteration` of `method` inside the executor's thread pool
/// (where its backend has one, so the loops' parallel work runs on the
/// pool's threads), writing its history values into `row`.
pub fn step_in_pool<M: Method + ?Sized>(
    method: &mut M,
    ex: &mut Exec,
    iteration: u64,
    row: &mut [f64],
) -> Result<(), StepError> {
    match ex.pool() {
        Some(pool) => pool.install(|| method.step(ex, iteration, row)),
        None => method.step(ex, iteration, row),
    }
}

/// The state dats of a method.
fn state_dats(method: &dyn Method) -> impl Iterator<Item = &'static DatDecl> + '_ {
    method
        .dats()
        .iter()
        .copied()
        .filter(|d| d.role == Role::State)
}

/// The user's numbering of a set (`None`: the problem's).
fn numbering<'a>(config: &'a RunConfig, set: &str) -> Option<&'a [u32]> {
    config
        .user_numbering
        .iter()
        .find(|(s, _)| *s == set)
        .map(|(_, v)| &v[..])
}

/// Writes a checkpoint of the current state (collective: gathers; every
/// rank learns whether rank 0 could write it).
fn write_checkpoint(
    method: &dyn Method,
    ex: &mut Exec,
    config: &RunConfig,
    iteration: u64,
    history: &[Row],
) -> Result<(), RunError> {
    let written = gather_and_write_checkpoint(method, ex, config, iteration, history);
    crate::launch::agree(ex.comm(), written).map_err(RunError::Write)
}

/// The gathers of [`write_checkpoint`] and rank 0's write.
fn gather_and_write_checkpoint(
    method: &dyn Method,
    ex: &mut Exec,
    config: &RunConfig,
    iteration: u64,
    history: &[Row],
) -> Result<(), String> {
    let mut dats = Vec::new();
    for d in state_dats(method) {
        let gathered = ex.gather(d);
        if let Some(Values::F64(v)) = gathered {
            let values = match numbering(config, d.set.name) {
                Some(user) => {
                    let mut out = vec![0.0; v.len()];
                    for (p, &u) in user.iter().enumerate() {
                        let (a, b) = (p * d.dim, u as usize * d.dim);
                        out[b..b + d.dim].copy_from_slice(&v[a..a + d.dim]);
                    }
                    out
                }
                None => v,
            };
            dats.push(StateDat {
                name: d.name.into(),
                set: d.set.name.into(),
                dim: d.dim,
                values,
            });
        }
    }
    let Some(dir) = config.out_dir.as_ref().filter(|_| ex.rank() == 0) else {
        return Ok(());
    };
    let cp = Checkpoint {
        method: method.name().into(),
        problem_key: config.problem_key.clone(),
        fingerprint: config.fingerprint,
        iteration,
        books: method
            .books()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        columns: method.columns().iter().map(|c| c.to_string()).collect(),
        history: history.to_vec(),
        dats,
    };
    cp.write(&dir.join(CHECKPOINT))
        .map_err(|e| format!("writing the checkpoint: {e}"))
}

/// Reads, checks and applies the checkpoint (collective): the iteration and
/// history it holds.
fn resume(
    method: &mut dyn Method,
    ex: &mut Exec,
    config: &RunConfig,
) -> Result<(u64, Vec<Row>), RunError> {
    let mut verdict: Result<Checkpoint, String> = Err(String::new());
    if ex.rank() == 0 {
        verdict = match config.out_dir.as_ref() {
            None => Err("no output folder to resume from".into()),
            Some(dir) => Checkpoint::read(&dir.join(CHECKPOINT))
                .map_err(|e| e.to_string())
                .and_then(|cp| check_checkpoint(method, config, cp)),
        };
    }
    // Every rank learns the verdict and the books.
    let mut msg = match &verdict {
        Ok(cp) => {
            let mut b = vec![1u8];
            b.extend_from_slice(&cp.iteration.to_le_bytes());
            let books: Vec<String> = cp
                .books
                .iter()
                .map(|(k, v)| format!("{k}={:016x}", v.to_bits()))
                .collect();
            b.extend_from_slice(books.join(";").as_bytes());
            b
        }
        Err(e) => {
            let mut b = vec![0u8];
            b.extend_from_slice(e.as_bytes());
            b
        }
    };
    ex.comm().broadcast(0, &mut msg);
    if msg.first() != Some(&1) {
        return Err(RunError::Resume(
            String::from_utf8_lossy(&msg[1..]).into_owned(),
        ));
    }
    let iteration = u64::from_le_bytes(msg[1..9].try_into().expect("8 bytes"));
    let books: Vec<(String, f64)> = String::from_utf8_lossy(&msg[9..])
        .split(';')
        .filter(|s| !s.is_empty())
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            Some((
                k.to_string(),
                f64::from_bits(u64::from_str_radix(v, 16).ok()?),
            ))
        })
        .collect();
    method.restore_books(&books).map_err(RunError::Resume)?;
    let cp = verdict.ok();
    for d in state_dats(method).collect::<Vec<_>>() {
        let values = cp
            .as_ref()
            .and_then(|cp| cp.dats.iter().find(|s| s.name == d.name))
            .map(|s| match numbering(config, d.set.name) {
                Some(user) => {
                    let mut out = vec![0.0; s.values.len()];
                    for (p, &u) in user.iter().enumerate() {
                        let (a, b) = (p * d.dim, u as usize * d.dim);
                        out[a..a + d.dim].copy_from_slice(&s.values[b..b + d.dim]);
                    }
                    Values::F64(out)
                }
                None => Values::F64(s.values.clone()),
            });
        ex.scatter(d, values.as_ref());
    }
    Ok((iteration, cp.map(|c| c.history).unwrap_or_default()))
}

/// Whether a checkpoint belongs to this run: method, problem, input and
/// state dats; an error names what differs.
fn check_checkpoint(
    method: &dyn Method,
    config: &RunConfig,
    cp: Checkpoint,
) -> Result<Checkpoint, String> {
    if cp.method != method.name() {
        return Err(format!(
            "the checkpoint is of method `{}`, the case runs `{}`",
            cp.method,
            method.name()
        ));
    }
    if cp.problem_key != config.problem_key {
        // Lines `name = value`, matched by name (one side may lack one).
        let name = |l: &str| l.split(" = ").next().unwrap_or(l).to_string();
        let mut names: Vec<String> = Vec::new();
        for l in cp.problem_key.lines().chain(config.problem_key.lines()) {
            if !names.contains(&name(l)) {
                names.push(name(l));
            }
        }
        let line = |key: &str, n: &str| {
            key.lines()
                .find(|l| name(l) == n)
                .map_or_else(|| format!("({n} not set)"), str::to_string)
        };
        let diff: Vec<String> = names
            .iter()
            .map(|n| (line(&cp.problem_key, n), line(&config.problem_key, n)))
            .filter(|(a, b)| a != b)
            .map(|(a, b)| format!("  checkpoint: {a}\n  case:       {b}"))
            .collect();
        return Err(format!(
            "the case's settings define another problem:\n{}",
            diff.join("\n")
        ));
    }
    // After the settings, which name a structured grid's size.
    if cp.fingerprint != config.fingerprint {
        return Err(
            "the checkpoint is of another mesh or cloud (its geometry or connectivity differ)"
                .into(),
        );
    }
    let columns: Vec<&str> = method.columns().to_vec();
    if cp
        .columns
        .iter()
        .map(|s| s.as_str())
        .ne(columns.iter().copied())
    {
        return Err("the checkpoint's history has other columns".into());
    }
    for d in state_dats(method) {
        match cp.dats.iter().find(|s| s.name == d.name) {
            Some(s) if s.dim == d.dim && s.set == d.set.name => {}
            _ => return Err(format!("the checkpoint lacks the state `{}`", d.name)),
        }
    }
    if cp
        .history
        .last()
        .is_some_and(|r| r.iteration != cp.iteration)
    {
        return Err("its history does not end at its iteration".into());
    }
    Ok(cp)
}
