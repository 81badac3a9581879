//! The iteration loop allocates nothing: scratch is sized once, reductions
//! are fixed-size accumulators. A counting global allocator proves it.

use qflow_lskum::settings::Scheme;
use qflow_lskum::{Settings, Solver};
use qflow_mesh::generate::NacaOGrid;
use qflow_par::backend::{BackendKind, BackendSpec};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

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

fn allocations_per_iteration(kind: BackendKind, threads: usize, settings: Settings) -> usize {
    let cloud = NacaOGrid {
        section: "naca0012".parse().unwrap(),
        wall_points: 64,
        rings: 24,
        far_field: 10.0,
        stretching: None,
    }
    .generate()
    .unwrap();
    let spec = BackendSpec {
        kind,
        threads,
        ..Default::default()
    };
    let mut s = Solver::new(&cloud, &settings, &spec).unwrap();
    for _ in 0..3 {
        s.step().unwrap(); // warm-up: thread pool, loop bindings and queues settle
    }
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    for _ in 0..10 {
        s.step().unwrap();
    }
    ALLOCATIONS.load(Ordering::SeqCst) - before
}

/// One test function, so that no other test allocates in this process while
/// the count runs.
#[test]
fn the_iteration_allocates_nothing() {
    let euler = Settings {
        scheme: Scheme::Euler,
        inner_iterations: 0,
        cfl: 0.5,
        ..Settings::default()
    };
    for (kind, threads) in [(BackendKind::Serial, 1), (BackendKind::Threads, 2)] {
        for settings in [Settings::default(), euler.clone()] {
            let n = allocations_per_iteration(kind, threads, settings.clone());
            assert_eq!(
                n,
                0,
                "{kind:?} ({threads}), {}: {n} allocations in 10 iterations",
                settings.scheme.name()
            );
        }
    }
}
