//! How qflow's kernels run.
//!
//! A [`Backend`] owns the solution state and runs the steps of the q-LSKUM
//! iteration (one trait method per step); the [`Solver`] calls them in the
//! order of Algorithm 1 and keeps the books. Backends here:
//!
//! - `serial`: every kernel over all points on the calling thread;
//! - `threads`: the same kernels over chunks of points on a rayon pool.
//!
//! Both run the reference kernels of [`qflow_lskum::kernels`] and give
//! bit-identical fields for any thread count.
#![deny(missing_docs)]

mod backend;
pub mod cpu;
pub mod par;
pub mod solver;

pub use backend::Backend;
pub use cpu::CpuBackend;
pub use par::Par;
pub use solver::{IterationReport, KernelTimes, Solver, SolverError, StopReason, StopRule};

use std::sync::Arc;

use qflow_lskum::{Geometry, Params};

/// The backends this build offers, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// One core.
    Serial,
    /// A rayon pool.
    Threads,
}

impl std::str::FromStr for BackendKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "serial" => Ok(Self::Serial),
            "threads" => Ok(Self::Threads),
            other => Err(format!(
                "unknown backend '{other}' (this build has: serial, threads)"
            )),
        }
    }
}

/// A backend of the given kind (`threads == 0`: one thread per core).
pub fn create_backend(
    kind: BackendKind,
    geom: Arc<Geometry>,
    params: Params,
    threads: usize,
) -> Result<Box<dyn Backend>, String> {
    Ok(match kind {
        BackendKind::Serial => Box::new(CpuBackend::serial(geom, params)),
        BackendKind::Threads => Box::new(
            CpuBackend::threads(geom, params, threads)
                .map_err(|e| format!("cannot start {threads} threads: {e}"))?,
        ),
    })
}
