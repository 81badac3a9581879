//! Cell fields on a rectilinear grid as a VTK XML rectilinear grid
//! (`.vtr`): the cell boundaries along x, y and z (each increasing), one
//! Float64 cell-data array per field in x-fastest order, raw appended
//! blocks with UInt64 byte counts (as [`super::write_cells_vtu`]). For
//! fields on tensor-product grids, such as a 3D DG solution with a
//! picture cell per node.

use std::io::Write;
use std::path::Path;

use crate::OutputError;

/// Writes the cells bounded by `bounds` (`[x, y, z]`, `n_d + 1`
/// increasing values each) with the cell fields `fields` (`(name,
/// values)`, one value per cell, x fastest) as a `.vtr` file, atomically.
pub fn write_rectilinear_vtr(
    path: &Path,
    bounds: [&[f64]; 3],
    fields: &[(&str, &[f64])],
) -> Result<(), OutputError> {
    let mut cells = [0usize; 3];
    for (d, b) in bounds.iter().enumerate() {
        let increasing = b.windows(2).all(|w| w[1] > w[0]);
        if b.len() < 2 || !increasing {
            return Err(OutputError::data(
                path,
                format!("cell bounds along axis {d}: at least two, increasing"),
            ));
        }
        cells[d] = b.len() - 1;
    }
    let nc: usize = cells.iter().product();
    super::check_cell_fields(path, fields, nc)?;
    // Blocks in the order written: the fields, then the three coordinate
    // arrays.
    let mut blocks: Vec<u64> = fields.iter().map(|_| 8 * nc as u64).collect();
    blocks.extend(bounds.iter().map(|b| 8 * b.len() as u64));
    let mut offsets = Vec::with_capacity(blocks.len());
    let mut at = 0u64;
    for b in &blocks {
        offsets.push(at);
        at += 8 + b;
    }
    let array = |name: &str, k: usize| {
        format!(
            r#"        <DataArray type="Float64" Name="{name}" NumberOfComponents="1" format="appended" offset="{}"/>"#,
            offsets[k]
        )
    };
    let extent = format!("0 {} 0 {} 0 {}", cells[0], cells[1], cells[2]);
    let nf = fields.len();
    qflow_mesh::fsutil::write_atomically(path, |w| {
        writeln!(w, r#"<?xml version="1.0"?>"#)?;
        writeln!(
            w,
            r#"<VTKFile type="RectilinearGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
        )?;
        writeln!(w, r#"  <RectilinearGrid WholeExtent="{extent}">"#)?;
        writeln!(w, r#"    <Piece Extent="{extent}">"#)?;
        match fields.first() {
            Some((first, _)) => writeln!(w, r#"      <CellData Scalars="{first}">"#)?,
            None => writeln!(w, "      <CellData>")?,
        }
        for (k, (name, _)) in fields.iter().enumerate() {
            writeln!(w, "{}", array(name, k))?;
        }
        writeln!(w, "      </CellData>\n      <Coordinates>")?;
        for (d, axis) in ["x", "y", "z"].iter().enumerate() {
            writeln!(w, "{}", array(axis, nf + d))?;
        }
        writeln!(
            w,
            "      </Coordinates>\n    </Piece>\n  </RectilinearGrid>"
        )?;
        write!(w, "  <AppendedData encoding=\"raw\">\n   _")?;
        let data = fields.iter().map(|(_, v)| *v).chain(bounds.iter().copied());
        for (values, bytes) in data.zip(&blocks) {
            w.write_all(&bytes.to_le_bytes())?;
            for v in values {
                w.write_all(&v.to_le_bytes())?;
            }
        }
        writeln!(w, "\n  </AppendedData>\n</VTKFile>")
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_holds_the_bounds_and_fields_at_their_offsets() {
        let dir = std::env::temp_dir().join(format!("qflow-vtr-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.vtr");
        let (x, y, z) = ([0.0, 0.5, 1.0], [0.0, 1.0], [0.0, 2.0]);
        write_rectilinear_vtr(&path, [&x, &y, &z], &[("u", &[1.25, -3.0])]).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.contains(r#"<RectilinearGrid WholeExtent="0 2 0 1 0 1">"#));
        assert!(text.contains(r#"Name="u" NumberOfComponents="1" format="appended" offset="0""#));
        // x's block after u's (8 + 16 bytes).
        assert!(text.contains(r#"Name="x" NumberOfComponents="1" format="appended" offset="24""#));
        let start = bytes.windows(2).position(|w| w == b" _").unwrap() + 2;
        assert_eq!(bytes[start..start + 8], 16u64.to_le_bytes());
        assert_eq!(bytes[start + 8..start + 16], 1.25f64.to_le_bytes());
        assert_eq!(bytes[start + 16..start + 24], (-3.0f64).to_le_bytes());
        assert_eq!(bytes[start + 24..start + 32], 24u64.to_le_bytes());
        assert_eq!(bytes[start + 40..start + 48], 0.5f64.to_le_bytes());
        let e = write_rectilinear_vtr(&path, [&x, &y, &z], &[("u", &[1.0])]).unwrap_err();
        assert!(
            e.to_string().contains("`u` has 1 values for 2 cells"),
            "{e}"
        );
        let e = write_rectilinear_vtr(&path, [&[0.0, 0.0], &y, &z], &[]).unwrap_err();
        assert!(e.to_string().contains("axis 0"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
