//! The OpenCL backend (feature `opencl`): any vendor's GPU, or a CPU
//! through PoCL; the device backend ([`crate::backend::device`]) over
//! OpenCL.
//!
//! - The program is generated ([`source`]): a short hand-written prelude,
//!   the method's device functions translated from its Rust kernels at
//!   build time, and one entry kernel per declared loop binding its
//!   arguments as the declaration says; built by the driver's compiler.
//! - The part's dats and maps live in device buffers, uploaded once; a loop
//!   is one launch per run of equally long rows; only reductions (when the
//!   layer asks for their values) and halo values cross to the host.
//! - The runtime is loaded when first used (opencl3's dynamic loading): a
//!   machine without one gets an error naming what to install.

mod api;
mod platform;
mod profile;

use opencl3::context::Context;
use opencl3::error_codes::CL_BUILD_PROGRAM_FAILURE;
use opencl3::program::Program;
use opencl3::types::cl_device_id;

pub use super::device::{
    check_fp64, check_memory, memory_needs, source, DeviceInfo, MemoryNeeds, RankDevice,
};
pub use platform::{device_for_tests, devices, select_device, select_rank_device, NO_RUNTIME};

use platform::{cl_error, enumerate, setup_lock};

/// The OpenCL API under the device backend ([`crate::backend::device`]).
pub(crate) type Api = api::OpenCl;

/// Builds `source` for device `id` of `context`; a failed build returns the
/// driver's whole build log with the device's name. No option relaxes IEEE
/// arithmetic (`-cl-fast-relaxed-math`, `-cl-mad-enable`): the kernels must
/// round as the Rust ones do.
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
    let started = std::time::Instant::now();
    let result = program.build(&[id], options);
    // A driver's compiler can take long over big kernels (a GPU's took
    // minutes over one test once): say how long, at info level past 2 s.
    let seconds = started.elapsed().as_secs_f64();
    if seconds > 2.0 {
        tracing::info!(
            "building the OpenCL program ({} KB of source) for {} took {seconds:.1} s",
            source.len() / 1024,
            info.label()
        );
    } else {
        tracing::debug!("OpenCL program built in {seconds:.2} s");
    }
    if let Err(e) = result {
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

/// Builds a backend's program with work groups of at most `wg` items. On
/// NVIDIA GPUs atomic increments of doubles use the hardware's f64 atomic
/// add (inline PTX `red.global.add.f64`); a compiler that refuses it gets
/// the compare-and-swap loop, with a warning. `QFLOW_OPENCL_CAS_ATOMICS=1`
/// keeps the loop everywhere (to compare the two); `QFLOW_OPENCL_DUMP=FILE`
/// writes the program text to FILE; `QFLOW_OPENCL_OPTIONS` adds compiler
/// options (e.g. NVIDIA's `-cl-nv-verbose`: registers and spills per kernel,
/// in the build log, which is then logged at info level).
pub(crate) fn build_program(
    context: &Context,
    id: cl_device_id,
    info: &DeviceInfo,
    source: &str,
    wg: usize,
) -> Result<Program, String> {
    let extra = std::env::var("QFLOW_OPENCL_OPTIONS").ok();
    let options = match &extra {
        Some(x) => format!("-DQF_WG_MAX={wg} {x}"),
        None => format!("-DQF_WG_MAX={wg}"),
    };
    if let Some(path) = std::env::var_os("QFLOW_OPENCL_DUMP") {
        // The whole program text as the driver gets it (for reading, or
        // for a vendor's offline compiler).
        match std::fs::write(&path, source) {
            Ok(()) => tracing::info!("OpenCL program written to {}", path.to_string_lossy()),
            Err(e) => tracing::warn!("QFLOW_OPENCL_DUMP {}: {e}", path.to_string_lossy()),
        }
    }
    let nvidia = [&info.vendor, &info.platform]
        .iter()
        .any(|s| s.to_ascii_lowercase().contains("nvidia"));
    let keep_cas =
        std::env::var("QFLOW_OPENCL_CAS_ATOMICS").is_ok_and(|v| !v.is_empty() && v != "0");
    let program = if !nvidia || info.device_type != "GPU" || keep_cas {
        build(context, id, info, source, &options)?
    } else {
        build(
            context,
            id,
            info,
            source,
            &format!("{options} -DQF_RED_F64"),
        )
        .inspect(|_| {
            tracing::debug!(
                "{}: atomic increments by the hardware's f64 atomic add",
                info.label()
            )
        })
        .or_else(|e| {
            tracing::warn!(
                "{}: the hardware's f64 atomic add did not build, compare-and-swap loops \
                     instead: {}",
                info.label(),
                e.lines().next().unwrap_or("")
            );
            build(context, id, info, source, &options)
        })?
    };
    if extra.is_some() {
        // The options asked for (e.g. `-cl-nv-verbose`) may report there.
        if let Ok(log) = program.get_build_log(id) {
            tracing::info!("build log for {}:\n{}", info.label(), log.trim_end());
        }
    }
    Ok(program)
}

/// Builds a program text for a device (`None`: the default device) and
/// returns the driver's build log, or an error with the whole log.
pub fn compile_check(device: Option<&str>, text: &str) -> Result<String, String> {
    let _setup = setup_lock();
    let found = enumerate()?;
    let infos: Vec<DeviceInfo> = found.iter().map(|f| f.info.clone()).collect();
    let chosen = select_device(&infos, device)?;
    let (info, id) = (&found[chosen].info, found[chosen].id);
    let context = Context::from_device(&opencl3::device::Device::new(id))
        .map_err(|e| cl_error(&format!("creating a context on {}", info.label()), e))?;
    let program = build(&context, id, info, text, "")?;
    Ok(program.get_build_log(id).unwrap_or_default())
}
