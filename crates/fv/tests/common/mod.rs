//! What the fv test binaries share: a backend spec and a run of OP2's
//! 40 x 60 mesh.

use qflow_fv::{Settings, Solver};
use qflow_mesh::poly::naca0012::Op2Naca0012;
use qflow_par::backend::{BackendKind, BackendSpec};

/// A CPU backend of `threads` threads, the rest default.
#[allow(dead_code)] // not every test binary uses it
pub fn spec(kind: BackendKind, threads: usize) -> BackendSpec {
    BackendSpec {
        kind,
        threads,
        ..BackendSpec::default()
    }
}

/// `iters` iterations on OP2's 40 x 60 mesh: the rms history and the state.
#[allow(dead_code)] // not every test binary uses it
pub fn run_with(spec: &BackendSpec, settings: &Settings, iters: u64) -> (Vec<f64>, Vec<[f64; 4]>) {
    let mesh = Op2Naca0012 { i: 40, j: 60 }.generate().unwrap();
    let mut s = Solver::new(&mesh, settings, spec).unwrap();
    let rms = (0..iters).map(|_| s.step().unwrap()).collect();
    (rms, s.state())
}

/// OP2's `i x j` mesh with every `every`-th quadrilateral split into two
/// triangles (1: all triangles, 2: a mixed mesh); its walls are far field
/// where `walls` is false (a mesh round nothing).
#[allow(dead_code)] // not every test binary uses it
pub fn split_mesh(i: usize, j: usize, every: usize, walls: bool) -> qflow_mesh::poly::PolyMesh {
    use qflow_mesh::poly::{cells::CellMesh, Boundary};
    let quads = Op2Naca0012 { i, j }.generate().unwrap();
    let wall = if walls {
        Boundary::Wall
    } else {
        Boundary::FarField
    };
    CellMesh::from_poly(&quads)
        .split_quadrilaterals(every)
        .to_poly_mesh(&[("wall", wall), ("farfield", Boundary::FarField)])
        .unwrap()
}
