// The kernels of the nodal DG method for linear advection (written once:
// the CPU backends run them as they are, the OpenCL backend runs their
// translation). The right-hand sides are the systems' kernels
// (`system.rs`) over the advection law (`crate::laws::Advection`); the
// norms and vector kernels are here.
//
// This file is compiled once per order (`crate::orders!`, modules `o1`
// to `o8`), `n = DG_ORDER` the order (nodes per direction, 1 to 8) as a
// constant. An **element** is one DG cell with all its nodal values, an
// array of exactly the order's size: a 1D cell is a `Cell1` (`[f64; n]`,
// nodes `0..n`), a 2D cell a `Cell2` (`[f64; n^2]`, node `(i, j)` at
// `n j + i`).
//
// The right-hand side is the strong-form DGSEM on collocated
// Gauss-Lobatto-Legendre nodes (diagonal mass matrix `w`): along one
// direction of a cell of width `h`,
//
// `du_i/dt = -(2/h) [ sum_j D_ij f_j + delta_{i,n-1} (f*_R - f_{n-1}) / w_{n-1}
//            - delta_{i,0} (f*_L - f_0) / w_0 ]`,
//
// `f = a u`, with the Lax-Friedrichs flux `f* = (f(uL) + f(uR))/2 -
// |a|/2 (uR - uL)` (`|a|` the largest eigenvalue at the face: the upwind
// flux). In 2D the x-derivative runs along the rows and the
// y-derivative along the columns (a tensor product). With `n = 1` (`D =
// [0]`, `w = [2]`) this is `du/dt = -(f*_R - f*_L) / h`: the first-order
// finite volume method with the upwind flux.
//
// The volume term is summed as `sum_j D_ij (f_j - f_i)` (the rows of `D`
// sum to 0), so a constant state has a right-hand side of exactly 0
// (free-stream preservation to the bit, not to round-off).
//
// The differentiation matrices and weights are the constants of
// [`crate::tables`]; the global `p = [n, ax, ay, 2/hx, 2/hy]`.

use qflow_par::Offsets;
use qflow_par_macros::device;

use super::DG_ORDER;

use super::system::{sys_line_rhs, sys_rhs_2d_n};
use crate::laws::Advection;
use crate::tables::GLL_W;

/// The nodal values of a 1D cell (node `i` at `i`).
pub type Cell1 = [f64; DG_ORDER];

/// The nodal values of a 2D cell (node `(i, j)` at `n j + i`).
pub type Cell2 = [f64; DG_ORDER * DG_ORDER];

/// Whether the kernels of `n` nodes per direction run their node loops
/// with the loop over the nodes innermost: the volume sums of a line
/// (`system::sys_line_rhs`) over `k` outside the loop over the nodes `i`,
/// and the 2D kernels' y-direction row by row, the whole cell at once
/// ([`rhs_2d_n`], `system::sys_rhs_2d_n`), rather than line by line.
/// Each node's sum has the same terms in the same order either way (the
/// same values); the compiler makes vector code of the first for 3, 5 and
/// 7 nodes, of the second for the others (docs/performance.md 6.2).
#[device]
#[inline(always)]
pub fn rows_first(n: usize) -> bool {
    n == 3 || n == 5 || n == 7
}

/// The right-hand side of a 1D cell from it and its neighbours along x.
#[device]
#[inline(always)]
pub fn rhs_1d(p: [f64; 5], u: Offsets<'_, Cell1>, r: &mut Cell1) {
    // `n` is this module's order, a constant (the compiler unrolls the node
    // loops).
    rhs_1d_n(DG_ORDER, p, u, r)
}

/// [`rhs_1d`] for `n` nodes per direction.
#[device]
#[inline(always)]
pub fn rhs_1d_n(n: usize, p: [f64; 5], u: Offsets<'_, Cell1>, r: &mut Cell1) {
    let mut q = [[0.0; 8]; 1];
    for i in 0..n {
        q[0][i] = u.value(0, 0, 0, i);
    }
    let left = [u.value(-1, 0, 0, n - 1)];
    let right = [u.value(1, 0, 0, 0)];
    let line = sys_line_rhs::<Advection, 1, 0>(n, rows_first(n), p[1], &q, left, right);
    for i in 0..n {
        r[i] = -p[3] * line[0][i];
    }
}

