//! Isothermal Euler by the DG method on the layer: the exact solutions
//! (the simple wave in 1D and along the diagonal in 2D, the boosted shear
//! flow), the observed orders against them, free-stream preservation to
//! the bit, conservation of mass, threads against serial, and a blown-up
//! step stopping with the last sound state kept.

use qflow_dg::{Equation, Initial, Settings, Solver};
use qflow_par::backend::BackendSpec;
use qflow_par::driver::StepError;

/// A simple wave of amplitude 0.2 on a background flow, to `t = 0.4`
/// (it breaks at 0.78 in 1D, 0.55 in 2D).
fn wave(dimensions: usize, order: usize, cells: usize, rk: &str) -> Settings {
    Settings {
        equation: Equation::IsothermalEuler,
        dimensions,
        order,
        cells: vec![cells; dimensions],
        velocity: [0.3, -0.2, 0.1][..dimensions].to_vec(),
        sound_speed: 1.0,
        amplitude: 0.2,
        rk: rk.into(),
        final_time: 0.4,
        cfl: 0.5,
        initial: Initial::SimpleWave,
        ..Settings::default()
    }
}

/// The L2 errors of every variable at the final time.
fn l2(s: &Settings) -> [f64; 5] {
    let mut solver = Solver::new(s, &BackendSpec::serial()).unwrap();
    solver.run_to_end().unwrap();
    assert_eq!(solver.time(), s.final_time);
    solver.variable_errors().0
}

/// The observed orders of the L2 errors over `cells` (each twice the
/// last), per grid pair: `[density, momenta]` (the momenta's the smaller
/// of the components'; advection: the one variable twice).
fn orders_by_variable(make: impl Fn(usize) -> Settings, cells: &[usize]) -> Vec<[f64; 2]> {
    let e: Vec<[f64; 5]> = cells.iter().map(|&c| l2(&make(c))).collect();
    let vars = make(cells[0]).variables();
    let p: Vec<[f64; 2]> = e
        .windows(2)
        .map(|w| {
            let rate = |v: usize| (w[0][v] / w[1][v]).log2();
            let momenta = (1..vars).map(rate).fold(f64::INFINITY, f64::min);
            [rate(0), momenta]
        })
        .collect();
    let shown: Vec<String> = e.iter().map(|v| format!("{:.3e}", v[0])).collect();
    eprintln!("cells {cells:?}: L2 (density) {shown:?} orders (density, momenta) {p:.2?}");
    p
}

/// The smallest observed order of any variable per grid pair.
fn orders(make: impl Fn(usize) -> Settings, cells: &[usize]) -> Vec<f64> {
    orders_by_variable(make, cells)
        .iter()
        .map(|p| p[0].min(p[1]))
        .collect()
}

/// The simple wave in 1D: order `n` (= p + 1); with n = 5 the coarsest
/// pair is still short of it (8 cells at t = 0.4: the wave has steepened).
#[test]
fn simple_wave_1d_converges_at_order_n() {
    for p in orders(|c| wave(1, 3, c, "lserk54"), &[16, 32, 64]) {
        assert!(p >= 2.6, "1D n = 3: order {p}");
    }
    let p = orders(|c| wave(1, 5, c, "rk6"), &[8, 16, 32]);
    assert!(p[0] >= 3.8 && p[1] >= 4.6, "1D n = 5: orders {p:?}");
}

/// The simple wave along the diagonal (both directions' operators and
/// their coupling through the cross flux `rho u v`): the density
/// converges at order `n`; the momenta at order `n` while the wave is
/// weak (A = 0.02: 2.94, 2.83 at n = 3), at about `n - 1` once it is not
/// (A = 0.2: 2.2, 2.1; n = 4: 3.15, n = 6: 5.1). The same wave along x (in
/// 2D, also with a tangential flow) converges at order `n` in every
/// variable; a split-form volume term and a Roe flux in place of the
/// Lax-Friedrichs one did not change the rate (docs/dg.md).
#[test]
fn simple_wave_along_the_diagonal_converges() {
    let weak = |c: usize| Settings {
        velocity: vec![0.0, 0.0],
        amplitude: 0.02,
        final_time: 0.1,
        ..wave(2, 3, c, "rk4")
    };
    for p in orders(weak, &[16, 32]) {
        assert!(p >= 2.85, "2D n = 3, A = 0.02: order {p}");
    }
    let strong = |c: usize| Settings {
        final_time: 0.2,
        ..wave(2, 3, c, "rk4")
    };
    for [rho, m] in orders_by_variable(strong, &[8, 16, 32]) {
        assert!(
            rho >= 2.5 && m >= 1.95,
            "2D n = 3, A = 0.2: orders {rho} {m}"
        );
    }
}

