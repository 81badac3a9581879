//! Backend conformance and invariance: the same answer for every backend,
//! thread count and numbering; free stream preserved; mirror symmetry.

mod common;

use std::collections::HashMap;

use common::*;
use qflow_lskum::settings::Scheme;
use qflow_lskum::{Settings, Vec4};
use qflow_mesh::generate::{NacaOGrid, Stretching};
use qflow_mesh::{renumber, Cloud, PointKind, NO_POINT};
use qflow_par::backend::BackendKind;

fn clouds() -> Vec<(&'static str, Cloud)> {
    let mut v = vec![("generated naca2412", small_naca("naca2412"))];
    if let Some(c) = cloud_9600() {
        v.push(("naca0012-9600", c));
    }
    v
}

#[test]
fn serial_and_threads_agree_to_the_bit_for_any_thread_count() {
    for (name, cloud) in clouds() {
        for settings in [
            Settings::default(),
            Settings {
                scheme: Scheme::Euler,
                inner_iterations: 0,
                cfl: 0.5,
                ..Settings::default()
            },
        ] {
            let (mut serial, res_serial) = run(&cloud, &settings, BackendKind::Serial, 1, 50);
            let reference = serial.state();
            for threads in 1..=4 {
                let (mut t, res) = run(&cloud, &settings, BackendKind::Threads, threads, 50);
                assert!(
                    bit_identical(&t.state(), &reference),
                    "{name}, {}: threads ({threads}) differs from serial",
                    settings.scheme.name()
                );
                // residue and forces are exact sums: identical too
                assert_eq!(
                    res, res_serial,
                    "{name}: residue history, {threads} threads"
                );
                assert_eq!(t.coefficients(), serial.coefficients());
            }
        }
    }
}

#[test]
fn a_random_renumbering_gives_the_same_fields_to_the_bit() {
    for (name, cloud) in clouds() {
        let settings = Settings::default();
        let (mut a, res_a) = run(&cloud, &settings, BackendKind::Threads, 2, 50);
        let original = a.state();
        for seed in [1u64, 2] {
            let new_of_old = renumber::random(cloud.len(), seed);
            let shuffled = cloud.permuted(&new_of_old);
            let (mut b, res_b) = run(&shuffled, &settings, BackendKind::Threads, 2, 50);
            let permuted_state = b.state();
            let back: Vec<Vec4> = (0..cloud.len())
                .map(|old| permuted_state[new_of_old[old] as usize])
                .collect();
            assert!(
                bit_identical(&back, &original),
                "{name}: renumbering (seed {seed}) changed the fields"
            );
            assert_eq!(
                res_a, res_b,
                "{name}: renumbering changed the residue history"
            );
            assert_eq!(a.coefficients(), b.coefficients());
        }
    }
}

/// A disk of concentric rings around a centre point, far field on the
/// outside: no wall points at all.
fn disk(rings: usize, per_ring: usize) -> Cloud {
    let mut c = Cloud::default();
    let id = |r: usize, j: usize| {
        if r == 0 {
            0
        } else {
            (1 + (r - 1) * per_ring + j % per_ring) as u32
        }
    };
    let push = |c: &mut Cloud, x: f64, y: f64, kind, l, r| {
        c.x.push(x);
        c.y.push(y);
        c.kind.push(kind);
        c.left.push(l);
        c.right.push(r);
        c.shape.push(0);
    };
    push(&mut c, 0.0, 0.0, PointKind::Interior, NO_POINT, NO_POINT);
    for r in 1..=rings {
        let radius = r as f64 / rings as f64 * 5.0;
        for j in 0..per_ring {
            let t = std::f64::consts::TAU * j as f64 / per_ring as f64;
            let kind = if r == rings {
                PointKind::Outer
            } else {
                PointKind::Interior
            };
            // clockwise left -> right so that outer normals point outwards
            let (l, rr) = (id(r, j + 1), id(r, j + per_ring - 1));
            push(&mut c, radius * t.cos(), radius * t.sin(), kind, l, rr);
        }
    }
    c.nbr_start.push(0);
    c.nbr.extend((0..per_ring).map(|j| id(1, j)));
    c.nbr_start.push(c.nbr.len() as u32);
    for r in 1..=rings {
        for j in 0..per_ring {
            let jm = j + per_ring - 1;
            c.nbr.extend([id(r, jm), id(r, j + 1)]);
            let inner: Vec<usize> = if r == rings {
                vec![r - 1, r - 2]
            } else {
                vec![r - 1, r + 1]
            };
            for rr in inner {
                if rr == 0 {
                    c.nbr.push(0);
                } else {
                    c.nbr.extend([id(rr, jm), id(rr, j), id(rr, j + 1)]);
                }
            }
            c.nbr_start.push(c.nbr.len() as u32);
        }
    }
    c.min_dist = qflow_mesh::geometry::min_neighbour_distance(&c);
    c.validate_structure().unwrap();
    c
}

