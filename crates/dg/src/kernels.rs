// The kernels of the nodal DG method for linear advection (written once:
// the CPU backends run them as they are, the OpenCL backend runs their
// translation).
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

use crate::tables::{GLL_D, GLL_W};

/// The nodal values of a 1D cell (node `i` at `i`).
pub type Cell1 = [f64; DG_ORDER];

/// The nodal values of a 2D cell (node `(i, j)` at `n j + i`).
pub type Cell2 = [f64; DG_ORDER * DG_ORDER];

/// The Lax-Friedrichs (here: upwind) flux of `f = a u` between `ul` and
/// `ur`.
#[device]
#[inline(always)]
pub fn lf_flux(a: f64, ul: f64, ur: f64) -> f64 {
    0.5 * (a * ul + a * ur) - 0.5 * a.abs() * (ur - ul)
}

/// Whether the kernels of `n` nodes per direction run their node loops
/// with the loop over the nodes innermost: the volume sums of a line
/// ([`line_rhs`], `system::sys_line_rhs`) over `k` outside the loop over the
/// nodes `i`, and the 2D kernels' y-direction row by row, the whole cell
/// at once ([`rhs_2d_n`], `system::sys_rhs_2d_n`), rather than line by line.
/// Each node's sum has the same terms in the same order either way (the
/// same values); the compiler makes vector code of the first for 3, 5 and
/// 7 nodes, of the second for the others (docs/performance.md 6.2).
#[device]
#[inline(always)]
pub fn rows_first(n: usize) -> bool {
    n == 3 || n == 5 || n == 7
}

/// The bracket of the strong-form DGSEM along one line of `n` nodes `q`
/// with the neighbours' values `left` (the node across the line's first
/// face) and `right` (across its last): `du/dt = -(2/h)` times it.
#[device]
#[inline(always)]
pub fn line_rhs(n: usize, a: f64, q: &[f64; 8], left: f64, right: f64) -> [f64; 8] {
    let d0 = 64 * (n - 1);
    let w0 = 8 * (n - 1);
    let mut out = [0.0; 8];
    if rows_first(n) {
        // Node i's sum over k, the same terms in the same order, with the
        // loop over the nodes innermost.
        for k in 0..n {
            let fk = a * q[k];
            for i in 0..n {
                out[i] += GLL_D[d0 + 8 * i + k] * (fk - a * q[i]);
            }
        }
    } else {
        for i in 0..n {
            let fi = a * q[i];
            let mut s = 0.0;
            for j in 0..n {
                s += GLL_D[d0 + 8 * i + j] * (a * q[j] - fi);
            }
            out[i] = s;
        }
    }
    let last = n - 1;
    let fr = lf_flux(a, q[last], right);
    let fl = lf_flux(a, left, q[0]);
    out[last] += (fr - a * q[last]) / GLL_W[w0 + last];
    out[0] -= (fl - a * q[0]) / GLL_W[w0];
    out
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
    let mut q = [0.0; 8];
    for i in 0..n {
        q[i] = u.value(0, 0, 0, i);
    }
    let left = u.value(-1, 0, 0, n - 1);
    let right = u.value(1, 0, 0, 0);
    let line = line_rhs(n, p[1], &q, left, right);
    for i in 0..n {
        r[i] = -p[3] * line[i];
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

/// [`rhs_2d`] for `n` nodes per direction.
#[device]
#[inline(always)]
pub fn rhs_2d_n(n: usize, p: [f64; 5], u: Offsets<'_, Cell2>, r: &mut Cell2) {
    let last = n - 1;
    // Values are read one by one (no copy of a whole cell), the cell's own
    // and its neighbours' face values.
    // Along x: row j.
    for j in 0..n {
        let mut q = [0.0; 8];
        for i in 0..n {
            q[i] = u.value(0, 0, 0, n * j + i);
        }
        let west = u.value(-1, 0, 0, n * j + last);
        let east = u.value(1, 0, 0, n * j);
        let line = line_rhs(n, p[1], &q, west, east);
        for i in 0..n {
            r[n * j + i] = -p[3] * line[i];
        }
    }
    if rows_first(n) {
        rhs_2d_y_rows(n, p, u, r);
        return;
    }
    // Along y: column i.
    for i in 0..n {
        let mut q = [0.0; 8];
        for j in 0..n {
            q[j] = u.value(0, 0, 0, n * j + i);
        }
        let south = u.value(0, -1, 0, n * last + i);
        let north = u.value(0, 1, 0, i);
        let line = line_rhs(n, p[2], &q, south, north);
        for j in 0..n {
            r[n * j + i] -= p[4] * line[j];
        }
    }
}

/// The y-direction of [`rhs_2d_n`] row by row ([`rows_first`]): row `j` of
/// every column at once, `sum_k D_jk (f_k - f_j)` with `f_k` row `k`,
/// then the faces (rows 0 and `n - 1`); subtracted from `r`.
#[device]
#[inline(always)]
pub fn rhs_2d_y_rows(n: usize, p: [f64; 5], u: Offsets<'_, Cell2>, r: &mut Cell2) {
    let last = n - 1;
    let d0 = 64 * (n - 1);
    let w0 = 8 * (n - 1);
    let a = p[2];
    let mut f = [0.0; 64];
    for k in 0..n {
        for i in 0..n {
            f[8 * k + i] = a * u.value(0, 0, 0, n * k + i);
        }
    }
    for j in 0..n {
        let mut out = [0.0; 8];
        for k in 0..n {
            let d = GLL_D[d0 + 8 * j + k];
            for i in 0..n {
                out[i] += d * (f[8 * k + i] - f[8 * j + i]);
            }
        }
        if j == last {
            for i in 0..n {
                let fr = lf_flux(a, u.value(0, 0, 0, n * last + i), u.value(0, 1, 0, i));
                out[i] += (fr - f[8 * last + i]) / GLL_W[w0 + last];
            }
        }
        if j == 0 {
            for i in 0..n {
                let fl = lf_flux(a, u.value(0, -1, 0, n * last + i), u.value(0, 0, 0, i));
                out[i] -= (fl - f[i]) / GLL_W[w0];
            }
        }
        for i in 0..n {
            r[n * j + i] -= p[4] * out[i];
        }
    }
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
