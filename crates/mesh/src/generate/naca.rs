//! NACA 4-digit sections: the formulas, the codes and the wall ring.

use std::f64::consts::PI;
use std::str::FromStr;

use super::map::Cx;
use crate::CloudError;

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
    pub(super) fn trailing_edge_angle(&self) -> f64 {
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

/// The wall ring, `m` points (even), from the trailing edge along the lower
/// surface to the leading edge and back along the upper surface. Both
/// surfaces use the chord stations `x_i = cos^2(pi i / m)`, i.e. cosine
/// spacing `(1 + cos(2 pi i / m)) / 2`, so upper point `m - i` sits over
/// lower point `i` (for a symmetric section its exact mirror image).
pub(super) fn wall_ring(section: &Naca4, m: usize) -> Vec<Cx> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
