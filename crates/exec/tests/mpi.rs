//! The distributed backend against the serial one, run under mpirun on any
//! number of ranks (`scripts/test-mpi.sh` runs it on 1, 2, 3 and 4):
//! solution fields, residue history and forces bit-identical to the serial
//! run's after N iterations, for every exchange mode, both partitioners,
//! partitions with parts that hold no wall point, no ghost or no point at
//! all, ranks x threads, and a run that goes non-physical (every rank stops
//! at the same iteration with the serial run's point). A counting allocator
//! checks that the distributed iteration allocates nothing either.
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
use mpi::traits::*;
use qflow_cloud::generate::NacaOGrid;
use qflow_cloud::partition::{Method, Partition};
use qflow_cloud::{Cloud, PointKind};
use qflow_exec::distributed::{
    gather_owned, install_panic_abort, scatter, DistributedBackend, ExchangeMode, ScatterInput,
    World,
};
use qflow_exec::{CpuBackend, IterationReport, Par, Solver};
use qflow_lskum::settings::Scheme;
use qflow_lskum::{Geometry, Settings, Vec4};

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

struct Outcome {
    reports: Vec<IterationReport>,
    error: Option<String>,
    /// Rust heap allocations of this rank after the warm-up iterations.
    allocations: usize,
    /// Rank 0: the final state in the cloud's numbering.
    state: Option<Vec<Vec4>>,
}

fn serial(cloud: &Cloud, settings: &Settings, iters: u64) -> Outcome {
    let g = Arc::new(Geometry::new(cloud, settings.force_normals));
    let b = CpuBackend::serial(g.clone(), settings.into());
    let mut s = Solver::new(Box::new(b), g, settings.clone());
    let mut reports = Vec::new();
    let mut error = None;
    for _ in 0..iters {
        match s.step() {
            Ok(r) => reports.push(r),
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        }
    }
    Outcome {
        reports,
        error,
        allocations: 0,
        state: Some(s.state()),
    }
}

fn partition(world: &World, cloud: &Cloud, cut: Cut) -> Partition {
    let ranks = world.size() as usize;
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
#[allow(clippy::too_many_arguments)]
fn distributed(
    world: &World,
    cloud: Option<&Cloud>,
    cut: Cut,
    settings: &Settings,
    mode: ExchangeMode,
    threads: usize,
    iters: u64,
) -> Outcome {
    let p = cloud.map(|c| partition(world, c, cut));
    let input = match (cloud, &p) {
        (Some(c), Some(p)) => Ok(ScatterInput {
            cloud: c,
            partition: p,
            order: None,
            force_normals: settings.force_normals,
            state: None,
            fill: settings.free_stream().primitive(),
            info: b"",
        }),
        _ => Err(String::new()),
    };
    let (_, part) = scatter(world, input).expect("scatter");
    let (global, owned, n) = (part.global.clone(), part.n_owned, part.global_len);
    let par = if threads > 1 {
        Par::rayon(threads).unwrap()
    } else {
        Par::Seq
    };
    let backend = DistributedBackend::new(part, settings.into(), par, mode);
    let geom = backend.geometry().clone();
    let mut s = Solver::new(Box::new(backend), geom, settings.clone());
    let mut reports = Vec::with_capacity(iters as usize);
    let mut error = None;
    let mut before = 0;
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
    let allocations = ALLOCATIONS.load(Ordering::SeqCst) - before;
    let local = s.state();
    let state = gather_owned(world, &local, &global, owned, n);
    Outcome {
        reports,
        error,
        allocations,
        state,
    }
}

/// Rank 0: the distributed outcome is the serial one to the bit.
fn assert_same(name: &str, d: &Outcome, s: &Outcome) {
    assert_eq!(d.error, s.error, "{name}: errors differ");
    assert_eq!(d.reports.len(), s.reports.len(), "{name}: iterations");
    for (a, b) in d.reports.iter().zip(&s.reports) {
        let bits = |r: &IterationReport| {
            [
                r.residue,
                r.log_residue,
                r.coefficients.cl,
                r.coefficients.cd,
                r.coefficients.cm,
            ]
            .map(f64::to_bits)
        };
        assert_eq!(
            bits(a),
            bits(b),
            "{name}: iteration {}: residue or forces differ: {a:?} vs {b:?}",
            a.iteration
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
    threads: usize,
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
                   threads: usize,
                   iters: u64| {
        v.push(Case {
            name: format!(
                "{cloud} {cut:?} {}{} {} {}thr",
                settings.scheme.name(),
                if settings.cfl > 2.0 { " diverging" } else { "" },
                mode.name(),
                threads
            )
            .to_lowercase(),
            cloud,
            cut,
            settings: settings.clone(),
            mode,
            threads,
            iters,
        });
    };
    use ExchangeMode::*;
    for mode in [Nonblocking, Blocking, Rma, RmaFence] {
        for cut in [Cut::Metis, Cut::Rcb] {
            add("small", cut, &default, mode, 1, 20);
        }
        add("small", Cut::Metis, &euler, mode, 1, 20);
    }
    add("small", Cut::Rings, &default, Nonblocking, 1, 20);
    add("small", Cut::Rings, &default, Rma, 1, 20);
    add("small", Cut::EmptyLast, &default, Nonblocking, 1, 20);
    add("small", Cut::EmptyLast, &default, RmaFence, 1, 20);
    add("small", Cut::Metis, &default, Nonblocking, 2, 20);
    // Diverges at iteration 9: every rank stops at the serial run's
    // iteration and stage, with its point and the last good state kept.
    let diverging = Settings {
        cfl: 3.0,
        ..Settings::default()
    };
    add("small", Cut::Metis, &diverging, Nonblocking, 1, 60);
    add("small", Cut::Rcb, &diverging, Rma, 1, 60);
    for mode in [Nonblocking, Blocking, Rma] {
        add("9600", Cut::Metis, &default, mode, 1, 10);
    }
    add("9600", Cut::Rcb, &default, Nonblocking, 1, 10);
    v
}

fn main() {
    let (universe, threading) =
        mpi::initialize_with_threading(mpi::Threading::Serialized).expect("MPI initialised once");
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size());
    install_panic_abort(rank);
    assert!(threading >= mpi::Threading::Serialized);
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let start = Instant::now();
    // Rank 0 reads the clouds; the others get only their parts.
    let small = (rank == 0).then(small_cloud);
    let big = if rank == 0 { cloud_9600() } else { None };
    let have_big = {
        let mut flag = [u8::from(big.is_some())];
        world.process_at_rank(0).broadcast_into(&mut flag[..]);
        flag[0] == 1
    };
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
            case.threads,
            case.iters,
        );
        if d.error.is_none() {
            assert_eq!(
                d.allocations, 0,
                "{}: rank {rank} allocated in the iteration",
                case.name
            );
        }
        if rank == 0 {
            let s = serial(cloud.unwrap(), &case.settings, case.iters);
            assert_same(&case.name, &d, &s);
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
