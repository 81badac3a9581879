//! The DG method on one process without the run driver: settings, a
//! backend, and steps on demand. For tests, benchmarks and programs that
//! drive the steps themselves; `qflow run` uses the driver.

use qflow_par::backend::BackendSpec;
use qflow_par::driver::{Method, StepError};
use qflow_par::Values;

use crate::method::Dg;
use crate::{problem, Settings};

qflow_par::method_solver!(
    /// A DG run on one process: the layer's solver of the method (its
    /// executor `ex`, its `method`, `steps()`).
    Solver,
    Dg
);

impl Solver {
    /// A solver for `settings` with the backend `spec` asks for, at the
    /// initial state.
    pub fn new(settings: &Settings, spec: &BackendSpec) -> Result<Solver, String> {
        let p = problem::build(settings)?;
        let method = Dg::new(settings.clone())?;
        qflow_par::driver::solver::Solver::new(&p, method, spec).map(Solver)
    }

    /// Runs one step; its history row (`[time, l2_norm]` for advection,
    /// `[time, mass, kinetic_energy, min_density]` for isothermal Euler).
    pub fn step(&mut self) -> Result<Vec<f64>, StepError> {
        self.advance(1)
    }

    /// Runs `n` steps inside the backend's pool (the layer's
    /// [`qflow_par::driver::solver::Solver::advance`]); the last step's
    /// history row (empty for `n = 0`). On an error the steps before it
    /// count.
    pub fn advance(&mut self, n: u64) -> Result<Vec<f64>, StepError> {
        if n == 0 {
            return Ok(Vec::new());
        }
        self.0.advance(n).map(<[f64]>::to_vec)
    }

    /// Runs steps until the final time; the steps run.
    pub fn run_to_end(&mut self) -> Result<u64, StepError> {
        let end = self.method.settings().final_time;
        self.0.run_to(end)
    }

    /// The simulated time.
    pub fn time(&self) -> f64 {
        self.method.time().unwrap_or(0.0)
    }

    /// The solution's element values as stored: [`problem::element_len`]
    /// per cell (`n^d` per variable, packed), cells `x` fastest.
    pub fn state(&mut self) -> Vec<f64> {
        let u = self.method.solution();
        match self.ex.gather(u) {
            Some(Values::F64(q)) => q,
            _ => Vec::new(),
        }
    }

    /// The errors against the exact solution at the current time: `(l2,
    /// linf)`, L2 by GLL quadrature on each cell, Linf at the nodes
    /// ([`problem::errors`]).
    pub fn errors(&mut self) -> (f64, f64) {
        let t = self.time();
        let u = self.state();
        problem::errors(self.method.settings(), &u, t)
    }

    /// The errors of every variable against the exact solution at the
    /// current time ([`problem::variable_errors`]).
    pub fn variable_errors(
        &mut self,
    ) -> ([f64; problem::MAX_VARIABLES], [f64; problem::MAX_VARIABLES]) {
        let t = self.time();
        let u = self.state();
        problem::variable_errors(self.method.settings(), &u, t)
    }

    /// The L2 norm of the solution by GLL quadrature
    /// ([`problem::l2_norm`]).
    pub fn l2_norm(&mut self) -> f64 {
        let u = self.state();
        problem::l2_norm(self.method.settings(), &u)
    }
}
