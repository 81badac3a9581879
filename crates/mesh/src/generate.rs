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

use std::f64::consts::PI;
use std::ops::{Add, Div, Mul, Sub};
use std::str::FromStr;

use crate::geometry::{self, Moments};
use crate::{Cloud, CloudError, PointKind};

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

/// A NACA 4-digit section with unit chord from `(0, 0)` to `(1, 0)`, all
/// quantities as fractions of the chord.
///
/// The thickness uses the closed-trailing-edge coefficient `-0.1036`, so the
/// trailing edge is a single sharp point at `(1, 0)`. Parse the usual codes
/// with [`str::parse`]: `"naca2412"`, `"NACA 0012"`, `"0012"`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Naca4 {
    /// Maximum camber (the first digit / 100), `0 <= m < 1`.
    pub m: f64,
    /// Chordwise position of the maximum camber (the second digit / 10),
    /// `0 < p < 1` when `m > 0`; ignored when `m == 0`.
    pub p: f64,
    /// Maximum thickness (the last two digits / 100), `0 < t <= 1`.
    pub t: f64,
}

impl Naca4 {
    /// A section with camber `m` at `p` and thickness `t` (fractions of the
    /// chord), checked as described on the fields.
    pub fn new(m: f64, p: f64, t: f64) -> Result<Self, CloudError> {
        let bad = |what: String| Err(CloudError::Generate(what));
        if !(t > 0.0 && t <= 1.0) {
            return bad(format!("section thickness t = {t}: must be in (0, 1]"));
        }
        if !(0.0..1.0).contains(&m) {
            return bad(format!("section camber m = {m}: must be in [0, 1)"));
        }
        if m > 0.0 && !(p > 0.0 && p < 1.0) {
            return bad(format!(
                "section camber position p = {p}: must be in (0, 1) for a cambered section \
                 (m = {m})"
            ));
        }
        Ok(Self { m, p, t })
    }

    /// Half-thickness `yt(x)` at chord station `x` in `[0, 1]` (closed
    /// trailing edge: `yt(1) = 0` up to round-off).
    pub fn thickness(&self, x: f64) -> f64 {
        5.0 * self.t
            * (0.2969 * x.sqrt() - 0.1260 * x - 0.3516 * x * x + 0.2843 * x * x * x
                - 0.1036 * x * x * x * x)
    }

    /// Height `yc(x)` of the camber line at chord station `x`.
    pub fn camber(&self, x: f64) -> f64 {
        let (m, p) = (self.m, self.p);
        if m == 0.0 {
            0.0
        } else if x < p {
            m / (p * p) * (2.0 * p * x - x * x)
        } else {
            m / ((1.0 - p) * (1.0 - p)) * ((1.0 - 2.0 * p) + 2.0 * p * x - x * x)
        }
    }

    /// Slope `dyc/dx` of the camber line at chord station `x`.
    pub fn camber_slope(&self, x: f64) -> f64 {
        let (m, p) = (self.m, self.p);
        if m == 0.0 {
            0.0
        } else if x < p {
            2.0 * m / (p * p) * (p - x)
        } else {
            2.0 * m / ((1.0 - p) * (1.0 - p)) * (p - x)
        }
    }

    /// The upper-surface point at chord station `x`: the thickness is laid
    /// off perpendicular to the camber line, as the NACA definition does.
    pub fn upper(&self, x: f64) -> (f64, f64) {
        let (yc, yt, (sin, cos)) = self.frame(x);
        (x - yt * sin, yc + yt * cos)
    }

    /// The lower-surface point at chord station `x`.
    pub fn lower(&self, x: f64) -> (f64, f64) {
        let (yc, yt, (sin, cos)) = self.frame(x);
        (x + yt * sin, yc - yt * cos)
    }

    /// The interior angle between the two surfaces at the trailing edge, in
    /// radians: twice the angle of the thickness slope there, since the
    /// thickness is laid off perpendicular to the camber line.
    fn trailing_edge_angle(&self) -> f64 {
        // d(yt)/dx at x = 1, from the thickness polynomial.
        let slope =
            5.0 * self.t * (0.5 * 0.2969 - 0.1260 - 2.0 * 0.3516 + 3.0 * 0.2843 - 4.0 * 0.1036);
        2.0 * slope.abs().atan()
    }