/// The right-hand side of a 2D cell from it and its neighbours along x
/// and y.
#[device]
#[inline(always)]
pub fn rhs_2d(p: [f64; 5], u: Offsets<'_, Cell2>, r: &mut Cell2) {
    // `n` is this module's order, a constant (the compiler unrolls the node
    // loops).
    rhs_2d_n(DG_ORDER, p, u, r)
}

/// [`rhs_2d`] for `n` nodes per direction: the 2D kernel of the systems
/// over the advection law (`system::sys_rhs_2d_n`), the y-direction row by
/// row where [`rows_first`].
#[device]
#[inline(always)]
pub fn rhs_2d_n(n: usize, p: [f64; 5], u: Offsets<'_, Cell2>, r: &mut Cell2) {
    // The y fluxes of the row-by-row sweep (each written before it is
    // read).
    let mut g = [[0.0; 64]; 1];
    sys_rhs_2d_n::<Advection, 1, { DG_ORDER * DG_ORDER }, 0>(n, rows_first(n), p, u, r, &mut g)
}

/// Keeps the state at the start of a step: `u0 = u` (1D).
#[device]
#[inline(always)]
pub fn save_1d(u: &Cell1, u0: &mut Cell1) {
    *u0 = *u;
}

/// Puts the step's start back: `u = u0` (1D).
#[device]
#[inline(always)]
pub fn restore_1d(u0: &Cell1, u: &mut Cell1) {
    *u = *u0;
}

/// `y += c x` (1D): a Runge-Kutta stage's term.
#[device]
#[inline(always)]
pub fn axpy_1d(c: f64, x: &Cell1, y: &mut Cell1) {
    for i in 0..DG_ORDER {
        y[i] += c * x[i];
    }
}

/// A whole stage of a low-storage scheme in one pass, `s = [A, B, dt]`
/// (1D): the right-hand side `r` of `u` ([`rhs_1d`]) into `un`, then
/// `k = A k + dt r` and `un = u + B k`; the caller swaps `un` and `u`.
/// The operations and their order are those of the right-hand side
/// followed by the update `u += B k` in place, so the bits are the same;
/// one pass instead of two saves the traffic of `r` and a second read
/// of `u` (`u` cannot be updated in place here: its neighbours read it).
#[device]
#[inline(always)]
pub fn lserk_1d(p: [f64; 5], s: [f64; 3], u: Offsets<'_, Cell1>, k: &mut Cell1, un: &mut Cell1) {
    rhs_1d(p, u, un);
    for m in 0..DG_ORDER {
        k[m] = s[0] * k[m] + s[2] * un[m];
        un[m] = u.value(0, 0, 0, m) + s[1] * k[m];
    }
}

/// Keeps the state at the start of a step: `u0 = u` (2D). Only the `n^2`
/// values in use are touched, here and in the other 2D vector kernels.
#[device]
#[inline(always)]
pub fn save_2d(p: [f64; 5], u: &Cell2, u0: &mut Cell2) {
    let used = (p[0] as usize) * (p[0] as usize);
    for k in 0..used {
        u0[k] = u[k];
    }
}

/// Puts the step's start back: `u = u0` (2D).
#[device]
#[inline(always)]
pub fn restore_2d(p: [f64; 5], u0: &Cell2, u: &mut Cell2) {
    let used = (p[0] as usize) * (p[0] as usize);
    for k in 0..used {
        u[k] = u0[k];
    }
}

/// `y += c x` (2D): a Runge-Kutta stage's term.
#[device]
#[inline(always)]
pub fn axpy_2d(p: [f64; 5], c: f64, x: &Cell2, y: &mut Cell2) {
    let used = (p[0] as usize) * (p[0] as usize);
    for k in 0..used {
        y[k] += c * x[k];
    }
}

