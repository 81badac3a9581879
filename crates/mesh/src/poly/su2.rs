//! SU2's native mesh format (`.su2`), 2D quadrilateral meshes:
//!
//! ```text
//! NDIME= 2
//! NELEM= 2
//! 9 0 1 4 3        (VTK type 9: a quadrilateral; an optional index after)
//! 9 1 2 5 4
//! NPOIN= 6
//! 0.0 0.0          (an optional index after)
//! ...
//! NMARK= 2
//! MARKER_TAG= airfoil
//! MARKER_ELEMS= 2
//! 3 0 1            (VTK type 3: a line segment)
//! 3 1 2
//! MARKER_TAG= farfield
//! ...
//! ```
//!
//! `%` starts a comment. Sections may come in any order. Other element
//! types (triangles, 3D) are refused by name; the reader names the line of
//! anything malformed.

use std::path::Path;

use super::cells::CellMesh;
use super::MeshError;

/// Reads an SU2 mesh file.
pub fn read(path: &Path) -> Result<CellMesh, MeshError> {
    let text = std::fs::read_to_string(path).map_err(|source| MeshError::Io {
        path: path.into(),
        cause: source,
    })?;
    parse(&text, path)
}

/// Parses the text of an SU2 mesh file (`path` for messages).
pub fn parse(text: &str, path: &Path) -> Result<CellMesh, MeshError> {
    let bad = |line: usize, field: &str, message: String| MeshError::Parse {
        path: path.into(),
        line,
        field: field.into(),
        message,
    };
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split('%').next().unwrap_or("").trim()))
        .filter(|(_, l)| !l.is_empty());
    let mut mesh = CellMesh::default();
    let count = |line: usize, key: &str, v: &str| -> Result<usize, MeshError> {
        v.split_whitespace()
            .next()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| bad(line, key, format!("`{v}` is not a count")))
    };
    let ints = |line: usize, l: &str, what: &str| -> Result<Vec<u64>, MeshError> {
        l.split_whitespace()
            .map(|t| {
                t.parse::<u64>()
                    .map_err(|_| bad(line, what, format!("`{t}` is not an index")))
            })
            .collect()
    };
    let mut next = |section: &str, k: usize, n: usize| {
        lines.next().ok_or_else(|| MeshError::Truncated {
            path: path.into(),
            section: match section {
                "NELEM" => "cells",
                "NPOIN" => "nodes",
                _ => "boundary edges",
            },
            expected: n,
            found: k,
        })
    };
    let mut points: Option<usize> = None;
    let mut tag: Option<String> = None;
    while let Ok((line, l)) = next("", 0, 0) {
        let Some((key, value)) = l.split_once('=') else {
            return Err(bad(
                line,
                "keyword",
                format!("expected KEY= value, found `{l}`"),
            ));
        };
        let (key, value) = (key.trim(), value.trim());
        match key {
            "NDIME" if count(line, key, value)? != 2 => {
                return Err(bad(
                    line,
                    key,
                    format!("{value} dimensions: qflow reads 2D meshes"),
                ));
            }
            "NELEM" => {
                let n = count(line, key, value)?;
                for k in 0..n {
                    let (line, l) = next("NELEM", k, n)?;
                    let v = ints(line, l, &format!("element {k}"))?;
                    match v.first() {
                        Some(5) if v.len() >= 4 => mesh.push_cell(&[v[1] as u32, v[2] as u32, v[3] as u32]),
                        Some(9) if v.len() >= 5 => mesh.push_cell(&[v[1] as u32, v[2] as u32, v[3] as u32, v[4] as u32]),
                        Some(&t) => {
                            return Err(bad(
                                line,
                                &format!("element {k}"),
                                format!(
                                    "type {t} ({}): qflow's finite volumes take triangles (5) and quadrilaterals (9)",
                                    vtk_name(t)
                                ),
                            ))
                        }
                        None => return Err(bad(line, "element", "empty".into())),
                    }
                }
            }
            "NPOIN" => {
                let n = count(line, key, value)?;
                for k in 0..n {
                    let (line, l) = next("NPOIN", k, n)?;
                    let c: Vec<f64> = l
                        .split_whitespace()
                        .take(2)
                        .map(|t| t.parse::<f64>().ok().filter(|v| v.is_finite()))
                        .collect::<Option<_>>()
                        .filter(|c: &Vec<f64>| c.len() == 2)
                        .ok_or_else(|| {
                            bad(
                                line,
                                &format!("point {k}"),
                                format!("`{l}` is not two finite coordinates"),
                            )
                        })?;
                    mesh.x.push([c[0], c[1]]);
                }
                points = Some(n);
            }
            "NMARK" => {
                count(line, key, value)?;
            }
            "MARKER_TAG" => tag = Some(value.to_string()),
            "MARKER_ELEMS" => {
                let name = tag.take().ok_or_else(|| {
                    bad(
                        line,
                        key,
                        "MARKER_ELEMS without a MARKER_TAG before it".into(),
                    )
                })?;
                let n = count(line, key, value)?;
                let mut segs = Vec::with_capacity(n.min(text.len()));
                for k in 0..n {
                    let (line, l) = next("MARKER_ELEMS", k, n)?;
                    let v = ints(line, l, &format!("marker `{name}` element {k}"))?;
                    match v.first() {
                        Some(3) if v.len() >= 3 => segs.push([v[1] as u32, v[2] as u32]),
                        Some(&t) => {
                            return Err(bad(
                                line,
                                &format!("marker `{name}` element {k}"),
                                format!(
                                    "type {t} ({}): boundary elements must be line segments (3)",
                                    vtk_name(t)
                                ),
                            ))
                        }
                        None => return Err(bad(line, "marker element", "empty".into())),
                    }
                }
                mesh.markers.push((name, segs));
            }
            _ => {} // other keys (FFD boxes, ...) carry nothing a 2D mesh needs
        }
    }
    if points.is_none() {
        return Err(bad(0, "NPOIN", "the file has no points".into()));
    }
    Ok(mesh)
}

