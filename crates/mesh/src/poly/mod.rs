//! Unstructured 2D meshes of polygons for finite-volume methods, in OP2's
//! terms: **nodes** with coordinates, **cells** (polygons of three or more
//! nodes, counter-clockwise: triangles, quadrilaterals, or both in one
//! mesh), interior **edges** (two nodes and the two cells on either side)
//! and boundary edges, **bedges** (two nodes, the one cell inside and a
//! boundary flag).
//!
//! Geometry and connectivity only: no flow. Indices are 0-based inside the
//! library and in OP2's `new_grid.dat` files ([`op2`]); messages name
//! elements 0-based too, as OP2 does.
//!
//! [`check`] states and verifies the orientation OP2's Airfoil kernels rely
//! on (which cell of an edge lies on which side).

pub mod cells;
pub mod check;
pub mod gmsh;
pub mod naca0012;
pub mod native;
pub mod op2;
pub mod su2;

use std::path::PathBuf;

/// What a boundary edge is, from its flag in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Boundary {
    /// A solid wall (flag 1 in OP2's files).
    Wall,
    /// The far field, where the free stream is imposed (flag 2).
    FarField,
}

impl Boundary {
    /// The flag OP2's files store.
    pub fn flag(self) -> i32 {
        match self {
            Boundary::Wall => 1,
            Boundary::FarField => 2,
        }
    }

    /// The name in a case file's `[mesh]` section (`wall`, `far_field`).
    pub fn name(self) -> &'static str {
        match self {
            Boundary::Wall => "wall",
            Boundary::FarField => "far_field",
        }
    }

    /// The boundary a flag stands for, if any.
    pub fn from_flag(flag: i32) -> Option<Boundary> {
        match flag {
            1 => Some(Boundary::Wall),
            2 => Some(Boundary::FarField),
            _ => None,
        }
    }
}

/// An unstructured mesh of polygons (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolyMesh {
    /// Node coordinates `(x, y)`.
    pub x: Vec<[f64; 2]>,
    /// Where each cell's nodes start in [`Self::cell_nodes`]: one value
    /// per cell and one more, the first 0 (empty: no cells).
    pub cell_start: Vec<u32>,
    /// Every cell's nodes, counter-clockwise, cell after cell
    /// ([`Self::cell`]).
    pub cell_nodes: Vec<u32>,
    /// Each interior edge's two nodes.
    pub edge_nodes: Vec<[u32; 2]>,
    /// Each interior edge's two cells.
    pub edge_cells: Vec<[u32; 2]>,
    /// Each boundary edge's two nodes.
    pub bedge_nodes: Vec<[u32; 2]>,
    /// Each boundary edge's cell.
    pub bedge_cell: Vec<u32>,
    /// Each boundary edge's flag (see [`Boundary`]).
    pub bound: Vec<i32>,
}

