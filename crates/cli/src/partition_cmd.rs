//! `qflow partition`: partition a cloud and report the partition's quality.

use std::path::Path;

use anyhow::Result;

/// Partitions the cloud in `path` into `parts` parts with `method` and
/// reports; writes the partition to `output` if given.
pub fn run(_path: &Path, _parts: usize, _method: &str, _output: Option<&Path>) -> Result<String> {
    anyhow::bail!("partitioning is not available yet")
}