    /// Camber height, half-thickness and the sine and cosine of the camber
    /// line's angle at `x`.
    fn frame(&self, x: f64) -> (f64, f64, (f64, f64)) {
        let slope = self.camber_slope(x);
        let norm = slope.hypot(1.0);
        (
            self.camber(x),
            self.thickness(x),
            (slope / norm, 1.0 / norm),
        )
    }
}

impl FromStr for Naca4 {
    type Err = CloudError;

    /// Parses `"naca2412"`, `"NACA2412"`, `"NACA 2412"`, `"naca-2412"` or
    /// `"2412"`: exactly four digits, optionally after a case-insensitive
    /// `naca`. The first digit is the camber in percent, the second its
    /// position in tenths, the last two the thickness in percent. Zero
    /// thickness is an error, and so is a camber without a position or a
    /// position without a camber (a symmetric section is `00xx`).
    fn from_str(code: &str) -> Result<Self, Self::Err> {
        let bad = |why: &str| {
            Err(CloudError::Generate(format!(
                "NACA section {code:?}: {why}; a valid code is four digits, optionally after \
                 \"naca\" (e.g. naca0012, NACA2412, 0012)"
            )))
        };
        let trimmed = code.trim();
        // `get` rather than slicing: a multi-byte character in the first four
        // bytes gives `None` instead of a panic.
        let digits = match trimmed.get(..4) {
            Some(prefix) if prefix.eq_ignore_ascii_case("naca") => {
                let rest = &trimmed[4..];
                rest.strip_prefix([' ', '-']).unwrap_or(rest)
            }
            _ => trimmed,
        };
        let d = digits.as_bytes();
        if d.len() != 4 || !d.iter().all(u8::is_ascii_digit) {
            return bad("not four digits");
        }
        let digit = |k: usize| f64::from(d[k] - b'0');
        let (m, p, t) = (
            digit(0) / 100.0,
            digit(1) / 10.0,
            (10.0 * digit(2) + digit(3)) / 100.0,
        );
        if t == 0.0 {
            return bad("the thickness (last two digits) is zero");
        }
        if m > 0.0 && p == 0.0 {
            return bad(
                "a cambered section (first digit > 0) needs a camber position (second digit 1-9)",
            );
        }
        if m == 0.0 && p > 0.0 {
            return bad("a camber position (second digit) without camber (first digit 0)");
        }
        Self::new(m, p, t)
    }
}

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

/// Centre of the far-field circle: mid-chord.
const CENTRE: Cx = Cx { re: 0.5, im: 0.0 };

/// How far (in grid lines and rings) [`build_topology`] looks for extra
/// neighbours of a point whose least-squares fits are nearly singular.
const MAX_REACH: usize = 4;

/// Neighbours per point of the structured stencil.
const STENCIL: usize = 8;

/// The smallest relative determinant `det / ((saa + sbb) / 2)^2` that
/// [`NacaOGrid::generate`] accepts for a least-squares fit; it bounds the
/// check's `det / (saa sbb)` from below, so the check's `1e-12` is met with a
/// wide margin (an eigenvalue ratio of about `2.5e-5`).
const MIN_FIT_DET: f64 = 1e-4;

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

    /// `wall_points * rings` after checking both counts and that the cloud's
    /// indices and neighbour offsets fit in 32 bits.
    fn point_count(&self) -> Result<usize, CloudError> {
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
                        "first spacing FirstSpacing({h}): must be positive and at most \
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
                        "growth ratio GrowthRatio({g}): must be finite and at least 1"
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
                    "growth ratio GrowthRatio({g}) is {} for rings = {}",
                    if aspect < lo {
                        "too large"
                    } else {
                        "too small"
                    },
                    self.rings
                ),
                Some(Stretching::FirstSpacing(h)) => format!(
                    "first spacing FirstSpacing({h}) is too {}",
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

/// The wall ring, `m` points (even), from the trailing edge along the lower
/// surface to the leading edge and back along the upper surface. Both
/// surfaces use the chord stations `x_i = cos^2(pi i / m)`, i.e. cosine
/// spacing `(1 + cos(2 pi i / m)) / 2`, so upper point `m - i` sits over
/// lower point `i` (for a symmetric section its exact mirror image).
fn wall_ring(section: &Naca4, m: usize) -> Vec<Cx> {
    let half = m / 2;
    let mut wall = vec![Cx::new(0.0, 0.0); m];
    // The edges exactly: the closed-trailing-edge polynomial is zero at
    // x = 1 only up to round-off.
    wall[0] = Cx::new(1.0, 0.0);
    for i in 1..half {
        let c = (PI * i as f64 / m as f64).cos();
        let xi = c * c;
        wall[i] = section.lower(xi).into();
        wall[m - i] = section.upper(xi).into();
    }
    wall
}

/// A complex number, for the conformal map.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cx {
    re: f64,
    im: f64,
}

