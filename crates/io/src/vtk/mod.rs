//! The flow field for ParaView (or any VTK reader): VTK XML unstructured grid
//! files (`.vtu`) and the parallel index (`.pvtu`) over pieces of a
//! distributed run; cell fields on meshes of polygons ([`write_cells_vtu`])
//! and on rectilinear grids ([`write_rectilinear_vtr`]), encoded the same
//! way.
//!
//! Every point `(x, y, 0)` of the cloud is one `VTK_VERTEX` cell, so ParaView
//! shows the cloud as it is (use the "Points" representation, or a Delaunay 2D
//! filter for a surface). Point data: the caller's named fields
//! ([`PointData`]: Float64 scalars, then vectors `(x, y, 0)`), then `kind`
//! (Int32: 0 wall, 1 interior, 2 outer) and `point` (Int64, the 1-based
//! point number shown to users). What the fields mean is the method's
//! business; q-LSKUM's (`rho`, `u`, `v`, `p`, `Mach`, `Cp` and the
//! `velocity`) come from `qflow_lskum::fields`.
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
//! - the values are streamed straight from the caller's arrays through a
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
//! A 10-million-point file of q-LSKUM's fields (six scalars and a vector)
//! is about 1.2 GB: 125 bytes a point, 8 a scalar, 24 a vector and 45 of
//! place, kind, number and cell. The file is not valid XML text (the
//! appended block is binary), as with every raw VTK file; readers that
//! parse the XML with a text parser, such as the `vtkio` crate, cannot read
//! it.

mod cells;
mod format;
mod rectilinear;
#[cfg(test)]
mod tests;

use std::io::Write;
use std::path::Path;

use qflow_mesh::Cloud;

use crate::error::check_fields;
use crate::OutputError;
pub use cells::write_cells_vtu;
use format::{point_arrays, write_selection, Selection, CELLS, POINTS};
pub use rectilinear::write_rectilinear_vtr;

/// Checks named cell fields before writing: one value per cell each (`nc`
/// cells), names of letters, digits and `_`, none twice.
fn check_cell_fields(path: &Path, fields: &[(&str, &[f64])], nc: usize) -> Result<(), OutputError> {
    check_fields(fields.iter().map(|(name, v)| (*name, v.len())), nc, "cells")
        .map_err(|e| e.at(path))
}

/// The point data of a cloud's file: named Float64 fields, each with one
/// value per point of the cloud (in its numbering), written in the order
/// given, the scalars first, and followed by the cloud's `kind` and the
/// `point` numbers (names the fields may not take).
#[derive(Clone, Copy, Debug, Default)]
pub struct PointData<'a> {
    /// Scalars `(name, values)`.
    pub scalars: &'a [(&'a str, &'a [f64])],
    /// Vectors `(name, [x, y])`, written as `(x, y, 0)`.
    pub vectors: &'a [(&'a str, [&'a [f64]; 2])],
    /// The scalar ParaView colours by when it opens the file (the
    /// `Scalars` attribute), one of `scalars`; none if `None`.
    pub active_scalar: Option<&'a str>,
    /// The vector ParaView draws glyphs with (`Vectors`), one of
    /// `vectors`; none if `None`.
    pub active_vector: Option<&'a str>,
}

impl PointData<'_> {
    /// Checks the fields against a cloud of `n` points: one value per
    /// point each, and their names ([`PointData::check_names`]).
    fn check(&self, path: &Path, n: usize) -> Result<(), OutputError> {
        for (name, [x, y]) in self.vectors {
            if x.len() != y.len() {
                return Err(OutputError::data(
                    path,
                    format!("vector `{name}` has {} x and {} y values", x.len(), y.len()),
                ));
            }
        }
        check_fields(self.lengths(), n, "points").map_err(|e| e.at(path))?;
        self.check_names(path)
    }

    /// The name and length of each field, scalars first.
    fn lengths(&self) -> impl Iterator<Item = (&str, usize)> + Clone {
        let scalars = self.scalars.iter().map(|(name, v)| (*name, v.len()));
        scalars.chain(self.vectors.iter().map(|(name, [x, _])| (*name, x.len())))
    }

    /// Checks the names: letters, digits and `_`, none twice nor `kind` or
    /// `point`, the active scalar and vector among the fields.
    fn check_names(&self, path: &Path) -> Result<(), OutputError> {
        // The names alone, all of one length.
        let names = self.lengths().map(|(name, _)| (name, 0));
        check_fields(names, 0, "points").map_err(|e| e.at(path))?;
        if let Some((taken, _)) = self.lengths().find(|f| f.0 == "kind" || f.0 == "point") {
            return Err(OutputError::data(
                path,
                format!("field name `{taken}` is the cloud's own"),
            ));
        }
        let scalars: Vec<&str> = self.scalars.iter().map(|f| f.0).collect();
        let vectors: Vec<&str> = self.vectors.iter().map(|f| f.0).collect();
        for (active, of, what) in [
            (self.active_scalar, scalars, "scalar"),
            (self.active_vector, vectors, "vector"),
        ] {
            if let Some(a) = active.filter(|a| !of.contains(a)) {
                return Err(OutputError::data(
                    path,
                    format!("the active {what} `{a}` is not one of the {what}s"),
                ));
            }
        }
        Ok(())
    }

    /// The attributes of `<PointData>` and `<PPointData>`, each with a
    /// space before it: what ParaView colours by and draws glyphs with.
    fn active_attributes(&self) -> String {
        let mut s = String::new();
        if let Some(a) = self.active_scalar {
            s += &format!(r#" Scalars="{a}""#);
        }
        if let Some(a) = self.active_vector {
            s += &format!(r#" Vectors="{a}""#);
        }
        s
    }
}

/// Writes the whole cloud with the point fields `data` (value `i` of each
/// is point `i`) as a VTK unstructured grid file, points numbered `1..=n`,
/// atomically. An error, and nothing written, unless each field has one
/// value per point (see [`PointData`]).
pub fn write_vtu(path: &Path, cloud: &Cloud, data: &PointData) -> Result<(), OutputError> {
    data.check(path, cloud.len())?;
    write_selection(path, cloud, data, &Selection::All(cloud.len()))
}

/// Writes the points `points` of the cloud (0-based indices into `cloud` and
/// the fields of `data`, in the order given) as one piece of a distributed
/// data set, each shown with the 1-based point number `numbers[k]` (its
/// number in the whole cloud), atomically. [`write_pvtu`] writes the index
/// that joins the pieces.
pub fn write_vtu_piece(
    path: &Path,
    cloud: &Cloud,
    data: &PointData,
    points: &[u32],
    numbers: &[u64],
) -> Result<(), OutputError> {
    data.check(path, cloud.len())?;
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
    write_selection(path, cloud, data, &Selection::Subset { points, numbers })
}

/// Writes the parallel index (`.pvtu`) that ParaView opens as one data set
/// made of the pieces `piece_files` (written by [`write_vtu_piece`]),
/// atomically. Each piece is named as VTK resolves it: relative to the folder
/// of `path` (normally a bare file name), or absolute; write the pieces
/// before the index. The index declares the point data of `data`, the
/// fields every piece was written with (only their names and kinds are
/// read; any one piece's fields will do).
pub fn write_pvtu<P: AsRef<Path>>(
    path: &Path,
    piece_files: &[P],
    data: &PointData,
) -> Result<(), OutputError> {
    data.check_names(path)?;
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
        writeln!(w, "    <PPointData{}>", data.active_attributes())?;
        for a in &point_arrays(data) {
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
