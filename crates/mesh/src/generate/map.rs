//! The conformal map that smooths the trailing edge, and the grid lines
//! drawn in its plane.

use std::f64::consts::PI;
use std::ops::{Add, Div, Mul, Sub};

use super::naca::Naca4;

/// Centre of the far-field circle: mid-chord.
pub(super) const CENTRE: Cx = Cx { re: 0.5, im: 0.0 };

/// A complex number, for the conformal map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Cx {
    pub(super) re: f64,
    pub(super) im: f64,
}

impl Cx {
    pub(super) const fn new(re: f64, im: f64) -> Self {
        Self { re, im }
    }

    pub(super) fn abs(self) -> f64 {
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
pub(super) struct TrailingEdgeMap {
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
    pub(super) fn new(section: &Naca4) -> Self {
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
    pub(super) fn inverse(&self, zeta: Cx) -> Cx {
        let one = Cx::new(1.0, 0.0);
        let w = (zeta - one) / (zeta + one);
        let r = (w.ln() * self.kappa).exp();
        (self.te - r * self.nose) / (one - r)
    }
}

/// One grid line in the transformed plane.
pub(super) struct GridLine {
    /// The physical wall point.
    pub(super) wall: Cx,
    /// The physical far-field point.
    pub(super) far: Cx,
    /// The wall point's image.
    pub(super) start: Cx,
    /// The far-field point's image.
    pub(super) end: Cx,
    /// Tangent at the wall: the length times the image wall normal.
    pub(super) start_tangent: Cx,
    /// Tangent at the far field: the length times the image of the radius.
    pub(super) end_tangent: Cx,
    /// `|end - start|`.
    pub(super) length: f64,
    /// Mean distance to the neighbouring wall points' images.
    pub(super) spacing: f64,
    /// Physical length per transformed length at the wall point (chords
    /// across the two neighbouring wall points over their images' distance).
    pub(super) scale: f64,
}

/// The grid lines from each wall point to the circle of `radius` about
/// [`CENTRE`]: line `j` ends at angle `-2 pi j / m` (clockwise, like the wall
/// ring). The upper half mirrors the lower half's far-field points so that a
/// symmetric section gives an exactly symmetric cloud.
pub(super) fn grid_lines(map: &TrailingEdgeMap, wall: &[Cx], radius: f64) -> Vec<GridLine> {
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
pub(super) struct Hermite {
    pub(super) w: f64,
    pub(super) f: f64,
    pub(super) a: f64,
    pub(super) b: f64,
}

impl Hermite {
    pub(super) fn at(s: f64) -> Self {
        let (s2, s3) = (s * s, s * s * s);
        Self {
            w: 2.0 * s3 - 3.0 * s2 + 1.0,
            f: 3.0 * s2 - 2.0 * s3,
            a: s3 - 2.0 * s2 + s,
            b: s3 - s2,
        }
    }
}
