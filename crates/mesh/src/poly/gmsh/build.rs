//! What a file's nodes and elements make: a [`CellMesh`] whose nodes are
//! the ones the cells and boundary lines use, numbered in the order of
//! their tags (whatever order the file lists them in), its cells in the
//! file's order and one marker per boundary name.

use std::collections::HashMap;

use crate::poly::cells::CellMesh;

/// The nodes and elements read so far. Methods answer a message for the
/// reader to place (the line or byte at fault).
#[derive(Default)]
pub(super) struct Builder {
    /// Node tag -> position in `x` (file order).
    at: HashMap<u64, u32>,
    x: Vec<[f64; 2]>,
    tags: Vec<u64>,
    /// Element tag -> cell, for repeats (2.2 writes an element once per
    /// physical group it is in).
    cell_of: HashMap<u64, u32>,
    cell_start: Vec<u32>,
    /// Cells' nodes as positions in `x`.
    cell_nodes: Vec<u32>,
    markers: Vec<(String, Vec<[u32; 2]>)>,
    marker_of: HashMap<String, usize>,
}

impl Builder {
    /// A node. Refuses a repeated tag and a node off the x-y plane.
    pub fn node(&mut self, tag: u64, x: f64, y: f64, z: f64) -> Result<(), String> {
        if z.abs() > 1e-12 * (1.0 + x.abs() + y.abs()) {
            return Err(format!(
                "node {tag} at z = {z}: qflow reads 2D meshes in the x-y plane"
            ));
        }
        let k = self.x.len() as u32;
        if self.at.insert(tag, k).is_some() {
            return Err(format!("node tag {tag} is given twice"));
        }
        // (`+ 0.0` makes a zero written `-0` the zero `0` is.)
        self.x.push([x + 0.0, y + 0.0]);
        self.tags.push(tag);
        Ok(())
    }

    fn nodes<const N: usize>(&self, element: u64, tags: &[u64]) -> Result<[u32; N], String> {
        let mut out = [0; N];
        for (o, t) in out.iter_mut().zip(tags) {
            *o = *self.at.get(t).ok_or_else(|| {
                format!("element {element} names node {t}, which $Nodes does not have")
            })?;
        }
        Ok(out)
    }

    /// A cell (3 or 4 node tags) of element `tag`. A repeat of a tag with
    /// the same nodes is one cell.
    pub fn cell(&mut self, tag: u64, nodes: &[u64]) -> Result<(), String> {
        let n: [u32; 4] = self.nodes(tag, nodes)?;
        let n = &n[..nodes.len()];
        if let Some(&c) = self.cell_of.get(&tag) {
            let (a, b) = (self.cell_start[c as usize], self.cell_start[c as usize + 1]);
            if &self.cell_nodes[a as usize..b as usize] == n {
                return Ok(());
            }
            return Err(format!(
                "element tag {tag} is given twice, with other nodes"
            ));
        }
        if self.cell_start.is_empty() {
            self.cell_start.push(0);
        }
        self.cell_of.insert(tag, self.cell_start.len() as u32 - 1);
        self.cell_nodes.extend_from_slice(n);
        self.cell_start.push(self.cell_nodes.len() as u32);
        Ok(())
    }

    /// A 2-node line of element `tag` on boundary marker `marker`.
    pub fn line(&mut self, marker: &str, tag: u64, nodes: &[u64]) -> Result<(), String> {
        let seg: [u32; 2] = self.nodes(tag, nodes)?;
        let k = match self.marker_of.get(marker) {
            Some(&k) => k,
            None => {
                self.markers.push((marker.to_string(), Vec::new()));
                self.marker_of
                    .insert(marker.to_string(), self.markers.len() - 1);
                self.markers.len() - 1
            }
        };
        self.markers[k].1.push(seg);
        Ok(())
    }

