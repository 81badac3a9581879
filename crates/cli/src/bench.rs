//! `qflow bench`: a case of any method timed step by step, per loop, as
//! the run pipeline builds it (one process, the backend asked for): the
//! median of repeated timed runs after a warm-up. Each method's figure is
//! the one its paper reports: RDP (seconds per iteration per point) for
//! q-LSKUM, seconds per cell-iteration for fv and lw, PID (seconds per
//! right-hand-side evaluation per degree of freedom) for DG.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::Serialize;

use qflow_par::comm::SelfComm;
use qflow_par::driver::{LoopTime, Method};

use crate::args::BackendArgs;
use crate::case::{CaseFile, MethodName};
use crate::pipeline::{prepare, CaseMethod, Ready};
use crate::run::RunOptions;

/// `qflow bench`'s options.
#[derive(Clone, Debug, clap::Args)]
pub struct BenchArgs {
    /// A case file of any method; without one, q-LSKUM on a generated
    /// NACA 0012 cloud of about --points points at the reference settings.
    pub case: Option<PathBuf>,
    /// Override a key of the case: `section.key=value`; repeatable.
    /// Without a case file, keys of `[flow]` and `[solver]` only.
    #[arg(long = "set", value_name = "SECTION.KEY=VALUE")]
    pub sets: Vec<String>,
    /// Points of the generated cloud (without a case file).
    #[arg(long, default_value_t = 9600)]
    pub points: usize,
    /// The backend.
    #[command(flatten)]
    pub backend: BackendArgs,
    /// Steps per timed run.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub iterations: u64,
    /// Untimed steps before the timed runs.
    #[arg(long, default_value_t = 5)]
    pub warmup: u64,
    /// Timed runs (the median is reported).
    #[arg(long, default_value_t = 5, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub repeats: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// One loop's row: its median time per step and unit of work, in the
/// method's figure.
#[derive(Clone, Debug, Serialize)]
pub struct KernelRow {
    /// The loop.
    pub kernel: String,
    /// Median over the repeats.
    pub seconds: f64,
    /// Smallest over the repeats.
    pub min: f64,
    /// Largest over the repeats.
    pub max: f64,
    /// Share of the total (medians).
    pub fraction: f64,
}

/// A benchmark report.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// CPU model and core count.
    pub machine: String,
    /// The case file (or the generated cloud).
    pub case: String,
    /// The method.
    pub method: String,
    /// What runs, as `qflow run` says it.
    pub run: String,
    /// The work set (`points`, `cells`).
    pub set: String,
    /// Its elements.
    pub elements: usize,
    /// Backend with its thread count or device.
    pub backend: String,
    /// The figure: `rdp` (q-LSKUM: seconds per iteration per point),
    /// `seconds_per_cell_iteration` (fv, lw) or `pid` (DG: seconds per
    /// right-hand-side evaluation per degree of freedom).
    pub figure: String,
    /// Units of work per step the figure divides by (points, cells, or
    /// stages times degrees of freedom).
    pub units_per_step: f64,
    /// Steps per timed run.
    pub iterations: u64,
    /// Timed runs.
    pub repeats: usize,
    /// Per loop, in step order, in the figure.
    pub kernels: Vec<KernelRow>,
    /// All loops: median over the repeats of their sum (on a device, the
    /// device's busy time), in the figure.
    pub total: f64,
    /// The whole step by the host's clock (launch gaps, host work and
    /// waits included), in the figure: median over the repeats.
    pub wall: f64,
    /// Bytes of dats per element.
    pub bytes_per_element: f64,
}

/// `qflow bench`: the case's (or the generated cloud's) benchmark, its
/// report written to `out` as a table or JSON.
pub fn run_cmd(a: BenchArgs, out: &mut dyn std::io::Write) -> Result<()> {
    let opts = RunOptions {
        backend: a.backend.spec()?,
        quiet: true,
        ..RunOptions::default()
    };
    let case = match &a.case {
        Some(path) => CaseFile::load(path, &a.sets)?,
        None => generated_case(a.points, &a.sets)?,
    };
    let report = match case.method {
        MethodName::Lskum => bench::<crate::lskum_run::LskumRun>(&case, &opts, &a),
        MethodName::Fv => bench::<crate::fv_run::FvRun>(&case, &opts, &a),
        MethodName::Lw => bench::<crate::lw_run::LwRun>(&case, &opts, &a),
        MethodName::Dg => bench::<crate::dg_run::DgRun>(&case, &opts, &a),
    }?;
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)
    } else {
        write!(out, "{}", report.render())
    }
    .context("writing to standard output")
}

/// The machine, for reports: CPU model and logical cores.
pub fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{model}, {cores} logical cores")
}

