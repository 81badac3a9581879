//! The Airfoil method on one process without the run driver: a mesh, a
//! backend, and iterations on demand. For tests, benchmarks and programs
//! that drive the iteration themselves; `qflow run` uses the driver.

use qflow_mesh::poly::PolyMesh;
use qflow_par::backend::{BackendSpec, Program};
use qflow_par::driver::{Method, StepError};
use qflow_par::{Exec, Values};

use crate::decl::{LOOPS, Q};
use crate::method::Fv;
use crate::{problem, Settings};

/// An Airfoil run on one process.
pub struct Solver {
    /// The executor.
    pub ex: Exec,
    /// The method.
    pub method: Fv,
    iteration: u64,
    cells: problem::CellOrder,
}

impl Solver {
    /// A solver on `mesh` (which must have passed
    /// `qflow_mesh::poly::check`) with the backend `spec` asks for (its
    /// plan for the edge loops from `settings`), every cell at the free
    /// stream.
    pub fn new(mesh: &PolyMesh, settings: &Settings, spec: &BackendSpec) -> Result<Solver, String> {
        let problem::Built { problem: p, cells } = problem::build(mesh, settings)?;
        let mut method = Fv::new(settings.clone(), mesh.cells());
        let program = Program {
            name: "fv",
            loops: &LOOPS,
            device_source: method.device_source(),
        };
        // The method's settings choose the plan of its edge loops.
        let spec = settings.backend(spec);
        let mut ex = qflow_par::launch::single_process(&p, &program, method.globals(), &spec)?;
        drop(p);
        method.start(&mut ex).map_err(|e| e.to_string())?;
        Ok(Solver {
            ex,
            method,
            iteration: 0,
            cells,
        })
    }

    /// Runs one iteration; its rms.
    pub fn step(&mut self) -> Result<f64, StepError> {
        let it = self.iteration + 1;
        let mut row = [0.0; 2];
        qflow_par::driver::step_in_pool(&mut self.method, &mut self.ex, it, &mut row)?;
        self.iteration = it;
        Ok(row[0])
    }

    /// Completed iterations.
    pub fn iteration(&self) -> u64 {
        self.iteration
    }

    /// The state of every cell, `[rho, rho u, rho v, rho E]`, in the
    /// mesh's numbering.
    pub fn state(&mut self) -> Vec<[f64; 4]> {
        match self.ex.gather(&Q) {
            Some(Values::F64(q)) => self
                .cells
                .in_mesh_order(&q, 4)
                .chunks_exact(4)
                .map(|c| [c[0], c[1], c[2], c[3]])
                .collect(),
            _ => Vec::new(),
        }
    }
}
