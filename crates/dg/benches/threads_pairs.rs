//! Two threads against one in the same minutes: the threads criterion of
//! issue 14 (2 threads at least 1.85x one on 2 cores from 1e5 nodes) with
//! the serial and the threaded runs taken in alternating blocks of a few
//! milliseconds in one process, so that both see the same minutes of a
//! shared machine.
//!
//! Per row (equation, order), on about `--nodes` nodes: a serial solver
//! and one on `--threads` threads of the same case, each warmed up; then
//! `--pairs` pairs of blocks (each block about `--block` seconds of serial
//! steps, run inside the solver's pool as `qflow run` runs them), the
//! order within a pair alternating. Beside each pair, in the same minutes,
//! two measures of what the cores give `--threads` threads:
//!
//! - **serial copies**: as many serial solvers, each of a share of the
//!   grid (its rows, or planes in 3D, cut by the threads) and on a thread
//!   of its own that
//!   made it, running the same steps at once: the same kernels and about
//!   the same memory as the threaded solver, nothing shared between the
//!   threads; their nodes over the serial solver's, times the serial
//!   block's time over theirs;
//! - **ceiling**: fixed arithmetic in registers (8 independent chains of
//!   4 values, multiply then add, nothing beyond the thread's own stack)
//!   on one thread, then on each of `--threads` threads.
//!
//! While one thread is timed alone (the serial block, the ceiling's one
//! thread) the other CPUs spin in a pause loop (`--let-idle`: not), so
//! that no parallel block starts on a CPU that has been idle: on this
//! virtual machine two threads ran 1.0-1.7x one in the first 12-16 ms
//! after one CPU had worked alone for 50 ms or more (docs/performance.md
//! 13n).
//!
//! After each pair a round trip of a cache line between two threads
//! pinned to two CPUs tells where the host ran the virtual CPUs
//! ([`round_trip`]: on this machine two cores of one L3, or of two, in
//! spells of seconds), and the pairs are also counted by it.
//!
//! The row gives the PIDs (s per right-hand side per node, medians of the
//! blocks), the median and quartiles of the pairs' speed-ups, the share
//! of pairs at or above 1.85x, the pairs' count and median speed-up with
//! the CPUs on one L3 and on two, the medians of the two measures, and
//! whether the two solvers' states agree to the bit at the end (they
//! must: same steps, same arithmetic).
//!
//! Run: `cargo bench -p qflow-dg --bench threads_pairs -- --orders 2,4,6,8`
//! (`--dims 3` for 3D boxes)
//! (`cargo test --benches` runs it without `--bench`: one small row per
//! equation in 2D and 3D, a check that it runs and that the bits agree).

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Instant;

use clap::Parser;
use qflow_dg::{Settings, Solver};
use qflow_par::backend::BackendSpec;

mod common;

/// The threads criterion of issue 14.
const TARGET: f64 = 1.85;

/// The dats on huge pages, as the `qflow` binary has them
/// (`qflow_par::memory`): where a dat starts within a page is part of what
/// is timed.
#[global_allocator]
static ALLOCATOR: qflow_par::memory::HugePageAlloc = qflow_par::memory::HugePageAlloc;

#[derive(Parser)]
#[command(about = "2 threads over 1 in alternating blocks of one process")]
struct Args {
    /// Orders (nodes per direction).
    #[arg(long, default_value = "2,4,6,8")]
    orders: String,
    /// `advection` and/or `isothermal-euler`, comma-separated.
    #[arg(long, default_value = "advection,isothermal-euler")]
    equations: String,
    /// Dimensions of the box, 2 or 3.
    #[arg(long, default_value_t = 2)]
    dims: usize,
    /// About how many nodes (cells per side: the `dims`-th root of nodes,
    /// over the order).
    #[arg(long, default_value_t = 1e5)]
    nodes: f64,
    /// Threads of the threaded solver.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Pairs of blocks per row.
    #[arg(long, default_value_t = 40)]
    pairs: usize,
    /// Seconds of serial steps per block.
    #[arg(long, default_value_t = 0.02)]
    block: f64,
    /// Leave the other CPUs idle while one thread is timed alone (by
    /// default they spin, so that the next parallel block does not find
    /// them asleep).
    #[arg(long)]
    let_idle: bool,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
}