impl Cx {
    const fn new(re: f64, im: f64) -> Self {
        Self { re, im }
    }

    fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }

    /// Principal argument, in `(-pi, pi]`.
    fn arg(self) -> f64 {
        self.im.atan2(self.re)
    }

    /// Principal logarithm.
    fn ln(self) -> Self {
        Self::new(self.abs().ln(), self.arg())
    }

    fn exp(self) -> Self {
        let (sin, cos) = self.im.sin_cos();
        let r = self.re.exp();
        Self::new(r * cos, r * sin)
    }

    /// The unit vector along `self`.
    fn unit(self) -> Self {
        self * (1.0 / self.abs())
    }
}

impl From<(f64, f64)> for Cx {
    fn from((re, im): (f64, f64)) -> Self {
        Self::new(re, im)
    }
}

impl Add for Cx {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self::new(self.re + o.re, self.im + o.im)
    }
}

impl Sub for Cx {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Self::new(self.re - o.re, self.im - o.im)
    }
}

impl Mul for Cx {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        Self::new(
            self.re * o.re - self.im * o.im,
            self.re * o.im + self.im * o.re,
        )
    }
}

impl Mul<f64> for Cx {
    type Output = Self;
    fn mul(self, k: f64) -> Self {
        Self::new(self.re * k, self.im * k)
    }
}

impl Div for Cx {
    type Output = Self;
    fn div(self, o: Self) -> Self {
        let d = o.re * o.re + o.im * o.im;
        Self::new(
            (self.re * o.re + self.im * o.im) / d,
            (self.im * o.re - self.re * o.im) / d,
        )
    }
}

/// The Kármán–Trefftz-type map of the module documentation, from the
/// physical plane `z` to the plane `zeta` where the trailing edge is smooth.
struct TrailingEdgeMap {
    /// The trailing edge, `(1, 0)`, mapped to `zeta = 1`.
    te: Cx,
    /// The nose point inside the section, mapped to `zeta = -1`.
    nose: Cx,
    /// `2 - (trailing-edge angle) / pi`: the power that flattens the edge.
    kappa: f64,
    /// The branch cut: a polyline on the camber line from the trailing edge
    /// to the nose point, inside the section.
    cut: Vec<Cx>,
}

impl TrailingEdgeMap {
    fn new(section: &Naca4) -> Self {
        // Half the leading-edge radius (1.1019 t^2, the NACA formula) along
        // the camber line: well inside the nose, where the map then spreads
        // the clustered leading-edge points about as evenly as the others.
        let x_nose = 0.5 * 1.1019 * section.t * section.t;
        // A straight camber line needs one segment; a curved one a polyline
        // fine enough to stay inside the section (denser at both ends, where
        // the section is thin).
        let segments = if section.m == 0.0 { 1 } else { 64 };
        let cut = (0..=segments)
            .map(|k| {
                let c = 0.5 * (1.0 + (PI * k as f64 / segments as f64).cos());
                let x = x_nose + (1.0 - x_nose) * c;
                Cx::new(x, section.camber(x))
            })
            .collect::<Vec<_>>();
        Self {
            te: cut[0],
            nose: cut[segments],
            kappa: 2.0 - section.trailing_edge_angle() / PI,
            cut,
        }
    }

    /// `log((z - te) / (z - nose))` on the branch that is continuous outside
    /// the cut: the sum of the principal logarithms of the segments' ratios,
    /// each of which is discontinuous only across its own segment.
    fn log_ratio(&self, z: Cx) -> Cx {
        let arg = self
            .cut
            .windows(2)
            .map(|c| ((z - c[0]) / (z - c[1])).arg())
            .sum::<f64>();
        Cx::new(((z - self.te).abs() / (z - self.nose).abs()).ln(), arg)
    }

