//! Tests of the generator: the sections' surfaces, symmetry, layout,
//! normals, the solver's check, folds, spacing, argument errors and the
//! legacy cloud's layout.

use std::f64::consts::PI;

use super::*;
use crate::check::check;
use crate::PointKind;
use proptest::prelude::*;

fn grid(code: &str, wall_points: usize, rings: usize, far_field: f64) -> NacaOGrid {
    NacaOGrid {
        section: code.parse().unwrap(),
        wall_points,
        rings,
        far_field,
        stretching: None,
    }
}

fn dist(c: &Cloud, a: usize, b: usize) -> f64 {
    (c.x[b] - c.x[a]).hypot(c.y[b] - c.y[a])
}

/// Mean distance from the wall ring to ring 1.
fn mean_first_spacing(c: &Cloud, m: usize) -> f64 {
    (0..m).map(|j| dist(c, j, m + j)).sum::<f64>() / m as f64
}

const SECTIONS: [&str; 8] = [
    "0012", "2412", "4415", "6409", "0024", "0006", "0001", "0040",
];

#[test]
fn surface_follows_the_naca_formulas() {
    // Independent transcriptions of the NACA 4-digit formulas.
    let yt = |t: f64, x: f64| {
        t / 0.2
            * (0.2969 * x.sqrt() - 0.126 * x - 0.3516 * x.powi(2) + 0.2843 * x.powi(3)
                - 0.1036 * x.powi(4))
    };
    let s: Naca4 = "2412".parse().unwrap();
    let yc = |x: f64| {
        if x < 0.4 {
            0.02 / 0.16 * (0.8 * x - x * x)
        } else {
            0.02 / 0.36 * (0.2 + 0.8 * x - x * x)
        }
    };
    for i in 0..=100 {
        let x = i as f64 / 100.0;
        assert!((s.thickness(x) - yt(0.12, x)).abs() < 1e-15);
        assert!((s.camber(x) - yc(x)).abs() < 1e-15);
    }
    // The thickness vanishes at the closed trailing edge.
    assert!(s.thickness(1.0).abs() < 1e-15);

    // Symmetric section: the wall is y = -/+ yt(x) at cosine stations.
    let m = 64;
    let c = grid("0012", m, 10, 10.0).generate().unwrap();
    for j in 0..m {
        let x = 0.5 * (1.0 + (2.0 * PI * j as f64 / m as f64).cos());
        assert!((c.x[j] - x).abs() < 1e-14, "point {j}: x {} vs {x}", c.x[j]);
        let sign = if j < m / 2 { -1.0 } else { 1.0 };
        assert!((c.y[j] - sign * yt(0.12, x)).abs() < 1e-14, "point {j}");
    }

    // Cambered section: the two points over chord station x have their
    // midpoint on the camber line and lie yt(x) from it, perpendicular to
    // it.
    let c = grid("2412", m, 10, 10.0).generate().unwrap();
    for i in 1..m / 2 {
        let x = 0.5 * (1.0 + (2.0 * PI * i as f64 / m as f64).cos());
        let (lo, up) = (i, m - i);
        let mid = (0.5 * (c.x[lo] + c.x[up]), 0.5 * (c.y[lo] + c.y[up]));
        assert!(
            (mid.0 - x).abs() < 1e-14 && (mid.1 - yc(x)).abs() < 1e-14,
            "station {x}"
        );
        assert!(
            (0.5 * dist(&c, lo, up) - yt(0.12, x)).abs() < 1e-14,
            "station {x}"
        );
        let slope = s.camber_slope(x);
        let along = (c.x[up] - c.x[lo]) + slope * (c.y[up] - c.y[lo]);
        assert!(
            along.abs() < 1e-14,
            "thickness perpendicular to the camber line at {x}"
        );
    }

    // Exactly one point at each edge, the leading edge halfway round.
    for code in SECTIONS {
        let c = grid(code, m, 10, 10.0).generate().unwrap();
        let wall = || (0..m).map(|j| (c.x[j], c.y[j]));
        assert_eq!((c.x[0], c.y[0]), (1.0, 0.0), "{code}");
        assert_eq!((c.x[m / 2], c.y[m / 2]), (0.0, 0.0), "{code}");
        assert_eq!(wall().filter(|p| *p == (1.0, 0.0)).count(), 1, "{code}");
        assert_eq!(wall().filter(|p| *p == (0.0, 0.0)).count(), 1, "{code}");
        // Lower surface first: below the camber line at mid-chord, the
        // station of point m / 4 (6409's lower surface is above y = 0
        // there).
        let yc = code.parse::<Naca4>().unwrap().camber(0.5);
        assert!(c.y[m / 4] < yc && c.y[3 * m / 4] > yc, "{code}");
    }
}