impl PolyMesh {
    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.x.len()
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.cell_start.len().saturating_sub(1)
    }

    /// Cell `c`'s nodes, counter-clockwise.
    pub fn cell(&self, c: usize) -> &[u32] {
        &self.cell_nodes[self.cell_start[c] as usize..self.cell_start[c + 1] as usize]
    }

    /// Adds a cell of `nodes` (counter-clockwise).
    pub fn push_cell(&mut self, nodes: &[u32]) {
        if self.cell_start.is_empty() {
            self.cell_start.push(0);
        }
        self.cell_nodes.extend_from_slice(nodes);
        self.cell_start.push(self.cell_nodes.len() as u32);
    }

    /// The mesh's cells from each cell's nodes.
    pub fn set_cells<'a>(&mut self, cells: impl IntoIterator<Item = &'a [u32]>) {
        self.cell_start.clear();
        self.cell_nodes.clear();
        self.cell_start.push(0);
        for c in cells {
            self.push_cell(c);
        }
    }

    /// Whether every cell has four nodes (OP2's meshes).
    pub fn all_quadrilaterals(&self) -> bool {
        self.cell_start.windows(2).all(|w| w[1] - w[0] == 4)
    }

    /// The number of cells of each node count, fewest nodes first.
    pub fn cell_kinds(&self) -> Vec<(usize, usize)> {
        let mut counts = std::collections::BTreeMap::new();
        for w in self.cell_start.windows(2) {
            *counts.entry((w[1] - w[0]) as usize).or_insert(0usize) += 1;
        }
        counts.into_iter().collect()
    }

    /// Number of interior edges.
    pub fn edges(&self) -> usize {
        self.edge_nodes.len()
    }

    /// Number of boundary edges.
    pub fn bedges(&self) -> usize {
        self.bedge_nodes.len()
    }

    /// The boundary edges flagged `flag` (1: wall), chained end to end
    /// through their shared nodes: one chain per closed loop (a body) or
    /// open run, in order along it, each starting at its lowest-numbered
    /// edge (a run at one of its ends). A node shared by more than two such
    /// edges ends the chain there.
    pub fn boundary_chains(&self, flag: i32) -> Vec<Vec<usize>> {
        let edges: Vec<usize> = (0..self.bedges())
            .filter(|&b| self.bound[b] == flag)
            .collect();
        let mut at: std::collections::HashMap<u32, Vec<usize>> = std::collections::HashMap::new();
        for &b in &edges {
            for n in self.bedge_nodes[b] {
                at.entry(n).or_default().push(b);
            }
        }
        // The other edge at node `n` of edge `b`, if exactly one.
        let next = |b: usize, n: u32| -> Option<usize> {
            match at[&n].as_slice() {
                [x, y] => Some(if *x == b { *y } else { *x }),
                _ => None,
            }
        };
        let mut seen = vec![false; self.bedges()];
        let mut chains = Vec::new();
        for &start in &edges {
            if seen[start] {
                continue;
            }
            // Back to an end of an open run (or round a loop to `start`).
            let (mut b, mut n) = (start, self.bedge_nodes[start][0]);
            while let Some(p) = next(b, n) {
                if p == start {
                    break;
                }
                let [p0, p1] = self.bedge_nodes[p];
                n = if p0 == n { p1 } else { p0 };
                b = p;
            }
            // `b` is the first edge; walk forward from its node other than `n`.
            let mut chain = vec![b];
            seen[b] = true;
            let [b0, b1] = self.bedge_nodes[b];
            let mut n = if b0 == n { b1 } else { b0 };
            while let Some(q) = next(b, n) {
                if seen[q] {
                    break;
                }
                seen[q] = true;
                chain.push(q);
                let [q0, q1] = self.bedge_nodes[q];
                n = if q0 == n { q1 } else { q0 };
                b = q;
            }
            chains.push(chain);
        }
        chains
    }

    /// The signed area of cell `c` (positive when counter-clockwise).
    pub fn cell_area(&self, c: usize) -> f64 {
        polygon_area(&self.x, self.cell(c))
    }

    /// The centroid of cell `c` (the mean of its nodes when its area is
    /// zero).
    pub fn cell_centroid(&self, c: usize) -> [f64; 2] {
        let n = self.cell(c);
        let mean =
            |k: usize| n.iter().map(|&i| self.x[i as usize][k]).sum::<f64>() / n.len() as f64;
        let (mx, my) = (mean(0), mean(1));
        let (mut a, mut cx, mut cy) = (0.0, 0.0, 0.0);
        for k in 0..n.len() {
            let p = self.x[n[k] as usize];
            let q = self.x[n[(k + 1) % n.len()] as usize];
            let (px, py, qx, qy) = (p[0] - mx, p[1] - my, q[0] - mx, q[1] - my);
            let w = px * qy - qx * py;
            a += w;
            cx += (px + qx) * w;
            cy += (py + qy) * w;
        }
        if a == 0.0 {
            [mx, my]
        } else {
            [mx + cx / (3.0 * a), my + cy / (3.0 * a)]
        }
    }

    /// Checks that every array has the length its count implies and every
    /// index is in range: the invariants every user of a mesh relies on.
    /// A file reader calls it; so does anyone building a mesh in memory.
    pub fn validate(&self) -> Result<(), MeshError> {
        let bad = |what: String| Err(MeshError::Structure(what));
        if self.cells() == 0 || self.bedge_nodes.is_empty() {
            // (A file of counts 0 0 0 0 ran to its end and failed on its
            // pictures.)
            return bad(format!(
                "no cells or no boundary ({} nodes, {} cells, {} boundary edges): nothing to solve",
                self.nodes(),
                self.cells(),
                self.bedges()
            ));
        }
        if self.edge_cells.len() != self.edge_nodes.len() {
            return bad(format!(
                "{} edges have nodes but {} have cells",
                self.edge_nodes.len(),
                self.edge_cells.len()
            ));
        }
        if self.bedge_cell.len() != self.bedge_nodes.len()
            || self.bound.len() != self.bedge_nodes.len()
        {
            return bad(format!(
                "boundary edges: {} with nodes, {} with a cell, {} with a flag",
                self.bedge_nodes.len(),
                self.bedge_cell.len(),
                self.bound.len()
            ));
        }
        let (nn, nc) = (self.nodes(), self.cells());
        let check = |what: &str, i: usize, v: &[u32], n: usize, of: &str| match v
            .iter()
            .find(|&&k| k as usize >= n)
        {
            Some(k) => Err(MeshError::Structure(format!(
                "{what} {i}: {of} {k} out of range (the mesh has {n} {of}s)"
            ))),
            None => Ok(()),
        };
        if self.cell_start[0] != 0 || self.cell_start[nc] as usize != self.cell_nodes.len() {
            return bad(format!(
                "the cells' rows start at {} and end at {}, their nodes number {}",
                self.cell_start[0],
                self.cell_start[nc],
                self.cell_nodes.len()
            ));
        }
        for i in 0..nc {
            let (a, b) = (self.cell_start[i], self.cell_start[i + 1]);
            if b < a + 3 {
                return bad(format!(
                    "cell {i}: {} nodes (a cell is a polygon of three or more)",
                    b.saturating_sub(a)
                ));
            }
            check("cell", i, self.cell(i), nn, "node")?;
        }
        for (i, e) in self.edge_nodes.iter().enumerate() {
            check("edge", i, e, nn, "node")?;
            check("edge", i, &self.edge_cells[i], nc, "cell")?;
        }
        for (i, e) in self.bedge_nodes.iter().enumerate() {
            check("boundary edge", i, e, nn, "node")?;
            check("boundary edge", i, &[self.bedge_cell[i]], nc, "cell")?;
        }
        if let Some((i, p)) = self
            .x
            .iter()
            .enumerate()
            .find(|(_, p)| !p[0].is_finite() || !p[1].is_finite())
        {
            return bad(format!(
                "node {i}: coordinates ({}, {}) not finite",
                p[0], p[1]
            ));
        }
        Ok(())
    }
}