    /// `zeta(z)`.
    fn forward(&self, z: Cx) -> Cx {
        let w = (self.log_ratio(z) * (1.0 / self.kappa)).exp();
        (Cx::new(1.0, 0.0) + w) / (Cx::new(1.0, 0.0) - w)
    }

    /// `d zeta / d z` at `z`, away from the trailing edge (where it is
    /// infinite).
    fn derivative(&self, z: Cx) -> Cx {
        let one = Cx::new(1.0, 0.0);
        let w = (self.log_ratio(z) * (1.0 / self.kappa)).exp();
        let dlog = one / (z - self.te) - one / (z - self.nose);
        let d = one - w;
        w * dlog * (2.0 / self.kappa) / (d * d)
    }

    /// `z(zeta)`: `w = (zeta - 1) / (zeta + 1)`, `r = w^kappa`,
    /// `z = (te - r nose) / (1 - r)`. The principal power is the right
    /// branch: the domain's image has `|arg w| < pi`.
    fn inverse(&self, zeta: Cx) -> Cx {
        let one = Cx::new(1.0, 0.0);
        let w = (zeta - one) / (zeta + one);
        let r = (w.ln() * self.kappa).exp();
        (self.te - r * self.nose) / (one - r)
    }
}

/// One grid line in the transformed plane.
struct GridLine {
    /// The physical wall point.
    wall: Cx,
    /// The physical far-field point.
    far: Cx,
    /// The wall point's image.
    start: Cx,
    /// The far-field point's image.
    end: Cx,
    /// Tangent at the wall: the length times the image wall normal.
    start_tangent: Cx,
    /// Tangent at the far field: the length times the image of the radius.
    end_tangent: Cx,
    /// `|end - start|`.
    length: f64,
    /// Mean distance to the neighbouring wall points' images.
    spacing: f64,
    /// Physical length per transformed length at the wall point (chords
    /// across the two neighbouring wall points over their images' distance).
    scale: f64,
}

/// The grid lines from each wall point to the circle of `radius` about
/// [`CENTRE`]: line `j` ends at angle `-2 pi j / m` (clockwise, like the wall
/// ring). The upper half mirrors the lower half's far-field points so that a
/// symmetric section gives an exactly symmetric cloud.
fn grid_lines(map: &TrailingEdgeMap, wall: &[Cx], radius: f64) -> Vec<GridLine> {
    let m = wall.len();
    let half = m / 2;
    let mut radial = vec![Cx::new(1.0, 0.0); m];
    radial[half] = Cx::new(-1.0, 0.0);
    for j in 1..half {
        let (sin, cos) = (2.0 * PI * j as f64 / m as f64).sin_cos();
        radial[j] = Cx::new(cos, -sin);
        radial[m - j] = Cx::new(cos, sin);
    }
    let image: Vec<Cx> = wall.iter().map(|&w| map.forward(w)).collect();
    (0..m)
        .map(|j| {
            let (jl, jr) = ((j + m - 1) % m, (j + 1) % m);
            let (b, bl, br) = (image[j], image[jl], image[jr]);
            // The normal from the ring neighbours, as the solver computes it
            // (geometry::boundary_normal): into the fluid for this clockwise
            // ring, in either plane since the map keeps orientation.
            let normal = Cx::new(-(br.im - bl.im), br.re - bl.re).unit();
            let far = CENTRE + radial[j] * radius;
            let end = map.forward(far);
            // The image of the circle's outward radius.
            let out = (map.derivative(far) * radial[j]).unit();
            let length = (end - b).abs();
            GridLine {
                wall: wall[j],
                far,
                start: b,
                end,
                start_tangent: normal * length,
                end_tangent: out * length,
                length,
                spacing: 0.5 * ((b - bl).abs() + (br - b).abs()),
                scale: (wall[jr] - wall[jl]).abs() / (br - bl).abs(),
            }
        })
        .collect()
}

/// The cubic Hermite basis at one `s`: weights of the start point, the end
/// point, the start tangent and the end tangent.
struct Hermite {
    w: f64,
    f: f64,
    a: f64,
    b: f64,
}

