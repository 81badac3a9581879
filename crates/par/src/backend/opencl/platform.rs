//! OpenCL platforms and devices: listing them as the device backend's
//! [`DeviceInfo`], and the device a test runs on.

use opencl3::device::{
    Device, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU,
};
use opencl3::error_codes::ClError;
use opencl3::platform::get_platforms;
use opencl3::types::cl_device_id;

use crate::backend::device::{select, DeviceInfo};

/// An OpenCL error as text, with what was being done.
pub(crate) fn cl_error(what: &str, e: ClError) -> String {
    format!("{what}: OpenCL error {e} ({})", e.0)
}

/// The error of a call that needs the OpenCL runtime when it could not be
/// loaded (opencl3's dynamic loading reports it as an error code).
const RUNTIME_LOAD_FAILED: i32 = -2000;
/// The ICD loader found no platform (`CL_PLATFORM_NOT_FOUND_KHR`).
const PLATFORM_NOT_FOUND_KHR: i32 = -1001;

/// The message for a machine without an OpenCL runtime.
pub const NO_RUNTIME: &str = "no OpenCL runtime: the OpenCL library (libOpenCL.so.1) \
     could not be loaded. Install an ICD loader and a driver: the GPU vendor's driver, or \
     on Debian `ocl-icd-libopencl1 pocl-opencl-icd` for PoCL on the CPU \
     (scripts/install-deps.sh installs them); OPENCL_DYLIB_PATH may name the library";

/// A device with its handle.
pub(crate) struct Found {
    pub info: DeviceInfo,
    pub id: cl_device_id,
}

fn device_type_name(t: u64) -> &'static str {
    if t & CL_DEVICE_TYPE_GPU != 0 {
        "GPU"
    } else if t & CL_DEVICE_TYPE_CPU != 0 {
        "CPU"
    } else if t & CL_DEVICE_TYPE_ACCELERATOR != 0 {
        "accelerator"
    } else {
        "other"
    }
}

/// Serializes the driver calls that set OpenCL up (platform and device
/// queries, contexts, program builds): PoCL 3.1 crashes when several
/// threads query its devices while it initialises (seen in its
/// `clGetDeviceInfo(CL_DEVICE_NAME)`), and nothing is lost by doing set-up
/// one backend at a time. Kernel launches and transfers do not take it.
pub(crate) fn setup_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Every device of every platform, with handles. The caller holds
/// [`setup_lock`].
pub(crate) fn enumerate() -> Result<Vec<Found>, String> {
    let platforms = match get_platforms() {
        Ok(p) => p,
        Err(e) if e.0 == RUNTIME_LOAD_FAILED => return Err(NO_RUNTIME.to_string()),
        Err(e) if e.0 == PLATFORM_NOT_FOUND_KHR => return Ok(Vec::new()),
        Err(e) => return Err(cl_error("listing the OpenCL platforms", e)),
    };
    let mut out = Vec::new();
    for (pi, platform) in platforms.iter().enumerate() {
        let pname = platform.name().unwrap_or_else(|_| format!("platform {pi}"));
        // A platform without devices answers CL_DEVICE_NOT_FOUND: no devices.
        let ids = platform.get_devices(CL_DEVICE_TYPE_ALL).unwrap_or_default();
        for (di, id) in ids.into_iter().enumerate() {
            let d = Device::new(id);
            let extensions = d.extensions().unwrap_or_default();
            let fp64 = extensions.split_whitespace().any(|e| e == "cl_khr_fp64")
                || d.double_fp_config().map(|c| c != 0).unwrap_or(false);
            let info = DeviceInfo {
                api: "OpenCL",
                platform_index: pi,
                device_index: di,
                flat_index: out.len(),
                platform: pname.trim().to_string(),
                name: d
                    .name()
                    .map(|s| s.trim().to_string())
                    .unwrap_or_else(|_| "?".into()),
                vendor: d
                    .vendor()
                    .map(|s| s.trim().to_string())
                    .unwrap_or_else(|_| "?".into()),
                device_type: device_type_name(d.dev_type().unwrap_or(0)).to_string(),
                version: d
                    .version()
                    .map(|s| s.trim().to_string())
                    .unwrap_or_default(),
                driver: d
                    .driver_version()
                    .map(|s| s.trim().to_string())
                    .unwrap_or_default(),
                global_mem_bytes: d.global_mem_size().unwrap_or(0),
                max_alloc_bytes: d.max_mem_alloc_size().unwrap_or(0),
                compute_units: d.max_compute_units().unwrap_or(0),
                max_work_group: d.max_work_group_size().unwrap_or(1),
                fp64,
            };
            out.push(Found { info, id });
        }
    }
    Ok(out)
}

/// Whether a test of an OpenCL backend can run here: a device with double
/// precision exists. Without one the test should skip (this prints why),
/// unless `QFLOW_REQUIRE_OPENCL` is set (CI, which installs PoCL): then a
/// missing device panics, failing the test.
pub fn device_for_tests() -> bool {
    match devices() {
        Ok(list) if list.iter().any(|d| d.fp64) => true,
        other => {
            assert!(
                std::env::var_os("QFLOW_REQUIRE_OPENCL").is_none(),
                "QFLOW_REQUIRE_OPENCL is set but there is no OpenCL device with fp64: {other:?}"
            );
            eprintln!("SKIPPED: no OpenCL device with double precision");
            false
        }
    }
}

/// The OpenCL devices of this machine, in listing order (`qflow devices`).
/// An error only when the OpenCL runtime itself cannot be used; a machine
/// with the loader but no driver has no devices.
pub fn devices() -> Result<Vec<DeviceInfo>, String> {
    let _setup = setup_lock();
    Ok(enumerate()?.into_iter().map(|f| f.info).collect())
}

/// The message for an empty device list.
pub(crate) const NO_DEVICE: &str =
    "no OpenCL device: the OpenCL loader found no platform with a device \
     (is a driver installed? on Debian `pocl-opencl-icd` gives PoCL on the CPU; \
     `qflow devices` lists what is found)";

/// The device `wanted` names among the OpenCL devices `list`, as
/// [`select::select_device`] reads it; an empty list says what to install.
pub fn select_device(list: &[DeviceInfo], wanted: Option<&str>) -> Result<usize, String> {
    if list.is_empty() {
        return Err(NO_DEVICE.into());
    }
    select::select_device(list, wanted)
}

/// The device of one MPI rank among the OpenCL devices `list`, as
/// [`select::select_rank_device`] chooses it.
pub fn select_rank_device(
    list: &[DeviceInfo],
    wanted: Option<&str>,
    local_rank: usize,
    local_ranks: usize,
) -> Result<select::RankDevice, String> {
    if list.is_empty() {
        return Err(NO_DEVICE.into());
    }
    select::select_rank_device(list, wanted, local_rank, local_ranks)
}