    /// The mesh: the nodes the cells and lines use, in the order of their
    /// tags.
    pub fn finish(self) -> Result<CellMesh, String> {
        if self.cell_nodes.is_empty() {
            return Err(
                "no triangles or quadrilaterals: qflow reads the 2D elements of surfaces".into(),
            );
        }
        let mut used = vec![false; self.x.len()];
        for &k in &self.cell_nodes {
            used[k as usize] = true;
        }
        for (_, segs) in &self.markers {
            for s in segs {
                used[s[0] as usize] = true;
                used[s[1] as usize] = true;
            }
        }
        let mut order: Vec<u32> = (0..self.x.len() as u32)
            .filter(|&k| used[k as usize])
            .collect();
        order.sort_unstable_by_key(|&k| self.tags[k as usize]);
        let mut new = vec![u32::MAX; self.x.len()];
        for (i, &k) in order.iter().enumerate() {
            new[k as usize] = i as u32;
        }
        let map = |k: &u32| new[*k as usize];
        Ok(CellMesh {
            x: order.iter().map(|&k| self.x[k as usize]).collect(),
            cell_start: self.cell_start,
            cell_nodes: self.cell_nodes.iter().map(map).collect(),
            markers: self
                .markers
                .into_iter()
                .map(|(name, segs)| {
                    let segs = segs.iter().map(|s| [map(&s[0]), map(&s[1])]).collect();
                    (name, segs)
                })
                .collect(),
        })
    }
}

/// The name of element type `t` (Gmsh's numbering), if Gmsh has one.
pub(super) fn type_name(t: i64) -> Option<&'static str> {
    Some(match t {
        1 => "2-node line",
        2 => "3-node triangle",
        3 => "4-node quadrilateral",
        4 => "4-node tetrahedron",
        5 => "8-node hexahedron",
        6 => "6-node prism",
        7 => "5-node pyramid",
        8 => "3-node line",
        9 => "6-node triangle",
        10 => "9-node quadrilateral",
        11 => "10-node tetrahedron",
        12 => "27-node hexahedron",
        13 => "18-node prism",
        14 => "14-node pyramid",
        15 => "1-node point",
        16 => "8-node quadrilateral",
        17 => "20-node hexahedron",
        18 => "15-node prism",
        19 => "13-node pyramid",
        20 => "9-node triangle",
        21 => "10-node triangle",
        22 => "12-node triangle",
        23 => "15-node triangle",
        24 => "15-node incomplete triangle",
        25 => "21-node triangle",
        26 => "4-node line",
        27 => "5-node line",
        28 => "6-node line",
        29 => "20-node tetrahedron",
        30 => "35-node tetrahedron",
        31 => "56-node tetrahedron",
        92 => "64-node hexahedron",
        93 => "125-node hexahedron",
        _ => return None,
    })
}

/// What qflow does with an element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Use {
    /// A cell of this many nodes.
    Cell(usize),
    /// A boundary line.
    Line,
    /// Nothing (a point).
    Skip,
}

impl Use {
    /// The element's number of nodes.
    pub fn nodes(self) -> usize {
        match self {
            Use::Cell(n) => n,
            Use::Line => 2,
            Use::Skip => 1,
        }
    }
}

/// What qflow does with type `t`, or why it cannot.
pub(super) fn use_of(t: i64) -> Result<Use, String> {
    match t {
        1 => Ok(Use::Line),
        2 => Ok(Use::Cell(3)),
        3 => Ok(Use::Cell(4)),
        15 => Ok(Use::Skip),
        _ => {
            let name = type_name(t).unwrap_or("not a Gmsh element type");
            let fix = match t {
                4..=7 | 11..=14 | 17..=19 | 29..=31 | 92 | 93 => {
                    "a 3D element: qflow reads 2D meshes (gmsh -2)"
                }
                _ => "re-mesh with Mesh.ElementOrder = 1",
            };
            Err(format!(
                "element type {t} ({name}): qflow reads 3-node triangles, 4-node \
                 quadrilaterals and 2-node lines; {fix}"
            ))
        }
    }
}

/// The boundary marker of lines in physical group `physical` (0: none)
/// on curve `curve`: the group's name, else `physical N`, else `curve N`.
pub(super) fn marker(names: &HashMap<(i64, i64), String>, physical: i64, curve: i64) -> String {
    if physical == 0 {
        return format!("curve {curve}");
    }
    names
        .get(&(1, physical))
        .cloned()
        .unwrap_or_else(|| format!("physical {physical}"))
}
