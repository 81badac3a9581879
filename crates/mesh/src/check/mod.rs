//! Checks a cloud for the defects that make the solver fail or give wrong
//! answers, point by point.

use std::fmt;

use crate::geometry::{self, moments};
use crate::legacy::IndexProblem;
use crate::{Cloud, PointKind, NO_POINT};

/// The condition number above which a least-squares system is reported
/// (a warning): half the digits of a double lost.
pub const ILL_CONDITIONED: f64 = 1e8;

/// A neighbour farther from its point than this many times the median of
/// the point's neighbour distances is reported (a warning): a stencil that
/// reaches across the cloud, as two swapped point lines of a file make.
/// Measured, the most in the clouds qflow generates: 9.3 in the smallest
/// O-grids (16 x 4 points: an outer point's stencil reaches two rings in),
/// 3.5 in the other O-grids of the generator's tests (sizes to 1024 x 420,
/// far fields to 200 chords, every stretching), 1.8 in its quadtrees; 2.5
/// in the 9,600-point legacy cloud. Two swapped lines of a 40 x 12 cloud
/// give 30 and more.
pub const FAR_NEIGHBOUR: f64 = 20.0;

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Worth knowing; the solver runs.
    Warning,
    /// The solver refuses the cloud.
    Error,
}

/// One defect of one point.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// Another point has exactly the same coordinates.
    Duplicate {
        /// The other point (0-based).
        other: usize,
    },
    /// A point index in the file is out of range.
    IndexOutOfRange {
        /// The field (`left`, `right`, `neighbour 3`).
        field: String,
        /// The value in the file.
        value: i64,
    },
    /// The point is listed as its own neighbour.
    SelfNeighbour,
    /// A neighbour is listed more than once.
    RepeatedNeighbour {
        /// The repeated neighbour (0-based).
        other: usize,
    },
    /// The point has no neighbours at all.
    NoNeighbours,
    /// A split stencil that the point's kind needs is empty.
    EmptySplitStencil {
        /// `xpos`, `xneg`, `ypos` or `yneg`.
        which: &'static str,
    },
    /// A least-squares system (the full stencil in x-y, or a split stencil in
    /// the point's s-n frame) is singular: fewer than two neighbours, or all
    /// in one line.
    SingularLeastSquares {
        /// `full`, `xpos`, `xneg`, `ypos` or `yneg`.
        which: &'static str,
        /// `det / (saa sbb)`, the relative determinant.
        relative_det: f64,
    },
    /// A least-squares system is solvable but ill-conditioned: its
    /// derivatives lose digits to round-off (a warning).
    IllConditionedLeastSquares {
        /// `full`, `xpos`, `xneg`, `ypos` or `yneg`.
        which: &'static str,
        /// The condition number.
        condition: f64,
    },
    /// A wall or outer point lacks a usable left or right boundary neighbour.
    BadBoundaryNeighbours {
        /// What is wrong.
        what: String,
    },
    /// `min_dist` is not positive.
    BadMinDist {
        /// The stored value.
        value: f64,
    },
    /// A closed loop of boundary points, followed along their `right`
    /// neighbours, turns the wrong way: its normals point into the body (a
    /// wall) or into the domain (the far field), as in a mirrored cloud or
    /// one whose left and right neighbours are swapped. Reported at the
    /// loop's first point.
    ReversedBoundary {
        /// `wall` or `outer`.
        kind: &'static str,
        /// Points of the loop.
        points: usize,
    },
    /// A neighbour much farther than the point's others (more than
    /// [`FAR_NEIGHBOUR`] times the median of its neighbour distances): a
    /// stencil reaching across the cloud, as when two point lines of a file
    /// are swapped (a warning).
    FarNeighbour {
        /// The neighbour (0-based).
        other: usize,
        /// Its distance over the median neighbour distance.
        ratio: f64,
    },
    /// The cloud has wall points but no point with a shape id above 0:
    /// the force integrals (lift, drag, moment) sum over shape points, so
    /// they would be 0 (a warning, at the first wall point).
    NoShape,
}

/// A problem at a point.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// The point, 0-based (shown 1-based).
    pub point: usize,
    /// What is wrong.
    pub problem: Problem,
}

