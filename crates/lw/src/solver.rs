//! The Lax-Wendroff method on one process without the run driver: a grid,
//! a backend, and steps on demand (the layer's [`qflow_par::driver::solver`]
//! with the grid's constructor and state). For tests, benchmarks and
//! programs that drive the steps themselves; `qflow run` uses the driver.

use qflow_par::backend::BackendSpec;
use qflow_par::driver::StepError;
use qflow_par::Values;

use crate::decl::U;
use crate::method::Lw;
use crate::{problem, Grid, Settings};

qflow_par::method_solver!(
    /// A Lax-Wendroff run on one process: the layer's solver of the
    /// method (its executor `ex`, its `method`, `steps()`).
    Solver,
    Lw
);

impl Solver {
    /// A solver for `settings` on `grid` with the backend `spec` asks for,
    /// at the initial state.
    pub fn new(grid: &Grid, settings: &Settings, spec: &BackendSpec) -> Result<Solver, String> {
        let p = problem::build(grid, settings)?;
        let method = Lw::new(settings.clone(), grid.clone())?;
        qflow_par::driver::solver::Solver::new(&p, method, spec).map(Solver)
    }

    /// Runs one step; its history row `[time, drho_dt]`.
    pub fn step(&mut self) -> Result<[f64; 2], StepError> {
        let row = self.0.step()?;
        Ok([row[0], row[1]])
    }

    /// Runs steps until the final time; the steps run.
    pub fn run_to_end(&mut self) -> Result<u64, StepError> {
        let end = self.method.settings().final_time;
        self.0.run_to(end)
    }

    /// Runs the updates as line loops (`on`, the default on the CPU
    /// backends) or as element loops: the same bits.
    pub fn use_line_loops(&mut self, on: bool) {
        let s = &mut self.0;
        s.method.use_line_loops(on, &s.ex);
    }

    /// The interior cells' states `[rho, rho u, rho v, rho E]`, `i` fastest.
    pub fn state(&mut self) -> Vec<[f64; 4]> {
        match self.ex.gather(&U) {
            Some(Values::F64(q)) => problem::interior(self.method.grid(), &q),
            _ => Vec::new(),
        }
    }
}
