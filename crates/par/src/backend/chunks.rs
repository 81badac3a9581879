//! How the threads backend cuts a loop's elements into chunks.

/// Chunk length for `n` elements on `threads` threads: enough chunks per
/// thread for work stealing to balance uneven elements, not so many that
/// scheduling shows; as many chunks for each thread, of about one length
/// (216 equal DG cells in chunks of 64 left 2 threads 128 and 88).
pub(super) fn chunk_len(n: usize, threads: usize) -> usize {
    let c = (n / (threads * 32)).clamp(64, 4096);
    let per_thread = n.div_ceil(threads * c).max(1);
    n.div_ceil(threads * per_thread).max(1)
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
}
