//! Linear advection by the DG method on the layer: convergence orders in
//! 1D and 2D, free-stream preservation, stability at the documented CFL
//! limit for every order and scheme, and threads against serial.

use qflow_dg::{Initial, Settings, Solver};
use qflow_par::backend::BackendSpec;

fn settings(dimensions: usize, order: usize, cells: usize, rk: &str) -> Settings {
    Settings {
        dimensions,
        order,
        cells: vec![cells; dimensions],
        velocity: vec![1.0; dimensions],
        rk: rk.into(),
        final_time: 1.0,
        cfl: 0.5,
        initial: Initial::Sine,
        ..Settings::default()
    }
}

/// `(l2, linf)` at the final time.
fn errors(s: &Settings, spec: &BackendSpec) -> (f64, f64) {
    let mut solver = Solver::new(s, spec).unwrap();
    solver.run_to_end().unwrap();
    assert_eq!(solver.time(), s.final_time);
    solver.errors()
}

/// The observed orders of the L2 errors on grids of `cells` (each twice
/// the last).
fn orders(dimensions: usize, order: usize, cells: &[usize], rk: &str, cfl: f64) -> Vec<f64> {
    let l2: Vec<f64> = cells
        .iter()
        .map(|&c| {
            let s = Settings {
                cfl,
                ..settings(dimensions, order, c, rk)
            };
            errors(&s, &BackendSpec::serial()).0
        })
        .collect();
    let p: Vec<f64> = l2.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
    eprintln!("{dimensions}D n = {order} {rk}: cells {cells:?} L2 {l2:.3?} orders {p:.2?}");
    p
}

#[test]
fn one_node_is_first_order() {
    // 64 cells per wavelength before the upwind scheme's error is in its
    // asymptotic range.
    for p in orders(1, 1, &[64, 128, 256], "rk4", 0.5) {
        assert!(p > 0.85 && p < 1.2, "order {p}");
    }
}

#[test]
fn orders_1d_are_p_plus_1() {
    // Two GLL nodes (a lumped P1 mass matrix) reach their asymptotic
    // range later: orders 1.65, 1.90, 1.98 from 8 to 64 cells.
    for (n, rk, cells) in [
        (2, "rk4", [16, 32, 64]),
        (3, "lserk54", [8, 16, 32]),
        (4, "rk4", [8, 16, 32]),
    ] {
        for p in orders(1, n, &cells, rk, 0.25) {
            assert!(p >= n as f64 - 0.3, "n = {n} ({rk}): order {p}");
        }
    }
}

#[test]
fn orders_1d_high_order_and_other_schemes() {
    // Degree 5 with RK6: the spatial error dominates.
    for p in orders(1, 6, &[4, 8], "rk6", 0.25) {
        assert!(p >= 5.7, "n = 6 (rk6): order {p}");
    }
    // Third-order schemes with degree 2.
    for rk in ["rk3-heun", "ssprk3"] {
        for p in orders(1, 3, &[8, 16, 32], rk, 0.25) {
            assert!(p >= 2.7, "n = 3 ({rk}): order {p}");
        }
    }
}

/// 3D: the tensor product along x, y and z, velocity (1, 1, 1), half a
/// revolution.
#[test]
fn orders_3d_are_p_plus_1() {
    let l2: Vec<f64> = [4, 8]
        .iter()
        .map(|&c| {
            let s = Settings {
                final_time: 0.5,
                ..settings(3, 3, c, "lserk54")
            };
            errors(&s, &BackendSpec::serial()).0
        })
        .collect();
    let p = (l2[0] / l2[1]).log2();
    eprintln!("3D n = 3: L2 {l2:?} order {p:.2}");
    assert!(p >= 2.7, "3D n = 3: order {p}");
}

#[test]
fn orders_2d_are_p_plus_1() {
    for p in orders(2, 3, &[4, 8, 16], "lserk54", 0.5) {
        assert!(p >= 2.7, "2D n = 3: order {p}");
    }
}

