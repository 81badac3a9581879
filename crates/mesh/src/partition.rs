//! Graph and geometric partitioning of clouds for distributed runs.
//!
//! A [`Partition`] gives every point of a cloud a part (an MPI rank):
//!
//! - [`Method::Metis`]: METIS k-way on the stencil graph made symmetric
//!   (point `i` and `k` are joined when either is in the other's stencil),
//!   which minimises the edge cut, and so the ghost count, for a balanced
//!   point count;
//! - [`Method::Rcb`]: recursive coordinate bisection, a geometric fallback
//!   that needs no graph: the points are split across the longer side of
//!   their bounding box, in proportion to the parts on each side, until every
//!   part is one. It is deterministic and balances the point count exactly
//!   (parts differ by at most one point).
//!
//! Any part count from 1 to the number of points works, including counts
//! that do not divide the cloud: every part gets at least one point (METIS
//! can leave a part empty on a tiny graph; such a part is given a point of
//! the largest part). A partition is written as one part number per line,
//! point after point in the cloud's numbering (the format of METIS's own
//! `gpmetis` output, so a partition made by either can be read back).
//!
//! [`Partition::layouts`] turns a partition into what each rank holds: its
//! owned points, those whose stencils are wholly owned first, then those that
//! read ghosts, then the ghosts grouped by the rank that owns them, and the
//! lists of points to send to each neighbour. It is plain graph work; the
//! distributed layer of `qflow-exec` turns it into local geometry and
//! messages.

use std::path::Path;

use crate::{Cloud, CloudError, PointKind};

/// How to partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Method {
    /// METIS k-way on the symmetric stencil graph.
    #[default]
    Metis,
    /// Recursive coordinate bisection.
    Rcb,
}

impl std::str::FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "metis" => Ok(Self::Metis),
            "rcb" => Ok(Self::Rcb),
            o => Err(format!("unknown partitioner '{o}' (metis, rcb)")),
        }
    }
}

impl Method {
    /// The name, as on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Metis => "metis",
            Self::Rcb => "rcb",
        }
    }
}

/// The stencil graph made symmetric, without self loops or repeated edges,
/// in compressed rows (each row sorted).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SymmetricGraph {
    /// Row offsets, one more than there are points.
    pub start: Vec<usize>,
    /// Neighbours, row after row.
    pub adj: Vec<u32>,
}

impl SymmetricGraph {
    /// The graph of `cloud`: `i -- k` when `k` is in the stencil of `i` or
    /// `i` in that of `k`.
    pub fn of(cloud: &Cloud) -> Self {
        let n = cloud.len();
        let mut deg = vec![0usize; n];
        for i in 0..n {
            for &k in cloud.neighbours(i) {
                if k as usize != i {
                    deg[i] += 1;
                    deg[k as usize] += 1;
                }
            }
        }
        let mut start = vec![0usize; n + 1];
        for i in 0..n {
            start[i + 1] = start[i] + deg[i];
        }
        let mut fill = start.clone();
        let mut adj = vec![0u32; start[n]];
        for i in 0..n {
            for &k in cloud.neighbours(i) {
                let k = k as usize;
                if k != i {
                    adj[fill[i]] = k as u32;
                    fill[i] += 1;
                    adj[fill[k]] = i as u32;
                    fill[k] += 1;
                }
            }
        }
        // Sort and deduplicate each row, compacting in place.
        let mut out = 0usize;
        let mut new_start = vec![0usize; n + 1];
        for i in 0..n {
            let (a, b) = (start[i], start[i + 1]);
            adj[a..b].sort_unstable();
            let row_begin = out;
            for j in a..b {
                if j == a || adj[j] != adj[j - 1] {
                    adj[out] = adj[j];
                    out += 1;
                }
            }
            new_start[i] = row_begin;
            new_start[i + 1] = out;
        }
        adj.truncate(out);
        SymmetricGraph {
            start: new_start,
            adj,
        }
    }

    /// Neighbours of `i`.
    pub fn row(&self, i: usize) -> &[u32] {
        &self.adj[self.start[i]..self.start[i + 1]]
    }

