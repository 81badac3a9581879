//! `qflow run`: a case from its file to its outputs.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use indicatif::{ProgressBar, ProgressStyle};
use qflow_mesh::{check, native, renumber, Cloud};
use qflow_exec::{
    create_backend, BackendSpec, IterationReport, KernelTimes, Solver, SolverError, StopReason,
    StopRule,
};
use qflow_io::checkpoint::{self, Checkpoint};
use qflow_io::history::{self, HistoryRow};
use qflow_io::plot;
use qflow_lskum::{Geometry, Settings, Vec4};

use crate::case::{Case, RenumberChoice};

/// Command-line choices of `qflow run` that are not part of the case.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Backend, threads, device.
    pub backend: BackendSpec,
    /// Output folder overriding the case's.
    pub output: Option<PathBuf>,
    /// Iteration limit overriding the case's.
    pub max_iters: Option<u64>,
    /// Print only the summary.
    pub quiet: bool,
    /// Continue from the output folder's checkpoint.
    pub resume: bool,
    /// Under MPI: the partitioner (`metis` or `rcb`; `None`: metis).
    pub partitioner: Option<String>,
    /// Under MPI: the ghost exchange (`blocking`, `nonblocking`, `rma` or
    /// `rma-fence`; `None`: nonblocking).
    pub exchange: Option<String>,
    /// Under MPI: write the VTK field as one piece per rank and a parallel
    /// index `field.pvtu` instead of one gathered `field.vtu`.
    pub vtk_pieces: bool,
}

/// RDP of one kernel: seconds per iteration per point.
#[derive(Clone, Debug, Serialize)]
pub struct KernelRdp {
    /// Kernel name.
    pub kernel: String,
    /// Seconds per iteration per point.
    pub rdp: f64,
    /// Share of the total.
    pub fraction: f64,
}

/// What a run reports at the end (printed, and written as `summary.toml`).
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The case file.
    pub case: String,
    /// Number of points.
    pub points: usize,
    /// Backend and thread count.
    pub backend: String,
    /// Scheme and stages.
    pub scheme: String,
    /// Inner iterations.
    pub inner_iterations: u32,
    /// Iterations done (in all, for a resumed run).
    pub iterations: u64,
    /// Why the run stopped.
    pub stop: String,
    /// `log10(res / res_2)` at the end.
    pub log10_residue: f64,
    /// Raw residue at the end.
    pub residue: f64,
    /// Lift coefficient.
    pub cl: f64,
    /// Drag coefficient.
    pub cd: f64,
    /// Pitching-moment coefficient about the quarter chord.
    pub cm: f64,
    /// Wall-clock seconds of the iterations.
    pub wall_seconds: f64,
    /// Seconds per iteration per point, all kernels.
    pub rdp: f64,
    /// Per kernel.
    pub kernels: Vec<KernelRdp>,
    /// The output folder.
    pub output: String,
}

/// The scheme and its stage count, as the summary shows them.
pub fn scheme_label(settings: &Settings) -> String {
    format!(
        "{} ({} stages)",
        settings.scheme.name(),
        settings.scheme.stages()
    )
}

/// Why a run stopped, as the summary says it.
pub fn stop_label(outcome: &Result<StopReason, SolverError>) -> String {
    match outcome {
        Ok(StopReason::MaxIterations) => "iteration limit",
        Ok(StopReason::Converged) => "residue dropped",
        Ok(StopReason::Interrupted) => "interrupted",
        Err(_) => "non-physical state",
    }
    .into()
}