#[test]
fn symmetric_sections_give_symmetric_clouds() {
    for (code, m, rings) in [("0012", 160, 60), ("0006", 64, 20), ("0024", 32, 12)] {
        let c = grid(code, m, rings, 10.0).generate().unwrap();
        for i in 0..c.len() {
            let (r, j) = (i / m, i % m);
            let k = r * m + (m - j) % m;
            let scale = 1.0 + c.x[i].abs() + c.y[i].abs();
            assert!((c.x[i] - c.x[k]).abs() <= 1e-13 * scale, "{code} point {i}");
            assert!((c.y[i] + c.y[k]).abs() <= 1e-13 * scale, "{code} point {i}");
        }
        // The edges' grid lines stay on the axis.
        for r in 0..rings {
            assert_eq!(c.y[r * m], 0.0);
            assert_eq!(c.y[r * m + m / 2], 0.0);
        }
    }
}

#[test]
fn kinds_counts_shapes_and_ring_neighbours() {
    let (m, rings) = (48, 14);
    let c = grid("2412", m, rings, 8.0).generate().unwrap();
    c.validate_structure().unwrap();
    assert_eq!(c.len(), m * rings);
    assert_eq!(c.kind_counts(), (m - 1, m * (rings - 2) + 1, m));
    for i in 0..c.len() {
        let (r, j) = (i / m, i % m);
        let kind = match (r, j) {
            (0, 0) => PointKind::Interior,
            (0, _) => PointKind::Wall,
            _ if r == rings - 1 => PointKind::Outer,
            _ => PointKind::Interior,
        };
        assert_eq!(c.kind[i], kind, "point {i}");
        assert_eq!(c.shape[i], u32::from(r == 0), "point {i}");
        assert_eq!(c.left[i] as usize, r * m + (j + m - 1) % m, "point {i}");
        assert_eq!(c.right[i] as usize, r * m + (j + 1) % m, "point {i}");
        assert!(c.min_dist[i] > 0.0);
        let nb = c.neighbours(i);
        let nearest = nb
            .iter()
            .map(|&k| dist(&c, i, k as usize))
            .fold(f64::INFINITY, f64::min);
        assert_eq!(c.min_dist[i], nearest, "point {i}");
    }
    // The legacy stencil order, here at a wall, an interior and an outer
    // point.
    let at = |r: usize, j: usize| (r * m + j) as u32;
    assert_eq!(
        c.neighbours(5),
        [
            at(0, 4),
            at(0, 6),
            at(1, 4),
            at(1, 5),
            at(1, 6),
            at(2, 4),
            at(2, 5),
            at(2, 6)
        ]
    );
    let i = 3 * m + 7;
    assert_eq!(
        c.neighbours(i),
        [
            at(2, 6),
            at(2, 7),
            at(2, 8),
            at(3, 6),
            at(3, 8),
            at(4, 6),
            at(4, 7),
            at(4, 8)
        ]
    );
    let i = (rings - 1) * m;
    let (o, l) = (rings - 1, m - 1);
    assert_eq!(
        c.neighbours(i),
        [
            at(o - 1, l),
            at(o - 1, 0),
            at(o - 1, 1),
            at(o, l),
            at(o, 1),
            at(o - 2, l),
            at(o - 2, 0),
            at(o - 2, 1)
        ]
    );
    // The trailing-edge point uses the wall stencil.
    assert_eq!(&c.neighbours(0)[..2], [at(0, l), at(0, 1)]);
    // Far field on the circle, evenly spaced, clockwise from (10.5, 0).
    for j in 0..m {
        let i = (rings - 1) * m + j;
        assert!(((c.x[i] - 0.5).hypot(c.y[i]) - 8.0).abs() < 1e-13);
        let angle = -2.0 * PI * j as f64 / m as f64;
        assert!((c.x[i] - 0.5 - 8.0 * angle.cos()).abs() < 1e-12);
        assert!((c.y[i] - 8.0 * angle.sin()).abs() < 1e-12);
    }
}

