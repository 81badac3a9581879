//! The device backends (features `opencl`, `cuda`) against the serial
//! CPU run. The device runs the kernels translated from the same Rust with
//! contraction off and correctly rounded division and `sqrt`; every loop
//! is a gather, so the device should give the CPU's bits; the stated
//! tolerance is `1e-12` relative per component (fields scaled by their
//! largest value).
//!
//! With `QFLOW_REQUIRE_OPENCL` set (CI, which installs PoCL), a missing
//! OpenCL device with double precision fails the test instead of skipping;
//! `QFLOW_REQUIRE_CUDA` does the same for CUDA (a GPU machine).
#![cfg(any(feature = "opencl", feature = "cuda"))]

use qflow_lw::settings::{Setup, Viscosity, Wall};
use qflow_lw::{Grid, Settings, Solver};
use qflow_par::backend::{test_devices, BackendKind, BackendSpec};

#[test]
fn the_device_agrees_with_the_cpu() {
    for device in test_devices() {
        agrees_on(device);
    }
}

fn agrees_on(device: BackendKind) {
    let paper = Settings {
        viscosity: Viscosity::Paper,
        wall: Wall::Paper,
        setup: Setup::PaperCode,
        ..Settings::default()
    };
    for settings in [Settings::default(), paper] {
        let run = |kind| {
            let spec = BackendSpec {
                kind,
                ..BackendSpec::default()
            };
            let mut s = Solver::new(&Grid { nx: 80, ny: 20 }, &settings, &spec).unwrap();
            let rows: Vec<[f64; 2]> = (0..100).map(|_| s.step().unwrap()).collect();
            (rows, s.state())
        };
        let (rows_cpu, q_cpu) = run(BackendKind::Serial);
        let (rows_cl, q_cl) = run(device);
        for (k, (a, b)) in rows_cpu.iter().zip(&rows_cl).enumerate() {
            assert!(
                (a[1] - b[1]).abs() <= 1e-12 * a[1].abs(),
                "{}: step {}: drho/dt {} vs {}",
                device.name(),
                k + 1,
                a[1],
                b[1]
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
                "{}: {:?}: component {c}: worst difference {worst:e} (scale {scale:e})",
                device.name(),
                settings.viscosity
            );
        }
    }
}
