//! Tests of the cloud check: each defect found and named at its point.

use super::*;
use crate::generate::NacaOGrid;
use crate::legacy;
use std::path::Path;

/// A 3x3 block of interior points with a full 8-point stencil at the
/// centre and the rest of the block as neighbours elsewhere.
fn grid_text() -> String {
    let mut s = String::from("9\n");
    let pts: Vec<(f64, f64)> = (0..9).map(|k| ((k % 3) as f64, (k / 3) as f64)).collect();
    for (i, &(x, y)) in pts.iter().enumerate() {
        let nb: Vec<usize> = (0..9).filter(|&k| k != i).map(|k| k + 1).collect();
        s += &format!(
            "{x} {y} 0 0 1 0 1.0 {} {}\n",
            nb.len(),
            nb.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    s
}

fn run(text: &str) -> Report {
    let (c, p) = legacy::parse_lenient(text.as_bytes(), Path::new("g"), None).unwrap();
    check(&c, &p)
}

#[test]
fn a_corner_point_has_empty_split_stencils() {
    // the corner (0,0) has every neighbour at ds >= 0 and dn >= 0 in the
    // interior frame: xpos and ypos contain only neighbours with ds == 0 /
    // dn == 0, i.e. the ones on the same line -- singular.
    let r = run(&grid_text());
    assert!(r
        .findings
        .iter()
        .any(|f| f.point == 0 && matches!(f.problem, Problem::SingularLeastSquares { .. })));
    // the centre is fine
    assert!(!r.findings.iter().any(|f| f.point == 4));
}

#[test]
fn reports_each_listed_defect_by_point_number() {
    let mut t = grid_text();
    // point 5 (the centre) lists itself; point 9 gets a bad index
    t = t.replacen(
        "1 1 0 0 1 0 1.0 8 1 2 3 4 6",
        "1 1 0 0 1 0 1.0 8 1 2 3 5 6",
        1,
    );
    t = t.replacen("2 2 0 0 1 0 1.0 8 1 2", "2 2 0 0 1 0 1.0 8 1 99", 1);
    // point 8 duplicates point 7
    t = t.replacen("1 2 0 0 1", "0 2 0 0 1", 1);
    let r = run(&t);
    let shown: Vec<String> = r
        .findings
        .iter()
        .map(|f| f.to_string())
        .filter(|s| !s.contains("least-squares"))
        .collect();
    let has = |p: &str| shown.iter().any(|s| s.contains(p));
    assert!(has("point 5: listed as its own neighbour"), "{shown:#?}");
    assert!(
        has("point 9: neighbour 2 is 99, out of range"),
        "{shown:#?}"
    );
    assert!(has("point 8: same coordinates as point 7"), "{shown:#?}");
    assert!(!r.is_ok());
}

#[test]
fn boundary_points_need_left_and_right() {
    let t = grid_text().replacen("1 0 0 0 1 0", "1 0 0 3 0 0", 1);
    let r = run(&t);
    assert!(r
        .findings
        .iter()
        .any(|f| f.point == 1 && f.to_string().contains("without a left boundary neighbour")));
}

// Boundary loops, links and kinds.

/// A small generated cloud: its boundary loops turn the right way.
fn cloud() -> Cloud {
    NacaOGrid {
        section: "naca0012".parse().unwrap(),
        wall_points: 48,
        rings: 12,
        far_field: 8.0,
        stretching: None,
    }
    .generate()
    .unwrap()
}

fn reversed(r: &Report) -> Vec<&'static str> {
    r.findings
        .iter()
        .filter_map(|f| match f.problem {
            Problem::ReversedBoundary { kind, .. } => Some(kind),
            _ => None,
        })
        .collect()
}

/// A cloud squashed a millionfold in y keeps its stencils solvable
/// (the relative determinant does not see scale) but their condition
/// numbers pass 1e8: warnings, no errors; the cloud as generated has
/// none. The condition number is that of the 2 x 2 matrix.
#[test]
fn squashed_stencils_are_ill_conditioned_warnings() {
    let m = geometry::Moments {
        saa: 1.0,
        sbb: 1e-9,
        sab: 0.0,
    };
    assert!((m.condition() / 1e9 - 1.0).abs() < 1e-12);
    let cloud = cloud();
    let ill = |r: &Report| {
        r.findings
            .iter()
            .filter(|f| matches!(f.problem, Problem::IllConditionedLeastSquares { .. }))
            .count()
    };
    assert_eq!(ill(&check(&cloud, &[])), 0);
    let mut squashed = cloud.clone();
    squashed.y.iter_mut().for_each(|y| *y *= 1e-6);
    let r = check(&squashed, &[]);
    assert!(ill(&r) > 100, "{} ill-conditioned", ill(&r));
    let w = r
        .findings
        .iter()
        .find(|f| matches!(f.problem, Problem::IllConditionedLeastSquares { .. }))
        .unwrap();
    assert_eq!(w.severity(), Severity::Warning);
    assert!(w.to_string().contains("condition number"), "{w}");
}

/// A mirrored cloud and one with every left and right neighbour
/// swapped both run their boundary loops the wrong way round (their
/// normals point into the body and into the domain): both loops are
/// errors; the cloud as generated has none.
#[test]
fn mirrored_and_swapped_clouds_have_reversed_boundary_loops() {
    let cloud = cloud();
    assert!(reversed(&check(&cloud, &[])).is_empty());
    let mut mirrored = cloud.clone();
    mirrored.x.iter_mut().for_each(|x| *x = -*x);
    let r = check(&mirrored, &[]);
    assert_eq!(reversed(&r), ["wall", "outer"]);
    assert!(!r.is_ok());
    let mut swapped = cloud.clone();
    std::mem::swap(&mut swapped.left, &mut swapped.right);
    assert_eq!(reversed(&check(&swapped, &[])), ["wall", "outer"]);
    let shown = check(&swapped, &[]).errors().next().unwrap().to_string();
    assert!(shown.contains("normals point into the body"), "{shown}");
}

/// One wall point with its left and right neighbours swapped (its
/// normal would point into the body) is an error at that point.
#[test]
fn a_point_with_swapped_boundary_links_is_an_error() {
    let mut cloud = cloud();
    let i = (0..cloud.len())
        .find(|&i| cloud.kind[i] == PointKind::Wall && i > 3)
        .unwrap();
    let (l, r) = (cloud.left[i], cloud.right[i]);
    cloud.left[i] = r;
    cloud.right[i] = l;
    let report = check(&cloud, &[]);
    let at_i: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.point == i)
        .map(|f| f.to_string())
        .collect();
    assert!(
        at_i.iter().any(|m| m.contains("left and right swapped")),
        "{at_i:?}"
    );
    assert!(!report.is_ok());
}

