//! CUDA's devices as the device backend's [`DeviceInfo`], the libraries
//! the backend loads at run time (the driver, NVRTC), and the device a
//! test runs on.

use std::ffi::CString;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdevice_attribute};

use crate::backend::device::{select, DeviceInfo};

/// A CUDA driver error as text, with what was being done.
pub(crate) fn cu_error(what: &str, e: DriverError) -> String {
    let name = e
        .error_name()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    let text = e
        .error_string()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{what}: CUDA error {name} ({text})")
}

/// The message for a machine without the CUDA driver.
pub const NO_DRIVER: &str = "no CUDA driver: libcuda.so.1 could not be loaded (--backend cuda \
     runs on an NVIDIA GPU with its driver installed; --backend opencl runs on any OpenCL \
     device, and `qflow devices` lists what this machine has)";

/// The message for a machine without NVRTC.
pub const NO_NVRTC: &str = "no NVRTC: libnvrtc.so.13 (CUDA 13's run-time compiler, which \
     builds qflow's kernels for the GPU) could not be loaded: install the CUDA toolkit 13, or \
     `pip install nvidia-cuda-nvrtc==13.0.*`, and put its library folder on LD_LIBRARY_PATH \
     (or name the library in QFLOW_NVRTC)";

/// The message for a driver with no device.
pub(crate) const NO_DEVICE: &str = "no CUDA device: the CUDA driver is loaded but reports no \
     device (`nvidia-smi` lists the GPUs the driver sees)";

/// Whether the CUDA driver library can be loaded, without a panic (cudarc's
/// loader panics on the first call into a library it cannot find).
pub fn driver_present() -> bool {
    // SAFETY: only tries to load the library.
    unsafe { sys::is_culib_present() }
}

/// Whether NVRTC can be loaded: from the library path, or else from the
/// file `QFLOW_NVRTC` names or a CUDA toolkit's usual folders (`CUDA_PATH`,
/// `CUDA_HOME`, `/usr/local/cuda`), loaded there first so that the loader
/// finds it by name (with `libnvrtc-builtins` beside it, which NVRTC loads
/// by name itself).
pub fn nvrtc_present() -> bool {
    // SAFETY: only tries to load the library.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return true;
    }
    let mut dirs: Vec<std::path::PathBuf> = Vec::new();
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    if let Some(f) = std::env::var_os("QFLOW_NVRTC") {
        let f = std::path::PathBuf::from(f);
        if let Some(d) = f.parent() {
            dirs.push(d.to_path_buf());
        }
        files.push(f);
    }
    for v in ["CUDA_PATH", "CUDA_HOME"] {
        if let Some(p) = std::env::var_os(v) {
            dirs.push(std::path::PathBuf::from(p).join("lib64"));
        }
    }
    dirs.push("/usr/local/cuda/lib64".into());
    for d in &dirs {
        // Builtins first (NVRTC opens them by name when it compiles).
        if let Ok(entries) = std::fs::read_dir(d) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with("libnvrtc-builtins.so.13") && !name.contains("alt") {
                    preload(&e.path());
                }
            }
        }
        files.push(d.join("libnvrtc.so.13"));
    }
    for f in files {
        if f.is_file() && preload(&f) {
            // SAFETY: as above.
            return unsafe { cudarc::nvrtc::sys::is_culib_present() };
        }
    }
    false
}

/// Loads the shared library at `path` for the rest of the process (it is
/// never unloaded); whether it loaded.
fn preload(path: &std::path::Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: dlopen of a library file; the handle is kept for the process.
    !unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) }.is_null()
}

/// Loads and initialises the CUDA driver, or says why it cannot be.
pub(crate) fn init() -> Result<(), String> {
    if !driver_present() {
        return Err(NO_DRIVER.into());
    }
    result::init().map_err(|e| cu_error("initialising the CUDA driver", e))
}

/// The CUDA devices of this machine, by ordinal (`qflow devices`). An error
/// when the driver cannot be loaded or initialised.
pub fn devices() -> Result<Vec<DeviceInfo>, String> {
    init()?;
    let count = result::device::get_count().map_err(|e| cu_error("counting CUDA devices", e))?;
    let mut driver = 0;
    // SAFETY: writes one int.
    let version = unsafe { sys::cuDriverGetVersion(&mut driver) }.result();
    let platform = match version {
        Ok(()) => format!("CUDA driver {}.{}", driver / 1000, (driver % 1000) / 10),
        Err(_) => "CUDA driver".to_string(),
    };
    let mut out = Vec::new();
    for ordinal in 0..count {
        let dev = result::device::get(ordinal)
            .map_err(|e| cu_error(&format!("CUDA device {ordinal}"), e))?;
        // SAFETY: attribute queries of a valid device.
        let attr = |a: CUdevice_attribute| unsafe { result::device::get_attribute(dev, a) };
        let major = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
            .map_err(|e| cu_error("querying a CUDA device", e))?;
        let minor = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
            .map_err(|e| cu_error("querying a CUDA device", e))?;
        // SAFETY: as above.
        let memory = unsafe { result::device::total_mem(dev) }.unwrap_or(0) as u64;
        out.push(DeviceInfo {
            api: "CUDA",
            platform_index: 0,
            device_index: ordinal as usize,
            flat_index: ordinal as usize,
            platform: platform.clone(),
            name: result::device::get_name(dev)
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|_| "?".into()),
            vendor: "NVIDIA".into(),
            device_type: "GPU".into(),
            version: format!("sm_{major}{minor}"),
            driver: platform.clone(),
            global_mem_bytes: memory,
            max_alloc_bytes: memory,
            compute_units: attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .unwrap_or(0) as u32,
            max_work_group: attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
                .unwrap_or(1) as usize,
            // Every CUDA device since compute capability 1.3 computes in f64.
            fp64: true,
        });
    }
    Ok(out)
}

/// The device `wanted` names among the CUDA devices `list` (an ordinal, or
/// part of its name), as [`select::select_device`] reads it.
pub fn select_device(list: &[DeviceInfo], wanted: Option<&str>) -> Result<usize, String> {
    if list.is_empty() {
        return Err(NO_DEVICE.into());
    }
    select::select_device(list, wanted)
}

/// Whether a test of the CUDA backend can run here: the driver, a device
/// and NVRTC. Without them the test should skip (this prints why), unless
/// `QFLOW_REQUIRE_CUDA` is set (a GPU machine's benchmark): then a missing
/// one panics, failing the test.
pub fn device_for_tests() -> bool {
    let why = match devices() {
        Ok(list) if list.is_empty() => NO_DEVICE.to_string(),
        Ok(_) if !nvrtc_present() => NO_NVRTC.to_string(),
        Ok(_) => return true,
        Err(e) => e,
    };
    assert!(
        std::env::var_os("QFLOW_REQUIRE_CUDA").is_none(),
        "QFLOW_REQUIRE_CUDA is set but the CUDA backend cannot run: {why}"
    );
    eprintln!("SKIPPED: {why}");
    false
}
