//! Atomic increments of single values, for loops whose plan runs elements
//! that share a target at once.

use std::sync::atomic::Ordering;

/// `*target += v` as one atomic compare-and-swap loop on the value's bits.
///
/// # Safety
///
/// As [`Elem::add_atomic`].
#[inline(always)]
pub(super) unsafe fn add_f64_atomic(target: *mut f64, v: f64) {
    use std::sync::atomic::AtomicU64;
    // SAFETY: an f64 and an AtomicU64 have the same size and, on the
    // 64-bit targets qflow builds for, the same alignment; all concurrent
    // accesses are atomic (the caller's contract).
    let a = unsafe { AtomicU64::from_ptr(target as *mut u64) };
    let mut old = a.load(Ordering::Relaxed);
    loop {
        let new = (f64::from_bits(old) + v).to_bits();
        match a.compare_exchange_weak(old, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(seen) => old = seen,
        }
    }
}

/// `*target += v` atomically.
///
/// # Safety
///
/// As [`Elem::add_atomic`].
#[inline(always)]
pub(super) unsafe fn add_i32_atomic(target: *mut i32, v: i32) {
    // SAFETY: the caller's contract.
    unsafe { std::sync::atomic::AtomicI32::from_ptr(target) }.fetch_add(v, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use crate::kernel::Elem;

    /// Four threads adding to one target at once lose no increment
    /// (whole numbers: every order gives the same exact sum).
    #[test]
    fn atomic_increments_lose_nothing_under_contention() {
        let mut f = [0.0f64; 2];
        let mut i = [0i32; 3];
        let (fp, ip) = (f.as_mut_ptr() as usize, i.as_mut_ptr() as usize);
        std::thread::scope(|s| {
            for t in 0..4 {
                s.spawn(move || {
                    for _ in 0..20_000 {
                        // SAFETY: the targets outlive the scope and every
                        // access to them here is atomic.
                        unsafe {
                            [1.0, t as f64].add_atomic(fp as *mut [f64; 2]);
                            [1, 2, t].add_atomic(ip as *mut [i32; 3]);
                        }
                    }
                });
            }
        });
        assert_eq!(f, [80_000.0, 120_000.0]);
        assert_eq!(i, [80_000, 160_000, 120_000]);
    }
}
