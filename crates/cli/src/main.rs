//! `qflow`: a parallel meshfree q-LSKUM solver for 2D inviscid compressible
//! flow.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use qflow::run::{run_case, RunOptions};
use qflow_mesh::generate::{Naca4, NacaOGrid, NacaQuadtree, Stretching};
use qflow_mesh::{check, legacy};
use qflow_par::backend::{BackendKind, BackendSpec};
use qflow_par::comm::ExchangeMode;

/// Large blocks (the dats) on transparent huge pages (`qflow::memory`).
#[global_allocator]
static ALLOCATOR: qflow::memory::HugePageAlloc = qflow::memory::HugePageAlloc;

#[derive(Parser)]
#[command(
    name = "qflow",
    version,
    about = "Compressible-flow solvers on one execution layer: meshfree q-LSKUM, \
             OP2's Airfoil finite volume (fv), the Lax-Wendroff oblique shock (lw) and \
             nodal DG (dg); serial, threads, MPI and OpenCL",
    long_about = None
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a case file to its stopping rule; writes history.csv, the
    /// method's outputs, a checkpoint and summary.toml in the output folder.
    Run {
        /// The case file (TOML).
        case: PathBuf,
        /// Override a key of the case: `section.key=value` (the value in
        /// TOML syntax, or plain text for a string); repeatable.
        #[arg(long = "set", value_name = "SECTION.KEY=VALUE")]
        sets: Vec<String>,
        /// Backend: serial, threads, opencl or cuda.
        #[arg(long, default_value = "threads")]
        backend: BackendKind,
        /// Threads of the threads backend (default: all cores).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Device of a device backend: index, P.D or part of its name (see
        /// `qflow devices`). Under mpirun, one rank per device: a list
        /// `--device 0,1` gives local rank r (its rank among the node's
        /// ranks) entry r mod the list's length; without it, local rank r
        /// takes device r mod the number of devices with fp64 (GPUs first).
        /// More ranks than devices share them (said once in the log).
        #[arg(long, verbatim_doc_comment)]
        device: Option<String>,
        /// Work-group size of a device backend, a power of two (default: 64;
        /// at most 256 on a CPU device such as PoCL).
        #[arg(long)]
        work_group: Option<usize>,
        /// Output folder (overrides the case's).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Iteration limit (overrides the case's), at least 1.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        max_iters: Option<u64>,
        /// Print only the summary.
        #[arg(short, long)]
        quiet: bool,
        /// Continue from the checkpoint in the output folder (the result is
        /// bit-identical to an uninterrupted run).
        #[arg(long)]
        resume: bool,
        /// Under mpirun: how to partition the cloud (metis, rcb, or
        /// file:PATH, a partition written by `qflow partition`).
        #[arg(long)]
        partitioner: Option<String>,
        /// Under mpirun: halo exchange (blocking, nonblocking, rma or rma-fence).
        #[arg(long)]
        exchange: Option<ExchangeMode>,
        /// Under mpirun: write the VTK field as one piece per rank plus
        /// field.pvtu (ParaView opens it as one data set) instead of
        /// gathering one field.vtu.
        #[arg(long)]
        vtk_pieces: bool,
    },
    /// Convert a cloud between the legacy text format (either variant) and
    /// qflow's native binary format (.qfc), losslessly; or a mesh (OP2's
    /// text, Gmsh, SU2, .qfm) to qflow's native .qfm or OP2's text.
    Convert {
        /// Input cloud or mesh (the format is detected).
        input: PathBuf,
        /// Output file.
        output: PathBuf,
        /// Output format: a cloud's native, legacy or quadtree (default:
        /// native for a .qfc name, else legacy); a mesh's qfm or op2
        /// (default: qfm for a .qfm name, else op2).
        #[arg(long)]
        to: Option<String>,
        /// A Gmsh or SU2 mesh's boundary marker that is a wall (repeat for
        /// several).
        #[arg(long)]
        wall: Vec<String>,
        /// A Gmsh or SU2 mesh's boundary marker that is far field (repeat
        /// for several).
        #[arg(long = "far-field")]
        far_field: Vec<String>,
    },
    /// List the devices of the device backends: CUDA's GPUs and the OpenCL
    /// platforms and devices (name, vendor, memory, compute units, fp64
    /// support).
    Devices,
    /// Partition a cloud for MPI ranks and report edge cut, points and ghosts
    /// per part and the load imbalance.
    Partition {
        /// The cloud file.
        cloud: PathBuf,
        /// Number of parts (at least 1).
        #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        parts: usize,
        /// metis (k-way on the stencil graph) or rcb (recursive coordinate
        /// bisection).
        #[arg(long, default_value = "metis")]
        method: String,
        /// Write the partition (one part number per point, one per line).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Measure RDP (seconds per iteration per point) per kernel.
    Bench {
        /// A case file (its cloud and settings); without one, a generated
        /// NACA 0012 cloud of about --points points at the reference settings.
        case: Option<PathBuf>,
        /// Override a key of the case: `section.key=value`; repeatable.
        /// Without a case file, keys of `[flow]` and `[solver]` only.
        #[arg(long = "set", value_name = "SECTION.KEY=VALUE")]
        sets: Vec<String>,
        /// Points of the generated cloud.
        #[arg(long, default_value_t = 9600)]
        points: usize,
        /// Backend: serial, threads, opencl or cuda.
        #[arg(long, default_value = "threads")]
        backend: BackendKind,
        /// Threads of the threads backend (default: all cores).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Device of a device backend: index or part of its name.
        #[arg(long)]
        device: Option<String>,
        /// Work-group size of a device backend, a power of two (default: 64;
        /// at most 256 on a CPU device such as PoCL).
        #[arg(long)]
        work_group: Option<usize>,
        /// Iterations per timed run.
        #[arg(long, default_value_t = 20)]
        iterations: u64,
        /// Untimed iterations before the timed runs.
        #[arg(long, default_value_t = 5)]
        warmup: u64,
        /// Timed runs (the median is reported).
        #[arg(long, default_value_t = 5)]
        repeats: usize,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Renumber the points first: none, rcm, hilbert or random.
        #[arg(long, default_value = "none")]
        renumber: qflow_mesh::renumber::Renumbering,
    },
    /// Check a cloud or mesh file and report its defects by point, cell or
    /// edge number.
    Check {
        /// The file: a cloud (native .qfc, or legacy text in either
        /// variant) or a quadrilateral mesh in OP2's new_grid.dat format
        /// (told apart by its first line: four counts).
        cloud: PathBuf,
    },
    /// Generate a NACA 4-digit O-grid (or, with `--layout quadtree`, a
    /// quadtree) point cloud, or OP2's NACA 0012
    /// quadrilateral C-mesh (`qflow generate op2-naca0012 --i 400 --j 600
    /// -o new_grid.dat`: 3 i j cells, byte for byte the file of OP2's
    /// naca0012.m; `-o mesh.qfm`: qflow's native binary format).
    Generate {
        /// The section, e.g. naca0012 or naca2412; or op2-naca0012 for
        /// OP2's mesh.
        section: String,
        /// op2-naca0012: cells along the section (each side of the cut too)
        /// [default: 400].
        #[arg(long)]
        i: Option<usize>,
        /// op2-naca0012: cells from the section to the far field [default:
        /// 600].
        #[arg(long)]
        j: Option<usize>,
        /// O-grid: points on the body [default: 160].
        #[arg(long)]
        wall_points: Option<usize>,
        /// O-grid: rings of points from the body to the far field, both
        /// included [default: 60].
        #[arg(long)]
        rings: Option<usize>,
        /// Far-field radius in chords, about (0.5, 0) (quadtree: half the
        /// square's side) [default: 10].
        #[arg(long)]
        far_field: Option<f64>,
        /// The cloud's layout: `o-grid` (rings of points) or `quadtree`
        /// (the centres of a quadtree's cells, refined towards the body).
        #[arg(long, default_value = "o-grid", value_parser = ["o-grid", "quadtree"])]
        layout: String,
        /// Quadtree: the largest cell size at the body (chords) [default:
        /// 0.01].
        #[arg(long)]
        wall_spacing: Option<f64>,
        /// Quadtree: cells of size h are split while closer than
        /// grading x h to the body, 3 to 32 [default: 4].
        #[arg(long)]
        grading: Option<f64>,
        /// O-grid: spacing of the first ring off the body (chords).
        #[arg(long, conflicts_with = "growth")]
        first_spacing: Option<f64>,
        /// O-grid: growth ratio of successive ring spacings.
        #[arg(long)]
        growth: Option<f64>,
        /// Output file: qflow's native binary format if it ends in `.qfc`,
        /// the legacy text format otherwise.
        #[arg(short, long)]
        output: PathBuf,
    },
}