fn vtk_name(t: u64) -> &'static str {
    match t {
        3 => "line",
        5 => "triangle",
        9 => "quadrilateral",
        10 => "tetrahedron",
        12 => "hexahedron",
        13 => "prism",
        14 => "pyramid",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::Boundary;

    const TWO: &str = "% two squares\nNDIME= 2\nNELEM= 2\n9 0 1 4 3 0\n9 1 2 5 4 1\nNPOIN= 6\n0 0 0\n1 0 1\n2 0 2\n0 1 3\n1 1 4\n2 1 5\nNMARK= 2\nMARKER_TAG= wall\nMARKER_ELEMS= 2\n3 0 1\n3 1 2\nMARKER_TAG= far\nMARKER_ELEMS= 4\n3 2 5\n3 5 4\n3 4 3\n3 3 0\n";

    #[test]
    fn reads_cells_points_and_markers() {
        let m = parse(TWO, Path::new("t.su2")).unwrap();
        assert_eq!((m.x.len(), m.cells()), (6, 2));
        assert_eq!(m.marker_names(), ["wall", "far"]);
        let q = m
            .to_poly_mesh(&[("wall", Boundary::Wall), ("far", Boundary::FarField)])
            .unwrap();
        assert!(crate::poly::check::check(&q).is_ok());
    }

    #[test]
    fn malformed_files_name_the_line() {
        let e = |t: &str| parse(t, Path::new("t.su2")).unwrap_err().to_string();
        assert_eq!(
            e(&TWO.replace("9 1 2 5 4 1", "3 1 2")),
            "t.su2:5: element 1: type 3 (line): qflow's finite volumes take triangles (5) and quadrilaterals (9)"
        );
        assert_eq!(
            e("NDIME= 3\n"),
            "t.su2:1: NDIME: 3 dimensions: qflow reads 2D meshes"
        );
        assert!(e(&TWO.replace("1 1 4", "1 x 4")).starts_with("t.su2:11: point 4:"));
        assert!(e(&TWO[..TWO.len() - 12])
            .contains("truncated: the header declares 4 boundary edges but the file has 2"));
    }
}
