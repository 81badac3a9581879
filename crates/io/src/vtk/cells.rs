//! A quadrilateral mesh with named per-cell fields as a VTK XML
//! unstructured grid (`.vtu`): points `(x, y, 0)`, `VTK_QUAD` cells, one
//! Float64 cell-data array per field, raw appended block (see the module
//! above for the encoding). Generic over the fields: a method names them.

use std::io::{self, Write};
use std::path::Path;

use qflow_mesh::poly::PolyMesh;

use crate::OutputError;

const VTK_QUAD: u8 = 9;

/// Writes `mesh` with the cell fields `fields` (`(name, values)`, one value
/// per cell) as a `.vtu` file, atomically.
pub fn write_cells_vtu(
    path: &Path,
    mesh: &PolyMesh,
    fields: &[(&str, &[f64])],
) -> Result<(), OutputError> {
    let (np, nc) = (mesh.nodes(), mesh.cells());
    super::check_cell_fields(path, fields, nc)?;
    // Byte counts of the blocks, in the order they are written.
    let mut blocks: Vec<u64> = fields.iter().map(|_| 8 * nc as u64).collect();
    blocks.push(24 * np as u64); // points
    blocks.push(32 * nc as u64); // connectivity
    blocks.push(8 * nc as u64); // offsets
    blocks.push(nc as u64); // types
    let mut offsets = Vec::with_capacity(blocks.len());
    let mut at = 0u64;
    for b in &blocks {
        offsets.push(at);
        at += 8 + b;
    }
    let array = |ty: &str, name: &str, comps: usize, k: usize| {
        format!(
            r#"        <DataArray type="{ty}" Name="{name}" NumberOfComponents="{comps}" format="appended" offset="{}"/>"#,
            offsets[k]
        )
    };
    let nf = fields.len();
    qflow_mesh::fsutil::write_atomically(path, |w| {
        writeln!(w, r#"<?xml version="1.0"?>"#)?;
        writeln!(
            w,
            r#"<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
        )?;
        writeln!(w, "  <UnstructuredGrid>")?;
        writeln!(
            w,
            r#"    <Piece NumberOfPoints="{np}" NumberOfCells="{nc}">"#
        )?;
        match fields.first() {
            Some((first, _)) => writeln!(w, r#"      <CellData Scalars="{first}">"#)?,
            None => writeln!(w, "      <CellData>")?,
        }
        for (k, (name, _)) in fields.iter().enumerate() {
            writeln!(w, "{}", array("Float64", name, 1, k))?;
        }
        writeln!(w, "      </CellData>")?;
        writeln!(
            w,
            "      <Points>\n{}\n      </Points>",
            array("Float64", "Points", 3, nf)
        )?;
        writeln!(w, "      <Cells>")?;
        writeln!(w, "{}", array("Int64", "connectivity", 1, nf + 1))?;
        writeln!(w, "{}", array("Int64", "offsets", 1, nf + 2))?;
        writeln!(w, "{}", array("UInt8", "types", 1, nf + 3))?;
        writeln!(w, "      </Cells>\n    </Piece>\n  </UnstructuredGrid>")?;
        write!(w, "  <AppendedData encoding=\"raw\">\n   _")?;
        let mut k = 0;
        let mut header = |w: &mut dyn Write| -> io::Result<()> {
            w.write_all(&blocks[k].to_le_bytes())?;
            k += 1;
            Ok(())
        };
        for (_, values) in fields {
            header(w)?;
            for v in *values {
                w.write_all(&v.to_le_bytes())?;
            }
        }
        header(w)?;
        for p in &mesh.x {
            for c in [p[0], p[1], 0.0] {
                w.write_all(&c.to_le_bytes())?;
            }
        }
        header(w)?;
        for n in &mesh.cell_nodes {
            w.write_all(&(*n as i64).to_le_bytes())?;
        }
        header(w)?;
        for i in 1..=nc {
            w.write_all(&(4 * i as i64).to_le_bytes())?;
        }
        header(w)?;
        for _ in 0..nc {
            w.write_all(&[VTK_QUAD])?;
        }
        writeln!(w, "\n  </AppendedData>\n</VTKFile>")
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> PolyMesh {
        PolyMesh {
            x: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
            cell_start: vec![0, 4],
            cell_nodes: vec![0, 1, 2, 3],
            bedge_nodes: vec![[1, 0], [2, 1], [3, 2], [0, 3]],
            bedge_cell: vec![0; 4],
            bound: vec![1; 4],
            ..PolyMesh::default()
        }
    }

    #[test]
    fn the_file_holds_the_cells_and_fields_at_their_offsets() {
        let dir = std::env::temp_dir().join(format!("qflow-cells-vtu-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.vtu");
        write_cells_vtu(&path, &square(), &[("rho", &[1.25]), ("Mach", &[0.5])]).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.contains(r#"NumberOfPoints="4" NumberOfCells="1""#));
        assert!(text.contains(r#"Name="rho" NumberOfComponents="1" format="appended" offset="0""#));
        assert!(
            text.contains(r#"Name="Mach" NumberOfComponents="1" format="appended" offset="16""#)
        );
        // The block after `_`: rho's byte count 8, then 1.25.
        let start = bytes.windows(2).position(|w| w == b" _").unwrap() + 2;
        assert_eq!(bytes[start..start + 8], 8u64.to_le_bytes());
        assert_eq!(bytes[start + 8..start + 16], 1.25f64.to_le_bytes());
        assert_eq!(bytes[start + 24..start + 32], 0.5f64.to_le_bytes());
        // The last block: one VTK_QUAD.
        let end = bytes.len() - "\n  </AppendedData>\n</VTKFile>\n".len();
        assert_eq!(bytes[end - 1], VTK_QUAD);
        let e = write_cells_vtu(&path, &square(), &[("rho", &[1.0, 2.0])]).unwrap_err();
        assert!(
            e.to_string().contains("`rho` has 2 values for 1 cells"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