/// The median of `v` (sorted in place).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// Times the case `case` of the method `M` as `a` asks.
fn bench<M: CaseMethod>(case: &CaseFile, opts: &RunOptions, a: &BenchArgs) -> Result<BenchReport> {
    let cm = M::read(case, opts)?;
    let (ready, _) = prepare(cm, Box::new(SelfComm), case, opts, None)?;
    let Ready {
        cm,
        mut method,
        mut ex,
        root,
        elements,
        ..
    } = ready;
    let root = root.expect("one process is rank 0");
    let steps = a.warmup + a.iterations * a.repeats as u64;
    let sched = cm.schedule(&method, Some(&root), opts)?;
    if let Some(t) = sched.final_time.filter(|_| steps > sched.max_iters) {
        anyhow::bail!(
            "case file {}: the bench runs {steps} steps and the case ends after {} (its final \
             time {t}, or its [stop] max_iters): give fewer --iterations, --repeats or \
             --warmup, or a later final time with --set",
            case.path.display(),
            sched.max_iters
        );
    }
    let run = cm.banner(&root, &method, &ex, sched.max_iters);
    let (figure, units) = cm.figure(&method, elements);
    method.start(&mut ex).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut row = vec![0.0; method.columns().len()];
    let mut iteration = 0u64;
    let mut timed = |iters: u64, ex: &mut qflow_par::Exec| -> Result<(Vec<LoopTime>, f64)> {
        ex.reset_times();
        let t = std::time::Instant::now();
        for _ in 0..iters {
            iteration += 1;
            qflow_par::driver::step_in_pool(&mut method, ex, iteration, &mut row)
                .map_err(|e| anyhow::anyhow!("benchmark run: {e}"))?;
        }
        // The loop times wait for the device: the wall time is whole.
        let times = ex.loop_times();
        Ok((times, t.elapsed().as_secs_f64()))
    };
    if a.warmup > 0 {
        timed(a.warmup, &mut ex)?;
    }
    let per = |seconds: f64| seconds / (a.iterations as f64 * units);
    let (mut samples, mut walls) = (Vec::new(), Vec::new());
    for _ in 0..a.repeats {
        let (times, wall) = timed(a.iterations, &mut ex)?;
        samples.push(times);
        walls.push(per(wall));
    }
    let secs = |l: &LoopTime| per(l.time.as_secs_f64());
    let mut totals: Vec<f64> = samples.iter().map(|t| t.iter().map(secs).sum()).collect();
    let total = median(&mut totals);
    let kernels = samples[0]
        .iter()
        .map(|first| {
            let of = |t: &Vec<LoopTime>| t.iter().find(|l| l.name == first.name).map_or(0.0, secs);
            let mut v: Vec<f64> = samples.iter().map(of).collect();
            let med = median(&mut v);
            KernelRow {
                kernel: first.name.to_string(),
                seconds: med,
                min: v[0],
                max: v[v.len() - 1],
                fraction: if total > 0.0 { med / total } else { 0.0 },
            }
        })
        .collect();
    Ok(BenchReport {
        machine: machine(),
        case: case.path.display().to_string(),
        method: method.name().to_string(),
        run,
        set: method.work_set().name.to_string(),
        elements,
        backend: ex.describe(),
        figure: figure.to_string(),
        units_per_step: units,
        iterations: a.iterations,
        repeats: a.repeats,
        kernels,
        total,
        wall: median(&mut walls),
        bytes_per_element: ex.bytes() as f64 / elements.max(1) as f64,
    })
}

impl BenchReport {
    /// The table, as text.
    pub fn render(&self) -> String {
        let mut s = format!(
            "machine     {}\ncase        {} ({})\nrun         {}\nbackend     {}\n\
             timing      median of {} runs of {} steps after a warm-up\nmemory      {:.0} bytes per element of {}\n\
             figure      {} = seconds per step / {} (its units of work per step)\n\n",
            self.machine,
            self.case,
            self.method,
            self.run,
            self.backend,
            self.repeats,
            self.iterations,
            self.bytes_per_element,
            self.set,
            self.figure,
            self.units_per_step,
        );
        s += &format!(
            "{:<30} {:>12} {:>12} {:>12} {:>7}\n",
            "loop", self.figure, "min", "max", "share"
        );
        for k in &self.kernels {
            s += &format!(
                "{:<30} {:>12.4e} {:>12.4e} {:>12.4e} {:>6.1}%\n",
                k.kernel,
                k.seconds,
                k.min,
                k.max,
                100.0 * k.fraction
            );
        }
        s += &format!("{:<30} {:>12.4e}\n", "total", self.total);
        s += &format!("{:<30} {:>12.4e}\n", "wall", self.wall);
        s
    }
}

/// The q-LSKUM case of a bench without a case file: a generated NACA 0012
/// cloud of about `points` points at the reference settings, with the
/// `--set` overrides of the `[flow]` and `[solver]` sections (checked as a
/// case file's are). The cloud comes from `--points`, so `cloud.*` is
/// refused, and the other sections do not apply to a bench.
pub fn generated_case(points: usize, sets: &[String]) -> Result<CaseFile> {
    if let Some(s) = sets.iter().find(|s| {
        let s = s.trim_start();
        !(s.starts_with("flow.") || s.starts_with("solver."))
    }) {
        anyhow::bail!(
            "--set {s}: without a case file, qflow bench generates its cloud from --points \
             and takes only [flow] and [solver] settings; give a case file for anything else"
        );
    }
    let g = naca0012_of_size(points)?;
    let text = format!(
        "[cloud.generate]\nsection = \"naca0012\"\nwall_points = {}\nrings = {}\nfar_field = {:?}\n",
        g.wall_points, g.rings, g.far_field
    );
    let name = format!("generated naca0012 {} x {}", g.wall_points, g.rings);
    CaseFile::parse(&text, std::path::Path::new(&name), sets)
}

/// A NACA 0012 O-grid of about `points` points with the 9,600-point cloud's
/// proportions (8 wall points for every 3 rings).
pub fn naca0012_of_size(points: usize) -> Result<qflow_mesh::generate::NacaOGrid> {
    let wall = (((points as f64) * 8.0 / 3.0).sqrt() / 2.0).round() as usize * 2;
    let wall = wall.max(qflow_mesh::generate::MIN_WALL_POINTS);
    let rings = (points / wall).max(qflow_mesh::generate::MIN_RINGS);
    Ok(qflow_mesh::generate::NacaOGrid {
        section: "naca0012".parse()?,
        wall_points: wall,
        rings,
        far_field: 10.0 * (rings as f64 / 60.0).max(1.0),
        stretching: None,
    })
}
