//! Launch settings chosen by measurement on the device (work-group size,
//! fused or split flux residual) and their per-device cache.
//!
//! The cache is a small text file, `$XDG_CACHE_HOME/qflow/opencl-tuning.txt`
//! (else `~/.cache/qflow/opencl-tuning.txt`), one line per device, kernel
//! source and problem size class: `key<TAB>work group<TAB>flux variant`.
//! Reading or writing it never fails a run: a cache that cannot be read is
//! ignored, one that cannot be written is left as it is.

use std::path::{Path, PathBuf};

/// How the flux residual runs on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FluxVariant {
    /// One kernel: each neighbour reconstructed once, its flux differences
    /// sorted into the four split stencils (`flux_residual`).
    Fused,
    /// Four kernels, one per split stencil (`flux_residual_xpos`, `_xneg`,
    /// `_ypos`, `_yneg`), each reconstructing the neighbours of its stencil:
    /// fewer live registers per work item, more arithmetic and memory traffic
    /// (the paper's Tables 4, 5 and 10).
    Split,
}

impl FluxVariant {
    /// The lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            FluxVariant::Fused => "fused",
            FluxVariant::Split => "split",
        }
    }
}

impl std::str::FromStr for FluxVariant {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_lowercase().as_str() {
            "fused" => Ok(FluxVariant::Fused),
            "split" => Ok(FluxVariant::Split),
            other => Err(format!("unknown flux variant '{other}' (fused or split)")),
        }
    }
}

/// Where measured launch settings are kept between runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TuningCache {
    /// `$XDG_CACHE_HOME/qflow`, else `~/.cache/qflow`.
    #[default]
    Default,
    /// This folder.
    Dir(PathBuf),
    /// No cache: measure at every start.
    Off,
}

/// File name of the cache in its folder.
pub const CACHE_FILE: &str = "opencl-tuning.txt";

impl TuningCache {
    /// The cache file, if any.
    pub fn file(&self) -> Option<PathBuf> {
        let dir = match self {
            TuningCache::Off => return None,
            TuningCache::Dir(d) => d.clone(),
            TuningCache::Default => {
                let base = std::env::var_os("XDG_CACHE_HOME")
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
                    .or_else(|| {
                        std::env::var_os("HOME")
                            .filter(|v| !v.is_empty())
                            .map(|h| PathBuf::from(h).join(".cache"))
                    })?;
                base.join("qflow")
            }
        };
        Some(dir.join(CACHE_FILE))
    }
}

/// Launch settings measured for a device and problem size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuned {
    /// Work-group size of the point kernels.
    pub work_group: usize,
    /// Flux residual variant.
    pub flux: FluxVariant,
}

/// The settings stored under `key`, if any.
pub(crate) fn lookup(file: &Path, key: &str) -> Option<Tuned> {
    let text = std::fs::read_to_string(file).ok()?;
    text.lines().rev().find_map(|l| {
        let mut f = l.split('\t');
        if f.next()? != key {
            return None;
        }
        let work_group = f.next()?.parse().ok().filter(|&w: &usize| w > 0)?;
        let flux = f.next()?.parse().ok()?;
        Some(Tuned { work_group, flux })
    })
}

/// Stores `t` under `key` (replacing an older line of the same key) by
/// writing a temporary file and renaming it; any failure is ignored.
pub(crate) fn store(file: &Path, key: &str, t: Tuned) {
    let _ = (|| -> std::io::Result<()> {
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let old = std::fs::read_to_string(file).unwrap_or_default();
        let mut text: String = old
            .lines()
            .filter(|l| l.split('\t').next() != Some(key) && !l.trim().is_empty())
            .map(|l| format!("{l}\n"))
            .collect();
        text += &format!("{key}\t{}\t{}\n", t.work_group, t.flux.name());
        let tmp = file.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, file).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    })();
}

/// Candidate work-group sizes: 32 to 256 in powers of two (whole warps on
/// NVIDIA, wavefronts of 64 on AMD), within the kernels' limit.
pub(crate) fn candidates(limit: usize) -> Vec<usize> {
    let v: Vec<usize> = [32, 64, 128, 256]
        .into_iter()
        .filter(|&w| w <= limit)
        .collect();
    if v.is_empty() {
        vec![limit.max(1)]
    } else {
        v
    }
}
