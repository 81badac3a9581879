//! qflow's `.vtu` files read back with meshio, the usual Python reader
//! (PyPI `meshio`), every value compared exactly. meshio 5.3 once read
//! fields of raw appended files swapped (`p` and `Mach` when the count was
//! 2 mod 3; see `vtk::format::Appended`), so the files are written for
//! every count from 1 to 7.
//!
//! The interpreter is `$QFLOW_PYTHON`, else `python3`. Without meshio the
//! test is skipped with a note, unless `QFLOW_REQUIRE_MESHIO=1`
//! (scripts/test.sh sets both when scripts/install-deps.sh made its
//! environment, target/pyenv).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use qflow_io::vtk::{write_cells_vtu, write_vtu, write_vtu_piece, PointData};
use qflow_mesh::poly::PolyMesh;
use qflow_mesh::{Cloud, PointKind, NO_POINT};

/// The Python interpreter with meshio, or `None` (after a note) when there
/// is none and none is required.
fn python_with_meshio() -> Option<String> {
    let python = std::env::var("QFLOW_PYTHON").unwrap_or_else(|_| "python3".into());
    let required = std::env::var("QFLOW_REQUIRE_MESHIO").is_ok_and(|v| v == "1");
    let found = Command::new(&python).args(["-c", "import meshio"]).output();
    match found {
        Ok(out) if out.status.success() => Some(python),
        other => {
            let why = match other {
                Ok(out) => String::from_utf8_lossy(&out.stderr).trim().to_string(),
                Err(e) => e.to_string(),
            };
            assert!(
                !required,
                "QFLOW_REQUIRE_MESHIO=1 but `{python} -c 'import meshio'` failed: {why}"
            );
            eprintln!(
                "note: skipping the meshio check: `{python}` cannot import meshio \
                 (scripts/install-deps.sh installs it into target/pyenv): {why}"
            );
            None
        }
    }
}

/// One item that meshio read (a line of tests/meshio_read.py).
#[derive(Debug, Default)]
struct Read {
    points: Vec<u64>,
    /// `(type, nodes a cell, nodes)` of each cell block, in order.
    cells: Vec<(String, usize, Vec<i64>)>,
    /// `name -> (dtype, components, values)`; floats as their bits.
    point_data: Vec<(String, String, usize, Vec<u64>)>,
    /// `name -> (dtype, values)`, over the blocks.
    cell_data: Vec<(String, String, Vec<u64>)>,
    /// Why meshio could not read the file.
    error: Option<String>,
}

/// Reads `files` with meshio.
fn read_with_meshio(python: &str, files: &[PathBuf]) -> HashMap<PathBuf, Read> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/meshio_read.py");
    let out = Command::new(python)
        .arg(&script)
        .args(files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "meshio failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut read: HashMap<PathBuf, Read> = HashMap::new();
    let mut current = None;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let what = words.next().unwrap();
        if what == "file" {
            let path = PathBuf::from(&line["file ".len()..]);
            read.insert(path.clone(), Read::default());
            current = Some(path);
            continue;
        }
        let r = read.get_mut(current.as_ref().unwrap()).unwrap();
        let mut word = || words.next().unwrap().to_string();
        match what {
            "points" => {
                let n: usize = word().parse().unwrap();
                r.points = words.map(|v| v.parse().unwrap()).collect();
                assert_eq!(r.points.len(), 3 * n, "{line}");
            }
            "cells" => {
                let (ty, k, m) = (word(), word(), word());
                let (k, m): (usize, usize) = (k.parse().unwrap(), m.parse().unwrap());
                let nodes: Vec<i64> = words.map(|v| v.parse().unwrap()).collect();
                assert_eq!(nodes.len(), k * m, "{line}");
                r.cells.push((ty, m, nodes));
            }
            "point_data" => {
                let (name, dtype, c) = (word(), word(), word());
                let values = words.map(|v| v.parse().unwrap()).collect();
                r.point_data.push((name, dtype, c.parse().unwrap(), values));
            }
            "error" => r.error = Some(line["error ".len()..].to_string()),
            "cell_data" => {
                let (name, dtype) = (word(), word());
                let values = words.map(|v| v.parse().unwrap()).collect();
                r.cell_data.push((name, dtype, values));
            }
            _ => panic!("unknown line from meshio: {line}"),
        }
    }
    read
}

