//! Point-cloud generators: O-grids around NACA 4-digit sections.
//!
//! [`NacaOGrid::generate`] builds a structured O-grid of `wall_points` grid
//! lines by `rings` point rings and turns it into a [`Cloud`] with the
//! conventions of the legacy 9,600-point NACA 0012 cloud
//! (`naca0012-9600.partgrid`, a 160 x 60 grid of this kind):
//!
//! - points are numbered ring by ring: the wall ring first, the far-field
//!   ring last; on every ring, point `j` is grid line `j`, and the lines start
//!   at the trailing edge and go along the **lower** surface to the leading
//!   edge and back along the upper surface (clockwise);
//! - ring 0 is wall (shape 1) except the trailing-edge point, which is
//!   interior but keeps shape 1 so that it counts in the forces; the last
//!   ring is outer; everything else is interior (shape 0);
//! - `left`/`right` are the ring neighbours `j - 1`/`j + 1` (cyclic) on every
//!   ring, so that the boundary normal `(-(yR - yL), xR - xL)` points into
//!   the fluid at the wall and outwards on the far-field circle;
//! - stencils are the 8 structured neighbours, in the legacy file's order.
//!
//! # Construction
//!
//! Wall points are the section's surface at cosine-spaced chord stations
//! (`x = cos^2(pi i / M)`), so they cluster at both edges, with exactly one
//! point at the trailing edge `(1, 0)` and one at the leading edge `(0, 0)`.
//! The far-field points are evenly spaced in angle on a circle about
//! `(0.5, 0)`, grid line `j` ending at angle `-2 pi j / M`.
//!
//! Grid line `j` is the cubic Hermite curve from wall point `W` to far-field
//! point `F` that leaves the wall along the wall normal and meets the circle
//! along its radius, both with speed `D = |F - W|`:
//!
//! ```text
//! P(s) = h00(s) W + h01(s) F + h10(s) D n_wall + h11(s) D n_circle,   0 <= s <= 1
//! ```
//!
//! With that speed a straight radial line is parametrised by arc length times
//! `1/D`, so a geometric series of `s` values gives rings whose spacing grows
//! geometrically (first spacing about `D * s_1`). Every ring `r` uses the same
//! `s_r` on all lines. Mapping lines to the circle by index keeps them in
//! order around the body; [`NacaOGrid::generate`] still verifies that no grid
//! cell is folded and refuses the grid if one is (extreme sections such as
//! 9% camber on 1% thickness can do that).

use std::f64::consts::PI;
use std::str::FromStr;

use crate::{geometry, Cloud, CloudError, PointKind};

/// The fewest wall points [`NacaOGrid`] accepts: with fewer, the cosine
/// clustering leaves the mid-chord nearly bare and a chord station or two per
/// surface does not describe a section.
pub const MIN_WALL_POINTS: usize = 16;

/// The most wall points [`NacaOGrid`] accepts: beyond that the points next to
/// the trailing edge lie within about `1e-11` chords of it and their spacing
/// is no longer resolved well in double precision.
pub const MAX_WALL_POINTS: usize = 1_000_000;

/// The fewest point rings [`NacaOGrid`] accepts: an outer point's stencil
/// reaches two rings inside it, and a wall point's two rings outside it.
pub const MIN_RINGS: usize = 4;

/// The largest far-field radius [`NacaOGrid`] accepts, in chords: far
/// beyond any useful domain, and small enough that the grid's sums of lengths
/// stay finite.
pub const MAX_FAR_FIELD: f64 = 1e6;

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

/// How the rings are spaced from the wall to the far-field circle: spacings
/// grow geometrically; give either the first spacing or the ratio and the
/// other follows from the number of rings and the distance to the circle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stretching {
    /// Distance from the wall to the first ring, in chords, averaged over the
    /// grid lines (on each line it is this value times the line's length over
    /// the mean line length, so within about `1 / far_field` of it). At most
    /// the uniform spacing (mean line length over `rings - 1`), at least the
    /// wall spacing at the trailing edge.
    FirstSpacing(f64),
    /// Ratio of successive ring spacings, at least 1; it must leave a first
    /// spacing that is at least the wall spacing at the trailing edge.
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
    /// Ring spacing. `None` takes the first spacing equal to the mean wall
    /// spacing (perimeter over `wall_points`), so the cells at the wall are
    /// square on average, or the uniform spacing if that is smaller.
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
const CENTRE: (f64, f64) = (0.5, 0.0);

/// Neighbours per point of the structured stencil.
const STENCIL: usize = 8;