/// Seconds to run `steps` steps (inside the solver's pool, as `qflow run`
/// runs them).
fn block(solver: &mut Solver, steps: u64) -> Result<f64, String> {
    let t = Instant::now();
    solver.advance(steps).map_err(|e| e.to_string())?;
    Ok(t.elapsed().as_secs_f64())
}

/// One thread's share of the ceiling's arithmetic: `rounds` rounds of 8
/// independent chains of 4 values, each a multiply then an add, in
/// registers.
fn arithmetic(rounds: u64) -> f64 {
    let mut acc = [[1.0f64; 4]; 8];
    let m = black_box([0.999_999_9f64; 4]);
    let c = black_box([1e-7f64; 4]);
    for _ in 0..rounds {
        for a in acc.iter_mut() {
            for l in 0..4 {
                a[l] = a[l] * m[l] + c[l];
            }
        }
    }
    acc.iter().flatten().sum()
}

/// Seconds for `threads` threads each doing `rounds` rounds.
fn ceiling_block(threads: usize, rounds: u64) -> f64 {
    let t = Instant::now();
    if threads == 1 {
        black_box(arithmetic(rounds));
    } else {
        std::thread::scope(|s| {
            for _ in 1..threads {
                s.spawn(|| black_box(arithmetic(rounds)));
            }
            black_box(arithmetic(rounds));
        });
    }
    t.elapsed().as_secs_f64()
}

/// Nanoseconds for a cache line to go from one CPU to another and back:
/// two threads, pinned to the first two CPUs this process may use, take
/// turns to write a shared counter, `trips` round trips. It tells where
/// the host runs this virtual machine's CPUs: on the 2-vCPU AMD EPYC
/// machine of docs/performance.md 6.3 about 29 ns (two hardware threads
/// of one core), 65 ns (two cores sharing an L3) or 350 ns (cores of
/// different L3s), changing every few seconds. `None` with fewer than two
/// CPUs.
fn round_trip(trips: u64) -> Option<f64> {
    let cores = core_affinity::get_core_ids().filter(|c| c.len() > 1)?;
    let turn = CachePadded(AtomicU64::new(0));
    let pin = |k: usize| core_affinity::set_for_current(cores[k]);
    let t = std::thread::scope(|s| {
        s.spawn(|| {
            pin(1);
            for i in 0..trips {
                while turn.0.load(Ordering::Acquire) != 2 * i + 1 {
                    std::hint::spin_loop();
                }
                turn.0.store(2 * i + 2, Ordering::Release);
            }
        });
        s.spawn(|| {
            pin(0);
            // The first trip waits for the other thread to start; the
            // clock starts after it.
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
            clock.elapsed()
        })
        .join()
        .ok()
    })?;
    Some(t.as_secs_f64() * 1e9 / (trips - 1) as f64)
}

/// A value alone on its cache line (two lines: the adjacent-line
/// prefetcher fetches them in pairs).
#[repr(align(128))]
struct CachePadded<T>(T);

/// Round trips at or above this many nanoseconds: the two CPUs did not
/// share an L3 (on the machine of docs/performance.md 6.3).
const APART_NS: f64 = 150.0;

/// Threads that keep the other CPUs busy (a pause loop, nothing in
/// memory) while one thread is timed alone, so that every block starts
/// with its CPUs running: on this virtual machine two threads ran 1.0-1.7x
/// one in the first 12-16 ms after one CPU had worked alone for 50 ms or
/// more (docs/performance.md 6.3), which a block of 20 ms would count as
/// the threads' own cost. Parked when off.
struct KeepAwake {
    on: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    spinners: Vec<std::thread::JoinHandle<()>>,
}

impl KeepAwake {
    /// `n` spinners, off.
    fn new(n: usize) -> Self {
        let on = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let spinners = (0..n)
            .map(|_| {
                let (on, stop) = (on.clone(), stop.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Acquire) {
                        if on.load(Ordering::Acquire) {
                            std::hint::spin_loop();
                        } else {
                            std::thread::park();
                        }
                    }
                })
            })
            .collect();
        KeepAwake { on, stop, spinners }
    }

    /// Runs `f` with the spinners on (unless `enabled` is false).
    fn around<R>(&self, enabled: bool, f: impl FnOnce() -> R) -> R {
        if !enabled {
            return f();
        }
        self.on.store(true, Ordering::Release);
        for s in &self.spinners {
            s.thread().unpark();
        }
        let r = f();
        self.on.store(false, Ordering::Release);
        r
    }
}

