//! A mesh of polygons with named per-cell fields as a VTK XML
//! unstructured grid (`.vtu`): points `(x, y, 0)`, each cell a
//! `VTK_TRIANGLE`, `VTK_QUAD` or `VTK_POLYGON` by its node count, one
//! Float64 cell-data array per field, raw appended block (see the module
//! above for the encoding). Generic over the fields: a method names them.

use std::io::Write;
use std::path::Path;

use qflow_mesh::poly::PolyMesh;

use super::format::Appended;
use crate::OutputError;

/// The VTK cell types of the cells written.
pub(super) const VTK_TRIANGLE: u8 = 5;
pub(super) const VTK_POLYGON: u8 = 7;
pub(super) const VTK_QUAD: u8 = 9;

/// The VTK cell type of a polygon of `nodes` nodes (at least 3).
pub(super) fn cell_type(nodes: usize) -> u8 {
    match nodes {
        3 => VTK_TRIANGLE,
        4 => VTK_QUAD,
        _ => VTK_POLYGON,
    }
}

/// Writes `mesh` with the cell fields `fields` (`(name, values)`, one value
/// per cell) as a `.vtu` file, atomically. Cells of 3 nodes are written as
/// triangles, of 4 as quadrilaterals, of more as polygons; a cell of fewer
/// than 3 nodes, or one that names a node the mesh does not have, is an
/// error.
pub fn write_cells_vtu(
    path: &Path,
    mesh: &PolyMesh,
    fields: &[(&str, &[f64])],
) -> Result<(), OutputError> {
    let (np, nc) = (mesh.nodes(), mesh.cells());
    super::check_cell_fields(path, fields, nc)?;
    check_cells(path, mesh)?;
    // The nodes of the cells, as the offsets count them (`cell_start` is
    // empty for a mesh without cells).
    let nodes = if nc == 0 {
        &[][..]
    } else {
        &mesh.cell_nodes[..mesh.cell_start[nc] as usize]
    };
    let mut block = Appended::default();
    for (_, values) in fields {
        block.push(8 * nc as u64, move |w| {
            values
                .iter()
                .try_for_each(|v| w.write_all(&v.to_le_bytes()))
        });
    }
    block.push(24 * np as u64, |w| {
        for p in &mesh.x {
            for c in [p[0], p[1], 0.0] {
                w.write_all(&c.to_le_bytes())?;
            }
        }
        Ok(())
    });
    block.push(8 * nodes.len() as u64, |w| {
        nodes
            .iter()
            .try_for_each(|&n| w.write_all(&i64::from(n).to_le_bytes()))
    });
    let ends = mesh.cell_start.get(1..).unwrap_or_default();
    block.push(8 * nc as u64, |w| {
        ends.iter()
            .try_for_each(|&e| w.write_all(&i64::from(e).to_le_bytes()))
    });
    block.push(nc as u64, |w| {
        (0..nc).try_for_each(|c| {
            let n = mesh.cell_start[c + 1] - mesh.cell_start[c];
            w.write_all(&[cell_type(n as usize)])
        })
    });
    let offsets = block.offsets();
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
        block.write(w)?;
        writeln!(w, "</VTKFile>")
    })?;
    Ok(())
}

/// Checks the cells of `mesh` before writing: rows of at least 3 nodes
/// within `cell_nodes`, from 0, every node one of the mesh's.
fn check_cells(path: &Path, mesh: &PolyMesh) -> Result<(), OutputError> {
    if mesh.cell_start.first().is_some_and(|&s| s != 0) {
        return Err(OutputError::data(
            path,
            "the first cell row does not start at 0",
        ));
    }
    for (c, w) in mesh.cell_start.windows(2).enumerate() {
        let (start, end) = (w[0] as usize, w[1] as usize);
        let Some(nodes) = mesh.cell_nodes.get(start..end).filter(|n| n.len() >= 3) else {
            return Err(OutputError::data(
                path,
                format!(
                    "cell {c}: nodes {start}..{end} of {} (at least 3 nodes a cell)",
                    mesh.cell_nodes.len()
                ),
            ));
        };
        if let Some(&n) = nodes.iter().find(|&&n| n as usize >= mesh.nodes()) {
            return Err(OutputError::data(
                path,
                format!("cell {c} names node {n} of {}", mesh.nodes()),
            ));
        }
    }
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
        // The blocks, last declared first: types (8 + 1 bytes), offsets
        // (8 + 8), connectivity (8 + 32), points (8 + 96), Mach, rho.
        for (name, offset) in [
            ("types", 0),
            ("offsets", 9),
            ("connectivity", 25),
            ("Points", 65),
            ("Mach", 169),
            ("rho", 185),
        ] {
            let attributes = format!(r#"Name="{name}" NumberOfComponents="#);
            let at = text.find(&attributes).unwrap() + attributes.len();
            let element = &text[at..at + text[at..].find("/>").unwrap()];
            assert!(
                element.ends_with(&format!(r#"offset="{offset}""#)),
                "{element}"
            );
        }
        // The block after `_`: the byte count of types, one VTK_QUAD.
        let start = bytes.windows(2).position(|w| w == b" _").unwrap() + 2;
        assert_eq!(bytes[start..start + 8], 1u64.to_le_bytes());
        assert_eq!(bytes[start + 8], VTK_QUAD);
        assert_eq!(bytes[start + 17..start + 25], 4i64.to_le_bytes());
        assert_eq!(bytes[start + 169..start + 177], 8u64.to_le_bytes());
        assert_eq!(bytes[start + 177..start + 185], 0.5f64.to_le_bytes());
        // The last block: rho.
        let end = bytes.len() - "\n  </AppendedData>\n</VTKFile>\n".len();
        assert_eq!(end, start + 201);
        assert_eq!(bytes[end - 8..end], 1.25f64.to_le_bytes());
        let e = write_cells_vtu(&path, &square(), &[("rho", &[1.0, 2.0])]).unwrap_err();
        assert!(
            e.to_string().contains("`rho` has 2 values for 1 cells"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn cell_types_by_node_count() {
        assert_eq!(
            [3, 4, 5, 8].map(cell_type),
            [VTK_TRIANGLE, VTK_QUAD, VTK_POLYGON, VTK_POLYGON]
        );
    }

    #[test]
    fn bad_cells_are_errors_and_write_nothing() {
        let dir = std::env::temp_dir().join(format!("qflow-cells-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.vtu");
        let mut two = square();
        two.cell_start = vec![0, 2, 4];
        let mut outside = square();
        outside.cell_start.push(9);
        let mut backwards = square();
        backwards.cell_start = vec![0, 4, 1];
        let mut missing = square();
        missing.cell_nodes[2] = 4;
        let mut offset = square();
        offset.cell_start = vec![1, 4];
        for (mesh, what) in [
            (two, "cell 0: nodes 0..2 of 4 (at least 3"),
            (outside, "cell 1: nodes 4..9 of 4"),
            (backwards, "cell 1: nodes 4..1"),
            (missing, "cell 0 names node 4 of 4"),
            (offset, "does not start at 0"),
        ] {
            let fields: Vec<(&str, &[f64])> = vec![("rho", &[1.0, 2.0][..mesh.cells()])];
            let e = write_cells_vtu(&path, &mesh, &fields).unwrap_err();
            assert!(e.to_string().contains(what), "{e}");
        }
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
