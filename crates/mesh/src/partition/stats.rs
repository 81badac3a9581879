//! The quality of a partition: edge cut, ghosts, balance.

use super::{Partition, SymmetricGraph};
use crate::{Cloud, PointKind};

impl Partition {
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
