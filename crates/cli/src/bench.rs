//! `qflow bench`: RDP (seconds per iteration per point) per kernel, as the
//! paper's Table 3 reports it, measured as the median of repeated timed runs
//! after a warm-up.

use anyhow::{Context, Result};
use serde::Serialize;

use qflow_lskum::decl::LOOPS;
use qflow_lskum::{problem, Lskum, Settings};
use qflow_mesh::Cloud;
use qflow_par::backend::{BackendSpec, Program};
use qflow_par::driver::{LoopTime, Method};
use qflow_par::Exec;

use crate::args::BackendArgs;

/// `qflow bench`'s options.
#[derive(Clone, Debug, clap::Args)]
pub struct BenchArgs {
    /// A case file (its cloud and settings); without one, a generated
    /// NACA 0012 cloud of about --points points at the reference settings.
    pub case: Option<std::path::PathBuf>,
    /// Override a key of the case: `section.key=value`; repeatable.
    /// Without a case file, keys of `[flow]` and `[solver]` only.
    #[arg(long = "set", value_name = "SECTION.KEY=VALUE")]
    pub sets: Vec<String>,
    /// Points of the generated cloud.
    #[arg(long, default_value_t = 9600)]
    pub points: usize,
    /// The backend.
    #[command(flatten)]
    pub backend: BackendArgs,
    /// Iterations per timed run.
    #[arg(long, default_value_t = 20)]
    pub iterations: u64,
    /// Untimed iterations before the timed runs.
    #[arg(long, default_value_t = 5)]
    pub warmup: u64,
    /// Timed runs (the median is reported).
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Renumber the points first: none, rcm, hilbert or random.
    #[arg(long, default_value = "none")]
    pub renumber: qflow_mesh::renumber::Renumbering,
}

/// `qflow bench`: the case's (or the generated cloud's) benchmark, its
/// report written to `out` as a table or JSON.
pub fn run_cmd(a: BenchArgs, out: &mut dyn std::io::Write) -> Result<()> {
    let backend = a.backend.spec()?;
    let (cloud, name, settings) = match &a.case {
        Some(path) => {
            let c = crate::case::CaseFile::load(path, &a.sets)?;
            if c.method != crate::case::MethodName::Lskum {
                anyhow::bail!(
                    "case file {}: qflow bench times q-LSKUM cases; method = \"{}\" is timed by \
                     `qflow run` (its summary has seconds per step per element for every loop) \
                     and by {}",
                    path.display(),
                    c.method.name(),
                    match c.method {
                        crate::case::MethodName::Fv => "cargo bench -p qflow-fv --bench bandwidth",
                        crate::case::MethodName::Dg => "its summary's pid",
                        _ => "scripts/bench-lw.py",
                    }
                );
            }
            let lc: crate::lskum_case::LskumCase = c.get()?;
            lc.validate()?;
            let (cloud, name) = crate::lskum_case::load_cloud(&lc, &c.dir)?;
            (cloud, name, lc.settings())
        }
        None => {
            let settings = default_settings(&a.sets)?;
            let g = naca0012_of_size(a.points)?;
            let name = format!("generated naca0012 {} x {}", g.wall_points, g.rings);
            (g.generate()?, name, settings)
        }
    };
    let o = BenchOptions {
        backend,
        iterations: a.iterations,
        warmup: a.warmup,
        repeats: a.repeats,
        renumber: a.renumber,
    };
    let report = bench(&cloud, &name, &settings, &o)?;
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)
    } else {
        write!(out, "{}", report.render())
    }
    .context("writing to standard output")
}

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Backend, threads, device.
    pub backend: BackendSpec,
    /// Iterations per timed run.
    pub iterations: u64,
    /// Untimed iterations first.
    pub warmup: u64,
    /// Timed runs; the median is reported.
    pub repeats: usize,
    /// Renumbering applied before the run.
    pub renumber: qflow_mesh::renumber::Renumbering,
}

