//! Renumbering of points: permutations `new_of_old` for [`crate::Cloud::permuted`].

use rand::seq::SliceRandom;
use rand::SeedableRng;

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

#[cfg(test)]
mod tests {
    use super::*;

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
