//! Criterion benchmarks of each kernel of the iteration (serial backend, one
//! core) on generated NACA 0012 clouds of 10^4, 10^5 and 10^6 points.
//! `cargo bench -p qflow-exec --bench kernels`; per-point times are the
//! reported times divided by the point count (criterion's throughput line
//! shows points per second). `qflow bench` gives the same per-kernel RDP for
//! whole iterations.

use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use qflow_mesh::generate::NacaOGrid;
use qflow_exec::{Backend, CpuBackend, Solver};
use qflow_lskum::{Geometry, Settings};

fn cloud(points: usize) -> qflow_mesh::Cloud {
    let wall = ((((points as f64) * 8.0 / 3.0).sqrt() / 2.0).round() as usize * 2).max(16);
    NacaOGrid {
        section: "naca0012".parse().unwrap(),
        wall_points: wall,
        rings: (points / wall).max(4),
        far_field: 10.0 * ((points / wall) as f64 / 60.0).max(1.0),
        stretching: None,
    }
    .generate()
    .unwrap()
}

/// A serial backend holding the state after a few iterations from the free
/// stream (so the limiter and fluxes see a real flow), with every scratch
/// array filled by one pass of each step.
fn warmed(points: usize) -> (Box<dyn Backend>, usize) {
    let c = cloud(points);
    let settings = Settings::default();
    let g = Arc::new(Geometry::new(&c, settings.force_normals));
    let mut s = Solver::new(
        Box::new(CpuBackend::serial(g.clone(), (&settings).into())),
        g.clone(),
        settings.clone(),
    );
    for _ in 0..3 {
        s.step().unwrap();
    }
    let state = s.state();
    let mut b: Box<dyn Backend> = Box::new(CpuBackend::serial(g, (&settings).into()));
    b.set_state(&state);
    b.local_time_step();
    b.q_variables();
    b.q_derivatives();
    b.q_inner_iteration();
    b.flux_residual();
    (b, c.len())
}

fn kernels(c: &mut Criterion) {
    for points in [10_000usize, 100_000, 1_000_000] {
        let (mut b, n) = warmed(points);
        let mut g = c.benchmark_group(format!("kernels/{n}"));
        g.throughput(Throughput::Elements(n as u64));
        if n >= 100_000 {
            g.sample_size(10)
                .measurement_time(Duration::from_secs(5))
                .warm_up_time(Duration::from_secs(1));
        }
        g.bench_function(BenchmarkId::new("local_time_step", n), |x| {
            x.iter(|| b.local_time_step())
        });
        g.bench_function(BenchmarkId::new("q_variables", n), |x| {
            x.iter(|| b.q_variables())
        });
        g.bench_function(BenchmarkId::new("q_derivatives", n), |x| {
            x.iter(|| b.q_derivatives())
        });
        g.bench_function(BenchmarkId::new("q_inner_iteration", n), |x| {
            x.iter(|| b.q_inner_iteration())
        });
        g.bench_function(BenchmarkId::new("flux_residual", n), |x| {
            x.iter(|| b.flux_residual())
        });
        // The update changes the state: start each from the iteration's start
        // (a copy of the state, included in the time).
        g.bench_function(BenchmarkId::new("state_update", n), |x| {
            x.iter(|| {
                b.restore_iteration_start();
                b.state_update(0)
            })
        });
        g.finish();
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