impl Finding {
    /// How bad it is.
    pub fn severity(&self) -> Severity {
        match self.problem {
            Problem::RepeatedNeighbour { .. }
            | Problem::IllConditionedLeastSquares { .. }
            | Problem::FarNeighbour { .. }
            | Problem::NoShape => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev}: point {}: ", self.point + 1)?;
        match &self.problem {
            Problem::Duplicate { other } => {
                write!(f, "same coordinates as point {}", other + 1)
            }
            Problem::IndexOutOfRange { field, value } => {
                write!(f, "{field} is {value}, out of range")
            }
            Problem::SelfNeighbour => write!(f, "listed as its own neighbour"),
            Problem::RepeatedNeighbour { other } => {
                write!(f, "neighbour {} is listed more than once", other + 1)
            }
            Problem::NoNeighbours => write!(f, "has no neighbours"),
            Problem::EmptySplitStencil { which } => {
                write!(f, "empty {which} split stencil")
            }
            Problem::SingularLeastSquares { which, relative_det } => write!(
                f,
                "singular least-squares system on the {which} stencil (relative determinant {relative_det:.3e})"
            ),
            Problem::IllConditionedLeastSquares { which, condition } => write!(
                f,
                "ill-conditioned least-squares system on the {which} stencil (condition number \
                 {condition:.2e}, above {ILL_CONDITIONED:.0e}): its derivatives lose digits"
            ),
            Problem::BadBoundaryNeighbours { what } => write!(f, "{what}"),
            Problem::BadMinDist { value } => write!(f, "min_dist is {value}, must be positive"),
            Problem::ReversedBoundary { kind, points } => write!(
                f,
                "the {kind} loop of {points} points through here turns counter-clockwise along \
                 its right neighbours, so its normals point {}: a mirrored cloud, or left and \
                 right neighbours swapped",
                if *kind == "wall" { "into the body" } else { "into the domain" }
            ),
            Problem::FarNeighbour { other, ratio } => write!(
                f,
                "neighbour {} is {ratio:.1} times as far as the median of its neighbours \
                 (more than {FAR_NEIGHBOUR}): a stencil reaching across the cloud; are two \
                 point lines swapped?",
                other + 1
            ),
            Problem::NoShape => write!(
                f,
                "the cloud has wall points but none with a shape id above 0: lift, drag and \
                 moment sum over shape points and would be 0"
            ),
        }
    }
}

/// Everything found in a cloud.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The findings, ordered by point.
    pub findings: Vec<Finding>,
}

impl Report {
    /// Number of findings of each severity: (errors, warnings).
    pub fn counts(&self) -> (usize, usize) {
        let e = self
            .findings
            .iter()
            .filter(|f| f.severity() == Severity::Error)
            .count();
        (e, self.findings.len() - e)
    }

    /// Whether the solver can run on the cloud.
    pub fn is_ok(&self) -> bool {
        self.counts().0 == 0
    }

    /// The errors only.
    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity() == Severity::Error)
    }
}

