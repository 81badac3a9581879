//! The compressible Euler equations of an ideal gas by the DG method on
//! the layer (2D): the isentropic vortex and the density wave against
//! their exact solutions, the observed orders, both face fluxes, a constant
//! state kept to the bit, mass conserved, threads against serial, a step
//! that makes the pressure negative stopping with the last sound state
//! kept and naming the cell, and the settings refused.

use qflow_dg::settings::FaceFlux;
use qflow_dg::{Equation, Initial, Settings, Solver};
use qflow_par::backend::BackendSpec;
use qflow_par::driver::StepError;

mod common;

/// The isentropic vortex of strength 5 carried by the flow `(1, 1)`, to `t
/// = 0.05` (its own radius).
fn vortex(order: usize, cells: usize, flux: FaceFlux) -> Settings {
    Settings {
        equation: Equation::Euler,
        dimensions: 2,
        order,
        cells: vec![cells; 2],
        velocity: vec![1.0, 1.0],
        amplitude: 5.0,
        gamma: 1.4,
        flux,
        rk: "lserk54".into(),
        final_time: 0.05,
        cfl: 0.5,
        initial: Initial::IsentropicVortex,
        ..Settings::default()
    }
}

/// The density wave of amplitude 0.5 at velocity `(0.1, 0.2)` and
/// pressure 1.
fn density_wave(order: usize, cells: usize, flux: FaceFlux) -> Settings {
    Settings {
        velocity: vec![0.1, 0.2],
        amplitude: 0.5,
        pressure: 1.0,
        final_time: 0.1,
        initial: Initial::DensityWave,
        ..vortex(order, cells, flux)
    }
}

/// The L2 errors of every variable at the final time.
fn l2(s: &Settings) -> [f64; 5] {
    let mut solver = Solver::new(s, &BackendSpec::serial()).unwrap();
    solver.run_to_end().unwrap();
    assert_eq!(solver.time(), s.final_time);
    solver.variable_errors().0
}

/// The smallest observed order over the four variables from `cells` to
/// twice as many.
fn order(make: impl Fn(usize) -> Settings, cells: usize) -> f64 {
    let (a, b) = (l2(&make(cells)), l2(&make(2 * cells)));
    let rates: Vec<f64> = (0..4).map(|v| (a[v] / b[v]).log2()).collect();
    let e = |v: [f64; 5]| v.map(|x| format!("{x:.3e}")).join(" ");
    eprintln!(
        "cells {cells} -> {}: L2 {} -> {}, orders {rates:.2?}",
        2 * cells,
        e(a),
        e(b)
    );
    rates.into_iter().fold(f64::INFINITY, f64::min)
}

/// The vortex converges at order `n` (= p + 1), once the grid resolves
/// its core (radius 1/20 of the box; coarser, the orders are lower:
/// docs/verification.md has the whole study): order 4 with the
/// Lax-Friedrichs flux from 32 to 64 cells, order 5 with HLL from 20 to 40,
/// to `t = 0.2`.
#[test]
fn isentropic_vortex_converges_at_order_n() {
    for (n, cells, flux) in [(4, 32, FaceFlux::Rusanov), (5, 20, FaceFlux::Hll)] {
        let at = |c: usize| Settings {
            final_time: 0.2,
            ..vortex(n, c, flux)
        };
        let p = order(at, cells);
        assert!(p >= n as f64 - 0.4, "n = {n}, {}: order {p}", flux.name());
    }
}

/// The density wave converges at order `n` with 4 nodes (from 8 to 16
/// cells at `t = 1`: 4.26 measured; with odd `n` the orders measured here
/// are nearer `n - 1`, docs/verification.md).
#[test]
fn density_wave_converges_at_order_n() {
    let at = |c: usize| Settings {
        final_time: 1.0,
        ..density_wave(4, c, FaceFlux::Hll)
    };
    let p = order(at, 8);
    assert!(p >= 3.6, "order {p}");
}

