//! What each part (rank) holds: its points in local order, its ghosts and
//! the lists of points it sends.

use super::Partition;
use crate::Cloud;

impl Partition {
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
