//! `qflow convert`: a cloud between the legacy text format (either
//! variant) and qflow's native `.qfc`, losslessly; a mesh (OP2's text,
//! Gmsh, SU2, `.qfm`) to `.qfm` or OP2's text.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use qflow_mesh::native::{format_for_path, read_any, write_any, Format};

/// `qflow convert`'s options.
#[derive(Clone, Debug, clap::Args)]
pub struct ConvertArgs {
    /// Input cloud or mesh (the format is detected).
    pub input: PathBuf,
    /// Output file.
    pub output: PathBuf,
    /// Output format: a cloud's native, legacy or quadtree (default:
    /// native for a .qfc name, else legacy); a mesh's qfm or op2
    /// (default: qfm for a .qfm name, else op2).
    #[arg(long)]
    pub to: Option<String>,
    /// A Gmsh or SU2 mesh's boundary marker that is a wall (repeat for
    /// several).
    #[arg(long)]
    pub wall: Vec<String>,
    /// A Gmsh or SU2 mesh's boundary marker that is far field (repeat
    /// for several).
    #[arg(long = "far-field")]
    pub far_field: Vec<String>,
}

/// Converts, writing one line of what was done to `out`.
pub fn convert(a: &ConvertArgs, out: &mut dyn Write) -> Result<()> {
    if let Some(bytes) = file_start(&a.input) {
        if crate::mesh_cmd::is_mesh(&a.input, &bytes) {
            clear_stale_temporaries(&a.output);
            let line = crate::mesh_cmd::convert_mesh(
                &a.input,
                &a.output,
                a.to.as_deref(),
                &a.wall,
                &a.far_field,
            )?;
            writeln!(out, "{line}").context("writing to standard output")?;
            return Ok(());
        }
    }
    if let Some(m) = a.wall.iter().chain(&a.far_field).next() {
        anyhow::bail!(
            "--wall/--far-field {m}: options of a Gmsh or SU2 mesh, and {} is a point cloud",
            a.input.display()
        );
    }
    let format = match a.to.as_deref() {
        None => format_for_path(&a.output),
        Some("native") => Format::Native,
        Some("legacy") => Format::Legacy,
        Some("quadtree") => Format::LegacyQuadtree,
        Some(o) => anyhow::bail!("--to {o}: expected native, legacy or quadtree"),
    };
    let t = std::time::Instant::now();
    let cloud = read_any(&a.input)?;
    let read = t.elapsed().as_secs_f64();
    clear_stale_temporaries(&a.output);
    write_any(&cloud, &a.output, format)?;
    writeln!(
        out,
        "{} -> {} ({:?}): {} points, read in {:.3} s, written in {:.3} s",
        a.input.display(),
        a.output.display(),
        format,
        cloud.len(),
        read,
        t.elapsed().as_secs_f64() - read
    )
    .context("writing to standard output")?;
    Ok(())
}

/// Removes what killed commands left beside `output` (a Ctrl-C while
/// `generate` wrote a 48 MB mesh left its `.NAME.tmp-PID`), or beside the
/// file it links to (where the temporary of a linked output is written).
pub fn clear_stale_temporaries(output: &Path) {
    let output = qflow_mesh::fsutil::resolve_links(output).unwrap_or_else(|_| output.to_path_buf());
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    crate::case::remove_stale_temporaries(dir);
}

/// The first 64 KiB of a file (its format shows there); `None` if it cannot
/// be read (the reader then names the problem).
fn file_start(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(1 << 16)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}