impl Drop for KeepAwake {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        for s in self.spinners.drain(..) {
            s.thread().unpark();
            let _ = s.join();
        }
    }
}

/// The `q`-quantile of `v` (sorted in place), by the nearest rank.
fn quantile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// `pairs: median`, or `0` where there is none.
fn pairs_median(v: &mut [f64]) -> String {
    if v.is_empty() {
        "0".into()
    } else {
        format!("{}: {:.2}x", v.len(), quantile(v, 0.5))
    }
}

/// Runs `copies` serial solvers of `s` at once, each on a thread of its
/// own that made it (so its pages were first touched there), `steps`
/// steps per block on demand: what the cores give independent pieces of
/// the work, nothing shared. `body` gets a closure timing one block.
fn with_copies<R>(
    s: &Settings,
    copies: usize,
    body: impl FnOnce(&mut dyn FnMut(u64) -> f64) -> R,
) -> Result<R, String> {
    let go = Barrier::new(copies + 1);
    let done = Barrier::new(copies + 1);
    let steps = AtomicU64::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..copies)
            .map(|_| {
                scope.spawn(|| {
                    let mut solver = Solver::new(s, &BackendSpec::serial());
                    loop {
                        go.wait();
                        let n = steps.load(Ordering::Acquire);
                        if n == 0 {
                            break;
                        }
                        if let Ok(copy) = &mut solver {
                            // A failed step ends this copy's work; its
                            // error is returned at the end.
                            if let Err(e) = copy.advance(n) {
                                solver = Err(format!("a serial copy: {e}"));
                            }
                        }
                        done.wait();
                    }
                    solver.map(|_| ())
                })
            })
            .collect();
        // From before the start (the copies wait at `go`: this thread,
        // the last to come, releases them) to after the last is done: the
        // clock must not wait for this thread to get a core back from
        // the copies, which have them both.
        let mut time = |n: u64| {
            steps.store(n, Ordering::Release);
            let t = Instant::now();
            go.wait();
            done.wait();
            t.elapsed().as_secs_f64()
        };
        time(2);
        let r = body(&mut time);
        steps.store(0, Ordering::Release);
        go.wait();
        for w in workers {
            w.join()
                .map_err(|_| "a copy's thread panicked".to_string())??;
        }
        Ok(r)
    })
}

/// Times one row; its table line, and whether the threads' state equals
/// serial's to the bit.
fn row(equation: &str, order: usize, a: &Args) -> Result<(String, bool), String> {
    let s =
        common::case(equation, order, a.nodes, a.dims).map_err(|e| format!("--equations: {e}"))?;
    let mut serial = Solver::new(&s, &BackendSpec::serial())?;
    let mut threaded = Solver::new(&s, &BackendSpec::threads(a.threads))?;
    let per_cell = order.pow(a.dims as u32);
    let nodes = (s.cells.iter().product::<usize>() * per_cell) as f64;
    let stages = serial.method.stages() as f64;
    // Warm up both (first touch of the pages, the pool's threads), then
    // size the blocks from the serial steps' time.
    let warm = block(&mut serial, 10)? / 10.0;
    block(&mut threaded, 10)?;
    let steps = ((a.block / warm).round() as u64).max(2);
    let probe = Instant::now();
    arithmetic(1_000_000);
    let rounds = (1e6 * a.block / probe.elapsed().as_secs_f64()) as u64;
    let k = a.threads as f64;
    let (mut t1, mut tn, mut up, mut cup, mut twin) = (vec![], vec![], vec![], vec![], vec![]);
    // The pairs' speed-ups by where the CPUs were ([`round_trip`]).
    let (mut near, mut apart) = (vec![], vec![]);
    // Each copy a share of the grid (its rows, or planes in 3D, cut by the
    // threads), so that the copies together hold about what the threaded
    // solver holds.
    let mut share = s.clone();
    share.cells[a.dims - 1] = s.cells[a.dims - 1].div_ceil(a.threads);
    let share_nodes = (share.cells.iter().product::<usize>() * per_cell) as f64;
    // The copies' nodes over the serial solver's, per block.
    let work = k * share_nodes / nodes;
    with_copies(&share, a.threads, |copies| -> Result<(), String> {
        let awake = KeepAwake::new(a.threads - 1);
        let alone = !a.let_idle;
        for i in 0..a.pairs {
            let (x, y) = if i % 2 == 0 {
                let x = awake.around(alone, || block(&mut serial, steps))?;
                (x, block(&mut threaded, steps)?)
            } else {
                let y = block(&mut threaded, steps)?;
                (awake.around(alone, || block(&mut serial, steps))?, y)
            };
            twin.push(work * x / copies(steps));
            let c1 = awake.around(alone, || ceiling_block(1, rounds));
            let cn = ceiling_block(a.threads, rounds);
            t1.push(x);
            tn.push(y);
            up.push(x / y);
            cup.push(k * c1 / cn);
            // Where the host ran the two CPUs just after the pair.
            match round_trip(3_000) {
                Some(ns) if ns >= APART_NS => apart.push(x / y),
                Some(_) => near.push(x / y),
                None => {}
            }
        }
        Ok(())
    })??;
    let same = serial.state() == threaded.state();
    let per = steps as f64 * stages * nodes;
    let met = up.iter().filter(|&&u| u >= TARGET).count();
    let line = format!(
        "| {equation} | {order} | {}^{} | {nodes} | {steps} | {:.2e} | {:.2e} | {:.2}x | {:.2}-{:.2}x | {met}/{} | {} | {} | {:.2}x | {:.2}x | {} |",
        s.cells[0],
        a.dims,
        quantile(&mut t1, 0.5) / per,
        quantile(&mut tn, 0.5) / per,
        quantile(&mut up, 0.5),
        quantile(&mut up, 0.25),
        quantile(&mut up, 0.75),
        a.pairs,
        pairs_median(&mut near),
        pairs_median(&mut apart),
        quantile(&mut twin, 0.5),
        quantile(&mut cup, 0.5),
        if same { "yes" } else { "NO" },
    );
    Ok((line, same))
}