/// `print!` that returns an error instead of panicking when standard
/// output cannot be written (a full disk, `>/dev/full`).
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($t)*).context("writing to standard output")?
    }};
}

/// `println!` that returns an error instead of panicking.
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($t)*).context("writing to standard output")?
    }};
}

fn main() -> ExitCode {
    qflow::memory::keep_large_blocks();
    // Messages for a person: no timestamp, colour only on a terminal (a
    // log file or a test got escape codes).
    tracing_subscriber::fmt()
        .with_writer(|| LossyStderr)
        .with_target(false)
        .without_time()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("QFLOW_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    restore_default_sigpipe();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if e.downcast_ref::<qflow::run::ReportedByRankZero>().is_none() {
                qflow::errln!("error: {e:#}");
            }
            ExitCode::FAILURE
        }
    }
}

/// Standard error for the log, dropping what cannot be written
/// (`2>/dev/full`): the log's writer reports a failed write on standard
/// error, which panics when that is what failed.
struct LossyStderr;

impl std::io::Write for LossyStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let _ = std::io::stderr().write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let _ = std::io::stderr().flush();
        Ok(())
    }
}

/// Output piped into a program that stops reading (`qflow bench --json |
/// head`) ends qflow quietly, as it does any Unix tool, instead of a panic
/// in `println!` (Rust ignores SIGPIPE by default).
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called once at start, before any thread is spawned; SIG_DFL is
    // a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