/// A constant stays constant: the volume term is summed as
/// `sum_j D_ij (f_j - f_i)` and the flux of equal states is exact.
#[test]
fn free_stream_is_preserved() {
    for (dim, n, rk) in [
        (1, 8, "rk4"),
        (2, 5, "lserk54"),
        (2, 8, "rk6"),
        (3, 4, "rk4"),
    ] {
        let s = Settings {
            initial: Initial::Constant,
            velocity: [0.7, -0.3, 0.4][..dim].to_vec(),
            final_time: 0.25,
            ..settings(dim, n, 5, rk)
        };
        let (l2, linf) = errors(&s, &BackendSpec::serial());
        assert!(linf <= 1e-13 && l2 <= 1e-13, "{dim}D n = {n}: {l2} {linf}");
    }
}

/// At `cfl = 1` of the documented rule every order and scheme keeps the
/// solution's L2 norm (the discrete energy, which the semi-discrete
/// upwind method does not increase) from growing over four periods; an
/// unstable mode would grow by orders of magnitude over the hundreds to
/// thousands of steps.
#[test]
fn stable_at_cfl_one_for_every_order_and_scheme() {
    let check = |s: &Settings, what: &str| {
        let mut solver = Solver::new(s, &BackendSpec::serial()).unwrap();
        let start = solver.l2_norm();
        solver.run_to_end().unwrap();
        let end = solver.l2_norm();
        assert!(
            end.is_finite() && end <= start * (1.0 + 1e-9),
            "{what}: L2 norm {start} -> {end}"
        );
    };
    for rk in ["rk3-heun", "ssprk3", "rk4", "rk6", "lserk54"] {
        for n in 1..=8 {
            let s = Settings {
                cfl: 1.0,
                final_time: 4.0,
                ..settings(1, n, 8, rk)
            };
            check(&s, &format!("1D n = {n} ({rk})"));
        }
    }
    // 2D with an oblique velocity.
    for n in [2, 5, 8] {
        let s = Settings {
            cfl: 1.0,
            velocity: vec![1.0, -0.5],
            final_time: 1.0,
            ..settings(2, n, 4, "lserk54")
        };
        check(&s, &format!("2D n = {n}"));
    }
    // 3D.
    let s = Settings {
        cfl: 1.0,
        velocity: vec![1.0, -0.5, 0.7],
        final_time: 0.5,
        ..settings(3, 5, 3, "rk4")
    };
    check(&s, "3D n = 5");
}

#[test]
fn threads_are_bit_identical_to_serial() {
    // 2D on 12^2 cells and 3D: loops of more than 64 cells, run in parts
    // on the threads, whose parts also refresh the one-rank periodic halo
    // of what they write (the layer's fused halo copies).
    for (dim, n, rk, cells) in [
        (1, 5, "rk4", 7),
        (2, 4, "lserk54", 7),
        (2, 4, "lserk54", 12),
        (2, 3, "rk6", 12),
        (3, 3, "rk4", 7),
    ] {
        let s = Settings {
            velocity: [1.0, 0.6, -0.8][..dim].to_vec(),
            final_time: 0.2,
            ..settings(dim, n, cells, rk)
        };
        let mut a = Solver::new(&s, &BackendSpec::serial()).unwrap();
        a.run_to_end().unwrap();
        let mut b = Solver::new(&s, &BackendSpec::threads(2)).unwrap();
        b.run_to_end().unwrap();
        assert!(a.steps() > 10);
        let (qa, qb) = (a.state(), b.state());
        assert_eq!(qa.len(), qb.len());
        for (k, (x, y)) in qa.iter().zip(&qb).enumerate() {
            assert_eq!(x.to_bits(), y.to_bits(), "{dim}D value {k}: {x} vs {y}");
        }
    }
}

/// `advance(n)` (the steps inside the pool) is `n` calls of `step`: the
/// same steps, state and last history row, on the threads against serial.
#[test]
fn advance_is_steps_one_by_one() {
    let s = Settings {
        velocity: vec![1.0, 0.6],
        final_time: 1.0,
        ..settings(2, 4, 12, "lserk54")
    };
    let mut a = Solver::new(&s, &BackendSpec::serial()).unwrap();
    let mut row = Vec::new();
    for _ in 0..7 {
        row = a.step().unwrap();
    }
    let mut b = Solver::new(&s, &BackendSpec::threads(2)).unwrap();
    b.advance(3).unwrap();
    assert!(b.advance(0).unwrap().is_empty());
    let last = b.advance(4).unwrap();
    assert_eq!((a.steps(), b.steps()), (7, 7));
    assert_eq!(a.time(), b.time());
    assert_eq!(row.len(), last.len());
    for (x, y) in row.iter().zip(&last) {
        assert_eq!(x.to_bits(), y.to_bits(), "history row: {row:?} vs {last:?}");
    }
    let (qa, qb) = (a.state(), b.state());
    assert!(qa.iter().zip(&qb).all(|(x, y)| x.to_bits() == y.to_bits()));
}

