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

pub use super::device::source;
pub use platform::{
    device_for_tests, devices, driver_present, nvrtc_present, select_device, NO_DRIVER, NO_NVRTC,
};

/// The CUDA API under the device backend ([`crate::backend::device`]).
pub(crate) type Api = api::Cuda;

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