    /// Number of undirected edges.
    pub fn edges(&self) -> usize {
        self.adj.len() / 2
    }
}

/// A part (rank) for every point of a cloud.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    parts: usize,
    part: Vec<u32>,
}

/// The largest part count METIS accepts here (its indices are 32-bit).
const MAX_PARTS: usize = i32::MAX as usize;

impl Partition {
    /// Partitions `cloud` into `parts` parts with `method`.
    pub fn new(cloud: &Cloud, parts: usize, method: Method) -> Result<Self, CloudError> {
        match method {
            Method::Metis => Self::metis(cloud, parts),
            Method::Rcb => Self::rcb(cloud, parts),
        }
    }

    fn check_count(n: usize, parts: usize) -> Result<(), CloudError> {
        if parts == 0 {
            return Err(CloudError::Structure(
                "a partition needs at least one part".into(),
            ));
        }
        if parts > n || parts > MAX_PARTS {
            return Err(CloudError::Structure(format!(
                "cannot cut {n} points into {parts} parts: every part (rank) needs at least one point"
            )));
        }
        Ok(())
    }

    /// METIS k-way partitioning of the symmetric stencil graph (unit
    /// weights, METIS's default 3% imbalance tolerance, a fixed seed so that
    /// the same cloud always gives the same partition).
    pub fn metis(cloud: &Cloud, parts: usize) -> Result<Self, CloudError> {
        let n = cloud.len();
        Self::check_count(n, parts)?;
        if parts == 1 {
            return Ok(Partition {
                parts,
                part: vec![0; n],
            });
        }
        let g = SymmetricGraph::of(cloud);
        if g.adj.len() > i32::MAX as usize {
            return Err(CloudError::Structure(
                "the stencil graph has too many edges for METIS's 32-bit indices".into(),
            ));
        }
        let xadj: Vec<metis::Idx> = g.start.iter().map(|&s| s as metis::Idx).collect();
        let adjncy: Vec<metis::Idx> = g.adj.iter().map(|&k| k as metis::Idx).collect();
        drop(g);
        let mut part = vec![0 as metis::Idx; n];
        metis::Graph::new(1, parts as metis::Idx, &xadj, &adjncy)
            .map_err(|e| CloudError::Structure(format!("METIS refused the stencil graph: {e}")))?
            .set_option(metis::option::Seed(1))
            .part_kway(&mut part)
            .map_err(|e| CloudError::Structure(format!("METIS failed: {e}")))?;
        let mut p = Partition {
            parts,
            part: part.into_iter().map(|v| v as u32).collect(),
        };
        p.fill_empty_parts();
        Ok(p)
    }

    /// Recursive coordinate bisection: the points are split across the
    /// longer side of their bounding box at the point count proportional to
    /// the parts on each side (ties broken by the other coordinate, then the
    /// index, so the result is deterministic), down to single parts.
    pub fn rcb(cloud: &Cloud, parts: usize) -> Result<Self, CloudError> {
        let n = cloud.len();
        Self::check_count(n, parts)?;
        let mut idx: Vec<u32> = (0..n as u32).collect();
        let mut part = vec![0u32; n];
        rcb_split(cloud, &mut idx, 0, parts, &mut part);
        Ok(Partition { parts, part })
    }

    /// A partition from part numbers (`part[i]` is the part of point `i`),
    /// with `parts` parts. Parts may be empty.
    pub fn from_parts(parts: usize, part: Vec<u32>) -> Result<Self, CloudError> {
        if parts == 0 {
            return Err(CloudError::Structure(
                "a partition needs at least one part".into(),
            ));
        }
        if let Some((i, &p)) = part.iter().enumerate().find(|(_, &p)| p as usize >= parts) {
            return Err(CloudError::Structure(format!(
                "point {}: part {p} is out of range (0..{parts})",
                i + 1
            )));
        }
        Ok(Partition { parts, part })
    }

