//! What the compressible Euler tests (2D and 3D) share.

use qflow_dg::settings::FaceFlux;
use qflow_dg::{Settings, Solver};
use qflow_par::backend::BackendSpec;

/// Runs `s` (a constant state) serially to its end and checks the state
/// against the start: the same bits with the Lax-Friedrichs flux (the
/// volume term is summed as differences, the flux of two equal states is
/// their flux), within 1e-13 relative with HLL.
pub fn check_constant_state_kept(s: &Settings) {
    let mut solver = Solver::new(s, &BackendSpec::serial()).unwrap();
    let start = solver.state();
    assert!(solver.run_to_end().unwrap() > 2);
    let worst = start
        .iter()
        .zip(solver.state())
        .map(|(a, b)| (a - b).abs() / a.abs().max(1.0))
        .fold(0.0, f64::max);
    match s.flux {
        FaceFlux::Rusanov => assert_eq!(worst, 0.0, "the state moved"),
        FaceFlux::Hll => assert!(worst < 1e-13, "the state moved by {worst:e}"),
    }
}

/// Runs `s` serially step by step to its end: checks the mass (the
/// history row's second value) conserved to 1e-13 relative, returns the
/// first and last rows and the solver.
pub fn run_checking_mass(s: &Settings) -> (Vec<f64>, Vec<f64>, Solver) {
    let mut a = Solver::new(s, &BackendSpec::serial()).unwrap();
    let first = a.step().unwrap();
    let mut last = first.clone();
    while a.time() < s.final_time {
        last = a.step().unwrap();
    }
    assert!(
        (last[1] - first[1]).abs() <= 1e-13 * first[1],
        "mass {} -> {}",
        first[1],
        last[1]
    );
    (first, last, a)
}

/// Checks that 2 threads give `serial`'s final state of `s` to the bit.
pub fn check_threads_match(s: &Settings, serial: &mut Solver) {
    let mut b = Solver::new(s, &BackendSpec::threads(2)).unwrap();
    b.run_to_end().unwrap();
    assert!(serial.state() == b.state(), "threads differ from serial");
}