fn bits(v: impl IntoIterator<Item = f64>) -> Vec<u64> {
    v.into_iter().map(f64::to_bits).collect()
}

/// A fresh, empty folder for this test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qflow-io-meshio-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The first `nc` cells of a strip of mixed polygons: a quadrilateral, two
/// triangles, a pentagon, a triangle, a quadrilateral, a hexagon.
fn mixed_mesh(nc: usize) -> PolyMesh {
    let x: Vec<[f64; 2]> = (0..16)
        .map(|i| [f64::from(i / 2) * 0.5, f64::from(i % 2) - 1.0 / 3.0])
        .collect();
    let cells: [&[u32]; 7] = [
        &[0, 2, 3, 1],
        &[2, 4, 3],
        &[3, 4, 5],
        &[4, 6, 8, 7, 5],
        &[8, 9, 7],
        &[8, 10, 11, 9],
        &[10, 12, 14, 15, 13, 11],
    ];
    let mut mesh = PolyMesh {
        x,
        ..PolyMesh::default()
    };
    mesh.set_cells(cells[..nc].iter().copied());
    mesh
}

/// The names of the scalar point fields of [`cloud`] (q-LSKUM's).
const POINT_SCALARS: [&str; 6] = ["rho", "u", "v", "p", "Mach", "Cp"];

/// A cloud of `n` points of every kind with six scalar fields
/// ([`POINT_SCALARS`]) and a vector, whose values tell every point and
/// field apart.
fn cloud(n: usize) -> (Cloud, Vec<Vec<f64>>, [Vec<f64>; 2]) {
    let kinds = [PointKind::Wall, PointKind::Interior, PointKind::Outer];
    let cloud = Cloud {
        x: (0..n).map(|i| i as f64 * 0.25 - 1.0 / 7.0).collect(),
        y: (0..n).map(|i| -(i as f64) / 3.0).collect(),
        kind: (0..n).map(|i| kinds[i % 3]).collect(),
        left: vec![NO_POINT; n],
        right: vec![NO_POINT; n],
        shape: vec![0; n],
        min_dist: vec![1.0; n],
        nbr_start: vec![0; n + 1],
        nbr: vec![],
        quadtree: None,
    };
    let scalars = (0..POINT_SCALARS.len())
        .map(|k| {
            (0..n)
                .map(|i| 1.0 + k as f64 + i as f64 / (9 + 2 * k) as f64)
                .collect()
        })
        .collect();
    let vector = [0, 1].map(|c| (0..n).map(|i| c as f64 - i as f64 / 19.0).collect());
    (cloud, scalars, vector)
}

/// Runs `f` on the point data of [`cloud`]'s fields, `Mach` and the
/// velocity active.
fn with_data<T>(
    scalars: &[Vec<f64>],
    vector: &[Vec<f64>; 2],
    f: impl FnOnce(&PointData) -> T,
) -> T {
    let scalars: Vec<(&str, &[f64])> = POINT_SCALARS
        .iter()
        .zip(scalars)
        .map(|(name, v)| (*name, v.as_slice()))
        .collect();
    let vectors = [("velocity", [&vector[0][..], &vector[1][..]])];
    f(&PointData {
        scalars: &scalars,
        vectors: &vectors,
        active_scalar: Some("Mach"),
        active_vector: Some("velocity"),
    })
}