fn main() {
    let mut a = Args::parse();
    qflow_par::memory::keep_large_blocks();
    if !a.bench {
        // Run by `cargo test --benches` (no `--bench`): one small row per
        // equation in 2D and in 3D, as a check that the bench runs and the
        // bits agree.
        eprintln!("a check on small grids; `cargo bench` passes --bench for the measurement");
        (a.orders, a.nodes, a.pairs, a.block) = ("3".into(), 2e3, 2, 2e-3);
    }
    if a.threads < 2
        || !(2..=3).contains(&a.dims)
        || a.pairs == 0
        || !(a.block.is_finite() && a.block > 0.0)
        || !(a.nodes.is_finite() && a.nodes >= 4.0)
    {
        eprintln!("give --threads >= 2, --dims 2 or 3, --pairs >= 1, --block > 0 and --nodes >= 4");
        std::process::exit(2);
    }
    let mut orders = vec![];
    for o in a.orders.split(',') {
        match o.trim().parse::<usize>() {
            Ok(n) if (1..=8).contains(&n) => orders.push(n),
            _ => {
                eprintln!("--orders: \"{o}\" is not an order from 1 to 8");
                std::process::exit(2);
            }
        }
    }
    // The check runs both 2D and 3D; the measurement the dimensions asked.
    let all_dims = if a.bench { vec![a.dims] } else { vec![2, 3] };
    for dims in all_dims {
        a.dims = dims;
        table(&a, &orders);
    }
}

/// Prints the table of `a.dims` dimensions for `orders`; exits on an
/// error or on a threaded state that differs from serial's.
fn table(a: &Args, orders: &[usize]) {
    println!(
        "{}D DG, lserk54, {} threads over 1 in {} alternating pairs of blocks of about {} s, \
         the cores' arithmetic ceiling beside each pair; load average at the start: {}\n",
        a.dims,
        a.threads,
        a.pairs,
        a.block,
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    println!(
        "| equation | order | cells | nodes | steps per block | serial PID | {t} threads PID | \
         speed-up (median) | quartiles | pairs >= {TARGET}x | CPUs on one L3: pairs, median | \
         CPUs on two L3s: pairs, median | {t} serial copies (median) | \
         ceiling (median) | same bits |",
        t = a.threads
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for equation in a.equations.split(',') {
        for &n in orders {
            match row(equation.trim(), n, a) {
                Ok((line, true)) => println!("{line}"),
                Ok((line, false)) => {
                    println!("{line}");
                    eprintln!("{equation}, order {n}: the threads' state differs from serial's");
                    std::process::exit(1);
                }
                Err(e) => {
                    eprintln!("{equation}, order {n}: {e}");
                    std::process::exit(1);
                }
            }
        }
    }
}
