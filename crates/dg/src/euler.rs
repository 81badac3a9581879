// The kernels of the nodal DG method for the isothermal Euler equations
// (`p = a^2 rho`) in 1D and 2D: this order's entry points, with their
// element types, of the kernels written once over a law in `system.rs`
// (`crate::laws::Isothermal`), compiled once per order like `kernels.rs`:
//
// `rho_t + div(rho u) = 0`, `(rho u)_t + div(rho u u + a^2 rho I) = 0`.
//
// An element holds the conserved variables of one DG cell, variable by
// variable, `n` nodes per direction: a 1D cell is an `Euler1` (`[f64;
// 2 n]`: `rho` at `i`, `rho u` at `n + i`), a 2D cell an `Euler2`
// (`[f64; 3 n^2]`: `rho` at `n j + i`, `rho u` at `n^2 + n j + i`, `rho v`
// at `2 n^2 + n j + i`). In 1D a line's tangential momentum is 0.
//
// The global `p = [n, a, 0, 2/hx, 2/hy]`, as the advection kernels' with
// the sound speed in place of the velocity (`p[2] = 0`: the
// Lax-Friedrichs face flux).

use qflow_par::Offsets;
use qflow_par_macros::device;

use super::system::{
    sys_axpy_2d, sys_diag_2d, sys_lserk_2d_n, sys_line_rhs, sys_rhs_2d_n, sys_save_2d,
};
use super::DG_ORDER;

use crate::laws::Isothermal;
use crate::tables::GLL_W;

/// The conserved variables of a 1D cell: `rho` at `i`, `rho u` at `n + i`.
pub type Euler1 = [f64; 2 * DG_ORDER];

/// The conserved variables of a 2D cell: `rho` at `n j + i`, `rho u` at
/// `n^2 + n j + i`, `rho v` at `2 n^2 + n j + i`.
pub type Euler2 = [f64; 3 * DG_ORDER * DG_ORDER];

/// Whether the isothermal Euler kernels of `n` nodes per direction run
/// their node loops with the loop over the nodes innermost (the volume
/// sums of a line over `k` outside the loop over the nodes `i`, and the 2D
/// y-direction row by row, [`sys_rhs_2d_y_rows`](super::system::sys_rhs_2d_y_rows)) rather than line by
/// line: the same values either way (each node's sum has the same terms
/// in the same order). The compiler makes vector code of the first for
/// every order but 4 (2D, 8 nodes: half the time of the line by line
/// loops; docs/performance.md 6.2).
#[device]
#[inline(always)]
pub fn iso_rows_first(n: usize) -> bool {
    n != 4
}

/// The right-hand side of a 1D cell from it and its neighbours along x.
#[device]
#[inline(always)]
pub fn iso_rhs_1d(p: [f64; 5], u: Offsets<'_, Euler1>, r: &mut Euler1) {
    // `n` is this module's order, a constant (the compiler unrolls the node
    // loops).
    iso_rhs_1d_n(DG_ORDER, p, u, r)
}

/// [`iso_rhs_1d`] for `n` nodes per direction.
#[device]
#[inline(always)]
pub fn iso_rhs_1d_n(n: usize, p: [f64; 5], u: Offsets<'_, Euler1>, r: &mut Euler1) {
    let last = n - 1;
    // Values are read one by one (no copy of a whole cell).
    let mut q = [[0.0; 8]; 3];
    for i in 0..n {
        q[0][i] = u.value(0, 0, 0, i);
        q[1][i] = u.value(0, 0, 0, n + i);
    }
    let left = [u.value(-1, 0, 0, last), u.value(-1, 0, 0, n + last), 0.0];
    let right = [u.value(1, 0, 0, 0), u.value(1, 0, 0, n), 0.0];
    let line = if p[2] == 0.0 {
        sys_line_rhs::<Isothermal, 3, 0>(n, iso_rows_first(n), p[1], &q, left, right)
    } else {
        sys_line_rhs::<Isothermal, 3, 1>(n, iso_rows_first(n), p[1], &q, left, right)
    };
    for i in 0..n {
        r[i] = -p[3] * line[0][i];
        r[n + i] = -p[3] * line[1][i];
    }
}

