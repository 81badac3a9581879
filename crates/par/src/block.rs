//! Structured blocks: a box of cells per rank, kept in a padded array with
//! a halo as deep as the set's stencils reach, neighbours reached by
//! offsets (no index arrays), as OPS does.
//!
//! A rank owns a box `lo..hi` of the block's cells (the block is cut into a
//! grid of `px x py x pz` boxes). Its array holds the box and `halo[d]`
//! more cells on each side in each direction `d`:
//!
//! - a halo cell inside the block (or, for a periodic direction, its
//!   wrapped image) is a ghost: its owner sends its value when it is stale
//!   (a periodic block on one rank sends to itself);
//! - a halo cell outside a non-periodic block's faces is a boundary cell:
//!   boundary-condition loops write it; a rank keeps those beside its own
//!   box, and receives those beside a neighbour's box (in the corners) as
//!   ghosts from that neighbour.
//!
//! So every cell a kernel reads through a stencil is either owned, a
//! boundary cell of this rank, or a ghost with a known owner, and the same
//! exchange lists as for unstructured sets ([`crate::part::Peer`]) move
//! them.

use std::ops::Range;

use crate::decl::{ArgKind, LoopDecl, SetDecl, Via};
use crate::part::{LocalSet, Part, Peer};
use crate::problem::{DatData, Problem, Shape, Values};

/// How one rank holds a structured block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockLayout {
    /// Cells of the whole block per direction.
    pub dims: [usize; 3],
    /// Whether each direction wraps around.
    pub periodic: [bool; 3],
    /// Halo depth per direction.
    pub halo: [usize; 3],
    /// The owned box: global cells `lo[d]..hi[d]`.
    pub lo: [usize; 3],
    /// The owned box's end.
    pub hi: [usize; 3],
    /// Local array extent per direction (box plus halo on both sides).
    pub extent: [usize; 3],
}

impl BlockLayout {
    /// Elements between consecutive cells in each direction.
    pub fn strides(&self) -> [usize; 3] {
        [1, self.extent[0], self.extent[0] * self.extent[1]]
    }

    /// Local cells, halo included.
    pub fn len(&self) -> usize {
        self.extent.iter().product()
    }

    /// Whether the layout holds no cell.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Owned cells.
    pub fn owned(&self) -> usize {
        (0..3).map(|d| self.hi[d] - self.lo[d]).product()
    }

    /// The local index of the cell at global coordinates `c` (which may
    /// lie up to the halo depth outside the owned box).
    pub fn local(&self, c: [isize; 3]) -> usize {
        let s = self.strides();
        (0..3)
            .map(|d| (c[d] - self.lo[d] as isize + self.halo[d] as isize) as usize * s[d])
            .sum()
    }

    /// The global coordinates of local cell `i`.
    pub fn coords(&self, i: usize) -> [isize; 3] {
        let s = self.strides();
        let mut c = [0isize; 3];
        let mut rest = i;
        for d in (0..3).rev() {
            let k = rest / s[d];
            rest -= k * s[d];
            c[d] = k as isize + self.lo[d] as isize - self.halo[d] as isize;
        }
        c
    }

    /// The problem's number of local cell `i` (periodic images wrapped);
    /// `None` for a boundary cell outside the block.
    pub fn global_of(&self, i: usize) -> Option<usize> {
        let c = self.coords(i);
        let mut w = [0usize; 3];
        for d in 0..3 {
            if !self.periodic[d] && (c[d] < 0 || c[d] >= self.dims[d] as isize) {
                return None;
            }
            w[d] = wrap(c[d], self.dims[d]);
        }
        Some(w[0] + self.dims[0] * (w[1] + self.dims[1] * w[2]))
    }

    /// The rows (spans of local indices along x) of the global box
    /// `lo..hi` (coordinates relative to the block, possibly in the halo).
    pub fn spans(&self, lo: [isize; 3], hi: [isize; 3]) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        if (0..3).any(|d| hi[d] <= lo[d]) {
            return out;
        }
        for k in lo[2]..hi[2] {
            for j in lo[1]..hi[1] {
                let a = self.local([lo[0], j, k]);
                out.push(a..a + (hi[0] - lo[0]) as usize);
            }
        }
        out
    }
}

/// `c` wrapped into `0..n`.
fn wrap(c: isize, n: usize) -> usize {
    c.rem_euclid(n as isize) as usize
}

/// The halo depth of `set`: the largest offset of the stencils its loops
/// read through.
pub fn halo_depth(set: &SetDecl, loops: &[&LoopDecl]) -> [usize; 3] {
    let mut h = [0usize; 3];
    for l in loops {
        for a in l.args {
            if let ArgKind::Dat {
                via: Via::Offsets(s),
                ..
            } = a.kind
            {
                if s.set.name == set.name {
                    let d = s.depth();
                    for k in 0..3 {
                        h[k] = h[k].max(d[k]);
                    }
                }
            }
        }
    }
    h
}

