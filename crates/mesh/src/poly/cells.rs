//! Meshes of polygons from their cells and named boundary segments, as
//! general mesh formats (Gmsh, SU2) give them: the edges, their cells and
//! their orientation are derived, and each boundary side gets the flag
//! its marker is mapped to.

use std::collections::HashMap;

use super::{Boundary, MeshError, PolyMesh};

/// A mesh as cells and named boundary segments.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CellMesh {
    /// Node coordinates.
    pub x: Vec<[f64; 2]>,
    /// Where each cell's nodes start in `cell_nodes` (one more value than
    /// cells, the first 0; empty: no cells).
    pub cell_start: Vec<u32>,
    /// Every cell's nodes (either orientation), cell after cell.
    pub cell_nodes: Vec<u32>,
    /// Boundary markers: a name and its segments (two nodes each).
    pub markers: Vec<(String, Vec<[u32; 2]>)>,
}

impl CellMesh {
    /// The marker names.
    pub fn marker_names(&self) -> Vec<&str> {
        self.markers.iter().map(|m| m.0.as_str()).collect()
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.cell_start.len().saturating_sub(1)
    }

    /// Cell `c`'s nodes.
    pub fn cell(&self, c: usize) -> &[u32] {
        &self.cell_nodes[self.cell_start[c] as usize..self.cell_start[c + 1] as usize]
    }

    /// Adds a cell of `nodes`.
    pub fn push_cell(&mut self, nodes: &[u32]) {
        if self.cell_start.is_empty() {
            self.cell_start.push(0);
        }
        self.cell_nodes.extend_from_slice(nodes);
        self.cell_start.push(self.cell_nodes.len() as u32);
    }

    /// The cells and boundaries of `mesh`, its walls as the marker `wall`
    /// and its far field as `farfield`, nodes at the same place merged
    /// (OP2's C-mesh has two nodes at each point of its wake cut, the
    /// cut's edges listed between them: as cells alone they would leave
    /// the cut open).
    pub fn from_poly(mesh: &PolyMesh) -> CellMesh {
        let mut first: HashMap<(u64, u64), u32> = HashMap::new();
        let mut x = Vec::new();
        let key = |v: f64| (v + 0.0).to_bits();
        let merged: Vec<u32> = mesh
            .x
            .iter()
            .map(|p| {
                *first.entry((key(p[0]), key(p[1]))).or_insert_with(|| {
                    x.push(*p);
                    x.len() as u32 - 1
                })
            })
            .collect();
        let mut out = CellMesh {
            x,
            ..CellMesh::default()
        };
        let mut row = Vec::new();
        for c in 0..mesh.cells() {
            row.clear();
            row.extend(mesh.cell(c).iter().map(|&k| merged[k as usize]));
            out.push_cell(&row);
        }
        for (name, boundary) in [("wall", Boundary::Wall), ("farfield", Boundary::FarField)] {
            let segs: Vec<[u32; 2]> = (0..mesh.bedges())
                .filter(|&b| mesh.bound[b] == boundary.flag())
                .map(|b| mesh.bedge_nodes[b].map(|k| merged[k as usize]))
                .collect();
            if !segs.is_empty() {
                out.markers.push((name.to_string(), segs));
            }
        }
        out
    }

    /// Every `every`-th quadrilateral (1: all of them, 2: every other, a
    /// mixed mesh) split into two triangles along the diagonal from its
    /// first node; other cells are kept.
    pub fn split_quadrilaterals(&self, every: usize) -> CellMesh {
        let mut out = CellMesh {
            x: self.x.clone(),
            markers: self.markers.clone(),
            ..CellMesh::default()
        };
        let mut quads = 0usize;
        for c in 0..self.cells() {
            let n = self.cell(c);
            if n.len() == 4 {
                quads += 1;
                if every > 0 && (quads - 1) % every == 0 {
                    out.push_cell(&[n[0], n[1], n[2]]);
                    out.push_cell(&[n[0], n[2], n[3]]);
                    continue;
                }
            }
            out.push_cell(n);
        }
        out
    }

