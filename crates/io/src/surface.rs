//! The surface pressure, `surface.csv`: one row per point of each body, in
//! order along the body's surface.
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

use qflow_lskum::forces::pressure_coefficient;
use qflow_lskum::gas::FreeStream;
use qflow_lskum::Vec4;
use qflow_mesh::{Cloud, NO_POINT};

use crate::error::check_states;
use crate::{DataError, OutputError};

/// The header of `surface.csv` for a cloud with one body.
pub const HEADER: &str = "x,y,x_over_c,cp,point";

/// The header of `surface.csv` for a cloud with several bodies: the same
/// columns, and the body's shape id last.
pub const HEADER_SHAPES: &str = "x,y,x_over_c,cp,point,shape";

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

/// One row of `surface.csv`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceRow {
    /// The point (0-based cloud index; written 1-based).
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

/// The rows of `surface.csv`: every body's points in surface order (see
/// [`body_outlines`]), with `prim[i]` the state of point `i`. An error
/// unless there is one state per point.
pub fn surface_rows(
    cloud: &Cloud,
    prim: &[Vec4],
    fs: &FreeStream,
) -> Result<Vec<SurfaceRow>, DataError> {
    check_states(prim.len(), cloud.len())?;
    let mut rows = Vec::new();
    for body in body_outlines(cloud) {
        let (x_min, x_max) = body
            .points
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &i| {
                (lo.min(cloud.x[i]), hi.max(cloud.x[i]))
            });
        let chord = x_max - x_min;
        rows.extend(body.points.iter().map(|&i| SurfaceRow {
            index: i,
            shape: body.shape,
            x: cloud.x[i],
            y: cloud.y[i],
            x_over_c: if chord > 0.0 {
                (cloud.x[i] - x_min) / chord
            } else {
                0.0
            },
            cp: pressure_coefficient(prim[i][3], fs),
        }));
    }
    Ok(rows)
}

/// Writes `surface.csv` (see [`surface_rows`]): header [`HEADER`], or
/// [`HEADER_SHAPES`] when the cloud has more than one body; reals to 17
/// significant digits, point numbers 1-based; atomically. `cp` has the
/// conventional sign: negative on the suction side. An error, and nothing
/// written, unless there is one state per point.
pub fn write_surface(
    path: &Path,
    cloud: &Cloud,
    prim: &[Vec4],
    fs: &FreeStream,
) -> Result<(), OutputError> {
    let rows = surface_rows(cloud, prim, fs).map_err(|e| e.at(path))?;
    let several = rows.iter().any(|r| r.shape != rows[0].shape);
    qflow_mesh::fsutil::write_atomically(path, |w| {
        writeln!(w, "{}", if several { HEADER_SHAPES } else { HEADER })?;
        for r in &rows {
            write!(
                w,
                "{:.16e},{:.16e},{:.16e},{:.16e},{}",
                r.x,
                r.y,
                r.x_over_c,
                r.cp,
                r.index + 1
            )?;
            if several {
                write!(w, ",{}", r.shape)?;
            }
            writeln!(w)?;
        }
        Ok(())
    })?;
    Ok(())
}

/// Test data shared by the tests of this crate's writers.
#[cfg(test)]
pub(crate) mod test_case {
    use std::path::PathBuf;

    use qflow_lskum::gas::{FreeStream, GAMMA, P_INF, RHO_INF};
    use qflow_lskum::Vec4;
    use qflow_mesh::generate::NacaOGrid;
    use qflow_mesh::Cloud;

    /// The free stream of [`naca0012`]: M 0.63 at 2 degrees.
    pub(crate) fn free_stream() -> FreeStream {
        FreeStream::new(0.63, 2.0)
    }

    /// A 64 x 24 NACA 0012 O-grid (1,536 points) and a synthetic state: the
    /// free stream, with a pressure dip over the section (strong on the upper
    /// surface, weak on the lower, largest at the leading edge) that decays
    /// within about 0.3 chords of the chord line, and the isentropic density
    /// and speed (same total enthalpy) that go with it. The flow is
    /// supersonic just above the leading edge.
    pub(crate) fn naca0012() -> (Cloud, Vec<Vec4>, FreeStream) {
        let cloud = NacaOGrid {
            section: "naca0012".parse().unwrap(),
            wall_points: 64,
            rings: 24,
            far_field: 10.0,
            stretching: None,
        }
        .generate()
        .unwrap();
        let fs = free_stream();
        let prim = (0..cloud.len())
            .map(|i| state_at(cloud.x[i], cloud.y[i], &fs))
            .collect();
        (cloud, prim, fs)
    }