    /// Gives every empty part one point of the largest part (the point of
    /// that part with the highest index), until none is empty.
    fn fill_empty_parts(&mut self) {
        let mut count = vec![0usize; self.parts];
        for &p in &self.part {
            count[p as usize] += 1;
        }
        while let Some(empty) = count.iter().position(|&c| c == 0) {
            let largest = (0..self.parts)
                .max_by_key(|&p| (count[p], std::cmp::Reverse(p)))
                .expect("at least one part");
            let i = self
                .part
                .iter()
                .rposition(|&p| p as usize == largest)
                .expect("the largest part has points");
            self.part[i] = empty as u32;
            count[largest] -= 1;
            count[empty] += 1;
        }
    }

    /// Number of parts.
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// The part of every point.
    pub fn part(&self) -> &[u32] {
        &self.part
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.part.len()
    }

    /// Whether the partition covers no points.
    pub fn is_empty(&self) -> bool {
        self.part.is_empty()
    }

    /// The partition as text: one part number per line, in point order.
    pub fn to_text(&self) -> String {
        let mut s = String::with_capacity(self.part.len() * 3);
        for p in &self.part {
            s += &p.to_string();
            s.push('\n');
        }
        s
    }

    /// Writes the partition (one part number per line), atomically.
    pub fn write(&self, path: &Path) -> Result<(), CloudError> {
        let text = self.to_text();
        Ok(crate::fsutil::write_atomically(path, |w| std::io::Write::write_all(w, text.as_bytes()))?)
    }

    /// Reads a partition of a cloud of `points` points: one part number per
    /// line (blank lines and lines starting with `#` skipped). The part
    /// count is the largest number plus one; with `parts`, it must equal
    /// `parts` (some parts may still be empty).
    pub fn read(path: &Path, points: usize, parts: Option<usize>) -> Result<Self, CloudError> {
        let text = std::fs::read_to_string(path).map_err(|e| CloudError::io(path, e))?;
        Self::parse(&text, path, points, parts)
    }

    /// Parses the text of a partition file (see [`Partition::read`]); `path`
    /// is only used in messages.
    pub fn parse(
        text: &str,
        path: &Path,
        points: usize,
        parts: Option<usize>,
    ) -> Result<Self, CloudError> {
        let err = |line: usize, message: String| CloudError::Parse {
            path: path.to_path_buf(),
            line,
            field: "part".into(),
            message,
        };
        let mut part = Vec::with_capacity(points);
        for (l, raw) in text.lines().enumerate() {
            let s = raw.trim();
            if s.is_empty() || s.starts_with('#') {
                continue;
            }
            let v: u32 = s
                .parse()
                .map_err(|_| err(l + 1, format!("'{s}' is not a part number")))?;
            if part.len() == points {
                return Err(err(
                    l + 1,
                    format!("more part numbers than the cloud's {points} points"),
                ));
            }
            part.push(v);
        }
        if part.len() != points {
            return Err(CloudError::Structure(format!(
                "{}: {} part numbers for a cloud of {points} points",
                path.display(),
                part.len()
            )));
        }
        let found = part.iter().max().map_or(0, |&m| m as usize + 1);
        let parts = match parts {
            Some(k) if k != found => {
                return Err(CloudError::Structure(format!(
                    "{}: the partition has {found} parts but {k} are needed (one per rank)",
                    path.display()
                )))
            }
            Some(k) => k,
            None => found.max(1),
        };
        Ok(Partition { parts, part })
    }

    /// Statistics of the partition on `cloud`.
    pub fn stats(&self, cloud: &Cloud) -> PartitionStats {
        let g = SymmetricGraph::of(cloud);
        let mut cut = 0usize;
        for i in 0..cloud.len() {
            for &k in g.row(i) {
                if (k as usize) > i && self.part[k as usize] != self.part[i] {
                    cut += 1;
                }
            }
        }
        let edges = g.edges();
        drop(g);
        let layouts = self.layouts(cloud, None);
        let mut wall = vec![0usize; self.parts];
        for (i, &p) in self.part.iter().enumerate() {
            if cloud.kind[i] == PointKind::Wall {
                wall[p as usize] += 1;
            }
        }
        let parts = layouts
            .iter()
            .zip(&wall)
            .map(|(l, &w)| PartStats {
                points: l.n_owned,
                interior: l.n_interior,
                ghosts: l.ghosts(),
                wall: w,
                neighbours: l.neighbour_ranks().len(),
                sent: l.send.iter().map(|s| s.points.len()).sum(),
            })
            .collect();
        PartitionStats {
            points: cloud.len(),
            edges,
            edge_cut: cut,
            parts,
        }
    }