/// One kernel's row.
#[derive(Clone, Debug, Serialize)]
pub struct KernelRow {
    /// Kernel name.
    pub kernel: String,
    /// Median seconds per iteration per point.
    pub rdp: f64,
    /// Smallest over the repeats.
    pub rdp_min: f64,
    /// Largest over the repeats.
    pub rdp_max: f64,
    /// Share of the total (medians).
    pub fraction: f64,
}

/// A benchmark report.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// CPU model and core count.
    pub machine: String,
    /// What the cloud is.
    pub cloud: String,
    /// Points.
    pub points: usize,
    /// Backend with its thread count.
    pub backend: String,
    /// Scheme.
    pub scheme: String,
    /// Runge-Kutta stages.
    pub stages: usize,
    /// Inner iterations of the q-derivatives.
    pub inner_iterations: u32,
    /// Iterations per timed run.
    pub iterations: u64,
    /// Timed runs.
    pub repeats: usize,
    /// Per kernel, in iteration order.
    pub kernels: Vec<KernelRow>,
    /// All kernels: median over the repeats of the total (on a device, the
    /// device's busy time).
    pub total_rdp: f64,
    /// The whole iteration by the host's clock, launch gaps, host work and
    /// waits included: median over the repeats.
    pub wall_rdp: f64,
    /// Bytes of solver state and geometry per point.
    pub bytes_per_point: f64,
    /// Renumbering and the mean index gap between a point and its
    /// neighbours after it.
    pub renumbering: String,
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

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// Runs the benchmark on `cloud` with `settings`: one process, the
/// backend `o` asks for, every loop timed.
pub fn bench(
    cloud: &Cloud,
    name: &str,
    settings: &Settings,
    o: &BenchOptions,
) -> Result<BenchReport> {
    let renumbered;
    let cloud = if o.renumber == qflow_mesh::renumber::Renumbering::None {
        cloud
    } else {
        renumbered = cloud.permuted(&o.renumber.permutation(cloud));
        &renumbered
    };
    let problem = problem::build(cloud, settings);
    let mut method = Lskum::new(settings.clone(), cloud.len());
    if settings.scheme == qflow_lskum::settings::Scheme::NewtonKrylov {
        method.set_stencils(problem::stencil_rows(&problem));
    }
    let program = Program {
        name: "lskum",
        loops: &LOOPS,
        device_source: method.device_source(),
    };
    let mut ex =
        qflow_par::launch::single_process(&problem, &program, method.globals(), &o.backend)
            .map_err(anyhow::Error::msg)?;
    drop(problem);
    method.start(&mut ex).map_err(|e| anyhow::anyhow!("{e}"))?;
    let n = cloud.len() as f64;
    let mut iteration = 0u64;
    let mut row = [0.0; 5];
    let mut run = |iters: u64, ex: &mut Exec, method: &mut Lskum| -> Result<(Vec<LoopTime>, f64)> {
        ex.reset_times();
        let t = std::time::Instant::now();
        for _ in 0..iters {
            iteration += 1;
            let it = iteration;
            qflow_par::driver::step_in_pool(method, ex, it, &mut row)
                .map_err(|e| anyhow::anyhow!("benchmark run: {e}"))?;
        }
        // The loop times wait for the device: the wall time is whole.
        let times = ex.loop_times();
        Ok((times, t.elapsed().as_secs_f64()))
    };
    if o.warmup > 0 {
        run(o.warmup, &mut ex, &mut method)?;
    }
    let mut samples: Vec<Vec<LoopTime>> = Vec::with_capacity(o.repeats);
    let mut walls: Vec<f64> = Vec::with_capacity(o.repeats);
    for _ in 0..o.repeats.max(1) {
        let (times, wall) = run(o.iterations, &mut ex, &mut method).context("benchmark run")?;
        samples.push(times);
        walls.push(wall / (o.iterations as f64 * n));
    }
    let wall_rdp = median(&mut walls);
    let per = |d: std::time::Duration| d.as_secs_f64() / (o.iterations as f64 * n);
    let mut totals: Vec<f64> = samples
        .iter()
        .map(|t| t.iter().map(|l| per(l.time)).sum())
        .collect();
    let total_rdp = median(&mut totals);
    let names: Vec<&str> = samples[0].iter().map(|l| l.name).collect();
    let kernels = names
        .iter()
        .map(|name| {
            let mut v: Vec<f64> = samples
                .iter()
                .map(|t| {
                    t.iter()
                        .find(|l| l.name == *name)
                        .map_or(0.0, |l| per(l.time))
                })
                .collect();
            let med = median(&mut v);
            KernelRow {
                kernel: name.to_string(),
                rdp: med,
                rdp_min: v[0],
                rdp_max: v[v.len() - 1],
                fraction: if total_rdp > 0.0 {
                    med / total_rdp
                } else {
                    0.0
                },
            }
        })
        .collect();
    Ok(BenchReport {
        machine: machine(),
        cloud: name.to_string(),
        points: cloud.len(),
        backend: ex.describe(),
        scheme: settings.scheme.name().to_string(),
        stages: settings.scheme.stages(),
        inner_iterations: settings.inner_iterations,
        iterations: o.iterations,
        repeats: samples.len(),
        kernels,
        total_rdp,
        wall_rdp,
        bytes_per_point: ex.bytes() as f64 / n,
        renumbering: format!(
            "{:?} (mean neighbour index gap {:.1})",
            o.renumber,
            qflow_mesh::renumber::mean_neighbour_gap(cloud)
        ),
    })
}

