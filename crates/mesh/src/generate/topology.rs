//! The cloud's topology: kinds, boundary neighbours and stencils (widened
//! where a least-squares fit would be nearly singular), and the check that
//! no grid cell is folded.

use crate::geometry::{self, Moments};
use crate::{Cloud, CloudError, PointKind};

/// How far (in grid lines and rings) [`build_topology`] looks for extra
/// neighbours of a point whose least-squares fits are nearly singular.
const MAX_REACH: usize = 4;

/// The smallest relative determinant `det / ((saa + sbb) / 2)^2` that
/// [`super::NacaOGrid::generate`] accepts for a least-squares fit; it bounds the
/// check's `det / (saa sbb)` from below, so the check's `1e-12` is met with a
/// wide margin (an eigenvalue ratio of about `2.5e-5`).
const MIN_FIT_DET: f64 = 1e-4;

/// Checks that every cell `(j, r), (j+1, r), (j+1, r+1), (j, r+1)` is a
/// simple quadrilateral with positive (counter-clockwise) orientation: one of
/// its diagonals must split it into two positive triangles.
pub(super) fn check_no_folds(
    x: &[f64],
    y: &[f64],
    m: usize,
    rings: usize,
) -> Result<(), CloudError> {
    let tri = |a: usize, b: usize, c: usize| {
        (x[b] - x[a]) * (y[c] - y[a]) - (y[b] - y[a]) * (x[c] - x[a])
    };
    for r in 0..rings - 1 {
        for j in 0..m {
            let (a, b) = (r * m + j, r * m + (j + 1) % m);
            let (c, d) = (b + m, a + m);
            let ok = (tri(a, b, c) > 0.0 && tri(a, c, d) > 0.0)
                || (tri(a, b, d) > 0.0 && tri(b, c, d) > 0.0);
            if !ok {
                return Err(CloudError::Generate(format!(
                    "the grid folds in the cell between rings {r} and {} and grid lines {j} and \
                     {} (near ({:.4}, {:.4})): the section is too strongly curved for this grid; \
                     try more wall points",
                    r + 1,
                    (j + 1) % m,
                    x[a],
                    y[a]
                )));
            }
        }
    }
    Ok(())
}

/// Fills kinds, shapes, boundary neighbours and stencils (cloud arrays empty
/// with capacity, coordinates set).
///
/// Each point gets its 8 structured neighbours. Where a least-squares fit
/// of the solver would then be nearly singular (at and beside the sharp
/// trailing edge when the wall cells are far from square), the point also
/// gets points of the structured blocks around it, `5 x 5` first and then
/// wider up to [`MAX_REACH`], nearest first and only those on the deficient
/// side, until every fit is well posed, as the legacy cloud does with a few
/// `j +/- 2` neighbours there. An error if even that fails.
pub(super) fn build_topology(cloud: &mut Cloud, m: usize, rings: usize) -> Result<(), CloudError> {
    let at = |r: usize, j: usize| (r * m + j) as u32;
    let last = rings - 1;
    let mut candidates: Vec<(f64, u32)> = Vec::with_capacity(25);
    cloud.nbr_start.push(0);
    for r in 0..rings {
        let kind = match r {
            0 => PointKind::Wall,
            _ if r == last => PointKind::Outer,
            _ => PointKind::Interior,
        };
        for j in 0..m {
            let i = r * m + j;
            let (jl, jr) = ((j + m - 1) % m, (j + 1) % m);
            let is_te = r == 0 && j == 0;
            cloud
                .kind
                .push(if is_te { PointKind::Interior } else { kind });
            cloud.shape.push(u32::from(r == 0));
            cloud.left.push(at(r, jl));
            cloud.right.push(at(r, jr));
            let three = |q: usize| [at(q, jl), at(q, j), at(q, jr)];
            let start = cloud.nbr.len();
            let nbr = &mut cloud.nbr;
            if r == 0 {
                nbr.extend([at(0, jl), at(0, jr)]);
                nbr.extend(three(1));
                nbr.extend(three(2));
            } else if r == last {
                nbr.extend(three(r - 1));
                nbr.extend([at(r, jl), at(r, jr)]);
                nbr.extend(three(r - 2));
            } else {
                nbr.extend(three(r - 1));
                nbr.extend([at(r, jl), at(r, jr)]);
                nbr.extend(three(r + 1));
            }
            let mut failing = Fits::of(cloud, i, &cloud.nbr[start..]).failing();
            // Widen the block ring by ring; within a ring of the block, the
            // nearest points first.
            for reach in 2..=MAX_REACH {
                if failing == 0 {
                    break;
                }
                candidates.clear();
                for q in r.saturating_sub(reach)..=(r + reach).min(last) {
                    for dj in 0..=2 * reach {
                        let on_rim = q.abs_diff(r) == reach || dj == 0 || dj == 2 * reach;
                        let k = at(q, (j + m + dj - reach) % m);
                        if on_rim && k as usize != i && !cloud.nbr[start..].contains(&k) {
                            let (dx, dy) = cloud.offset(i, k);
                            candidates.push((dx.hypot(dy), k));
                        }
                    }
                }
                candidates.sort_by(|a, b| a.0.total_cmp(&b.0));
                for &(_, k) in &candidates {
                    // Only a point on a deficient side can help.
                    if Fits::of(cloud, i, &[k]).present() & failing != 0 {
                        cloud.nbr.push(k);
                        failing = Fits::of(cloud, i, &cloud.nbr[start..]).failing();
                        if failing == 0 {
                            break;
                        }
                    }
                }
            }
            if failing != 0 {
                return Err(CloudError::Generate(format!(
                    "point {} (ring {r}, grid line {j}) would have a nearly singular {} \
                     least-squares fit even with extra neighbours: the cells around it are too \
                     flat or too tall (too few wall points for this many rings, or the reverse, \
                     or an extreme ring spacing)",
                    i + 1,
                    Fits::NAMES[failing.trailing_zeros() as usize]
                )));
            }
            let end = u32::try_from(cloud.nbr.len()).map_err(|_| {
                CloudError::Generate("too many neighbours for 32-bit offsets".to_string())
            })?;
            cloud.nbr_start.push(end);
        }
    }
    Ok(())
}