/// The signed area of the polygon of `nodes` (positive when
/// counter-clockwise).
pub fn polygon_area(x: &[[f64; 2]], nodes: &[u32]) -> f64 {
    let mut twice = 0.0;
    for k in 0..nodes.len() {
        let a = x[nodes[k] as usize];
        let b = x[nodes[(k + 1) % nodes.len()] as usize];
        twice += a[0] * b[1] - b[0] * a[1];
    }
    0.5 * twice
}

/// A mesh file's format, from its first bytes and name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    /// OP2's `new_grid.dat` text.
    Op2,
    /// qflow's native binary `.qfm`.
    Native,
    /// Gmsh MSH 4.1.
    Gmsh,
    /// SU2's `.su2` text.
    Su2,
}

impl FileFormat {
    /// The format of a file whose bytes start with `bytes`, named `path`.
    pub fn of(path: &std::path::Path, bytes: &[u8]) -> FileFormat {
        if native::is_native(bytes) {
            FileFormat::Native
        } else if gmsh::is_msh(bytes) {
            FileFormat::Gmsh
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("su2"))
        {
            FileFormat::Su2
        } else {
            FileFormat::Op2
        }
    }

    /// Whether the file names its boundaries by marker (which a case maps
    /// to wall or far field) rather than by OP2's flags.
    pub fn has_markers(self) -> bool {
        matches!(self, FileFormat::Gmsh | FileFormat::Su2)
    }
}

/// Reads a mesh file of any format; a Gmsh or SU2 file's boundary markers
/// take the kinds `boundaries` maps them to.
pub fn read_with_markers(
    path: &std::path::Path,
    boundaries: &[(&str, Boundary)],
) -> Result<PolyMesh, MeshError> {
    let bytes = std::fs::read(path).map_err(|source| MeshError::Io {
        path: path.into(),
        cause: source,
    })?;
    match FileFormat::of(path, &bytes) {
        FileFormat::Native => native::from_bytes(&bytes, path),
        FileFormat::Op2 => op2::parse(&bytes, path),
        FileFormat::Gmsh => gmsh::parse(&bytes, path)?
            .to_poly_mesh(boundaries)
            .map_err(|e| e.in_file(path)),
        FileFormat::Su2 => su2::parse_bytes(&bytes, path)?
            .to_poly_mesh(boundaries)
            .map_err(|e| e.in_file(path)),
    }
}

/// `bytes` as text, or an error naming the line of the first byte that is
/// not UTF-8 (the text readers' shared check).
fn utf8_text<'a>(bytes: &'a [u8], path: &std::path::Path) -> Result<&'a str, MeshError> {
    std::str::from_utf8(bytes).map_err(|e| MeshError::Parse {
        path: path.into(),
        line: 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
        field: "text".into(),
        message: "not UTF-8 text (is this a binary file?)".into(),
    })
}

