//! How the threads backend cuts a loop's elements into chunks, and copies
//! a halo's elements on its threads.

/// Chunk length for `n` elements on `threads` threads: enough chunks per
/// thread for work stealing to balance uneven elements, not so many that
/// scheduling shows; as many chunks for each thread, of about one length
/// (216 equal DG cells in chunks of 64 left 2 threads 128 and 88).
pub(super) fn chunk_len(n: usize, threads: usize) -> usize {
    let c = (n / (threads * 32)).clamp(64, 4096);
    let per_thread = n.div_ceil(threads * c).max(1);
    n.div_ceil(threads * per_thread).max(1)
}

/// Copies element `from[i]` of `v` (`dim` values per element, stored
/// together) to element `to[i]`, on `pool`'s threads when it is given and
/// every target lies past every source (a halo after the owned elements:
/// the targets then split off as chunks of their own, no unsafe); else in
/// order on this thread. Later pairs win where targets repeat, as in order.
pub(super) fn copy_elements(
    v: &mut [f64],
    dim: usize,
    from: &[u32],
    to: &[u32],
    pool: Option<&rayon::ThreadPool>,
) {
    use rayon::prelude::*;
    assert_eq!(from.len(), to.len(), "as many sources as targets");
    let (Some(&lo), Some(&hi)) = (to.iter().min(), from.iter().max()) else {
        return;
    };
    let (lo, hi) = (lo as usize, hi as usize);
    match pool {
        Some(pool) if lo > hi => {
            let top = to.iter().max().map_or(lo, |&t| t as usize);
            // Source of each target in `lo..=top` (u32::MAX: none).
            let mut source = vec![u32::MAX; top - lo + 1];
            for (&f, &t) in from.iter().zip(to) {
                source[t as usize - lo] = f;
            }
            let (own, halo) = v.split_at_mut(lo * dim);
            let own = &*own;
            let halo = &mut halo[..(top - lo + 1) * dim];
            let min_len = (2048 / dim.max(1)).max(1);
            pool.install(|| {
                halo.par_chunks_mut(dim)
                    .zip(source.par_iter())
                    .with_min_len(min_len)
                    .filter(|(_, &f)| f != u32::MAX)
                    .for_each(|(t, &f)| {
                        let f = f as usize;
                        t.copy_from_slice(&own[f * dim..(f + 1) * dim]);
                    });
            });
        }
        _ => {
            for (&f, &t) in from.iter().zip(to) {
                let (f, t) = (f as usize, t as usize);
                v.copy_within(f * dim..(f + 1) * dim, t * dim);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// Chunks dealt in turn to the threads give them shares within 1/32
    /// of the elements of each other (old lengths: 216 cells on 2 threads
    /// were 128 and 88).
    #[test]
    fn chunks_share_elements_evenly() {
        for (n, t) in [
            (216, 2),
            (729, 2),
            (1600, 2),
            (6241, 2),
            (1000, 3),
            (1 << 20, 2),
        ] {
            let c = super::chunk_len(n, t);
            let mut share = vec![0; t];
            for k in 0..n.div_ceil(c) {
                share[k % t] += c.min(n - k * c);
            }
            let spread = share.iter().max().unwrap() - share.iter().min().unwrap();
            assert!(
                spread * 32 <= n,
                "{n} on {t}: chunks of {c}, shares {share:?}"
            );
        }
    }

    /// Copies on threads give what copies in order give, a halo after the
    /// owned elements or not.
    #[test]
    fn element_copies_on_threads_match_copies_in_order() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let dim = 3;
        let start: Vec<f64> = (0..40 * dim).map(|k| k as f64).collect();
        for (from, to) in [
            (vec![0u32, 5, 7, 2], vec![30u32, 31, 39, 33]),
            (vec![1, 2, 3], vec![35, 35, 20]),
            (vec![10, 2], vec![1, 20]),
            (vec![], vec![]),
        ] {
            let (mut a, mut b) = (start.clone(), start.clone());
            super::copy_elements(&mut a, dim, &from, &to, None);
            super::copy_elements(&mut b, dim, &from, &to, Some(&pool));
            assert_eq!(a, b);
            for (&f, &t) in from.iter().zip(&to) {
                if to.iter().rposition(|&x| x == t) == from.iter().position(|&x| x == f) {
                    let (f, t) = (f as usize, t as usize);
                    assert_eq!(a[t * dim..(t + 1) * dim], start[f * dim..(f + 1) * dim]);
                }
            }
        }
    }
}
