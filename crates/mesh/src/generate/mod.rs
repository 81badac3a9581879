//! Point-cloud generators: O-grids around NACA 4-digit sections.
//!
//! [`NacaOGrid::generate`] builds a structured O-grid of `wall_points` grid
//! lines by `rings` point rings and turns it into a [`Cloud`] with the
//! conventions of the legacy 9,600-point NACA 0012 cloud
//! (`naca0012-9600.partgrid`, a 160 x 60 grid of this kind):
//!
//! - points are numbered ring by ring: the wall ring first, the far-field
//!   ring last; on every ring, point `j` lies on grid line `j`, and the lines
//!   start at the trailing edge and go along the **lower** surface to the
//!   leading edge and back along the upper surface (clockwise);
//! - ring 0 is wall (shape 1) except the trailing-edge point, which is
//!   interior but keeps shape 1 so that it counts in the forces; the last
//!   ring is outer; everything else is interior (shape 0);
//! - `left`/`right` are the ring neighbours `j - 1`/`j + 1` (cyclic) on every
//!   ring, so that the boundary normal `(-(yR - yL), xR - xL)` points into
//!   the fluid at the wall and outwards on the far-field circle;
//! - stencils are the 8 structured neighbours, in the legacy file's order
//!   (see [`NacaOGrid::generate`]), plus a few more at the rare points where
//!   those 8 would give a nearly singular least-squares fit.
//!
//! # Construction
//!
//! Wall points are the section's surface at cosine-spaced chord stations
//! (`x = cos^2(pi i / M)` on each surface), so they cluster at both edges,
//! with exactly one point at the trailing edge `(1, 0)` and one at the leading
//! edge `(0, 0)`. The far-field points are evenly spaced in angle on a circle
//! about `(0.5, 0)`, grid line `j` ending at angle `-2 pi j / M`.
//!
//! Grid lines that simply leave the wall along its normals do not work at the
//! sharp trailing edge: the normals there point straight up and straight
//! down, so the whole fan behind the edge falls into the two cells beside
//! the edge's own line, the points on that line have no neighbours ahead of
//! them, and the solver's least-squares fits there are singular. The grid is
//! therefore built in a transformed plane where the edge is smooth, and
//! mapped back. The map is of Kármán–Trefftz type,
//!
//! ```text
//! w = ((z - z_te) / (z - z_n))^(1 / k),   zeta = (1 + w) / (1 - w),
//! ```
//!
//! with `z_te = (1, 0)`, `z_n` on the camber line inside the nose and
//! `k = 2 - (trailing-edge angle) / pi`: it is conformal, opens the edge's
//! exterior angle `2 pi - angle` to `pi`, is close to a scaled identity far
//! away and turns the section into a smooth, nearly circular curve on which
//! the cosine-spaced wall points are nearly evenly spaced. Its branch cut runs
//! inside the section, along a polyline on the camber line.
//!
//! In that plane grid line `j` is the cubic Hermite curve from the wall point
//! `B` to the far-field point `G` that leaves the wall along its normal and
//! meets the far-field curve along the image of the circle's radius, both with
//! speed `L = |G - B|`:
//!
//! ```text
//! P(s) = h00(s) B + h01(s) G + h10(s) L n_wall + h11(s) L n_far,   0 <= s <= 1
//! ```
//!
//! With that speed a straight line is parametrised proportionally to arc
//! length, so a geometric series of `s` values gives geometrically growing
//! ring spacings. Every ring `r` uses the same `s_r` on all lines. Mapped back,
//! the lines leave the wall nearly normal, fan out smoothly behind the
//! trailing edge, and the cells near the wall keep the aspect ratio they have
//! in the transformed plane (by default 1 on average), so they shrink towards
//! the edges with the wall spacing, as in the legacy cloud.
//! [`NacaOGrid::generate`] verifies that no grid cell is folded and that
//! every point's stencil gives the solver non-singular least-squares fits, and
//! returns an error otherwise (extreme sections such as 9% camber on 1%
//! thickness can fold).

mod body;
mod map;
mod naca;
mod quadtree;
#[cfg(test)]
mod quadtree_tests;
#[cfg(test)]
mod tests;
mod topology;

use crate::geometry;
use crate::{Cloud, CloudError};

use map::{grid_lines, GridLine, Hermite, TrailingEdgeMap, CENTRE};
use naca::wall_ring;
pub use naca::Naca4;
pub use quadtree::NacaQuadtree;
use topology::{build_topology, check_no_folds};

