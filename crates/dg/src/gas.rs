// The kernels of the nodal DG method for the compressible Euler equations
// of an ideal gas in 2D: this order's entry points, with their element
// types, of the kernels written once over a law in `system.rs`
// (`crate::laws::IdealGas`), compiled once per order like `kernels.rs`:
//
// `rho_t + div(m) = 0`, `m_t + div(m u + p I) = 0`, `E_t + div((E + p)
// u) = 0`, `p = (gamma - 1) (E - |m|^2 / (2 rho))`.
//
// A 2D cell is a `Gas2` (`[f64; 4 n^2]`: `rho` at `n j + i`, `rho u` at
// `n^2 + n j + i`, `rho v` at `2 n^2 + ..`, `E` at `3 n^2 + ..`). The
// global `p = [n, gamma, flux, 2/hx, 2/hy]`, `flux` 0 (Lax-Friedrichs)
// or 1 (HLL).

use qflow_par::Offsets;
use qflow_par_macros::device;

use super::system::{sys_axpy_2d, sys_diag_2d, sys_lserk_2d_n, sys_rhs_2d_n, sys_save_2d};
use super::DG_ORDER;

use crate::laws::IdealGas;

/// The conserved variables of a 2D cell: `rho`, `rho u`, `rho v`, `E`,
/// each at `n j + i` of its `n^2` block.
pub type Gas2 = [f64; 4 * DG_ORDER * DG_ORDER];

/// Whether the compressible Euler kernels of `n` nodes per direction run
/// their node loops with the loop over the nodes innermost (the same
/// values either way; as the isothermal ones: every order but 4).
#[device]
#[inline(always)]
pub fn gas_rows_first(n: usize) -> bool {
    n != 4
}

/// The 2D compressible Euler kernels' work space (made once per chunk of
/// cells on the CPU, once per work item on a device): a cell's right-hand
/// side and the y fluxes, each written before it is read.
#[device]
#[derive(Clone, Copy, Debug)]
pub struct GasWork2 {
    /// The right-hand side of the cell.
    pub r: Gas2,
    /// The y fluxes, variable `v` of node `(i, k)` at `g[v][8 k + i]`.
    pub g: [[f64; 64]; 4],
}

#[device]
impl GasWork2 {
    /// Zeros (never read before written).
    #[inline(always)]
    pub fn new() -> GasWork2 {
        GasWork2 {
            r: [0.0; 4 * DG_ORDER * DG_ORDER],
            g: [[0.0; 64]; 4],
        }
    }
}

impl Default for GasWork2 {
    fn default() -> Self {
        Self::new()
    }
}

/// The right-hand side of a 2D cell from it and its neighbours.
#[device]
#[inline(always)]
pub fn gas_rhs_2d(p: [f64; 5], u: Offsets<'_, Gas2>, r: &mut Gas2, w: &mut GasWork2) {
    let n = DG_ORDER;
    if p[2] == 0.0 {
        sys_rhs_2d_n::<IdealGas, 4, { 4 * DG_ORDER * DG_ORDER }, 0>(n, gas_rows_first(n), p, u, r, &mut w.g);
    } else {
        sys_rhs_2d_n::<IdealGas, 4, { 4 * DG_ORDER * DG_ORDER }, 1>(n, gas_rows_first(n), p, u, r, &mut w.g);
    }
}

/// Keeps the state at the start of a step: `u0 = u`.
#[device]
#[inline(always)]
pub fn gas_save_2d(p: [f64; 5], u: &Gas2, u0: &mut Gas2) {
    sys_save_2d::<4, { 4 * DG_ORDER * DG_ORDER }>(p, u, u0)
}

/// Puts the step's start back: `u = u0`.
#[device]
#[inline(always)]
pub fn gas_restore_2d(p: [f64; 5], u0: &Gas2, u: &mut Gas2) {
    sys_save_2d::<4, { 4 * DG_ORDER * DG_ORDER }>(p, u0, u)
}

/// `y += c x`.
#[device]
#[inline(always)]
pub fn gas_axpy_2d(p: [f64; 5], c: f64, x: &Gas2, y: &mut Gas2) {
    sys_axpy_2d::<4, { 4 * DG_ORDER * DG_ORDER }>(p, c, x, y)
}

/// A whole stage of a low-storage scheme in one pass, `s = [A, B, dt]`:
/// the right-hand side of `u`, `k = A k + dt r`, `un = u + B k`.
#[device]
#[inline(always)]
pub fn gas_lserk_2d(
    p: [f64; 5],
    s: [f64; 3],
    u: Offsets<'_, Gas2>,
    k: &mut Gas2,
    un: &mut Gas2,
    w: &mut GasWork2,
) {
    let n = DG_ORDER;
    if p[2] == 0.0 {
        sys_lserk_2d_n::<IdealGas, 4, { 4 * DG_ORDER * DG_ORDER }, 0>(n, gas_rows_first(n), p, s, u, k, un, &mut w.r, &mut w.g);
    } else {
        sys_lserk_2d_n::<IdealGas, 4, { 4 * DG_ORDER * DG_ORDER }, 1>(n, gas_rows_first(n), p, s, u, k, un, &mut w.r, &mut w.g);
    }
}

/// A cell's shares of the mass, the kinetic energy (on the reference
/// cell) and the smallest density or pressure at a node.
#[device]
#[inline(always)]
pub fn gas_diag_2d(p: [f64; 5], u: &Gas2, mass: &mut f64, kinetic: &mut f64, low: &mut f64) {
    sys_diag_2d::<IdealGas, 4, { 4 * DG_ORDER * DG_ORDER }>(DG_ORDER, p, u, mass, kinetic, low)
}

/// The last stage of a low-storage step, then the new solution's
/// diagnostics in the same pass.
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn gas_lserk_diag_2d(
    p: [f64; 5],
    s: [f64; 3],
    u: Offsets<'_, Gas2>,
    k: &mut Gas2,
    un: &mut Gas2,
    mass: &mut f64,
    kinetic: &mut f64,
    low: &mut f64,
    w: &mut GasWork2,
) {
    gas_lserk_2d(p, s, u, k, un, w);
    gas_diag_2d(p, un, mass, kinetic, low);
}