/// A boundary point whose kind was changed (a wall point made far
/// field, both its boundary neighbours wall points) passed `check`; an
/// error now, naming both neighbours' kinds.
#[test]
fn a_boundary_point_between_points_of_other_kinds_is_an_error() {
    let mut c = cloud();
    let i = (0..c.len())
        .find(|&i| c.kind[i] == PointKind::Wall && i > 3)
        .unwrap();
    c.kind[i] = PointKind::Outer;
    let r = check(&c, &[]);
    let at_i: Vec<String> = r
        .errors()
        .filter(|f| f.point == i)
        .map(|f| f.to_string())
        .collect();
    assert!(
        at_i.iter()
            .any(|m| m.contains("outer point between points of other kinds")
                && m.contains("is wall")),
        "{at_i:?}"
    );
}

/// Wall points without a shape id (every shape 0) gave lift and drag 0
/// with no word from `qflow check`: a warning now, none with shapes.
#[test]
fn a_cloud_without_shapes_is_warned_of() {
    let mut c = cloud();
    assert!(check(&c, &[])
        .findings
        .iter()
        .all(|f| f.problem != Problem::NoShape));
    c.shape.iter_mut().for_each(|s| *s = 0);
    let r = check(&c, &[]);
    let w: Vec<&Finding> = r
        .findings
        .iter()
        .filter(|f| f.problem == Problem::NoShape)
        .collect();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].severity(), Severity::Warning);
    assert_eq!(c.kind[w[0].point], PointKind::Wall);
    assert!(r.is_ok());
}

/// The far-neighbour warnings of a cloud: (point, neighbour).
fn far(r: &Report) -> Vec<(usize, usize)> {
    r.findings
        .iter()
        .filter_map(|f| match f.problem {
            Problem::FarNeighbour { other, .. } => Some((f.point, other)),
            _ => None,
        })
        .collect()
}

/// Two swapped points (as two swapped lines of a file make them: every
/// index to one now reaches the other's place) are warned of at the points
/// that list the one near the body, naming it; the cloud as generated, and
/// the smallest O-grid (the largest ratio of the generated clouds), have no
/// such warning.
#[test]
fn far_neighbours_are_warned_of() {
    let g = |wall_points, rings, far_field| NacaOGrid {
        section: "naca0012".parse().unwrap(),
        wall_points,
        rings,
        far_field,
        stretching: None,
    };
    let small = g(16, 4, 3.0).generate().unwrap();
    assert!(far(&check(&small, &[])).is_empty());
    let c = g(40, 12, 10.0).generate().unwrap();
    assert!(far(&check(&c, &[])).is_empty());
    let mut text = Vec::new();
    legacy::write_to(&c, legacy::Variant::Plain, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    // Line k is point k (1-based): points 101 and 301, 0-based 100, 300.
    lines.swap(101, 301);
    let r = run(&(lines.join("\n") + "\n"));
    let found = far(&r);
    // The points about point 100 (ring 2, fine spacing) list its place,
    // which now holds point 300's coordinates five rings out: each is
    // warned of. (Those about point 300, on ring 7, are spaced widely
    // enough that ring 2 lies within 20 of their median distances.)
    let at: Vec<usize> = found.iter().filter(|f| f.1 == 100).map(|f| f.0).collect();
    assert!(at.len() >= 6, "{found:?}");
    assert!(found.iter().all(|f| f.1 == 100 || f.1 == 300), "{found:?}");
    let shown = r
        .findings
        .iter()
        .find(|f| matches!(f.problem, Problem::FarNeighbour { .. }))
        .unwrap()
        .to_string();
    assert!(shown.starts_with("warning: point "), "{shown}");
    assert!(shown.contains("times as far as the median"), "{shown}");
}