#[test]
fn settings_errors_name_the_key() {
    let bad = Settings {
        order: 9,
        ..Settings::default()
    };
    let e = bad.validate().unwrap_err();
    assert!(e.starts_with("[dg] order = 9:"), "{e}");
    let bad = Settings {
        rk: "rk5".into(),
        ..Settings::default()
    };
    assert!(bad
        .validate()
        .unwrap_err()
        .starts_with("[dg] rk = \"rk5\":"));
    let bad = Settings {
        dimensions: 4,
        ..Settings::default()
    };
    assert!(bad
        .validate()
        .unwrap_err()
        .starts_with("[dg] dimensions = 4:"));
}

/// The elements are sized for the order (no padding: `n^2` values per
/// 2D cell), every value in use, and the final step lands on the final
/// time.
#[test]
fn elements_are_sized_for_the_order() {
    let s = Settings {
        final_time: 0.1,
        ..settings(2, 3, 4, "rk4")
    };
    let mut solver = Solver::new(&s, &BackendSpec::serial()).unwrap();
    solver.run_to_end().unwrap();
    assert_eq!(solver.time(), 0.1);
    let q = solver.state();
    assert_eq!(q.len(), 4 * 4 * 9);
    assert_eq!(qflow_dg::problem::element_len(&s), 9);
    assert!(q.iter().all(|v| *v != 0.0 && v.is_finite()));
}

/// Far above the stability limit the solution grows without bound: the
/// first step whose norm is more than twice the initial state's (the
/// upwind flux lets it only fall) stops with a message naming it, and the
/// state of the step before is put back (kept for the checkpoint).
#[test]
fn a_blown_up_step_stops_and_keeps_the_last_finite_state() {
    let s = Settings {
        cfl: 4.0,
        final_time: 1e6,
        ..settings(1, 8, 8, "rk4")
    };
    let mut solver = Solver::new(&s, &BackendSpec::serial()).unwrap();
    let mut before = solver.state();
    let mut last_norm = 0.0;
    for _ in 0..100_000 {
        match solver.step() {
            Ok(row) => {
                assert!(row[1].is_finite());
                before = solver.state();
                last_norm = row[1];
            }
            Err(qflow_par::driver::StepError::NonPhysical(m)) => {
                assert!(m.contains("more than twice the initial state's"), "{m}");
                // The kept state's norm within the bound (sin(2 pi x): the
                // initial norm is sqrt(1/2)).
                assert!(last_norm > 0.0 && last_norm <= 2.0 * 0.5f64.sqrt(), "{m}");
                assert!(solver.state() == before, "the last finite state is kept");
                return;
            }
            Err(e) => panic!("{e}"),
        }
    }
    panic!("cfl 4 with order 8 did not blow up");
}

/// The paper's multi-mode signal (eq. 14, Nk = 40, seeded): one revolution
/// at order 8 with RK6 is resolved from about 8 nodes per shortest wave on
/// (L2 error 1.24, 4.5e-2, 6.7e-5 on 16, 32, 64 cells measured, the norm
/// 2.4): the error falls by more than 100 from 32 to 64 cells; the signal
/// depends on its seed and its amplitudes lie in [0, 1).
#[test]
fn the_multimode_signal_converges_once_resolved() {
    let mm = |cells: usize| Settings {
        initial: Initial::Multimode,
        ..settings(1, 8, cells, "rk6")
    };
    let a = mm(8).amplitudes();
    assert_eq!(a.len(), 40);
    assert!(a.iter().all(|x| (0.0..1.0).contains(x)));
    let other = Settings { seed: 2, ..mm(8) };
    assert_ne!(a, other.amplitudes());
    let (e32, _) = errors(&mm(32), &BackendSpec::serial());
    let (e64, _) = errors(&mm(64), &BackendSpec::serial());
    assert!(e64 < 1e-3 && e32 / e64 > 100.0, "L2 {e32:e} then {e64:e}");
}
