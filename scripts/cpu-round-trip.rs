//! Where the host runs this machine's first two CPUs, seen from inside:
//! nanoseconds for a cache line to go from CPU A to CPU B and back (two
//! threads pinned one to each, taking turns to write one counter). On the
//! 2-vCPU AMD EPYC virtual machine of docs/performance.md 6.3 it reads
//! about 29 ns (two hardware threads of one core), 65 ns (two cores of
//! one L3) or 350 ns (cores of different L3s), changing every few seconds;
//! `crates/dg/benches/threads_pairs.rs` runs the same probe after every
//! pair of blocks.
//!
//! Build: rustc -O --edition 2021 scripts/cpu-round-trip.rs -o cpu-round-trip
//! Run:   ./cpu-round-trip [REPEATS] [A B]   (default 3 repeats, CPUs 0 1)
//! Prints the repeats' medians, each of 3,000 round trips, in order.
//! Linux only; not part of qflow.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

extern "C" {
    fn sched_setaffinity(pid: i32, size: usize, mask: *const u64) -> i32;
}

/// Pins the calling thread to `cpu` (< 64); false if the kernel refused.
fn pin(cpu: u32) -> bool {
    let mask: u64 = 1 << cpu;
    // SAFETY: a mask of 8 bytes, pid 0 (the calling thread).
    unsafe { sched_setaffinity(0, 8, &mask) == 0 }
}

#[repr(align(128))]
struct Line(AtomicU64);

/// Nanoseconds per round trip between CPUs `a` and `b`.
fn round_trip(a: u32, b: u32, trips: u64) -> f64 {
    let turn = Line(AtomicU64::new(0));
    std::thread::scope(|s| {
        s.spawn(|| {
            assert!(pin(b), "cannot run on CPU {b}");
            for i in 0..trips {
                while turn.0.load(Ordering::Acquire) != 2 * i + 1 {
                    std::hint::spin_loop();
                }
                turn.0.store(2 * i + 2, Ordering::Release);
            }
        });
        s.spawn(|| {
            assert!(pin(a), "cannot run on CPU {a}");
            turn.0.store(1, Ordering::Release);
            while turn.0.load(Ordering::Acquire) != 2 {
                std::hint::spin_loop();
            }
            let clock = Instant::now();
            for i in 1..trips {
                turn.0.store(2 * i + 1, Ordering::Release);
                while turn.0.load(Ordering::Acquire) != 2 * i + 2 {
                    std::hint::spin_loop();
                }
            }
            clock.elapsed().as_secs_f64() * 1e9 / (trips - 1) as f64
        })
        .join()
        .expect("the timing thread")
    })
}

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: REPEATS [A B]"))
        .collect();
    let repeats = args.first().copied().unwrap_or(3).max(1);
    let (a, b) = (
        args.get(1).copied().unwrap_or(0),
        args.get(2).copied().unwrap_or(1),
    );
    let ns: Vec<String> = (0..repeats)
        .map(|_| format!("{:.0}", round_trip(a, b, 3_000)))
        .collect();
    println!("{}", ns.join(" "));
}
