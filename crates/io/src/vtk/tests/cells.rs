//! `write_cells_vtu` on meshes of mixed polygons, read back with the test
//! reader.

use qflow_mesh::poly::PolyMesh;

use super::super::cells::{VTK_POLYGON, VTK_QUAD, VTK_TRIANGLE};
use super::reader::read_vtu;
use super::*;

/// Two quadrilaterals, three triangles and a pentagon, in an order that
/// changes type between neighbours.
fn mixed_mesh() -> PolyMesh {
    let mut mesh = PolyMesh {
        x: vec![
            [0.0, 0.0],
            [1.0, 0.0],
            [2.0, 0.0],
            [0.0, 1.0],
            [1.0, 1.0],
            [2.0, 1.0],
            [3.0, 0.0],
            [3.5, 0.5],
            [3.0, 1.0],
            [1.5, 2.0],
            [0.0, 2.0],
        ],
        ..PolyMesh::default()
    };
    mesh.set_cells([
        &[0, 1, 4, 3][..],
        &[1, 2, 5],
        &[1, 5, 4],
        &[2, 6, 7, 8, 5],
        &[4, 5, 9],
        &[3, 4, 9, 10],
    ]);
    mesh
}

/// Checks that `path` holds `mesh` with `fields`, exactly.
fn check(path: &std::path::Path, mesh: &PolyMesh, fields: &[(&str, &[f64])]) {
    let vtu = read_vtu(path);
    assert_eq!((vtu.points, vtu.cells), (mesh.nodes(), mesh.cells()));
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let points: Vec<f64> = mesh.x.iter().flat_map(|p| [p[0], p[1], 0.0]).collect();
    assert_eq!(vtu.array("Points", "Points").components, 3);
    assert_eq!(bits(&vtu.f64s("Points", "Points")), bits(&points));
    let connectivity: Vec<i64> = mesh.cell_nodes.iter().map(|&n| n.into()).collect();
    assert_eq!(vtu.i64s("Cells", "connectivity"), connectivity);
    let ends: Vec<i64> = mesh.cell_start.iter().skip(1).map(|&e| e.into()).collect();
    assert_eq!(vtu.i64s("Cells", "offsets"), ends);
    let types = vtu.array("Cells", "types");
    assert_eq!(types.vtk_type, "UInt8");
    let want: Vec<u8> = (0..mesh.cells())
        .map(|c| match mesh.cell(c).len() {
            3 => VTK_TRIANGLE,
            4 => VTK_QUAD,
            _ => VTK_POLYGON,
        })
        .collect();
    assert_eq!(types.bytes, want);
    let cell_data: Vec<&str> = vtu
        .arrays
        .iter()
        .filter(|a| a.section == "CellData")
        .map(|a| a.name.as_str())
        .collect();
    let names: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
    assert_eq!(cell_data, names);
    assert_eq!(
        vtu.cell_data_attributes.get("Scalars").map(String::as_str),
        names.first().copied()
    );
    for (name, values) in fields {
        assert_eq!(vtu.array("CellData", name).components, 1);
        assert_eq!(bits(&vtu.f64s("CellData", name)), bits(values), "{name}");
    }
}

#[test]
fn mixed_polygons_read_back_exactly() {
    let mesh = mixed_mesh();
    assert_eq!(mesh.cell_kinds(), [(3, 3), (4, 2), (5, 1)]);
    let dir = test_case::temp_dir("cells-vtu-mixed");
    let path = dir.join("field.vtu");
    // Five fields of one size (the case meshio once read swapped), with
    // values that tell every field and cell apart.
    let columns: Vec<Vec<f64>> = (0..5)
        .map(|k| {
            (0..mesh.cells())
                .map(|c| (k * 10 + c) as f64 + 1.0 / 3.0)
                .collect()
        })
        .collect();
    let names = ["rho", "u", "v", "p", "Mach"];
    let fields: Vec<(&str, &[f64])> = names
        .iter()
        .zip(&columns)
        .map(|(n, v)| (*n, v.as_slice()))
        .collect();
    write_cells_vtu(&path, &mesh, &fields).unwrap();
    check(&path, &mesh, &fields);
    // Special values are written as they are.
    let odd = [
        f64::NAN,
        -0.0,
        f64::INFINITY,
        f64::MIN_POSITIVE,
        -1e300,
        0.5,
    ];
    write_cells_vtu(&path, &mesh, &[("q", &odd)]).unwrap();
    check(&path, &mesh, &[("q", &odd)]);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_cell_count_and_no_fields() {
    let dir = test_case::temp_dir("cells-vtu-counts");
    let path = dir.join("field.vtu");
    let full = mixed_mesh();
    for nc in 0..=full.cells() {
        let mut mesh = PolyMesh {
            x: full.x.clone(),
            ..PolyMesh::default()
        };
        mesh.set_cells((0..nc).map(|c| full.cell(c)));
        let values: Vec<f64> = (0..nc).map(|c| c as f64 - 0.25).collect();
        write_cells_vtu(&path, &mesh, &[("rho", &values), ("p", &values)]).unwrap();
        check(&path, &mesh, &[("rho", &values), ("p", &values)]);
        write_cells_vtu(&path, &mesh, &[]).unwrap();
        check(&path, &mesh, &[]);
    }
    // A mesh without cells or nodes, `cell_start` empty.
    write_cells_vtu(&path, &PolyMesh::default(), &[]).unwrap();
    check(&path, &PolyMesh::default(), &[]);
    std::fs::remove_dir_all(dir).unwrap();
}
