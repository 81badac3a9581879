//! Checks a mesh of polygons for the defects that make a finite-volume
//! run fail or give wrong answers, element by element.
//!
//! The orientation rule OP2's Airfoil kernels rely on: the flux through an
//! edge `(n1, n2)` is taken along `(y1 - y2, x2 - x1)`, the normal on the
//! left of the direction `n1 -> n2`, as leaving its **first** cell and
//! entering its second. So an interior edge's first cell must lie on the
//! right of `n1 -> n2` and its second on the left, and a boundary edge's
//! cell on the right (the normal points out of the domain). A mirrored mesh
//! breaks this for every edge.

use rustc_hash::FxBuildHasher;
use std::collections::HashMap;
use std::fmt;

use super::{Boundary, PolyMesh};

/// One defect.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// A cell names one node twice.
    RepeatedNode {
        /// The cell.
        cell: usize,
    },
    /// A cell's area is zero (to round-off) or its sides cross (a twisted
    /// or folded polygon: a quadrilateral whose corners turn both ways).
    DegenerateCell {
        /// The cell.
        cell: usize,
        /// Its signed area.
        area: f64,
    },
    /// A cell is clockwise while most cells are counter-clockwise, or the
    /// other way round: the mesh folds over itself there.
    InvertedCell {
        /// The cell.
        cell: usize,
    },
    /// An edge's two nodes are not a side of one of its cells (by
    /// position: a copy of a node at the same place counts as the node).
    EdgeNotInCell {
        /// `edge` or `boundary edge`.
        kind: &'static str,
        /// The edge.
        edge: usize,
        /// The cell that does not have it.
        cell: usize,
    },
    /// An edge's cell lies on the wrong side of it (see the module
    /// documentation): the flux would be counted inwards.
    WrongSide {
        /// `edge` or `boundary edge`.
        kind: &'static str,
        /// The edge.
        edge: usize,
        /// The cell on the wrong side.
        cell: usize,
    },
    /// An interior edge has the same cell on both sides.
    SameCellTwice {
        /// The edge.
        edge: usize,
    },
    /// A boundary edge's flag is neither wall (1) nor far field (2).
    BadBoundaryFlag {
        /// The boundary edge.
        bedge: usize,
        /// Its flag.
        flag: i32,
    },
    /// A side of a cell is covered by no edge (flux through it is lost) or
    /// by more than one.
    SideCoverage {
        /// The cell.
        cell: usize,
        /// The side's nodes.
        nodes: [u32; 2],
        /// How many edges and boundary edges name it.
        count: usize,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::RepeatedNode { cell } => write!(f, "cell {cell}: a node is named twice"),
            Problem::DegenerateCell { cell, area } => write!(
                f,
                "cell {cell}: degenerate (signed area {area:.3e}, or sides that cross)"
            ),
            Problem::InvertedCell { cell } => write!(
                f,
                "cell {cell}: inverted (turns the other way from the rest of the mesh)"
            ),
            Problem::EdgeNotInCell { kind, edge, cell } => {
                write!(f, "{kind} {edge}: its nodes are not a side of cell {cell}")
            }
            Problem::WrongSide { kind, edge, cell } => write!(
                f,
                "{kind} {edge}: cell {cell} lies on the wrong side (mirrored mesh or swapped nodes?)"
            ),
            Problem::SameCellTwice { edge } => {
                write!(f, "edge {edge}: the same cell on both sides")
            }
            Problem::BadBoundaryFlag { bedge, flag } => write!(
                f,
                "boundary edge {bedge}: flag {flag} is neither 1 (wall) nor 2 (far field)"
            ),
            Problem::SideCoverage { cell, nodes, count } => write!(
                f,
                "cell {cell}: side {}-{} is covered by {count} edges (must be exactly 1)",
                nodes[0], nodes[1]
            ),
        }
    }
}

