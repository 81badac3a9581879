// The 3D kernels of the nodal DG method for the compressible Euler
// equations of an ideal gas: this order's entry points, with their element
// type, of the 3D kernels written once over a law (`system3.rs`,
// `crate::laws::IdealGas3`). A cell is a `Gas3` (`[f64; 5 n^3]`: `rho`,
// `rho u`, `rho v`, `rho w`, `E`, each at `n^2 k + n j + i` of its `n^3`
// block). The global `p = [n, gamma, flux, 0, 2/hx, 2/hy, 2/hz]`, `flux`
// 0 (Lax-Friedrichs) or 1 (HLL).

use qflow_par::Offsets;
use qflow_par_macros::device;

use super::system3::{sys_axpy, sys_copy, sys_diag_3d, sys_lserk_3d_n, sys_rhs_3d_n};
use super::DG_ORDER;

use crate::laws::IdealGas3;

/// The conserved variables of a 3D cell (variable `v` at node `(i, j, k)`
/// at `v n^3 + n^2 k + n j + i`).
pub type Gas3 = [f64; 5 * DG_ORDER * DG_ORDER * DG_ORDER];

/// The right-hand side of a 3D cell from it and its six face neighbours.
#[device]
#[inline(always)]
pub fn gas_rhs_3d(p: [f64; 7], u: Offsets<'_, Gas3>, r: &mut Gas3) {
    // `n` is this module's order, a constant (the compiler unrolls the node
    // loops).
    if p[2] == 0.0 {
        sys_rhs_3d_n::<IdealGas3, 5, { 5 * DG_ORDER * DG_ORDER * DG_ORDER }, 0>(DG_ORDER, false, p, u, r);
    } else {
        sys_rhs_3d_n::<IdealGas3, 5, { 5 * DG_ORDER * DG_ORDER * DG_ORDER }, 1>(DG_ORDER, false, p, u, r);
    }
}

/// A 3D cell's shares of the mass and the kinetic energy (on the
/// reference cell: the host scales by `hx hy hz / 8`) and the smallest
/// positive quantity at a node.
#[device]
#[inline(always)]
pub fn gas_diag_3d(p: [f64; 7], u: &Gas3, mass: &mut f64, kinetic: &mut f64, low: &mut f64) {
    sys_diag_3d::<IdealGas3, 5, { 5 * DG_ORDER * DG_ORDER * DG_ORDER }>(DG_ORDER, p, u, mass, kinetic, low)
}

/// A whole stage of a low-storage scheme in one pass, `s = [A, B, dt]`:
/// the right-hand side `r` of `u` into `un`, then `k = A k + dt r` and
/// `un = u + B k`; the caller swaps `un` and `u`.
#[device]
#[inline(always)]
pub fn gas_lserk_3d(p: [f64; 7], s: [f64; 3], u: Offsets<'_, Gas3>, k: &mut Gas3, un: &mut Gas3) {
    if p[2] == 0.0 {
        sys_lserk_3d_n::<IdealGas3, 5, { 5 * DG_ORDER * DG_ORDER * DG_ORDER }, 0>(DG_ORDER, false, p, s, u, k, un);
    } else {
        sys_lserk_3d_n::<IdealGas3, 5, { 5 * DG_ORDER * DG_ORDER * DG_ORDER }, 1>(DG_ORDER, false, p, s, u, k, un);
    }
}

/// The last stage of a low-storage step ([`gas_lserk_3d`]), then the
/// new solution's diagnostics ([`gas_diag_3d`]) in the same pass (the
/// same values: the reductions are exact in any order).
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn gas_lserk_diag_3d(
    p: [f64; 7],
    s: [f64; 3],
    u: Offsets<'_, Gas3>,
    k: &mut Gas3,
    un: &mut Gas3,
    mass: &mut f64,
    kinetic: &mut f64,
    low: &mut f64,
) {
    gas_lserk_3d(p, s, u, k, un);
    gas_diag_3d(p, un, mass, kinetic, low);
}

/// Keeps the state at the start of a step: `u0 = u`.
#[device]
#[inline(always)]
pub fn gas_save_3d(_p: [f64; 7], u: &Gas3, u0: &mut Gas3) {
    sys_copy::<{ 5 * DG_ORDER * DG_ORDER * DG_ORDER }>(u, u0)
}

/// Puts the step's start back: `u = u0`.
#[device]
#[inline(always)]
pub fn gas_restore_3d(_p: [f64; 7], u0: &Gas3, u: &mut Gas3) {
    sys_copy::<{ 5 * DG_ORDER * DG_ORDER * DG_ORDER }>(u0, u)
}

/// `y += c x`.
#[device]
#[inline(always)]
pub fn gas_axpy_3d(_p: [f64; 7], c: f64, x: &Gas3, y: &mut Gas3) {
    sys_axpy::<{ 5 * DG_ORDER * DG_ORDER * DG_ORDER }>(c, x, y)
}
