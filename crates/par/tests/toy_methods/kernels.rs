//! The toy problems' kernels: written once, run natively by the CPU
//! backends and, translated at test time, by the OpenCL backend.

use qflow_par::{Offsets, Star};
use qflow_par_macros::device;

/// Explicit heat step on a block: `unew = u + r (u_E + u_W - 2u) + s (u_N + u_S - 2u)`.
#[device]
pub fn heat_step(r: [f64; 2], u: Offsets<f64>, unew: &mut f64) {
    let c = u.at(0, 0, 0);
    let dx = u.at(1, 0, 0) + u.at(-1, 0, 0) - 2.0 * c;
    let dy = u.at(0, 1, 0) + u.at(0, -1, 0) - 2.0 * c;
    *unew = c + r[0] * dx + r[1] * dy;
}

/// Copies the new values back and sums them (the heat is conserved).
#[device]
pub fn heat_copy(unew: &f64, u: &mut f64, total: &mut f64) {
    *u = *unew;
    *total += *unew;
}

/// A face's diffusive flux `u_right - u_left`, added to the left cell's
/// residual and taken from the right cell's.
#[device]
pub fn face_flux(left: &f64, right: &f64, res_left: &mut f64, res_right: &mut f64) {
    let f = *right - *left;
    *res_left += f;
    *res_right -= f;
}

/// A cell's update from its residual, which it clears; the largest value
/// of the new state.
#[device]
pub fn cell_update(r: f64, res: &mut f64, u: &mut f64, peak: &mut f64) {
    *u += r * *res;
    *res = 0.0;
    if *u > *peak {
        *peak = *u;
    }
}

/// One Gauss-Seidel update of `-Laplace u = f` on a grid (unit spacing,
/// zero beyond its edges): `u = (f + the neighbours' u) / 4`, with the
/// neighbours' current values (a forward sweep).
#[device]
pub fn gs_forward(f: &f64, nbrs: Star<f64>, u: &mut f64) {
    let mut s = 0.0;
    for m in 0..nbrs.len() {
        s += nbrs.nbr(m);
    }
    *u = (*f + s) * 0.25;
}

/// The same update in a backward sweep.
#[device]
pub fn gs_backward(f: &f64, nbrs: Star<f64>, u: &mut f64) {
    let mut s = 0.0;
    for m in 0..nbrs.len() {
        s += nbrs.nbr(m);
    }
    *u = (*f + s) * 0.25;
}

/// The squared residual `(f + the neighbours' u - 4 u)^2`, summed.
#[device]
pub fn gs_residual(f: &f64, u: Star<f64>, r2: &mut f64) {
    let mut s = 0.0;
    for m in 0..u.len() {
        s += u.nbr(m);
    }
    let r = *f + s - 4.0 * u.own();
    *r2 += r * r;
}
