//! `qflow check`: a cloud's or a mesh's defects, by point, cell or edge
//! number.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use qflow_mesh::{check, legacy};

use crate::input_kind::{input_kind, InputKind};

/// Checks the cloud or mesh at `path` and writes its report to `out`; an
/// error when the file has errors (the report says which). The report's
/// first line says what the file was read as and how that was told (its
/// magic bytes, its extension or its text), written before it is read.
pub fn check(path: &Path, out: &mut dyn Write) -> Result<()> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let (kind, why) = input_kind(path, &bytes);
    writeln!(
        out,
        "{}: read as {}, told by {why}",
        path.display(),
        kind.describe()
    )
    .context("writing the report")?;
    // A native file is whole or refused (checksum, bounds); a legacy one is
    // read leniently so that every defect can be reported.
    let (c, problems) = match kind {
        InputKind::Mesh(format) => {
            let (report, ok) = crate::mesh_cmd::check_mesh(&bytes, path, format)?;
            write!(out, "{report}").context("writing the report")?;
            if !ok {
                anyhow::bail!("{} has errors", path.display());
            }
            return Ok(());
        }
        InputKind::NativeCloud => (qflow_mesh::native::from_bytes(&bytes, path)?, Vec::new()),
        InputKind::LegacyCloud => legacy::parse_lenient(&bytes, path, None)?,
    };
    let report = check::check(&c, &problems);
    for f in &report.findings {
        writeln!(out, "{f}").context("writing the report")?;
    }
    let (e, w) = report.counts();
    let (nw, ni, no) = c.kind_counts();
    writeln!(
        out,
        "{}: {} points ({nw} wall, {ni} interior, {no} outer), {} neighbours; {e} error(s), {w} warning(s)",
        path.display(),
        c.len(),
        c.nbr.len()
    )
    .context("writing the report")?;
    if e > 0 {
        anyhow::bail!("{} has {e} error(s)", path.display());
    }
    Ok(())
}