#[test]
fn meshio_reads_every_field_and_cell() {
    let Some(python) = python_with_meshio() else {
        return;
    };
    let dir = temp_dir("all");
    let names = ["rho", "u", "v", "p", "Mach", "Cp"];
    let mut files = Vec::new();
    for n in 1..=7 {
        // Mixed polygons with six cell fields.
        let mesh = mixed_mesh(n);
        let columns: Vec<Vec<f64>> = (0..names.len())
            .map(|k| (0..n).map(|c| (10 * k + c) as f64 + 1.0 / 3.0).collect())
            .collect();
        let path = dir.join(format!("cells_{n}.vtu"));
        let fields: Vec<(&str, &[f64])> = names
            .iter()
            .zip(&columns)
            .map(|(name, v)| (*name, v.as_slice()))
            .collect();
        write_cells_vtu(&path, &mesh, &fields).unwrap();
        files.push(path);
        // A point cloud, whole and as a piece (points backwards).
        let (cloud, scalars, vector) = cloud(n);
        let path = dir.join(format!("cloud_{n}.vtu"));
        with_data(&scalars, &vector, |data| write_vtu(&path, &cloud, data)).unwrap();
        files.push(path);
        let points: Vec<u32> = (0..n as u32).rev().collect();
        let numbers: Vec<u64> = points.iter().map(|&i| u64::from(i) + 1_000).collect();
        let path = dir.join(format!("piece_{n}.vtu"));
        with_data(&scalars, &vector, |data| {
            write_vtu_piece(&path, &cloud, data, &points, &numbers)
        })
        .unwrap();
        files.push(path);
    }
    let read = read_with_meshio(&python, &files);
    assert_eq!(read.len(), files.len());

    for n in 1..=7 {
        let mesh = mixed_mesh(n);
        let path = dir.join(format!("cells_{n}.vtu"));
        let r = &read[&path];
        let what = path.display();
        assert_eq!(r.error, None, "{what}");
        assert_eq!(
            r.points,
            bits(mesh.x.iter().flat_map(|p| [p[0], p[1], 0.0])),
            "{what}"
        );
        // The blocks joined, cell after cell.
        let mut cells: Vec<(String, Vec<i64>)> = Vec::new();
        for (ty, m, nodes) in &r.cells {
            for c in nodes.chunks(*m) {
                cells.push((ty.clone(), c.to_vec()));
            }
        }
        let want: Vec<(String, Vec<i64>)> = (0..n)
            .map(|c| {
                let nodes = mesh.cell(c);
                let ty = match nodes.len() {
                    3 => "triangle",
                    4 => "quad",
                    _ => "polygon",
                };
                (ty.to_string(), nodes.iter().map(|&v| v.into()).collect())
            })
            .collect();
        assert_eq!(cells, want, "{what}");
        let got: Vec<&str> = r.cell_data.iter().map(|(name, ..)| name.as_str()).collect();
        assert_eq!(got, names, "{what}");
        for (k, (name, dtype, values)) in r.cell_data.iter().enumerate() {
            assert_eq!(dtype, "float64", "{what} {name}");
            let want = bits((0..n).map(|c| (10 * k + c) as f64 + 1.0 / 3.0));
            assert_eq!(values, &want, "{what} {name}");
        }
        assert!(r.point_data.is_empty(), "{what}");

        let (cloud, scalars, vector) = cloud(n);
        for (file, order, numbers) in [
            (
                "cloud",
                (0..n).collect::<Vec<_>>(),
                (1..=n as u64).collect::<Vec<_>>(),
            ),
            (
                "piece",
                (0..n).rev().collect(),
                (0..n as u64).rev().map(|i| i + 1_000).collect(),
            ),
        ] {
            let path = dir.join(format!("{file}_{n}.vtu"));
            let r = &read[&path];
            let what = path.display();
            assert_eq!(r.error, None, "{what}");
            assert_eq!(
                r.points,
                bits(order.iter().flat_map(|&i| [cloud.x[i], cloud.y[i], 0.0])),
                "{what}"
            );
            let vertices: Vec<i64> = (0..n as i64).collect();
            assert_eq!(r.cells, [("vertex".to_string(), 1, vertices)], "{what}");
            assert!(r.cell_data.is_empty(), "{what}");
            let mut want: Vec<(&str, &str, usize, Vec<u64>)> = POINT_SCALARS
                .iter()
                .zip(&scalars)
                .map(|(name, v)| (*name, "float64", 1, bits(order.iter().map(|&i| v[i]))))
                .collect();
            want.extend([
                (
                    "velocity",
                    "float64",
                    3,
                    bits(
                        order
                            .iter()
                            .flat_map(|&i| [vector[0][i], vector[1][i], 0.0]),
                    ),
                ),
                (
                    "kind",
                    "int32",
                    1,
                    order
                        .iter()
                        .map(|&i| u64::from(cloud.kind[i].code()))
                        .collect(),
                ),
                ("point", "int64", 1, numbers),
            ]);
            let got: Vec<(&str, &str, usize, Vec<u64>)> = r
                .point_data
                .iter()
                .map(|(name, dtype, c, v)| (name.as_str(), dtype.as_str(), *c, v.clone()))
                .collect();
            assert_eq!(got, want, "{what}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}
