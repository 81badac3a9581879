//! The OpenCL backend (feature `opencl`): the whole q-LSKUM iteration on any
//! vendor's GPU, or on a CPU through PoCL.
//!
//! - The kernels are one source, `crates/exec/kernels/qflow.cl`
//!   ([`KERNEL_SOURCE`]), written function for function like the Rust
//!   kernels of `qflow_lskum` and compilable as CUDA through the prelude at
//!   its top.
//! - The geometry and the state are uploaded once, as a struct of arrays
//!   (four component planes per 4-component field); every step of the
//!   iteration is one kernel launch (four for the split flux residual) on an
//!   in-order queue, and the host reads back only the last stage's 96 bytes
//!   of results: the residue and the force sums (both reduced on the device,
//!   in double-double, by a two-level tree) and the non-physical flags.
//!   Fields come back only when [`crate::Backend::state`] asks for them.
//! - The work-group size and the flux variant (fused or split) are measured
//!   on the device at start unless given, and cached per device
//!   ([`TuningCache`]).
//! - The runtime is loaded when first used (opencl3's dynamic loading): a
//!   machine without one gets an error naming what to install, never a
//!   panic.
//!
//! `docs/gpu.md` has the design, the tolerances and the measurements.

mod backend;
mod device;
mod program;
mod tune;

use std::sync::Arc;

use qflow_lskum::{Geometry, Params};

pub use backend::{memory_needs, Field, OpenClBackend, OpenClOptions, PointList};
pub use device::{
    check_fp64, check_memory, devices, select_device, select_rank_device, DeviceInfo, MemoryNeeds,
    RankDevice, NO_RUNTIME,
};
pub use program::KERNEL_SOURCE;
pub use tune::{FluxVariant, Tuned, TuningCache, CACHE_FILE};

use crate::{Backend, BackendSpec};

/// The OpenCL backend as `spec` says (device, work group; the flux variant
/// from `QFLOW_OPENCL_FLUX`, see [`OpenClOptions::from_spec`]).
pub fn create(
    spec: &BackendSpec,
    geom: Arc<Geometry>,
    params: Params,
) -> Result<Box<dyn Backend>, String> {
    let options = OpenClOptions::from_spec(spec)?;
    Ok(Box::new(OpenClBackend::new(geom, params, &options)?))
}

/// Builds a kernel source for a device (`None`: the default device) and
/// returns the driver's build log, or an error with the whole log and the
/// device's name: a check for anyone editing `qflow.cl`.
pub fn compile_check(device: Option<&str>, source: &str) -> Result<String, String> {
    use opencl3::context::Context;
    let _setup = device::setup_lock();
    let found = device::enumerate()?;
    let infos: Vec<DeviceInfo> = found.iter().map(|f| f.info.clone()).collect();
    let chosen = select_device(&infos, device)?;
    let (info, id) = (&found[chosen].info, found[chosen].id);
    let context = Context::from_device(&opencl3::device::Device::new(id))
        .map_err(|e| device::cl_error(&format!("creating a context on {}", info.label()), e))?;
    let program = program::build(&context, id, info, source, &program::build_options(256))?;
    Ok(program.get_build_log(id).unwrap_or_default())
}
