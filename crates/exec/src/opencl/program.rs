//! The kernel source and its build for a device.

use opencl3::context::Context;
use opencl3::error_codes::CL_BUILD_PROGRAM_FAILURE;
use opencl3::program::Program;
use opencl3::types::cl_device_id;

use super::device::{cl_error, DeviceInfo};

/// The GPU kernels of one q-LSKUM iteration (`crates/exec/kernels/qflow.cl`):
/// OpenCL C that also compiles as CUDA through the prelude at its top.
pub const KERNEL_SOURCE: &str = include_str!("../../kernels/qflow.cl");

/// The build options: the reductions' work-group bound, nothing that
/// relaxes IEEE arithmetic (no `-cl-fast-relaxed-math`, `-cl-mad-enable` or
/// `-cl-unsafe-math-optimizations`: the kernels must round as the Rust ones
/// do).
pub(crate) fn build_options(wg_max: usize) -> String {
    format!("-DQF_WG_MAX={wg_max}")
}

/// Builds `source` for device `id` of `context`. A failed build returns the
/// driver's whole build log with the device's name.
pub(crate) fn build(
    context: &Context,
    id: cl_device_id,
    info: &DeviceInfo,
    source: &str,
    options: &str,
) -> Result<Program, String> {
    let mut program = Program::create_from_source(context, source).map_err(|e| {
        cl_error(
            &format!("creating the OpenCL program for device {}", info.label()),
            e,
        )
    })?;
    if let Err(e) = program.build(&[id], options) {
        let log = program
            .get_build_log(id)
            .unwrap_or_else(|le| format!("(the build log could not be read: {le})"));
        let what = if e.0 == CL_BUILD_PROGRAM_FAILURE {
            "the OpenCL compiler rejected qflow's kernels"
        } else {
            "building qflow's kernels failed"
        };
        return Err(format!(
            "{what} for device {} (driver {}; options `{options}`): OpenCL error {e} ({})\n\
             --- build log ---\n{}\n--- end of build log ---",
            info.label(),
            info.driver,
            e.0,
            log.trim_end()
        ));
    }
    Ok(program)
}

/// A 64-bit FNV-1a hash (to key the tuning cache by kernel source).
pub(crate) fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in *p {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
