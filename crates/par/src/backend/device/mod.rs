//! The device backend, one for every device API (OpenCL, CUDA): a part's
//! dats and maps in device buffers, uploaded once; every loop one launch
//! (per group of equally long rows) of its entry kernel, generated from
//! its declaration ([`source`]), its arguments bound in the order the
//! entry declares them; reductions folded per work group (double-double
//! sums) into per-group slots on the device, read back only when the
//! layer asks for their value. What differs between the APIs (devices,
//! program build, buffers, launches, timing) is their `DeviceApi`
//! (`device/api.rs`).

pub mod select;
pub mod source;

#[cfg(any(feature = "opencl", feature = "cuda"))]
pub(crate) mod api;
#[cfg(any(feature = "opencl", feature = "cuda"))]
mod launch;
#[cfg(any(feature = "opencl", feature = "cuda"))]
mod plans;

pub use select::{
    check_fp64, check_memory, listing, select_device, select_rank_device, DeviceInfo, MemoryNeeds,
    RankDevice,
};

use crate::decl::Role;
use crate::part::Part;

#[cfg(any(feature = "opencl", feature = "cuda"))]
pub(crate) use backend::create;

/// Device memory a part needs.
pub fn memory_needs(part: &Part) -> MemoryNeeds {
    let mut needs = MemoryNeeds {
        state_bytes: 0,
        geometry_bytes: 0,
        largest_buffer: 0,
        elements: 0,
    };
    for d in &part.dats {
        let b = (d.values.len() * d.values.ty().bytes()) as u64;
        if d.decl.role == Role::Input {
            needs.geometry_bytes += b;
        } else {
            needs.state_bytes += b;
        }
        needs.largest_buffer = needs.largest_buffer.max(b);
    }
    for m in &part.maps {
        let b = 4 * (m.values.len() + m.start.len()) as u64;
        needs.geometry_bytes += b;
        needs.largest_buffer = needs.largest_buffer.max(b);
    }
    needs.elements = part.sets.iter().map(|s| s.len as u64).max().unwrap_or(0);
    needs
}

/// The work-group size a run asks for (`None`: 64, or the largest power of
/// two the device takes if smaller), checked against the device's
/// `limit`: a power of two (the reductions halve it) no larger.
pub fn work_group(asked: Option<usize>, limit: usize, info: &DeviceInfo) -> Result<usize, String> {
    match asked {
        Some(w) if w == 0 || !w.is_power_of_two() => Err(format!(
            "--work-group {w}: give a power of two (the reductions halve it)"
        )),
        Some(w) if w > limit => Err(format!(
            "--work-group {w}: at most {limit} on {}{}",
            info.label(),
            if info.device_type == "CPU" {
                " (a CPU device keeps a group's private values on one thread's stack)"
            } else {
                ""
            }
        )),
        Some(w) => Ok(w),
        None => Ok(64.min(1 << (usize::BITS - 1 - limit.max(1).leading_zeros()))),
    }
}

#[cfg(any(feature = "opencl", feature = "cuda"))]
mod backend;