    /// The mesh: cells made counter-clockwise, every side shared by two
    /// cells an interior edge (first cell on its right, as OP2 orients
    /// them), every other side a boundary edge whose flag is that of its
    /// marker in `boundaries` (`(marker, kind)`; every marker with a
    /// boundary side must be mapped, once, and every boundary side must be
    /// on a marker). A marker's segments must be boundary sides, each on
    /// one marker (a repeat within a marker counts once); a marker all of
    /// whose segments lie between cells is an inner curve (Gmsh writes the
    /// curves between a mesh's surfaces as lines) and is left out, mapped
    /// or not.
    pub fn to_poly_mesh(&self, boundaries: &[(&str, Boundary)]) -> Result<PolyMesh, MeshError> {
        let err = |m: String| Err(MeshError::Structure(m));
        for (i, (name, kind)) in boundaries.iter().enumerate() {
            if let Some((_, other)) = boundaries[..i].iter().find(|(b, _)| b == name) {
                return err(format!(
                    "boundary marker `{name}` is given twice ({} and {}): give it once",
                    other.name(),
                    kind.name()
                ));
            }
            if !self.markers.iter().any(|(m, _)| m == name) {
                return err(format!(
                    "boundary marker `{name}` is not in the mesh (it has: {})",
                    self.marker_names().join(", ")
                ));
            }
        }
        let n = self.x.len();
        let mut m = PolyMesh {
            x: self.x.clone(),
            ..PolyMesh::default()
        };
        m.cell_start.push(0);
        let mut cell = Vec::new();
        for c in 0..self.cells() {
            cell.clear();
            cell.extend_from_slice(self.cell(c));
            if let Some(&k) = cell.iter().find(|&&k| k as usize >= n) {
                return err(format!("cell {c}: node {k} out of range ({n} nodes)"));
            }
            if cell.len() < 3 {
                return err(format!(
                    "cell {c}: {} nodes (a cell is a polygon of three or more)",
                    cell.len()
                ));
            }
            if super::polygon_area(&self.x, &cell) < 0.0 {
                cell.reverse();
            }
            m.push_cell(&cell);
        }
        let key = |a: u32, b: u32| (a.min(b), a.max(b));
        // Each side's first cell (the side as that cell runs it, cell on
        // its left) and second cell, in order of first appearance.
        let mut sides: HashMap<(u32, u32), usize> = HashMap::new();
        let mut list: Vec<([u32; 2], u32, Option<u32>)> = Vec::new();
        for c in 0..m.cells() {
            let cell = m.cell(c);
            for k in 0..cell.len() {
                let (a, b) = (cell[k], cell[(k + 1) % cell.len()]);
                match sides.get(&key(a, b)) {
                    None => {
                        sides.insert(key(a, b), list.len());
                        list.push(([a, b], c as u32, None));
                    }
                    Some(&i) => {
                        if list[i].2.is_some() {
                            return err(format!(
                                "side {a}-{b} is shared by more than two cells (cell {c} is the third)"
                            ));
                        }
                        list[i].2 = Some(c as u32);
                    }
                }
            }
        }
        // Markers all of whose segments lie between cells: inner curves.
        let inner: Vec<bool> = self
            .markers
            .iter()
            .map(|(_, segs)| {
                !segs.is_empty()
                    && segs.iter().all(|s| {
                        let at = sides.get(&key(s[0], s[1])).map(|&k| &list[k]);
                        matches!(at, Some((_, _, Some(_))))
                    })
            })
            .collect();
        for ((name, _), &inner) in self.markers.iter().zip(&inner) {
            if !inner && !boundaries.iter().any(|(b, _)| b == name) {
                return err(format!(
                    "boundary marker `{name}` is not mapped to wall or far field"
                ));
            }
        }
        // Per segment, its flag and marker.
        let mut flags: HashMap<(u32, u32), (i32, usize)> = HashMap::new();
        for (i, (name, segs)) in self.markers.iter().enumerate() {
            if inner[i] {
                continue;
            }
            let flag = boundaries
                .iter()
                .find(|(b, _)| b == name)
                .expect("checked")
                .1
                .flag();
            for s in segs {
                if s.iter().any(|&k| k as usize >= n) {
                    return err(format!(
                        "marker `{name}`: segment {}-{} names a node out of range",
                        s[0], s[1]
                    ));
                }
                if let Some((_, j)) = flags.insert(key(s[0], s[1]), (flag, i)) {
                    if j == i {
                        continue;
                    }
                    return err(format!(
                        "marker `{name}`: segment {}-{} is given twice (also in marker `{}`)",
                        s[0], s[1], self.markers[j].0
                    ));
                }
            }
        }
        // Every segment is a boundary side: one that is no side, or lies
        // between two cells, was dropped without a word.
        for ((name, segs), &inner) in self.markers.iter().zip(&inner) {
            if inner {
                continue;
            }
            for s in segs {
                let at = sides.get(&key(s[0], s[1])).map(|&k| &list[k]);
                let what = match at {
                    None => "is no side of any cell".to_string(),
                    Some((_, c1, Some(c2))) => {
                        format!("lies between cells {c1} and {c2}, inside the mesh")
                    }
                    Some(_) => continue,
                };
                return err(format!("marker `{name}`: segment {}-{} {what}", s[0], s[1]));
            }
        }
        for ([a, b], c1, c2) in list {
            match c2 {
                // The first cell runs a -> b with itself on the left: the
                // edge b -> a has it on the right.
                Some(c2) => {
                    m.edge_nodes.push([b, a]);
                    m.edge_cells.push([c1, c2]);
                }
                None => {
                    let Some(&(flag, _)) = flags.get(&key(a, b)) else {
                        return err(format!(
                            "boundary side {a}-{b} of cell {c1} is on no boundary marker"
                        ));
                    };
                    m.bedge_nodes.push([b, a]);
                    m.bedge_cell.push(c1);
                    m.bound.push(flag);
                }
            }
        }
        m.validate()?;
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::check::check;

    /// Two unit squares, the second given clockwise.
    fn two() -> CellMesh {
        CellMesh {
            x: vec![
                [0.0, 0.0],
                [1.0, 0.0],
                [2.0, 0.0],
                [0.0, 1.0],
                [1.0, 1.0],
                [2.0, 1.0],
            ],
            cell_start: vec![0, 4, 8],
            cell_nodes: vec![0, 1, 4, 3, 1, 4, 5, 2],
            markers: vec![
                ("wall".into(), vec![[0, 1], [1, 2]]),
                ("far".into(), vec![[2, 5], [5, 4], [4, 3], [3, 0]]),
            ],
        }
    }

    #[test]
    fn op2s_mesh_split_into_triangles_is_a_mesh() {
        let op2 = crate::poly::naca0012::Op2Naca0012 { i: 8, j: 6 }
            .generate()
            .unwrap();
        let kinds = [("wall", Boundary::Wall), ("farfield", Boundary::FarField)];
        let same = CellMesh::from_poly(&op2).to_poly_mesh(&kinds).unwrap();
        assert!(check(&same).is_ok(), "{:?}", check(&same).findings);
        // The wake cut closed: the same edges, fewer nodes.
        assert_eq!(
            (same.cells(), same.edges(), same.bedges()),
            (op2.cells(), op2.edges(), op2.bedges())
        );
        assert!(same.nodes() < op2.nodes());
        for every in [1, 2] {
            let t = CellMesh::from_poly(&op2)
                .split_quadrilaterals(every)
                .to_poly_mesh(&kinds)
                .unwrap();
            assert!(check(&t).is_ok(), "{:?}", check(&t).findings);
            let split = op2.cells().div_ceil(every);
            assert_eq!(t.cells(), op2.cells() + split);
            assert_eq!(t.edges(), op2.edges() + split);
            assert_eq!(t.bedges(), op2.bedges());
            let area: f64 = (0..t.cells()).map(|c| t.cell_area(c)).sum();
            let want: f64 = (0..op2.cells()).map(|c| op2.cell_area(c)).sum();
            assert!((area - want).abs() < 1e-9 * want);
        }
    }

    #[test]
    fn edges_and_boundaries_are_derived_and_oriented() {
        let m = two()
            .to_poly_mesh(&[("wall", Boundary::Wall), ("far", Boundary::FarField)])
            .unwrap();
        assert_eq!((m.cells(), m.edges(), m.bedges()), (2, 1, 6));
        assert!(check(&m).is_ok(), "{:?}", check(&m).findings);
        assert_eq!(m.bound.iter().filter(|&&b| b == 1).count(), 2);
        assert!(m.cell_area(1) > 0.0, "the clockwise cell was turned round");
    }

    #[test]
    fn unmapped_or_missing_markers_and_open_sides_are_named() {
        let e =
            |b: &[(&str, Boundary)], mesh: CellMesh| mesh.to_poly_mesh(b).unwrap_err().to_string();
        assert!(e(&[("wall", Boundary::Wall)], two()).contains("`far` is not mapped"));
        let s = e(
            &[
                ("wall", Boundary::Wall),
                ("far", Boundary::FarField),
                ("inlet", Boundary::FarField),
            ],
            two(),
        );
        assert!(
            s.contains("`inlet` is not in the mesh (it has: wall, far)"),
            "{s}"
        );
        let mut open = two();
        open.markers[1].1.pop();
        let s = e(
            &[("wall", Boundary::Wall), ("far", Boundary::FarField)],
            open,
        );
        assert!(
            s.contains("boundary side 3-0 of cell 0 is on no boundary marker"),
            "{s}"
        );
    }

    /// Segments that are no boundary side, segments given twice and a
    /// marker mapped twice passed `qflow check` and were dropped or
    /// resolved silently.
    #[test]
    fn stray_or_repeated_segments_and_markers_mapped_twice_are_named() {
        let both = [("wall", Boundary::Wall), ("far", Boundary::FarField)];
        let e =
            |b: &[(&str, Boundary)], mesh: CellMesh| mesh.to_poly_mesh(b).unwrap_err().to_string();
        let mut interior = two();
        interior.markers[0].1.push([1, 4]);
        let s = e(&both, interior);
        assert!(
            s.contains("marker `wall`: segment 1-4 lies between cells 0 and 1"),
            "{s}"
        );
        // A marker wholly inside is an inner curve, left out; a repeat
        // within one marker counts once.
        let mut inner = two();
        inner.markers.push(("curve 9".into(), vec![[1, 4]]));
        inner.markers[0].1.push([1, 0]);
        let m = inner
            .to_poly_mesh(&[
                ("wall", Boundary::Wall),
                ("far", Boundary::FarField),
                ("curve 9", Boundary::Wall),
            ])
            .unwrap();
        assert_eq!((m.edges(), m.bedges()), (1, 6));
        assert_eq!(m.bound.iter().filter(|&&b| b == 1).count(), 2);
        let mut diagonal = two();
        diagonal.markers[1].1.push([0, 4]);
        let s = e(&both, diagonal);
        assert!(
            s.contains("marker `far`: segment 0-4 is no side of any cell"),
            "{s}"
        );
        let mut twice = two();
        twice.markers[1].1.push([1, 0]);
        let s = e(&both, twice);
        assert!(
            s.contains("segment 1-0 is given twice (also in marker `wall`)"),
            "{s}"
        );
        let s = e(
            &[
                ("wall", Boundary::Wall),
                ("far", Boundary::FarField),
                ("wall", Boundary::FarField),
            ],
            two(),
        );
        assert!(
            s.contains("`wall` is given twice (wall and far_field)"),
            "{s}"
        );
    }
}
