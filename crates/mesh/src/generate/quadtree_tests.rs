//! Tests of the quadtree generator: the solver's check, the wall ring on
//! the section, mirror symmetry, the level balance, stencils that do not
//! cross the body, normals and argument errors.

use super::*;
use crate::check::check;
use crate::geometry::boundary_normal;
use crate::PointKind;

fn quadtree(code: &str, wall_spacing: f64, grading: f64) -> NacaQuadtree {
    NacaQuadtree {
        section: code.parse().unwrap(),
        far_field: 10.0,
        wall_spacing,
        grading,
    }
}

/// Half-thickness of a symmetric NACA 00xx section, transcribed anew
/// (closed trailing edge).
fn yt(t: f64, x: f64) -> f64 {
    t / 0.2
        * (0.2969 * x.sqrt() - 0.126 * x - 0.3516 * x.powi(2) + 0.2843 * x.powi(3)
            - 0.1036 * x.powi(4))
}

/// Whether `(x, y)` lies inside the polygon of the cloud's wall ring (the
/// first `m` points), by its winding number.
fn in_wall_polygon(c: &Cloud, m: usize, x: f64, y: f64) -> bool {
    let mut winding = 0i32;
    for a in 0..m {
        let b = (a + 1) % m;
        let (ax, ay, bx, by) = (c.x[a], c.y[a], c.x[b], c.y[b]);
        let side = (bx - ax) * (y - ay) - (by - ay) * (x - ax);
        if ay <= y && by > y && side > 0.0 {
            winding += 1;
        } else if ay > y && by <= y && side < 0.0 {
            winding -= 1;
        }
    }
    winding != 0
}

fn wall_count(c: &Cloud) -> usize {
    c.shape.iter().filter(|&&s| s == 1).count()
}

#[test]
fn quadtree_clouds_pass_the_solver_check() {
    for code in ["0012", "2412", "4415", "0006", "0040"] {
        let c = quadtree(code, 0.01, 4.0).generate().unwrap();
        let report = check(&c, &[]);
        assert!(
            !report
                .findings
                .iter()
                .any(|f| matches!(f.problem, crate::check::Problem::FarNeighbour { .. })),
            "{:?}",
            report.findings
        );
        assert!(report.is_ok(), "naca{code}: {:?}", report.errors().next());
        let (wall, interior, outer) = c.kind_counts();
        let m = wall_count(&c);
        assert_eq!(
            wall + 1,
            m,
            "naca{code}: the trailing edge is the one interior wall point"
        );
        assert_eq!(c.kind[0], PointKind::Interior);
        assert!(
            outer >= 28 && interior > 10 * wall,
            "naca{code}: {wall} {interior} {outer}"
        );
        let q = c.quadtree.as_ref().unwrap();
        assert!(q.depth.iter().all(|&d| (3..=11).contains(&d)), "naca{code}");
    }
}

#[test]
fn wall_ring_lies_on_the_section_at_about_the_finest_cell_size() {
    let g = quadtree("0012", 0.005, 4.0);
    let c = g.generate().unwrap();
    let finest = 20.0 / 4096.0;
    let m = wall_count(&c);
    assert_eq!((c.x[0], c.y[0]), (1.0, 0.0));
    let le = (0..m).find(|&k| c.x[k] == 0.0).unwrap();
    assert_eq!(c.y[le], 0.0);
    for k in 0..m {
        let y = yt(0.12, c.x[k]);
        assert!(
            (c.y[k].abs() - y).abs() < 1e-12,
            "point {k} off the surface"
        );
        // Lower surface first (clockwise from the trailing edge).
        assert!(
            k == 0 || k == le || (c.y[k] < 0.0) == (k < le),
            "point {k} order"
        );
        let next = (k + 1) % m;
        let step = (c.x[next] - c.x[k]).hypot(c.y[next] - c.y[k]);
        assert!(
            step <= finest && step > 0.8 * finest,
            "step {step} after point {k}"
        );
        assert_eq!(
            (c.left[k], c.right[k]),
            (((k + m - 1) % m) as u32, next as u32)
        );
    }
}

#[test]
fn a_symmetric_section_gives_a_mirror_symmetric_cloud() {
    let c = quadtree("0012", 0.005, 5.0).generate().unwrap();
    let mut set = std::collections::HashMap::new();
    for i in 0..c.len() {
        set.insert((c.x[i].to_bits(), c.y[i].to_bits()), i);
    }
    for i in 0..c.len() {
        let j = set[&(c.x[i].to_bits(), (-c.y[i] + 0.0).to_bits())];
        assert_eq!(c.kind[i], c.kind[j]);
        assert_eq!(
            c.neighbours(i).len(),
            c.neighbours(j).len(),
            "points {i} {j}"
        );
    }
}

