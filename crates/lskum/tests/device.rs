//! The device backends (features `opencl`, `cuda`) against the CPU, on
//! every device backend of the build: the device runs
//! the kernels translated from the same Rust (`build.rs`), through entry
//! points generated from the loops' declarations. The tolerances are
//! stated, not tuned to pass:
//!
//! - fields after 100 iterations: the largest difference over the largest
//!   magnitude, per component, `1e-11` (the device's `erf` and `exp` of
//!   the far field differ from the CPU's libm by an ulp or two, and the
//!   device may fuse nothing: `FP_CONTRACT OFF`);
//! - the residue and the force coefficients at every iteration: relative
//!   `1e-11`;
//! - a run that goes non-physical stops at the CPU's iteration, stage and
//!   point.
//!
//! With `QFLOW_REQUIRE_OPENCL` set (CI, which installs PoCL), a missing
//! OpenCL device with double precision fails these tests instead of
//! skipping them; `QFLOW_REQUIRE_CUDA` does the same for CUDA (a GPU
//! machine).
#![cfg(any(feature = "opencl", feature = "cuda"))]

mod common;

use common::*;
use qflow_lskum::settings::Scheme;
use qflow_lskum::{Settings, Solver};
use qflow_mesh::Cloud;
use qflow_par::backend::{test_devices, BackendKind, BackendSpec};

const TOL: f64 = 1e-11;

fn device_spec(kind: BackendKind, work_group: Option<usize>) -> BackendSpec {
    BackendSpec {
        kind,
        work_group,
        ..Default::default()
    }
}

fn rel(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else {
        (a - b).abs() / a.abs().max(b.abs())
    }
}

/// Steps both solvers `iters` times, comparing every iteration's row
/// (residue, Cl, Cd, Cm), then the fields.
fn agree(device: BackendKind, what: &str, cloud: &Cloud, settings: &Settings, iters: u64) {
    let what = format!("{}: {what}", device.name());
    let cpu_spec = BackendSpec {
        kind: BackendKind::Serial,
        ..Default::default()
    };
    let mut cpu = Solver::new(cloud, settings, &cpu_spec).expect("cpu solver");
    let mut dev = Solver::new(cloud, settings, &device_spec(device, None)).expect("device solver");
    for it in 1..=iters {
        let a = cpu.step().expect("cpu step");
        let b = dev.step().expect("device step");
        // columns: log10 residue, residue, cl, cd, cm
        assert!(
            (a[0] - b[0]).abs() <= TOL,
            "{what}: iteration {it}: {a:?} vs {b:?}"
        );
        for k in 1..a.len() {
            assert!(
                rel(a[k], b[k]) <= TOL,
                "{what}: iteration {it}, column {k}: {a:?} vs {b:?}"
            );
        }
    }
    let m = max_rel(&dev.state(), &cpu.state());
    assert!(
        m.iter().all(|&d| d <= TOL),
        "{what}: fields differ by {m:?}"
    );
}

#[test]
fn ssprk43_agrees_with_the_cpu_after_100_iterations() {
    for device in test_devices() {
        agree(
            device,
            "generated naca2412",
            &small_naca("naca2412"),
            &Settings::default(),
            100,
        );
        if let Some(c) = cloud_9600() {
            agree(device, "naca0012-9600", &c, &Settings::default(), 30);
        }
    }
}

#[test]
fn forward_euler_without_limiter_agrees_with_the_cpu() {
    for device in test_devices() {
        let settings = Settings {
            scheme: Scheme::Euler,
            inner_iterations: 0,
            cfl: 0.5,
            limiter: qflow_lskum::settings::Limiter::None,
            ..Settings::default()
        };
        agree(
            device,
            "forward Euler",
            &small_naca("naca2412"),
            &settings,
            100,
        );
    }
}

#[test]
fn the_work_group_size_does_not_change_the_fields() {
    for device in test_devices() {
        let cloud = small_naca("naca2412");
        let settings = Settings::default();
        let mut states = Vec::new();
        let mut rows = Vec::new();
        for wg in [16, 64] {
            let mut s =
                Solver::new(&cloud, &settings, &device_spec(device, Some(wg))).expect("solver");
            rows.push(s.run(20).expect("run"));
            states.push(s.state());
        }
        // Every point's arithmetic is the same whatever the group: the fields
        // are bit-identical; the reductions are double-double, exact enough
        // that the residues are too.
        assert!(bit_identical(&states[0], &states[1]));
        assert_eq!(rows[0], rows[1]);
    }
}

#[test]
fn a_non_physical_state_stops_at_the_cpus_point() {
    for device in test_devices() {
        let cloud = small_naca("naca2412");
        let settings = Settings {
            cfl: 40.0,
            ..Settings::default()
        };
        let cpu_spec = BackendSpec {
            kind: BackendKind::Serial,
            ..Default::default()
        };
        let mut cpu = Solver::new(&cloud, &settings, &cpu_spec).unwrap();
        let mut dev = Solver::new(&cloud, &settings, &device_spec(device, None)).unwrap();
        let a = cpu.run(200).expect_err("the cpu run diverges").to_string();
        let b = dev
            .run(200)
            .expect_err("the device run diverges")
            .to_string();
        // The same iteration, stage and point (the values may differ in their
        // last digits).
        let head = |m: &str| m.split(" (x =").next().unwrap().to_string();
        assert_eq!(head(&a), head(&b), "cpu: {a}\n{}: {b}", device.name());
        assert!(a.contains("non-physical state at point"), "{a}");
        // Both keep the last good state: the state is finite and physical.
        assert!(dev
            .state()
            .iter()
            .all(|w| w[0] > 0.0 && w[3] > 0.0 && w.iter().all(|v| v.is_finite())));
    }
}

#[test]
fn a_device_that_is_not_there_is_named() {
    for device in test_devices() {
        let spec = BackendSpec {
            kind: device,
            device: Some("no-such-device-xyz".into()),
            ..Default::default()
        };
        let e = match Solver::new(&small_naca("naca2412"), &Settings::default(), &spec) {
            Ok(_) => panic!("a device that does not exist was accepted"),
            Err(e) => e,
        };
        assert!(e.contains("no-such-device-xyz"), "{e}");
    }
}

#[test]
fn the_device_source_holds_every_loop_kernel() {
    let src = qflow_lskum::method::DEVICE_SOURCE;
    for l in qflow_lskum::decl::LOOPS.iter() {
        assert!(
            src.contains(&format!(" {}(", l.kernel)),
            "the translated source lacks the kernel {}",
            l.kernel
        );
        assert!(qflow_lskum::method::DEVICE_FUNCTIONS.contains(&l.kernel));
    }
    // Every device-side constant came from the Rust: gamma's literal forms.
    assert!(src.contains("0.7142857142857142"), "P_INF");
}
