//! `qflow devices`: the devices of the device backends this build has,
//! CUDA's GPUs and the OpenCL platforms and devices.

use anyhow::Result;

#[cfg(any(feature = "opencl", feature = "cuda"))]
use qflow_par::backend::device::DeviceInfo;

/// The device lists as text: per backend, one line per device with its
/// `--device` index (flat and `platform.device`), type, name, vendor,
/// global memory, compute units and double-precision support (under a line
/// per platform for OpenCL), or why the backend has none here.
pub fn report() -> Result<String> {
    #[allow(unused_mut)]
    let mut parts: Vec<String> = Vec::new();
    #[cfg(feature = "cuda")]
    parts.push(cuda());
    #[cfg(feature = "opencl")]
    match opencl() {
        Ok(t) => parts.push(t),
        // Beside the CUDA devices, a missing OpenCL runtime is a line.
        Err(e) if !parts.is_empty() => parts.push(format!("OpenCL (--backend opencl): {e}\n")),
        Err(e) => return Err(e),
    }
    if parts.is_empty() {
        anyhow::bail!(
            "this build has no device backend: build with `--features opencl` (any OpenCL \
             device; scripts/install-deps.sh installs an OpenCL runtime) or `--features cuda` \
             (NVIDIA GPUs)"
        );
    }
    Ok(parts.join("\n"))
}

/// The CUDA section: the devices with `--backend cuda`'s default marked,
/// or why there are none (a missing driver is no error: the OpenCL
/// devices may still be listed).
#[cfg(feature = "cuda")]
fn cuda() -> String {
    use qflow_par::backend::cuda;
    let list = match cuda::devices() {
        Ok(l) => l,
        Err(e) => return format!("CUDA (--backend cuda): {e}\n"),
    };
    if list.is_empty() {
        return "CUDA (--backend cuda): the driver reports no device\n".into();
    }
    let default = cuda::select_device(&list, None).ok();
    let nvrtc = match cuda::nvrtc::version() {
        Ok(v) => format!("NVRTC {v}"),
        Err(e) => e,
    };
    let mut s = format!("CUDA (--backend cuda), {}; {nvrtc}\n", list[0].platform);
    s += &table(&list, default, false);
    s += "choose one with --device INDEX or --device NAME (part of the name)\n";
    s
}

/// The OpenCL section: the platforms and devices with the default marked.
#[cfg(feature = "opencl")]
fn opencl() -> Result<String> {
    use qflow_par::backend::opencl;
    let list = opencl::devices().map_err(anyhow::Error::msg)?;
    if list.is_empty() {
        return Ok(
            "OpenCL (--backend opencl): the OpenCL loader is installed but found no platform \
             with a device (install a driver; on Debian `pocl-opencl-icd` gives PoCL on the CPU)\n"
                .to_string(),
        );
    }
    let default = opencl::select_device(&list, None).ok();
    let mut s = String::from("OpenCL (--backend opencl)\n");
    s += &table(&list, default, true);
    s += "choose one with --device INDEX, --device P.D or --device NAME (part of the name)\n";
    Ok(s)
}

/// One line per device of `list` under a header, the `default` marked; with
/// `platforms`, a line per platform before its devices.
#[cfg(any(feature = "opencl", feature = "cuda"))]
fn table(list: &[DeviceInfo], default: Option<usize>, platforms: bool) -> String {
    let mut s = format!(
        "{:>3}  {:<5} {:<11} {:<40} {:<22} {:>9} {:>4}  {}\n",
        "#", "p.d", "type", "device", "vendor", "memory", "CUs", "fp64"
    );
    let mut platform = None;
    for d in list {
        if platforms && platform != Some(d.platform_index) {
            platform = Some(d.platform_index);
            s += &format!("platform {}: {}\n", d.platform_index, d.platform);
        }
        s += &format!(
            "{:>3}  {:<5} {:<11} {:<40} {:<22} {:>5.1} GiB {:>4}  {}{}\n",
            d.flat_index,
            format!("{}.{}", d.platform_index, d.device_index),
            if d.api == "CUDA" {
                format!("GPU {}", d.version)
            } else {
                d.device_type.clone()
            },
            d.name,
            d.vendor,
            d.global_mem_bytes as f64 / (1u64 << 30) as f64,
            d.compute_units,
            if d.fp64 { "yes" } else { "no" },
            if default == Some(d.flat_index) {
                "  (default)"
            } else {
                ""
            }
        );
    }
    s
}