/// Writes a mesh file: native binary if `path` ends in `.qfm`, else OP2's
/// text format as OP2's generator writes it (six decimals).
/// A name ending in `.su2` or `.msh` is refused (those formats are read,
/// not written: OP2's text under that name was unreadable as one).
pub fn write_any(mesh: &PolyMesh, path: &std::path::Path) -> Result<(), MeshError> {
    if let Some(e) = path
        .extension()
        .and_then(|e| e.to_str())
        .filter(|e| ["su2", "msh"].contains(&e.to_ascii_lowercase().as_str()))
    {
        return Err(MeshError::Generate(format!(
            "{}: qflow reads .{e} meshes but writes only OP2's text format (.dat) and its \
             native binary format (.qfm)",
            path.display()
        )));
    }
    if path.extension().is_some_and(|e| e == "qfm") {
        native::write(mesh, path)
    } else {
        crate::fsutil::write_atomically(path, |w| op2::write_to_op2_style(mesh, w))?;
        Ok(())
    }
}

/// An error reading, writing, checking or generating a mesh.
/// Every error that comes from user input names the file and line, or the
/// element, at fault.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    /// The file could not be opened, read or written.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said (in the message, not an error
        /// source: `{:#}` would print it twice).
        cause: std::io::Error,
    },
    /// A field of a mesh file is malformed.
    #[error("{}:{line}: {field}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// Which field (`node count`, `cell 12 node 3`, ...).
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// The file ends before the elements its header declares.
    #[error("{}: truncated: the header declares {expected} {section} but the file has {found}", path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// `nodes`, `cells`, `edges` or `boundary edges`.
        section: &'static str,
        /// Elements declared in the header.
        expected: usize,
        /// Element lines found.
        found: usize,
    },
    /// The in-memory mesh breaks an invariant (see [`PolyMesh::validate`]).
    #[error("invalid mesh: {0}")]
    Structure(String),
    /// A generator was asked for something it cannot make.
    #[error("cannot generate: {0}")]
    Generate(String),
}

impl MeshError {
    /// The error with the file it came from named (an invalid mesh found
    /// after reading names none).
    pub fn in_file(self, path: &std::path::Path) -> Self {
        match self {
            MeshError::Structure(m) => MeshError::Structure(format!("{}: {m}", path.display())),
            e => e,
        }
    }
}

impl From<crate::fsutil::FileError> for MeshError {
    fn from(e: crate::fsutil::FileError) -> Self {
        MeshError::Io {
            path: e.path,
            cause: e.cause,
        }
    }
}

/// Two unit squares side by side, nodes 0-2 along y = 0 and 3-5 along
/// y = 1: one interior edge (4 -> 1, first cell on its right) and six
/// boundary edges (cell on their right), walls along y = 0.
#[cfg(test)]
pub(crate) fn two_squares() -> PolyMesh {
    PolyMesh {
        x: vec![
            [0.0, 0.0],
            [1.0, 0.0],
            [2.0, 0.0],
            [0.0, 1.0],
            [1.0, 1.0],
            [2.0, 1.0],
        ],
        cell_start: vec![0, 4, 8],
        cell_nodes: vec![0, 1, 4, 3, 1, 2, 5, 4],
        edge_nodes: vec![[4, 1]],
        edge_cells: vec![[0, 1]],
        bedge_nodes: vec![[1, 0], [2, 1], [5, 2], [4, 5], [3, 4], [0, 3]],
        bedge_cell: vec![0, 1, 1, 1, 0, 0],
        bound: vec![1, 1, 2, 2, 2, 2],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundary_chains_follow_the_edges_end_to_end() {
        let m = two_squares();
        // The wall: 1 -> 0 and 2 -> 1, an open run of two edges.
        let walls = m.boundary_chains(1);
        assert_eq!(walls.len(), 1);
        let mut w = walls[0].clone();
        w.sort_unstable();
        assert_eq!(w, [0, 1]);
        // The far field: four edges 5-2, 4-5, 3-4, 0-3, one open run in
        // order along it (from one end to the other).
        let far = m.boundary_chains(2);
        assert_eq!(far.len(), 1);
        assert!(far[0] == [2, 3, 4, 5] || far[0] == [5, 4, 3, 2], "{far:?}");
        // All six as one closed loop.
        let mut m = m;
        m.bound = vec![1; 6];
        let all = m.boundary_chains(1);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].len(), 6);
        for pair in all[0].windows(2) {
            let [a, b] = [m.bedge_nodes[pair[0]], m.bedge_nodes[pair[1]]];
            assert!(a.iter().any(|n| b.contains(n)), "{pair:?} share no node");
        }
    }
}