#[test]
fn normals_point_into_the_fluid_and_out_of_the_far_field() {
    let m = 96;
    for code in SECTIONS {
        let c = grid(code, m, 30, 12.0).generate().unwrap();
        let (nx, ny) = geometry::boundary_normals(&c);
        // A small step along the normal leaves the section (crossing
        // number of the wall polygon even).
        let inside = |px: f64, py: f64| {
            (0..m)
                .filter(|&j| {
                    let k = (j + 1) % m;
                    let (ya, yb) = (c.y[j], c.y[k]);
                    (ya > py) != (yb > py)
                        && px < c.x[j] + (py - ya) / (yb - ya) * (c.x[k] - c.x[j])
                })
                .count()
                % 2
                == 1
        };
        // The section's area centroid (shoelace formulas).
        let (mut area, mut cx, mut cy) = (0.0, 0.0, 0.0);
        for j in 0..m {
            let k = (j + 1) % m;
            let cross = c.x[j] * c.y[k] - c.x[k] * c.y[j];
            area += 0.5 * cross;
            cx += (c.x[j] + c.x[k]) * cross / 6.0;
            cy += (c.y[j] + c.y[k]) * cross / 6.0;
        }
        let centroid = (cx / area, cy / area);
        for j in 1..m {
            let step = 0.1 * c.min_dist[j];
            assert!(
                !inside(c.x[j] + step * nx[j], c.y[j] + step * ny[j]),
                "{code}: {j}"
            );
            // ... and points away from the body's centroid for symmetric
            // sections (a cambered section's lower surface is concave).
            if code.starts_with("00") {
                let (dx, dy) = (c.x[j] - centroid.0, c.y[j] - centroid.1);
                assert!(nx[j] * dx + ny[j] * dy > 0.0, "{code}: {j}");
            }
        }
        // Leading edge: forwards (tilted by the camber line's slope
        // there); mid-chord: down below, up above.
        assert!(nx[m / 2] < -0.9, "{code}: ({}, {})", nx[m / 2], ny[m / 2]);
        assert!(ny[m / 4] < -0.9, "{code}");
        assert!(ny[3 * m / 4] > 0.9, "{code}");
        for i in c.len() - m..c.len() {
            let (dx, dy) = (c.x[i] - 0.5, c.y[i]);
            assert!(
                nx[i] * dx + ny[i] * dy > 0.99 * dx.hypot(dy),
                "{code}: point {i}"
            );
        }
    }
}

#[test]
fn clouds_pass_the_solver_check() {
    for code in SECTIONS {
        for (m, rings, far) in [
            (16, 4, 3.0),
            (32, 12, 10.0),
            (160, 60, 10.0),
            (64, 30, 1.5),
            (96, 40, 100.0),
        ] {
            let base = grid(code, m, rings, far);
            let c = base.generate().unwrap();
            let report = check(&c, &[]);
            assert!(
                !report
                    .findings
                    .iter()
                    .any(|f| matches!(f.problem, crate::check::Problem::FarNeighbour { .. })),
                "{:?}",
                report.findings
            );
            assert!(
                report.is_ok(),
                "{code} {m}x{rings}: {:?}",
                report.errors().next()
            );
            let h = mean_first_spacing(&c, m);
            let uniform = (0.5 * far) / (rings - 1) as f64;
            for stretching in [
                Stretching::FirstSpacing(0.5 * h),
                Stretching::FirstSpacing((1.8 * h).min(uniform)),
                Stretching::GrowthRatio(1.2),
            ] {
                let g = NacaOGrid {
                    stretching: Some(stretching),
                    ..base.clone()
                };
                match g.generate() {
                    Ok(c) => {
                        let report = check(&c, &[]);
                        assert!(
                            !report.findings.iter().any(|f| matches!(
                                f.problem,
                                crate::check::Problem::FarNeighbour { .. }
                            )),
                            "{:?}",
                            report.findings
                        );
                        assert!(
                            report.is_ok(),
                            "{code} {m}x{rings} {stretching:?}: {:?}",
                            report.errors().next()
                        );
                    }
                    // Not every ratio suits every size; but the first
                    // spacings above are within the accepted window.
                    Err(e) => assert!(
                        matches!(stretching, Stretching::GrowthRatio(_)),
                        "{code} {m}x{rings} {stretching:?}: {e}"
                    ),
                }
            }
        }
    }
}