#[test]
fn the_free_stream_is_preserved_without_walls() {
    let cloud = disk(12, 48);
    let report = qflow_mesh::check::check(&cloud, &[]);
    assert!(
        report.is_ok(),
        "{:#?}",
        report.findings.iter().take(5).collect::<Vec<_>>()
    );
    for settings in [
        Settings {
            mach: 0.63,
            aoa: 2.0,
            ..Settings::default()
        },
        Settings {
            mach: 1.2,
            aoa: 0.0,
            ..Settings::default()
        },
        Settings {
            mach: 0.3,
            aoa: -7.0,
            scheme: Scheme::Euler,
            ..Settings::default()
        },
    ] {
        let (mut s, _) = run(&cloud, &settings, BackendKind::Threads, 2, 100);
        let fs = settings.free_stream().primitive();
        let worst = s
            .state()
            .iter()
            .flat_map(|w| (0..4).map(move |k| ((w[k] - fs[k]) / fs[k].abs().max(1.0)).abs()))
            .fold(0.0, f64::max);
        assert!(
            worst <= 1e-13,
            "M {}: free stream drifted by {worst:.3e}",
            settings.mach
        );
    }
}

/// For each point, the point at its mirror image `(x, -y)`.
fn mirror_map(cloud: &Cloud) -> Vec<usize> {
    let key = |x: f64, y: f64| (x.to_bits(), (y + 0.0).to_bits());
    let index: HashMap<_, _> = (0..cloud.len())
        .map(|i| (key(cloud.x[i], cloud.y[i]), i))
        .collect();
    (0..cloud.len())
        .map(|i| {
            *index
                .get(&key(cloud.x[i], -cloud.y[i]))
                .expect("cloud is not mirror symmetric")
        })
        .collect()
}

/// Largest asymmetry of a field, relative to each variable's largest value.
fn asymmetry(state: &[Vec4], mirror: &[usize]) -> f64 {
    let sign = [1.0, 1.0, -1.0, 1.0];
    (0..4)
        .map(|k| {
            let m = state.iter().map(|w| w[k].abs()).fold(0.0, f64::max);
            state
                .iter()
                .enumerate()
                .map(|(i, w)| (w[k] - sign[k] * state[mirror[i]][k]).abs())
                .fold(0.0, f64::max)
                / m
        })
        .fold(0.0, f64::max)
}

#[test]
fn a_symmetric_cloud_at_zero_incidence_gives_zero_lift_and_a_symmetric_field() {
    let cloud = NacaOGrid {
        section: "naca0012".parse().unwrap(),
        wall_points: 96,
        rings: 32,
        far_field: 12.0,
        stretching: Some(Stretching::GrowthRatio(1.12)),
    }
    .generate()
    .unwrap();
    let mirror = mirror_map(&cloud);
    for mach in [0.63, 1.2] {
        let settings = Settings {
            mach,
            aoa: 0.0,
            ..Settings::default()
        };
        let (mut s, _) = run(&cloud, &settings, BackendKind::Threads, 2, 200);
        let c = s.coefficients();
        assert!(c.cl.abs() <= 1e-10, "M {mach}: Cl = {:e}", c.cl);
        let a = asymmetry(&s.state(), &mirror);
        assert!(a <= 1e-10, "M {mach}: field asymmetry {a:.3e}");
    }
}

/// The 9,600-point cloud and its mirror image (reflected and renumbered, left
/// and right swapped so normals keep their sense) give mirror-image solutions
/// at opposite angles of attack.
#[test]
fn a_reflected_cloud_gives_the_reflected_solution() {
    let Some(cloud) = cloud_9600() else { return };
    let n = cloud.len();
    let mut reflected = cloud.clone();
    for i in 0..n {
        reflected.y[i] = -cloud.y[i];
        reflected.left[i] = cloud.right[i];
        reflected.right[i] = cloud.left[i];
    }
    let new_of_old = renumber::random(n, 99);
    let reflected = reflected.permuted(&new_of_old);
    let settings = Settings::default();
    let (mut a, _) = run(&cloud, &settings, BackendKind::Threads, 2, 100);
    let (mut b, _) = run(
        &reflected,
        &Settings {
            aoa: -settings.aoa,
            ..settings.clone()
        },
        BackendKind::Threads,
        2,
        100,
    );
    let (sa, sb) = (a.state(), b.state());
    let mirrored: Vec<Vec4> = (0..n)
        .map(|i| {
            let w = sb[new_of_old[i] as usize];
            [w[0], w[1], -w[2], w[3]]
        })
        .collect();
    let l2 = rel_l2(&mirrored, &sa);
    assert!(
        l2 <= 1e-10,
        "reflected solution differs: relative L2 {l2:.3e}"
    );
    let (ca, cb) = (a.coefficients(), b.coefficients());
    assert!(
        (ca.cl + cb.cl).abs() <= 1e-10 * ca.cl.abs(),
        "Cl {} vs {}",
        ca.cl,
        cb.cl
    );
    assert!((ca.cd - cb.cd).abs() <= 1e-10, "Cd {} vs {}", ca.cd, cb.cd);
}
