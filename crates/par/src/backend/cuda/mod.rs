//! The CUDA backend (feature `cuda`): NVIDIA GPUs through the CUDA driver
//! API; the device backend ([`crate::backend::device`]) over CUDA.
//!
//! - The program is the one the OpenCL backend builds ([`source`]: the
//!   prelude's CUDA branch, the method's device functions translated from
//!   its Rust kernels at build time, one entry kernel per declared loop),
//!   compiled at run time by NVRTC for the device's own architecture
//!   ([`nvrtc`]) and loaded as a module.
//! - Dats and maps live in device memory, uploaded once; loops are queued
//!   on one stream with no wait between them; only reductions (when the
//!   layer asks for their values) and halo values cross to the host.
//! - The driver and NVRTC are loaded when first used (cudarc's dynamic
//!   loading): the binary builds and starts without CUDA, and a machine
//!   without the driver gets a one-line error ([`probe`]) before any work.

mod api;
pub mod nvrtc;
mod platform;

use std::sync::Arc;

pub use super::device::source;
pub use platform::{
    device_for_tests, devices, driver_present, nvrtc_present, select_device, NO_DRIVER, NO_NVRTC,
};

use super::{BackendSpec, LocalBackend, Program as MethodProgram};
use crate::decl::GlobalDecl;
use crate::part::Part;

/// The CUDA backend as `spec` says (under several ranks, local rank `r`
/// of a node's `n` takes the device [`crate::backend::device::select_rank_device`]
/// gives it: one rank per GPU).
pub fn create(
    spec: &BackendSpec,
    part: Arc<Part>,
    globals: &[&'static GlobalDecl],
    program: &MethodProgram,
    node: (usize, usize),
) -> Result<Box<dyn LocalBackend>, String> {
    super::device::create::<api::Cuda>(spec, part, globals, program, node)
}

/// Whether `--backend cuda` can run on this machine: the CUDA driver loads
/// and reports a device, and NVRTC loads; else the one-line reason.
pub fn probe() -> Result<(), String> {
    let list = devices()?;
    if list.is_empty() {
        return Err(platform::NO_DEVICE.into());
    }
    if !nvrtc_present() {
        return Err(NO_NVRTC.into());
    }
    Ok(())
}
