//! The flow field for ParaView (or any VTK reader): VTK XML unstructured grid
//! files (`.vtu`) and the parallel index (`.pvtu`) over pieces of a
//! distributed run; cell fields on meshes of polygons ([`write_cells_vtu`])
//! and on rectilinear grids ([`write_rectilinear_vtr`]), encoded the same
//! way.
//!
//! Every point `(x, y, 0)` of the cloud is one `VTK_VERTEX` cell, so ParaView
//! shows the cloud as it is (use the "Points" representation, or a Delaunay 2D
//! filter for a surface). Point data: `rho`, `u`, `v`, `p`, `Mach`, `Cp`
//! (Float64, `Cp` with the conventional sign), `velocity` (the vector
//! `(u, v, 0)`), `kind` (Int32: 0 wall, 1 interior, 2 outer) and `point`
//! (Int64, the 1-based point number shown to users).
//!
//! # Encoding
//!
//! All data is written in one raw appended block (`<AppendedData
//! encoding="raw">`) with 64-bit block headers (`header_type="UInt64"`), little
//! endian, uncompressed:
//!
//! - raw is the most compact exact form: 8 bytes per Float64, against 10.7 for
//!   base64 and about 7.5 or more for zlib (doubles of a flow field barely
//!   compress, and compressing 10 million points costs seconds);
//! - the values are streamed straight from the solver's arrays through a
//!   buffered writer, with no encoding step and no copy of a whole array, so
//!   writing costs the disk's time and little memory;
//! - ParaView reads raw appended arrays straight into its own arrays;
//! - 64-bit headers are needed once a block passes 4 GiB (the coordinates of
//!   180 million points), and cost nothing below.
//!
//! The arrays lie in the block in the reverse order of their `DataArray`
//! elements (the last declared first; see `format::Appended`): meshio
//! 5.3, the usual Python reader, then reads them right, where in file
//! order it swapped fields of equal size (`p` and `Mach` whenever the
//! point or cell count was 2 mod 3). VTK and ParaView read each array at
//! its offset, in any order; the order costs nothing in size or time.
//! (Base64, which meshio reads without that look-up, would cost 4/3 of the
//! size and an encoding pass.) `tests/meshio.rs` reads the files back with
//! meshio.
//!
//! A 10-million-point file is about 1.2 GB (125 bytes a point). The file is
//! not valid XML text (the appended block is binary), as with every raw VTK
//! file; readers that parse the XML with a text parser, such as the `vtkio`
//! crate, cannot read it.

mod cells;
mod format;
mod rectilinear;
#[cfg(test)]
mod tests;

use std::io::Write;
use std::path::Path;

use qflow_lskum::gas::FreeStream;
use qflow_lskum::Vec4;
use qflow_mesh::Cloud;

use crate::error::check_states;
use crate::OutputError;
pub use cells::write_cells_vtu;
use format::{write_selection, Selection, ACTIVE_ATTRIBUTES, CELLS, POINTS, POINT_DATA};
pub use rectilinear::write_rectilinear_vtr;

/// Checks named cell fields before writing: one value per cell each (`nc`
/// cells), names of letters, digits and `_`.
fn check_cell_fields(path: &Path, fields: &[(&str, &[f64])], nc: usize) -> Result<(), OutputError> {
    for (name, values) in fields {
        if values.len() != nc {
            return Err(OutputError::data(
                path,
                format!("field `{name}` has {} values for {nc} cells", values.len()),
            ));
        }
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(OutputError::data(
                path,
                format!("field name `{name}`: letters, digits and _ only"),
            ));
        }
    }
    Ok(())
}

/// Writes the whole cloud and its state (`prim[i]` is point `i`) as a VTK
/// unstructured grid file, points numbered `1..=n`, atomically.
pub fn write_vtu(
    path: &Path,
    cloud: &Cloud,
    prim: &[Vec4],
    fs: &FreeStream,
) -> Result<(), OutputError> {
    check_states(prim.len(), cloud.len()).map_err(|e| e.at(path))?;
    write_selection(path, cloud, prim, fs, &Selection::All(cloud.len()))
}

/// Writes the points `points` of the cloud (0-based indices into `cloud` and
/// `prim`, in the order given) as one piece of a distributed data set, each
/// shown with the 1-based point number `numbers[k]` (its number in the whole
/// cloud), atomically. [`write_pvtu`] writes the index that joins the pieces.
pub fn write_vtu_piece(
    path: &Path,
    cloud: &Cloud,
    prim: &[Vec4],
    fs: &FreeStream,
    points: &[u32],
    numbers: &[u64],
) -> Result<(), OutputError> {
    check_states(prim.len(), cloud.len()).map_err(|e| e.at(path))?;
    if points.len() != numbers.len() {
        return Err(OutputError::data(
            path,
            format!(
                "{} points but {} point numbers",
                points.len(),
                numbers.len()
            ),
        ));
    }
    if let Some(&bad) = points.iter().find(|&&i| i as usize >= cloud.len()) {
        return Err(OutputError::data(
            path,
            format!(
                "point index {bad} is out of range (the cloud has {} points)",
                cloud.len()
            ),
        ));
    }
    write_selection(
        path,
        cloud,
        prim,
        fs,
        &Selection::Subset { points, numbers },
    )
}

/// Writes the parallel index (`.pvtu`) that ParaView opens as one data set
/// made of the pieces `piece_files` (written by [`write_vtu_piece`]),
/// atomically. Each piece is named as VTK resolves it: relative to the folder
/// of `path` (normally a bare file name), or absolute; write the pieces
/// before the index.
pub fn write_pvtu<P: AsRef<Path>>(path: &Path, piece_files: &[P]) -> Result<(), OutputError> {
    let mut sources = Vec::with_capacity(piece_files.len());
    for p in piece_files {
        let p = p.as_ref();
        let s = p.to_str().ok_or_else(|| {
            OutputError::data(
                path,
                format!("piece file name {} is not UTF-8", p.display()),
            )
        })?;
        sources.push(xml_escape(s));
    }
    qflow_mesh::fsutil::write_atomically(path, |w| {
        writeln!(w, r#"<?xml version="1.0"?>"#)?;
        writeln!(
            w,
            r#"<VTKFile type="PUnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
        )?;
        writeln!(w, r#"  <PUnstructuredGrid GhostLevel="0">"#)?;
        writeln!(w, "    <PPointData {ACTIVE_ATTRIBUTES}>")?;
        for a in &POINT_DATA {
            writeln!(w, "      <PDataArray {}/>", a.attributes())?;
        }
        writeln!(w, "    </PPointData>")?;
        writeln!(w, "    <PPoints>")?;
        writeln!(w, "      <PDataArray {}/>", POINTS.attributes())?;
        writeln!(w, "    </PPoints>")?;
        writeln!(w, "    <PCells>")?;
        for a in &CELLS {
            writeln!(w, "      <PDataArray {}/>", a.attributes())?;
        }
        writeln!(w, "    </PCells>")?;
        for s in &sources {
            writeln!(w, r#"    <Piece Source="{s}"/>"#)?;
        }
        writeln!(w, "  </PUnstructuredGrid>")?;
        writeln!(w, "</VTKFile>")
    })?;
    Ok(())
}

/// `s` with the characters that may not stand in an XML attribute value
/// replaced by entities.
fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}
