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
//! lists of points to send to each neighbour. It is plain graph work:
//! turning it into local geometry and messages is the distributed layer's
//! job.

mod graph;
mod layout;
mod stats;
#[cfg(test)]
mod tests;

use std::path::Path;

use crate::{Cloud, CloudError};

pub use graph::SymmetricGraph;
pub use layout::{PartLayout, RecvBlock, SendList};
pub use stats::{PartStats, PartitionStats};

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
        Ok(crate::fsutil::write_atomically(path, |w| {
            std::io::Write::write_all(w, text.as_bytes())
        })?)
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
