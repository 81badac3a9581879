//! The surfaces of a cloud's bodies: their points in order along each
//! body, the rows of a surface plot ([`surface_rows`]), and `surface.csv`
//! ([`write_surface`]): one row per point of each body, with the named
//! columns a method gives (q-LSKUM's: `cp`).
//!
//! A body is the set of points with one shape id `> 0`: its wall points and,
//! in the usual clouds, the trailing-edge point, which is an interior point
//! with the body's shape id. Each body is listed from its point of largest x
//! (the trailing edge of an aerofoil), following the `right` boundary
//! neighbours (in the usual clouds: along the lower surface to the leading
//! edge, then back along the upper surface), so that joining the rows in order
//! draws the body's outline (close it back to the first row of the body).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::Path;

use qflow_mesh::{Cloud, NO_POINT};

use crate::error::check_fields;
use crate::{DataError, OutputError};

/// The points of one body (shape id), in order along its surface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyOutline {
    /// The body's shape id (`> 0`).
    pub shape: u32,
    /// Its points (0-based cloud indices), from the point of largest x along
    /// the `right` neighbours. If the boundary links do not close the body
    /// into one loop (a defective cloud), it is listed as several chains one
    /// after another, each in link order.
    pub points: Vec<usize>,
}

/// One point of a body's surface with its pressure coefficient: a row of
/// [`crate::plot::plot_cp_rows`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceRow {
    /// The point (0-based cloud index) or, on a mesh, the wall edge.
    pub index: usize,
    /// The body's shape id.
    pub shape: u32,
    /// x coordinate.
    pub x: f64,
    /// y coordinate.
    pub y: f64,
    /// `(x - x_min) / (x_max - x_min)` over the body's points: 0 at its
    /// leading edge, 1 at its trailing edge (0 for a body of one point).
    pub x_over_c: f64,
    /// The pressure coefficient with the conventional sign (negative on the
    /// suction side).
    pub cp: f64,
}

/// The bodies of `cloud` in increasing shape id, each in order along its
/// surface (see [`BodyOutline`]).
pub fn body_outlines(cloud: &Cloud) -> Vec<BodyOutline> {
    let mut members: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, &s) in cloud.shape.iter().enumerate() {
        if s > 0 {
            members.entry(s).or_default().push(i);
        }
    }
    members
        .into_iter()
        .map(|(shape, points)| BodyOutline {
            shape,
            points: order_body(cloud, shape, &points),
        })
        .collect()
}

/// The points of body `shape` (its `members`) in surface order.
fn order_body(cloud: &Cloud, shape: u32, members: &[usize]) -> Vec<usize> {
    let on_body = |j: u32| j != NO_POINT && cloud.shape[j as usize] == shape;
    // A link may be recorded on one side only (a point whose `right` is
    // missing but which is its successor's `left`), so the walk also uses the
    // reverse links.
    let mut after: HashMap<usize, usize> = HashMap::new();
    let mut before: HashMap<usize, usize> = HashMap::new();
    for &i in members {
        if on_body(cloud.left[i]) {
            after.entry(cloud.left[i] as usize).or_insert(i);
        }
        if on_body(cloud.right[i]) {
            before.entry(cloud.right[i] as usize).or_insert(i);
        }
    }
    let next = |i: usize| {
        let r = cloud.right[i];
        if on_body(r) {
            Some(r as usize)
        } else {
            after.get(&i).copied()
        }
    };
    let previous = |i: usize| {
        let l = cloud.left[i];
        if on_body(l) {
            Some(l as usize)
        } else {
            before.get(&i).copied()
        }
    };

    let mut visited: HashSet<usize> = HashSet::with_capacity(members.len());
    let mut order = Vec::with_capacity(members.len());
    // Each pass lists one chain, from the unvisited point of largest x (the
    // lowest index among equals); one pass for a well-linked body.
    while let Some(start) = members
        .iter()
        .copied()
        .filter(|i| !visited.contains(i))
        .fold(None, |best: Option<usize>, i| match best {
            Some(b) if cloud.x[b] >= cloud.x[i] => Some(b),
            _ => Some(i),
        })
    {
        visited.insert(start);
        let mut chain = vec![start];
        let mut closed = false;
        let mut cur = start;
        while let Some(n) = next(cur) {
            if n == start {
                closed = true;
                break;
            }
            if !visited.insert(n) {
                break;
            }
            chain.push(n);
            cur = n;
        }
        if !closed {
            // An open chain: walk back from the start too, so the chain is
            // listed from one end to the other.
            let mut back = Vec::new();
            let mut cur = start;
            while let Some(p) = previous(cur) {
                if !visited.insert(p) {
                    break;
                }
                back.push(p);
                cur = p;
            }
            back.reverse();
            back.append(&mut chain);
            chain = back;
        }
        order.append(&mut chain);
    }
    order
}