/// The fewest wall points [`NacaOGrid`] accepts: with fewer, a surface has
/// three chord stations or fewer and the grid does not describe a section.
pub const MIN_WALL_POINTS: usize = 16;

/// The most wall points [`NacaOGrid`] accepts: beyond that the points next to
/// the trailing edge lie within about `1e-11` chords of it and their spacing
/// is no longer resolved well in double precision.
pub const MAX_WALL_POINTS: usize = 1_000_000;

/// The fewest point rings [`NacaOGrid`] accepts: an outer point's stencil
/// reaches two rings inside it, and a wall point's two rings outside it.
pub const MIN_RINGS: usize = 4;

/// The largest far-field radius [`NacaOGrid`] accepts, in chords: far
/// beyond any useful domain, and small enough that the map's round-off at
/// the far field stays negligible.
pub const MAX_FAR_FIELD: f64 = 1e6;

/// The range of the wall cells' mean aspect ratio (first ring spacing over
/// wall spacing, measured in the transformed plane where both are nearly
/// uniform along the wall) that [`NacaOGrid`] accepts. Much flatter cells
/// leave the points behind the trailing edge without neighbours ahead of
/// them, much taller ones leave the wall points next to it without ring
/// points ahead of them along the wall; either makes least-squares fits
/// singular.
pub const WALL_ASPECT_RANGE: (f64, f64) = (0.3, 3.0);

/// How the rings are spaced from the wall to the far-field circle: the line
/// parameter's steps grow geometrically; give either the first spacing or
/// the ratio and the other follows from the number of rings.
///
/// Either way the wall cells' mean aspect ratio must lie in
/// [`WALL_ASPECT_RANGE`]; the error says which first spacing that allows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stretching {
    /// Distance from the wall to the first ring, in chords, averaged over the
    /// grid lines (to first order in the spacing). Along the wall it varies
    /// with the wall spacing: smaller near the edges, where the wall points
    /// cluster. At most the spacing that makes all steps equal.
    FirstSpacing(f64),
    /// Ratio of successive ring steps, at least 1.
    GrowthRatio(f64),
}

/// An O-grid point cloud around a NACA 4-digit section (see the
/// [module documentation](self) for the layout and construction).
#[derive(Clone, Debug, PartialEq)]
pub struct NacaOGrid {
    /// The section.
    pub section: Naca4,
    /// Points on the wall ring (= grid lines = points on every ring): even,
    /// from [`MIN_WALL_POINTS`] to [`MAX_WALL_POINTS`].
    pub wall_points: usize,
    /// Point rings, the wall ring and the far-field ring included: at least
    /// [`MIN_RINGS`].
    pub rings: usize,
    /// Radius of the far-field circle about `(0.5, 0)`, in chords: more than
    /// twice the largest distance from `(0.5, 0)` to the section (more than 1
    /// for all but very thick or strongly cambered sections), at most
    /// [`MAX_FAR_FIELD`].
    pub far_field: f64,
    /// Ring spacing. `None` makes the wall cells square on average (first
    /// ring spacing equal to the wall spacing; the legacy cloud's are about
    /// 1.6 times taller, like `FirstSpacing(0.02)` at 160 x 60), or takes
    /// equal steps where square cells would need steps shrinking outwards.
    pub stretching: Option<Stretching>,
}

/// The legacy 9,600-point cloud's layout: NACA 0012, 160 x 60, radius 10.
impl Default for NacaOGrid {
    fn default() -> Self {
        Self {
            section: Naca4 {
                m: 0.0,
                p: 0.0,
                t: 0.12,
            },
            wall_points: 160,
            rings: 60,
            far_field: 10.0,
            stretching: None,
        }
    }
}

/// Neighbours per point of the structured stencil.
const STENCIL: usize = 8;