/// The least-squares moments of the solver's fits at one point over a
/// stencil: the full stencil in x-y and the four split stencils in the
/// point's s-n frame, with the solver's normals and split rules
/// ([`geometry::boundary_normals`], [`geometry::split_stencils`]).
pub(super) struct Fits {
    kind: PointKind,
    /// full, xpos, xneg, ypos, yneg.
    sums: [Moments; 5],
}

impl Fits {
    pub(super) const NAMES: [&'static str; 5] = ["full", "xpos", "xneg", "ypos", "yneg"];

    pub(super) fn of(cloud: &Cloud, i: usize, stencil: &[u32]) -> Self {
        let kind = cloud.kind[i];
        let (nx, ny) = match kind {
            PointKind::Interior => (0.0, 1.0),
            _ => geometry::boundary_normal(cloud, i).unwrap_or((f64::NAN, f64::NAN)),
        };
        let mut sums = [Moments {
            saa: 0.0,
            sbb: 0.0,
            sab: 0.0,
        }; 5];
        for &k in stencil {
            let (dx, dy) = cloud.offset(i, k);
            let (ds, dn) = (dx * ny - dy * nx, dx * nx + dy * ny);
            let mut add = |w: usize, a: f64, b: f64| {
                sums[w].saa += a * a;
                sums[w].sbb += b * b;
                sums[w].sab += a * b;
            };
            add(0, dx, dy);
            if ds <= 0.0 {
                add(1, ds, dn);
            }
            if ds >= 0.0 {
                add(2, ds, dn);
            }
            // A wall point's whole stencil is yneg, an outer point's ypos.
            if kind == PointKind::Outer || (kind == PointKind::Interior && dn <= 0.0) {
                add(3, ds, dn);
            }
            if kind == PointKind::Wall || (kind == PointKind::Interior && dn >= 0.0) {
                add(4, ds, dn);
            }
        }
        Self { kind, sums }
    }

    /// Bit `w` set: fit `w` has at least one point.
    pub(super) fn present(&self) -> u32 {
        (0..5)
            .filter(|&w| self.sums[w].saa + self.sums[w].sbb > 0.0)
            .fold(0, |b, w| b | 1 << w)
    }

    /// Bit `w` set: fit `w` is needed for this kind of point and nearly
    /// singular (relative determinant below [`MIN_FIT_DET`]).
    pub(super) fn failing(&self) -> u32 {
        let needed: u32 = match self.kind {
            PointKind::Interior => 0b11111,
            PointKind::Wall => 0b10111,
            PointKind::Outer => 0b01111,
        };
        (0..5)
            .filter(|&w| needed & 1 << w != 0)
            .filter(|&w| {
                let s = &self.sums[w];
                let (det, half_trace) = (s.det(), 0.5 * (s.saa + s.sbb));
                det.is_nan() || det < MIN_FIT_DET * half_trace * half_trace
            })
            .fold(0, |b, w| b | 1 << w)
    }
}

impl Cloud {
    /// `(x_k - x_i, y_k - y_i)`.
    fn offset(&self, i: usize, k: u32) -> (f64, f64) {
        (
            self.x[k as usize] - self.x[i],
            self.y[k as usize] - self.y[i],
        )
    }
}
