//! The gas model: a calorically perfect gas with `gamma = 1.4`, its free
//! stream, and the conversions between primitive, q- and conserved variables.
//!
//! The reference implementation hard-wires `gamma = 1.4` in several constants
//! (2.5 = 1/(gamma-1), 3.5, 6, 7, 0.4 = gamma-1, 0.2 = (gamma-1)/2). qflow
//! keeps those literal constants where the reference uses them, because
//! writing them as expressions of [`GAMMA`] changes the last bit of results
//! and the reference is matched to round-off; each place says so.

use crate::Vec4;
use qflow_par_macros::device;

/// Ratio of specific heats.
#[device]
pub const GAMMA: f64 = 1.4;

/// `gamma - 1` evaluated in floating point as the reference evaluates it
/// (`1.4 - 1.0 = 0.3999999999999999`, one unit in the last place below 0.4).
#[device]
pub const GAMMA_MINUS_1: f64 = GAMMA - 1.0;

/// Free-stream density.
#[device]
pub const RHO_INF: f64 = 1.0;

/// Free-stream pressure `1/gamma`, written as the reference writes it: the
/// literal `0.7142857142857142`, one unit in the last place below the
/// correctly rounded `1.0 / 1.4`.
#[device]
pub const P_INF: f64 = 0.714_285_714_285_714_2;

/// Index of each component in a primitive state `[rho, u, v, p]`.
pub mod prim {
    /// Density.
    pub const RHO: usize = 0;
    /// x-velocity.
    pub const U: usize = 1;
    /// y-velocity.
    pub const V: usize = 2;
    /// Pressure.
    pub const P: usize = 3;
}

/// The free stream of a case.
#[device]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FreeStream {
    /// Mach number.
    pub mach: f64,
    /// Angle of attack in radians.
    pub theta: f64,
}

#[device]
impl FreeStream {
    /// The free stream at Mach number `mach` and angle of attack `aoa_deg`
    /// degrees. The angle is converted as the reference converts it,
    /// `aoa * pi / 180`.
    pub fn new(mach: f64, aoa_deg: f64) -> Self {
        FreeStream {
            mach,
            theta: aoa_deg * std::f64::consts::PI / 180.0,
        }
    }

    /// The primitive state `[rho, u, v, p]` of the free stream.
    pub fn primitive(&self) -> Vec4 {
        [
            RHO_INF,
            self.mach * self.theta.cos(),
            self.mach * self.theta.sin(),
            P_INF,
        ]
    }

    /// Dynamic pressure `rho_inf M^2 / 2` (the reference's form).
    pub fn dynamic_pressure(&self) -> f64 {
        0.5 * RHO_INF * self.mach * self.mach
    }
}

/// q-variables (eq. 13 of the paper) of a primitive state, with
/// `beta = rho / (2 p)`:
/// `q = (ln rho + ln(beta)/(gamma-1) - beta |u|^2, 2 beta u, 2 beta v, -2 beta)`.
/// `1/(gamma-1)` appears as the reference's literal 2.5.
#[device]
#[inline]
pub fn q_of_primitive(w: &Vec4) -> Vec4 {
    let (rho, u1, u2, pr) = (w[0], w[1], w[2], w[3]);
    let beta = 0.5 * (rho / pr);
    let two_times_beta = 2.0 * beta;
    [
        rho.ln() + beta.ln() * 2.5 - (beta * ((u1 * u1) + (u2 * u2))),
        two_times_beta * u1,
        two_times_beta * u2,
        -two_times_beta,
    ]
}

