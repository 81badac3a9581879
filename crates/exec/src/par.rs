//! Parallelism as an explicit argument: run a kernel over chunks of points,
//! sequentially or on a rayon pool.
//!
//! Each helper cuts the points `0..n` into contiguous chunks and gives every
//! chunk its own disjoint part of each output slice. Kernels compute each
//! point independently of the chunking, so the result is the same bits for
//! any thread count.

use std::sync::Arc;

use rayon::prelude::*;

/// How to run the chunks of a kernel.
#[derive(Clone, Debug)]
pub enum Par {
    /// One chunk, on the calling thread.
    Seq,
    /// Chunks on a rayon thread pool.
    Rayon(Arc<rayon::ThreadPool>),
}

impl Par {
    /// A pool of `threads` threads (0: one per available core).
    pub fn rayon(threads: usize) -> Result<Self, rayon::ThreadPoolBuildError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("qflow-worker-{i}"))
            .build()?;
        Ok(Par::Rayon(Arc::new(pool)))
    }

    /// Number of threads the kernels run on.
    pub fn threads(&self) -> usize {
        match self {
            Par::Seq => 1,
            Par::Rayon(p) => p.current_num_threads(),
        }
    }

    /// Chunk length for `n` points: enough chunks per thread for the work
    /// stealing to balance uneven points (boundary points cost more), not so
    /// many that scheduling shows.
    fn chunk(&self, n: usize) -> usize {
        (n / (self.threads() * 32)).clamp(64, 4096).max(1)
    }

    /// Runs `f(first, a)` over chunks of one output slice.
    pub fn for1<A: Send>(&self, a: &mut [A], f: impl Fn(usize, &mut [A]) + Sync + Send) {
        match self {
            Par::Seq => f(0, a),
            Par::Rayon(pool) => {
                let c = self.chunk(a.len());
                pool.install(|| {
                    a.par_chunks_mut(c)
                        .enumerate()
                        .for_each(|(k, a)| f(k * c, a));
                })
            }
        }
    }

    /// Runs `f(first, a, b)` over chunks of two output slices of equal length.
    pub fn for2<A: Send, B: Send>(
        &self,
        a: &mut [A],
        b: &mut [B],
        f: impl Fn(usize, &mut [A], &mut [B]) + Sync + Send,
    ) {
        assert_eq!(a.len(), b.len());
        match self {
            Par::Seq => f(0, a, b),
            Par::Rayon(pool) => {
                let c = self.chunk(a.len());
                pool.install(|| {
                    a.par_chunks_mut(c)
                        .zip(b.par_chunks_mut(c))
                        .enumerate()
                        .for_each(|(k, (a, b))| f(k * c, a, b));
                })
            }
        }
    }

    /// Runs `f(first, a, b, c, d)` over chunks of four output slices of equal
    /// length.
    pub fn for4<A: Send, B: Send, C: Send, D: Send>(
        &self,
        a: &mut [A],
        b: &mut [B],
        c: &mut [C],
        d: &mut [D],
        f: impl Fn(usize, &mut [A], &mut [B], &mut [C], &mut [D]) + Sync + Send,
    ) {
        assert!(a.len() == b.len() && b.len() == c.len() && c.len() == d.len());
        match self {
            Par::Seq => f(0, a, b, c, d),
            Par::Rayon(pool) => {
                let n = self.chunk(a.len());
                pool.install(|| {
                    a.par_chunks_mut(n)
                        .zip(b.par_chunks_mut(n))
                        .zip(c.par_chunks_mut(n).zip(d.par_chunks_mut(n)))
                        .enumerate()
                        .for_each(|(k, ((a, b), (c, d)))| f(k * n, a, b, c, d));
                })
            }
        }
    }

    /// Runs `f(first, a, b, c)` over chunks of one output slice `a` and two
    /// input slices `b`, `c` of the same length, and merges the chunks'
    /// results with `merge` (which must not depend on the order of merging
    /// for the result to be the same for any thread count).
    pub fn map_reduce<A: Send, B: Sync, C: Sync, R: Send + Default>(
        &self,
        a: &mut [A],
        b: &[B],
        c: &[C],
        f: impl Fn(usize, &mut [A], &[B], &[C]) -> R + Sync + Send,
        merge: impl Fn(R, R) -> R + Sync + Send,
    ) -> R {
        assert!(a.len() == b.len() && b.len() == c.len());
        match self {
            Par::Seq => f(0, a, b, c),
            Par::Rayon(pool) => {
                let n = self.chunk(a.len());
                pool.install(|| {
                    a.par_chunks_mut(n)
                        .zip(b.par_chunks(n).zip(c.par_chunks(n)))
                        .enumerate()
                        .map(|(k, (a, (b, c)))| f(k * n, a, b, c))
                        .reduce(R::default, &merge)
                })
            }
        }
    }
}