/// A point of a body in surface order: the point, its body's shape id and
/// its `x_over_c` (see [`SurfaceRow`]).
struct Place {
    index: usize,
    shape: u32,
    x_over_c: f64,
}

/// Every body's points in surface order (see [`body_outlines`]), with
/// their x/c.
fn places(cloud: &Cloud) -> Vec<Place> {
    let mut places = Vec::new();
    for body in body_outlines(cloud) {
        let (x_min, x_max) = body
            .points
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &i| {
                (lo.min(cloud.x[i]), hi.max(cloud.x[i]))
            });
        let chord = x_max - x_min;
        places.extend(body.points.iter().map(|&i| Place {
            index: i,
            shape: body.shape,
            x_over_c: if chord > 0.0 {
                (cloud.x[i] - x_min) / chord
            } else {
                0.0
            },
        }));
    }
    places
}

/// The rows of a surface plot: every body's points in surface order (see
/// [`body_outlines`]), with `cp[i]` the pressure coefficient of point `i`.
/// An error unless there is one value per point.
pub fn surface_rows(cloud: &Cloud, cp: &[f64]) -> Result<Vec<SurfaceRow>, DataError> {
    check_fields([("cp", cp.len())], cloud.len(), "points")?;
    Ok(places(cloud)
        .into_iter()
        .map(|p| SurfaceRow {
            index: p.index,
            shape: p.shape,
            x: cloud.x[p.index],
            y: cloud.y[p.index],
            x_over_c: p.x_over_c,
            cp: cp[p.index],
        })
        .collect())
}

/// The header of `surface.csv` with the columns `names`: `x,y,x_over_c`,
/// the names, `point`, and `shape` when the cloud has more than one body
/// (`several`).
pub fn header(names: &[&str], several: bool) -> String {
    let mut h = String::from("x,y,x_over_c");
    for name in names {
        h.push(',');
        h.push_str(name);
    }
    h.push_str(",point");
    if several {
        h.push_str(",shape");
    }
    h
}

