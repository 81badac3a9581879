//! Force coefficients and surface pressure (`LSKUM.md` section 5).

use crate::gas::{FreeStream, P_INF};
use crate::geometry::SurfacePoint;
use crate::Vec4;

/// Lift, drag and pitching-moment coefficients.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Coefficients {
    /// Lift coefficient.
    pub cl: f64,
    /// Drag coefficient.
    pub cd: f64,
    /// Pitching-moment coefficient about the quarter chord (0.25, 0).
    pub cm: f64,
}

/// `-Cp`, as the reference stores it: `(p - p_inf) / (rho_inf M^2 / 2)`
/// negated. Surface output uses [`pressure_coefficient`] (the conventional
/// sign) instead.
#[inline]
fn minus_cp(p: f64, fs: &FreeStream) -> f64 {
    let cp = p - P_INF;
    -cp / fs.dynamic_pressure()
}

/// The pressure coefficient `Cp = (p - p_inf) / (rho_inf M^2 / 2)`, with the
/// conventional sign (negative on the suction side).
pub fn pressure_coefficient(p: f64, fs: &FreeStream) -> f64 {
    -minus_cp(p, fs)
}

/// Exact partial sums of the force integrals over some surface points; sums
/// over any split of the points merge to the same bits.
#[derive(Clone, Debug, Default)]
pub struct ForceSums {
    /// `S(-cp nx ds)` (the reference's `H`).
    pub h: bitrep::SumF64,
    /// `S(-cp ny ds)` (the reference's `V`).
    pub v: bitrep::SumF64,
    /// `S(cp ny ds (x - 0.25) - cp nx ds y)` with the reference's `-Cp` as `cp`.
    pub m: bitrep::SumF64,
}

impl ForceSums {
    /// Adds the contribution of one surface point with pressure `p`.
    pub fn add(&mut self, s: &SurfacePoint, p: f64, fs: &FreeStream) {
        let cp = minus_cp(p, fs);
        self.h.add(cp * s.nx * s.ds);
        self.v.add(cp * s.ny * s.ds);
        self.m
            .add((-cp * s.ny * s.ds * (s.x - 0.25)) + (cp * s.nx * s.ds * s.y));
    }

    /// Merges another partial sum into this one.
    pub fn merge(&mut self, other: &ForceSums) {
        self.h.merge(&other.h);
        self.v.merge(&other.v);
        self.m.merge(&other.m);
    }

    /// The coefficients (lift perpendicular, drag parallel to the free stream).
    pub fn coefficients(&self, fs: &FreeStream) -> Coefficients {
        let (h, v) = (self.h.value(), self.v.value());
        let (s, c) = fs.theta.sin_cos();
        Coefficients {
            cl: v * c - h * s,
            cd: h * c + v * s,
            cm: self.m.value(),
        }
    }
}

/// Force coefficients of all bodies together, from the primitive states of
/// the points (`prim` indexed by point).
pub fn coefficients(surface: &[SurfacePoint], prim: &[Vec4], fs: &FreeStream) -> Coefficients {
    let mut sums = ForceSums::default();
    for s in surface {
        sums.add(s, prim[s.index as usize][3], fs);
    }
    sums.coefficients(fs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flat plate of unit chord along x with a pressure difference between
    /// its sides gives lift = that difference (normal force) resolved.
    #[test]
    fn pressure_difference_on_a_plate_gives_lift() {
        let fs = FreeStream::new(0.5, 0.0);
        let q = fs.dynamic_pressure();
        // lower side: normal (0,-1), p = p_inf + q (Cp = 1); upper: normal (0,1), p = p_inf
        let n = 10;
        let mut surface = Vec::new();
        let mut prim = Vec::new();
        for j in 0..n {
            let x = (j as f64 + 0.5) / n as f64;
            for (ny, p) in [(-1.0, P_INF + q), (1.0, P_INF)] {
                surface.push(SurfacePoint {
                    index: prim.len() as u32,
                    shape: 1,
                    x,
                    y: 0.0,
                    nx: 0.0,
                    ny,
                    ds: 1.0 / n as f64,
                });
                prim.push([1.0, 0.5, 0.0, p]);
            }
        }
        let c = coefficients(&surface, &prim, &fs);
        assert!((c.cl - 1.0).abs() < 1e-14, "{c:?}");
        assert!(c.cd.abs() < 1e-14);
        // centre of pressure at mid-chord: moment about the quarter chord is -0.25 (nose down)
        assert!((c.cm + 0.25).abs() < 1e-14, "{c:?}");
        assert!((pressure_coefficient(P_INF + q, &fs) - 1.0).abs() < 1e-15);
    }
}