impl NacaOGrid {
    /// Generates the cloud. Errors name the argument at fault and its value;
    /// see the field and [`Stretching`] documentation for the limits.
    pub fn generate(&self) -> Result<Cloud, CloudError> {
        let section = Naca4::new(self.section.m, self.section.p, self.section.t)?;
        let (m, rings) = (self.wall_points, self.rings);
        let n = self.point_count()?;

        let wall = wall_ring(&section, m);
        let reach = wall
            .iter()
            .map(|&(x, y)| dist((x, y), CENTRE))
            .fold(0.0, f64::max);
        let radius = self.far_field;
        if !(radius > 2.0 * reach && radius <= MAX_FAR_FIELD) {
            return Err(CloudError::Generate(format!(
                "far-field radius far_field = {radius}: must be more than {}, twice the largest \
                 distance from (0.5, 0) to the section, so that the grid lines have room to turn \
                 from the wall to the circle, and at most {MAX_FAR_FIELD:e}",
                2.0 * reach
            )));
        }
        let lines = grid_lines(&wall, radius);
        let mean_length = lines.iter().map(|l| l.length).sum::<f64>() / m as f64;
        let perimeter: f64 = (0..m).map(|j| dist(wall[j], wall[(j + 1) % m])).sum();
        let te_spacing = dist(wall[0], wall[1]);
        let s = self.ring_parameters(perimeter / m as f64, te_spacing, mean_length)?;

        let mut x = try_vec(n)?;
        let mut y = try_vec(n)?;
        for (r, &sr) in s.iter().enumerate() {
            if r == 0 || r == rings - 1 {
                // The wall and the circle exactly, not up to round-off.
                let ends = lines.iter().map(|l| if r == 0 { l.wall } else { l.far });
                for (px, py) in ends {
                    x.push(px);
                    y.push(py);
                }
                continue;
            }
            let h = Hermite::at(sr);
            for l in &lines {
                x.push(h.w * l.wall.0 + h.f * l.far.0 + h.a * l.start.0 + h.b * l.end.0);
                y.push(h.w * l.wall.1 + h.f * l.far.1 + h.a * l.start.1 + h.b * l.end.1);
            }
        }
        check_no_folds(&x, &y, m, rings)?;

        let te_extra = trailing_edge_extra_rings(&x, m, rings);
        let mut cloud = Cloud {
            kind: try_vec(n)?,
            left: try_vec(n)?,
            right: try_vec(n)?,
            shape: try_vec(n)?,
            nbr_start: try_vec(n + 1)?,
            nbr: try_vec(STENCIL * n + 2 * te_extra)?,
            x,
            y,
            ..Cloud::default()
        };
        build_topology(&mut cloud, m, rings, te_extra);
        cloud.min_dist = geometry::min_neighbour_distance(&cloud);
        cloud.validate_structure()?;
        Ok(cloud)
    }

