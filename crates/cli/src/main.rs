//! `qflow`: compressible-flow methods on one execution layer. The commands
//! and their options; each command's work is in the library (`qflow::*`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use qflow::run::run_case;

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
    Run(qflow::args::RunArgs),
    /// Convert a cloud between the legacy text format (either variant) and
    /// qflow's native binary format (.qfc), losslessly; or a mesh (OP2's
    /// text, Gmsh, SU2, .qfm) to qflow's native .qfm or OP2's text.
    Convert(qflow::convert_cmd::ConvertArgs),
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
    Bench(qflow::bench::BenchArgs),
    /// Check a cloud or mesh file and report its defects by point, cell or
    /// edge number.
    Check {
        /// The file: a cloud (native .qfc, or legacy text in either
        /// variant) or a mesh (OP2's new_grid.dat text, .qfm, Gmsh, SU2),
        /// told by its magic bytes, then its extension, then its text (the
        /// report's first line says which).
        cloud: PathBuf,
    },
    /// Generate a NACA 4-digit O-grid (or, with `--layout quadtree`, a
    /// quadtree) point cloud, or OP2's NACA 0012
    /// quadrilateral C-mesh (`qflow generate op2-naca0012 --i 400 --j 600
    /// -o new_grid.dat`: 3 i j cells, byte for byte the file of OP2's
    /// naca0012.m; `-o mesh.qfm`: qflow's native binary format).
    Generate(qflow::generate_cmd::GenerateArgs),
}

/// `print!` that returns an error instead of panicking when standard
/// output cannot be written (a full disk, `>/dev/full`).
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($t)*).context("writing to standard output")?
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
    set_signal_dispositions();
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
///
/// A write past the file-size limit (`ulimit -f`) fails with EFBIG instead
/// of killing the process with SIGXFSZ: the error names the file, as a
/// full disk's does, and the run removes its temporary and its lock (the
/// signal left both behind, exit 153).
fn set_signal_dispositions() {
    #[cfg(unix)]
    // SAFETY: called once at start, before any thread is spawned; SIG_DFL
    // and SIG_IGN are valid dispositions for SIGPIPE and SIGXFSZ.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Runs a command; its exit status.
fn run(cli: Cli) -> Result<u8> {
    let mut stdout = std::io::stdout();
    match cli.command {
        Command::Run(a) => {
            let case = a.case.clone();
            let finished = run_case(&case, &a.options()?)?;
            if let Some(s) = &finished.summary {
                out!("{}", s.render());
            }
            Ok(finished.exit_code())
        }
        Command::Convert(a) => qflow::convert_cmd::convert(&a, &mut stdout).map(|()| 0),
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
        Command::Bench(a) => qflow::bench::run_cmd(a, &mut stdout).map(|()| 0),
        Command::Check { cloud } => qflow::check_cmd::check(&cloud, &mut stdout).map(|()| 0),
        Command::Generate(a) => qflow::generate_cmd::generate(&a, &mut stdout).map(|()| 0),
    }
}
