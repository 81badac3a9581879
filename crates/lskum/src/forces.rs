//! Force coefficients and surface pressure (`LSKUM.md` section 5).

use crate::gas::{FreeStream, P_INF};
use crate::problem::SurfacePoint;
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

impl Coefficients {
    /// The coefficients from the force integrals `H = S(-cp nx ds)`,
    /// `V = S(-cp ny ds)` and the moment `M` (the reference's sums, with
    /// its `-Cp`): lift perpendicular, drag parallel to the free stream.
    pub fn from_integrals(h: f64, v: f64, m: f64, fs: &FreeStream) -> Self {
        let (s, c) = fs.theta.sin_cos();
        Coefficients {
            cl: v * c - h * s,
            cd: h * c + v * s,
            cm: m,
        }
    }
}

/// Force coefficients of all bodies together, from the primitive states of
/// the points (`prim` indexed by point), summed exactly.
pub fn coefficients(surface: &[SurfacePoint], prim: &[Vec4], fs: &FreeStream) -> Coefficients {
    let (mut h, mut v, mut m) = (
        bitrep::SumF64::new(),
        bitrep::SumF64::new(),
        bitrep::SumF64::new(),
    );
    let q = fs.dynamic_pressure();
    for s in surface {
        let mut f = [0.0; 3];
        crate::kernels::force_sums(
            q,
            &[s.x, s.y, s.nx, s.ny, s.ds],
            &prim[s.index as usize],
            &mut f,
        );
        h.add(f[0]);
        v.add(f[1]);
        m.add(f[2]);
    }
    Coefficients::from_integrals(h.value(), v.value(), m.value(), fs)
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
