//! The device backends (features `opencl`, `cuda`) against the serial CPU
//! run on the 40 x 60 OP2 mesh, on every device backend of the build. The device runs the kernels translated from the same
//! Rust with contraction off; its `sqrt` and division are correctly
//! rounded in double precision, so only the order of the increments could
//! make it differ. Stated tolerance: fields and rms within `1e-12`
//! relative after 100 iterations.
//!
//! With `QFLOW_REQUIRE_OPENCL` set (CI, which installs PoCL), a missing
//! OpenCL device with double precision fails the test instead of skipping;
//! `QFLOW_REQUIRE_CUDA` does the same for CUDA (a GPU machine).
#![cfg(any(feature = "opencl", feature = "cuda"))]

mod common;

use qflow_fv::{Settings, Solver};
use qflow_mesh::poly::naca0012::Op2Naca0012;
use qflow_par::backend::{test_devices, BackendKind, BackendSpec};

#[test]
fn the_device_agrees_with_the_cpu() {
    for device in test_devices() {
        let mesh = Op2Naca0012 { i: 40, j: 60 }.generate().unwrap();
        let run = |kind| {
            let spec = BackendSpec {
                kind,
                ..BackendSpec::default()
            };
            let mut s = Solver::new(&mesh, &Settings::default(), &spec).unwrap();
            let rms: Vec<f64> = (0..100).map(|_| s.step().unwrap()).collect();
            (rms, s.state())
        };
        let (rms_cpu, q_cpu) = run(BackendKind::Serial);
        let (rms_cl, q_cl) = run(device);
        for (k, (a, b)) in rms_cpu.iter().zip(&rms_cl).enumerate() {
            assert!(
                (a - b).abs() <= 1e-12 * a.abs(),
                "iteration {}: rms {a} vs {b}",
                k + 1
            );
        }
        for c in 0..4 {
            let scale = q_cpu.iter().map(|q| q[c].abs()).fold(0.0, f64::max);
            let worst = q_cpu
                .iter()
                .zip(&q_cl)
                .map(|(a, b)| (a[c] - b[c]).abs())
                .fold(0.0, f64::max);
            assert!(
                worst <= 1e-12 * scale,
                "component {c}: {worst:e} of {scale:e}"
            );
        }
        let same = q_cpu == q_cl;
        eprintln!("device fields bit-identical to the CPU's: {same}");
    }
}

/// The global colouring on the device: each colour's edges one work item
/// each, colours in order. Every cell receives its fluxes in the CPU's
/// colour order, so the device agrees with the CPU's coloured run within
/// the same stated tolerance (measured: to the bit on PoCL).
#[test]
fn the_device_runs_the_global_colouring() {
    for device in test_devices() {
        use qflow_par::plan::Increments;
        let cpu = run_strategy(BackendKind::Serial, Increments::Colouring, 100);
        let dev = run_strategy(device, Increments::Colouring, 100);
        let worst = worst_difference(&dev, &cpu);
        assert!(worst <= 1e-12, "rms or fields differ by {worst:e}");
        eprintln!(
            "coloured device fields bit-identical to the CPU's: {}",
            cpu.1 == dev.1
        );
    }
}

/// The state after `iters` iterations of `strategy` on `kind`, with the
/// rms history.
fn run_strategy(
    kind: BackendKind,
    strategy: qflow_par::plan::Increments,
    iters: usize,
) -> (Vec<f64>, Vec<[f64; 4]>) {
    let settings = Settings {
        strategy,
        ..Settings::default()
    };
    run_settings(kind, &settings, iters)
}

/// The same with any settings.
fn run_settings(kind: BackendKind, settings: &Settings, iters: usize) -> (Vec<f64>, Vec<[f64; 4]>) {
    let mesh = Op2Naca0012 { i: 40, j: 60 }.generate().unwrap();
    let spec = BackendSpec {
        kind,
        ..BackendSpec::default()
    };
    let mut s = Solver::new(&mesh, settings, &spec).unwrap();
    let rms: Vec<f64> = (0..iters).map(|_| s.step().unwrap()).collect();
    (rms, s.state())
}

/// Worst relative difference of two runs' rms histories and fields.
fn worst_difference(a: &(Vec<f64>, Vec<[f64; 4]>), b: &(Vec<f64>, Vec<[f64; 4]>)) -> f64 {
    let rms = a.0.iter().zip(&b.0).map(|(x, y)| (x - y).abs() / y.abs());
    let q =
        a.1.iter()
            .zip(&b.1)
            .flat_map(|(x, y)| (0..4).map(move |c| (x[c] - y[c]).abs() / y[c].abs().max(1.0)));
    rms.chain(q).fold(0.0, f64::max)
}