impl Summary {
    /// A human-readable block.
    pub fn render(&self) -> String {
        let mut s = format!(
            "case        {}\npoints      {}\nbackend     {}\nscheme      {} ({} inner iterations)\n\
             iterations  {} ({})\nresidue     {:.6e} (log10 drop {:.4})\nCl          {:.10}\n\
             Cd          {:.10}\nCm          {:.10}\nwall time   {:.2} s\nRDP         {:.4e} s per iteration per point\n",
            self.case,
            self.points,
            self.backend,
            self.scheme,
            self.inner_iterations,
            self.iterations,
            self.stop,
            self.residue,
            self.log10_residue,
            self.cl,
            self.cd,
            self.cm,
            self.wall_seconds,
            self.rdp
        );
        for k in &self.kernels {
            s += &format!(
                "  {:<16} {:.4e}  {:5.1}%\n",
                k.kernel,
                k.rdp,
                100.0 * k.fraction
            );
        }
        s += &format!("outputs     {}\n", self.output);
        s
    }
}

/// Per-kernel RDP from accumulated kernel times.
pub fn kernel_rdp(times: &KernelTimes, iterations: u64, points: usize) -> (f64, Vec<KernelRdp>) {
    let denom = (iterations.max(1) as f64) * points as f64;
    let total = times.total().as_secs_f64();
    let kernels = times
        .named()
        .iter()
        .map(|(name, d)| KernelRdp {
            kernel: (*name).to_string(),
            rdp: d.as_secs_f64() / denom,
            fraction: if total > 0.0 {
                d.as_secs_f64() / total
            } else {
                0.0
            },
        })
        .collect();
    (total / denom, kernels)
}

/// Reads (either format) or generates the cloud of a case and checks it; the
/// error lists the cloud's defects.
pub fn load_cloud(case: &Case, case_dir: &Path) -> Result<(Cloud, String)> {
    let (cloud, name) = if let Some(file) = &case.cloud.file {
        let path = case_dir.join(file);
        if !path.exists() {
            bail!("cloud file {} does not exist", path.display());
        }
        (native::read_any(&path)?, path.display().to_string())
    } else {
        let spec = case
            .cloud
            .generate
            .as_ref()
            .expect("case checked: file or generate");
        let g = spec.generator()?;
        (
            g.generate()?,
            format!(
                "generated {} ({} x {})",
                spec.section, spec.wall_points, spec.rings
            ),
        )
    };
    let report = check::check(&cloud, &[]);
    if !report.is_ok() {
        let (e, _) = report.counts();
        let mut msg = format!("cloud {name} has {e} defect(s) the solver cannot run with:\n");
        for f in report.errors().take(20) {
            msg += &format!("  {f}\n");
        }
        if e > 20 {
            msg += "  ...\n";
        }
        bail!("{msg}(run `qflow check` on the cloud for the full list)");
    }
    Ok((cloud, name))
}

/// Makes sure `dir` exists and a file can be written in it.
pub fn prepare_output_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create output folder {}", dir.display()))?;
    let probe = dir.join(format!(".qflow-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"")
        .with_context(|| format!("output folder {} is not writable", dir.display()))?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

/// The output folder of a case: the command line's, else the case's (relative
/// to the case file), else `out/<case name>`.
pub fn output_dir(case_path: &Path, case: &Case, opts: &RunOptions) -> PathBuf {
    if let Some(o) = &opts.output {
        return o.clone();
    }
    let case_dir = case_path.parent().unwrap_or(Path::new("."));
    match &case.output.dir {
        Some(d) => case_dir.join(d),
        None => {
            let stem = case_path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned());
            PathBuf::from("out").join(stem.unwrap_or_else(|| "case".into()))
        }
    }
}

/// The numbering the run uses: `new_of_old` for the cloud.
pub fn choose_numbering(cloud: &Cloud, choice: RenumberChoice) -> (Vec<u32>, &'static str) {
    match choice {
        RenumberChoice::None => (renumber::identity(cloud.len()), "none"),
        RenumberChoice::Rcm => (renumber::reverse_cuthill_mckee(cloud), "rcm"),
        RenumberChoice::Hilbert => (renumber::hilbert(cloud), "hilbert"),
        RenumberChoice::Auto => {
            // Keep a numbering that already has neighbours close together
            // (generated clouds do); renumber one that does not.
            let rcm = renumber::reverse_cuthill_mckee(cloud);
            let before = renumber::mean_neighbour_gap(cloud);
            let after = renumber::mean_neighbour_gap(&cloud.permuted(&rcm));
            if after < 0.5 * before {
                (rcm, "rcm (auto)")
            } else {
                (renumber::identity(cloud.len()), "none (auto)")
            }
        }
    }
}

/// The settings that define the discrete problem (a checkpoint of another
/// problem cannot be resumed; CFL and scheme may change, since the steady
/// state does not depend on them).
pub fn problem_key(s: &Settings) -> String {
    format!(
        "mach = {:?}\naoa = {:?}\ninner_iterations = {}\nvl_const = {:?}\npower = {:?}\nlimiter = {:?}\n",
        s.mach, s.aoa, s.inner_iterations, s.vl_const, s.power, s.limiter
    )
}

/// Progress display: a bar on a terminal, periodic log lines otherwise.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    last_line: Instant,
    quiet: bool,
}