/// Primitive state `[rho, u, v, p]` of q-variables (the inverse of
/// [`q_of_primitive`]): `beta = -q4/2`, `u = q2/(2 beta)`, `v = q3/(2 beta)`,
/// `rho = exp(q1 + beta |u|^2 - ln(beta)/(gamma-1))`, `p = rho/(2 beta)`.
/// With [`math::ln`](crate::math::ln) and [`math::exp`](crate::math::exp),
/// which vectorize (the flux kernel converts batches of states).
#[device]
#[inline(always)]
pub fn primitive_of_q(q: &Vec4) -> Vec4 {
    let beta = -q[3] * 0.5;
    let temp = 0.5 / beta;
    let u1 = q[1] * temp;
    let u2 = q[2] * temp;
    let temp1 = q[0] + beta * (u1 * u1 + u2 * u2);
    let temp2 = temp1 - (crate::math::ln(beta) / GAMMA_MINUS_1);
    let rho = crate::math::exp(temp2);
    [rho, u1, u2, rho * temp]
}

/// Conserved state in the point's frame (tangent `t = (ny, -nx)`, normal
/// `n`): `U = (rho, rho u.t, rho u.n, p/(gamma-1) + rho |u|^2/2)`, with
/// `1/(gamma-1)` as the reference's literal 2.5.
#[device]
#[inline]
pub fn conserved_in_frame(w: &Vec4, nx: f64, ny: f64) -> Vec4 {
    let rho = w[0];
    let temp1 = rho * w[1];
    let temp2 = rho * w[2];
    [
        rho,
        temp1 * ny - temp2 * nx,
        temp1 * nx + temp2 * ny,
        2.5 * w[3] + 0.5 * (temp1 * temp1 + temp2 * temp2) / rho,
    ]
}

/// Primitive state from a conserved state already rotated back to global
/// x-y, `p = (gamma-1)(U4 - |U2,U3|^2/(2 rho))` with the reference's literals
/// 0.4 and 0.2.
#[device]
#[inline]
pub fn primitive_of_conserved(u: &Vec4) -> Vec4 {
    let rho = u[0];
    let temp = 1.0 / rho;
    [
        rho,
        u[1] * temp,
        u[2] * temp,
        (0.4 * u[3]) - ((0.2 * temp) * (u[1] * u[1] + u[2] * u[2])),
    ]
}

/// The kinetic far-field state at an outer point: the half-range moments of
/// the free-stream Maxwellian over molecules entering through the boundary
/// (`-n`) plus those of the local state `w` over molecules leaving it (`+n`),
/// in the point's frame.
#[device]
#[inline]
pub fn far_field_state(w: &Vec4, nx: f64, ny: f64, inf: &Vec4) -> Vec4 {
    const PI: f64 = std::f64::consts::PI;
    let (rho_inf, u1_inf, u2_inf, p_inf) = (inf[0], inf[1], inf[2], inf[3]);
    let (tx, ty) = (ny, -nx);
    let u1_inf_rot = u1_inf * tx + u2_inf * ty;
    let u2_inf_rot = u1_inf * nx + u2_inf * ny;
    let temp1 = u1_inf_rot * u1_inf_rot + u2_inf_rot * u2_inf_rot;
    let e_inf = (p_inf / (rho_inf * GAMMA_MINUS_1)) + 0.5 * temp1;
    let beta = (0.5 * rho_inf) / p_inf;
    let s2 = u2_inf_rot * beta.sqrt();
    let b2_inf = (-s2 * s2).exp() / (2.0 * (PI * beta).sqrt());
    let a2n_inf = 0.5 * (1.0 - libm::erf(s2));

    let (rho, u1, u2, pr) = (w[0], w[1], w[2], w[3]);
    let u1_rot = u1 * tx + u2 * ty;
    let u2_rot = u1 * nx + u2 * ny;
    let temp1 = u1_rot * u1_rot + u2_rot * u2_rot;
    let e = (pr / (rho * GAMMA_MINUS_1)) + 0.5 * temp1;
    let beta = rho / (2.0 * pr);
    let s2 = u2_rot * beta.sqrt();
    let b2 = (-s2 * s2).exp() / (2.0 * (PI * beta).sqrt());
    let a2p = 0.5 * (1.0 + libm::erf(s2));

    [
        (rho_inf * a2n_inf) + (rho * a2p),
        (rho_inf * u1_inf_rot * a2n_inf) + (rho * u1_rot * a2p),
        rho_inf * (u2_inf_rot * a2n_inf - b2_inf) + rho * (u2_rot * a2p + b2),
        (rho_inf * a2n_inf * e_inf - 0.5 * rho_inf * u2_inf_rot * b2_inf)
            + (rho * a2p * e + 0.5 * rho * u2_rot * b2),
    ]
}

