//! Helpers shared by the integration tests.
#![allow(dead_code)]

use qflow_lskum::{Settings, Solver, Vec4};
use qflow_mesh::{legacy, Cloud};
use qflow_par::backend::{BackendKind, BackendSpec};
use std::path::PathBuf;

/// The workplace's shared reference data (`../shared/data` from the project
/// root, or `$QFLOW_SHARED_DATA`), if present. Tests that need it say so and
/// return early where it is absent; `.ci/run` sets `QFLOW_REQUIRE_DATA=1`
/// where the data must be there, which turns absence into a failure.
pub fn shared_data() -> Option<PathBuf> {
    let dir = std::env::var_os("QFLOW_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    if dir.join("naca0012-9600.partgrid").exists() {
        Some(dir)
    } else {
        assert!(
            std::env::var_os("QFLOW_REQUIRE_DATA").is_none(),
            "QFLOW_REQUIRE_DATA is set but the shared data are not at {}",
            dir.display()
        );
        eprintln!(
            "SKIPPED: shared reference data not found at {}",
            dir.display()
        );
        None
    }
}

/// The 9,600-point NACA 0012 cloud.
pub fn cloud_9600() -> Option<Cloud> {
    shared_data()
        .map(|d| legacy::read(&d.join("naca0012-9600.partgrid")).expect("reading the 9600 cloud"))
}

/// The Regent code's converged solution on the 9,600-point cloud (M 0.63,
/// 2 degrees, unlimited; 100,000 iterations).
pub fn converged_9600() -> Option<Vec<Vec4>> {
    shared_data().map(|d| read_table(&d.join("naca0012-9600-m0.63-a2-converged.dat"), 1, 4..8))
}

/// Runs `iters` iterations on `cloud` with `kind`/`threads` and returns the
/// solver (to read state, forces) and the per-iteration log residues.
pub fn run(
    cloud: &Cloud,
    settings: &Settings,
    kind: BackendKind,
    threads: usize,
    iters: u64,
) -> (Solver, Vec<f64>) {
    let spec = BackendSpec {
        kind,
        threads,
        ..Default::default()
    };
    let mut s = Solver::new(cloud, settings, &spec).expect("a solver");
    let res = s.run(iters).expect("run");
    (s, res)
}

/// Reads a whitespace-separated table of reals (lines starting with `#`
/// skipped), keeping columns `cols`.
pub fn read_table(
    path: &std::path::Path,
    skip_lines: usize,
    cols: std::ops::Range<usize>,
) -> Vec<Vec4> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(skip_lines)
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<f64> = l.split_whitespace().map(|t| t.parse().unwrap()).collect();
            let c = &f[cols.clone()];
            [c[0], c[1], c[2], c[3]]
        })
        .collect()
}

/// Relative L2 difference of two fields over all points and components.
pub fn rel_l2(a: &[Vec4], b: &[Vec4]) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        for k in 0..4 {
            num += (x[k] - y[k]).powi(2);
            den += y[k].powi(2);
        }
    }
    (num / den).sqrt()
}

/// Relative L2 difference of component `k`.
pub fn rel_l2_component(a: &[Vec4], b: &[Vec4], k: usize) -> f64 {
    let num: f64 = a.iter().zip(b).map(|(x, y)| (x[k] - y[k]).powi(2)).sum();
    let den: f64 = b.iter().map(|y| y[k].powi(2)).sum();
    (num / den).sqrt()
}

/// Largest difference over the largest magnitude, per component.
pub fn max_rel(a: &[Vec4], b: &[Vec4]) -> [f64; 4] {
    let mut out = [0.0; 4];
    for k in 0..4 {
        let d = a
            .iter()
            .zip(b)
            .map(|(x, y)| (x[k] - y[k]).abs())
            .fold(0.0, f64::max);
        let m = b.iter().map(|y| y[k].abs()).fold(0.0, f64::max);
        out[k] = d / m;
    }
    out
}

/// Whether two fields are identical to the bit.
pub fn bit_identical(a: &[Vec4], b: &[Vec4]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits()))
}

/// A small generated NACA cloud (64 wall points, 24 rings), so that tests
/// need no outside data.
pub fn small_naca(section: &str) -> Cloud {
    qflow_mesh::generate::NacaOGrid {
        section: section.parse().unwrap(),
        wall_points: 64,
        rings: 24,
        far_field: 10.0,
        stretching: None,
    }
    .generate()
    .unwrap()
}