impl NacaOGrid {
    /// Generates the cloud. Errors name the argument at fault and its value;
    /// see the field and [`Stretching`] documentation for the limits.
    ///
    /// Stencils, in the legacy file's order, with `j -/+ 1` the neighbouring
    /// grid lines: a wall point (and the trailing-edge point) has ring 0 at
    /// `j - 1, j + 1`, then rings 1 and 2 at `j - 1, j, j + 1`; an interior
    /// point on ring `r` has ring `r - 1` at `j - 1, j, j + 1`, ring `r` at
    /// `j - 1, j + 1`, ring `r + 1` at `j - 1, j, j + 1`; an outer point has
    /// ring `r - 1` at `j - 1, j, j + 1`, ring `r` at `j - 1, j + 1` and ring
    /// `r - 2` at `j - 1, j, j + 1`. Where those 8 would give one of the
    /// solver's least-squares fits a nearly singular system (near the
    /// trailing edge when the wall cells are far from square), the point gets
    /// a few more from its structured neighbourhood, nearest first.
    ///
    /// The cloud is checked before it is returned: no grid cell is folded and
    /// every least-squares fit the solver makes is well posed, so
    /// [`crate::check::check`] accepts it; otherwise this is an error.
    pub fn generate(&self) -> Result<Cloud, CloudError> {
        let section = Naca4::new(self.section.m, self.section.p, self.section.t)?;
        let (m, rings) = (self.wall_points, self.rings);
        let n = self.point_count()?;

        let wall = wall_ring(&section, m);
        let extent = wall.iter().map(|&w| (w - CENTRE).abs()).fold(0.0, f64::max);
        let radius = self.far_field;
        if !(radius > 2.0 * extent && radius <= MAX_FAR_FIELD) {
            return Err(CloudError::Generate(format!(
                "far-field radius far_field = {radius}: must be more than {}, twice the largest \
                 distance from (0.5, 0) to the section, so that the grid lines have room to turn \
                 from the wall to the circle, and at most {MAX_FAR_FIELD:e}",
                2.0 * extent
            )));
        }
        let map = TrailingEdgeMap::new(&section);
        let lines = grid_lines(&map, &wall, radius);
        let s = self.ring_parameters(&lines)?;

        let mut x = try_vec(n)?;
        let mut y = try_vec(n)?;
        for (r, &sr) in s.iter().enumerate() {
            if r == 0 || r == rings - 1 {
                // The wall and the circle exactly, not through the map.
                for l in &lines {
                    let p = if r == 0 { l.wall } else { l.far };
                    x.push(p.re);
                    y.push(p.im);
                }
                continue;
            }
            let h = Hermite::at(sr);
            for l in &lines {
                let p = map.inverse(
                    l.start * h.w + l.end * h.f + l.start_tangent * h.a + l.end_tangent * h.b,
                );
                x.push(p.re);
                y.push(p.im);
            }
        }
        check_no_folds(&x, &y, m, rings)?;

        let mut cloud = Cloud {
            kind: try_vec(n)?,
            left: try_vec(n)?,
            right: try_vec(n)?,
            shape: try_vec(n)?,
            nbr_start: try_vec(n + 1)?,
            nbr: try_vec(STENCIL * n)?,
            x,
            y,
            ..Cloud::default()
        };
        build_topology(&mut cloud, m, rings)?;
        cloud.min_dist = geometry::min_neighbour_distance(&cloud);
        cloud.validate_structure()?;
        Ok(cloud)
    }

    /// The points [`generate`](Self::generate) makes, `wall_points *
    /// rings`, after checking both counts and that the cloud's indices and
    /// neighbour offsets fit in 32 bits (nothing is generated: for a memory
    /// estimate before generating).
    pub fn point_count(&self) -> Result<usize, CloudError> {
        let (m, rings) = (self.wall_points, self.rings);
        if !(MIN_WALL_POINTS..=MAX_WALL_POINTS).contains(&m) || m % 2 != 0 {
            return Err(CloudError::Generate(format!(
                "wall_points = {m}: must be even (one point at the leading edge, one at the \
                 trailing edge) and from {MIN_WALL_POINTS} to {MAX_WALL_POINTS}"
            )));
        }
        if rings < MIN_RINGS {
            return Err(CloudError::Generate(format!(
                "rings = {rings}: need at least {MIN_RINGS} point rings (the wall ring, two \
                 interior rings and the far-field ring)"
            )));
        }
        // Offsets into the neighbour list are u32.
        let limit = u32::MAX as usize;
        match m.checked_mul(rings) {
            Some(n) if n.checked_mul(STENCIL).is_some_and(|e| e <= limit) => Ok(n),
            _ => Err(CloudError::Generate(format!(
                "wall_points x rings = {m} x {rings}: too many points; the neighbour lists of a \
                 cloud hold at most {limit} entries, {} points",
                limit / STENCIL
            ))),
        }
    }