    /// What each part holds ([`PartLayout`]), for every part at once.
    ///
    /// `order` ranks the points for memory locality (e.g. a reverse
    /// Cuthill-McKee `new_of_old`); within each class (points whose stencils
    /// are wholly owned, points that read ghosts, ghosts of one owner) points
    /// go in that order. `None`: the cloud's own order.
    pub fn layouts(&self, cloud: &Cloud, order: Option<&[u32]>) -> Vec<PartLayout> {
        let n = cloud.len();
        assert_eq!(self.part.len(), n, "partition of another cloud");
        let key = |i: usize| order.map_or(i as u32, |o| o[i]);
        // Points in locality order.
        let by_key: Vec<u32> = match order {
            Some(o) => crate::renumber::inverse(o),
            None => (0..n as u32).collect(),
        };
        let parts = self.parts;
        let part = &self.part;
        let reads_ghost = |i: usize| {
            cloud
                .neighbours(i)
                .iter()
                .any(|&k| part[k as usize] != part[i])
        };
        let mut interior: Vec<Vec<u32>> = vec![Vec::new(); parts];
        let mut boundary: Vec<Vec<u32>> = vec![Vec::new(); parts];
        for &i in &by_key {
            let p = part[i as usize] as usize;
            if reads_ghost(i as usize) {
                boundary[p].push(i);
            } else {
                interior[p].push(i);
            }
        }
        // Local index of every point in its owner's numbering.
        let mut local_of = vec![0u32; n];
        for p in 0..parts {
            for (j, &i) in interior[p].iter().chain(&boundary[p]).enumerate() {
                local_of[i as usize] = j as u32;
            }
        }
        // (reader part, owner part, key, point) for every ghost, deduplicated.
        let mut ghosts: Vec<(u32, u32, u32, u32)> = Vec::new();
        for (p, b) in boundary.iter().enumerate() {
            for &i in b {
                for &k in cloud.neighbours(i as usize) {
                    let q = part[k as usize];
                    if q as usize != p {
                        ghosts.push((p as u32, q, key(k as usize), k));
                    }
                }
            }
        }
        ghosts.sort_unstable();
        ghosts.dedup();
        let mut layouts: Vec<PartLayout> = (0..parts)
            .map(|p| {
                let mut points = std::mem::take(&mut interior[p]);
                let n_interior = points.len();
                points.append(&mut boundary[p]);
                let n_owned = points.len();
                PartLayout {
                    part: p as u32,
                    points,
                    n_interior,
                    n_owned,
                    recv: Vec::new(),
                    send: Vec::new(),
                }
            })
            .collect();
        let mut g = 0usize;
        while g < ghosts.len() {
            let (p, q) = (ghosts[g].0, ghosts[g].1);
            let mut e = g;
            while e < ghosts.len() && ghosts[e].0 == p && ghosts[e].1 == q {
                e += 1;
            }
            let reader = &mut layouts[p as usize];
            let start = reader.points.len();
            reader
                .points
                .extend(ghosts[g..e].iter().map(|&(_, _, _, k)| k));
            reader.recv.push(RecvBlock {
                rank: q,
                start,
                len: e - g,
            });
            let offset = start - reader.n_owned;
            layouts[q as usize].send.push(SendList {
                rank: p,
                points: ghosts[g..e]
                    .iter()
                    .map(|&(_, _, _, k)| local_of[k as usize])
                    .collect(),
                offset,
            });
            g = e;
        }
        for l in &mut layouts {
            l.send.sort_by_key(|s| s.rank);
        }
        layouts
    }
}