use qflow::run::MAX_THREADS_PER_CPU;

/// Refuses the options of another backend than `kind` (they would be
/// ignored), a work group that is no power of two, and a thread count the
/// machine cannot give.
fn check_backend_options(
    kind: BackendKind,
    threads: usize,
    device: Option<&str>,
    work_group: Option<usize>,
) -> Result<()> {
    if !kind.on_device() {
        if let Some(d) = device {
            anyhow::bail!(
                "--device {d}: only the opencl and cuda backends run on a device (this run: {})",
                kind.name()
            );
        }
        if let Some(w) = work_group {
            anyhow::bail!(
                "--work-group {w}: only the opencl and cuda backends have work groups (this run: {})",
                kind.name()
            );
        }
    }
    if let Some(w) = work_group.filter(|w| !w.is_power_of_two()) {
        anyhow::bail!("--work-group {w}: give a power of two (the reductions halve it)");
    }
    if kind != BackendKind::Threads && threads > 1 {
        anyhow::bail!(
            "--threads {threads}: only the threads backend runs more than one thread (this run: {})",
            kind.name()
        );
    }
    check_threads(kind, threads)?;
    // A backend this machine cannot run (no CUDA driver) says so now, in
    // one line, before any work.
    kind.probe().map_err(anyhow::Error::msg)
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

fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Run {
            case,
            sets,
            backend,
            threads,
            device,
            work_group,
            output,
            max_iters,
            quiet,
            resume,
            partitioner,
            exchange,
            vtk_pieces,
        } => {
            check_backend_options(backend, threads, device.as_deref(), work_group)?;
            let backend = BackendSpec {
                kind: backend,
                threads,
                device,
                work_group,
                ..BackendSpec::default()
            };
            let opts = RunOptions {
                backend,
                output,
                max_iters,
                quiet,
                resume,
                partitioner,
                exchange,
                vtk_pieces,
                sets,
            };
            let finished = run_case(&case, &opts)?;
            if let Some(s) = &finished.summary {
                out!("{}", s.render());
            }
            Ok(finished.exit_code())
        }
        Command::Convert {
            input,
            output,
            to,
            wall,
            far_field,
        } => {
            use qflow_mesh::native::{format_for_path, read_any, write_any, Format};
            if let Some(bytes) = file_start(&input) {
                if qflow::mesh_cmd::is_mesh(&input, &bytes) {
                    clear_stale_temporaries(&output);
                    let line = qflow::mesh_cmd::convert_mesh(
                        &input,
                        &output,
                        to.as_deref(),
                        &wall,
                        &far_field,
                    )?;
                    outln!("{line}");
                    return Ok(0);
                }
            }
            if let Some(m) = wall.iter().chain(&far_field).next() {
                anyhow::bail!(
                    "--wall/--far-field {m}: options of a Gmsh or SU2 mesh, and {} is a point cloud",
                    input.display()
                );
            }
            let format = match to.as_deref() {
                None => format_for_path(&output),
                Some("native") => Format::Native,
                Some("legacy") => Format::Legacy,
                Some("quadtree") => Format::LegacyQuadtree,
                Some(o) => anyhow::bail!("--to {o}: expected native, legacy or quadtree"),
            };
            let t = std::time::Instant::now();
            let cloud = read_any(&input)?;
            let read = t.elapsed().as_secs_f64();
            clear_stale_temporaries(&output);
            write_any(&cloud, &output, format)?;
            outln!(
                "{} -> {} ({:?}): {} points, read in {:.3} s, written in {:.3} s",
                input.display(),
                output.display(),
                format,
                cloud.len(),
                read,
                t.elapsed().as_secs_f64() - read
            );
            Ok(0)
        }
        Command::Devices => {
            out!("{}", qflow::devices::report()?);
            Ok(0)
        }
        Command::Partition {
            cloud,
            parts,
            method,
            output,
        } => {
            qflow::mesh_cmd::refuse_mesh(&cloud, "partition")?;
            out!(
                "{}",
                qflow::partition_cmd::run(&cloud, parts, &method, output.as_deref())?
            );
            Ok(0)
        }
        Command::Bench {
            case,
            sets,
            points,
            backend,
            threads,
            device,
            work_group,
            iterations,
            warmup,
            repeats,
            json,
            renumber,
        } => {
            check_backend_options(backend, threads, device.as_deref(), work_group)?;
            let (cloud, name, settings) = match case {
                Some(path) => {
                    let c = qflow::case::CaseFile::load(&path, &sets)?;
                    if c.method != qflow::case::MethodName::Lskum {
                        anyhow::bail!(
                            "case file {}: qflow bench times q-LSKUM cases; method = \"{}\" is timed by \
                             `qflow run` (its summary has seconds per step per element for every loop) \
                             and by {}",
                            path.display(),
                            c.method.name(),
                            match c.method {
                                qflow::case::MethodName::Fv => "cargo bench -p qflow-fv --bench bandwidth",
                                qflow::case::MethodName::Dg => "its summary's pid",
                                _ => "scripts/bench-lw.py",
                            }
                        );
                    }
                    let lc: qflow::lskum_case::LskumCase = c.get()?;
                    lc.validate()?;
                    let (cloud, name) = qflow::lskum_case::load_cloud(&lc, &c.dir)?;
                    (cloud, name, lc.settings())
                }
                None => {
                    let settings = qflow::bench::default_settings(&sets)?;
                    let g = qflow::bench::naca0012_of_size(points)?;
                    let name = format!("generated naca0012 {} x {}", g.wall_points, g.rings);
                    (g.generate()?, name, settings)
                }
            };
            let o = qflow::bench::BenchOptions {
                backend: BackendSpec {
                    kind: backend,
                    threads,
                    device,
                    work_group,
                    ..BackendSpec::default()
                },
                iterations,
                warmup,
                repeats,
                renumber,
            };
            let report = qflow::bench::bench(&cloud, &name, &settings, &o)?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                out!("{}", report.render());
            }
            Ok(0)
        }
        Command::Check { cloud } => {
            let bytes = std::fs::read(&cloud)
                .with_context(|| format!("cannot read cloud file {}", cloud.display()))?;
            if qflow::mesh_cmd::is_mesh(&cloud, &bytes) {
                let (report, ok) = qflow::mesh_cmd::check_mesh(&bytes, &cloud)?;
                out!("{report}");
                if !ok {
                    anyhow::bail!("{} has errors", cloud.display());
                }
                return Ok(0);
            }
            // A native file is whole or refused (checksum, bounds); a legacy
            // one is read leniently so that every defect can be reported.
            let (c, problems) = if qflow_mesh::native::is_native(&bytes) {
                (qflow_mesh::native::from_bytes(&bytes, &cloud)?, Vec::new())
            } else {
                legacy::parse_lenient(&bytes, &cloud, None)?
            };
            let report = check::check(&c, &problems);
            for f in &report.findings {
                outln!("{f}");
            }
            let (e, w) = report.counts();
            let (nw, ni, no) = c.kind_counts();
            outln!(
                "{}: {} points ({nw} wall, {ni} interior, {no} outer), {} neighbours; {e} error(s), {w} warning(s)",
                cloud.display(),
                c.len(),
                c.nbr.len()
            );
            if e > 0 {
                anyhow::bail!("{} has {e} error(s)", cloud.display());
            }
            Ok(0)
        }
        Command::Generate {
            section,
            i,
            j,
            wall_points,
            rings,
            far_field,
            layout,
            wall_spacing,
            grading,
            first_spacing,
            growth,
            output,
        } => {
            if section == "op2-naca0012" {
                // The clouds' options are mistakes here, not something to
                // ignore.
                for (flag, given) in [
                    ("--wall-points", wall_points.is_some()),
                    ("--rings", rings.is_some()),
                    ("--far-field", far_field.is_some()),
                    ("--layout quadtree", layout == "quadtree"),
                    ("--wall-spacing", wall_spacing.is_some()),
                    ("--grading", grading.is_some()),
                    ("--first-spacing", first_spacing.is_some()),
                    ("--growth", growth.is_some()),
                ] {
                    if given {
                        anyhow::bail!(
                            "{flag}: an option of the point clouds; op2-naca0012 takes --i, --j and -o"
                        );
                    }
                }
                let (i, j) = (i.unwrap_or(400), j.unwrap_or(600));
                let t = std::time::Instant::now();
                let mesh = qflow_mesh::poly::naca0012::Op2Naca0012 { i, j }.generate()?;
                let secs = t.elapsed().as_secs_f64();
                clear_stale_temporaries(&output);
                qflow_mesh::poly::write_any(&mesh, &output)?;
                outln!(
                    "{}: OP2 NACA 0012 mesh, {} nodes, {} cells, {} edges, {} boundary edges in {secs:.3} s",
                    output.display(),
                    mesh.nodes(),
                    mesh.cells(),
                    mesh.edges(),
                    mesh.bedges()
                );
                return Ok(0);
            }
            if let Some(flag) = [("--i", i), ("--j", j)]
                .iter()
                .find_map(|(f, v)| v.is_some().then_some(f))
            {
                anyhow::bail!("{flag}: an option of op2-naca0012 (OP2's quadrilateral mesh), not of {section}'s point cloud");
            }
            let section: Naca4 = section.parse()?;
            let quadtree = layout == "quadtree";
            // An option of the other layout is a mistake, not something to
            // ignore.
            let (foreign, other) = if quadtree {
                let given = [
                    ("--wall-points", wall_points.is_some()),
                    ("--rings", rings.is_some()),
                    ("--first-spacing", first_spacing.is_some()),
                    ("--growth", growth.is_some()),
                ];
                (given.into_iter().find(|g| g.1), "an O-grid")
            } else {
                let given = [
                    ("--wall-spacing", wall_spacing.is_some()),
                    ("--grading", grading.is_some()),
                ];
                (given.into_iter().find(|g| g.1), "--layout quadtree")
            };
            if let Some((flag, _)) = foreign {
                anyhow::bail!("{flag} belongs to {other}, not to --layout {layout}");
            }
            let far_field = far_field.unwrap_or(10.0);
            let t = std::time::Instant::now();
            let cloud = if quadtree {
                NacaQuadtree {
                    section,
                    far_field,
                    wall_spacing: wall_spacing.unwrap_or(0.01),
                    grading: grading.unwrap_or(4.0),
                }
                .generate()?
            } else {
                let stretching = first_spacing
                    .map(Stretching::FirstSpacing)
                    .or(growth.map(Stretching::GrowthRatio));
                NacaOGrid {
                    section,
                    wall_points: wall_points.unwrap_or(160),
                    rings: rings.unwrap_or(60),
                    far_field,
                    stretching,
                }
                .generate()?
            };
            let secs = t.elapsed().as_secs_f64();
            // A quadtree cloud in the legacy text format: the variant that
            // keeps its depths and normals.
            let format = match qflow_mesh::native::format_for_path(&output) {
                qflow_mesh::native::Format::Legacy if cloud.quadtree.is_some() => {
                    qflow_mesh::native::Format::LegacyQuadtree
                }
                f => f,
            };
            clear_stale_temporaries(&output);
            qflow_mesh::native::write_any(&cloud, &output, format)?;
            outln!(
                "{}: {} points in {:.3} s ({:.3e} points per second)",
                output.display(),
                cloud.len(),
                secs,
                cloud.len() as f64 / secs.max(1e-9)
            );
            Ok(0)
        }
    }
}

/// Removes what killed commands left beside `output` (a Ctrl-C while
/// `generate` wrote a 48 MB mesh left its `.NAME.tmp-PID`), or beside the
/// file it links to (where the temporary of a linked output is written).
fn clear_stale_temporaries(output: &std::path::Path) {
    let output = qflow_mesh::fsutil::resolve_links(output).unwrap_or_else(|_| output.to_path_buf());
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    qflow::case::remove_stale_temporaries(dir);
}

/// The first 64 KiB of a file (its format shows there); `None` if it cannot
/// be read (the reader then names the problem).
fn file_start(path: &std::path::Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(1 << 16)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}
