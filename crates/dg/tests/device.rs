//! The device backends (features `opencl`, `cuda`) against the serial
//! CPU run (advection, isothermal and compressible Euler): the kernels translated from
//! the same Rust, within `1e-12` relative (the largest nodal difference
//! over the largest value), on every device backend of the build.
//!
//! With `QFLOW_REQUIRE_OPENCL` set (CI, which installs PoCL), a missing
//! OpenCL device with double precision fails the test instead of skipping;
//! `QFLOW_REQUIRE_CUDA` does the same for CUDA (a GPU machine).
#![cfg(any(feature = "opencl", feature = "cuda"))]

use qflow_dg::settings::FaceFlux;
use qflow_dg::{Equation, Initial, Settings, Solver};
use qflow_par::backend::{test_devices, BackendKind, BackendSpec};

#[test]
fn the_device_agrees_with_the_cpu() {
    for device in test_devices() {
        agrees_on(device);
    }
}

fn agrees_on(device: BackendKind) {
    let cases = [
        (Equation::Advection, 1, 5, "rk4"),
        (Equation::Advection, 2, 4, "lserk54"),
        // A tableau scheme below order 8: restores into packed cells.
        (Equation::Advection, 2, 3, "rk4"),
        (Equation::Advection, 3, 3, "rk4"),
        (Equation::Advection, 2, 8, "rk6"),
        // One node per cell: the dats' elements are `[f64; 1]`, which the
        // entry kernels once passed as `double` (a build failure).
        (Equation::Advection, 1, 1, "ssprk3"),
        (Equation::Advection, 2, 1, "lserk54"),
        (Equation::IsothermalEuler, 1, 6, "rk4"),
        (Equation::IsothermalEuler, 2, 5, "lserk54"),
        (Equation::IsothermalEuler, 2, 4, "ssprk3"),
        (Equation::IsothermalEuler, 3, 3, "rk4"),
        (Equation::Euler, 2, 5, "lserk54"),
        (Equation::Euler, 2, 4, "rk4"),
        (Equation::Euler, 3, 3, "lserk54"),
        (Equation::IsothermalEuler, 3, 4, "lserk54"),
    ];
    for (equation, dimensions, order, rk) in cases {
        let settings = Settings {
            equation,
            dimensions,
            order,
            cells: [6, 5, 4][..dimensions].to_vec(),
            velocity: [1.0, -0.7, 0.5][..dimensions].to_vec(),
            amplitude: 0.2,
            rk: rk.into(),
            final_time: 0.1,
            cfl: 0.5,
            initial: match equation {
                Equation::Advection => Initial::Sine,
                Equation::IsothermalEuler => Initial::SimpleWave,
                Equation::Euler => Initial::DensityWave,
            },
            // The Euler runs with HLL (isothermal Euler: two cases).
            flux: if equation == Equation::Euler
                || (equation == Equation::IsothermalEuler && order == 4)
            {
                FaceFlux::Hll
            } else {
                FaceFlux::Rusanov
            },
            ..Settings::default()
        };
        let run = |kind| {
            let spec = BackendSpec {
                kind,
                ..BackendSpec::default()
            };
            let mut s = Solver::new(&settings, &spec).unwrap();
            s.run_to_end().unwrap();
            s.state()
        };
        // Progress on stderr (`--nocapture`): on a GPU this test once ran
        // past 300 s without showing which case it was in.
        let t = std::time::Instant::now();
        eprintln!("{equation:?} {dimensions}D n = {order} ({rk}): serial ...");
        let cpu = run(BackendKind::Serial);
        eprintln!(
            "  {} ... ({:.1} s)",
            device.name(),
            t.elapsed().as_secs_f64()
        );
        let cl = run(device);
        eprintln!("  done ({:.1} s)", t.elapsed().as_secs_f64());
        assert_eq!(cpu.len(), cl.len());
        let scale = cpu.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let worst = cpu
            .iter()
            .zip(&cl)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(
            worst <= 1e-12 * scale,
            "{}: {equation:?} {dimensions}D n = {order} ({rk}): worst {worst} of {scale}",
            device.name()
        );
    }
}
