//! Cell fields on a rectilinear grid as a VTK XML rectilinear grid
//! (`.vtr`): the cell boundaries along x, y and z (each increasing), one
//! Float64 cell-data array per field in x-fastest order, raw appended
//! blocks with UInt64 byte counts, last declared first (as
//! [`super::write_cells_vtu`]). For
//! fields on tensor-product grids, such as a 3D DG solution with a
//! picture cell per node.

use std::io::Write;
use std::path::Path;

use super::format::Appended;
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
    // The arrays in the order declared: the fields, then the three
    // coordinate arrays.
    let mut block = Appended::default();
    for values in fields.iter().map(|(_, v)| *v).chain(bounds) {
        block.push(8 * values.len() as u64, move |w| {
            values
                .iter()
                .try_for_each(|v| w.write_all(&v.to_le_bytes()))
        });
    }
    let offsets = block.offsets();
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
        block.write(w)?;
        writeln!(w, "</VTKFile>")
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
        // The blocks, last declared first: z and y (8 + 16 bytes each), x
        // (8 + 24), u.
        for (name, offset) in [("z", 0), ("y", 24), ("x", 48), ("u", 80)] {
            assert!(text.contains(&format!(
                r#"Name="{name}" NumberOfComponents="1" format="appended" offset="{offset}""#
            )));
        }
        let start = bytes.windows(2).position(|w| w == b" _").unwrap() + 2;
        assert_eq!(bytes[start..start + 8], 16u64.to_le_bytes());
        assert_eq!(bytes[start + 16..start + 24], 2.0f64.to_le_bytes());
        assert_eq!(bytes[start + 48..start + 56], 24u64.to_le_bytes());
        assert_eq!(bytes[start + 64..start + 72], 0.5f64.to_le_bytes());
        assert_eq!(bytes[start + 80..start + 88], 16u64.to_le_bytes());
        assert_eq!(bytes[start + 88..start + 96], 1.25f64.to_le_bytes());
        assert_eq!(bytes[start + 96..start + 104], (-3.0f64).to_le_bytes());
        assert_eq!(&bytes[start + 104..], b"\n  </AppendedData>\n</VTKFile>\n");
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