    /// The line parameter `s_r` of every ring: 0 at the wall, 1 at the far
    /// field, steps growing geometrically.
    fn ring_parameters(&self, lines: &[GridLine]) -> Result<Vec<f64>, CloudError> {
        let m = lines.len() as f64;
        let steps = self.rings - 1;
        let mean_length = lines.iter().map(|l| l.length).sum::<f64>() / m;
        // Mean wall spacing in the transformed plane, as a step of s.
        let square = lines.iter().map(|l| l.spacing).sum::<f64>() / m / mean_length;
        let uniform = 1.0 / steps as f64;
        // Physical distance of ring 1 on line j, to first order:
        // s_1 * length_j * scale_j; its mean per unit of s_1.
        let per_step = lines.iter().map(|l| l.length * l.scale).sum::<f64>() / m;
        // The first step of s and the growth ratio; the other one follows
        // from `first * (sum of ratio^k for k < steps) = 1`.
        let (first, ratio) = match self.stretching {
            None => {
                let first = square.min(uniform);
                (first, 1.0 + growth_excess(1.0 / first, steps))
            }
            Some(Stretching::FirstSpacing(h)) => {
                let largest = uniform * per_step;
                if !(h > 0.0 && h <= largest) {
                    return Err(CloudError::Generate(format!(
                        "first_spacing = {h}: must be positive and at most \
                         {largest:.4e}, the spacing that makes all {steps} steps equal (a \
                         larger one would need steps shrinking outwards)"
                    )));
                }
                let first = h / per_step;
                (first, 1.0 + growth_excess(1.0 / first, steps))
            }
            Some(Stretching::GrowthRatio(g)) => {
                if !(g >= 1.0 && g.is_finite()) {
                    return Err(CloudError::Generate(format!(
                        "growth = {g}: must be finite and at least 1"
                    )));
                }
                // series_sum overflows to infinity, not to a panic: the
                // first step is then 0 and refused below.
                (1.0 / series_sum(g - 1.0, steps), g)
            }
        };
        let aspect = first / square;
        let (lo, hi) = WALL_ASPECT_RANGE;
        if !(lo..=hi).contains(&aspect) {
            let what = match self.stretching {
                Some(Stretching::GrowthRatio(g)) => format!(
                    "growth = {g} is {} for rings = {}",
                    if aspect < lo {
                        "too large"
                    } else {
                        "too small"
                    },
                    self.rings
                ),
                Some(Stretching::FirstSpacing(h)) => format!(
                    "first_spacing = {h} is too {}",
                    if aspect < lo { "small" } else { "large" }
                ),
                None => format!(
                    "rings = {} is too many for wall_points = {}: even equal steps are too small",
                    self.rings, self.wall_points
                ),
            };
            let (least, most) = (lo * square, (hi * square).min(uniform));
            let allowed = if least <= most {
                format!(
                    "first spacings from {:.3e} to {:.3e} work here",
                    least * per_step,
                    most * per_step
                )
            } else {
                "no first spacing works with this many rings".to_string()
            };
            return Err(CloudError::Generate(format!(
                "{what}: it makes the wall cells' mean aspect ratio (first ring spacing over wall \
                 spacing) {aspect:.3}, outside [{lo}, {hi}] ({allowed}); such cells at the sharp \
                 trailing edge make the solver's least-squares fits singular"
            )));
        }
        let mut s = Vec::with_capacity(self.rings);
        let (mut sum, mut step) = (0.0, 1.0);
        s.push(0.0);
        for _ in 0..steps {
            sum += step;
            s.push(sum);
            step *= ratio;
        }
        for v in &mut s {
            *v /= sum;
        }
        s[steps] = 1.0;
        Ok(s)
    }
}

/// `sum of (1 + e)^k for k in 0..steps`, `= ((1 + e)^steps - 1) / e`,
/// accurate for small `e >= 0` (and `steps` at `e == 0`).
fn series_sum(e: f64, steps: usize) -> f64 {
    if e == 0.0 {
        steps as f64
    } else {
        (steps as f64 * e.ln_1p()).exp_m1() / e
    }
}

/// The `e >= 0` with `series_sum(e, steps) == q`, for `q >= steps >= 3`:
/// the growth ratio minus one that covers `q` first steps in `steps` steps.
/// Bisection: the sum increases with `e`, and at `e = q^(1 / (steps - 1)) - 1`
/// its last term alone reaches `q`.
fn growth_excess(q: f64, steps: usize) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, q.powf(1.0 / (steps - 1) as f64) - 1.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if series_sum(mid, steps) < q {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// An empty vector with room for `n` elements, or an error instead of an
/// abort when the memory is not there.
fn try_vec<T>(n: usize) -> Result<Vec<T>, CloudError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        CloudError::Generate(format!(
            "not enough memory for the cloud (an array of {n} entries)"
        ))
    })?;
    Ok(v)
}
