//! `qflow devices`: the OpenCL platforms and devices this machine has.

use anyhow::Result;

/// The device list as text: one line per device with its `--device` index
/// (flat and `platform.device`), type, name, vendor, global memory, compute
/// units and double-precision support, under a line per platform.
#[cfg(feature = "opencl")]
pub fn report() -> Result<String> {
    use qflow_par::backend::opencl;
    let list = opencl::devices().map_err(anyhow::Error::msg)?;
    if list.is_empty() {
        return Ok(
            "no OpenCL devices: the OpenCL loader is installed but found no platform \
                   with a device (install a driver; on Debian `pocl-opencl-icd` gives PoCL on \
                   the CPU)\n"
                .to_string(),
        );
    }
    let default = opencl::select_device(&list, None).ok();
    let mut s = format!(
        "{:>3}  {:<5} {:<11} {:<40} {:<22} {:>9} {:>4}  {}\n",
        "#", "p.d", "type", "device", "vendor", "memory", "CUs", "fp64"
    );
    let mut platform = None;
    for d in &list {
        if platform != Some(d.platform_index) {
            platform = Some(d.platform_index);
            s += &format!("platform {}: {}\n", d.platform_index, d.platform);
        }
        s += &format!(
            "{:>3}  {:<5} {:<11} {:<40} {:<22} {:>5.1} GiB {:>4}  {}{}\n",
            d.flat_index,
            format!("{}.{}", d.platform_index, d.device_index),
            d.device_type,
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
    s += "choose one with --device INDEX, --device P.D or --device NAME (part of the name)\n";
    Ok(s)
}

/// Without the `opencl` feature there is nothing to list.
#[cfg(not(feature = "opencl"))]
pub fn report() -> Result<String> {
    anyhow::bail!(
        "this build has no OpenCL backend: build with `--features opencl` \
         (scripts/install-deps.sh installs an OpenCL runtime)"
    )
}
