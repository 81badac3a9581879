//! `qflow run` under mpirun (feature `mpi`).
//!
//! Rank 0 reads the case and the cloud (either format, or a generate spec),
//! checks the cloud, chooses the locality order, partitions (METIS, RCB or
//! a partition file) and, for `--resume`, reads the checkpoint; then it
//! sends every rank its part (its points in the cloud's numbering, their
//! geometry and starting state, its ghost lists) or, if anything failed so
//! far, the error. Rank 0 keeps of the whole cloud only what the outputs
//! need (no stencils). Every rank then runs the solver on its part with the
//! distributed backend (`qflow_exec::distributed`), MPI ranks x threads,
//! or (`--backend opencl`, with the feature `opencl`) one rank per OpenCL
//! device, ghosts exchanged through the host.
//!
//! Only rank 0 prints and writes history, checkpoints (gathered, in the
//! cloud's numbering, so a run may resume on another rank count or on one
//! process) and the outputs; with `--vtk-pieces` every rank writes its own
//! piece of the VTK field and rank 0 the `field.pvtu` that joins them. A
//! failure anywhere ends every rank with one message from rank 0 naming the
//! rank; a non-physical state stops every rank at the same iteration.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use mpi::collective::CommunicatorCollectives;
use mpi::topology::Communicator;
use serde::{Deserialize, Serialize};

use qflow_mesh::partition::{Method, Partition, PartitionStats};
use qflow_mesh::{Cloud, PointKind};
use qflow_exec::distributed::{
    agree, gather_owned, install_panic_abort, receive_bytes, scatter, send_bytes,
    DistributedBackend, ExchangeMode, ScatterInput, World,
};
use qflow_exec::{Backend, BackendKind, IterationReport, Par, Solver, SolverError, StopReason};
use qflow_io::checkpoint::{self, Checkpoint};
use qflow_io::history::{self, HistoryRow};
use qflow_lskum::Vec4;

use crate::case::Case;
use crate::runner::{
    choose_numbering, kernel_rdp, load_cloud, output_dir, prepare_output_dir, read_checkpoint_for,
    scheme_label, stop_label, write_outputs, Progress, RunOptions, Summary, CHECKPOINT,
};

/// Whether this process was started by an MPI launcher (mpirun, mpiexec,
/// srun with PMI): the launchers set these variables in every rank.
pub fn launched_under_mpi() -> bool {
    [
        "OMPI_COMM_WORLD_SIZE",
        "PMIX_RANK",
        "PMI_RANK",
        "PMI_SIZE",
        "MPI_LOCALNRANKS",
    ]
    .iter()
    .any(|v| std::env::var_os(v).is_some())
}

/// Ranks on this node, as the launcher says (1 if it does not).
fn local_ranks() -> usize {
    ["OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
        .unwrap_or(1)
}

/// What rank 0 tells every rank about the run.
#[derive(Serialize, Deserialize)]
struct RunInfo {
    case_text: String,
    out_dir: PathBuf,
    max_iters: u64,
    first_iteration: u64,
    res_ref_bits: u64,
    mode: String,
    partitioner: String,
}

/// What only rank 0 keeps.
struct Root {
    case_path: PathBuf,
    /// The cloud without its stencils (what the outputs read).
    cloud: Cloud,
    fingerprint: u64,
    rows: Vec<HistoryRow>,
    wall_offset: f64,
    stats: PartitionStats,
    numbering: &'static str,
    setup_seconds: f64,
}

/// Runs a case under mpirun. Rank 0 prints the summary, or the error; the
/// other ranks print nothing. On an error every rank exits with a failure
/// status (after rank 0 has printed it) instead of returning.
pub fn run_case(case_path: &Path, opts: &RunOptions) -> Result<()> {
    let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Serialized)
        .ok_or_else(|| anyhow!("MPI was already initialised"))?;
    let world = universe.world();
    let rank = world.rank();
    install_panic_abort(rank);
    let result = run(&world, threading, case_path, opts);
    // Rank 0 reports, before any rank ends: the launcher may stop the job
    // as soon as one rank exits with a failure.
    if rank == 0 {
        if let Err(e) = &result {
            eprintln!("error: {e:#}");
        }
    }
    world.barrier();
    drop(world);
    drop(universe);
    match result {
        Ok(()) => Ok(()),
        Err(_) => std::process::exit(1),
    }
}

