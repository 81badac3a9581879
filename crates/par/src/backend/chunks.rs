//! How the threads backend cuts a loop's elements into chunks and runs
//! them, and copies a halo's elements on its threads.

use std::ops::Range;

use rayon::prelude::*;

use crate::decl::LoopDecl;
use crate::kernel::LoopArgs;

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
/// together) to element `to[i]`, as reading every source and then writing
/// every target would (later pairs win where targets repeat). When every
/// target lies past every source (a halo after the owned elements) the
/// targets split off as chunks of their own and are written in place, on
/// `pool`'s threads when it is given (no unsafe); otherwise through a
/// buffer.
pub(super) fn copy_elements(
    v: &mut [f64],
    dim: usize,
    from: &[u32],
    to: &[u32],
    pool: Option<&rayon::ThreadPool>,
) {
    assert_eq!(from.len(), to.len(), "as many sources as targets");
    let (Some(&lo), Some(&hi)) = (to.iter().min(), from.iter().max()) else {
        return;
    };
    let (lo, hi) = (lo as usize, hi as usize);
    if lo <= hi {
        // A target may be a source: all read first.
        let buf: Vec<f64> = from
            .iter()
            .flat_map(|&f| &v[f as usize * dim..(f as usize + 1) * dim])
            .copied()
            .collect();
        for (k, &t) in to.iter().enumerate() {
            let t = t as usize;
            v[t * dim..(t + 1) * dim].copy_from_slice(&buf[k * dim..(k + 1) * dim]);
        }
        return;
    }
    let top = to.iter().max().map_or(lo, |&t| t as usize);
    // Source of each target in `lo..=top` (u32::MAX: none).
    let mut source = vec![u32::MAX; top - lo + 1];
    for (&f, &t) in from.iter().zip(to) {
        source[t as usize - lo] = f;
    }
    let (own, halo) = v.split_at_mut(lo * dim);
    let own = &*own;
    let halo = &mut halo[..(top - lo + 1) * dim];
    let copy = |(t, &f): (&mut [f64], &u32)| {
        if f != u32::MAX {
            let f = f as usize;
            t.copy_from_slice(&own[f * dim..(f + 1) * dim]);
        }
    };
    match pool {
        Some(pool) => pool.install(|| {
            halo.par_chunks_mut(dim)
                .zip(source.par_iter())
                .with_min_len((2048 / dim.max(1)).max(1))
                .for_each(copy)
        }),
        None => halo.chunks_mut(dim).zip(source.iter()).for_each(copy),
    }
}

/// Runs `spans` of loop `l` on `pool`, in chunks of about the same number
/// of elements: chunk `k` takes elements `k c .. (k + 1) c` of the spans
/// laid end to end, however many spans that covers (a plan's colour may
/// be many short runs).
pub(super) fn run_chunks(
    l: &LoopDecl,
    args: &LoopArgs<'_>,
    spans: &[Range<usize>],
    pool: &rayon::ThreadPool,
) {
    let total: usize = spans.iter().map(|s| s.len()).sum();
    let c = chunk_len(total, pool.current_num_threads());
    let run_chunk = |k: usize| {
        let (from, to) = (k * c, ((k + 1) * c).min(total));
        let mut at = 0;
        for s in spans {
            let (a, e) = (at.max(from), (at + s.len()).min(to));
            if a < e {
                let r = s.start + (a - at)..s.start + (e - at);
                (l.cpu)(args, std::slice::from_ref(&r));
            }
            at += s.len();
            if at >= to {
                break;
            }
        }
    };
    pool.install(|| (0..total.div_ceil(c)).into_par_iter().for_each(run_chunk));
}

/// Runs `spans` of loop `l` on `pool`, each span whole on one thread
/// (a two-level plan's blocks), several short spans to a task.
pub(super) fn run_whole(
    l: &LoopDecl,
    args: &LoopArgs<'_>,
    spans: &[Range<usize>],
    pool: &rayon::ThreadPool,
) {
    let total: usize = spans.iter().map(|s| s.len()).sum();
    let c = chunk_len(total, pool.current_num_threads());
    let per_task = (c / spans.first().map_or(1, |s| s.len()).max(1)).max(1);
    pool.install(|| {
        spans
            .par_chunks(per_task)
            .for_each(|group| (l.cpu)(args, group))
    });
}

/// Runs the lines `spans` of line loop `l` on `pool`: each line whole on
/// one thread, about 8 tasks of consecutive lines per thread.
pub(super) fn run_lines(
    l: &LoopDecl,
    args: &LoopArgs<'_>,
    spans: &[Range<usize>],
    pool: &rayon::ThreadPool,
) {
    let per_task = spans.len().div_ceil(pool.current_num_threads() * 8);
    pool.install(|| {
        spans
            .par_chunks(per_task.max(1))
            .for_each(|g| (l.cpu)(args, g))
    });
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

    /// Copies, on threads or not, give what reading every source and then
    /// writing every target gives, a halo after the owned elements or not.
    #[test]
    fn element_copies_read_all_then_write() {
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
            (vec![1, 2], vec![2, 3]),
            (vec![], vec![]),
        ] {
            let mut want = start.clone();
            for (&f, &t) in from.iter().zip(&to) {
                let (f, t) = (f as usize, t as usize);
                want[t * dim..(t + 1) * dim].copy_from_slice(&start[f * dim..(f + 1) * dim]);
            }
            for pool in [None, Some(&pool)] {
                let mut got = start.clone();
                super::copy_elements(&mut got, dim, &from, &to, pool);
                assert_eq!(got, want, "{from:?} -> {to:?}");
            }
        }
    }
}
