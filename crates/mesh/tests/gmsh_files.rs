//! Meshes that Gmsh itself wrote (`scripts/gmsh-naca.py`, Gmsh 4.x from
//! PyPI): a NACA 0012 in a circle, as triangles, mixed cells and
//! quadrilaterals, in MSH 2.2 and 4.1, ASCII and binary, with and without
//! `Mesh.SaveAll` (every element written, points and all).

use std::path::{Path, PathBuf};

use qflow_mesh::poly::{check::check, gmsh, Boundary, PolyMesh};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn mesh(name: &str) -> PolyMesh {
    mesh_mapped(
        name,
        &[("wall", Boundary::Wall), ("farfield", Boundary::FarField)],
    )
}

fn mesh_mapped(name: &str, markers: &[(&str, Boundary)]) -> PolyMesh {
    let cells = gmsh::read(&data(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let m = cells
        .to_poly_mesh(markers)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let report = check(&m);
    assert!(report.is_ok(), "{name}: {:?}", report.findings);
    m
}

/// The same mesh: connectivity and boundaries exactly, coordinates to
/// the 16 digits an ASCII file keeps.
fn assert_same(a: &PolyMesh, b: &PolyMesh, what: &str) {
    assert_eq!(a.x.len(), b.x.len(), "{what}: nodes");
    let dx =
        a.x.iter()
            .zip(&b.x)
            .map(|(p, q)| (p[0] - q[0]).abs().max((p[1] - q[1]).abs()))
            .fold(0.0f64, f64::max);
    assert!(dx < 1e-13, "{what}: coordinates differ by {dx:e}");
    assert_eq!(a.cell_start, b.cell_start, "{what}");
    assert_eq!(a.cell_nodes, b.cell_nodes, "{what}");
    assert_eq!(a.edge_nodes, b.edge_nodes, "{what}");
    assert_eq!(a.edge_cells, b.edge_cells, "{what}");
    assert_eq!(a.bedge_nodes, b.bedge_nodes, "{what}");
    assert_eq!(a.bedge_cell, b.bedge_cell, "{what}");
    assert_eq!(a.bound, b.bound, "{what}");
}

#[test]
fn gmsh_files_of_every_version_and_encoding_read_to_one_mesh() {
    let tri = mesh("naca-tri-41.msh");
    assert_eq!(tri.cell_kinds(), [(3, 254)]);
    // Every line of the physical group "wall" is a wall edge (bound 1).
    let cells = gmsh::read(&data("naca-tri-41.msh")).unwrap();
    let wall_lines = cells
        .markers
        .iter()
        .find(|(n, _)| n == "wall")
        .unwrap()
        .1
        .len();
    assert!(wall_lines > 10);
    assert_eq!(
        tri.bound.iter().filter(|&&b| b == 1).count(),
        wall_lines,
        "wall edges"
    );
    assert_eq!(
        tri.bedges(),
        cells.markers.iter().map(|(_, l)| l.len()).sum::<usize>()
    );
    for other in ["naca-tri-22-bin.msh", "naca-tri-41-bin-saveall.msh"] {
        assert_same(&mesh(other), &tri, other);
    }
    // 2.2 with Mesh.SaveAll: Gmsh writes every element with physical
    // group 0, so its boundaries are known by curve only (the aerofoil's
    // two splines are curves 1-2, the circle's arcs 3-6).
    let all = gmsh::read(&data("naca-tri-22-saveall.msh")).unwrap();
    let names: Vec<String> = (1..=6).map(|c| format!("curve {c}")).collect();
    assert_eq!(all.marker_names(), names);
    let e = all.to_poly_mesh(&[("wall", Boundary::Wall)]).unwrap_err();
    assert!(
        e.to_string()
            .contains("`wall` is not in the mesh (it has: curve 1, curve 2"),
        "{e}"
    );
    let map: Vec<(&str, Boundary)> = names
        .iter()
        .enumerate()
        .map(|(k, n)| {
            (
                n.as_str(),
                if k < 2 {
                    Boundary::Wall
                } else {
                    Boundary::FarField
                },
            )
        })
        .collect();
    assert_same(
        &mesh_mapped("naca-tri-22-saveall.msh", &map),
        &tri,
        "2.2 SaveAll",
    );
    // Gmsh's recombined meshes: mixed, and all quadrilaterals.
    let mixed = mesh("naca-mixed-41.msh");
    assert_eq!(mixed.cell_kinds(), [(3, 26), (4, 95)]);
    assert!(mesh("naca-quad-22.msh").all_quadrilaterals());
}

/// `-0.0` and other spellings of the same coordinates change nothing.
#[test]
fn signed_zeros_and_other_spellings_change_nothing() {
    let text = std::fs::read_to_string(data("naca-tri-41.msh")).unwrap();
    let (head, rest) = text.split_at(text.find("$Nodes").unwrap());
    let (nodes, tail) = rest.split_at(rest.find("$EndNodes").unwrap());
    let mut zeros = 0;
    let respelt: Vec<String> = nodes
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            if w.len() != 3 {
                return l.to_string(); // headers and tags
            }
            w.iter()
                .map(|v| {
                    let v: f64 = v.parse().unwrap();
                    if v == 0.0 {
                        zeros += 1;
                        "-0.000000".to_string()
                    } else {
                        format!("{v:e}")
                    }
                })
                .collect::<Vec<_>>()
                .join("  ")
        })
        .collect();
    assert!(zeros > 100, "{zeros} zeros respelt");
    let path = std::env::temp_dir().join(format!("qflow-respelt-{}.msh", std::process::id()));
    std::fs::write(&path, format!("{head}{}\n{tail}", respelt.join("\n"))).unwrap();
    let cells = gmsh::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(cells
        .x
        .iter()
        .flatten()
        .all(|v| v.is_sign_positive() || *v < 0.0));
    let m = cells
        .to_poly_mesh(&[("wall", Boundary::Wall), ("farfield", Boundary::FarField)])
        .unwrap();
    assert!(
        m.x.iter()
            .flatten()
            .all(|v| *v != 0.0 || v.is_sign_positive()),
        "a -0 kept"
    );
    assert_eq!(m, mesh("naca-tri-41.msh"));
}
