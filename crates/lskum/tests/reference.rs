//! Test 1 of the numerics: qflow reproduces the reference implementation's
//! residue history, forces and final fields on the 9,600-point NACA 0012
//! cloud (`../shared/data/reference-9600-*`, see that folder's README).
//!
//! Tolerances enforced (what qflow reaches, measured when the test was
//! written, is in brackets; two builds of the reference agree to ~2e-13):
//! - residue history: `|log10 residue - reference| <= 1e-11` at every
//!   iteration (max seen 1.5e-13 for SSPRK43, 3e-14 for Euler);
//! - Cl, Cd, Cm: relative `1e-11` (max seen 5.4e-13, Cm);
//! - final fields: relative L2 over all points and variables `1e-12`
//!   (seen 4.0e-14 and 1.7e-15), and per variable largest difference over
//!   largest magnitude `1e-11` (seen 7.5e-14).

mod common;

use common::*;
use qflow_lskum::settings::{ForceNormals, Scheme};
use qflow_lskum::Settings;
use qflow_par::backend::BackendKind;

fn reference_history(path: &std::path::Path) -> Vec<f64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
        .collect()
}

fn reference_forces(path: &std::path::Path) -> [f64; 3] {
    let t = std::fs::read_to_string(path).unwrap();
    let v: Vec<f64> = t
        .lines()
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    [v[0], v[1], v[2]]
}

fn check_oracle(settings: Settings, iters: u64, stem: &str) {
    let Some(data) = shared_data() else { return };
    let cloud = cloud_9600().unwrap();
    let (mut solver, history) = run(&cloud, &settings, BackendKind::Threads, 0, iters);

    let reference = reference_history(&data.join(format!("{stem}.csv")));
    assert_eq!(reference.len() as u64, iters);
    let worst = history
        .iter()
        .zip(&reference)
        .enumerate()
        .map(|(i, (a, b))| ((a - b).abs(), i + 1))
        .fold((0.0, 0), |m, x| if x.0 > m.0 { x } else { m });
    eprintln!(
        "{stem}: worst residue-history difference {:.3e} at iteration {}",
        worst.0, worst.1
    );
    assert!(
        worst.0 <= 1e-11,
        "residue history differs by {:.3e} at iteration {}",
        worst.0,
        worst.1
    );

    let c = solver.coefficients();
    let f = reference_forces(&data.join(format!("{stem}-forces.txt")));
    for (name, mine, theirs) in [("Cl", c.cl, f[0]), ("Cd", c.cd, f[1]), ("Cm", c.cm, f[2])] {
        let rel = ((mine - theirs) / theirs).abs();
        eprintln!("{stem}: {name} {mine:.17e} vs {theirs:.17e} (relative {rel:.3e})");
        assert!(
            rel <= 1e-11,
            "{name}: {mine} vs reference {theirs} (relative {rel:.3e})"
        );
    }

    let fields = solver.state();
    let reference = read_table(&data.join(format!("{stem}-final.dat")), 0, 0..4);
    let l2 = rel_l2(&fields, &reference);
    let mx = max_rel(&fields, &reference);
    eprintln!("{stem}: fields relative L2 {l2:.3e}, largest per variable {mx:?}");
    assert!(l2 <= 1e-12, "fields differ: relative L2 {l2:.3e}");
    assert!(mx.iter().all(|&m| m <= 1e-11), "fields differ: {mx:?}");
}

/// SSPRK four stages, 3 inner iterations, CFL 0.2, 1000 iterations.
#[test]
fn reproduces_the_ssprk43_reference() {
    let settings = Settings {
        force_normals: ForceNormals::Solver,
        ..Settings::default()
    };
    check_oracle(settings, 1000, "reference-9600-ssprk43");
}

/// Forward Euler, 0 inner iterations, CFL 0.5, 500 iterations.
#[test]
fn reproduces_the_euler_reference() {
    let settings = Settings {
        force_normals: ForceNormals::Solver,
        scheme: Scheme::Euler,
        inner_iterations: 0,
        cfl: 0.5,
        ..Settings::default()
    };
    check_oracle(settings, 500, "reference-9600-euler");
}