#[test]
fn a_large_cloud_passes_the_solver_check() {
    let c = grid("4415", 1200, 420, 20.0).generate().unwrap();
    assert_eq!(c.len(), 1200 * 420);
    assert!(check(&c, &[]).is_ok());
}

/// Every cell has positive (counter-clockwise) area: the grid lines do
/// not cross and the rings do not fold.
#[test]
fn no_folded_cells() {
    let sizes = [
        (16, 4, 1.5),
        (32, 12, 10.0),
        (160, 60, 10.0),
        (100, 50, 2.0),
        (64, 30, 200.0),
        (1024, 420, 25.0),
    ];
    for code in SECTIONS.iter().chain(&["8412", "2408", "4424", "0015"]) {
        for &(m, rings, far) in &sizes {
            let c = grid(code, m, rings, far).generate().unwrap();
            let mut smallest = f64::INFINITY;
            for r in 0..rings - 1 {
                for j in 0..m {
                    let q = [
                        r * m + j,
                        r * m + (j + 1) % m,
                        (r + 1) * m + (j + 1) % m,
                        (r + 1) * m + j,
                    ];
                    let area: f64 = (0..4)
                        .map(|k| {
                            let (a, b) = (q[k], q[(k + 1) % 4]);
                            c.x[a] * c.y[b] - c.x[b] * c.y[a]
                        })
                        .sum();
                    // Relative to the cell's size.
                    let size = dist(&c, q[0], q[2]) * dist(&c, q[1], q[3]);
                    smallest = smallest.min(0.5 * area / size);
                }
            }
            assert!(smallest > 0.0, "{code} {m}x{rings} far {far}: {smallest}");
        }
    }
}

#[test]
fn stretching_controls_the_ring_spacing() {
    let (m, rings) = (160, 60);
    let base = grid("0012", m, rings, 10.0);
    // Default: wall cells square on average.
    let c = base.generate().unwrap();
    let aspect = (0..m)
        .map(|j| {
            dist(&c, j, m + j) / (0.5 * (dist(&c, j, (j + 1) % m) + dist(&c, j, (j + m - 1) % m)))
        })
        .sum::<f64>()
        / m as f64;
    assert!((0.7..1.4).contains(&aspect), "{aspect}");
    // The requested first spacing on average.
    for h in [0.008, 0.012, 0.025] {
        let g = NacaOGrid {
            stretching: Some(Stretching::FirstSpacing(h)),
            ..base.clone()
        };
        let got = mean_first_spacing(&g.generate().unwrap(), m);
        assert!((got / h - 1.0).abs() < 0.05, "asked {h}, got {got}");
    }
    // The requested growth ratio, far out where the map is nearly linear
    // (along the leading edge's grid line).
    for ratio in [1.06, 1.08] {
        let g = NacaOGrid {
            stretching: Some(Stretching::GrowthRatio(ratio)),
            ..base.clone()
        };
        let c = g.generate().unwrap();
        let step = |r: usize| dist(&c, r * m + m / 2, (r + 1) * m + m / 2);
        let got = step(rings - 3) / step(rings - 4);
        assert!((got / ratio - 1.0).abs() < 0.01, "asked {ratio}, got {got}");
    }
}

fn generate_err(g: NacaOGrid) -> String {
    g.generate().map(|_| ()).unwrap_err().to_string()
}

