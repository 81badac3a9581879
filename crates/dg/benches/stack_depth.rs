//! A serial solver's speed against the depth of the stack it runs on:
//! the same steps run on a fresh thread at each of `--depths` stack
//! depths, so that the stack pointer at which the loops' runners are
//! called visits every 16-byte offset of a 4 KiB page (256 depths, in
//! some order: see [`deeper`]). The PID (s per right-hand side per node)
//! should not depend on it: the runners realign their frames to a cache
//! line (`qflow_par::kernel::align_frame`), so that the vector registers
//! a kernel spills sit on aligned slots wherever the stack is. Without
//! that, 2D isothermal Euler of 4 nodes gave quartiles of 5.8-6.3e-9 and
//! 6.0-6.9e-9 s over the depths, with it 5.7-6.0e-9 and 5.69-5.79e-9
//! (docs/performance.md 8).
//!
//! Prints the quartiles of the depths' PIDs (each the best of `--blocks`
//! blocks of `--steps` steps, the median over `--rounds` rounds), and
//! with `--table` each depth's offset in the page and PID.
//!
//! Run: `cargo bench -p qflow-dg --bench stack_depth -- --equation
//! isothermal-euler --order 4` (`cargo test --benches` runs a small check
//! without `--bench`).

use std::hint::black_box;
use std::time::Instant;

use clap::Parser;
use qflow_dg::Solver;
use qflow_par::backend::BackendSpec;

mod common;

/// The dats on huge pages, as the `qflow` binary has them
/// (`qflow_par::memory`): where a dat starts within a page is part of what
/// is timed.
#[global_allocator]
static ALLOCATOR: qflow_par::memory::HugePageAlloc = qflow_par::memory::HugePageAlloc;

#[derive(Parser)]
#[command(about = "serial PID against the depth of the thread's stack")]
struct Args {
    /// `advection` or `isothermal-euler`.
    #[arg(long, default_value = "isothermal-euler")]
    equation: String,
    /// Order (nodes per direction), 1 to 8.
    #[arg(long, default_value_t = 4)]
    order: usize,
    /// About how many nodes (2D: cells = sqrt(nodes) / order per side).
    #[arg(long, default_value_t = 1e5)]
    nodes: f64,
    /// Stack depths (one frame of [`deeper`] apart), at most 4096.
    #[arg(long, default_value_t = 256)]
    depths: usize,
    /// Rounds over all depths.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Blocks per depth and round (the best counts).
    #[arg(long, default_value_t = 3)]
    blocks: usize,
    /// Steps per block.
    #[arg(long, default_value_t = 4)]
    steps: u64,
    /// Print each depth.
    #[arg(long)]
    table: bool,
    /// Passed by `cargo bench`: the full measurement.
    #[arg(long)]
    bench: bool,
}

/// Calls `f` `k` frames deeper. Each frame holds a 48-byte array (240
/// bytes a frame in this build; the run prints it): with frames of 16
/// times an odd number of bytes, 256 depths put `f`'s frame on each of a
/// page's 256 offsets 16 bytes apart once (the run counts them).
#[inline(never)]
fn deeper(k: usize, f: &mut dyn FnMut()) {
    let room = [0u8; 48];
    black_box(&room);
    if k == 0 {
        f()
    } else {
        deeper(k - 1, f)
    }
}

/// The address of a local of the caller's frame.
#[inline(never)]
fn here() -> usize {
    let x = 0u8;
    black_box(&x) as *const u8 as usize
}

fn quantile(v: &[f64], q: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn main() {
    let mut a = Args::parse();
    qflow_par::memory::keep_large_blocks();
    if !a.bench {
        eprintln!("a check on a small grid; `cargo bench` passes --bench for the measurement");
        (a.nodes, a.depths, a.rounds, a.blocks, a.steps) = (2e3, 4, 1, 1, 1);
    }
    if !(1..=8).contains(&a.order)
        || !(1..=4096).contains(&a.depths)
        || a.rounds == 0
        || a.blocks == 0
        || a.steps == 0
    {
        eprintln!("give --order 1 to 8, --depths 1 to 4096 and --rounds, --blocks, --steps >= 1");
        std::process::exit(2);
    }
    let s = common::case(&a.equation, a.order, a.nodes, 2).unwrap_or_else(|e| {
        let e = format!("--equation: {e}");
        eprintln!("{e}");
        std::process::exit(2)
    });
    let mut solver = Solver::new(&s, &BackendSpec::serial()).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let nodes = (s.cells.iter().product::<usize>() * a.order * a.order) as f64;
    let per_block = a.steps as f64 * solver.method.stages() as f64 * nodes;
    solver.advance(2).expect("warm-up steps");
    // pid[depth][round], and each depth's offset in its page.
    let mut pid = vec![vec![]; a.depths];
    let mut offset = vec![0; a.depths];
    for round in 0..a.rounds {
        // Deepest first in every other round, so that a drift of the
        // machine's speed over a round does not line up with the depth.
        let order: Vec<usize> = if round % 2 == 0 {
            (0..a.depths).collect()
        } else {
            (0..a.depths).rev().collect()
        };
        for d in order {
            std::thread::scope(|sc| {
                // Room for 4096 frames of `deeper` and the solver's own.
                let deep = std::thread::Builder::new().stack_size(16 << 20);
                deep.spawn_scoped(sc, || {
                    deeper(d, &mut || {
                        offset[d] = here() % 4096;
                        let mut best = f64::INFINITY;
                        for _ in 0..a.blocks {
                            let t = Instant::now();
                            solver.advance(a.steps).expect("steps");
                            best = best.min(t.elapsed().as_secs_f64());
                        }
                        pid[d].push(best / per_block);
                    })
                })
                .expect("a thread for the steps");
            });
        }
    }
    let per_depth: Vec<f64> = pid.iter().map(|r| quantile(r, 0.5)).collect();
    // One frame of `deeper` (the stack grows down; offsets wrap at the
    // page).
    let step = if a.depths > 1 {
        (offset[0] as isize - offset[1] as isize).rem_euclid(4096)
    } else {
        0
    };
    let distinct = {
        let mut o = offset.clone();
        o.sort();
        o.dedup();
        o.len()
    };
    println!(
        "2D DG {} order {}, {} nodes, serial, {} stack depths {} bytes apart: PID min {:.3e}, \
         quartiles {:.3e} {:.3e} {:.3e}, max {:.3e}; offsets in the page: {} distinct",
        a.equation,
        a.order,
        nodes,
        a.depths,
        step,
        quantile(&per_depth, 0.0),
        quantile(&per_depth, 0.25),
        quantile(&per_depth, 0.5),
        quantile(&per_depth, 0.75),
        quantile(&per_depth, 1.0),
        distinct,
    );
    // A frame of 16 times an odd number of bytes visits min(depths, 256)
    // offsets; fewer means the build's frame changed and the sweep skips
    // offsets.
    if distinct < a.depths.min(256) {
        eprintln!(
            "frames of {step} bytes: {distinct} distinct offsets in the page for {} depths; \
             change the array in `deeper`",
            a.depths
        );
        std::process::exit(1);
    }
    if a.table {
        for (d, p) in per_depth.iter().enumerate() {
            println!("{d} {} {p:.3e}", offset[d]);
        }
    }
}
