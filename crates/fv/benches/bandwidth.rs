//! The bandwidth each Airfoil kernel achieves on OP2's 720,000-cell mesh,
//! beside this machine's STREAM triad bandwidth:
//!
//! ```sh
//! cargo bench -p qflow-fv --bench bandwidth            # serial, edge order
//! QFLOW_THREADS=2 QFLOW_STRATEGY=two-level cargo bench -p qflow-fv --bench bandwidth
//! QFLOW_THREADS=2 QFLOW_STRATEGY=two-level QFLOW_REORDER=partition QFLOW_BLOCK=2048 \
//!     cargo bench -p qflow-fv --bench bandwidth
//! QFLOW_BACKEND=opencl QFLOW_STRATEGY=atomics cargo bench -p qflow-fv --features opencl --bench bandwidth
//! ```
//!
//! On a device, `QFLOW_TRIAD_GBS=G` gives the triad bandwidth (GB/s) to
//! compare with, measured apart on that device (`scripts/gpu-check.sh`
//! measures it); without it the host's triad is measured.
//!
//! A kernel's useful bandwidth is counted as the paper
//! (`locality-optimized-unstructured-gpu`) counts it: every dat the loop
//! touches, whole, once per call, twice if it is both read and written
//! (read-write, increment), divided by the loop's time; maps are not
//! counted. A dat reached through a map counts at most what the loop can
//! touch (its elements times the map slots used), so that a loop over a
//! few boundary edges is not credited with whole cell arrays. The triad `a = b + s c` over three arrays of 2^24 doubles moves
//! 3 x 128 MiB per pass (written bytes counted once, as STREAM does).

use std::time::Instant;

use qflow_fv::decl::LOOPS;
use qflow_fv::{Settings, Solver};
use qflow_mesh::poly::naca0012::Op2Naca0012;
use qflow_par::backend::{BackendKind, BackendSpec};
use qflow_par::plan::Increments;
use qflow_par::reorder::Reorder;
use qflow_par::{Access, ArgKind, ElemType};
use rayon::prelude::*;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// STREAM's triad on `threads` threads: bytes per second, best of 7.
fn triad(threads: usize) -> f64 {
    let n = 1 << 24;
    let (mut a, b, c) = (vec![0.0f64; n], vec![1.0f64; n], vec![2.0f64; n]);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool");
    let chunk = n / (threads * 8);
    let mut best = f64::MAX;
    for _ in 0..7 {
        let t = Instant::now();
        pool.install(|| {
            a.par_chunks_mut(chunk)
                .zip(b.par_chunks(chunk).zip(c.par_chunks(chunk)))
                .for_each(|(a, (b, c))| {
                    for i in 0..a.len() {
                        a[i] = b[i] + 3.0 * c[i];
                    }
                })
        });
        best = best.min(t.elapsed().as_secs_f64());
    }
    assert!(a.iter().all(|&x| x == 7.0));
    (3 * 8 * n) as f64 / best
}

fn main() {
    let threads: usize = std::env::var("QFLOW_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(1);
    let strategy: Increments = std::env::var("QFLOW_STRATEGY")
        .ok()
        .map(|s| toml::Value::String(s).try_into().expect("a strategy name"))
        .unwrap_or_default();
    let reorder: Reorder = std::env::var("QFLOW_REORDER")
        .ok()
        .map(|s| {
            toml::Value::String(s)
                .try_into()
                .expect("a reordering name")
        })
        .unwrap_or_default();
    let block_size: usize = std::env::var("QFLOW_BLOCK")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(Settings::default().block_size);
    let layout: qflow_par::layout::Layout = std::env::var("QFLOW_LAYOUT")
        .ok()
        .map(|s| s.parse().expect("a layout name"))
        .unwrap_or_default();
    let kind = match std::env::var("QFLOW_BACKEND").as_deref() {
        Ok("opencl") => BackendKind::OpenCl,
        _ if threads > 1 => BackendKind::Threads,
        _ => BackendKind::Serial,
    };
    let mesh = Op2Naca0012 { i: 400, j: 600 }.generate().expect("the mesh");
    let settings = Settings {
        strategy,
        reorder,
        block_size,
        layout,
        ..Settings::default()
    };
    // A device's work-group size (`QFLOW_WORK_GROUP`; the backend's default
    // without it).
    let work_group = std::env::var("QFLOW_WORK_GROUP")
        .ok()
        .and_then(|t| t.parse().ok());
    let spec = BackendSpec {
        kind,
        threads,
        work_group,
        ..BackendSpec::default()
    };
    let mut s = Solver::new(&mesh, &settings, &spec).expect("a solver");
    for _ in 0..5 {
        s.step().expect("a step");
    }
    // On a device, the triad to compare with is the device's own (measured
    // apart, e.g. by scripts/gpu-check.sh): QFLOW_TRIAD_GBS overrides.
    let stream = match std::env::var("QFLOW_TRIAD_GBS")
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
    {
        Some(gbs) => gbs * 1e9,
        None => triad(threads),
    };
    let mut per_loop: Vec<Vec<f64>> = vec![Vec::new(); LOOPS.len()];
    for _ in 0..5 {
        s.ex.reset_times();
        for _ in 0..10 {
            s.step().expect("a step");
        }
        for t in s.ex.loop_times() {
            let k = LOOPS.iter().position(|l| l.name == t.name).expect("a loop");
            per_loop[k].push(t.time.as_secs_f64() / t.calls as f64);
        }
    }
    println!(
        "OP2 Airfoil, 720k cells, {}, {} strategy, reorder {}, layout {}, blocks {block_size}, work group {}; STREAM triad {:.2} GB/s ({threads} thread(s))",
        s.ex.backend_name(),
        strategy.name(),
        reorder.name(),
        layout.name(),
        work_group.map_or("default".to_string(), |w: usize| w.to_string()),
        stream / 1e9
    );
    println!(
        "{:<10} {:>12} {:>10} {:>9}",
        "kernel", "s per call", "GB/s", "of triad"
    );
    let part = s.ex.part().clone();
    for (k, l) in LOOPS.iter().enumerate() {
        let mut bytes = 0u64;
        let mut seen: Vec<&str> = Vec::new();
        for a in l.args {
            if let ArgKind::Dat { dat, access, .. } = a.kind {
                if seen.contains(&dat.name) {
                    continue;
                }
                seen.push(dat.name);
                let both = l.args.iter().any(|b| {
                    matches!(b.kind, ArgKind::Dat { dat: d, access: x, .. }
                        if d.name == dat.name && matches!(x, Access::ReadWrite | Access::Inc))
                }) || matches!(access, Access::ReadWrite | Access::Inc);
                let elem = dat.dim as u64 * if dat.ty == ElemType::F64 { 8 } else { 4 };
                let whole = part.set(dat.set).map_or(0, |s| s.len) as u64 * elem;
                let slots = l
                    .args
                    .iter()
                    .filter(|b| matches!(b.kind, ArgKind::Dat { dat: d, .. } if d.name == dat.name))
                    .count() as u64;
                let reach = part.set(l.set).map_or(0, |s| s.len) as u64 * slots * elem;
                let size = whole.min(reach);
                bytes += if both { 2 * size } else { size };
            }
        }
        let t = median(per_loop[k].clone());
        let bw = bytes as f64 / t;
        println!(
            "{:<10} {:>12.4e} {:>10.2} {:>8.0}%",
            l.name,
            t,
            bw / 1e9,
            100.0 * bw / stream
        );
    }
}