/// What rank 0's setup gives: its books, and what to scatter.
struct RootSetup {
    root: Root,
    cloud: Cloud,
    partition: Partition,
    order: Vec<u32>,
    state: Option<Vec<Vec4>>,
    info: RunInfo,
}

/// Rank 0's half of the setup: everything that can fail on user input.
fn setup_root(
    world: &World,
    case_path: &Path,
    opts: &RunOptions,
    t0: Instant,
) -> Result<RootSetup> {
    let ranks = world.size() as usize;
    let case_text = std::fs::read_to_string(case_path)
        .with_context(|| format!("cannot read case file {}", case_path.display()))?;
    let case =
        Case::parse(&case_text).with_context(|| format!("case file {}", case_path.display()))?;
    let mode: ExchangeMode = opts
        .exchange
        .as_deref()
        .unwrap_or("nonblocking")
        .parse()
        .map_err(|e: String| anyhow!("--exchange: {e}"))?;
    if !opts.backend.kind.available() {
        bail!(
            "this build has no OpenCL backend: build with `--features mpi,opencl` \
             (scripts/install-deps.sh installs an OpenCL runtime)"
        );
    }
    let out_dir = output_dir(case_path, &case, opts);
    prepare_output_dir(&out_dir)?;
    let case_dir = case_path.parent().unwrap_or(Path::new("."));
    let (cloud, _) = load_cloud(&case, case_dir)?;
    if ranks > cloud.len() {
        bail!(
            "{ranks} ranks for a cloud of {} points: every rank needs at least one point",
            cloud.len()
        );
    }
    let settings = case.settings();
    let (order, numbering) = choose_numbering(&cloud, case.solver.renumber);
    let choice = opts.partitioner.as_deref().unwrap_or("metis");
    let partition = if let Some(path) = choice.strip_prefix("file:") {
        Partition::read(Path::new(path), cloud.len(), Some(ranks))?
    } else {
        let method: Method = choice.parse().map_err(|e: String| {
            anyhow!("--partitioner: {e}, or file:PATH (a partition written by `qflow partition`)")
        })?;
        Partition::new(&cloud, ranks, method)?
    };
    let stats = partition.stats(&cloud);
    let fingerprint = checkpoint::fingerprint(&cloud);
    let (mut rows, mut state, mut first, mut res_ref, mut wall_offset) =
        (Vec::new(), None, 0, 0.0, 0.0);
    if opts.resume {
        let cp = read_checkpoint_for(&out_dir, fingerprint, cloud.len(), &settings)?;
        first = cp.iteration;
        res_ref = cp.reference_residue;
        wall_offset = cp.history.last().map_or(0.0, |r| r.wall_seconds);
        rows = cp.history;
        state = Some(cp.state);
    }
    let info = RunInfo {
        case_text,
        out_dir,
        max_iters: opts.max_iters.unwrap_or(case.stop.max_iters),
        first_iteration: first,
        res_ref_bits: f64::to_bits(res_ref),
        mode: mode.name().into(),
        partitioner: choice.to_string(),
    };
    let root = Root {
        case_path: case_path.to_path_buf(),
        cloud: Cloud::default(),
        fingerprint,
        rows,
        wall_offset,
        stats,
        numbering,
        setup_seconds: t0.elapsed().as_secs_f64(),
    };
    Ok(RootSetup {
        root,
        cloud,
        partition,
        order,
        state,
        info,
    })
}

