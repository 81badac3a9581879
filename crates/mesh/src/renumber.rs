//! Renumbering of points: permutations `new_of_old` for [`crate::Cloud::permuted`].

use rand::seq::SliceRandom;

use crate::Cloud;
use rand::SeedableRng;

/// A way to renumber a cloud's points for locality.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Renumbering {
    /// Keep the cloud's numbering.
    None,
    /// Reverse Cuthill-McKee on the stencil graph.
    Rcm,
    /// Along a Hilbert curve through the coordinates.
    Hilbert,
    /// A random numbering (for tests of numbering independence).
    Random(u64),
}

impl std::str::FromStr for Renumbering {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(Self::None),
            "rcm" => Ok(Self::Rcm),
            "hilbert" => Ok(Self::Hilbert),
            "random" => Ok(Self::Random(0)),
            o => Err(format!(
                "unknown renumbering '{o}' (none, rcm, hilbert, random)"
            )),
        }
    }
}

impl Renumbering {
    /// The permutation `new_of_old` for `cloud`.
    pub fn permutation(self, cloud: &Cloud) -> Vec<u32> {
        match self {
            Self::None => identity(cloud.len()),
            Self::Rcm => reverse_cuthill_mckee(cloud),
            Self::Hilbert => hilbert(cloud),
            Self::Random(seed) => random(cloud.len(), seed),
        }
    }
}

/// The identity numbering of `n` points.
pub fn identity(n: usize) -> Vec<u32> {
    (0..n as u32).collect()
}

/// A random numbering of `n` points, reproducible from `seed`. Used to show
/// that the solution does not depend on the numbering.
pub fn random(n: usize, seed: u64) -> Vec<u32> {
    let mut p = identity(n);
    p.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed));
    p
}

/// The inverse of a permutation: `old_of_new` from `new_of_old`.
pub fn inverse(new_of_old: &[u32]) -> Vec<u32> {
    let mut inv = vec![0u32; new_of_old.len()];
    for (old, &new) in new_of_old.iter().enumerate() {
        inv[new as usize] = old as u32;
    }
    inv
}

/// Mean distance in index between a point and its neighbours: a measure of
/// how far apart in memory the data of one stencil lies (lower is better).
pub fn mean_neighbour_gap(cloud: &Cloud) -> f64 {
    if cloud.nbr.is_empty() {
        return 0.0;
    }
    let mut sum = 0.0f64;
    for i in 0..cloud.len() {
        for &k in cloud.neighbours(i) {
            sum += (k as f64 - i as f64).abs();
        }
    }
    sum / cloud.nbr.len() as f64
}

/// Reverse Cuthill-McKee numbering of the stencil graph (made symmetric):
/// breadth-first from a pseudo-peripheral point, neighbours visited in order
/// of increasing degree, the whole order reversed. Connected components are
/// numbered one after another. Deterministic.
pub fn reverse_cuthill_mckee(cloud: &Cloud) -> Vec<u32> {
    let n = cloud.len();
    // Symmetric adjacency, rows sorted, no repeats.
    let graph = crate::partition::SymmetricGraph::of(cloud);
    let (start, adj) = (&graph.start, &graph.adj);
    let deg_unique: Vec<u32> = (0..n).map(|i| (start[i + 1] - start[i]) as u32).collect();
    let row = |i: usize| &adj[start[i]..start[i + 1]];

    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    let mut level = vec![0u32; n];
    // Points by degree, to pick each component's start.
    let mut by_degree: Vec<u32> = (0..n as u32).collect();
    by_degree.sort_by_key(|&i| (deg_unique[i as usize], i));
    let bfs = |root: usize, visited: &mut Vec<bool>, level: &mut Vec<u32>, out: &mut Vec<u32>| {
        let first = out.len();
        visited[root] = true;
        level[root] = 0;
        out.push(root as u32);
        let mut head = first;
        let mut nb: Vec<u32> = Vec::new();
        while head < out.len() {
            let p = out[head] as usize;
            head += 1;
            nb.clear();
            nb.extend(row(p).iter().copied().filter(|&k| !visited[k as usize]));
            nb.sort_by_key(|&k| (deg_unique[k as usize], k));
            for &k in &nb {
                visited[k as usize] = true;
                level[k as usize] = level[p] + 1;
                out.push(k);
            }
        }
    };
    for &seed in &by_degree {
        let seed = seed as usize;
        if visited[seed] {
            continue;
        }
        // Pseudo-peripheral start: repeat BFS from the farthest point of
        // least degree while the eccentricity grows (a few rounds).
        let mut root = seed;
        let mut ecc = 0;
        for _ in 0..8 {
            let mut scratch_visited = visited.clone();
            let mut comp = Vec::new();
            bfs(root, &mut scratch_visited, &mut level, &mut comp);
            let far = comp.iter().map(|&k| level[k as usize]).max().unwrap_or(0);
            if far <= ecc {
                break;
            }
            ecc = far;
            root = comp
                .iter()
                .copied()
                .filter(|&k| level[k as usize] == far)
                .min_by_key(|&k| (deg_unique[k as usize], k))
                .unwrap_or(root as u32) as usize;
        }
        bfs(root, &mut visited, &mut level, &mut order);
    }
    order.reverse();
    // order[new] = old  ->  new_of_old
    inverse(&order)
}

