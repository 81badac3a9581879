//! The run pipeline every method shares, from a case file to its outputs:
//! the method's sections of the case read and checked; rank 0 locks the
//! output folder and builds the problem (and, for several ranks, its
//! owners); the layer hands every rank its part; the executor; the run
//! driver to the stopping rule; the method's final outputs (collective);
//! rank 0's summary (the method's fields, the speed, the set-up time, and
//! for several ranks every rank's report) and its `[expect]` verdict.
//!
//! A method supplies only what differs ([`CaseMethod`]): its case, its
//! problem, its layer method, its run's limits and key, its banner, its
//! outputs and its summary fields.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};

use qflow_par::backend::BackendSpec;
use qflow_par::comm::{Comm, ExchangeMode};
use qflow_par::decl::{DatDecl, LoopDecl};
use qflow_par::driver::history::Row;
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::driver::{self, Method, OutputPhase, RunConfig, RunOutcome};
use qflow_par::launch::{distribute, executor, Catalog};
use qflow_par::part::Part;
use qflow_par::{Exec, Problem};

use crate::case::{prepare_output_dir, CaseFile, Output};
use crate::run::{add_rank_reports, Finished, RunOptions};

/// What rank 0 builds: the problem, the owner rank of each element of the
/// work set (several ranks; `None`: the layer cuts a block into boxes, or
/// one rank), and what it keeps for the outputs and the summary.
pub struct Built<R> {
    /// The whole problem.
    pub problem: Problem,
    /// Owner rank of each work-set element, for several ranks.
    pub owners: Option<Vec<u32>>,
    /// What rank 0 keeps.
    pub root: R,
}

/// A run's limits and identity, as the method gives them
/// ([`RunConfig`]'s method-specific part).
pub struct Schedule {
    /// Step limit (the command line's already applied).
    pub max_iters: u64,
    /// Stop once the residue has dropped this many orders.
    pub residue_drop: Option<f64>,
    /// Stop once the method's time reaches this.
    pub final_time: Option<f64>,
    /// The settings that define the discrete problem.
    pub problem_key: String,
    /// Fingerprint of the problem's input (rank 0's counts).
    pub fingerprint: u64,
    /// Per set, the user's number of each element (rank 0).
    pub user_numbering: Vec<(&'static str, Vec<u32>)>,
}

impl Built<()> {
    /// A problem whose block the layer cuts (no owners), with nothing
    /// kept on rank 0.
    pub fn block(problem: Problem) -> Self {
        Built {
            problem,
            owners: None,
            root: (),
        }
    }
}

/// The end of a run, as the final outputs see it.
pub struct Final<'a> {
    /// The executor (collective: the outputs may gather).
    pub ex: &'a mut Exec,
    /// The history.
    pub rows: &'a [Row],
    /// The output folder.
    pub dir: &'a Path,
    /// The command line's options.
    pub opts: &'a RunOptions,
}

/// A finished run, as the summary sees it.
pub struct Ran<'a, M> {
    /// What the run did.
    pub outcome: &'a RunOutcome,
    /// The executor.
    pub ex: &'a Exec,
    /// The layer's method.
    pub method: &'a M,
}

/// A check of the run's result against the case (`[expect]`): its line,
/// and whether it passed.
pub type Verdict = (String, bool);

/// A method as the run pipeline drives it.
pub trait CaseMethod: Sized {
    /// The layer's method.
    type Method: Method;
    /// What rank 0 keeps of the set-up for the outputs and the summary.
    type Root;

    /// Reads and checks the method's sections of `case` (on every rank,
    /// before any work), refusing options of the command line that do not
    /// apply to the method.
    fn read(case: &CaseFile, opts: &RunOptions) -> Result<Self>;

    /// Builds the problem on rank 0 (`ranks`: the job's rank count).
    fn build(&self, case: &CaseFile, ranks: usize, opts: &RunOptions) -> Result<Built<Self::Root>>;