/// Writes `surface.csv`: a row for every point of every body in surface
/// order (see [`body_outlines`]), `x,y,x_over_c`, then the value of point
/// `i` of each of `columns` (`(name, values)`, one value per point), then
/// the point number (1-based) and, when the cloud has more than one body,
/// the body's shape id; the [`header`] first; reals to 17 significant
/// digits; atomically. An error, and nothing written, unless each column
/// has one value per point and a name of letters, digits and `_`.
pub fn write_surface(
    path: &Path,
    cloud: &Cloud,
    columns: &[(&str, &[f64])],
) -> Result<(), OutputError> {
    let lengths = columns.iter().map(|(name, v)| (*name, v.len()));
    check_fields(lengths, cloud.len(), "points").map_err(|e| e.at(path))?;
    let places = places(cloud);
    let several = places.iter().any(|p| p.shape != places[0].shape);
    let names: Vec<&str> = columns.iter().map(|c| c.0).collect();
    qflow_mesh::fsutil::write_atomically(path, |w| {
        writeln!(w, "{}", header(&names, several))?;
        for p in &places {
            let i = p.index;
            write!(
                w,
                "{:.16e},{:.16e},{:.16e}",
                cloud.x[i], cloud.y[i], p.x_over_c
            )?;
            for (_, values) in columns {
                write!(w, ",{:.16e}", values[i])?;
            }
            write!(w, ",{}", i + 1)?;
            if several {
                write!(w, ",{}", p.shape)?;
            }
            writeln!(w)?;
        }
        Ok(())
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_case;
    use qflow_mesh::PointKind;

    /// The header of a one-body cloud's `surface.csv` with Cp.
    const HEADER: &str = "x,y,x_over_c,cp,point";

    #[test]
    fn rows_follow_the_boundary_from_the_trailing_edge() {
        let (cloud, flow) = test_case::naca0012();
        let rows = surface_rows(&cloud, &flow.cp).unwrap();
        let body: Vec<usize> = (0..cloud.len()).filter(|&i| cloud.shape[i] > 0).collect();
        assert_eq!(rows.len(), body.len());
        let mut seen: Vec<usize> = rows.iter().map(|r| r.index).collect();
        seen.sort_unstable();
        assert_eq!(seen, body, "every shape point once");
        // The trailing edge (1, 0) first: an interior point with the body's id.
        assert_eq!((rows[0].x, rows[0].y), (1.0, 0.0));
        assert_eq!(cloud.kind[rows[0].index], PointKind::Interior);
        assert_eq!(rows[0].x_over_c, 1.0);
        // Then along the `right` links, closing back on the first point.
        for (k, r) in rows.iter().enumerate() {
            let next = rows[(k + 1) % rows.len()].index;
            assert_eq!(cloud.right[r.index] as usize, next, "row {k}");
            assert_eq!(r.cp.to_bits(), flow.cp[r.index].to_bits());
            assert_eq!((r.x, r.y, r.shape), (cloud.x[r.index], cloud.y[r.index], 1));
            assert!((0.0..=1.0).contains(&r.x_over_c));
        }
        // The generator's order: the lower surface first, the leading edge half way.
        assert!(rows[1].y < 0.0);
        assert_eq!(rows[rows.len() / 2].x_over_c, 0.0);
        // The synthetic flow has its suction on the upper surface.
        let upper_min = rows
            .iter()
            .filter(|r| r.y > 0.0)
            .map(|r| r.cp)
            .fold(0.0, f64::min);
        let lower_min = rows
            .iter()
            .filter(|r| r.y < 0.0)
            .map(|r| r.cp)
            .fold(0.0, f64::min);
        assert!(
            upper_min < -1.0 && upper_min < 2.0 * lower_min,
            "{upper_min} {lower_min}"
        );
    }

    /// Two square bodies: body 2 (listed first in the file) is linked with
    /// `right` only on some points and `left` on the others; body 5 is an
    /// open chain with a stray point.
    fn two_bodies() -> Cloud {
        let n = 9;
        let mut c = Cloud {
            x: vec![0.0, 1.0, 1.0, 0.0, 5.0, 6.0, 7.0, 9.0, -3.0],
            y: vec![0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.0, 9.0, -3.0],
            kind: vec![PointKind::Wall; n],
            left: vec![NO_POINT; n],
            right: vec![NO_POINT; n],
            shape: vec![2, 2, 2, 2, 5, 5, 5, 5, 0],
            min_dist: vec![1.0; n],
            nbr_start: vec![0; n + 1],
            nbr: vec![],
            quadtree: None,
        };
        // Body 2: 0 -> 1 -> 2 -> 3 -> 0, with 1 -> 2 recorded only as left[2].
        c.right[0] = 1;
        c.left[2] = 1;
        c.right[2] = 3;
        c.left[0] = 3;
        // Body 5: 4 -> 5 -> 6, and 7 alone; 6's right points off the body.
        c.right[4] = 5;
        c.right[5] = 6;
        c.right[6] = 8;
        c.validate_structure().unwrap();
        c
    }

    #[test]
    fn several_bodies_and_broken_links() {
        let c = two_bodies();
        let outlines = body_outlines(&c);
        // Body 2 starts at its largest x (points 1 and 2 tie: the lower index).
        assert_eq!(
            outlines,
            vec![
                BodyOutline {
                    shape: 2,
                    points: vec![1, 2, 3, 0]
                },
                // 7 has the largest x; then the chain 4 -> 5 -> 6 from its
                // largest-x point 6, walked back to 4.
                BodyOutline {
                    shape: 5,
                    points: vec![7, 4, 5, 6]
                },
            ]
        );
        let cp: Vec<f64> = (0..c.len()).map(|i| i as f64 - 0.5).collect();
        let rows = surface_rows(&c, &cp).unwrap();
        assert_eq!(rows[0].x_over_c, 1.0);
        assert_eq!(rows[3].x_over_c, 0.0);
        assert_eq!(rows[4].x_over_c, 1.0); // point 7, x = 9 on body 5 (x from 5 to 9)
        assert_eq!(rows[5].x_over_c, 0.0);

        let dir = test_case::temp_dir("surface-bodies");
        let path = dir.join("surface.csv");
        let twice: Vec<f64> = cp.iter().map(|v| 2.0 * v).collect();
        write_surface(&path, &c, &[("cp", &cp), ("cp2", &twice)]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("x,y,x_over_c,cp,cp2,point,shape"));
        let fields: Vec<Vec<String>> = lines
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        assert_eq!(fields.len(), 8);
        let numbers: Vec<&str> = fields.iter().map(|f| f[5].as_str()).collect();
        assert_eq!(numbers, ["2", "3", "4", "1", "8", "5", "6", "7"]);
        for f in &fields {
            let i: usize = f[5].parse::<usize>().unwrap() - 1;
            assert_eq!(f[3].parse::<f64>().unwrap(), cp[i]);
            assert_eq!(f[4].parse::<f64>().unwrap(), twice[i]);
        }
        assert_eq!(fields[0][6], "2");
        assert_eq!(fields[7][6], "5");
        // Without columns: the place and the number alone.
        write_surface(&path, &c, &[]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().next(), Some("x,y,x_over_c,point,shape"));
        assert_eq!(
            text.lines().nth(1),
            Some("1.0000000000000000e0,0.0000000000000000e0,1.0000000000000000e0,2,2")
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn file_holds_the_rows_exactly() {
        let (cloud, flow) = test_case::naca0012();
        let rows = surface_rows(&cloud, &flow.cp).unwrap();
        let dir = test_case::temp_dir("surface-file");
        let path = dir.join("surface.csv");
        write_surface(&path, &cloud, &[("cp", &flow.cp)]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(HEADER));
        assert_eq!(header(&["cp"], false), HEADER);
        let mut count = 0;
        for (line, r) in lines.zip(&rows) {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), 5);
            let real = |k: usize| f[k].parse::<f64>().unwrap().to_bits();
            assert_eq!(real(0), r.x.to_bits());
            assert_eq!(real(1), r.y.to_bits());
            assert_eq!(real(2), r.x_over_c.to_bits());
            assert_eq!(real(3), r.cp.to_bits());
            assert_eq!(f[4].parse::<usize>().unwrap(), r.index + 1);
            count += 1;
        }
        assert_eq!(count, rows.len());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn wrong_lengths_and_names_are_errors() {
        let (cloud, flow) = test_case::naca0012();
        let e = surface_rows(&cloud, &flow.cp[1..]).unwrap_err();
        assert_eq!(e.to_string(), "field `cp` has 1535 values for 1536 points");
        let empty = surface_rows(&Cloud::default(), &[]).unwrap();
        assert!(empty.is_empty());
        // Writing: an error naming the file, and nothing written.
        let dir = test_case::temp_dir("surface-bad");
        let path = dir.join("surface.csv");
        for (columns, what) in [
            (&[("cp", &flow.cp[1..])][..], "`cp` has 1535 values"),
            (&[("c p", &flow.cp[..])], "letters, digits and _ only"),
            (&[("cp", &flow.cp[..]), ("cp", &flow.cp[..])], "given twice"),
        ] {
            let e = write_surface(&path, &cloud, columns).unwrap_err();
            assert!(matches!(e, OutputError::Data { .. }), "{e}");
            assert!(
                e.to_string().starts_with(&format!("{}: ", path.display())),
                "{e}"
            );
            assert!(e.to_string().contains(what), "{e}");
        }
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        let e =
            write_surface(&dir.join("no/surface.csv"), &cloud, &[("cp", &flow.cp)]).unwrap_err();
        assert!(matches!(e, OutputError::File(_)), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
