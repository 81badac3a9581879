//! What the fv test binaries share: a backend spec and a run of OP2's
//! 40 x 60 mesh.

use qflow_fv::{Settings, Solver};
use qflow_mesh::poly::naca0012::Op2Naca0012;
use qflow_par::backend::{BackendKind, BackendSpec};

/// A CPU backend of `threads` threads, the rest default.
pub fn spec(kind: BackendKind, threads: usize) -> BackendSpec {
    BackendSpec {
        kind,
        threads,
        ..BackendSpec::default()
    }
}

/// `iters` iterations on OP2's 40 x 60 mesh: the rms history and the state.
pub fn run_with(spec: &BackendSpec, settings: &Settings, iters: u64) -> (Vec<f64>, Vec<[f64; 4]>) {
    let mesh = Op2Naca0012 { i: 40, j: 60 }.generate().unwrap();
    let mut s = Solver::new(&mesh, settings, spec).unwrap();
    let rms = (0..iters).map(|_| s.step().unwrap()).collect();
    (rms, s.state())
}
