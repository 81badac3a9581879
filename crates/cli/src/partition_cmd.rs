//! `qflow partition`: partition a cloud and report the partition's quality.

use std::path::Path;
use std::time::Instant;

use anyhow::{anyhow, Result};

use qflow_mesh::partition::{Method, Partition};

/// Partitions the cloud in `path` into `parts` parts with `method` (`metis`
/// or `rcb`) and reports edge cut, points, ghosts and wall points per part
/// and the load imbalance; writes the partition to `output` if given (one
/// part number per point and line, as `gpmetis` writes it; `qflow run
/// --partitioner file:PATH` under mpirun reads it back).
pub fn run(path: &Path, parts: usize, method: &str, output: Option<&Path>) -> Result<String> {
    let method: Method = method
        .parse()
        .map_err(|e: String| anyhow!("--method: {e}"))?;
    let cloud = qflow_mesh::native::read_any(path)?;
    let t = Instant::now();
    let p = Partition::new(&cloud, parts, method)?;
    let secs = t.elapsed().as_secs_f64();
    let stats = p.stats(&cloud);
    let mut s = format!(
        "cloud       {}\nmethod      {} ({:.3} s)\n",
        path.display(),
        method.name(),
        secs
    );
    s += &stats.render();
    if let Some(out) = output {
        p.write(out)?;
        s += &format!("written     {}\n", out.display());
    }
    Ok(s)
}