/// Checks `cloud`. `index_problems` are the out-of-range indices a lenient
/// read found (see [`crate::legacy::parse_lenient`]); pass `&[]` otherwise.
pub fn check(cloud: &Cloud, index_problems: &[IndexProblem]) -> Report {
    let n = cloud.len();
    let mut findings: Vec<Finding> = index_problems
        .iter()
        .map(|p| Finding {
            point: p.point,
            problem: Problem::IndexOutOfRange {
                field: p.field.clone(),
                value: p.value,
            },
        })
        .collect();

    // Duplicates: sort by coordinates and compare neighbours in that order.
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        cloud.x[a]
            .total_cmp(&cloud.x[b])
            .then(cloud.y[a].total_cmp(&cloud.y[b]))
    });
    for w in order.windows(2) {
        let (a, b) = (w[0] as usize, w[1] as usize);
        if cloud.x[a] == cloud.x[b] && cloud.y[a] == cloud.y[b] {
            let (lo, hi) = (a.min(b), a.max(b));
            findings.push(Finding {
                point: hi,
                problem: Problem::Duplicate { other: lo },
            });
        }
    }

    let (nx, ny) = geometry::boundary_normals(cloud);
    let split = geometry::split_stencils(cloud, &nx, &ny);
    let mut seen: Vec<u32> = Vec::with_capacity(32);
    let mut distances: Vec<f64> = Vec::with_capacity(32);
    for i in 0..n {
        let mut push = |problem| findings.push(Finding { point: i, problem });
        let nb = cloud.neighbours(i);
        if cloud.min_dist[i].is_nan() || cloud.min_dist[i] <= 0.0 {
            push(Problem::BadMinDist {
                value: cloud.min_dist[i],
            });
        }
        if nb.is_empty() {
            push(Problem::NoNeighbours);
        }
        if nb.iter().any(|&k| k as usize == i) {
            push(Problem::SelfNeighbour);
        }
        for (other, ratio) in far_neighbours(cloud, i, nb, &mut distances) {
            push(Problem::FarNeighbour { other, ratio });
        }
        seen.clear();
        seen.extend_from_slice(nb);
        seen.sort_unstable();
        for w in seen.windows(2) {
            if w[0] == w[1] {
                push(Problem::RepeatedNeighbour {
                    other: w[0] as usize,
                });
            }
        }
        let kind = cloud.kind[i];
        if kind.is_boundary() {
            let (l, r) = (cloud.left[i], cloud.right[i]);
            let what = if l == NO_POINT || r == NO_POINT {
                Some(format!(
                    "{} point without a {} boundary neighbour",
                    kind.name(),
                    if l == NO_POINT { "left" } else { "right" }
                ))
            } else if l as usize == i || r as usize == i {
                Some(format!(
                    "{} point is its own boundary neighbour",
                    kind.name()
                ))
            } else if l == r {
                Some(format!(
                    "{} point has the same left and right neighbour",
                    kind.name()
                ))
            } else if (l as usize) < n
                && (r as usize) < n
                && (cloud.right[l as usize] as usize != i || cloud.left[r as usize] as usize != i)
            {
                // Boundary links go both ways: the left neighbour's right
                // neighbour is this point, and the other way round. One
                // point with its two swapped breaks that (its normal
                // would point the wrong way).
                Some(format!(
                    "{} point's boundary links disagree with its neighbours' (left {}, whose \
                     right is {}; right {}, whose left is {}): are its left and right swapped?",
                    kind.name(),
                    l + 1,
                    link(cloud.right[l as usize]),
                    r + 1,
                    link(cloud.left[r as usize]),
                ))
            } else if !(nx[i].is_finite() && ny[i].is_finite()) {
                Some(format!(
                    "{} point's left and right neighbours give no normal (they coincide)",
                    kind.name()
                ))
            } else if (l as usize) < n
                && (r as usize) < n
                && cloud.kind[l as usize] != kind
                && cloud.kind[r as usize] != kind
            {
                // Neither neighbour along the boundary is of this point's
                // kind: a point whose kind was changed (an interior point
                // made wall, a wall point made far field). (One such
                // neighbour is a cloud's way round its trailing edge,
                // which it often makes an interior point.)
                Some(format!(
                    "{} point between points of other kinds (left {} is {}, right {} is {}): \
                     its kind or its links are wrong",
                    kind.name(),
                    l + 1,
                    cloud.kind[l as usize].name(),
                    r + 1,
                    cloud.kind[r as usize].name()
                ))
            } else {
                None
            };
            if let Some(what) = what {
                push(Problem::BadBoundaryNeighbours { what });
            }
        }
        if !nb.is_empty() {
            let m = moments(cloud, i, nb, None);
            if m.is_singular() {
                push(Problem::SingularLeastSquares {
                    which: "full",
                    relative_det: rel(&m),
                });
            } else if m.condition() > ILL_CONDITIONED {
                push(Problem::IllConditionedLeastSquares {
                    which: "full",
                    condition: m.condition(),
                });
            }
        }
        if !(nx[i].is_finite() && ny[i].is_finite()) {
            continue;
        }
        let needed: &[(&'static str, &geometry::Csr)] = match kind {
            PointKind::Interior => &[
                ("xpos", &split.xpos),
                ("xneg", &split.xneg),
                ("ypos", &split.ypos),
                ("yneg", &split.yneg),
            ],
            PointKind::Wall => &[
                ("xpos", &split.xpos),
                ("xneg", &split.xneg),
                ("yneg", &split.yneg),
            ],
            PointKind::Outer => &[
                ("xpos", &split.xpos),
                ("xneg", &split.xneg),
                ("ypos", &split.ypos),
            ],
        };
        for &(which, csr) in needed {
            let row = csr.row(i);
            if row.is_empty() {
                push(Problem::EmptySplitStencil { which });
            } else {
                let m = moments(cloud, i, row, Some((nx[i], ny[i])));
                if m.is_singular() {
                    push(Problem::SingularLeastSquares {
                        which,
                        relative_det: rel(&m),
                    });
                } else if m.condition() > ILL_CONDITIONED {
                    push(Problem::IllConditionedLeastSquares {
                        which,
                        condition: m.condition(),
                    });
                }
            }
        }
    }
    reversed_loops(cloud, &mut findings);
    let first_wall = (0..n).find(|&i| cloud.kind[i] == PointKind::Wall);
    if let Some(w) = first_wall.filter(|_| cloud.shape.iter().all(|&s| s == 0)) {
        findings.push(Finding {
            point: w,
            problem: Problem::NoShape,
        });
    }
    findings.sort_by_key(|f| f.point);
    Report { findings }
}

