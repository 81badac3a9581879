//! The scheme on triangles and on mixed meshes (OP2's NACA 0012 mesh with
//! its quadrilaterals split): the free stream kept to round-off at any
//! angle, threads bit for bit the serial run, and the flow round the
//! section converging.

mod common;

use common::{spec, split_mesh};
use qflow_fv::{Settings, Solver};
use qflow_par::backend::BackendKind;

/// With no wall, a uniform flow at 30 degrees is a solution of the
/// discrete equations: every cell's sides close, and the far field is the
/// free stream itself. It stays to round-off on triangles and on mixed
/// cells.
#[test]
fn the_free_stream_is_kept_on_triangles_and_mixed_cells() {
    let settings = Settings {
        aoa: 30.0,
        ..Settings::default()
    };
    let qinf = settings.qinf();
    for every in [1, 2] {
        let mesh = split_mesh(20, 30, every, false);
        let mut s = Solver::new(&mesh, &settings, &spec(BackendKind::Serial, 1)).unwrap();
        for _ in 0..50 {
            s.step().unwrap();
        }
        let worst = s
            .state()
            .iter()
            .flat_map(|q| (0..4).map(move |c| (q[c] - qinf[c]).abs()))
            .fold(0.0, f64::max);
        assert!(
            worst < 1e-12,
            "every {every}: {worst:e} from the free stream"
        );
    }
}

/// The same polygons on 1 and 3 threads: the same bits (owner compute
/// keeps OP2's sequential order of increments on any mesh).
#[test]
fn threads_give_the_serial_bits_on_a_mixed_mesh() {
    let mesh = split_mesh(20, 30, 2, true);
    let settings = Settings {
        aoa: 2.0,
        ..Settings::default()
    };
    let run = |kind, threads| {
        let mut s = Solver::new(&mesh, &settings, &spec(kind, threads)).unwrap();
        let rms: Vec<f64> = (0..40).map(|_| s.step().unwrap()).collect();
        (rms, s.state())
    };
    let serial = run(BackendKind::Serial, 1);
    assert_eq!(run(BackendKind::Threads, 3), serial);
}

/// Round the section on triangles the residual falls: the run converges
/// rather than merely staying finite.
#[test]
fn the_flow_round_the_section_converges_on_triangles() {
    let mesh = split_mesh(20, 30, 1, true);
    let mut s = Solver::new(&mesh, &Settings::default(), &spec(BackendKind::Threads, 2)).unwrap();
    let rms: Vec<f64> = (0..2000).map(|_| s.step().unwrap()).collect();
    assert!(rms.iter().all(|r| r.is_finite()));
    assert!(
        rms[1999] < 1e-3 * rms[9],
        "rms {:e} at 10, {:e} at 2000",
        rms[9],
        rms[1999]
    );
}