/// The far-field state `[rho, u, v, p]` at `(x, y)`: the free stream `fs`,
/// plus, where `vortex = [k, x_v, y_v]` has `k != 0`, the compressible
/// point vortex at `(x_v, y_v)` of Thomas & Salas (AIAA J. 24(7), 1986),
/// `k = Gamma sqrt(1 - M^2) / (2 pi)` with the circulation `Gamma = Cl c
/// |V_inf| / 2` (positive for lift): speed `k / (r (1 - M^2 sin^2(phi -
/// alpha)))` at polar angle `phi` about the vortex, turning clockwise, and
/// density and pressure from the free stream's total enthalpy and
/// entropy (`a^2 = 1 + (gamma - 1)(M^2 - |u|^2) / 2` with the free stream's
/// sound speed 1).
#[device]
#[inline]
pub fn far_field_free_stream(fs: &FreeStream, vortex: [f64; 3], x: f64, y: f64) -> Vec4 {
    let free = fs.primitive();
    if vortex[0] == 0.0 {
        return free;
    }
    let (dx, dy) = (x - vortex[1], y - vortex[2]);
    let r = (dx * dx + dy * dy).sqrt();
    let (sin_phi, cos_phi) = (dy / r, dx / r);
    let sin_rel = sin_phi * fs.theta.cos() - cos_phi * fs.theta.sin();
    let speed = vortex[0] / (r * (1.0 - fs.mach * fs.mach * sin_rel * sin_rel));
    let u = free[1] + speed * sin_phi;
    let v = free[2] - speed * cos_phi;
    let a2 = 1.0 + 0.5 * GAMMA_MINUS_1 * (fs.mach * fs.mach - (u * u + v * v));
    let rho = RHO_INF * a2.powf(1.0 / GAMMA_MINUS_1);
    [rho, u, v, rho * a2 / (GAMMA_MINUS_1 + 1.0)]
}