    /// `wall_points * rings` after checking both counts and that the cloud's
    /// indices and neighbour offsets fit in 32 bits.
    fn point_count(&self) -> Result<usize, CloudError> {
        let (m, rings) = (self.wall_points, self.rings);
        if m < MIN_WALL_POINTS || m > MAX_WALL_POINTS || m % 2 != 0 {
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
        // Offsets into the neighbour list are u32: 8 neighbours a point plus
        // at most 2 per ring at the trailing edge must stay addressable.
        let limit = u32::MAX as usize;
        match m.checked_mul(rings) {
            Some(n) if n.checked_mul(STENCIL + 1).is_some_and(|e| e <= limit) => Ok(n),
            _ => Err(CloudError::Generate(format!(
                "wall_points x rings = {m} x {rings}: too many points; the neighbour lists of a \
                 cloud hold at most {limit} entries, about {} points",
                limit / (STENCIL + 1)
            ))),
        }
    }

    /// The line parameter `s_r` of every ring: 0 at the wall, 1 on the
    /// circle, steps growing geometrically. `mean_spacing` is the mean wall
    /// spacing (the default first spacing), `te_spacing` the smallest one
    /// (the floor), `mean_length` the mean grid-line length.
    fn ring_parameters(
        &self,
        mean_spacing: f64,
        te_spacing: f64,
        mean_length: f64,
    ) -> Result<Vec<f64>, CloudError> {
        let steps = self.rings - 1;
        let uniform = mean_length / steps as f64;
        // The first spacing and the growth ratio; the other one follows from
        // `first * (sum of ratio^k for k < steps) = mean_length`.
        let (first, ratio) = match self.stretching {
            None => {
                let first = mean_spacing.min(uniform);
                (first, 1.0 + growth_excess(mean_length / first, steps))
            }
            Some(Stretching::FirstSpacing(h)) => {
                if !(h > 0.0 && h <= uniform) {
                    return Err(CloudError::Generate(format!(
                        "first spacing FirstSpacing({h}): must be positive and at most \
                         {uniform:.6e}, the uniform spacing of {steps} steps over the mean \
                         distance {mean_length:.6} to the far-field circle (a larger one would \
                         need spacings shrinking outwards)"
                    )));
                }
                (h, 1.0 + growth_excess(mean_length / h, steps))
            }
            Some(Stretching::GrowthRatio(g)) => {
                if !(g >= 1.0 && g.is_finite()) {
                    return Err(CloudError::Generate(format!(
                        "growth ratio GrowthRatio({g}): must be finite and at least 1"
                    )));
                }
                // series_sum overflows to infinity, not to a panic, and then
                // the first spacing is 0 and refused below.
                (mean_length / series_sum(g - 1.0, steps), g)
            }
        };
        if !(first >= te_spacing) {
            let what = match self.stretching {
                Some(Stretching::GrowthRatio(g)) => format!(
                    "growth ratio GrowthRatio({g}) is too large for rings = {}: it leaves a first \
                     spacing of {first:.3e}, which",
                    self.rings
                ),
                Some(Stretching::FirstSpacing(h)) => format!("first spacing FirstSpacing({h})"),
                None => format!(
                    "rings = {} is too many for wall_points = {}: the uniform ring spacing \
                     {first:.3e}",
                    self.rings, self.wall_points
                ),
            };
            return Err(CloudError::Generate(format!(
                "{what} is below the wall spacing at the trailing edge, {te_spacing:.3e}; cells \
                 that flat at the sharp trailing edge make the solver's least-squares fits \
                 singular"
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
/// the growth ratio minus one that covers `q` first spacings in `steps`
/// steps. Bisection: the sum increases with `e`, and at
/// `e = q^(1 / (steps - 1)) - 1` its last term alone reaches `q`.
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
fn wall_ring(section: &Naca4, m: usize) -> Vec<(f64, f64)> {
    let half = m / 2;
    let mut wall = vec![(0.0, 0.0); m];
    // The edges exactly: the closed-trailing-edge polynomial is zero at
    // x = 1 only up to round-off.
    wall[0] = (1.0, 0.0);
    for i in 1..half {
        let c = (PI * i as f64 / m as f64).cos();
        let xi = c * c;
        wall[i] = section.lower(xi);
        wall[m - i] = section.upper(xi);
    }
    wall[half] = (0.0, 0.0);
    wall
}

/// One grid line: its end points, its Hermite tangents and its length.
struct GridLine {
    /// The wall point.
    wall: (f64, f64),
    /// The far-field point.
    far: (f64, f64),
    /// Tangent at the wall: the length times the wall normal.
    start: (f64, f64),
    /// Tangent at the circle: the length times the outward radius.
    end: (f64, f64),
    /// `|far - wall|`.
    length: f64,
}

/// The grid lines from each wall point to the circle of `radius` about
/// [`CENTRE`]: line `j` ends at angle `-2 pi j / m` (clockwise, like the wall
/// ring). The upper half mirrors the lower half's far-field points so that a
/// symmetric section gives an exactly symmetric cloud.
fn grid_lines(wall: &[(f64, f64)], radius: f64) -> Vec<GridLine> {
    let m = wall.len();
    let half = m / 2;
    let mut radial = vec![(0.0, 0.0); m];
    radial[0] = (1.0, 0.0);
    radial[half] = (-1.0, 0.0);
    for j in 1..half {
        let (sin, cos) = (2.0 * PI * j as f64 / m as f64).sin_cos();
        radial[j] = (cos, -sin);
        radial[m - j] = (cos, sin);
    }
    (0..m)
        .map(|j| {
            let w = wall[j];
            let (l, r) = (wall[(j + m - 1) % m], wall[(j + 1) % m]);
            // The solver's normal (geometry::boundary_normal) from the ring
            // neighbours, so that the first ring lies along it: into the fluid
            // for this clockwise ring.
            let (nx, ny) = (-(r.1 - l.1), r.0 - l.0);
            let norm = nx.hypot(ny);
            let u = radial[j];
            let far = (CENTRE.0 + radius * u.0, CENTRE.1 + radius * u.1);
            let length = dist(w, far);
            GridLine {
                wall: w,
                far,
                start: (length * nx / norm, length * ny / norm),
                end: (length * u.0, length * u.1),
                length,
            }
        })
        .collect()
}

/// The cubic Hermite basis at one `s`: weights of the wall point, the
/// far-field point, the start tangent and the end tangent.
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
/// its diagonals must split it into two positive triangles. The construction
/// keeps cells unfolded for ordinary sections; this catches the extreme ones.
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
                     {} (near ({:.4}, {:.4})): this section is too strongly curved for the \
                     algebraic grid; try more wall points or a larger far-field radius",
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

/// How many rings beyond ring 2 the trailing-edge point's stencil takes from
/// the two grid lines beside it.
///
/// The trailing-edge point is interior, so the solver gives it the normal
/// `(0, 1)` and splits its stencil by the sign of `dx`. Its own grid line
/// leaves the edge straight (exactly along `y = 0` for a symmetric section),
/// so the `dx >= 0` half needs a point of a neighbouring line that has
/// already passed `x = 1`, or its least-squares fit is singular. With first
/// spacings near the trailing-edge wall spacing that point is on ring 1 or 2;
/// otherwise take further rings, the same number on both sides, until one is.
fn trailing_edge_extra_rings(x: &[f64], m: usize, rings: usize) -> usize {
    let beyond = |r: usize| x[r * m + 1] > x[0] || x[r * m + m - 1] > x[0];
    (1..rings)
        .find(|&r| beyond(r))
        .map_or(rings - 1, |r| r.max(2))
        - 2
}

/// Fills kinds, shapes, boundary neighbours and stencils (cloud arrays empty
/// with capacity, coordinates set).
fn build_topology(cloud: &mut Cloud, m: usize, rings: usize, te_extra: usize) {
    let at = |r: usize, j: usize| (r * m + j) as u32;
    let last = rings - 1;
    cloud.nbr_start.push(0);
    for r in 0..rings {
        let kind = match r {
            0 => PointKind::Wall,
            _ if r == last => PointKind::Outer,
            _ => PointKind::Interior,
        };
        for j in 0..m {
            let (jl, jr) = ((j + m - 1) % m, (j + 1) % m);
            let is_te = r == 0 && j == 0;
            cloud
                .kind
                .push(if is_te { PointKind::Interior } else { kind });
            cloud.shape.push(u32::from(r == 0));
            cloud.left.push(at(r, jl));
            cloud.right.push(at(r, jr));
            // The legacy file's stencil order: ring neighbours, then the
            // three points on the next ring, then the ring after (wall,
            // outer); inner ring, ring, outer ring (interior).
            let three = |q: usize| [at(q, jl), at(q, j), at(q, jr)];
            let nbr = &mut cloud.nbr;
            if r == 0 {
                nbr.extend([at(0, jl), at(0, jr)]);
                nbr.extend(three(1));
                nbr.extend(three(2));
                if is_te {
                    for q in 3..3 + te_extra {
                        nbr.extend([at(q, jl), at(q, jr)]);
                    }
                }
            } else if r == last {
                nbr.extend(three(r - 1));
                nbr.extend([at(r, jl), at(r, jr)]);
                nbr.extend(three(r - 2));
            } else {
                nbr.extend(three(r - 1));
                nbr.extend([at(r, jl), at(r, jr)]);
                nbr.extend(three(r + 1));
            }
            cloud.nbr_start.push(nbr.len() as u32);
        }
    }
}

fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    (b.0 - a.0).hypot(b.1 - a.1)
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
mod explore {
    use super::*;
    use crate::check::check;

    #[test]
    fn explore() {
        for code in ["0012", "2412", "4415", "6409", "0024", "0006", "0001", "9901", "9124", "6406"] {
            for &(m, r, ff) in &[(160usize, 60usize, 10.0), (32, 12, 10.0), (16, 4, 1.5), (1000, 400, 10.0), (64, 30, 1.2), (64, 30, 100.0)] {
                for st in [None, Some(Stretching::GrowthRatio(1.0)), Some(Stretching::FirstSpacing(1e-3)), Some(Stretching::FirstSpacing(1.0001 * (1.0 - (PI / m as f64).cos().powi(2)).hypot(0.0)))] {
                    let g = NacaOGrid { section: code.parse().unwrap(), wall_points: m, rings: r, far_field: ff, stretching: st };
                    match g.generate() {
                        Ok(c) => {
                            let rep = check(&c, &[]);
                            let e: Vec<String> = rep.errors().take(3).map(|f| f.to_string()).collect();
                            println!("{code} {m}x{r} ff {ff} {st:?}: ok, check {} {:?}", rep.is_ok(), e);
                        }
                        Err(e) => println!("{code} {m}x{r} ff {ff} {st:?}: ERR {e}"),
                    }
                }
            }
        }
    }
}
