//! A method on an executor without the run driver: steps on demand, for
//! tests, benchmarks and programs that drive the steps themselves (`qflow
//! run` uses [`super::run`]). Each method's crate wraps it with the
//! constructor from its own inputs and accessors of its own state.

use crate::backend::{BackendSpec, Program};
use crate::{Exec, Problem};

use super::{Method, StepError};

/// A method and its executor, with the steps done.
pub struct Solver<M: Method> {
    /// The executor.
    pub ex: Exec,
    /// The method.
    pub method: M,
    steps: u64,
    row: Vec<f64>,
}

impl<M: Method> Solver<M> {
    /// `method` on `problem` in one process with the backend `spec` asks
    /// for, started (its constants set).
    pub fn new(problem: &Problem, method: M, spec: &BackendSpec) -> Result<Self, String> {
        let d = method.declared();
        let program = Program {
            name: d.name,
            loops: d.loops,
            device_source: d.device_source,
        };
        let ex = crate::launch::single_process(problem, &program, d.globals, spec)?;
        Self::on(ex, method)
    }

    /// `method` on the executor `ex` (of one rank or several), started.
    /// Collective where the method's start is.
    pub fn on(mut ex: Exec, mut method: M) -> Result<Self, String> {
        method.start(&mut ex).map_err(|e| e.to_string())?;
        let row = vec![0.0; method.columns().len()];
        Ok(Solver {
            ex,
            method,
            steps: 0,
            row,
        })
    }

    /// Runs one step; its history row (the method's columns).
    pub fn step(&mut self) -> Result<&[f64], StepError> {
        self.advance(1)
    }

    /// Runs `n` steps inside the backend's pool, its threads at work from
    /// one step to the next as in the run driver (entering the pool for
    /// each step puts the caller to sleep and wakes it every step: about
    /// 45 us on this machine's virtual CPUs, docs/performance.md 6.3); the
    /// last step's history row (zeros for `n = 0`). On an error the steps
    /// before it count.
    pub fn advance(&mut self, n: u64) -> Result<&[f64], StepError> {
        let pool = self.ex.pool();
        let Solver {
            ex,
            method,
            steps,
            row,
        } = self;
        let mut run = || -> Result<(), StepError> {
            for _ in 0..n {
                method.step(ex, *steps + 1, row)?;
                *steps += 1;
            }
            Ok(())
        };
        match pool {
            Some(pool) => pool.install(run),
            None => run(),
        }?;
        Ok(&self.row)
    }

    /// Runs steps until the method's time reaches `end` (an unsteady
    /// method's final time); the steps run.
    pub fn run_to(&mut self, end: f64) -> Result<u64, StepError> {
        let first = self.steps;
        while self.method.time().unwrap_or(end) < end {
            self.step()?;
        }
        Ok(self.steps - first)
    }

    /// Completed steps.
    pub fn steps(&self) -> u64 {
        self.steps
    }
}

/// Declares a method crate's solver: a struct wrapping the layer's
/// [`Solver`] of the method (dereferencing to it, so that `ex`, `method`,
/// `steps()` and `advance()` are the layer's), to which the crate adds its
/// constructor and accessors.
#[macro_export]
macro_rules! method_solver {
    ($(#[$meta:meta])* $name:ident, $method:ty) => {
        $(#[$meta])*
        pub struct $name(pub $crate::driver::solver::Solver<$method>);

        impl ::std::ops::Deref for $name {
            type Target = $crate::driver::solver::Solver<$method>;
            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }

        impl ::std::ops::DerefMut for $name {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.0
            }
        }
    };
}