/// Whether a primitive state is physical: finite, positive density and
/// pressure.
#[device]
#[inline]
pub fn is_physical(w: &Vec4) -> bool {
    w[0] > 0.0
        && w[3] > 0.0
        && w[0].is_finite()
        && w[1].is_finite()
        && w[2].is_finite()
        && w[3].is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn constants_are_the_reference_values() {
        assert_eq!(GAMMA_MINUS_1, 0.3999999999999999);
        assert_eq!(P_INF.to_bits() + 1, (1.0f64 / 1.4).to_bits());
    }

    proptest! {
        #[test]
        fn q_variables_invert(rho in 0.01f64..10.0, u in -3.0f64..3.0, v in -3.0f64..3.0, p in 0.01f64..10.0) {
            let w = [rho, u, v, p];
            let back = primitive_of_q(&q_of_primitive(&w));
            for k in 0..4 {
                prop_assert!((back[k] - w[k]).abs() <= 1e-12 * (1.0 + w[k].abs()), "{k}: {back:?} vs {w:?}");
            }
        }

        #[test]
        fn conserved_round_trip_in_any_frame(rho in 0.01f64..10.0, u in -3.0f64..3.0, v in -3.0f64..3.0,
                                              p in 0.01f64..10.0, a in 0.0f64..6.3) {
            let (nx, ny) = (a.cos(), a.sin());
            let w = [rho, u, v, p];
            let c = conserved_in_frame(&w, nx, ny);
            // rotate back as the state update does
            let g = [c[0], c[1] * ny + c[2] * nx, c[2] * ny - c[1] * nx, c[3]];
            let back = primitive_of_conserved(&g);
            for k in 0..4 {
                prop_assert!((back[k] - w[k]).abs() <= 1e-11 * (1.0 + w[k].abs()));
            }
        }
    }

    #[test]
    fn far_field_of_the_free_stream_is_the_free_stream() {
        // Half-range moments of the same Maxwellian over both halves add up to
        // its full moments.
        let fs = FreeStream::new(0.63, 2.0);
        let w = fs.primitive();
        for a in [0.0f64, 0.7, 2.0, 4.0] {
            let (nx, ny) = (a.cos(), a.sin());
            let u = far_field_state(&w, nx, ny, &w);
            let c = conserved_in_frame(&w, nx, ny);
            for k in 0..4 {
                assert!((u[k] - c[k]).abs() < 1e-14, "{k}: {} vs {}", u[k], c[k]);
            }
        }
    }

    #[test]
    fn the_point_vortex_far_field() {
        let fs = FreeStream::new(0.63, 2.0);
        // Without circulation: the free stream, to the bit.
        assert_eq!(
            far_field_free_stream(&fs, [0.0, 0.25, 0.0], 3.0, 4.0),
            fs.primitive()
        );
        let k = 0.05;
        let at = |x: f64, y: f64| far_field_free_stream(&fs, [k, 0.25, 0.0], x, y);
        // Far away: the free stream (the vortex decays as 1/r).
        let far = at(0.25 + 1e7, 3e6);
        for c in 0..4 {
            assert!((far[c] - fs.primitive()[c]).abs() < 1e-8, "{c}: {far:?}");
        }
        // Lift turns the flow clockwise: faster above, slower below, a
        // downwash behind and an upwash ahead.
        let (above, below) = (at(0.25, 10.0), at(0.25, -10.0));
        assert!(above[1] > fs.primitive()[1] && below[1] < fs.primitive()[1]);
        assert!(at(10.25, 0.0)[2] < fs.primitive()[2]);
        assert!(at(-9.75, 0.0)[2] > fs.primitive()[2]);
        // The circulation around a circle about the vortex is the vortex's
        // (incompressibly, at M -> 0: 2 pi k = Gamma).
        let slow = FreeStream::new(1e-6, 0.0);
        let n = 4000;
        let r = 5.0;
        let mut circ = 0.0;
        for m in 0..n {
            let a = 2.0 * std::f64::consts::PI * (m as f64 + 0.5) / n as f64;
            let w = far_field_free_stream(&slow, [k, 0.25, 0.0], 0.25 + r * a.cos(), r * a.sin());
            // Clockwise is positive lift: -(u.t) along the counter-clockwise tangent.
            circ -= (-w[1] * a.sin() + w[2] * a.cos()) * r * 2.0 * std::f64::consts::PI / n as f64;
        }
        assert!(
            (circ - 2.0 * std::f64::consts::PI * k).abs() < 1e-9,
            "{circ}"
        );
        // Total enthalpy and entropy are the free stream's everywhere.
        for (x, y) in [(3.0, 1.0), (-2.0, -0.5), (0.25, 2.0)] {
            let w = at(x, y);
            let h = GAMMA / GAMMA_MINUS_1 * w[3] / w[0] + 0.5 * (w[1] * w[1] + w[2] * w[2]);
            let f = fs.primitive();
            let h_inf = GAMMA / GAMMA_MINUS_1 * f[3] / f[0] + 0.5 * (f[1] * f[1] + f[2] * f[2]);
            assert!((h - h_inf).abs() < 1e-14, "{h} vs {h_inf}");
            let s = w[3] / w[0].powf(GAMMA);
            assert!((s - f[3]).abs() < 1e-14, "{s}");
        }
    }
}
