//! The DG method on one process without the run driver: settings, a
//! backend, and steps on demand. For tests, benchmarks and programs that
//! drive the steps themselves; `qflow run` will use the driver.

use qflow_par::backend::{BackendSpec, Program};
use qflow_par::driver::{Method, StepError};
use qflow_par::{Exec, Values};

use crate::method::Dg;
use crate::{problem, Settings};

/// A DG run on one process.
pub struct Solver {
    /// The executor.
    pub ex: Exec,
    /// The method.
    pub method: Dg,
    step: u64,
}

impl Solver {
    /// A solver for `settings` with the backend `spec` asks for, at the
    /// initial state.
    pub fn new(settings: &Settings, spec: &BackendSpec) -> Result<Solver, String> {
        let p = problem::build(settings)?;
        let mut method = Dg::new(settings.clone())?;
        let program = Program {
            name: "dg",
            loops: method.loops(),
            device_source: method.device_source(),
        };
        let mut ex = qflow_par::launch::single_process(&p, &program, method.globals(), spec)?;
        drop(p);
        method.start(&mut ex).map_err(|e| e.to_string())?;
        Ok(Solver {
            ex,
            method,
            step: 0,
        })
    }

    /// Runs one step; its history row (`[time, l2_norm]` for advection,
    /// `[time, mass, kinetic_energy, min_density]` for isothermal Euler).
    pub fn step(&mut self) -> Result<Vec<f64>, StepError> {
        self.advance(1)
    }

    /// Runs `n` steps inside the backend's pool, its threads at work from
    /// one step to the next as in the run driver (entering the pool for
    /// each step puts the caller to sleep and wakes it every step: about
    /// 45 us on this machine's virtual CPUs, docs/performance.md 6.3); the
    /// last step's history row (empty for `n = 0`). On an error the steps
    /// before it count.
    pub fn advance(&mut self, n: u64) -> Result<Vec<f64>, StepError> {
        if n == 0 {
            return Ok(Vec::new());
        }
        let mut row = vec![0.0; self.method.columns().len()];
        let pool = self.ex.pool();
        let Solver { ex, method, step } = self;
        let mut steps = || -> Result<(), StepError> {
            for _ in 0..n {
                method.step(ex, *step + 1, &mut row)?;
                *step += 1;
            }
            Ok(())
        };
        match pool {
            Some(pool) => pool.install(steps),
            None => steps(),
        }?;
        Ok(row)
    }

    /// Runs steps until the final time; the steps run.
    pub fn run_to_end(&mut self) -> Result<u64, StepError> {
        let end = self.method.settings().final_time;
        let first = self.step;
        while self.method.time().unwrap_or(end) < end {
            self.step()?;
        }
        Ok(self.step - first)
    }

    /// Completed steps.
    pub fn steps(&self) -> u64 {
        self.step
    }

    /// The simulated time.
    pub fn time(&self) -> f64 {
        self.method.time().unwrap_or(0.0)
    }

    /// The solution's element values as stored: [`problem::element_len`]
    /// per cell (`n^d` per variable, packed), cells `x` fastest.
    pub fn state(&mut self) -> Vec<f64> {
        match self.ex.gather(self.method.solution()) {
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
    pub fn variable_errors(&mut self) -> ([f64; 4], [f64; 4]) {
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