#[test]
fn neighbouring_cells_differ_by_at_most_one_level() {
    for g in [3.0, 4.0, 8.0] {
        let c = quadtree("2412", 0.005, g).generate().unwrap();
        let depth = &c.quadtree.as_ref().unwrap().depth;
        let size = |i: usize| 20.0 / f64::from(1u32 << depth[i]);
        let mut adjacent = 0;
        for i in (0..c.len()).filter(|&i| c.shape[i] == 0) {
            for &k in c.neighbours(i) {
                let k = k as usize;
                // Cells that touch: centres at most half the sum of the
                // sides apart in both directions.
                let reach = 0.5 * (size(i) + size(k)) * (1.0 + 1e-9);
                if c.shape[k] == 0
                    && (c.x[k] - c.x[i]).abs() <= reach
                    && (c.y[k] - c.y[i]).abs() <= reach
                {
                    adjacent += 1;
                    assert!(
                        (depth[i] - depth[k]).abs() <= 1,
                        "grading {g}: points {i} and {k}, depths {} and {}",
                        depth[i],
                        depth[k]
                    );
                }
            }
        }
        assert!(
            adjacent > 5 * c.len(),
            "grading {g}: {adjacent} adjacent pairs"
        );
    }
}

#[test]
fn no_stencil_crosses_the_body() {
    for code in ["0012", "0006", "0040", "4415"] {
        let c = quadtree(code, 0.01, 4.0).generate().unwrap();
        let m = wall_count(&c);
        for i in 0..c.len() {
            if i >= m {
                assert!(
                    !in_wall_polygon(&c, m, c.x[i], c.y[i]),
                    "naca{code}: point {i} inside"
                );
            }
            for &k in c.neighbours(i) {
                // The wall ring's own edges are the body's boundary.
                if i < m && (k == c.left[i] || k == c.right[i]) {
                    continue;
                }
                let k = k as usize;
                for s in 1..64 {
                    let f = f64::from(s) / 64.0;
                    let (x, y) = (
                        c.x[i] + f * (c.x[k] - c.x[i]),
                        c.y[i] + f * (c.y[k] - c.y[i]),
                    );
                    assert!(
                        !in_wall_polygon(&c, m, x, y),
                        "naca{code}: the stencil of point {i} reaches point {k} through the body"
                    );
                }
            }
        }
    }
}

#[test]
fn normals_point_into_the_fluid_and_out_of_the_square() {
    let c = quadtree("4415", 0.01, 4.0).generate().unwrap();
    let m = wall_count(&c);
    for i in 0..c.len() {
        let Some((nx, ny)) = boundary_normal(&c, i) else {
            assert_eq!(c.kind[i], PointKind::Interior);
            continue;
        };
        match c.kind[i] {
            PointKind::Wall => {
                let step = |e: f64| in_wall_polygon(&c, m, c.x[i] + e * nx, c.y[i] + e * ny);
                assert!(
                    !step(1e-6) && step(-1e-6),
                    "wall point {i}: the normal does not point out of the body"
                );
            }
            PointKind::Outer => {
                assert!(nx * (c.x[i] - 0.5) + ny * c.y[i] > 0.0, "outer point {i}");
            }
            PointKind::Interior => {}
        }
    }
}

#[test]
fn finer_settings_give_more_points() {
    let n = |w: f64, g: f64| quadtree("0012", w, g).generate().unwrap().len();
    let (base, finer, graded) = (n(0.01, 4.0), n(0.005, 4.0), n(0.01, 8.0));
    assert!(finer > base + base / 3, "{base} -> {finer}");
    assert!(graded > base + base / 3, "{base} -> {graded}");
}

#[test]
fn bad_arguments_are_errors_naming_them() {
    let err = |g: NacaQuadtree| match g.generate() {
        Ok(c) => panic!("{g:?} accepted ({} points)", c.len()),
        Err(e) => e.to_string(),
    };
    let base = quadtree("0012", 0.01, 4.0);
    for (far, why) in [
        (0.5, "far_field"),
        (1e5, "far_field"),
        (f64::NAN, "far_field"),
    ] {
        let e = err(NacaQuadtree {
            far_field: far,
            ..base.clone()
        });
        assert!(e.contains(why), "{far}: {e}");
    }
    // 1.2e-6: allowed by the level limit, but about 2e7 cells.
    for w in [0.0, -0.01, 0.1, f64::NAN, 1e-9, f64::INFINITY, 1.2e-6] {
        let e = err(NacaQuadtree {
            wall_spacing: w,
            ..base.clone()
        });
        assert!(e.contains("wall_spacing"), "{w}: {e}");
    }
    for g in [2.0, 40.0, f64::NAN] {
        let e = err(NacaQuadtree {
            grading: g,
            ..base.clone()
        });
        assert!(e.contains("grading"), "{g}: {e}");
    }
}

/// The estimate of the points from the parameters alone (for the memory
/// a run needs, before generating) is within 0.75 and 1.5 times the
/// points generated, over sections, gradings and far fields.
#[test]
fn the_point_estimate_is_near_the_points_generated() {
    for code in ["0012", "4415", "0040"] {
        for (w, g) in [(0.01, 3.0), (0.005, 5.0), (0.02, 32.0), (0.05, 3.0)] {
            for far in [1.0, 10.0, 100.0] {
                let q = NacaQuadtree {
                    section: code.parse().unwrap(),
                    far_field: far,
                    wall_spacing: w,
                    grading: g,
                };
                let n = q.generate().unwrap().len() as f64;
                let e = q.estimated_points().unwrap() as f64;
                assert!(
                    (0.75..=1.5).contains(&(n / e)),
                    "naca{code} w {w} g {g} far {far}: {n} points, estimated {e}"
                );
            }
        }
    }
    let bad = NacaQuadtree {
        grading: 1.0,
        ..quadtree("0012", 0.01, 4.0)
    };
    assert!(bad.estimated_points().is_err());
}