/// Everything found in a mesh (every finding is an error: a finite-volume
/// run refuses such a mesh).
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The findings, cells first, then edges, then boundary edges.
    pub findings: Vec<Problem>,
}

impl Report {
    /// Whether a run can use the mesh.
    pub fn is_ok(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Checks `mesh`, which must satisfy [`PolyMesh::validate`].
pub fn check(mesh: &PolyMesh) -> Report {
    let mut out = Vec::new();
    let x = |n: u32| mesh.x[n as usize];
    // A point inside a convex cell (or a dart): its nodes' mean.
    let centroid = |c: u32| {
        let n = mesh.cell(c as usize);
        let w = 1.0 / n.len() as f64;
        let mut s = [0.0; 2];
        for &k in n {
            s[0] += w * x(k)[0];
            s[1] += w * x(k)[1];
        }
        s
    };
    // Which side of n1 -> n2 the point p lies: > 0 left, < 0 right.
    let side = |n: [u32; 2], p: [f64; 2]| {
        let (a, b) = (x(n[0]), x(n[1]));
        (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
    };
    // Sides are matched by their end points' coordinates, not node numbers:
    // OP2's meshes duplicate the nodes along a C-mesh's cut, and an edge of
    // the cut names one copy while the cell across it has the other. Each
    // node is named by the first node at its place, and a side by its two
    // places' names, lower first.
    // (A zero written `-0.000000` is the place `0.000000` is: adding 0.0
    // makes every zero positive before its bits are taken.)
    let place = {
        let bits = |v: f64| (v + 0.0).to_bits();
        let mut first: HashMap<[u64; 2], u32, FxBuildHasher> =
            HashMap::with_capacity_and_hasher(mesh.nodes(), FxBuildHasher);
        mesh.x
            .iter()
            .enumerate()
            .map(|(n, p)| *first.entry([bits(p[0]), bits(p[1])]).or_insert(n as u32))
            .collect::<Vec<u32>>()
    };
    let key = |a: u32, b: u32| -> [u32; 2] {
        let (p, q) = (place[a as usize], place[b as usize]);
        [p.min(q), p.max(q)]
    };
    let mut orientation = Vec::with_capacity(mesh.cells());
    // Whether the cell's sides are counted (not if it names a node twice).
    let mut with_sides = Vec::with_capacity(mesh.cells());
    for c in 0..mesh.cells() {
        let n = mesh.cell(c);
        let len = n.len();
        if (0..len).any(|i| (i + 1..len).any(|j| n[i] == n[j])) {
            out.push(Problem::RepeatedNode { cell: c });
            orientation.push(0.0);
            with_sides.push(false);
            continue;
        }
        let area = mesh.cell_area(c);
        let perimeter2: f64 = (0..len)
            .map(|k| {
                let (a, b) = (x(n[k]), x(n[(k + 1) % len]));
                (b[0] - a[0]).hypot(b[1] - a[1])
            })
            .sum::<f64>()
            .powi(2);
        if area.abs() <= 1e-12 * perimeter2 || twisted(mesh, n, area) {
            out.push(Problem::DegenerateCell { cell: c, area });
            orientation.push(0.0);
        } else {
            orientation.push(area.signum());
        }
        with_sides.push(true);
    }
    let mut sides = Sides::new(mesh, &with_sides, key);
    let majority: f64 = orientation.iter().sum::<f64>().signum();
    for (c, &o) in orientation.iter().enumerate() {
        if o != 0.0 && o != majority {
            out.push(Problem::InvertedCell { cell: c });
        }
    }
    let has_side = |c: u32, n: [u32; 2]| {
        let cn = mesh.cell(c as usize);
        (0..cn.len()).any(|k| key(cn[k], cn[(k + 1) % cn.len()]) == key(n[0], n[1]))
    };
    for (e, (&n, &[c1, c2])) in mesh.edge_nodes.iter().zip(&mesh.edge_cells).enumerate() {
        if let Some(s) = sides.count_mut(key(n[0], n[1])) {
            *s += 1;
        }
        if c1 == c2 {
            out.push(Problem::SameCellTwice { edge: e });
            continue;
        }
        let mut shared = true;
        for c in [c1, c2] {
            if !has_side(c, n) {
                out.push(Problem::EdgeNotInCell {
                    kind: "edge",
                    edge: e,
                    cell: c as usize,
                });
                shared = false;
            }
        }
        if shared {
            if side(n, centroid(c1)) >= 0.0 {
                out.push(wrong("edge", e, c1));
            } else if side(n, centroid(c2)) <= 0.0 {
                out.push(wrong("edge", e, c2));
            }
        }
    }
    for (b, (&n, &c)) in mesh.bedge_nodes.iter().zip(&mesh.bedge_cell).enumerate() {
        if let Some(s) = sides.count_mut(key(n[0], n[1])) {
            *s += 1;
        }
        if Boundary::from_flag(mesh.bound[b]).is_none() {
            out.push(Problem::BadBoundaryFlag {
                bedge: b,
                flag: mesh.bound[b],
            });
        }
        if !has_side(c, n) {
            out.push(Problem::EdgeNotInCell {
                kind: "boundary edge",
                edge: b,
                cell: c as usize,
            });
        } else if side(n, centroid(c)) >= 0.0 {
            out.push(wrong("boundary edge", b, c));
        }
    }
    for c in 0..mesh.cells() {
        let n = mesh.cell(c);
        for k in 0..n.len() {
            let s = [n[k], n[(k + 1) % n.len()]];
            let count = sides.count_mut(key(s[0], s[1])).map_or(0, |k| *k);
            if count != 1 {
                out.push(Problem::SideCoverage {
                    cell: c,
                    nodes: s,
                    count,
                });
            }
        }
    }
    Report { findings: out }
}

/// Whether the polygon of `n` (signed area `area`) folds over itself. A
/// quadrilateral: its corners turn both ways twice (a bow tie; a dart
/// turns the other way at one corner only). More sides: two sides that
/// are not neighbours cross.
fn twisted(mesh: &PolyMesh, n: &[u32], area: f64) -> bool {
    let x = |k: usize| mesh.x[n[k % n.len()] as usize];
    let len = n.len();
    if len == 4 {
        let turns = (0..4).filter(|&k| {
            let (a, b, d) = (x(k), x(k + 1), x(k + 2));
            let t = (b[0] - a[0]) * (d[1] - b[1]) - (b[1] - a[1]) * (d[0] - b[0]);
            t * area < 0.0
        });
        return turns.count() > 1;
    }
    // Whether the segments p0-p1 and q0-q1 cross (strictly).
    let cross = |p0: [f64; 2], p1: [f64; 2], q0: [f64; 2], q1: [f64; 2]| {
        let o = |a: [f64; 2], b: [f64; 2], c: [f64; 2]| {
            (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        };
        o(p0, p1, q0) * o(p0, p1, q1) < 0.0 && o(q0, q1, p0) * o(q0, q1, p1) < 0.0
    };
    (0..len).any(|i| {
        (i + 2..len)
            .filter(|&j| (j + 1) % len != i)
            .any(|j| cross(x(i), x(i + 1), x(j), x(j + 1)))
    })
}

/// The cells' sides by their places `[lo, hi]` (lower first), grouped by
/// `lo`: a side of lower place `lo` is in `hi[start[lo]..start[lo + 1]]`
/// once per cell that has it, its count of edges at its first entry. In
/// node order, not hashed: a mesh's neighbouring cells have neighbouring
/// nodes, so the look-ups stay in the caches.
struct Sides {
    start: Vec<u32>,
    hi: Vec<u32>,
    count: Vec<usize>,
}

impl Sides {
    /// The sides of the cells `c` with `with_sides[c]`.
    fn new(mesh: &PolyMesh, with_sides: &[bool], key: impl Fn(u32, u32) -> [u32; 2]) -> Sides {
        let each = |f: &mut dyn FnMut([u32; 2])| {
            for (c, _) in with_sides.iter().enumerate().filter(|w| *w.1) {
                let n = mesh.cell(c);
                for k in 0..n.len() {
                    f(key(n[k], n[(k + 1) % n.len()]));
                }
            }
        };
        let mut start = vec![0u32; mesh.nodes() + 1];
        each(&mut |[lo, _]| start[lo as usize + 1] += 1);
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut at = start.clone();
        let mut hi = vec![0u32; *start.last().unwrap_or(&0) as usize];
        each(&mut |[lo, h]| {
            hi[at[lo as usize] as usize] = h;
            at[lo as usize] += 1;
        });
        let count = vec![0; hi.len()];
        Sides { start, hi, count }
    }

    /// The count of edges of the side `[lo, hi]`, if a cell has it.
    fn count_mut(&mut self, [lo, hi]: [u32; 2]) -> Option<&mut usize> {
        let (a, b) = (self.start[lo as usize], self.start[lo as usize + 1]);
        let k = (a..b).find(|&k| self.hi[k as usize] == hi)?;
        Some(&mut self.count[k as usize])
    }
}

fn wrong(kind: &'static str, edge: usize, cell: u32) -> Problem {
    Problem::WrongSide {
        kind,
        edge,
        cell: cell as usize,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::op2;

    fn squares() -> PolyMesh {
        let mut text = Vec::new();
        // Written and read back, so the check sees what a reader gives it.
        op2::write_to(&crate::poly::two_squares(), &mut text).unwrap();
        op2::parse(&text, std::path::Path::new("t.dat")).unwrap()
    }

    fn problems(m: &PolyMesh) -> Vec<String> {
        check(m).findings.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn a_good_mesh_passes() {
        assert_eq!(problems(&squares()), Vec::<String>::new());
    }

    #[test]
    fn each_defect_is_named() {
        let mut m = squares();
        m.edge_nodes[0] = [1, 4];
        assert_eq!(
            problems(&m),
            ["edge 0: cell 0 lies on the wrong side (mirrored mesh or swapped nodes?)"]
        );
        let mut m = squares();
        for p in &mut m.x {
            p[0] = -p[0];
        }
        let found = problems(&m);
        assert_eq!(found.len(), 7, "{found:?}");
        assert!(found.iter().all(|s| s.contains("wrong side")), "{found:?}");

        let mut m = squares();
        m.bound[3] = 7;
        assert_eq!(
            problems(&m),
            ["boundary edge 3: flag 7 is neither 1 (wall) nor 2 (far field)"]
        );
        let mut m = squares();
        m.bedge_nodes.pop();
        m.bedge_cell.pop();
        m.bound.pop();
        assert_eq!(
            problems(&m),
            ["cell 0: side 3-0 is covered by 0 edges (must be exactly 1)"]
        );
        let mut m = squares();
        m.edge_cells[0] = [1, 1];
        assert_eq!(problems(&m), ["edge 0: the same cell on both sides"]);
        let mut m = squares();
        m.bedge_cell[0] = 1;
        assert_eq!(
            problems(&m),
            ["boundary edge 0: its nodes are not a side of cell 1"]
        );
        let mut m = squares();
        m.x[4] = [1.0, 0.0];
        m.x[1] = [1.0, 1.0];
        let found = problems(&m);
        assert!(found[0].starts_with("cell 0: degenerate"), "{found:?}");
        let mut m = squares();
        m.cell_nodes[4..].copy_from_slice(&[1, 4, 5, 2]);
        let found = problems(&m);
        assert_eq!(
            found[0],
            "cell 1: inverted (turns the other way from the rest of the mesh)"
        );
        let mut m = squares();
        m.cell_nodes[4..].copy_from_slice(&[1, 2, 2, 4]);
        assert_eq!(problems(&m)[0], "cell 1: a node is named twice");
    }
}