/// A constant state stays constant to the bit with the Lax-Friedrichs
/// flux (the volume term is summed as differences, the flux of two equal
/// states is their flux), and to round-off with HLL.
#[test]
fn a_constant_state_is_kept() {
    for flux in [FaceFlux::Rusanov, FaceFlux::Hll] {
        let s = Settings {
            initial: Initial::Constant,
            velocity: vec![0.7, -0.3],
            pressure: 2.0,
            final_time: 0.05,
            ..vortex(5, 3, flux)
        };
        common::check_constant_state_kept(&s);
    }
}

/// Mass is conserved to round-off; the smallest density or pressure stays
/// that of the vortex's core; threads give the serial bits.
#[test]
fn mass_is_conserved_and_threads_match_serial() {
    let s = vortex(4, 12, FaceFlux::Hll);
    let (first, last, mut a) = common::run_checking_mass(&s);
    // The core's pressure, the smallest of density and pressure: rho T
    // with T = 1 - 0.4 * 25 e / (11.2 pi^2), rho = T^2.5. The nodes need
    // not sit at the centre: their smallest value is above it, and moves
    // little as the vortex travels.
    let t: f64 = 1.0 - 0.4 * 25.0 * 1f64.exp() / (8.0 * 1.4 * std::f64::consts::PI.powi(2));
    let core = t.powf(3.5);
    assert!(
        last[3] >= core - 0.01 && (last[3] - first[3]).abs() < 0.05,
        "min density or pressure {} -> {} (core {core})",
        first[3],
        last[3]
    );
    common::check_threads_match(&s, &mut a);
}

/// Far above the stability limit the pressure goes negative: the step
/// stops with a message naming the quantity and the cell, and the state of
/// the step before is put back.
#[test]
fn a_negative_pressure_stops_the_run_naming_the_cell() {
    let s = Settings {
        cfl: 6.0,
        final_time: 1.0,
        ..vortex(6, 6, FaceFlux::Rusanov)
    };
    let mut solver = Solver::new(&s, &BackendSpec::serial()).unwrap();
    let mut before = solver.state();
    while solver.time() < s.final_time {
        match solver.step() {
            Ok(row) => {
                assert!(row[3] > 0.0);
                before = solver.state();
            }
            Err(StepError::NonPhysical(m)) => {
                assert!(m.contains("in cell ["), "{m}");
                assert!(m.contains("pressure") || m.contains("density"), "{m}");
                assert!(solver.state() == before, "the last sound state is kept");
                return;
            }
            Err(e) => panic!("{e}"),
        }
    }
    panic!("cfl 6 with order 6 did not blow up");
}

/// The settings refuse what the equations cannot take, naming the key.
#[test]
fn bad_settings_are_refused() {
    let base = vortex(3, 4, FaceFlux::Rusanov);
    for (s, needle) in [
        (
            Settings {
                gamma: 1.0,
                ..base.clone()
            },
            "gamma = 1",
        ),
        (
            Settings {
                pressure: -1.0,
                ..base.clone()
            },
            "pressure = -1",
        ),
        (
            Settings {
                dimensions: 1,
                cells: vec![4],
                velocity: vec![1.0],
                ..base.clone()
            },
            "dimensions = 1",
        ),
        (
            Settings {
                initial: Initial::Shear,
                ..base.clone()
            },
            "initial = \"shear\"",
        ),
        (
            Settings {
                initial: Initial::DensityWave,
                amplitude: 1.5,
                ..base.clone()
            },
            "amplitude = 1.5",
        ),
        (
            Settings {
                equation: Equation::Advection,
                initial: Initial::Sine,
                flux: FaceFlux::Hll,
                ..base.clone()
            },
            "flux = \"hll\"",
        ),
    ] {
        let e = s.validate().expect_err(needle);
        assert!(e.contains(needle), "{e}");
    }
}