/// Splits `idx` (points) into `parts` parts numbered from `first`.
fn rcb_split(cloud: &Cloud, idx: &mut [u32], first: u32, parts: usize, out: &mut [u32]) {
    if parts == 1 {
        for &i in idx.iter() {
            out[i as usize] = first;
        }
        return;
    }
    let len = idx.len();
    let left_parts = parts / 2;
    // Points in proportion to the parts, at least one per part on each side.
    let n_left = ((len as u128 * left_parts as u128) / parts as u128) as usize;
    let n_left = n_left.clamp(left_parts, len - (parts - left_parts));
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &i in idx.iter() {
        let (x, y) = (cloud.x[i as usize], cloud.y[i as usize]);
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    let along_x = x1 - x0 >= y1 - y0;
    let coord = |i: u32| {
        let (x, y) = (cloud.x[i as usize], cloud.y[i as usize]);
        if along_x {
            (x, y)
        } else {
            (y, x)
        }
    };
    idx.select_nth_unstable_by(n_left, |&a, &b| {
        let (ca, cb) = (coord(a), coord(b));
        ca.0.total_cmp(&cb.0)
            .then(ca.1.total_cmp(&cb.1))
            .then(a.cmp(&b))
    });
    let (left, right) = idx.split_at_mut(n_left);
    rcb_split(cloud, left, first, left_parts, out);
    rcb_split(
        cloud,
        right,
        first + left_parts as u32,
        parts - left_parts,
        out,
    );
}

/// Ghosts that one part receives from one other part: local indices
/// `start..start + len` of the reader, in the order the owner sends them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecvBlock {
    /// The owner's part (rank).
    pub rank: u32,
    /// First local index of the block (a ghost index, `>= n_owned`).
    pub start: usize,
    /// Number of ghosts.
    pub len: usize,
}

/// Owned points whose values another part reads as ghosts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SendList {
    /// The reader's part (rank).
    pub rank: u32,
    /// Local indices of the points, in the order of the reader's block.
    pub points: Vec<u32>,
    /// Where the block starts among the reader's ghosts (its
    /// [`RecvBlock::start`] minus the reader's `n_owned`): the displacement
    /// of a one-sided put into the reader's ghost buffer.
    pub offset: usize,
}

/// What one part (rank) holds: its points in local order and its messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartLayout {
    /// The part.
    pub part: u32,
    /// The cloud index of every local point: owned points whose stencils are
    /// wholly owned (`0..n_interior`), owned points that read ghosts
    /// (`n_interior..n_owned`), then the ghosts (`n_owned..`), grouped by
    /// owner in rank order.
    pub points: Vec<u32>,
    /// Owned points whose stencils are wholly owned.
    pub n_interior: usize,
    /// Owned points.
    pub n_owned: usize,
    /// Ghost blocks, by owner rank.
    pub recv: Vec<RecvBlock>,
    /// Points to send, by reader rank.
    pub send: Vec<SendList>,
}

impl PartLayout {
    /// Number of ghosts.
    pub fn ghosts(&self) -> usize {
        self.points.len() - self.n_owned
    }

    /// The ranks this part exchanges with (sends to or receives from), in
    /// increasing order.
    pub fn neighbour_ranks(&self) -> Vec<u32> {
        let mut r: Vec<u32> = self
            .recv
            .iter()
            .map(|b| b.rank)
            .chain(self.send.iter().map(|s| s.rank))
            .collect();
        r.sort_unstable();
        r.dedup();
        r
    }
}

/// Statistics of one part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartStats {
    /// Owned points.
    pub points: usize,
    /// Owned points whose stencils are wholly owned.
    pub interior: usize,
    /// Ghosts (distinct points of other parts read by this one).
    pub ghosts: usize,
    /// Wall points owned.
    pub wall: usize,
    /// Parts exchanged with.
    pub neighbours: usize,
    /// Point values sent per exchange (summed over the neighbours).
    pub sent: usize,
}