/// The boosted shear flow (`v` a function of `x - U t`, transported by
/// the contact wave): order `n` at n = 4, where the damping of the
/// Lax-Friedrichs flux falls below the scheme's own error.
#[test]
fn boosted_shear_flow_converges_at_order_n() {
    let shear = |c: usize| Settings {
        initial: Initial::Shear,
        amplitude: 0.5,
        final_time: 1.0,
        ..wave(2, 4, c, "rk4")
    };
    for p in orders(shear, &[4, 8, 16]) {
        assert!(p >= 3.9, "shear n = 4: order {p}");
    }
}

/// A constant state stays constant to the bit at every order: the volume
/// term is summed as `sum_j D_ij (f_j - f_i)` and the Lax-Friedrichs flux
/// of two equal states is their flux exactly.
#[test]
fn free_stream_is_preserved_to_the_bit() {
    for (dim, n, rk) in [
        (1, 1, "rk4"),
        (1, 8, "ssprk3"),
        (2, 5, "lserk54"),
        (2, 8, "rk6"),
        (3, 3, "rk4"),
    ] {
        let s = Settings {
            initial: Initial::Constant,
            velocity: [0.7, -0.3, 0.2][..dim].to_vec(),
            final_time: 0.3,
            ..wave(dim, n, 3, rk)
        };
        let mut solver = Solver::new(&s, &BackendSpec::serial()).unwrap();
        let start = solver.state();
        let steps = solver.run_to_end().unwrap();
        assert!(steps > 2);
        let end = solver.state();
        let moved: Vec<(usize, f64, f64)> = start
            .iter()
            .zip(&end)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(k, (a, b))| (k, *a, *b))
            .take(4)
            .collect();
        assert!(
            moved.is_empty(),
            "{dim}D n = {n}: the state moved {moved:?}"
        );
    }
}

/// The scheme conserves mass: the history's mass stays at its start to
/// round-off, and the smallest density stays near `1 - A`.
#[test]
fn mass_is_conserved() {
    for dim in [1, 2, 3] {
        let s = if dim == 3 {
            Settings {
                final_time: 0.1,
                ..wave(3, 4, 4, "rk4")
            }
        } else {
            wave(dim, 4, 8, "rk4")
        };
        let mut solver = Solver::new(&s, &BackendSpec::serial()).unwrap();
        let first = solver.step().unwrap();
        let mut last = first.clone();
        while solver.time() < s.final_time {
            last = solver.step().unwrap();
        }
        assert!(
            (last[1] - first[1]).abs() <= 1e-14 * first[1],
            "{dim}D: mass {} -> {}",
            first[1],
            last[1]
        );
        assert!(
            (last[3] - 0.8).abs() < if dim == 3 { 0.05 } else { 0.02 },
            "{dim}D: min density {}",
            last[3]
        );
        assert!(last[2] > 0.0 && last[2].is_finite());
    }
}

/// Threads give the serial bits (every loop writes its own cell; the 2D
/// low-storage stages keep a work space per chunk of cells, 12^2 cells
/// being several chunks).
#[test]
fn threads_match_serial_to_the_bit() {
    let three = Settings {
        final_time: 0.1,
        ..wave(3, 3, 4, "rk4")
    };
    let stages = Settings {
        final_time: 0.1,
        ..wave(2, 6, 12, "lserk54")
    };
    for s in [wave(2, 5, 6, "rk6"), three, stages] {
        let mut a = Solver::new(&s, &BackendSpec::serial()).unwrap();
        a.run_to_end().unwrap();
        let mut b = Solver::new(&s, &BackendSpec::threads(2)).unwrap();
        b.run_to_end().unwrap();
        assert!(a.state() == b.state(), "{}D", s.dimensions);
    }
}

