//! OpenCL platforms and devices: listing, choosing by `--device`, and the
//! checks a device must pass (double precision, memory).

use opencl3::device::{
    Device, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU,
};
use opencl3::error_codes::ClError;
use opencl3::platform::get_platforms;
use opencl3::types::cl_device_id;

/// What qflow needs to know of a device, as `qflow devices` lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceInfo {
    /// Index of the platform (0-based, in the ICD loader's order).
    pub platform_index: usize,
    /// Index of the device within its platform.
    pub device_index: usize,
    /// Index over all devices of all platforms, in listing order.
    pub flat_index: usize,
    /// Platform name, e.g. `NVIDIA CUDA` or `Portable Computing Language`.
    pub platform: String,
    /// Device name.
    pub name: String,
    /// Device vendor.
    pub vendor: String,
    /// `GPU`, `CPU`, `accelerator` or `other`.
    pub device_type: String,
    /// OpenCL version string of the device.
    pub version: String,
    /// Driver version.
    pub driver: String,
    /// Global memory, bytes.
    pub global_mem_bytes: u64,
    /// Largest single allocation, bytes.
    pub max_alloc_bytes: u64,
    /// Compute units (streaming multiprocessors, compute units, cores).
    pub compute_units: u32,
    /// Largest work-group size.
    pub max_work_group: usize,
    /// Whether the device computes in double precision (`cl_khr_fp64`).
    pub fp64: bool,
}

impl DeviceInfo {
    /// `platform.device` index and name, for messages.
    pub fn label(&self) -> String {
        format!(
            "{}.{} '{}' ({})",
            self.platform_index, self.device_index, self.name, self.platform
        )
    }
}

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

/// The OpenCL devices of this machine, in listing order (`qflow devices`).
/// An error only when the OpenCL runtime itself cannot be used; a machine
/// with the loader but no driver has no devices.
pub fn devices() -> Result<Vec<DeviceInfo>, String> {
    let _setup = setup_lock();
    Ok(enumerate()?.into_iter().map(|f| f.info).collect())
}

fn listing(list: &[DeviceInfo]) -> String {
    if list.is_empty() {
        return "  (none)".into();
    }
    list.iter()
        .map(|d| {
            format!(
                "  {} [{}] {}.{} {} ({}){}",
                d.flat_index,
                d.device_type,
                d.platform_index,
                d.device_index,
                d.name,
                d.platform,
                if d.fp64 { "" } else { ", no fp64" }
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Refuses a device that cannot compute in double precision.
pub fn check_fp64(d: &DeviceInfo) -> Result<(), String> {
    if d.fp64 {
        Ok(())
    } else {
        Err(format!(
            "OpenCL device {} has no double precision (cl_khr_fp64); qflow computes in \
             f64 throughout and cannot run on it",
            d.label()
        ))
    }
}

/// The device `wanted` names among `list`:
/// - `None`: the first GPU or accelerator with double precision, else the
///   first device with double precision;
/// - `P.D`: device D of platform P;
/// - `N`: the N-th device in listing order (`qflow devices`);
/// - anything else: the first device whose name, vendor or platform name
///   contains it, case-insensitively.
///
/// A device named explicitly that has no double precision is refused.
pub fn select_device(list: &[DeviceInfo], wanted: Option<&str>) -> Result<usize, String> {
    if list.is_empty() {
        return Err(
            "no OpenCL device: the OpenCL loader found no platform with a device \
             (is a driver installed? on Debian `pocl-opencl-icd` gives PoCL on the CPU; \
             `qflow devices` lists what is found)"
                .into(),
        );
    }
    let pos = |flat: usize| list.iter().position(|d| d.flat_index == flat);
    let chosen = match wanted.map(str::trim) {
        None | Some("") => {
            let gpu = list
                .iter()
                .position(|d| d.fp64 && (d.device_type == "GPU" || d.device_type == "accelerator"));
            return gpu
                .or_else(|| list.iter().position(|d| d.fp64))
                .ok_or_else(|| {
                    format!(
                        "no OpenCL device with double precision (cl_khr_fp64); qflow computes in \
                     f64 throughout. Devices found:\n{}",
                        listing(list)
                    )
                });
        }
        Some(w) => {
            if let Some((p, d)) = w.split_once('.') {
                match (p.parse::<usize>(), d.parse::<usize>()) {
                    (Ok(p), Ok(d)) => list
                        .iter()
                        .position(|x| x.platform_index == p && x.device_index == d)
                        .ok_or_else(|| {
                            format!(
                                "--device {w}: there is no device {d} on platform {p}. \
                                 Devices:\n{}",
                                listing(list)
                            )
                        })?,
                    _ => by_name(list, w)?,
                }
            } else if let Ok(flat) = w.parse::<usize>() {
                pos(flat).ok_or_else(|| {
                    format!(
                        "--device {w}: there are {} OpenCL devices (0 to {}). Devices:\n{}",
                        list.len(),
                        list.len() - 1,
                        listing(list)
                    )
                })?
            } else {
                by_name(list, w)?
            }
        }
    };
    check_fp64(&list[chosen])?;
    Ok(chosen)
}

fn by_name(list: &[DeviceInfo], w: &str) -> Result<usize, String> {
    let lw = w.to_lowercase();
    list.iter()
        .position(|d| {
            d.name.to_lowercase().contains(&lw)
                || d.vendor.to_lowercase().contains(&lw)
                || d.platform.to_lowercase().contains(&lw)
        })
        .ok_or_else(|| {
            format!(
                "--device {w}: no OpenCL device's name, vendor or platform contains '{w}'. \
                 Devices:\n{}",
                listing(list)
            )
        })
}

/// Device memory a case needs, by part.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryNeeds {
    /// Solution state and scratch: the fields of the iteration.
    pub state_bytes: u64,
    /// Geometry: coordinates, normals, kinds, stencils, surface.
    pub geometry_bytes: u64,
    /// The largest single buffer.
    pub largest_buffer: u64,
    /// Points.
    pub points: u64,
}

impl MemoryNeeds {
    /// All bytes.
    pub fn total(&self) -> u64 {
        self.state_bytes + self.geometry_bytes
    }
}

/// Refuses a case that does not fit a device's memory.
pub fn check_memory(needs: &MemoryNeeds, d: &DeviceInfo) -> Result<(), String> {
    let per_point = needs.total() as f64 / needs.points.max(1) as f64;
    if needs.total() > d.global_mem_bytes {
        return Err(format!(
            "the case does not fit OpenCL device {}: it needs {} bytes ({:.1} GiB, {:.0} bytes \
             per point for {} points) and the device has {} bytes ({:.1} GiB) of global memory",
            d.label(),
            needs.total(),
            needs.total() as f64 / (1u64 << 30) as f64,
            per_point,
            needs.points,
            d.global_mem_bytes,
            d.global_mem_bytes as f64 / (1u64 << 30) as f64
        ));
    }
    if needs.largest_buffer > d.max_alloc_bytes {
        return Err(format!(
            "the case does not fit OpenCL device {}: its largest array needs {} bytes and the \
             device allocates at most {} bytes at once (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
            d.label(),
            needs.largest_buffer,
            d.max_alloc_bytes
        ));
    }
    Ok(())
}