#[test]
fn bad_arguments_are_errors_naming_them() {
    let ok = grid("0012", 160, 60, 10.0);
    let with = |f: &dyn Fn(&mut NacaOGrid)| {
        let mut g = ok.clone();
        f(&mut g);
        generate_err(g)
    };
    let cases: Vec<(String, &str)> = vec![
        (with(&|g| g.wall_points = 0), "wall_points = 0"),
        (with(&|g| g.wall_points = 14), "wall_points = 14"),
        (with(&|g| g.wall_points = 161), "wall_points = 161"),
        (
            with(&|g| g.wall_points = 2_000_000),
            "wall_points = 2000000",
        ),
        (with(&|g| g.rings = 0), "rings = 0"),
        (with(&|g| g.rings = 3), "rings = 3"),
        (with(&|g| g.far_field = 1.0), "far_field = 1:"),
        (with(&|g| g.far_field = 0.7), "far_field = 0.7"),
        (with(&|g| g.far_field = -10.0), "far_field = -10"),
        (with(&|g| g.far_field = f64::NAN), "far_field = NaN"),
        (with(&|g| g.far_field = f64::INFINITY), "far_field = inf"),
        (with(&|g| g.far_field = 2e6), "far_field = 2000000"),
        (
            with(&|g| g.stretching = Some(Stretching::FirstSpacing(0.0))),
            "first_spacing = 0",
        ),
        (
            with(&|g| g.stretching = Some(Stretching::FirstSpacing(-0.01))),
            "first_spacing = -0.01",
        ),
        (
            with(&|g| g.stretching = Some(Stretching::FirstSpacing(f64::NAN))),
            "first_spacing = NaN",
        ),
        (
            with(&|g| g.stretching = Some(Stretching::FirstSpacing(f64::INFINITY))),
            "first_spacing = inf",
        ),
        (
            with(&|g| g.stretching = Some(Stretching::FirstSpacing(5.0))),
            "at most",
        ),
        (
            with(&|g| g.stretching = Some(Stretching::FirstSpacing(1e-6))),
            "too small",
        ),
        (
            with(&|g| g.stretching = Some(Stretching::FirstSpacing(0.1))),
            "too large",
        ),
        (
            with(&|g| g.stretching = Some(Stretching::GrowthRatio(0.9))),
            "growth = 0.9",
        ),
        (
            with(&|g| g.stretching = Some(Stretching::GrowthRatio(0.0))),
            "growth = 0",
        ),
        (
            with(&|g| g.stretching = Some(Stretching::GrowthRatio(f64::NAN))),
            "growth = NaN",
        ),
        (
            with(&|g| g.stretching = Some(Stretching::GrowthRatio(f64::INFINITY))),
            "growth = inf",
        ),
        // Too large to reach the circle with a usable first ring; too
        // small (equal steps) for this many wall points.
        (
            with(&|g| g.stretching = Some(Stretching::GrowthRatio(1e6))),
            "too large for rings = 60",
        ),
        (
            with(&|g| g.stretching = Some(Stretching::GrowthRatio(1.0))),
            "too small for rings = 60",
        ),
        (with(&|g| g.rings = 5000), "rings = 5000 is too many"),
        (with(&|g| g.section.t = 0.0), "thickness t = 0"),
        (with(&|g| g.section.t = f64::NAN), "thickness t = NaN"),
        (
            with(&|g| {
                g.section.m = 0.02;
                g.section.p = 0.0;
            }),
            "position p = 0",
        ),
        (with(&|g| g.section.m = -0.01), "camber m = -0.01"),
        (
            with(&|g| {
                g.wall_points = 1_000_000;
                g.rings = 1_000_000;
            }),
            "too many points",
        ),
        (with(&|g| g.rings = usize::MAX), "too many points"),
        // Cells the solver's fits cannot use: an error, not a cloud the
        // solver refuses (here the far-field cells beside the x-axis).
        (
            with(&|g| {
                g.wall_points = 16;
                g.rings = 40;
            }),
            "nearly singular",
        ),
        // Extreme sections fold: an error, not a folded cloud.
        (with(&|g| g.section = "9901".parse().unwrap()), "folds"),
    ];
    for (message, expected) in &cases {
        assert!(message.starts_with("cannot generate: "), "{message}");
        assert!(
            message.contains(expected),
            "expected {expected:?} in {message:?}"
        );
    }
    // A far field just outside twice the section's extent is fine.
    assert!(with(&|g| g.far_field = 1.0).contains("more than 1,"));
    assert!(NacaOGrid {
        far_field: 1.3,
        ..ok.clone()
    }
    .generate()
    .is_ok());
}

fn any_stretching() -> impl Strategy<Value = Option<Stretching>> {
    prop_oneof![
        Just(None),
        any::<f64>().prop_map(|h| Some(Stretching::FirstSpacing(h))),
        (0.0..0.2f64).prop_map(|h| Some(Stretching::FirstSpacing(h))),
        any::<f64>().prop_map(|g| Some(Stretching::GrowthRatio(g))),
        (0.9..1.6f64).prop_map(|g| Some(Stretching::GrowthRatio(g))),
    ]
}