/// OP2's hierarchical (two-level) colouring on the device: blocks of the
/// work-group size, the blocks of a colour in one launch, inside a block
/// the edges' fluxes computed at once and added thread colour by thread
/// colour. A cell's increments then come in thread-colour order, not edge
/// order: within 1e-10 of the sequential answer (the bound for
/// every parallel strategy), and not its bits (the plan really ran).
#[test]
fn the_device_runs_the_two_level_colouring() {
    for device in test_devices() {
        use qflow_par::plan::Increments;
        let seq = run_strategy(BackendKind::Serial, Increments::Sequential, 200);
        let dev = run_strategy(device, Increments::TwoLevel, 200);
        let worst = worst_difference(&dev, &seq);
        assert!(worst < 1e-10, "two-level on the device: {worst:e}");
        assert!(dev.1 != seq.1, "the thread colours reorder the increments");
        // The paper's pairing: METIS parts of at most a work group as the
        // device's blocks.
        let parted = Settings {
            strategy: Increments::TwoLevel,
            reorder: qflow_par::reorder::Reorder::Partition,
            block_size: 64,
            ..Settings::default()
        };
        let dev = run_settings(device, &parted, 200);
        let worst = worst_difference(&dev, &seq);
        assert!(
            worst < 1e-10,
            "partitioned two-level on the device: {worst:e}"
        );
    }
}

/// Atomic increments on the device (a compare-and-swap loop per value):
/// within 1e-10 of the sequential answer.
#[test]
fn the_device_runs_atomic_increments() {
    for device in test_devices() {
        use qflow_par::plan::Increments;
        let seq = run_strategy(BackendKind::Serial, Increments::Sequential, 200);
        let dev = run_strategy(device, Increments::Atomics, 200);
        let worst = worst_difference(&dev, &seq);
        assert!(worst < 1e-10, "atomics on the device: {worst:e}");
        // A block's increments summed in local memory, then added atomically
        // (blocks share cells: without the atomics, sums would be lost).
        let staged = run_strategy(device, Increments::StagedAtomics, 200);
        let worst = worst_difference(&staged, &seq);
        assert!(worst < 1e-10, "staged atomics on the device: {worst:e}");
    }
}

/// The structure-of-arrays layout on the device: the same bits as the
/// array-of-structures run (the kernels load and store per component; the
/// arithmetic is unchanged), with the global colouring and with atomics.
#[test]
fn the_device_gives_the_same_bits_in_either_layout() {
    for device in test_devices() {
        use qflow_par::plan::Increments;
        for strategy in [Increments::Colouring, Increments::TwoLevel] {
            let aos = Settings {
                strategy,
                ..Settings::default()
            };
            let a = run_settings(device, &aos, 50);
            for layout in [
                qflow_par::layout::Layout::Soa,
                qflow_par::layout::Layout::Mixed,
            ] {
                let other = Settings {
                    layout,
                    ..aos.clone()
                };
                let b = run_settings(device, &other, 50);
                assert_eq!(a.0, b.0, "{strategy:?} {layout:?}: rms");
                assert!(a.1 == b.1, "{strategy:?} {layout:?}: fields differ");
            }
        }
    }
}

/// Triangles and quadrilaterals mixed (OP2's mesh, every other cell
/// split), at an angle of attack: the device within the same tolerance.
#[test]
fn the_device_agrees_with_the_cpu_on_a_mixed_mesh() {
    let mesh = common::split_mesh(20, 30, 2, true);
    let settings = Settings {
        aoa: 3.0,
        ..Settings::default()
    };
    for device in test_devices() {
        let run = |kind| {
            let spec = BackendSpec {
                kind,
                ..BackendSpec::default()
            };
            let mut s = Solver::new(&mesh, &settings, &spec).unwrap();
            let rms: Vec<f64> = (0..50).map(|_| s.step().unwrap()).collect();
            (rms, s.state())
        };
        let ((rms_cpu, q_cpu), (rms_dev, q_dev)) = (run(BackendKind::Serial), run(device));
        for (a, b) in rms_cpu.iter().zip(&rms_dev) {
            assert!((a - b).abs() <= 1e-12 * a.abs(), "rms {a} vs {b}");
        }
        for (a, b) in q_cpu.iter().zip(&q_dev) {
            for c in 0..4 {
                assert!(
                    (a[c] - b[c]).abs() <= 1e-12 * (1.0 + a[c].abs()),
                    "{a:?} vs {b:?}"
                );
            }
        }
    }
}