/// A grid of boxes for `ranks` ranks over a block of `dims` cells: the
/// factorisation whose boxes have the shortest faces (`strips`: all cuts
/// along the longest direction).
pub fn rank_grid(dims: [usize; 3], ranks: usize, strips: bool) -> [usize; 3] {
    let used: Vec<usize> = (0..3).filter(|&d| dims[d] > 1).collect();
    if strips || used.len() <= 1 {
        let d = (0..3).max_by_key(|&d| dims[d]).unwrap_or(0);
        let mut g = [1; 3];
        g[d] = ranks;
        return g;
    }
    let mut best = [ranks, 1, 1];
    let mut best_cost = f64::INFINITY;
    for a in 1..=ranks {
        if ranks % a != 0 {
            continue;
        }
        for b in 1..=ranks / a {
            if (ranks / a) % b != 0 {
                continue;
            }
            let g = [a, b, ranks / a / b];
            if (0..3).any(|d| g[d] > dims[d].max(1)) {
                continue;
            }
            // Faces cut: the sum over directions of cuts times face area.
            let cost: f64 = (0..3)
                .map(|d| {
                    let face: f64 = (0..3).filter(|&e| e != d).map(|e| dims[e] as f64).product();
                    (g[d] - 1) as f64 * face
                })
                .sum();
            if cost < best_cost {
                best_cost = cost;
                best = g;
            }
        }
    }
    best
}

/// The owned box of rank `r` in a grid of boxes.
fn rank_box(dims: [usize; 3], grid: [usize; 3], r: usize) -> ([usize; 3], [usize; 3]) {
    let pos = [
        r % grid[0],
        (r / grid[0]) % grid[1],
        r / (grid[0] * grid[1]),
    ];
    let mut lo = [0; 3];
    let mut hi = [0; 3];
    for d in 0..3 {
        lo[d] = dims[d] * pos[d] / grid[d];
        hi[d] = dims[d] * (pos[d] + 1) / grid[d];
    }
    (lo, hi)
}

/// The rank owning the (extended) cell at `c`: periodic directions
/// wrapped, the others clamped into the block.
fn owner(dims: [usize; 3], periodic: [bool; 3], grid: [usize; 3], c: [isize; 3]) -> usize {
    let mut pos = [0usize; 3];
    for d in 0..3 {
        let x = if periodic[d] {
            wrap(c[d], dims[d])
        } else {
            c[d].clamp(0, dims[d] as isize - 1) as usize
        };
        // The box k holds dims*k/g .. dims*(k+1)/g.
        pos[d] = ((x + 1) * grid[d] - 1) / dims[d];
        while dims[d] * pos[d] / grid[d] > x {
            pos[d] -= 1;
        }
        while dims[d] * (pos[d] + 1) / grid[d] <= x {
            pos[d] += 1;
        }
    }
    pos[0] + grid[0] * (pos[1] + grid[1] * pos[2])
}