    /// The synthetic state of [`naca0012`] at `(x, y)`.
    pub(crate) fn state_at(x: f64, y: f64, fs: &FreeStream) -> Vec4 {
        let xc = x.clamp(0.0, 1.0);
        let distance_to_chord = (x - xc).hypot(y);
        let decay = (-(distance_to_chord / 0.15).powi(2)).exp();
        let side = 0.6 + 0.4 * (y / 0.02).tanh();
        let p = P_INF * (1.0 - 0.35 * decay * side * (1.0 - xc));
        let rho = RHO_INF * (p / P_INF).powf(1.0 / GAMMA);
        // Total enthalpy per unit mass: a^2 / (gamma - 1) + |u|^2 / 2.
        let h0 = GAMMA * P_INF / RHO_INF / (GAMMA - 1.0) + 0.5 * fs.mach * fs.mach;
        let speed = (2.0 * (h0 - GAMMA * p / rho / (GAMMA - 1.0))).sqrt();
        [rho, speed * fs.theta.cos(), speed * fs.theta.sin(), p]
    }

    /// A fresh, empty folder for the test `name`.
    pub(crate) fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("qflow-io-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qflow_mesh::PointKind;

    #[test]
    fn rows_follow_the_boundary_from_the_trailing_edge() {
        let (cloud, prim, fs) = test_case::naca0012();
        let rows = surface_rows(&cloud, &prim, &fs).unwrap();
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
            assert_eq!(
                r.cp.to_bits(),
                pressure_coefficient(prim[r.index][3], &fs).to_bits()
            );
            assert_eq!((r.x, r.y, r.shape), (cloud.x[r.index], cloud.y[r.index], 1));
            assert!((0.0..=1.0).contains(&r.x_over_c));
        }
        // The generator's order: the lower surface first, the leading edge half way.
        assert!(rows[1].y < 0.0);
        assert_eq!(rows[rows.len() / 2].x_over_c, 0.0);
        // The synthetic state has its suction on the upper surface.
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
        let prim = vec![[1.0, 0.5, 0.0, 0.7]; c.len()];
        let fs = test_case::free_stream();
        let rows = surface_rows(&c, &prim, &fs).unwrap();
        assert_eq!(rows[0].x_over_c, 1.0);
        assert_eq!(rows[3].x_over_c, 0.0);
        assert_eq!(rows[4].x_over_c, 1.0); // point 7, x = 9 on body 5 (x from 5 to 9)
        assert_eq!(rows[5].x_over_c, 0.0);

        let dir = test_case::temp_dir("surface-bodies");
        let path = dir.join("surface.csv");
        write_surface(&path, &c, &prim, &fs).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(HEADER_SHAPES));
        let fields: Vec<Vec<String>> = lines
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        assert_eq!(fields.len(), 8);
        let numbers: Vec<&str> = fields.iter().map(|f| f[4].as_str()).collect();
        assert_eq!(numbers, ["2", "3", "4", "1", "8", "5", "6", "7"]);
        assert_eq!(fields[0][5], "2");
        assert_eq!(fields[7][5], "5");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn file_holds_the_rows_exactly() {
        let (cloud, prim, fs) = test_case::naca0012();
        let rows = surface_rows(&cloud, &prim, &fs).unwrap();
        let dir = test_case::temp_dir("surface-file");
        let path = dir.join("surface.csv");
        write_surface(&path, &cloud, &prim, &fs).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(HEADER));
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
    fn wrong_state_length_is_an_error() {
        let (cloud, prim, fs) = test_case::naca0012();
        let e = surface_rows(&cloud, &prim[1..], &fs).unwrap_err();
        assert!(e.to_string().contains("states for"), "{e}");
        let empty = surface_rows(&Cloud::default(), &[], &fs).unwrap();
        assert!(empty.is_empty());
        // Writing: an error naming the file, and nothing written.
        let dir = test_case::temp_dir("surface-bad");
        let path = dir.join("surface.csv");
        let e = write_surface(&path, &cloud, &prim[1..], &fs).unwrap_err();
        assert!(matches!(e, OutputError::Data { .. }), "{e}");
        assert!(
            e.to_string().starts_with(&format!("{}: ", path.display())),
            "{e}"
        );
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        let e = write_surface(&dir.join("no/surface.csv"), &cloud, &prim, &fs).unwrap_err();
        assert!(matches!(e, OutputError::File(_)), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