/// A whole stage of a low-storage scheme in one pass, `s = [A, B, dt]`
/// (2D): the right-hand side `r` of `u` ([`rhs_2d`]) into `un`, then
/// `k = A k + dt r` and `un = u + B k`; the caller swaps `un` and `u`.
/// The operations and their order are those of the right-hand side
/// followed by the update `u += B k` in place, so the bits are the same;
/// one pass instead of two saves the traffic of `r` and a second read
/// of `u` (`u` cannot be updated in place here: its neighbours read it).
#[device]
#[inline(always)]
pub fn lserk_2d(p: [f64; 5], s: [f64; 3], u: Offsets<'_, Cell2>, k: &mut Cell2, un: &mut Cell2) {
    // `n` is this module's order, a constant (the compiler unrolls the node
    // loops).
    lserk_2d_n(DG_ORDER, p, s, u, k, un)
}

/// [`lserk_2d`] for `n` nodes per direction.
#[device]
#[inline(always)]
pub fn lserk_2d_n(
    n: usize,
    p: [f64; 5],
    s: [f64; 3],
    u: Offsets<'_, Cell2>,
    k: &mut Cell2,
    un: &mut Cell2,
) {
    rhs_2d_n(n, p, u, un);
    for m in 0..n * n {
        k[m] = s[0] * k[m] + s[2] * un[m];
        un[m] = u.value(0, 0, 0, m) + s[1] * k[m];
    }
}

/// A 1D cell's share of the squared L2 norm by its Gauss-Lobatto
/// quadrature, on the reference cell: `sum_i w_i u_i^2` (the host scales
/// the sum by `h / 2`).
#[device]
#[inline(always)]
pub fn norm_1d(_p: [f64; 5], u: &Cell1, sum: &mut f64) {
    let n = DG_ORDER;
    let w0 = 8 * (n - 1);
    let mut s = 0.0;
    for i in 0..n {
        s += GLL_W[w0 + i] * u[i] * u[i];
    }
    *sum += s;
}

/// The last stage of a low-storage step (1D): [`lserk_1d`], then the new
/// solution's share of the squared L2 norm ([`norm_1d`]) in the same pass
/// (the same values: the reduction's sum is exact in any order).
#[device]
#[inline(always)]
pub fn lserk_norm_1d(
    p: [f64; 5],
    s: [f64; 3],
    u: Offsets<'_, Cell1>,
    k: &mut Cell1,
    un: &mut Cell1,
    sum: &mut f64,
) {
    lserk_1d(p, s, u, k, un);
    norm_1d(p, un, sum);
}

/// A 2D cell's share of the squared L2 norm, on the reference cell:
/// `sum_ij w_i w_j u_ij^2` (the host scales by `hx hy / 4`).
#[device]
#[inline(always)]
pub fn norm_2d(_p: [f64; 5], u: &Cell2, sum: &mut f64) {
    // This module's order (the loops unroll); each row summed apart, so
    // that the rows' chains of dependent additions overlap.
    let n = DG_ORDER;
    let w0 = 8 * (n - 1);
    let mut s = 0.0;
    for j in 0..n {
        let mut row = 0.0;
        for i in 0..n {
            let v = u[n * j + i];
            row += GLL_W[w0 + i] * v * v;
        }
        s += GLL_W[w0 + j] * row;
    }
    *sum += s;
}

/// The last stage of a low-storage step (2D): [`lserk_2d`], then the new
/// solution's share of the squared L2 norm ([`norm_2d`]) in the same pass
/// (the same values: the reduction's sum is exact in any order).
#[device]
#[inline(always)]
pub fn lserk_norm_2d(
    p: [f64; 5],
    s: [f64; 3],
    u: Offsets<'_, Cell2>,
    k: &mut Cell2,
    un: &mut Cell2,
    sum: &mut f64,
) {
    lserk_2d(p, s, u, k, un);
    norm_2d(p, un, sum);
}