impl Progress {
    pub(crate) fn new(quiet: bool, first: u64, max_iters: u64) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let b = ProgressBar::new(max_iters);
            b.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} it  {msg}  (left ~{eta})",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            b.set_position(first);
            b
        });
        Progress {
            bar,
            last_line: Instant::now(),
            quiet,
        }
    }

    pub(crate) fn update(&mut self, r: &IterationReport, elapsed: f64) {
        let c = &r.coefficients;
        if let Some(b) = &self.bar {
            b.set_position(r.iteration);
            if r.iteration % 10 == 0 || r.iteration <= 2 {
                b.set_message(format!(
                    "log10 res {:.4}  Cl {:.6}  Cd {:.6}",
                    r.log_residue, c.cl, c.cd
                ));
            }
        } else if !self.quiet
            && (r.iteration == 1 || self.last_line.elapsed() >= Duration::from_secs(10))
        {
            self.last_line = Instant::now();
            tracing::info!(
                "iteration {} log10 residue {:.5} Cl {:.8} Cd {:.8} ({:.1} s)",
                r.iteration,
                r.log_residue,
                c.cl,
                c.cd,
                elapsed
            );
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// Everything that stands between iterations and outputs.
struct Run<'a> {
    cloud: &'a Cloud,
    new_of_old: Vec<u32>,
    settings: Settings,
    out_dir: PathBuf,
    fingerprint: u64,
}

impl Run<'_> {
    /// The solver's state in the cloud's own numbering.
    fn user_state(&self, solver: &mut Solver) -> Vec<Vec4> {
        let internal = solver.state();
        self.new_of_old
            .iter()
            .map(|&new| internal[new as usize])
            .collect()
    }

    fn checkpoint(&self, solver: &mut Solver, rows: &[HistoryRow]) -> Result<()> {
        let cp = Checkpoint {
            iteration: solver.iteration(),
            reference_residue: solver.reference_residue(),
            cloud_fingerprint: self.fingerprint,
            settings: problem_key(&self.settings),
            history: rows.to_vec(),
            state: self.user_state(solver),
        };
        cp.write(&self.out_dir.join(CHECKPOINT))
            .context("writing the checkpoint")
    }

    /// The final outputs, for the solver's current state.
    fn outputs(&self, solver: &mut Solver, rows: &[HistoryRow], case: &Case) -> Result<()> {
        let prim = self.user_state(solver);
        write_outputs(
            &self.out_dir,
            self.cloud,
            &prim,
            rows,
            case,
            &self.settings,
            case.output.vtk,
        )
    }
}

