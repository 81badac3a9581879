//! The Lax-Wendroff method on one process without the run driver: a grid,
//! a backend, and steps on demand. For tests, benchmarks and programs that
//! drive the steps themselves; `qflow run` uses the driver.

use qflow_par::backend::{BackendSpec, Program};
use qflow_par::driver::{Method, StepError};
use qflow_par::{Exec, Values};

use crate::decl::{LOOPS, U};
use crate::method::Lw;
use crate::{problem, Grid, Settings};

/// A Lax-Wendroff run on one process.
pub struct Solver {
    /// The executor.
    pub ex: Exec,
    /// The method.
    pub method: Lw,
    step: u64,
}

impl Solver {
    /// A solver for `settings` on `grid` with the backend `spec` asks for,
    /// at the initial state.
    pub fn new(grid: &Grid, settings: &Settings, spec: &BackendSpec) -> Result<Solver, String> {
        let p = problem::build(grid, settings)?;
        let mut method = Lw::new(settings.clone(), grid.clone())?;
        let program = Program {
            name: "lw",
            loops: &LOOPS,
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

    /// Runs one step; its history row `[time, drho_dt]`.
    pub fn step(&mut self) -> Result<[f64; 2], StepError> {
        let it = self.step + 1;
        let mut row = [0.0; 2];
        qflow_par::driver::step_in_pool(&mut self.method, &mut self.ex, it, &mut row)?;
        self.step = it;
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

    /// Runs the updates as line loops (`on`, the default on the CPU
    /// backends) or as element loops: the same bits.
    pub fn use_line_loops(&mut self, on: bool) {
        self.method.use_line_loops(on, &self.ex);
    }

    /// Completed steps.
    pub fn steps(&self) -> u64 {
        self.step
    }

    /// The interior cells' states `[rho, rho u, rho v, rho E]`, `i` fastest.
    pub fn state(&mut self) -> Vec<[f64; 4]> {
        match self.ex.gather(&U) {
            Some(Values::F64(q)) => problem::interior(self.method.grid(), &q),
            _ => Vec::new(),
        }
    }
}
