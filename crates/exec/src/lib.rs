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
//! bit-identical fields for any thread count. With the feature `mpi`,
//! [`distributed`] runs one of them (or, with `opencl` too, the OpenCL
//! backend) on each MPI rank's part of the cloud, with ghost exchange and
//! one reduction per iteration, bit-identical to the single-process run of
//! the same backend for any rank count.
#![deny(missing_docs)]

mod backend;
pub mod cpu;
pub mod par;
pub mod solver;

pub use backend::{Backend, BadPoint};
pub use cpu::CpuBackend;
pub use par::Par;
pub use solver::{IterationReport, KernelTimes, Solver, SolverError, StopReason, StopRule};

use std::sync::Arc;

use qflow_lskum::{Geometry, Params};

#[cfg(feature = "mpi")]
pub mod distributed;
#[cfg(feature = "opencl")]
pub mod opencl;

/// The backends, by name. Optional backends exist in every build so that a
/// request for one names what is missing; [`create_backend`] refuses those
/// this build was compiled without.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendKind {
    /// One core.
    Serial,
    /// A rayon pool.
    #[default]
    Threads,
    /// OpenCL on any vendor's GPU or on a CPU (PoCL); feature `opencl`.
    OpenCl,
}

impl std::str::FromStr for BackendKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "serial" => Ok(Self::Serial),
            "threads" => Ok(Self::Threads),
            "opencl" => Ok(Self::OpenCl),
            other => Err(format!(
                "unknown backend '{other}' (serial, threads, opencl)"
            )),
        }
    }
}

impl BackendKind {
    /// Whether this build has the backend.
    pub fn available(self) -> bool {
        match self {
            Self::Serial | Self::Threads => true,
            Self::OpenCl => cfg!(feature = "opencl"),
        }
    }
}

/// Which backend to create and how.
#[derive(Clone, Debug, Default)]
pub struct BackendSpec {
    /// The backend.
    pub kind: BackendKind,
    /// Threads of the threads backend (0: one per core).
    pub threads: usize,
    /// Device of a device backend: an index or part of a name (`None`: the
    /// first suitable device).
    pub device: Option<String>,
    /// Work-group size of a device backend (`None`: measured at start).
    pub work_group: Option<usize>,
}

/// A backend as `spec` says.
pub fn create_backend(
    spec: &BackendSpec,
    geom: Arc<Geometry>,
    params: Params,
) -> Result<Box<dyn Backend>, String> {
    Ok(match spec.kind {
        BackendKind::Serial => Box::new(CpuBackend::serial(geom, params)),
        BackendKind::Threads => Box::new(
            CpuBackend::threads(geom, params, spec.threads)
                .map_err(|e| format!("cannot start {} threads: {e}", spec.threads))?,
        ),
        #[cfg(feature = "opencl")]
        BackendKind::OpenCl => opencl::create(spec, geom, params)?,
        #[cfg(not(feature = "opencl"))]
        BackendKind::OpenCl => {
            return Err(
                "this build has no OpenCL backend: build with `--features opencl` \
                        (scripts/install-deps.sh installs an OpenCL runtime)"
                    .into(),
            )
        }
    })
}