/// Per-rank numbers for the report.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct RankReport {
    rank: usize,
    points: u64,
    interior: u64,
    ghosts: u64,
    /// Bytes of geometry, state, scratch and exchange buffers.
    bytes_held: u64,
    /// Peak resident memory of the process (VmHWM; rank 0's includes the
    /// whole cloud it read and partitioned).
    peak_rss_bytes: u64,
    /// Resident memory of the process at the end (VmRSS).
    rss_bytes: u64,
    /// Seconds per iteration blocked waiting for ghosts.
    wait_seconds_per_iteration: f64,
    /// Seconds per iteration packing, posting, polling and unpacking.
    exchange_overhead_seconds_per_iteration: f64,
    /// Seconds per iteration in the reduction (waiting for the slowest rank
    /// included).
    reduce_seconds_per_iteration: f64,
    /// Bytes sent per iteration.
    bytes_sent_per_iteration: f64,
    /// The rank's OpenCL device (`--backend opencl`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    device: Option<String>,
}

/// The MPI part of the summary.
#[derive(Clone, Debug, Serialize)]
struct MpiReport {
    ranks: usize,
    threads_per_rank: usize,
    /// What computes on each rank: `N threads`, or `an OpenCL device`.
    per_rank: String,
    exchange: String,
    partitioner: String,
    edge_cut: usize,
    ghosts: usize,
    imbalance: f64,
    setup_seconds: f64,
    /// Median wall-clock seconds of an iteration (rank 0) over points.
    rdp_median: f64,
    rank: Vec<RankReport>,
}

impl MpiReport {
    fn render(&self) -> String {
        let mut s = format!(
            "mpi         {} ranks x {}, {} exchange, {} partition \
             (edge cut {}, {} ghosts, imbalance {:.3}), setup {:.2} s\n\
             RDP median  {:.4e} s per iteration per point\n\
             rank     points     ghosts   held MB    RSS MB   peak MB  wait ms/it  exch ms/it  reduce ms/it    KB/it\n",
            self.ranks,
            self.per_rank,
            self.exchange,
            self.partitioner,
            self.edge_cut,
            self.ghosts,
            self.imbalance,
            self.setup_seconds,
            self.rdp_median
        );
        for r in &self.rank {
            s += &format!(
                "{:>4} {:>10} {:>10} {:>9.1} {:>9.1} {:>9.1} {:>11.3} {:>11.3} {:>13.3} {:>8.1}\n",
                r.rank,
                r.points,
                r.ghosts,
                r.bytes_held as f64 / 1e6,
                r.rss_bytes as f64 / 1e6,
                r.peak_rss_bytes as f64 / 1e6,
                1e3 * r.wait_seconds_per_iteration,
                1e3 * r.exchange_overhead_seconds_per_iteration,
                1e3 * r.reduce_seconds_per_iteration,
                r.bytes_sent_per_iteration / 1e3
            );
        }
        for r in &self.rank {
            if let Some(d) = &r.device {
                s += &format!("rank {} on OpenCL device {d}\n", r.rank);
            }
        }
        s
    }
}