/// The right-hand side of a 2D cell from it and its neighbours along x
/// and y: along x the normal momentum is `rho u`, along y `rho v`.
#[device]
#[inline(always)]
pub fn iso_rhs_2d(p: [f64; 5], u: Offsets<'_, Euler2>, r: &mut Euler2, w: &mut IsoWork2) {
    // `n` is this module's order, a constant (the compiler unrolls the node
    // loops); `w`'s y fluxes as the stage's (its right-hand side unused).
    let n = DG_ORDER;
    if p[2] == 0.0 {
        sys_rhs_2d_n::<Isothermal, 3, { 3 * DG_ORDER * DG_ORDER }, 0>(n, iso_rows_first(n), p, u, r, &mut w.g);
    } else {
        sys_rhs_2d_n::<Isothermal, 3, { 3 * DG_ORDER * DG_ORDER }, 1>(n, iso_rows_first(n), p, u, r, &mut w.g);
    }
}

/// The 2D Euler kernels' work space ([`iso_lserk_2d`], [`iso_rhs_2d`]; made once
/// per chunk of cells on the CPU, once per work item on a device:
/// `scratch(IsoWork2::new)`): a cell's right-hand side and the y fluxes
/// of [`sys_rhs_2d_y_rows`](super::system::sys_rhs_2d_y_rows). Each is written whole (the values in use)
/// before it is read, so a cell's values never depend on the cell before,
/// and no cell zeroes them (local arrays were: 3-6% of the stage's time at
/// 6 and 8 nodes, docs/performance.md 6.2).
#[device]
#[derive(Clone, Copy, Debug)]
pub struct IsoWork2 {
    /// The right-hand side of the cell.
    pub r: Euler2,
    /// The y fluxes, variable `v` of node `(i, k)` at `g[v][8 k + i]`.
    pub g: [[f64; 64]; 3],
}

#[device]
impl IsoWork2 {
    /// Zeros (never read before written).
    #[inline(always)]
    pub fn new() -> IsoWork2 {
        IsoWork2 {
            r: [0.0; 3 * DG_ORDER * DG_ORDER],
            g: [[0.0; 64]; 3],
        }
    }
}

impl Default for IsoWork2 {
    fn default() -> Self {
        Self::new()
    }
}

/// A 1D cell's shares of the mass `sum_i w_i rho_i`, the kinetic energy
/// `sum_i w_i m_i^2 / (2 rho_i)` (on the reference cell: the host scales
/// by `h / 2`) and the smallest density at a node.
#[device]
#[inline(always)]
pub fn iso_diag_1d(_p: [f64; 5], u: &Euler1, mass: &mut f64, kinetic: &mut f64, low: &mut f64) {
    let n = DG_ORDER;
    let w0 = 8 * (n - 1);
    let mut m = 0.0;
    let mut k = 0.0;
    let mut lo = *low;
    for i in 0..n {
        let rho = u[i];
        let mx = u[n + i];
        m += GLL_W[w0 + i] * rho;
        k += GLL_W[w0 + i] * (0.5 * mx * mx / rho);
        lo = lo.min(rho);
    }
    *mass += m;
    *kinetic += k;
    *low = lo;
}

/// The last stage of a low-storage step (1D Euler): [`iso_lserk_1d`], then the new
/// solution's diagnostics ([`iso_diag_1d`]) in the same pass (the same
/// values: the reductions are exact in any order).
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn iso_lserk_diag_1d(
    p: [f64; 5],
    s: [f64; 3],
    u: Offsets<'_, Euler1>,
    k: &mut Euler1,
    un: &mut Euler1,
    mass: &mut f64,
    kinetic: &mut f64,
    low: &mut f64,
) {
    iso_lserk_1d(p, s, u, k, un);
    iso_diag_1d(p, un, mass, kinetic, low);
}

/// A 2D cell's shares of the mass, the kinetic energy (on the reference
/// cell: the host scales by `hx hy / 4`) and the smallest density at a
/// node.
#[device]
#[inline(always)]
pub fn iso_diag_2d(p: [f64; 5], u: &Euler2, mass: &mut f64, kinetic: &mut f64, low: &mut f64) {
    // This module's order (the loops unroll).
    sys_diag_2d::<Isothermal, 3, { 3 * DG_ORDER * DG_ORDER }>(DG_ORDER, p, u, mass, kinetic, low)
}

/// The last stage of a low-storage step (2D Euler): [`iso_lserk_2d`], then the new
/// solution's diagnostics ([`iso_diag_2d`]) in the same pass (the same
/// values: the reductions are exact in any order).
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn iso_lserk_diag_2d(
    p: [f64; 5],
    s: [f64; 3],
    u: Offsets<'_, Euler2>,
    k: &mut Euler2,
    un: &mut Euler2,
    mass: &mut f64,
    kinetic: &mut f64,
    low: &mut f64,
    w: &mut IsoWork2,
) {
    iso_lserk_2d(p, s, u, k, un, w);
    iso_diag_2d(p, un, mass, kinetic, low);
}