fn any_length() -> impl Strategy<Value = f64> {
    prop_oneof![any::<f64>(), -2.0..3.0f64, 1.0..300.0f64]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Any arguments give a cloud or an error, never a panic; a cloud is
    /// always structurally valid and has every point.
    #[test]
    fn generate_never_panics(
        code in "[0-9]{4}",
        wall_points in 0usize..300,
        rings in 0usize..90,
        far_field in any_length(),
        stretching in any_stretching(),
    ) {
        let Ok(section) = code.parse::<Naca4>() else { return Ok(()) };
        let g = NacaOGrid { section, wall_points, rings, far_field, stretching };
        if let Ok(c) = g.generate() {
            prop_assert_eq!(c.len(), wall_points * rings);
            prop_assert!(c.validate_structure().is_ok());
        }
    }

    #[test]
    fn arbitrary_sections_never_panic(
        m in any_length(),
        p in any_length(),
        t in any_length(),
        far_field in 1.0..50.0f64,
    ) {
        let section = Naca4 { m, p, t };
        let g = NacaOGrid { section, wall_points: 32, rings: 8, far_field, stretching: None };
        let _ = g.generate();
    }

    #[test]
    fn parsing_never_panics(code in "\\PC{0,12}") {
        let _ = code.parse::<Naca4>();
    }
}

/// Compares the default 160 x 60 cloud with the legacy 9,600-point cloud
/// of the same layout (skipped where the shared data are not present).
#[test]
fn matches_the_layout_of_the_legacy_cloud() {
    let path = std::path::Path::new("../../../shared/data/naca0012-9600.partgrid");
    if !path.exists() {
        eprintln!("skipped: {} not found", path.display());
        return;
    }
    let legacy = crate::legacy::read(path).unwrap();
    let c = NacaOGrid::default().generate().unwrap();
    let m = 160;
    assert_eq!(c.len(), legacy.len());
    assert_eq!(c.kind_counts(), legacy.kind_counts());
    assert!(c.kind == legacy.kind && c.shape == legacy.shape);
    // Boundary neighbours on the wall and far-field rings (the file's
    // interior points on grid line 0 have a non-cyclic left neighbour,
    // which the solver ignores).
    for i in (0..m).chain(c.len() - m..c.len()) {
        assert_eq!(
            (c.left[i], c.right[i]),
            (legacy.left[i], legacy.right[i]),
            "point {i}"
        );
    }
    // Same chord stations and far-field points (the file has six
    // significant digits); its section is up to 2.5% thinner than the
    // closed-trailing-edge formula.
    for j in 0..m {
        assert!((c.x[j] - legacy.x[j]).abs() < 1e-6, "wall point {j}");
        assert!(
            (c.y[j] - legacy.y[j]).abs() <= 0.025 * c.y[j].abs() + 1e-8,
            "wall point {j}"
        );
        let i = c.len() - m + j;
        let off = (c.x[i] - legacy.x[i]).hypot(c.y[i] - legacy.y[i]);
        assert!(off < 1e-4, "far-field point {j}: {off}");
    }
    // Same kind of ring spacing: the legacy wall cells are about 1.6
    // times taller than these (square on average), along the whole wall.
    let ratio = mean_first_spacing(&legacy, m) / mean_first_spacing(&c, m);
    assert!((1.3..2.0).contains(&ratio), "{ratio}");
    // Mostly the same structured stencils.
    let same = (0..c.len())
        .filter(|&i| {
            let (mut a, mut b) = (c.neighbours(i).to_vec(), legacy.neighbours(i).to_vec());
            a.sort_unstable();
            b.sort_unstable();
            a == b
        })
        .count();
    assert!(same >= c.len() - 10, "{same} of {}", c.len());
}

/// Speed: `cargo test -p qflow-mesh --release -- --ignored --nocapture
/// generation_speed`.
#[test]
#[ignore]
fn generation_speed() {
    for (m, rings) in [(2000, 500), (5000, 2000)] {
        let g = grid("2412", m, rings, 20.0);
        let start = std::time::Instant::now();
        let c = g.generate().unwrap();
        let seconds = start.elapsed().as_secs_f64();
        println!(
            "{m} x {rings} = {} points in {seconds:.3} s: {:.3e} points/s",
            c.len(),
            c.len() as f64 / seconds
        );
    }
}