impl Hermite {
    fn at(s: f64) -> Self {
        let (s2, s3) = (s * s, s * s * s);
        Self {
            w: 2.0 * s3 - 3.0 * s2 + 1.0,
            f: 3.0 * s2 - 2.0 * s3,
            a: s3 - 2.0 * s2 + s,
            b: s3 - s2,
        }
    }
}

/// Checks that every cell `(j, r), (j+1, r), (j+1, r+1), (j, r+1)` is a
/// simple quadrilateral with positive (counter-clockwise) orientation: one of
/// its diagonals must split it into two positive triangles.
fn check_no_folds(x: &[f64], y: &[f64], m: usize, rings: usize) -> Result<(), CloudError> {
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
fn build_topology(cloud: &mut Cloud, m: usize, rings: usize) -> Result<(), CloudError> {
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
struct Fits {
    kind: PointKind,
    /// full, xpos, xneg, ypos, yneg.
    sums: [Moments; 5],
}

impl Fits {
    const NAMES: [&'static str; 5] = ["full", "xpos", "xneg", "ypos", "yneg"];

    fn of(cloud: &Cloud, i: usize, stencil: &[u32]) -> Self {
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
    fn present(&self) -> u32 {
        (0..5)
            .filter(|&w| self.sums[w].saa + self.sums[w].sbb > 0.0)
            .fold(0, |b, w| b | 1 << w)
    }

    /// Bit `w` set: fit `w` is needed for this kind of point and nearly
    /// singular (relative determinant below [`MIN_FIT_DET`]).
    fn failing(&self) -> u32 {
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
#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check;
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
    fn parses_naca_codes() {
        let s: Naca4 = "naca0012".parse().unwrap();
        assert_eq!((s.m, s.p, s.t), (0.0, 0.0, 0.12));
        let s: Naca4 = "NACA2412".parse().unwrap();
        assert_eq!((s.m, s.p, s.t), (0.02, 0.4, 0.12));
        let s: Naca4 = "6409".parse().unwrap();
        assert_eq!((s.m, s.p, s.t), (0.06, 0.4, 0.09));
        let s: Naca4 = " NaCa 4415 ".parse().unwrap();
        assert_eq!((s.m, s.p, s.t), (0.04, 0.4, 0.15));
        let s: Naca4 = "naca-0099".parse().unwrap();
        assert_eq!(s.t, 0.99);
    }

    #[test]
    fn malformed_codes_are_errors_naming_the_code() {
        for (code, why) in [
            ("naca00x2", "four digits"),
            ("naca12", "four digits"),
            ("naca00120", "four digits"),
            ("", "four digits"),
            ("naca", "four digits"),
            ("nac0012", "four digits"),
            ("naca 00 12", "four digits"),
            ("naca٠٠١٢", "four digits"),
            ("naca0000", "thickness"),
            ("naca2012", "position"),
            ("naca0412", "without camber"),
        ] {
            let e = code.parse::<Naca4>().unwrap_err().to_string();
            assert!(e.contains(&format!("{code:?}")), "{code}: {e}");
            assert!(e.contains(why), "{code}: {e}");
            assert!(
                e.contains("naca0012"),
                "says what a valid code looks like: {e}"
            );
        }
    }

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
                dist(&c, j, m + j)
                    / (0.5 * (dist(&c, j, (j + 1) % m) + dist(&c, j, (j + m - 1) % m)))
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
                "FirstSpacing(0)",
            ),
            (
                with(&|g| g.stretching = Some(Stretching::FirstSpacing(-0.01))),
                "FirstSpacing(-0.01)",
            ),
            (
                with(&|g| g.stretching = Some(Stretching::FirstSpacing(f64::NAN))),
                "FirstSpacing(NaN)",
            ),
            (
                with(&|g| g.stretching = Some(Stretching::FirstSpacing(f64::INFINITY))),
                "FirstSpacing(inf)",
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
                "GrowthRatio(0.9)",
            ),
            (
                with(&|g| g.stretching = Some(Stretching::GrowthRatio(0.0))),
                "GrowthRatio(0)",
            ),
            (
                with(&|g| g.stretching = Some(Stretching::GrowthRatio(f64::NAN))),
                "GrowthRatio(NaN)",
            ),
            (
                with(&|g| g.stretching = Some(Stretching::GrowthRatio(f64::INFINITY))),
                "GrowthRatio(inf)",
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
}