/// Keeps the state at the start of a step: `u0 = u` (1D Euler).
#[device]
#[inline(always)]
pub fn iso_save_1d(u: &Euler1, u0: &mut Euler1) {
    *u0 = *u;
}

/// Puts the step's start back: `u = u0` (1D Euler).
#[device]
#[inline(always)]
pub fn iso_restore_1d(u0: &Euler1, u: &mut Euler1) {
    *u = *u0;
}

/// `y += c x` (1D Euler).
#[device]
#[inline(always)]
pub fn iso_axpy_1d(c: f64, x: &Euler1, y: &mut Euler1) {
    for i in 0..2 * DG_ORDER {
        y[i] += c * x[i];
    }
}

/// A whole stage of a low-storage scheme in one pass, `s = [A, B, dt]`
/// (1D Euler): the right-hand side `r` of `u` ([`iso_rhs_1d`]) into `un`, then
/// `k = A k + dt r` and `un = u + B k`; the caller swaps `un` and `u`.
/// The operations and their order are those of the right-hand side
/// followed by the update `u += B k` in place, so the bits are the same;
/// one pass instead of two saves the traffic of `r` and a second read
/// of `u` (`u` cannot be updated in place here: its neighbours read it).
#[device]
#[inline(always)]
pub fn iso_lserk_1d(
    p: [f64; 5],
    s: [f64; 3],
    u: Offsets<'_, Euler1>,
    k: &mut Euler1,
    un: &mut Euler1,
) {
    iso_rhs_1d(p, u, un);
    for m in 0..2 * DG_ORDER {
        k[m] = s[0] * k[m] + s[2] * un[m];
        un[m] = u.value(0, 0, 0, m) + s[1] * k[m];
    }
}

/// Keeps the state at the start of a step: `u0 = u` (2D Euler). Only the
/// `3 n^2` values in use are touched, here and in the other 2D vector
/// kernels.
#[device]
#[inline(always)]
pub fn iso_save_2d(p: [f64; 5], u: &Euler2, u0: &mut Euler2) {
    sys_save_2d::<3, { 3 * DG_ORDER * DG_ORDER }>(p, u, u0)
}

/// Puts the step's start back: `u = u0` (2D Euler).
#[device]
#[inline(always)]
pub fn iso_restore_2d(p: [f64; 5], u0: &Euler2, u: &mut Euler2) {
    sys_save_2d::<3, { 3 * DG_ORDER * DG_ORDER }>(p, u0, u)
}

/// `y += c x` (2D Euler).
#[device]
#[inline(always)]
pub fn iso_axpy_2d(p: [f64; 5], c: f64, x: &Euler2, y: &mut Euler2) {
    sys_axpy_2d::<3, { 3 * DG_ORDER * DG_ORDER }>(p, c, x, y)
}

/// A whole stage of a low-storage scheme in one pass, `s = [A, B, dt]`
/// (2D Euler): the right-hand side `r` of `u` ([`iso_rhs_2d`]) into `un`, then
/// `k = A k + dt r` and `un = u + B k`; the caller swaps `un` and `u`.
/// The operations and their order are those of the right-hand side
/// followed by the update `u += B k` in place, so the bits are the same;
/// one pass instead of two saves the traffic of `r` and a second read
/// of `u` (`u` cannot be updated in place here: its neighbours read it).
#[device]
#[inline(always)]
pub fn iso_lserk_2d(
    p: [f64; 5],
    s: [f64; 3],
    u: Offsets<'_, Euler2>,
    k: &mut Euler2,
    un: &mut Euler2,
    w: &mut IsoWork2,
) {
    // `n` is this module's order, a constant (the compiler unrolls the node
    // loops).
    let n = DG_ORDER;
    if p[2] == 0.0 {
        sys_lserk_2d_n::<Isothermal, 3, { 3 * DG_ORDER * DG_ORDER }, 0>(n, iso_rows_first(n), p, s, u, k, un, &mut w.r, &mut w.g);
    } else {
        sys_lserk_2d_n::<Isothermal, 3, { 3 * DG_ORDER * DG_ORDER }, 1>(n, iso_rows_first(n), p, s, u, k, un, &mut w.r, &mut w.g);
    }
}