/// The quality of a partition.
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionStats {
    /// Points of the cloud.
    pub points: usize,
    /// Edges of the symmetric stencil graph.
    pub edges: usize,
    /// Edges joining points of different parts.
    pub edge_cut: usize,
    /// Per part.
    pub parts: Vec<PartStats>,
}

impl PartitionStats {
    /// Load imbalance: the largest part's points over the mean (1 is
    /// perfect balance).
    pub fn imbalance(&self) -> f64 {
        let max = self.parts.iter().map(|p| p.points).max().unwrap_or(0);
        let mean = self.points as f64 / self.parts.len().max(1) as f64;
        if mean > 0.0 {
            max as f64 / mean
        } else {
            1.0
        }
    }

    /// All ghosts of all parts.
    pub fn total_ghosts(&self) -> usize {
        self.parts.iter().map(|p| p.ghosts).sum()
    }

    /// A table, as text.
    pub fn render(&self) -> String {
        let k = self.parts.len();
        let mut s = format!(
            "points      {}\nparts       {k}\nedge cut    {} of {} edges ({:.2}%)\nghosts      {} in all ({:.2}% of the points)\nimbalance   {:.4} (largest part / mean)\n\n",
            self.points,
            self.edge_cut,
            self.edges,
            100.0 * self.edge_cut as f64 / self.edges.max(1) as f64,
            self.total_ghosts(),
            100.0 * self.total_ghosts() as f64 / self.points.max(1) as f64,
            self.imbalance()
        );
        s += "  part     points   interior     ghosts   ghost %   wall  neighbours       sent\n";
        for (p, st) in self.parts.iter().enumerate() {
            s += &format!(
                "{:>6} {:>10} {:>10} {:>10} {:>8.2}% {:>6} {:>11} {:>10}\n",
                p,
                st.points,
                st.interior,
                st.ghosts,
                100.0 * st.ghosts as f64 / st.points.max(1) as f64,
                st.wall,
                st.neighbours,
                st.sent
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::NacaOGrid;

    fn naca(wall_points: usize, rings: usize) -> Cloud {
        NacaOGrid {
            section: "naca0012".parse().unwrap(),
            wall_points,
            rings,
            far_field: 10.0,
            stretching: None,
        }
        .generate()
        .unwrap()
    }

    /// Checks every invariant of the layouts of `p` on `cloud`.
    fn check_layouts(cloud: &Cloud, p: &Partition) {
        let layouts = p.layouts(cloud, None);
        assert_eq!(layouts.len(), p.parts());
        let mut owner_seen = vec![false; cloud.len()];
        for l in &layouts {
            let local: std::collections::HashMap<u32, usize> =
                l.points.iter().enumerate().map(|(j, &i)| (i, j)).collect();
            assert_eq!(
                local.len(),
                l.points.len(),
                "a point twice in part {}",
                l.part
            );
            for (j, &i) in l.points[..l.n_owned].iter().enumerate() {
                assert_eq!(p.part()[i as usize], l.part);
                assert!(!owner_seen[i as usize]);
                owner_seen[i as usize] = true;
                let all_owned = cloud
                    .neighbours(i as usize)
                    .iter()
                    .all(|&k| p.part()[k as usize] == l.part);
                assert_eq!(all_owned, j < l.n_interior);
                for &k in cloud.neighbours(i as usize) {
                    assert!(local.contains_key(&k), "stencil point {k} not local");
                }
            }
            for &g in &l.points[l.n_owned..] {
                assert_ne!(p.part()[g as usize], l.part);
            }
            // The blocks tile the ghosts.
            let mut at = l.n_owned;
            for b in &l.recv {
                assert_eq!(b.start, at);
                at += b.len;
                // ... and the owner sends exactly them, in order.
                let owner = &layouts[b.rank as usize];
                let s = owner.send.iter().find(|s| s.rank == l.part).unwrap();
                assert_eq!(s.offset, b.start - l.n_owned);
                let sent: Vec<u32> = s.points.iter().map(|&j| owner.points[j as usize]).collect();
                assert_eq!(sent, l.points[b.start..b.start + b.len]);
                assert!(s.points.iter().all(|&j| (j as usize) < owner.n_owned));
            }
            assert_eq!(at, l.points.len());
        }
        assert!(owner_seen.iter().all(|&s| s));
    }

    #[test]
    fn both_methods_give_valid_balanced_partitions() {
        let c = naca(64, 24);
        for method in [Method::Metis, Method::Rcb] {
            for parts in [1, 2, 3, 4, 5, 7, 16] {
                let p = Partition::new(&c, parts, method).unwrap();
                assert_eq!(p.parts(), parts);
                check_layouts(&c, &p);
                let s = p.stats(&c);
                assert!(s.parts.iter().all(|q| q.points > 0), "{method:?} {parts}");
                assert!(s.imbalance() < 1.1, "{method:?} {parts}: {}", s.imbalance());
                if parts == 1 {
                    assert_eq!(s.edge_cut, 0);
                    assert_eq!(s.total_ghosts(), 0);
                } else {
                    assert!(s.edge_cut > 0);
                }
                if method == Method::Rcb {
                    let (lo, hi) = (
                        s.parts.iter().map(|q| q.points).min().unwrap(),
                        s.parts.iter().map(|q| q.points).max().unwrap(),
                    );
                    assert!(hi - lo <= 1, "rcb {parts}: {lo}..{hi}");
                }
            }
        }
    }

    #[test]
    fn metis_cuts_fewer_edges_than_rcb_or_close() {
        let c = naca(96, 40);
        let m = Partition::metis(&c, 8).unwrap().stats(&c);
        let r = Partition::rcb(&c, 8).unwrap().stats(&c);
        assert!(m.edge_cut <= r.edge_cut + r.edge_cut / 5, "{m:?} {r:?}");
    }

    #[test]
    fn any_count_up_to_the_points_works() {
        let c = naca(16, 4);
        let n = c.len();
        for method in [Method::Metis, Method::Rcb] {
            for parts in [n - 1, n] {
                let p = Partition::new(&c, parts, method).unwrap();
                check_layouts(&c, &p);
                assert!(p.stats(&c).parts.iter().all(|q| q.points >= 1));
            }
            let e = Partition::new(&c, n + 1, method).unwrap_err().to_string();
            assert!(e.contains("at least one point"), "{e}");
            assert!(Partition::new(&c, 0, method).is_err());
        }
    }

    #[test]
    fn locality_order_is_kept_within_classes() {
        let c = naca(32, 10);
        let p = Partition::rcb(&c, 3).unwrap();
        let order = crate::renumber::reverse_cuthill_mckee(&c);
        let layouts = p.layouts(&c, Some(&order));
        for l in &layouts {
            let keys: Vec<u32> = l.points.iter().map(|&i| order[i as usize]).collect();
            assert!(keys[..l.n_interior].windows(2).all(|w| w[0] < w[1]));
            assert!(keys[l.n_interior..l.n_owned]
                .windows(2)
                .all(|w| w[0] < w[1]));
        }
    }

    #[test]
    fn partitions_round_trip_through_text() {
        let c = naca(32, 10);
        let p = Partition::metis(&c, 3).unwrap();
        let path = Path::new("p.part");
        let back = Partition::parse(&p.to_text(), path, c.len(), Some(3)).unwrap();
        assert_eq!(back, p);
        let back = Partition::parse(&p.to_text(), path, c.len(), None).unwrap();
        assert_eq!(back, p);
        let e = Partition::parse(&p.to_text(), path, c.len(), Some(4))
            .unwrap_err()
            .to_string();
        assert!(e.contains("3 parts but 4"), "{e}");
        let e = Partition::parse(&p.to_text(), path, c.len() + 1, Some(3))
            .unwrap_err()
            .to_string();
        assert!(e.contains("part numbers for a cloud"), "{e}");
        let e = Partition::parse("0\nx\n", path, 2, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("p.part:2"), "{e}");
        let e = Partition::parse("0\n5\n", path, 2, Some(2))
            .unwrap_err()
            .to_string();
        assert!(e.contains("6 parts but 2"), "{e}");
    }
}
