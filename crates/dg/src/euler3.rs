// The 3D kernels of the nodal DG method for isothermal Euler: this order's
// entry points, with their element type, of the 3D kernels written once
// over a law (`system3.rs`, `crate::laws::Isothermal3`), compiled once per
// order like `euler.rs`'s. A cell is an `Euler3` (`[f64; 4 n^3]`: variable
// `v` of `rho, rho u, rho v, rho w` at node `(i, j, k)` at `v n^3 + n^2 k +
// n j + i`). The global `p = [n, a, flux, 0, 2/hx, 2/hy, 2/hz]`.

use qflow_par::Offsets;
use qflow_par_macros::device;

use super::system3::{sys_axpy, sys_copy, sys_diag_3d, sys_lserk_3d_n, sys_rhs_3d_n};
use super::DG_ORDER;

use crate::laws::Isothermal3;

/// The conserved variables of a 3D cell (variable `v` at node `(i, j, k)`
/// at `v n^3 + n^2 k + n j + i`).
pub type Euler3 = [f64; 4 * DG_ORDER * DG_ORDER * DG_ORDER];

/// The right-hand side of a 3D cell from it and its six face neighbours.
#[device]
#[inline(always)]
pub fn iso_rhs_3d(p: [f64; 7], u: Offsets<'_, Euler3>, r: &mut Euler3) {
    // `n` is this module's order, a constant (the compiler unrolls the node
    // loops).
    if p[2] == 0.0 {
        sys_rhs_3d_n::<Isothermal3, 4, { 4 * DG_ORDER * DG_ORDER * DG_ORDER }, 0>(DG_ORDER, false, p, u, r);
    } else {
        sys_rhs_3d_n::<Isothermal3, 4, { 4 * DG_ORDER * DG_ORDER * DG_ORDER }, 1>(DG_ORDER, false, p, u, r);
    }
}

/// A 3D cell's shares of the mass and the kinetic energy (on the
/// reference cell: the host scales by `hx hy hz / 8`) and the smallest
/// positive quantity at a node.
#[device]
#[inline(always)]
pub fn iso_diag_3d(p: [f64; 7], u: &Euler3, mass: &mut f64, kinetic: &mut f64, low: &mut f64) {
    sys_diag_3d::<Isothermal3, 4, { 4 * DG_ORDER * DG_ORDER * DG_ORDER }>(DG_ORDER, p, u, mass, kinetic, low)
}

/// A whole stage of a low-storage scheme in one pass, `s = [A, B, dt]`:
/// the right-hand side `r` of `u` into `un`, then `k = A k + dt r` and
/// `un = u + B k`; the caller swaps `un` and `u`.
#[device]
#[inline(always)]
pub fn iso_lserk_3d(p: [f64; 7], s: [f64; 3], u: Offsets<'_, Euler3>, k: &mut Euler3, un: &mut Euler3) {
    if p[2] == 0.0 {
        sys_lserk_3d_n::<Isothermal3, 4, { 4 * DG_ORDER * DG_ORDER * DG_ORDER }, 0>(DG_ORDER, false, p, s, u, k, un);
    } else {
        sys_lserk_3d_n::<Isothermal3, 4, { 4 * DG_ORDER * DG_ORDER * DG_ORDER }, 1>(DG_ORDER, false, p, s, u, k, un);
    }
}

/// The last stage of a low-storage step ([`iso_lserk_3d`]), then the
/// new solution's diagnostics ([`iso_diag_3d`]) in the same pass (the
/// same values: the reductions are exact in any order).
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn iso_lserk_diag_3d(
    p: [f64; 7],
    s: [f64; 3],
    u: Offsets<'_, Euler3>,
    k: &mut Euler3,
    un: &mut Euler3,
    mass: &mut f64,
    kinetic: &mut f64,
    low: &mut f64,
) {
    iso_lserk_3d(p, s, u, k, un);
    iso_diag_3d(p, un, mass, kinetic, low);
}

/// Keeps the state at the start of a step: `u0 = u`.
#[device]
#[inline(always)]
pub fn iso_save_3d(_p: [f64; 7], u: &Euler3, u0: &mut Euler3) {
    sys_copy::<{ 4 * DG_ORDER * DG_ORDER * DG_ORDER }>(u, u0)
}

/// Puts the step's start back: `u = u0`.
#[device]
#[inline(always)]
pub fn iso_restore_3d(_p: [f64; 7], u0: &Euler3, u: &mut Euler3) {
    sys_copy::<{ 4 * DG_ORDER * DG_ORDER * DG_ORDER }>(u0, u)
}

/// `y += c x`.
#[device]
#[inline(always)]
pub fn iso_axpy_3d(_p: [f64; 7], c: f64, x: &Euler3, y: &mut Euler3) {
    sys_axpy::<{ 4 * DG_ORDER * DG_ORDER * DG_ORDER }>(c, x, y)
}
