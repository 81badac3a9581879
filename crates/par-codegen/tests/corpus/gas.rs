//! Gas dynamics: conversions between primitive states `[rho, u, v, p]`,
//! q-variables and conserved variables, in a point's frame.

use qflow_par_macros::device;

use super::Vec4;

/// Ratio of specific heats.
pub const GAMMA: f64 = 1.4;
/// `gamma - 1`, as the compiler evaluates it.
pub const GAMMA_MINUS_1: f64 = GAMMA - 1.0;
/// `1 / (gamma - 1)`.
const INV_GM1: f64 = 1.0 / GAMMA_MINUS_1;

/// Indices of the primitive components.
pub mod prim {
    /// Density.
    pub const RHO: usize = 0;
    /// x-velocity.
    pub const U: usize = 1;
    /// y-velocity.
    pub const V: usize = 2;
    /// Pressure.
    pub const P: usize = RHO + 3;
}

/// q-variables of a primitive state.
#[device]
pub fn q_of_primitive(w: &Vec4) -> Vec4 {
    let (rho, u1, u2, pr) = (w[0], w[1], w[2], w[3]);
    let beta = 0.5 * (rho / pr);
    let two_beta = 2.0 * beta;
    [
        super::math::ln(rho) + super::math::ln(beta) * INV_GM1 - (beta * ((u1 * u1) + (u2 * u2))),
        two_beta * u1,
        two_beta * u2,
        -two_beta,
    ]
}

/// The primitive state of q-variables.
#[device]
pub fn primitive_of_q(q: &Vec4) -> Vec4 {
    let beta = -q[3] * 0.5;
    let temp = 0.5 / beta;
    let u1 = q[1] * temp;
    let u2 = q[2] * temp;
    let temp1 = q[0] + beta * (u1 * u1 + u2 * u2);
    let temp2 = temp1 - (crate::corpus::math::ln(beta) / GAMMA_MINUS_1);
    let rho = crate::corpus::math::exp(temp2);
    [rho, u1, u2, rho * temp]
}

/// The conserved state in the frame of normal `(nx, ny)`, and the
/// pressure and sound speed.
#[device]
pub fn conserved_in_frame(w: &Vec4, nx: f64, ny: f64) -> (Vec4, f64, f64) {
    let rho = w[prim::RHO];
    let temp1 = rho * w[prim::U];
    let temp2 = rho * w[prim::V];
    let u = [
        rho,
        temp1 * ny - temp2 * nx,
        temp1 * nx + temp2 * ny,
        2.5 * w[prim::P] + 0.5 * (temp1 * temp1 + temp2 * temp2) / rho,
    ];
    let c = (GAMMA * w[prim::P] / rho).sqrt();
    (u, w[prim::P], c)
}

/// The primitive state of a conserved state, written in place.
#[device]
pub fn primitive_of_conserved(u: &Vec4, out: &mut Vec4) {
    let rho = u[0];
    let temp = 1.0 / rho;
    out[0] = rho;
    out[1] = u[1] * temp;
    out[2] = u[2] * temp;
    out[3] = (0.4 * u[3]) - ((0.2 * temp) * (u[1] * u[1] + u[2] * u[2]));
}

/// The free stream.
#[device]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FreeStream {
    /// Mach number.
    pub mach: f64,
    /// Angle of attack, radians.
    pub theta: f64,
}

#[device]
impl FreeStream {
    /// At Mach `mach` and `aoa_deg` degrees.
    pub fn new(mach: f64, aoa_deg: f64) -> Self {
        FreeStream {
            mach,
            theta: aoa_deg * std::f64::consts::PI / 180.0,
        }
    }

    /// Its primitive state.
    pub fn primitive(&self) -> Vec4 {
        [
            1.0,
            self.mach * self.theta.cos(),
            self.mach * self.theta.sin(),
            1.0 / GAMMA,
        ]
    }

    /// Dynamic pressure.
    pub fn dynamic_pressure(self) -> f64 {
        0.5 * self.mach * self.mach
    }
}

/// The split flux of a state in a frame: `(G+, G-)` halves by the sign of
/// the normal velocity.
#[device]
pub fn split_flux(w: &Vec4, nx: f64, ny: f64) -> (Vec4, Vec4) {
    let (u, p, c) = conserved_in_frame(w, nx, ny);
    let un = u[2] / u[0];
    let mut plus = [0.0; 4];
    let mut minus = plus;
    for i in 0..4 {
        let f = u[i] * un + if i == 2 { p } else { 0.0 };
        let weight = 0.5 * (1.0 + (un / c).max(-1.0).min(1.0));
        plus[i] = weight * f;
        minus[i] = f - plus[i];
    }
    (plus, minus)
}
