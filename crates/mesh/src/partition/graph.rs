//! The symmetric stencil graph that METIS partitions.

use crate::Cloud;

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
