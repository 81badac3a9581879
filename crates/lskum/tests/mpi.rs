//! The distributed layer against one process, run under mpirun on any
//! number of ranks (`scripts/test-mpi.sh` runs it on 1, 2, 3 and 4):
//! solution fields, residue history and forces bit-identical to the serial
//! run's after N iterations, for every exchange mode, both partitioners,
//! partitions with parts that hold no wall point, no ghost or no point at
//! all, ranks x threads, and a run that goes non-physical (every rank stops
//! at the same iteration with the serial run's message and the last good
//! state kept). A counting allocator checks that the distributed iteration
//! allocates nothing either.
//!
//! With the feature `opencl` too, the same runs with each rank on an
//! OpenCL device (PoCL in CI): bit-identical to the single-process OpenCL
//! run on the same device, within 1e-11 of the serial CPU run's fields.
//!
//! `harness = false`: one MPI process runs the cases one after another; a
//! failed check panics, which ends the whole job with a non-zero status
//! (the panic hook calls `MPI_Abort`), so a failure never hangs. Arguments
//! are substrings of case names to run (all by default).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use common::*;
use qflow_lskum::settings::Scheme;
use qflow_lskum::{Settings, Solver, Vec4};
use qflow_mesh::generate::NacaOGrid;
use qflow_mesh::partition::{Method, Partition};
use qflow_mesh::{Cloud, PointKind};
use qflow_par::backend::{BackendKind, BackendSpec};
use qflow_par::comm::mpi::MpiComm;
use qflow_par::comm::{Comm, ExchangeMode};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Iterations before the allocation count starts (thread pools and MPI
/// connections settle).
const WARM_UP: u64 = 3;

/// How the test cuts the cloud.
#[derive(Clone, Copy, Debug)]
enum Cut {
    Metis,
    Rcb,
    /// By distance from the body: rank 0 holds the body and the inner
    /// rings, the others only rings of the far field (parts without a wall
    /// point, one of them without an outer point either when there are 3
    /// or more ranks).
    Rings,
    /// METIS over all ranks but the last, which gets no point at all (no
    /// ghost, no neighbour).
    EmptyLast,
}

/// What computes on each rank.
#[derive(Clone, Copy, Debug)]
enum Local {
    /// The CPU backend on this many threads (1: serial).
    Cpu(usize),
    /// The OpenCL backend, work group 64.
    #[cfg(feature = "opencl")]
    OpenCl,
}

impl Local {
    fn spec(self) -> BackendSpec {
        match self {
            Local::Cpu(1) => BackendSpec {
                kind: BackendKind::Serial,
                ..Default::default()
            },
            Local::Cpu(t) => BackendSpec {
                kind: BackendKind::Threads,
                threads: t,
                ..Default::default()
            },
            #[cfg(feature = "opencl")]
            Local::OpenCl => BackendSpec {
                kind: BackendKind::OpenCl,
                work_group: Some(64),
                ..Default::default()
            },
        }
    }
}

struct Outcome {
    /// Each iteration's history row.
    reports: Vec<[f64; 5]>,
    error: Option<String>,
    /// Rust heap allocations of this rank after the warm-up iterations.
    allocations: usize,
    /// Rank 0: the final state in the cloud's numbering.
    state: Option<Vec<Vec4>>,
}

fn iterate(s: &mut Solver, iters: u64) -> (Vec<[f64; 5]>, Option<String>, usize) {
    let mut reports = Vec::with_capacity(iters as usize);
    let mut error = None;
    let mut before = ALLOCATIONS.load(Ordering::SeqCst);
    for k in 0..iters {
        if k == WARM_UP {
            before = ALLOCATIONS.load(Ordering::SeqCst);
        }
        match s.step() {
            Ok(r) => reports.push(r),
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        }
    }
    (reports, error, ALLOCATIONS.load(Ordering::SeqCst) - before)
}

/// The single-process run of `local`'s kind (the CPU: serial).
fn serial(cloud: &Cloud, settings: &Settings, local: Local, iters: u64) -> Outcome {
    let spec = match local {
        Local::Cpu(_) => Local::Cpu(1).spec(),
        #[cfg(feature = "opencl")]
        Local::OpenCl => local.spec(),
    };
    let mut s = Solver::new(cloud, settings, &spec).expect("a solver");
    let (reports, error, _) = iterate(&mut s, iters);
    Outcome {
        reports,
        error,
        allocations: 0,
        state: Some(s.state()),
    }
}

fn partition(ranks: usize, cloud: &Cloud, cut: Cut) -> Partition {
    match cut {
        Cut::Metis => Partition::new(cloud, ranks, Method::Metis).unwrap(),
        Cut::Rcb => Partition::new(cloud, ranks, Method::Rcb).unwrap(),
        Cut::Rings => {
            let r = |i: usize| (cloud.x[i] - 0.5).hypot(cloud.y[i]);
            let mut by_r: Vec<usize> = (0..cloud.len()).collect();
            by_r.sort_by(|&a, &b| r(a).total_cmp(&r(b)).then(a.cmp(&b)));
            let mut part = vec![0u32; cloud.len()];
            for (k, &i) in by_r.iter().enumerate() {
                part[i] = (k * ranks / cloud.len()) as u32;
            }
            let p = Partition::from_parts(ranks, part).unwrap();
            if ranks > 1 {
                let walls = |q: u32| {
                    (0..cloud.len())
                        .filter(|&i| p.part()[i] == q && cloud.kind[i] == PointKind::Wall)
                        .count()
                };
                assert_eq!(walls(ranks as u32 - 1), 0, "the outer part has wall points");
            }
            p
        }
        Cut::EmptyLast => {
            if ranks == 1 {
                return Partition::new(cloud, 1, Method::Metis).unwrap();
            }
            let p = Partition::new(cloud, ranks - 1, Method::Metis).unwrap();
            Partition::from_parts(ranks, p.part().to_vec()).unwrap()
        }
    }
}

/// Runs `iters` iterations on all ranks; rank 0 holds the cloud.
fn distributed(
    world: &Arc<MpiComm>,
    cloud: Option<&Cloud>,
    cut: Cut,
    settings: &Settings,
    mode: ExchangeMode,
    local: Local,
    iters: u64,
) -> Outcome {
    let ranks = world.size();
    let owners = cloud.map(|c| partition(ranks, c, cut).part().to_vec());
    let root = cloud.map(|c| (c, if ranks > 1 { owners.clone() } else { None }));
    let comm: Box<dyn Comm> = Box::new(world.clone());
    let mut s =
        Solver::distributed(comm, root, settings, &local.spec(), mode).expect("every rank starts");
    let (reports, error, allocations) = iterate(&mut s, iters);
    let state = s.state();
    Outcome {
        reports,
        error,
        allocations,
        state: (world.rank() == 0).then_some(state),
    }
}

/// Rank 0: the distributed outcome is the serial one to the bit.
fn assert_same(name: &str, d: &Outcome, s: &Outcome) {
    assert_eq!(d.error, s.error, "{name}: errors differ");
    assert_eq!(d.reports.len(), s.reports.len(), "{name}: iterations");
    for (k, (a, b)) in d.reports.iter().zip(&s.reports).enumerate() {
        assert_eq!(
            a.map(f64::to_bits),
            b.map(f64::to_bits),
            "{name}: iteration {}: residue or forces differ: {a:?} vs {b:?}",
            k + 1
        );
    }
    let (ds, ss) = (d.state.as_ref().unwrap(), s.state.as_ref().unwrap());
    assert!(bit_identical(ds, ss), "{name}: solution fields differ");
}

fn small_cloud() -> Cloud {
    NacaOGrid {
        section: "naca2412".parse().unwrap(),
        wall_points: 64,
        rings: 24,
        far_field: 10.0,
        stretching: None,
    }
    .generate()
    .unwrap()
}

struct Case {
    name: String,
    cloud: &'static str,
    cut: Cut,
    settings: Settings,
    mode: ExchangeMode,
    local: Local,
    iters: u64,
}

fn cases() -> Vec<Case> {
    let default = Settings::default();
    let euler = Settings {
        scheme: Scheme::Euler,
        inner_iterations: 0,
        cfl: 0.5,
        ..Settings::default()
    };
    let mut v = Vec::new();
    let mut add = |cloud: &'static str,
                   cut: Cut,
                   settings: &Settings,
                   mode: ExchangeMode,
                   local: Local,
                   iters: u64| {
        let on = match local {
            Local::Cpu(threads) => format!("{threads}thr"),
            #[cfg(feature = "opencl")]
            Local::OpenCl => "opencl".to_string(),
        };
        v.push(Case {
            name: format!(
                "{cloud} {cut:?} {}{} {} {on}",
                settings.scheme.name(),
                if settings.cfl > 2.0 { " diverging" } else { "" },
                mode.name(),
            )
            .to_lowercase(),
            cloud,
            cut,
            settings: settings.clone(),
            mode,
            local,
            iters,
        });
    };
    let one = Local::Cpu(1);
    use ExchangeMode::*;
    for mode in [Nonblocking, Blocking, Rma, RmaFence] {
        for cut in [Cut::Metis, Cut::Rcb] {
            add("small", cut, &default, mode, one, 20);
        }
        add("small", Cut::Metis, &euler, mode, one, 20);
    }
    add("small", Cut::Rings, &default, Nonblocking, one, 20);
    add("small", Cut::Rings, &default, Rma, one, 20);
    add("small", Cut::EmptyLast, &default, Nonblocking, one, 20);
    add("small", Cut::EmptyLast, &default, RmaFence, one, 20);
    add(
        "small",
        Cut::Metis,
        &default,
        Nonblocking,
        Local::Cpu(2),
        20,
    );
    // Diverges at iteration 9: every rank stops at the serial run's
    // iteration and stage, with its point and the last good state kept.
    let diverging = Settings {
        cfl: 3.0,
        ..Settings::default()
    };
    add("small", Cut::Metis, &diverging, Nonblocking, one, 60);
    add("small", Cut::Rcb, &diverging, Rma, one, 60);
    // Newton-Krylov: rank 0 leads, the others evaluate as told; through
    // preconditioner refreshes (every 2 iterations).
    let newton = Settings {
        scheme: Scheme::NewtonKrylov,
        limiter: qflow_lskum::settings::Limiter::None,
        cfl: 1.0,
        jacobian_every: 2,
        ..Settings::default()
    };
    add("small", Cut::Metis, &newton, Nonblocking, one, 6);
    add("small", Cut::EmptyLast, &newton, Rma, one, 4);
    add("small", Cut::Rcb, &newton, Nonblocking, Local::Cpu(2), 4);
    for mode in [Nonblocking, Blocking, Rma] {
        add("9600", Cut::Metis, &default, mode, one, 10);
    }
    add("9600", Cut::Rcb, &default, Nonblocking, one, 10);
    #[cfg(feature = "opencl")]
    {
        let cl = Local::OpenCl;
        add("small", Cut::Metis, &default, Nonblocking, cl, 20);
        add("small", Cut::Rcb, &euler, Blocking, cl, 20);
        add("small", Cut::Rings, &default, Rma, cl, 20);
        add("small", Cut::EmptyLast, &default, Nonblocking, cl, 20);
        add("small", Cut::Metis, &diverging, Nonblocking, cl, 60);
        add("small", Cut::Metis, &newton, Nonblocking, cl, 4);
        add("9600", Cut::Metis, &default, Nonblocking, cl, 10);
    }
    v
}

/// Whether the OpenCL cases can run: an OpenCL device with double
/// precision (rank 0 looks; without one they are skipped, or fail with
/// `QFLOW_REQUIRE_OPENCL`).
#[cfg(feature = "opencl")]
fn opencl_available() -> bool {
    let why = match qflow_par::backend::opencl::devices() {
        Ok(list) if list.iter().any(|d| d.fp64) => return true,
        Ok(_) => "no OpenCL device with double precision".to_string(),
        Err(e) => e,
    };
    assert!(
        std::env::var_os("QFLOW_REQUIRE_OPENCL").is_none(),
        "QFLOW_REQUIRE_OPENCL is set but: {why}"
    );
    eprintln!("SKIPPED the OpenCL cases: {why}");
    false
}

#[cfg(not(feature = "opencl"))]
fn opencl_available() -> bool {
    false
}

/// Rank 0, a case on OpenCL devices: the distributed outcome is the
/// single-process OpenCL run's on the same device to the bit (fields,
/// residue, forces; a diverging run's iteration, point and state, with the
/// stage that failed where the single process names the iteration's last),
/// and the CPU serial run's within 1e-11 (fields; a diverging run's
/// iteration, stage and point).
fn check_device_case(case: &Case, cloud: &Cloud, d: &Outcome) {
    let name = &case.name;
    let single = serial(cloud, &case.settings, case.local, case.iters);
    let cpu = serial(cloud, &case.settings, Local::Cpu(1), case.iters);
    match (&d.error, &single.error, &cpu.error) {
        (None, None, None) => {}
        (Some(e), Some(es), Some(ec)) => {
            assert_eq!(e, es, "{name}: not the single-process run's failure");
            let upto = |m: &str| m[..m.find('(').unwrap()].to_string();
            assert_eq!(
                upto(e),
                upto(ec),
                "{name}: not the CPU run's iteration, stage and point"
            );
        }
        other => panic!("{name}: errors differ (mpi, single, cpu): {other:?}"),
    }
    assert_same(name, d, &single);
    let (ds, cs) = (d.state.as_ref().unwrap(), cpu.state.as_ref().unwrap());
    let rel = rel_l2(ds, cs);
    // Newton-Krylov amplifies the device's last-bit differences in the
    // residual by the Jacobian's conditioning on the way (5e-10 after four
    // iterations on the small cloud); converged, both reach the same zero.
    let tol = if case.settings.scheme == Scheme::NewtonKrylov {
        1e-8
    } else {
        1e-11
    };
    assert!(rel <= tol, "{name}: {rel:e} from the CPU fields");
    println!("  fields {rel:.1e} (relative L2) from the serial CPU run's");
}

fn main() {
    let world = Arc::new(MpiComm::init().expect("MPI initialised once"));
    let (rank, size) = (world.rank(), world.size());
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let start = Instant::now();
    // Rank 0 reads the clouds; the others get only their parts.
    let small = (rank == 0).then(small_cloud);
    let big = if rank == 0 { cloud_9600() } else { None };
    let flag = |v: bool| {
        let mut b = vec![u8::from(v)];
        world.broadcast(0, &mut b);
        b[0] == 1
    };
    let have_big = flag(big.is_some());
    let have_opencl = flag(rank == 0 && opencl_available());
    let mut ran = 0;
    for case in cases() {
        if !filters.is_empty() && !filters.iter().any(|f| case.name.contains(f.as_str())) {
            continue;
        }
        if case.cloud == "9600" && !have_big {
            if rank == 0 {
                eprintln!("SKIPPED {}: no 9600-point cloud", case.name);
            }
            continue;
        }
        let on_device = !matches!(case.local, Local::Cpu(_));
        if on_device && !have_opencl {
            continue;
        }
        let t = Instant::now();
        let cloud = match case.cloud {
            "small" => small.as_ref(),
            _ => big.as_ref(),
        };
        let d = distributed(
            &world,
            cloud,
            case.cut,
            &case.settings,
            case.mode,
            case.local,
            case.iters,
        );
        // Newton-Krylov's iterations allocate (Krylov vectors on rank 0,
        // gathers): only the explicit schemes promise none.
        if d.error.is_none() && case.settings.scheme != Scheme::NewtonKrylov {
            assert_eq!(
                d.allocations, 0,
                "{}: rank {rank} allocated in the iteration",
                case.name
            );
        }
        if rank == 0 {
            if on_device {
                check_device_case(&case, cloud.unwrap(), &d);
            } else {
                let s = serial(cloud.unwrap(), &case.settings, case.local, case.iters);
                assert_same(&case.name, &d, &s);
            }
            if case.settings.cfl > 2.0 {
                let e = d.error.as_ref().expect("the run diverges");
                assert!(e.contains("non-physical state at point"), "{e}");
                assert!(d.state.as_ref().unwrap().iter().all(|w| w[0] > 0.0));
                println!("  {e}");
            }
            println!(
                "test {} on {size} ranks ... ok ({:.2} s)",
                case.name,
                t.elapsed().as_secs_f64()
            );
        }
        ran += 1;
    }
    if rank == 0 {
        println!(
            "mpi tests: {ran} passed on {size} ranks in {:.1} s",
            start.elapsed().as_secs_f64()
        );
    }
}