impl BenchReport {
    /// The table, as text.
    pub fn render(&self) -> String {
        let mut s = format!(
            "machine     {}\ncloud       {} ({} points)\nbackend     {}\nscheme      {} ({} stages), {} inner iterations\n\
             timing      median of {} runs of {} iterations after a warm-up\nmemory      {:.0} bytes per point\nnumbering   {}\n\n",
            self.machine,
            self.cloud,
            self.points,
            self.backend,
            self.scheme,
            self.stages,
            self.inner_iterations,
            self.repeats,
            self.iterations,
            self.bytes_per_point,
            self.renumbering
        );
        s += &format!(
            "{:<18} {:>12} {:>12} {:>12} {:>7}\n",
            "kernel", "RDP (s)", "min", "max", "share"
        );
        for k in &self.kernels {
            s += &format!(
                "{:<18} {:>12.4e} {:>12.4e} {:>12.4e} {:>6.1}%\n",
                k.kernel,
                k.rdp,
                k.rdp_min,
                k.rdp_max,
                100.0 * k.fraction
            );
        }
        s += &format!("{:<18} {:>12.4e}\n", "total", self.total_rdp);
        s += &format!("{:<18} {:>12.4e}\n", "wall", self.wall_rdp);
        s
    }
}

/// The settings of a bench without a case file: the reference settings,
/// with the `--set` overrides of the `[flow]` and `[solver]` sections
/// (checked as a case file's are). The cloud comes from `--points`, so
/// `cloud.*` is refused, and the other sections do not apply to a bench.
pub fn default_settings(sets: &[String]) -> Result<Settings> {
    if sets.is_empty() {
        return Ok(Settings::default());
    }
    if let Some(s) = sets.iter().find(|s| {
        let s = s.trim_start();
        !(s.starts_with("flow.") || s.starts_with("solver."))
    }) {
        anyhow::bail!(
            "--set {s}: without a case file, qflow bench generates its cloud from --points \
             and takes only [flow] and [solver] settings; give a case file for anything else"
        );
    }
    let case = crate::case::CaseFile::parse(
        "[cloud]\nfile = \"generated by --points\"\n",
        std::path::Path::new("(qflow bench's reference settings)"),
        sets,
    )?;
    let lc: crate::lskum_case::LskumCase = case.get()?;
    lc.validate()?;
    Ok(lc.settings())
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
