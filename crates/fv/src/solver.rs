//! The Airfoil method on one process without the run driver: a mesh, a
//! backend, and iterations on demand. For tests, benchmarks and programs
//! that drive the iteration themselves; `qflow run` uses the driver.

use qflow_mesh::poly::PolyMesh;
use qflow_par::backend::BackendSpec;
use qflow_par::driver::StepError;
use qflow_par::Values;

use crate::decl::Q;
use crate::method::Fv;
use crate::{problem, Settings};

/// An Airfoil run on one process: the layer's solver of the method (its
/// executor `ex`, its `method`, `steps()`, to which it dereferences), and
/// where the mesh's cells went.
pub struct Solver {
    solver: qflow_par::driver::solver::Solver<Fv>,
    cells: problem::CellOrder,
}

impl std::ops::Deref for Solver {
    type Target = qflow_par::driver::solver::Solver<Fv>;
    fn deref(&self) -> &Self::Target {
        &self.solver
    }
}

impl std::ops::DerefMut for Solver {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.solver
    }
}

impl Solver {
    /// A solver on `mesh` (which must have passed
    /// `qflow_mesh::poly::check`) with the backend `spec` asks for (its
    /// plan for the edge loops from `settings`), every cell at the free
    /// stream.
    pub fn new(mesh: &PolyMesh, settings: &Settings, spec: &BackendSpec) -> Result<Solver, String> {
        let problem::Built { problem: p, cells } = problem::build(mesh, settings)?;
        let method = Fv::new(settings.clone(), mesh.cells());
        // The method's settings choose the plan of its edge loops.
        let spec = settings.backend(spec);
        let solver = qflow_par::driver::solver::Solver::new(&p, method, &spec)?;
        Ok(Solver { solver, cells })
    }

    /// Runs one iteration; its rms.
    pub fn step(&mut self) -> Result<f64, StepError> {
        Ok(self.solver.step()?[0])
    }

    /// Completed iterations.
    pub fn iteration(&self) -> u64 {
        self.solver.steps()
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