    /// The method's loops and dats (the layer's catalogue of them).
    fn declarations(&self) -> (&'static [&'static LoopDecl], &'static [&'static DatDecl]);

    /// The layer's method for the distributed part (rank 0 also gets its
    /// root, to hand the method what it keeps of the set-up).
    fn method(&self, part: &Part, root: Option<&mut Self::Root>) -> Result<Self::Method>;

    /// Whether the layer cuts a block into strips rather than boxes.
    fn strips(&self) -> bool {
        false
    }

    /// The backend, with the method's own choices applied.
    fn backend(&self, opts: &RunOptions) -> BackendSpec {
        opts.backend.clone()
    }

    /// The halo exchange unless the command line gives one.
    fn exchange(&self, _ranks: usize) -> ExchangeMode {
        ExchangeMode::Nonblocking
    }

    /// The run's limits and identity.
    fn schedule(
        &self,
        method: &Self::Method,
        root: Option<&Self::Root>,
        opts: &RunOptions,
    ) -> Result<Schedule>;

    /// The line that says what runs (rank 0, unless quiet).
    fn banner(&self, root: &Self::Root, method: &Self::Method, ex: &Exec, max_iters: u64)
        -> String;

    /// Writes the final outputs (collective: every rank calls it; rank 0
    /// has its root).
    fn outputs(&mut self, root: Option<&Self::Root>, at: Final<'_>) -> Result<(), String>;

    /// Elements of the work set, for the speed figures.
    fn elements(&self, part: &Part, method: &Self::Method) -> usize {
        part.set(method.work_set()).map_or(0, |s| s.global_len)
    }

    /// The speed figure of `qflow bench` and the units of work per step
    /// it divides by: `rdp` per element (seconds per step per element of
    /// the work set) unless the method's paper reports another.
    fn figure(&self, _method: &Self::Method, elements: usize) -> (&'static str, f64) {
        ("rdp", elements as f64)
    }

    /// The summary's fields between `method` and the speed (rank 0), and
    /// the verdict of a check against the case, if it has one.
    fn summary(
        &self,
        root: &Self::Root,
        s: &mut Summary,
        ran: &Ran<Self::Method>,
    ) -> Option<Verdict>;

    /// The summary's fields after the speed (figures derived from it).
    fn speed_fields(&self, _s: &mut Summary, _ran: &Ran<Self::Method>) {}

    /// The summary's fields after the set-up time (what part of it went
    /// where).
    fn setup_fields(&self, _root: &Self::Root, _s: &mut Summary) {}
}

/// A method's run made ready on this rank: the case, the layer's method,
/// its executor and (rank 0) what the set-up kept.
pub struct Ready<M: CaseMethod> {
    /// The method's case.
    pub cm: M,
    /// The layer's method.
    pub method: M::Method,
    /// The executor of this rank's part.
    pub ex: Exec,
    /// What rank 0 kept of the set-up.
    pub root: Option<M::Root>,
    /// Elements of the work set, for the speed figures.
    pub elements: usize,
    /// Seconds from the case to the executor.
    pub setup_seconds: f64,
}

/// Everything up to the run of the case `cm` (read from `case`): rank 0's
/// problem (after it locks `out_dir`, where given), every rank's part and
/// executor.
pub fn prepare<M: CaseMethod>(
    cm: M,
    comm: Box<dyn Comm>,
    case: &CaseFile,
    opts: &RunOptions,
    out_dir: Option<&Path>,
) -> Result<(Ready<M>, Option<crate::case::OutputLock>)> {
    let t = Instant::now();
    let ranks = comm.size();
    let (mut root, mut lock) = (None, None);
    let setup = (comm.rank() == 0).then(|| {
        (|| -> Result<_> {
            lock = out_dir.map(prepare_output_dir).transpose()?;
            let built = cm.build(case, ranks, opts)?;
            root = Some(built.root);
            Ok((built.problem, built.owners))
        })()
        .map_err(|e| format!("{e:#}"))
    });
    // Every rank's catalogue of sets and dats, from the declarations.
    let (loops, dats) = cm.declarations();
    let catalog = Catalog::of(loops, dats);
    let part = distribute(&*comm, setup, loops, &catalog, cm.strips()).map_err(|e| anyhow!(e))?;
    let part = Arc::new(part);
    let method = cm.method(&part, root.as_mut())?;
    let elements = cm.elements(&part, &method);
    let mode = opts.exchange.unwrap_or(cm.exchange(ranks));
    let spec = cm.backend(opts);
    let ex = executor(comm, part, &method, &spec, mode).map_err(|e| anyhow!(e))?;
    let ready = Ready {
        cm,
        method,
        ex,
        root,
        elements,
        setup_seconds: t.elapsed().as_secs_f64(),
    };
    Ok((ready, lock))
}