/// Writes the outputs of a run in `dir` for the state `prim` (in the
/// cloud's own numbering): `history.csv`, `solution.dat`, `surface.csv`,
/// `field.vtu` (when `vtk`) and the plots the case asks for.
pub fn write_outputs(
    dir: &Path,
    cloud: &Cloud,
    prim: &[Vec4],
    rows: &[HistoryRow],
    case: &Case,
    settings: &Settings,
    vtk: bool,
) -> Result<()> {
    let fs = settings.free_stream();
    let d = dir;
    history::write(&d.join("history.csv"), rows)?;
    qflow_io::fields::write_solution(&d.join("solution.dat"), cloud, prim, &fs)?;
    if cloud.shape.iter().any(|&s| s > 0) {
        qflow_io::surface::write_surface(&d.join("surface.csv"), cloud, prim, &fs)?;
    }
    if vtk {
        qflow_io::vtk::write_vtu(&d.join("field.vtu"), cloud, prim, &fs)?;
    }
    if case.output.plots {
        if !rows.is_empty() {
            plot::plot_history(&d.join("history.png"), rows).context("plotting the history")?;
        }
        if cloud.shape.iter().any(|&s| s > 0) {
            plot::plot_surface_cp(&d.join("cp.png"), cloud, prim, &fs)
                .context("plotting the surface Cp")?;
            plot::plot_mach_field(&d.join("mach.png"), cloud, prim, None, (1200, 900))
                .context("plotting the Mach field")?;
        }
    }
    Ok(())
}

/// Reads the checkpoint in `out_dir` for a run on the cloud with
/// `fingerprint` and `points` points with `settings`: an error names what
/// does not match.
pub fn read_checkpoint_for(
    out_dir: &Path,
    fingerprint: u64,
    points: usize,
    settings: &Settings,
) -> Result<Checkpoint> {
    let path = out_dir.join(CHECKPOINT);
    let cp = Checkpoint::read(&path).with_context(|| "cannot resume".to_string())?;
    if cp.cloud_fingerprint != fingerprint || cp.state.len() != points {
        bail!(
            "cannot resume from {}: it is a checkpoint of another cloud",
            path.display()
        );
    }
    let key = problem_key(settings);
    if cp.settings != key {
        bail!(
            "cannot resume from {}: the case's settings define another problem\n  checkpoint:\n{}  case:\n{}",
            path.display(),
            indent(&cp.settings),
            indent(&key)
        );
    }
    Ok(cp)
}

/// The checkpoint's file name in the output folder.
pub const CHECKPOINT: &str = "checkpoint.qchk";