/// A memory figure of this process in bytes from `/proc/self/status`
/// (`VmHWM`: peak resident, `VmRSS`: resident now), 0 if unknown.
fn proc_memory(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

const TAG_REPORT: i32 = 21;

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// How the kernels of a rank of the serial or threads backend run:
/// `--threads` per rank, or the node's cores shared among its ranks
/// (collective: every rank agrees, or every rank gets the error).
fn cpu_par(world: &World, threading: mpi::Threading, opts: &RunOptions) -> Result<(Par, usize)> {
    let threads = match opts.backend.kind {
        BackendKind::Serial => 1,
        _ if opts.backend.threads > 0 => opts.backend.threads,
        _ => {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            (cores / local_ranks().max(1)).max(1)
        }
    };
    let par = if opts.backend.kind == BackendKind::Serial || threads == 1 {
        // One thread per rank: the kernels run on the rank's own thread.
        Ok(Par::Seq)
    } else if threads > 1 && threading < mpi::Threading::Serialized {
        Err(format!(
            "this MPI library gives thread level {threading:?}; {threads} threads per rank need \
             MPI_THREAD_SERIALIZED (use --threads 1)"
        ))
    } else {
        Par::rayon(threads).map_err(|e| format!("cannot start {threads} threads: {e}"))
    };
    Ok((agree(world, par).map_err(|e| anyhow!(e))?, threads))
}

/// The distributed backend of a rank on its OpenCL device: local rank r of
/// the node's ranks (an MPI shared-memory split of the world) takes the
/// device `--device` gives it (see
/// `qflow_exec::opencl::select_rank_device`: a list, entry r mod its
/// length; by default device r mod the count of suitable devices).
/// Collective: if any rank cannot start on its device (no double
/// precision, not enough memory, no runtime), every rank stops and rank 0
/// reports each failed rank's reason once. Rank 0 says in one line when a
/// node has more ranks than devices (they share). Returns the backend and
/// the label of the rank's device.
#[cfg(feature = "opencl")]
fn opencl_backend(
    world: &World,
    part: qflow_exec::distributed::LocalPart,
    params: qflow_lskum::Params,
    mode: ExchangeMode,
    opts: &RunOptions,
) -> Result<(
    DistributedBackend<qflow_exec::opencl::OpenClBackend>,
    String,
)> {
    use mpi::collective::SystemOperation;
    use qflow_exec::opencl::{devices, select_rank_device, OpenClBackend, OpenClOptions};

    let node = world.split_shared(world.rank());
    let (local_rank, local_size) = (node.rank() as usize, node.size() as usize);
    drop(node);
    let mut note = None;
    let mut label = String::new();
    let backend = DistributedBackend::try_with_local(world, part, params, mode, |geom, params| {
        let list = devices()?;
        let d = select_rank_device(
            &list,
            opts.backend.device.as_deref(),
            local_rank,
            local_size,
        )?;
        note = d.shared;
        label = list[d.index].label();
        let mut o = OpenClOptions::from_spec(&opts.backend)?;
        o.device = Some(d.spec);
        OpenClBackend::new(geom, params, &o)
    })
    .map_err(|e| anyhow!(e))?;
    let mine = i32::from(note.is_some());
    let mut any = 0i32;
    world.all_reduce_into(&mine, &mut any, SystemOperation::max());
    if world.rank() == 0 && any > 0 && !opts.quiet {
        eprintln!(
            "qflow: {}",
            note.unwrap_or_else(|| "some nodes have more ranks than OpenCL devices: their \
                                    ranks share devices"
                .into())
        );
    }
    Ok((backend, label))
}

fn run(
    world: &World,
    threading: mpi::Threading,
    case_path: &Path,
    opts: &RunOptions,
) -> Result<()> {
    let t0 = Instant::now();
    let rank = world.rank();
    let ranks = world.size() as usize;
    let is_root = rank == 0;

    // Setup: rank 0 reads and partitions, everyone gets a part or the error.
    let mut root = None;
    let scattered = if is_root {
        match setup_root(world, case_path, opts, t0) {
            Ok(RootSetup {
                root: mut r,
                mut cloud,
                partition,
                order,
                state,
                info,
            }) => {
                let info_bytes = serde_json::to_vec(&info).expect("run info encodes");
                let settings = Case::parse(&info.case_text)
                    .expect("checked on rank 0")
                    .settings();
                let out = scatter(
                    world,
                    Ok(ScatterInput {
                        cloud: &cloud,
                        partition: &partition,
                        order: Some(&order),
                        force_normals: settings.force_normals,
                        state: state.as_deref(),
                        fill: settings.free_stream().primitive(),
                        info: &info_bytes,
                    }),
                );
                drop(state);
                drop(partition);
                drop(order);
                // The outputs need coordinates, kinds and boundary links,
                // not the stencils.
                let n = cloud.len();
                cloud.nbr = Vec::new();
                cloud.nbr_start = vec![0; n + 1];
                cloud.quadtree = None;
                r.cloud = cloud;
                root = Some(r);
                out
            }
            Err(e) => scatter(world, Err(format!("{e:#}"))),
        }
    } else {
        scatter(world, Err(String::new()))
    };
    let (info, part) = match scattered {
        Ok(x) => x,
        Err(e) if is_root => return Err(anyhow!(e)),
        Err(_) => bail!("setup failed on rank 0"),
    };
    let info: RunInfo = serde_json::from_slice(&info).context("run info from rank 0")?;
    let case = Case::parse(&info.case_text)?;
    let settings = case.settings();
    let mode: ExchangeMode = info.mode.parse().map_err(|e: String| anyhow!(e))?;

    // Every rank: its backend and solver.
    let (global, owned, interior, global_len) = (
        part.global.clone(),
        part.n_owned,
        part.n_interior,
        part.global_len,
    );
    let ghosts = part.ghosts();
    let start_state = (info.first_iteration > 0).then(|| part.state.clone());
    let part_bytes = part.bytes();
    let params: qflow_lskum::Params = (&settings).into();
    let (backend, shared, geom, threads, device): (Box<dyn Backend>, _, _, usize, _) =
        match opts.backend.kind {
            #[cfg(feature = "opencl")]
            BackendKind::OpenCl => {
                let (b, device) = opencl_backend(world, part, params, mode, opts)?;
                let (shared, geom) = (b.shared(), b.geometry().clone());
                (Box::new(b), shared, geom, 1, Some(device))
            }
            _ => {
                let (par, threads) = cpu_par(world, threading, opts)?;
                let b = DistributedBackend::new(part, params, par, mode);
                let (shared, geom) = (b.shared(), b.geometry().clone());
                (Box::new(b), shared, geom, threads, None)
            }
        };
    let mut solver = Solver::new(backend, geom.clone(), settings.clone());
    if let Some(s) = &start_state {
        solver.resume(info.first_iteration, f64::from_bits(info.res_ref_bits), s);
    }
    drop(start_state);
    {
        let s = shared.clone();
        // Under mpirun a signal may reach some ranks only; the request
        // travels with the next reduction, so every rank stops together.
        let _ = ctrlc::set_handler(move || s.stop_requested.store(true, Ordering::SeqCst));
    }
    let backend_name = solver.backend_name();
    if let Some(r) = &root {
        if !opts.quiet {
            eprintln!(
                "qflow: {} points (numbering {}), {}, {} partition, {} with {} inner \
                 iterations, M {} at {} deg, iterations {}..{}",
                global_len,
                r.numbering,
                backend_name,
                info.partitioner,
                settings.scheme.name(),
                settings.inner_iterations,
                settings.mach,
                settings.aoa,
                solver.iteration() + 1,
                info.max_iters
            );
        }
    }

    // The iterations.
    let out_dir = info.out_dir.clone();
    let every = case.output.checkpoint_every;
    let start = Instant::now();
    let mut progress =
        is_root.then(|| Progress::new(opts.quiet, solver.iteration(), info.max_iters));
    let mut iteration_seconds = Vec::new();
    let outcome: Result<StopReason, SolverError> = loop {
        if solver.iteration() >= info.max_iters {
            break Ok(StopReason::MaxIterations);
        }
        let r: IterationReport = match solver.step() {
            Ok(r) => r,
            Err(e) => break Err(e),
        };
        iteration_seconds.push(r.seconds);
        if let (Some(root), Some(p)) = (root.as_mut(), progress.as_mut()) {
            let elapsed = root.wall_offset + start.elapsed().as_secs_f64();
            root.rows.push(HistoryRow {
                report: r,
                wall_seconds: elapsed,
            });
            p.update(&r, elapsed);
        }
        if shared.stop_agreed.load(Ordering::SeqCst) {
            break Ok(StopReason::Interrupted);
        }
        if every > 0 && r.iteration % every == 0 && r.iteration < info.max_iters {
            checkpoint(
                world,
                &mut solver,
                root.as_ref(),
                &global,
                owned,
                global_len,
                &out_dir,
                &settings,
            )?;
        }
        if let Some(drop) = case.stop.residue_drop {
            if r.iteration > 2 && r.log_residue <= -drop {
                break Ok(StopReason::Converged);
            }
        }
    };
    if let Some(p) = &progress {
        p.finish();
    }
    let wall = start.elapsed().as_secs_f64();

    // Outputs of the last good state.
    checkpoint(
        world,
        &mut solver,
        root.as_ref(),
        &global,
        owned,
        global_len,
        &out_dir,
        &settings,
    )?;
    let local = solver.state();
    let full = gather_owned(world, &local, &global, owned, global_len);
    let written = match (&root, &full) {
        (Some(r), Some(prim)) => write_outputs(
            &out_dir,
            &r.cloud,
            prim,
            &r.rows,
            &case,
            &settings,
            case.output.vtk && !opts.vtk_pieces,
        )
        .map_err(|e| format!("{e:#}")),
        _ => Ok(()),
    };
    drop(full);
    agree(world, written).map_err(|e| anyhow!(e))?;
    if case.output.vtk && opts.vtk_pieces {
        write_pieces(world, &out_dir, &geom, &local, &global, owned, &settings)?;
    }
    drop(local);
    let coefficients = solver.coefficients();

    // Per-rank numbers to rank 0.
    let (times, timed) = solver.kernel_times();
    let stats = *shared.stats.lock().expect("stats");
    let it = timed.max(1) as f64;
    let x = stats.exchange;
    let mine = RankReport {
        rank: rank as usize,
        points: owned as u64,
        interior: interior as u64,
        ghosts: ghosts as u64,
        bytes_held: (solver.state_bytes() + part_bytes) as u64,
        peak_rss_bytes: proc_memory("VmHWM:"),
        rss_bytes: proc_memory("VmRSS:"),
        wait_seconds_per_iteration: x.wait.as_secs_f64() / it,
        exchange_overhead_seconds_per_iteration: (x.start + x.unpack + x.progress).as_secs_f64()
            / it,
        reduce_seconds_per_iteration: stats.reduce.as_secs_f64() / it,
        bytes_sent_per_iteration: x.bytes_sent as f64 / it,
        device,
    };
    let encoded = serde_json::to_vec(&mine).expect("encodes");
    let per_rank = if is_root {
        let mut v = vec![mine];
        for r in 1..ranks as i32 {
            let b = receive_bytes(world, r, TAG_REPORT);
            v.push(serde_json::from_slice(&b).context("a rank's report")?);
        }
        Some(v)
    } else {
        send_bytes(world, 0, TAG_REPORT, &encoded);
        None
    };

    let Some(root) = root else {
        return match outcome {
            Ok(_) => Ok(()),
            Err(_) => bail!("the run stopped (non-physical state)"),
        };
    };
    let last = root.rows.last().map(|r| r.report);
    let (rdp, kernels) = kernel_rdp(&times, timed, global_len);
    let summary = Summary {
        case: root.case_path.display().to_string(),
        points: global_len,
        backend: backend_name,
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
    let skip = iteration_seconds.len().min(2);
    let report = MpiReport {
        ranks,
        threads_per_rank: threads,
        per_rank: match opts.backend.kind {
            BackendKind::OpenCl => "an OpenCL device".into(),
            _ if threads == 1 => "1 thread".into(),
            _ => format!("{threads} threads"),
        },
        exchange: mode.name().into(),
        partitioner: info.partitioner.clone(),
        edge_cut: root.stats.edge_cut,
        ghosts: root.stats.total_ghosts(),
        imbalance: root.stats.imbalance(),
        setup_seconds: root.setup_seconds,
        rdp_median: median(iteration_seconds[skip..].to_vec()) / global_len as f64,
        rank: per_rank.unwrap_or_default(),
    };
    #[derive(Serialize)]
    struct MpiSection<'a> {
        mpi: &'a MpiReport,
    }
    let text = toml::to_string(&summary).context("formatting the summary")?
        + "\n"
        + &toml::to_string(&MpiSection { mpi: &report }).context("formatting the summary")?;
    qflow_io::write_atomically(&out_dir.join("summary.toml"), |w| {
        std::io::Write::write_all(w, text.as_bytes())
    })?;
    match outcome {
        Ok(_) => {
            print!("{}{}", summary.render(), report.render());
            Ok(())
        }
        Err(e) => {
            let owner = match *shared.bad_point.lock().expect("bad point") {
                Some(b) => format!(" on rank {} of {ranks}, which owns the point", b.rank),
                None => String::new(),
            };
            Err(anyhow::Error::new(e).context(format!(
                "the run stopped{owner}; outputs and checkpoint of the last good state are in {}",
                out_dir.display()
            )))
        }
    }
}

/// Gathers the state and writes the checkpoint and history on rank 0
/// (collective; every rank gets rank 0's outcome).
#[allow(clippy::too_many_arguments)]
fn checkpoint(
    world: &World,
    solver: &mut Solver,
    root: Option<&Root>,
    global: &[u32],
    owned: usize,
    global_len: usize,
    out_dir: &Path,
    settings: &qflow_lskum::Settings,
) -> Result<()> {
    let local = solver.state();
    let full = gather_owned(world, &local, global, owned, global_len);
    drop(local);
    let written = match (root, full) {
        (Some(r), Some(state)) => {
            let cp = Checkpoint {
                iteration: solver.iteration(),
                reference_residue: solver.reference_residue(),
                cloud_fingerprint: r.fingerprint,
                settings: crate::runner::problem_key(settings),
                history: r.rows.clone(),
                state,
            };
            cp.write(&out_dir.join(CHECKPOINT))
                .context("writing the checkpoint")
                .and_then(|_| {
                    history::write(&out_dir.join("history.csv"), &r.rows)
                        .context("writing the history")
                })
                .map_err(|e| format!("{e:#}"))
        }
        _ => Ok(()),
    };
    agree(world, written).map_err(|e| anyhow!(e))
}

/// Every rank writes its owned points as one VTK piece; rank 0 writes the
/// index `field.pvtu` once all are written (collective).
fn write_pieces(
    world: &World,
    out_dir: &Path,
    geom: &qflow_lskum::Geometry,
    local: &[Vec4],
    global: &[u32],
    owned: usize,
    settings: &qflow_lskum::Settings,
) -> Result<()> {
    let rank = world.rank();
    let name = |r: i32| format!("field-{r:05}.vtu");
    // A cloud of this rank's owned points: what the VTK writer reads.
    let piece = Cloud {
        x: geom.x[..owned].to_vec(),
        y: geom.y[..owned].to_vec(),
        kind: geom.kind[..owned].to_vec(),
        left: vec![qflow_mesh::NO_POINT; owned],
        right: vec![qflow_mesh::NO_POINT; owned],
        shape: vec![0; owned],
        min_dist: geom.min_dist[..owned].to_vec(),
        nbr_start: vec![0; owned + 1],
        nbr: Vec::new(),
        quadtree: None,
    };
    debug_assert!(piece
        .kind
        .iter()
        .all(|k| matches!(k, PointKind::Wall | PointKind::Interior | PointKind::Outer)));
    let points: Vec<u32> = (0..owned as u32).collect();
    let numbers: Vec<u64> = global[..owned].iter().map(|&i| i as u64 + 1).collect();
    let fs = settings.free_stream();
    let written = qflow_io::vtk::write_vtu_piece(
        &out_dir.join(name(rank)),
        &piece,
        &local[..owned],
        &fs,
        &points,
        &numbers,
    )
    .map_err(|e| e.to_string());
    agree(world, written).map_err(|e| anyhow!(e))?;
    let index = if rank == 0 {
        let files: Vec<String> = (0..world.size()).map(name).collect();
        qflow_io::vtk::write_pvtu(&out_dir.join("field.pvtu"), &files).map_err(|e| e.to_string())
    } else {
        Ok(())
    };
    agree(world, index).map_err(|e| anyhow!(e))
}
