//! Quadrilateral meshes from their cells and named boundary segments, as
//! general mesh formats (Gmsh, SU2) give them: the edges, their cells and
//! their orientation are derived, and each boundary side gets the flag
//! its marker is mapped to.

use std::collections::HashMap;

use super::{Boundary, MeshError, QuadMesh};

/// A mesh as cells and named boundary segments.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CellMesh {
    /// Node coordinates.
    pub x: Vec<[f64; 2]>,
    /// Each cell's four nodes (either orientation).
    pub cells: Vec<[u32; 4]>,
    /// Boundary markers: a name and its segments (two nodes each).
    pub markers: Vec<(String, Vec<[u32; 2]>)>,
}

impl CellMesh {
    /// The marker names.
    pub fn marker_names(&self) -> Vec<&str> {
        self.markers.iter().map(|m| m.0.as_str()).collect()
    }

    /// The quadrilateral mesh: cells made counter-clockwise, every side
    /// shared by two cells an interior edge (first cell on its right, as
    /// OP2 orients them), every other side a boundary edge whose flag is
    /// that of its marker in `boundaries` (`(marker, kind)`; every marker
    /// must be mapped and every boundary side must be on a marker).
    pub fn to_quad_mesh(&self, boundaries: &[(&str, Boundary)]) -> Result<QuadMesh, MeshError> {
        let err = |m: String| Err(MeshError::Structure(m));
        for (name, _) in &self.markers {
            if !boundaries.iter().any(|(b, _)| b == name) {
                return err(format!(
                    "boundary marker `{name}` is not mapped to wall or far field"
                ));
            }
        }
        for (name, _) in boundaries {
            if !self.markers.iter().any(|(m, _)| m == name) {
                return err(format!(
                    "boundary marker `{name}` is not in the mesh (it has: {})",
                    self.marker_names().join(", ")
                ));
            }
        }
        let n = self.x.len();
        let mut m = QuadMesh {
            x: self.x.clone(),
            ..QuadMesh::default()
        };
        for (c, cell) in self.cells.iter().enumerate() {
            if let Some(&k) = cell.iter().find(|&&k| k as usize >= n) {
                return err(format!("cell {c}: node {k} out of range ({n} nodes)"));
            }
            let mut cell = *cell;
            m.cell_nodes.push(cell);
            if m.cell_area(c) < 0.0 {
                cell.reverse();
                m.cell_nodes[c] = cell;
            }
        }
        let key = |a: u32, b: u32| (a.min(b), a.max(b));
        let mut flags: HashMap<(u32, u32), i32> = HashMap::new();
        for (name, segs) in &self.markers {
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
                flags.insert(key(s[0], s[1]), flag);
            }
        }
        // Each side's first cell (the side as that cell runs it, cell on
        // its left) and second cell, in order of first appearance.
        let mut sides: HashMap<(u32, u32), usize> = HashMap::new();
        let mut list: Vec<([u32; 2], u32, Option<u32>)> = Vec::new();
        for (c, cell) in m.cell_nodes.iter().enumerate() {
            for k in 0..4 {
                let (a, b) = (cell[k], cell[(k + 1) % 4]);
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
        for ([a, b], c1, c2) in list {
            match c2 {
                // The first cell runs a -> b with itself on the left: the
                // edge b -> a has it on the right.
                Some(c2) => {
                    m.edge_nodes.push([b, a]);
                    m.edge_cells.push([c1, c2]);
                }
                None => {
                    let Some(&flag) = flags.get(&key(a, b)) else {
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
    use crate::quad::check::check;

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
            cells: vec![[0, 1, 4, 3], [1, 4, 5, 2]],
            markers: vec![
                ("wall".into(), vec![[0, 1], [1, 2]]),
                ("far".into(), vec![[2, 5], [5, 4], [4, 3], [3, 0]]),
            ],
        }
    }

    #[test]
    fn edges_and_boundaries_are_derived_and_oriented() {
        let m = two()
            .to_quad_mesh(&[("wall", Boundary::Wall), ("far", Boundary::FarField)])
            .unwrap();
        assert_eq!((m.cells(), m.edges(), m.bedges()), (2, 1, 6));
        assert!(check(&m).is_ok(), "{:?}", check(&m).findings);
        assert_eq!(m.bound.iter().filter(|&&b| b == 1).count(), 2);
        assert!(m.cell_area(1) > 0.0, "the clockwise cell was turned round");
    }

    #[test]
    fn unmapped_or_missing_markers_and_open_sides_are_named() {
        let e =
            |b: &[(&str, Boundary)], mesh: CellMesh| mesh.to_quad_mesh(b).unwrap_err().to_string();
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
}
