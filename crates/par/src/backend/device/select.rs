//! A device backend's devices, whatever the API that lists them (OpenCL's
//! platforms, CUDA's ordinals): what qflow knows of each, choosing one by
//! `--device` (and one per MPI rank), and the checks a device must pass
//! (double precision, memory).

/// What qflow needs to know of a device, as `qflow devices` lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceInfo {
    /// The API that lists and runs it: `OpenCL` or `CUDA`.
    pub api: &'static str,
    /// Index of the platform (0-based, in the ICD loader's order; 0 for
    /// CUDA, which has one).
    pub platform_index: usize,
    /// Index of the device within its platform (CUDA: its ordinal).
    pub device_index: usize,
    /// Index over all devices of all platforms, in listing order.
    pub flat_index: usize,
    /// Platform name, e.g. `NVIDIA CUDA` or `Portable Computing Language`
    /// (CUDA: `CUDA driver <version>`).
    pub platform: String,
    /// Device name.
    pub name: String,
    /// Device vendor.
    pub vendor: String,
    /// `GPU`, `CPU`, `accelerator` or `other`.
    pub device_type: String,
    /// The device's version: OpenCL's version string, or CUDA's compute
    /// capability (`sm_90`).
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

/// The devices of `list`, a line each (for messages).
pub fn listing(list: &[DeviceInfo]) -> String {
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
            "{} device {} has no double precision{}; qflow computes in f64 throughout and \
             cannot run on it",
            d.api,
            d.label(),
            if d.api == "OpenCL" {
                " (cl_khr_fp64)"
            } else {
                ""
            }
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
    let Some(api) = list.first().map(|d| d.api) else {
        return Err("no device was found (`qflow devices` lists what is found)".into());
    };
    let pos = |flat: usize| list.iter().position(|d| d.flat_index == flat);
    if let Some(w) = wanted.filter(|w| w.contains(',')) {
        return Err(format!(
            "--device {w}: a list of devices is for runs under mpirun (local rank r takes \
             entry r mod the list's length); a single process runs on one device"
        ));
    }
    let chosen = match wanted.map(str::trim) {
        None | Some("") => {
            let gpu = list
                .iter()
                .position(|d| d.fp64 && (d.device_type == "GPU" || d.device_type == "accelerator"));
            return gpu
                .or_else(|| list.iter().position(|d| d.fp64))
                .ok_or_else(|| {
                    format!(
                        "no {api} device with double precision; qflow computes in f64 \
                         throughout. Devices found:\n{}",
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
                        "--device {w}: there are {} {api} devices (0 to {}). Devices:\n{}",
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

/// The device of one MPI rank, as [`select_rank_device`] chose it.
#[derive(Clone, Debug, PartialEq)]
pub struct RankDevice {
    /// Its position in the list.
    pub index: usize,
    /// `P.D`: what [`select_device`] takes to name exactly this device.
    pub spec: String,
    /// Set when this node has more ranks than the devices they run on: a
    /// line saying that ranks share devices.
    pub shared: Option<String>,
}

/// The device of the MPI rank that is local rank `local_rank` of the
/// `local_ranks` ranks on its node (one rank per device), as `--device`
/// asks under mpirun:
/// - `None`: the devices [`select_device`] would choose from (those with
///   double precision that are GPUs or accelerators, else every device
///   with double precision), in listing order; local rank r takes number
///   r mod their count;
/// - a comma-separated list (`0,1`, `0.0,0.1`, names): local rank r takes
///   entry r mod the list's length, each entry as [`select_device`] reads
///   it (every entry is checked, on every rank);
/// - one entry: every rank takes that device.
///
/// More ranks than devices is allowed (ranks then share devices, which
/// [`RankDevice::shared`] says); a device without double precision is
/// refused.
pub fn select_rank_device(
    list: &[DeviceInfo],
    wanted: Option<&str>,
    local_rank: usize,
    local_ranks: usize,
) -> Result<RankDevice, String> {
    let local_ranks = local_ranks.max(local_rank + 1);
    let chosen: Vec<usize> = match wanted.map(str::trim).filter(|w| !w.is_empty()) {
        None => {
            let first = select_device(list, None)?;
            let gpu = |d: &DeviceInfo| d.device_type == "GPU" || d.device_type == "accelerator";
            let want_gpu = gpu(&list[first]);
            (0..list.len())
                .filter(|&i| list[i].fp64 && gpu(&list[i]) == want_gpu)
                .collect()
        }
        Some(w) => w
            .split(',')
            .map(|entry| {
                let entry = entry.trim();
                if entry.is_empty() {
                    return Err(format!("--device {w}: an empty entry in the list"));
                }
                select_device(list, Some(entry))
            })
            .collect::<Result<_, _>>()?,
    };
    let index = chosen[local_rank % chosen.len()];
    let mut distinct = chosen.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let used = distinct.len().min(local_ranks);
    let shared = (local_ranks > used).then(|| {
        let rule = match wanted {
            Some(w) if chosen.len() > 1 => {
                format!("entry r mod {} of --device {}", chosen.len(), w.trim())
            }
            Some(w) => format!("device {}", w.trim()),
            None => format!("device number r mod {} of those with fp64", chosen.len()),
        };
        format!(
            "{local_ranks} ranks on this node share {used} {} device{}: local rank r runs \
             on {rule}",
            list[index].api,
            if used == 1 { "" } else { "s" },
        )
    });
    let d = &list[index];
    Ok(RankDevice {
        index,
        spec: format!("{}.{}", d.platform_index, d.device_index),
        shared,
    })
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
                "--device {w}: no {} device's name, vendor or platform contains '{w}'. \
                 Devices:\n{}",
                list.first().map_or("", |d| d.api),
                listing(list)
            )
        })
}

/// Device memory a case needs, by part.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryNeeds {
    /// Solution state and scratch dats.
    pub state_bytes: u64,
    /// Input dats (geometry) and maps.
    pub geometry_bytes: u64,
    /// The largest single buffer.
    pub largest_buffer: u64,
    /// Elements of the largest set.
    pub elements: u64,
}

impl MemoryNeeds {
    /// All bytes.
    pub fn total(&self) -> u64 {
        self.state_bytes + self.geometry_bytes
    }
}

/// Refuses a case that does not fit a device's memory.
pub fn check_memory(needs: &MemoryNeeds, d: &DeviceInfo) -> Result<(), String> {
    let per_point = needs.total() as f64 / needs.elements.max(1) as f64;
    if needs.total() > d.global_mem_bytes {
        return Err(format!(
            "the case does not fit {} device {}: it needs {} bytes ({:.1} GiB, {:.0} bytes \
             per element for {} elements) and the device has {} bytes ({:.1} GiB) of global memory",
            d.api,
            d.label(),
            needs.total(),
            needs.total() as f64 / (1u64 << 30) as f64,
            per_point,
            needs.elements,
            d.global_mem_bytes,
            d.global_mem_bytes as f64 / (1u64 << 30) as f64
        ));
    }
    if needs.largest_buffer > d.max_alloc_bytes {
        return Err(format!(
            "the case does not fit {} device {}: its largest array needs {} bytes and the \
             device allocates at most {} bytes at once",
            d.api,
            d.label(),
            needs.largest_buffer,
            d.max_alloc_bytes
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(p: usize, d: usize, flat: usize, kind: &str, fp64: bool) -> DeviceInfo {
        DeviceInfo {
            api: "OpenCL",
            platform_index: p,
            device_index: d,
            flat_index: flat,
            platform: format!("platform {p}"),
            name: format!("device {flat}"),
            vendor: "v".into(),
            device_type: kind.into(),
            version: String::new(),
            driver: String::new(),
            global_mem_bytes: 1 << 30,
            max_alloc_bytes: 1 << 28,
            compute_units: 1,
            max_work_group: 256,
            fp64,
        }
    }

    #[test]
    fn ranks_take_devices_round_robin() {
        let list = [
            device(0, 0, 0, "CPU", true),
            device(1, 0, 1, "GPU", true),
            device(1, 1, 2, "GPU", false),
            device(1, 2, 3, "GPU", true),
        ];
        // Default: the GPUs with fp64 (1.0 and 1.2), by local rank.
        let specs: Vec<String> = (0..4)
            .map(|r| select_rank_device(&list, None, r, 4).unwrap().spec)
            .collect();
        assert_eq!(specs, ["1.0", "1.2", "1.0", "1.2"]);
        let r = select_rank_device(&list, None, 0, 4).unwrap();
        assert!(r
            .shared
            .unwrap()
            .contains("4 ranks on this node share 2 OpenCL devices"));
        assert_eq!(select_rank_device(&list, None, 1, 2).unwrap().shared, None);
        // A list, by local rank.
        let r = select_rank_device(&list, Some("0, 3"), 1, 2).unwrap();
        assert_eq!((r.index, r.spec.as_str(), r.shared), (3, "1.2", None));
        let r = select_rank_device(&list, Some("1.0"), 2, 3).unwrap();
        assert_eq!(r.spec, "1.0");
        assert!(r
            .shared
            .unwrap()
            .contains("3 ranks on this node share 1 OpenCL device:"));
        // Every entry is checked: one without fp64 is refused.
        let e = select_rank_device(&list, Some("1,2"), 0, 2).unwrap_err();
        assert!(e.contains("no double precision"), "{e}");
        let e = select_rank_device(&list, Some("1,,3"), 0, 2).unwrap_err();
        assert!(e.contains("empty entry"), "{e}");
        // A single process takes no list.
        let e = select_device(&list, Some("1,3")).unwrap_err();
        assert!(e.contains("mpirun"), "{e}");
    }
}