/// The local sets of one block set for all ranks.
pub fn block_sets(
    decl: &'static SetDecl,
    dims: [usize; 3],
    periodic: [bool; 3],
    halo: [usize; 3],
    grid: [usize; 3],
) -> Vec<LocalSet> {
    let ranks = grid.iter().product::<usize>();
    let layouts: Vec<BlockLayout> = (0..ranks)
        .map(|r| {
            let (lo, hi) = rank_box(dims, grid, r);
            let mut extent = [1; 3];
            for d in 0..3 {
                extent[d] = hi[d] - lo[d] + 2 * halo[d];
            }
            BlockLayout {
                dims,
                periodic,
                halo,
                lo,
                hi,
                extent,
            }
        })
        .collect();
    // Every rank's exchanged halo cells: (reader, owner, reader's local,
    // owner's local).
    let mut lists: Vec<Vec<(usize, u32, u32)>> = vec![Vec::new(); ranks];
    let mut sides: Vec<[[bool; 2]; 3]> = vec![[[false; 2]; 3]; ranks];
    for (q, b) in layouts.iter().enumerate() {
        for i in 0..b.len() {
            let c = b.coords(i);
            let inside = (0..3).all(|d| c[d] >= b.lo[d] as isize && c[d] < b.hi[d] as isize);
            if inside {
                continue;
            }
            let o = owner(dims, periodic, grid, c);
            let wrapped = (0..3).any(|d| periodic[d] && (c[d] < 0 || c[d] >= dims[d] as isize));
            if o == q && !wrapped {
                continue; // this rank's own boundary cell
            }
            let mut oc = c;
            for d in 0..3 {
                if periodic[d] {
                    oc[d] = wrap(c[d], dims[d]) as isize;
                }
            }
            lists[q].push((o, i as u32, layouts[o].local(oc) as u32));
            for d in 0..3 {
                if c[d] < b.lo[d] as isize {
                    sides[q][d][0] = true;
                } else if c[d] >= b.hi[d] as isize {
                    sides[q][d][1] = true;
                }
            }
        }
        lists[q].sort_by_key(|x| (x.0, x.1));
    }
    layouts
        .iter()
        .enumerate()
        .map(|(q, b)| {
            let mut peers: Vec<Peer> = Vec::new();
            for &(o, mine, _) in &lists[q] {
                if peers.last().is_none_or(|p| p.rank != o) {
                    peers.push(Peer {
                        rank: o,
                        ..Peer::default()
                    });
                }
                peers.last_mut().expect("pushed").recv.push(mine);
            }
            for (reader, list) in lists.iter().enumerate() {
                let send: Vec<u32> = list.iter().filter(|x| x.0 == q).map(|x| x.2).collect();
                if send.is_empty() {
                    continue;
                }
                match peers.iter_mut().find(|p| p.rank == reader) {
                    Some(p) => p.send = send,
                    None => peers.push(Peer {
                        rank: reader,
                        send,
                        recv: Vec::new(),
                    }),
                }
            }
            peers.sort_by_key(|p| p.rank);
            // Core: the owned box shrunk by the halo on every side that
            // receives ghosts; the rest in slabs around it.
            let mut clo = [0isize; 3];
            let mut chi = [0isize; 3];
            for d in 0..3 {
                clo[d] = b.lo[d] as isize + if sides[q][d][0] { halo[d] as isize } else { 0 };
                chi[d] = b.hi[d] as isize - if sides[q][d][1] { halo[d] as isize } else { 0 };
                chi[d] = chi[d].max(clo[d]);
            }
            let (olo, ohi) = (b.lo.map(|x| x as isize), b.hi.map(|x| x as isize));
            let empty = (0..3).any(|d| clo[d] >= chi[d]);
            let (core, rest) = if empty {
                (Vec::new(), b.spans(olo, ohi))
            } else {
                let mut rest = Vec::new();
                let (mut lo, mut hi) = (olo, ohi);
                for d in (0..3).rev() {
                    let mut a = lo;
                    let mut z = hi;
                    z[d] = clo[d];
                    rest.extend(b.spans(a, z));
                    a[d] = chi[d];
                    z[d] = hi[d];
                    rest.extend(b.spans(a, z));
                    lo[d] = clo[d];
                    hi[d] = chi[d];
                }
                (b.spans(clo, chi), rest)
            };
            LocalSet {
                decl,
                global_len: dims.iter().product(),
                len: b.len(),
                owned: b.owned(),
                core,
                rest,
                global: Vec::new(),
                peers,
                block: Some(b.clone()),
                blocks: Vec::new(),
                exec: Vec::new(),
            }
        })
        .collect()
}

/// The parts of a problem made of structured blocks only, for `ranks`
/// ranks (`strips`: cut along the longest direction only).
pub fn build_all(problem: &Problem, loops: &[&LoopDecl], ranks: usize, strips: bool) -> Vec<Part> {
    let mut per_set: Vec<Vec<LocalSet>> = Vec::new();
    for s in &problem.sets {
        let Shape::Block { dims, periodic } = s.shape else {
            panic!("set `{}`: only blocks can be cut into boxes", s.decl.name)
        };
        let halo = halo_depth(s.decl, loops);
        let grid = rank_grid(dims, ranks, strips);
        per_set.push(block_sets(s.decl, dims, periodic, halo, grid));
    }
    (0..ranks)
        .map(|r| {
            let sets: Vec<LocalSet> = per_set.iter().map(|v| v[r].clone()).collect();
            let dats = problem
                .dats
                .iter()
                .map(|d| {
                    let s = sets
                        .iter()
                        .find(|s| s.decl.name == d.decl.set.name)
                        .expect("a dat's set is in the problem");
                    let b = s.block.as_ref().expect("a block");
                    DatData {
                        decl: d.decl,
                        values: gather_cells(&d.values, d.decl.dim, b),
                    }
                })
                .collect();
            Part {
                rank: r,
                ranks,
                sets,
                maps: Vec::new(),
                dats,
            }
        })
        .collect()
}

/// The values of `values` (in the problem's numbering) at every local cell
/// of `b`, zero at boundary cells outside the block.
fn gather_cells(values: &Values, dim: usize, b: &BlockLayout) -> Values {
    let cells = (0..b.len()).map(|i| b.global_of(i));
    match values {
        Values::F64(v) => Values::F64(
            cells
                .flat_map(|g| match g {
                    Some(g) => v[g * dim..(g + 1) * dim].to_vec(),
                    None => vec![0.0; dim],
                })
                .collect(),
        ),
        Values::I32(v) => Values::I32(
            cells
                .flat_map(|g| match g {
                    Some(g) => v[g * dim..(g + 1) * dim].to_vec(),
                    None => vec![0; dim],
                })
                .collect(),
        ),
    }
}
