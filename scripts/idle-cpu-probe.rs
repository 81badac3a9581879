//! Two threads after an idle CPU (docs/performance.md 6.3, "An idle CPU
//! comes back late"): per round, a sleep of GAP ms, then register
//! arithmetic on one thread (~12 ms) and on two, then AVX2 multiply-adds
//! over an L1-resident 12 KB array on one thread (~16 ms) and on two;
//! prints 2 x (one thread's time) / (two threads' time) for each, 16
//! rounds. PIN=1 pins thread i to CPU i. Not part of qflow (x86-64 with
//! AVX2 and FMA).
//!
//! Build: rustc -O scripts/idle-cpu-probe.rs -o idle-cpu-probe
//! Run:   ./idle-cpu-probe GAP_MS
use std::hint::black_box;
use std::time::Instant;

// Latency-bound: 8 chains of 2-wide (SSE2) mul then add.
fn latency(rounds: u64) -> f64 {
    let mut acc = [[1.0f64; 4]; 8];
    let m = black_box([0.999_999_9f64; 4]);
    let c = black_box([1e-7f64; 4]);
    for _ in 0..rounds {
        for a in acc.iter_mut() {
            for l in 0..4 { a[l] = a[l] * m[l] + c[l]; }
        }
    }
    acc.iter().flatten().sum()
}

// Throughput-bound: AVX2+FMA dot products over an L1-resident array, 12 accumulators.
#[target_feature(enable = "avx2,fma")]
unsafe fn dense_avx(rounds: u64, a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 48];
    for _ in 0..rounds {
        for (x, y) in a.chunks_exact(48).zip(b.chunks_exact(48)) {
            for l in 0..48 { acc[l] = x[l].mul_add(y[l], acc[l]); }
        }
    }
    acc.iter().sum()
}
fn dense(rounds: u64, a: &[f64], b: &[f64]) -> f64 { unsafe { dense_avx(rounds, a, b) } }

extern "C" { fn sched_setaffinity(pid: i32, size: usize, mask: *const u64) -> i32; }
fn pin(cpu: usize) { if std::env::var("PIN").is_ok() { let m: u64 = 1 << cpu; unsafe { sched_setaffinity(0, 8, &m); } } }
fn time(threads: usize, f: &(dyn Fn() -> f64 + Sync)) -> f64 {
    pin(0);
    let t = Instant::now();
    std::thread::scope(|s| {
        for k in 1..threads { s.spawn(move || { pin(k); black_box(f()) }); }
        black_box(f());
    });
    t.elapsed().as_secs_f64()
}

fn main() {
    let a: Vec<f64> = (0..1536).map(|i| 1.0 + i as f64 * 1e-6).collect(); // 12 KB
    let b = a.clone();
    let lat = || latency(3_000_000);
    let den = || dense(100_000, &a, &b);
    let t = time(1, &lat); let u = time(1, &den);
    eprintln!("one thread: latency {:.1} ms, dense {:.1} ms", t * 1e3, u * 1e3);
    let gap: u64 = std::env::args().nth(1).map_or(0, |g| g.parse().unwrap());
    for r in 0..16 {
        std::thread::sleep(std::time::Duration::from_millis(gap));
        let l1 = time(1, &lat); let l2 = time(2, &lat);
        let d1 = time(1, &den); let d2 = time(2, &den);
        println!("round {r}: latency-bound {:.2}x  throughput-bound {:.2}x", 2.0 * l1 / l2, 2.0 * d1 / d2);
    }
}