/// A numbering along a Hilbert space-filling curve through the points'
/// coordinates (order 16 per axis over the cloud's bounding box).
pub fn hilbert(cloud: &Cloud) -> Vec<u32> {
    let n = cloud.len();
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for i in 0..n {
        x0 = x0.min(cloud.x[i]);
        x1 = x1.max(cloud.x[i]);
        y0 = y0.min(cloud.y[i]);
        y1 = y1.max(cloud.y[i]);
    }
    let side = (x1 - x0).max(y1 - y0).max(f64::MIN_POSITIVE);
    let cells = (1u32 << 16) as f64;
    let key = |i: usize| {
        let q =
            |v: f64, lo: f64| (((v - lo) / side * (cells - 1.0)).round() as u32).min((1 << 16) - 1);
        hilbert_index(q(cloud.x[i], x0), q(cloud.y[i], y0))
    };
    let mut order: Vec<(u64, u32)> = (0..n).map(|i| (key(i), i as u32)).collect();
    order.sort_unstable();
    let old_of_new: Vec<u32> = order.into_iter().map(|(_, i)| i).collect();
    inverse(&old_of_new)
}

/// Position of cell `(x, y)` (16 bits each) along the Hilbert curve.
fn hilbert_index(mut x: u32, mut y: u32) -> u64 {
    let mut d = 0u64;
    let mut s = 1u32 << 15;
    while s > 0 {
        let rx = u32::from(x & s > 0);
        let ry = u32::from(y & s > 0);
        d += (s as u64) * (s as u64) * ((3 * rx) ^ ry) as u64;
        // rotate the quadrant
        if ry == 0 {
            if rx == 1 {
                x = (s << 1) - 1 - x;
                y = (s << 1) - 1 - y;
            }
            std::mem::swap(&mut x, &mut y);
        }
        s >>= 1;
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_permutation(p: &[u32]) -> bool {
        let mut s = p.to_vec();
        s.sort_unstable();
        s == identity(p.len())
    }

    fn shuffled_naca() -> Cloud {
        let c = crate::generate::NacaOGrid {
            section: "naca0012".parse().unwrap(),
            wall_points: 64,
            rings: 24,
            far_field: 10.0,
            stretching: None,
        }
        .generate()
        .unwrap();
        c.permuted(&random(c.len(), 3))
    }

    #[test]
    fn rcm_and_hilbert_are_permutations_that_restore_locality() {
        let c = shuffled_naca();
        let before = mean_neighbour_gap(&c);
        for (name, p) in [("rcm", reverse_cuthill_mckee(&c)), ("hilbert", hilbert(&c))] {
            assert!(is_permutation(&p), "{name}");
            let r = c.permuted(&p);
            r.validate_structure().unwrap();
            let after = mean_neighbour_gap(&r);
            assert!(after < before / 10.0, "{name}: gap {before} -> {after}");
        }
        // RCM is deterministic
        assert_eq!(reverse_cuthill_mckee(&c), reverse_cuthill_mckee(&c));
    }

    #[test]
    fn hilbert_curve_visits_neighbouring_cells_in_turn() {
        // consecutive indices on the order-2 curve are adjacent cells
        let mut cells: Vec<(u64, (u32, u32))> = (0..4u32)
            .flat_map(|x| (0..4u32).map(move |y| (x, y)))
            .map(|(x, y)| (hilbert_index(x << 14, y << 14), (x, y)))
            .collect();
        cells.sort();
        for w in cells.windows(2) {
            let ((_, a), (_, b)) = (w[0], w[1]);
            assert_eq!(a.0.abs_diff(b.0) + a.1.abs_diff(b.1), 1, "{a:?} -> {b:?}");
        }
    }

    #[test]
    fn random_is_a_reproducible_permutation() {
        let p = random(1000, 7);
        assert_eq!(p, random(1000, 7));
        assert_ne!(p, identity(1000));
        let mut s = p.clone();
        s.sort_unstable();
        assert_eq!(s, identity(1000));
        let inv = inverse(&p);
        for (old, &new) in p.iter().enumerate() {
            assert_eq!(inv[new as usize] as usize, old);
        }
    }
}