/// Every closed loop of boundary points (followed along `right`) must run
/// clockwise: the normals (the chords turned to their
/// left, [`geometry::boundary_normal`]) then point out of a wall's body
/// into the fluid, and out of the domain at the far field. Loops that do
/// not close are left to the neighbour checks.
fn reversed_loops(cloud: &Cloud, findings: &mut Vec<Finding>) {
    let n = cloud.len();
    let mut seen = vec![false; n];
    for start in 0..n {
        let kind = cloud.kind[start];
        if !kind.is_boundary() || seen[start] {
            continue;
        }
        // Follow `right` until back at `start` (a loop) or stuck.
        let (mut i, mut twice_area, mut len) = (start, 0.0, 0usize);
        let closed = loop {
            seen[i] = true;
            let r = cloud.right[i];
            // (A loop may pass a point of another kind: clouds often make
            // the trailing edge interior but keep its links.)
            if r == NO_POINT || r as usize >= n {
                break false;
            }
            let r = r as usize;
            twice_area += cloud.x[i] * cloud.y[r] - cloud.x[r] * cloud.y[i];
            len += 1;
            if r == start {
                break true;
            }
            if seen[r] || len > n {
                break false;
            }
            i = r;
        };
        if closed && len >= 3 && twice_area > 0.0 {
            findings.push(Finding {
                point: start,
                problem: Problem::ReversedBoundary {
                    kind: if kind == PointKind::Wall {
                        "wall"
                    } else {
                        "outer"
                    },
                    points: len,
                },
            });
        }
    }
}

/// The neighbours of point `i` (`nb`) farther than [`FAR_NEIGHBOUR`] times
/// the median of its neighbour distances, with that ratio; out-of-range
/// indices are left to the other checks.
/// (`d` is scratch space.)
fn far_neighbours(cloud: &Cloud, i: usize, nb: &[u32], d: &mut Vec<f64>) -> Vec<(usize, f64)> {
    let n = cloud.len();
    let dist = |k: u32| {
        let k = k as usize;
        (cloud.x[k] - cloud.x[i]).hypot(cloud.y[k] - cloud.y[i])
    };
    d.clear();
    d.extend(nb.iter().filter(|&&k| (k as usize) < n).map(|&k| dist(k)));
    if d.len() < 3 {
        return Vec::new();
    }
    d.sort_unstable_by(f64::total_cmp);
    let median = d[d.len() / 2];
    if !(median > 0.0 && median.is_finite()) {
        return Vec::new();
    }
    nb.iter()
        .filter(|&&k| (k as usize) < n)
        .map(|&k| (k as usize, dist(k) / median))
        .filter(|&(_, r)| r > FAR_NEIGHBOUR)
        .collect()
}

/// A boundary link as shown (1-based, or `none`).
fn link(k: u32) -> String {
    if k == NO_POINT {
        "none".into()
    } else {
        (k + 1).to_string()
    }
}

fn rel(m: &geometry::Moments) -> f64 {
    let scale = m.saa * m.sbb;
    if scale > 0.0 {
        m.det() / scale
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests;