/// The simple wave along the cube's diagonal (3D): the operators along x,
/// y and z and the two tangential momenta of each; density and momenta
/// near order `n` from 4^3 to 8^3 cells (2.46 and 2.55-2.64 measured; the
/// momenta of oblique waves approach order `n - 1` on finer grids, as in
/// 2D).
#[test]
fn simple_wave_along_the_cube_diagonal_converges() {
    let cube = |c: usize| Settings {
        final_time: 0.1,
        ..wave(3, 3, c, "rk4")
    };
    for [rho, m] in orders_by_variable(cube, &[4, 8]) {
        assert!(rho >= 2.3 && m >= 2.3, "3D n = 3: orders {rho} {m}");
    }
}

/// Far above the stability limit the solution blows up: the step that
/// leaves it non-finite (or with a density <= 0) stops with a message,
/// and the state of the step before is put back.
#[test]
fn a_blown_up_step_stops_and_keeps_the_last_sound_state() {
    let s = Settings {
        cfl: 4.0,
        ..wave(1, 8, 8, "rk4")
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
                assert!(m.contains("density"), "{m}");
                assert!(solver.state() == before, "the last sound state is kept");
                return;
            }
            Err(e) => panic!("{e}"),
        }
    }
    panic!("cfl 4 with order 8 did not blow up");
}

/// The settings refuse what the equation cannot take, naming the key.
#[test]
fn bad_physics_is_refused() {
    let err = |s: Settings| s.validate().unwrap_err();
    let e = err(Settings {
        final_time: 1.0,
        ..wave(1, 4, 8, "rk4")
    });
    assert!(
        e.contains("[dg] final_time = 1") && e.contains("breaks"),
        "{e}"
    );
    let e = err(Settings {
        amplitude: 1.0,
        ..wave(1, 4, 8, "rk4")
    });
    assert!(e.contains("[dg] amplitude = 1"), "{e}");
    let e = err(Settings {
        sound_speed: 0.0,
        ..wave(1, 4, 8, "rk4")
    });
    assert!(e.contains("[dg] sound_speed = 0"), "{e}");
    let e = err(Settings {
        initial: Initial::Shear,
        ..wave(1, 4, 8, "rk4")
    });
    assert!(e.contains("shear") && e.contains("2D"), "{e}");
    let e = err(Settings {
        initial: Initial::Sine,
        ..wave(2, 4, 8, "rk4")
    });
    assert!(e.contains("[dg] initial = \"sine\""), "{e}");
    let e = err(Settings {
        equation: Equation::Advection,
        ..wave(2, 4, 8, "rk4")
    });
    assert!(e.contains("[dg] initial = \"simple-wave\""), "{e}");
}

/// The finer-grid rates of docs/verification.md 11b (not in CI, minutes):
/// the diagonal wave at rest, A = 0.2, t = 0.1, n = 3 on 8-128 cells and
/// n = 4, 6 on 8-64, and the weaker waves A = 0.02, 0.05, 0.1 at n = 3.
/// Run: `cargo test --release -p qflow-dg --test euler -- --ignored --nocapture`.
#[test]
#[ignore]
fn diagonal_wave_rates_on_finer_grids() {
    let at_rest = |n: usize, amp: f64| {
        move |c: usize| Settings {
            velocity: vec![0.0, 0.0],
            amplitude: amp,
            final_time: 0.1,
            ..wave(2, n, c, "rk4")
        }
    };
    orders_by_variable(at_rest(3, 0.2), &[8, 16, 32, 64, 128]);
    orders_by_variable(at_rest(4, 0.2), &[8, 16, 32, 64]);
    orders_by_variable(at_rest(6, 0.2), &[8, 16, 32, 64]);
    for amp in [0.02, 0.05, 0.1] {
        orders_by_variable(at_rest(3, amp), &[16, 32, 64]);
    }
}
