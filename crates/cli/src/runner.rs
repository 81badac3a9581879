//! `qflow run`: a case from its file to its outputs.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use qflow_cloud::{check, legacy, Cloud};
use qflow_exec::{
    create_backend, BackendKind, KernelTimes, Solver, SolverError, StopReason, StopRule,
};
use qflow_io::history::{self, HistoryRow};
use qflow_lskum::Geometry;

use crate::case::Case;

/// Command-line choices of `qflow run` that are not part of the case.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Backend.
    pub backend: BackendKind,
    /// Threads of the threads backend (0: all cores).
    pub threads: usize,
    /// Output folder overriding the case's.
    pub output: Option<PathBuf>,
    /// Iteration limit overriding the case's.
    pub max_iters: Option<u64>,
    /// Print only the summary.
    pub quiet: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            backend: BackendKind::Threads,
            threads: 0,
            output: None,
            max_iters: None,
            quiet: false,
        }
    }
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

/// Reads or generates the cloud of a case and checks it; the error lists the
/// cloud's defects.
pub fn load_cloud(case: &Case, case_dir: &Path) -> Result<(Cloud, String)> {
    let (cloud, name) = if let Some(file) = &case.cloud.file {
        let path = case_dir.join(file);
        if !path.exists() {
            bail!("cloud file {} does not exist", path.display());
        }
        (legacy::read(&path)?, path.display().to_string())
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

/// Runs a case file. Writes `history.csv`, `solution.dat` and `summary.toml`
/// in the output folder; a run that goes non-physical writes them for the
/// last good state and returns the error.
pub fn run_case(case_path: &Path, opts: &RunOptions) -> Result<Summary> {
    let case = Case::load(case_path)?;
    let case_dir = case_path.parent().unwrap_or(Path::new("."));
    let out_dir = output_dir(case_path, &case, opts);
    prepare_output_dir(&out_dir)?;
    let (cloud, _) = load_cloud(&case, case_dir)?;

    let settings = case.settings();
    let geom = Arc::new(Geometry::new(&cloud, settings.force_normals));
    let backend = create_backend(opts.backend, geom.clone(), (&settings).into(), opts.threads)
        .map_err(anyhow::Error::msg)?;
    let mut solver = Solver::new(backend, geom, settings.clone());
    let stop = StopRule {
        max_iters: opts.max_iters.unwrap_or(case.stop.max_iters),
        residue_drop: case.stop.residue_drop,
    };
    if !opts.quiet {
        eprintln!(
            "qflow: {} points, {}, {} with {} inner iterations, M {} at {} deg, up to {} iterations",
            cloud.len(),
            solver.backend_name(),
            settings.scheme.name(),
            settings.inner_iterations,
            settings.mach,
            settings.aoa,
            stop.max_iters
        );
    }

    let history_path = out_dir.join("history.csv");
    let mut rows: Vec<HistoryRow> = Vec::with_capacity(stop.max_iters.min(1 << 20) as usize);
    let start = Instant::now();
    let mut last_print = Instant::now();
    let mut last_save = Instant::now();
    let mut io_error: Option<anyhow::Error> = None;
    let outcome = solver.run(&stop, |r| {
        rows.push(HistoryRow {
            report: *r,
            wall_seconds: start.elapsed().as_secs_f64(),
        });
        if !opts.quiet && (r.iteration == 1 || last_print.elapsed() >= Duration::from_secs(2)) {
            last_print = Instant::now();
            eprintln!(
                "iter {:>8}  log10 res {:>10.5}  Cl {:>12.8}  Cd {:>12.8}  {:.1} s",
                r.iteration,
                r.log_residue,
                r.coefficients.cl,
                r.coefficients.cd,
                start.elapsed().as_secs_f64()
            );
        }
        if last_save.elapsed() >= Duration::from_secs(30) {
            last_save = Instant::now();
            if let Err(e) = history::write(&history_path, &rows) {
                io_error = Some(e.into());
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    let wall = start.elapsed().as_secs_f64();
    if let Some(e) = io_error {
        return Err(e.context("writing the history"));
    }

    history::write(&history_path, &rows)?;
    let prim = solver.state();
    qflow_io::fields::write_solution(
        &out_dir.join("solution.dat"),
        &cloud,
        &prim,
        &settings.free_stream(),
    )?;

    let last = rows.last().map(|r| r.report);
    let (times, timed) = solver.kernel_times();
    let (rdp, kernels) = kernel_rdp(&times, timed, cloud.len());
    let coefficients = solver.coefficients();
    let summary = Summary {
        case: case_path.display().to_string(),
        points: cloud.len(),
        backend: solver.backend_name(),
        scheme: format!(
            "{} ({} stages)",
            settings.scheme.name(),
            settings.scheme.stages()
        ),
        inner_iterations: settings.inner_iterations,
        iterations: solver.iteration(),
        stop: match &outcome {
            Ok(StopReason::MaxIterations) => "iteration limit".into(),
            Ok(StopReason::Converged) => "residue dropped".into(),
            Ok(StopReason::Interrupted) => "interrupted".into(),
            Err(_) => "non-physical state".into(),
        },
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
            "the run stopped; outputs of the last good state are in {}",
            out_dir.display()
        ))),
    }
}
