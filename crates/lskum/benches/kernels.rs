//! Criterion benchmarks of each loop of the q-LSKUM iteration on the
//! execution layer (serial backend, one core) on generated NACA 0012 clouds
//! of 10^4, 10^5 and 10^6 points: `cargo bench -p qflow-lskum --bench
//! kernels`. Per-point times are the reported times over the point count
//! (criterion's throughput line gives points per second); `qflow bench`
//! gives the same per-loop RDP for whole iterations.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use qflow_lskum::decl::{
    FLUX_RESIDUAL, LOCAL_TIME_STEP, Q_DERIVATIVES, Q_INNER_ITERATION, Q_VARIABLES,
};
use qflow_lskum::{Settings, Solver};
use qflow_mesh::generate::NacaOGrid;
use qflow_par::backend::{BackendKind, BackendSpec};

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

fn kernels(c: &mut Criterion) {
    let spec = BackendSpec {
        kind: BackendKind::Serial,
        ..Default::default()
    };
    for points in [10_000usize, 100_000, 1_000_000] {
        let cl = cloud(points);
        let n = cl.len();
        // A few iterations from the free stream, so that the limiter and
        // the fluxes see a real flow and every scratch dat is filled.
        let mut s = Solver::new(&cl, &Settings::default(), &spec).expect("a solver");
        s.run(3).expect("three iterations");
        drop(cl);
        let mut g = c.benchmark_group(format!("kernels/{n}"));
        g.throughput(Throughput::Elements(n as u64));
        if n >= 100_000 {
            g.sample_size(10)
                .measurement_time(Duration::from_secs(5))
                .warm_up_time(Duration::from_secs(1));
        }
        for l in [
            &LOCAL_TIME_STEP,
            &Q_VARIABLES,
            &Q_DERIVATIVES,
            &Q_INNER_ITERATION,
            &FLUX_RESIDUAL,
        ] {
            g.bench_function(BenchmarkId::new(l.name, n), |x| {
                x.iter(|| s.exec().run(l).expect("the loop runs"))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