/// Runs `case` with the method `M` on every rank of `comm`.
pub fn run_case<M: CaseMethod>(
    comm: Box<dyn Comm>,
    case: &CaseFile,
    opts: &RunOptions,
) -> Result<Finished> {
    let cm = M::read(case, opts)?;
    let output = output_section(case)?;
    let out_dir = output.folder(case, opts.output.as_deref())?;
    let (ready, lock) = prepare(cm, comm, case, opts, Some(&out_dir))?;
    let Ready {
        mut cm,
        mut method,
        mut ex,
        root,
        elements,
        setup_seconds,
    } = ready;
    let sched = cm.schedule(&method, root.as_ref(), opts)?;
    let config = RunConfig {
        max_iters: sched.max_iters,
        residue_drop: sched.residue_drop,
        final_time: sched.final_time,
        checkpoint_every: output.checkpoint_every,
        out_dir: Some(out_dir.clone()),
        resume: opts.resume,
        quiet: opts.quiet,
        problem_key: sched.problem_key,
        fingerprint: sched.fingerprint,
        user_numbering: sched.user_numbering,
    };
    if let (false, Some(r)) = (opts.quiet, &root) {
        crate::errln!("qflow: {}", cm.banner(r, &method, &ex, config.max_iters));
    }
    let outcome = {
        let r = root.as_ref();
        let dir = out_dir.clone();
        let mut outputs = |ex: &mut Exec, rows: &[Row], phase: OutputPhase| {
            if phase != OutputPhase::Final {
                return Ok(());
            }
            let at = Final {
                ex,
                rows,
                dir: &dir,
                opts,
            };
            cm.outputs(r, at)
        };
        driver::run(&mut method, &mut ex, &config, &mut outputs)?
    };
    let mut summary = None;
    let mut verdict = None;
    if let Some(r) = &root {
        let mut s = Summary::default();
        s.push("case", Value::Text(case.path.display().to_string()));
        s.push("method", Value::Text(method.name().into()));
        let ran = Ran {
            outcome: &outcome,
            ex: &ex,
            method: &method,
        };
        verdict = cm.summary(r, &mut s, &ran);
        s.add_speed(&outcome, elements);
        cm.speed_fields(&mut s, &ran);
        s.push("setup_seconds", Value::Real(setup_seconds));
        cm.setup_fields(r, &mut s);
        s.push("output", Value::Text(out_dir.display().to_string()));
        summary = Some(s);
    }
    if ex.ranks() > 1 {
        // Collective: every rank reports.
        add_rank_reports(&ex, method.work_set(), outcome.steps_run, summary.as_mut());
    }
    if let Some(s) = &summary {
        s.write(&out_dir.join("summary.toml"))
            .context("writing the summary")?;
    }
    if let Some((line, passed)) = verdict {
        if !passed {
            bail!("{line}\nthe outputs are in {}", out_dir.display());
        }
        crate::errln!("{line}");
    }
    drop(lock);
    Ok(Finished {
        summary,
        stop: outcome.stop,
        out_dir,
    })
}

/// The case's `[output]` section (every method's case has it).
pub fn output_section(case: &CaseFile) -> Result<Output> {
    #[derive(serde::Deserialize)]
    struct Outputs {
        #[serde(default)]
        output: Output,
    }
    Ok(case.get::<Outputs>()?.output)
}