/// Runs a case file. Writes `history.csv`, `solution.dat`, `surface.csv`,
/// `field.vtu`, PNG plots, `checkpoint.qchk` and `summary.toml` in the output
/// folder; a run that goes non-physical writes them for the last good state
/// and returns the error.
pub fn run_case(case_path: &Path, opts: &RunOptions) -> Result<Summary> {
    let case = Case::load(case_path)?;
    let case_dir = case_path.parent().unwrap_or(Path::new("."));
    let out_dir = output_dir(case_path, &case, opts);
    prepare_output_dir(&out_dir)?;
    let (cloud, _) = load_cloud(&case, case_dir)?;
    let settings = case.settings();

    let (new_of_old, numbering) = choose_numbering(&cloud, case.solver.renumber);
    let internal = cloud.permuted(&new_of_old);
    let geom = Arc::new(Geometry::new(&internal, settings.force_normals));
    drop(internal);
    let backend = create_backend(&opts.backend, geom.clone(), (&settings).into())
        .map_err(anyhow::Error::msg)?;
    let mut solver = Solver::new(backend, geom, settings.clone());
    solver.set_original_numbering(renumber::inverse(&new_of_old).into());
    let run = Run {
        cloud: &cloud,
        new_of_old,
        settings: settings.clone(),
        out_dir: out_dir.clone(),
        fingerprint: checkpoint::fingerprint(&cloud),
    };

    let mut rows: Vec<HistoryRow> = Vec::new();
    let mut wall_offset = 0.0;
    if opts.resume {
        let cp = read_checkpoint_for(&out_dir, run.fingerprint, cloud.len(), &settings)?;
        let mut state = vec![[0.0; 4]; cloud.len()];
        for (old, &new) in run.new_of_old.iter().enumerate() {
            state[new as usize] = cp.state[old];
        }
        solver.resume(cp.iteration, cp.reference_residue, &state);
        wall_offset = cp.history.last().map_or(0.0, |r| r.wall_seconds);
        rows = cp.history;
    }
    let stop = StopRule {
        max_iters: opts.max_iters.unwrap_or(case.stop.max_iters),
        residue_drop: case.stop.residue_drop,
    };
    if !opts.quiet {
        eprintln!(
            "qflow: {} points (numbering {numbering}), {}, {} with {} inner iterations, M {} at {} deg, iterations {}..{}",
            cloud.len(),
            solver.backend_name(),
            settings.scheme.name(),
            settings.inner_iterations,
            settings.mach,
            settings.aoa,
            solver.iteration() + 1,
            stop.max_iters
        );
    }

    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupted.clone();
        // A second handler cannot be installed (tests run several cases in
        // one process): then Ctrl-C simply ends the process as usual.
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }

    let start = Instant::now();
    let mut progress = Progress::new(opts.quiet, solver.iteration(), stop.max_iters);
    let every = case.output.checkpoint_every;
    let outcome: Result<StopReason, SolverError> = loop {
        if solver.iteration() >= stop.max_iters {
            break Ok(StopReason::MaxIterations);
        }
        if interrupted.load(Ordering::SeqCst) {
            break Ok(StopReason::Interrupted);
        }
        let r = match solver.step() {
            Ok(r) => r,
            Err(e) => break Err(e),
        };
        let elapsed = wall_offset + start.elapsed().as_secs_f64();
        rows.push(HistoryRow {
            report: r,
            wall_seconds: elapsed,
        });
        progress.update(&r, elapsed);
        if every > 0 && r.iteration % every == 0 && r.iteration < stop.max_iters {
            run.checkpoint(&mut solver, &rows)?;
            history::write(&out_dir.join("history.csv"), &rows)?;
        }
        if let Some(drop) = stop.residue_drop {
            if r.iteration > 2 && r.log_residue <= -drop {
                break Ok(StopReason::Converged);
            }
        }
    };
    progress.finish();
    let wall = start.elapsed().as_secs_f64();

    run.checkpoint(&mut solver, &rows)?;
    run.outputs(&mut solver, &rows, &case)?;

    let last = rows.last().map(|r| r.report);
    let (times, timed) = solver.kernel_times();
    let (rdp, kernels) = kernel_rdp(&times, timed, cloud.len());
    let coefficients = solver.coefficients();
    let summary = Summary {
        case: case_path.display().to_string(),
        points: cloud.len(),
        backend: solver.backend_name(),
        scheme: scheme_label(&settings),
        inner_iterations: settings.inner_iterations,
        iterations: solver.iteration(),
        stop: stop_label(&outcome),
        log10_residue: last.map_or(0.0, |r| r.log_residue),
        residue: last.map_or(0.0, |r| r.residue),
        cl: coefficients.cl,
        cd: coefficients.cd,
        cm: coefficients.cm,
        wall_seconds: wall,
        rdp,
        kernels,
        output: out_dir.display().to_string(),
    };
    let text = toml::to_string(&summary).context("formatting the summary")?;
    qflow_io::write_atomically(&out_dir.join("summary.toml"), |w| {
        std::io::Write::write_all(w, text.as_bytes())
    })?;
    match outcome {
        Ok(_) => Ok(summary),
        Err(e @ SolverError::NonPhysical { .. }) => Err(anyhow::Error::new(e).context(format!(
            "the run stopped; outputs and checkpoint of the last good state are in {}",
            out_dir.display()
        ))),
    }
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("    {l}\n")).collect()
}
