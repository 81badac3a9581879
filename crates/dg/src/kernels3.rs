// The 3D kernels of the nodal DG method for linear advection, as
// `kernels.rs`'s 1D and 2D ones (compiled once per order): a 3D cell is a
// `Cell3` (`[f64; n^3]`, node `(i, j, k)` at `n^2 k + n j + i`). The
// right-hand side is the 3D kernel of the systems (`system3.rs`) over the
// advection law (`crate::laws::Advection`), the line bracket along the x,
// y and z lines of the cell (a tensor product), the same bits as the
// hand-written advection kernels gave. The global `p = [n, ax, ay, az, 2/hx,
// 2/hy, 2/hz]`.

use qflow_par::Offsets;
use qflow_par_macros::device;

use super::DG_ORDER;

use super::kernels::rows_first;
use super::system3::{sys_axpy, sys_copy, sys_lserk_3d_n, sys_rhs_3d_n};
use crate::laws::Advection;
use crate::tables::GLL_W;

/// The nodal values of a 3D cell (node `(i, j, k)` at `n^2 k + n j + i`).
pub type Cell3 = [f64; DG_ORDER * DG_ORDER * DG_ORDER];

/// The right-hand side of a 3D cell from it and its six face neighbours.
#[device]
#[inline(always)]
pub fn rhs_3d(p: [f64; 7], u: Offsets<'_, Cell3>, r: &mut Cell3) {
    // `n` is this module's order, a constant (the compiler unrolls the node
    // loops).
    rhs_3d_n(DG_ORDER, p, u, r)
}

/// [`rhs_3d`] for `n` nodes per direction: the 3D kernel of the systems
/// over the advection law (`system3::sys_rhs_3d_n`; the Lax-Friedrichs
/// flux of linear advection is the upwind flux), the volume sums in
/// [`rows_first`]'s order.
#[device]
#[inline(always)]
pub fn rhs_3d_n(n: usize, p: [f64; 7], u: Offsets<'_, Cell3>, r: &mut Cell3) {
    sys_rhs_3d_n::<Advection, 1, { DG_ORDER * DG_ORDER * DG_ORDER }, 0>(n, rows_first(n), p, u, r)
}

/// Keeps the state at the start of a step: `u0 = u` (3D; the element's
/// `n^3` values, all in use).
#[device]
#[inline(always)]
pub fn save_3d(_p: [f64; 7], u: &Cell3, u0: &mut Cell3) {
    sys_copy::<{ DG_ORDER * DG_ORDER * DG_ORDER }>(u, u0)
}

/// Puts the step's start back: `u = u0` (3D).
#[device]
#[inline(always)]
pub fn restore_3d(_p: [f64; 7], u0: &Cell3, u: &mut Cell3) {
    sys_copy::<{ DG_ORDER * DG_ORDER * DG_ORDER }>(u0, u)
}

/// `y += c x` (3D): a Runge-Kutta stage's term.
#[device]
#[inline(always)]
pub fn axpy_3d(_p: [f64; 7], c: f64, x: &Cell3, y: &mut Cell3) {
    sys_axpy::<{ DG_ORDER * DG_ORDER * DG_ORDER }>(c, x, y)
}

/// A whole stage of a low-storage scheme in one pass, `s = [A, B, dt]`
/// (3D): the right-hand side `r` of `u` ([`rhs_3d`]) into `un`, then
/// `k = A k + dt r` and `un = u + B k`; the caller swaps `un` and `u`.
/// The operations and their order are those of the right-hand side
/// followed by the update `u += B k` in place, so the bits are the same;
/// one pass instead of two saves the traffic of `r` and a second read
/// of `u` (`u` cannot be updated in place here: its neighbours read it).
#[device]
#[inline(always)]
pub fn lserk_3d(p: [f64; 7], s: [f64; 3], u: Offsets<'_, Cell3>, k: &mut Cell3, un: &mut Cell3) {
    // `n` is this module's order, a constant (the compiler unrolls the node
    // loops).
    lserk_3d_n(DG_ORDER, p, s, u, k, un)
}

/// [`lserk_3d`] for `n` nodes per direction.
#[device]
#[inline(always)]
pub fn lserk_3d_n(
    n: usize,
    p: [f64; 7],
    s: [f64; 3],
    u: Offsets<'_, Cell3>,
    k: &mut Cell3,
    un: &mut Cell3,
) {
    sys_lserk_3d_n::<Advection, 1, { DG_ORDER * DG_ORDER * DG_ORDER }, 0>(n, rows_first(n), p, s, u, k, un)
}

/// A 3D cell's share of the squared L2 norm on the reference cell,
/// `sum_ijk w_i w_j w_k u_ijk^2` (the host scales by `hx hy hz / 8`).
#[device]
#[inline(always)]
pub fn norm_3d(_p: [f64; 7], u: &Cell3, sum: &mut f64) {
    // This module's order (the loops unroll); each line and plane summed
    // apart, so that the chains of dependent additions overlap.
    let n = DG_ORDER;
    let w0 = 8 * (n - 1);
    let mut s = 0.0;
    for k in 0..n {
        let mut plane = 0.0;
        for j in 0..n {
            let mut line = 0.0;
            for i in 0..n {
                let v = u[(k * n + j) * n + i];
                line += GLL_W[w0 + i] * v * v;
            }
            plane += GLL_W[w0 + j] * line;
        }
        s += GLL_W[w0 + k] * plane;
    }
    *sum += s;
}

/// The last stage of a low-storage step (3D): [`lserk_3d`], then the new
/// solution's share of the squared L2 norm ([`norm_3d`]) in the same pass
/// (the same values: the reduction's sum is exact in any order).
#[device]
#[inline(always)]
pub fn lserk_norm_3d(
    p: [f64; 7],
    s: [f64; 3],
    u: Offsets<'_, Cell3>,
    k: &mut Cell3,
    un: &mut Cell3,
    sum: &mut f64,
) {
    lserk_3d(p, s, u, k, un);
    norm_3d(p, un, sum);
}
