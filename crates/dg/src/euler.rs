// The kernels of the nodal DG method for the isothermal Euler equations
// (`p = a^2 rho`), written once like `kernels.rs` (and compiled once per
// order like it):
//
// `rho_t + div(rho u) = 0`, `(rho u)_t + div(rho u u + a^2 rho I) = 0`.
//
// An element holds the conserved variables of one DG cell, variable by
// variable, `n` nodes per direction: a 1D cell is an `Euler1` (`[f64;
// 2 n]`: `rho` at `i`, `rho u` at `n + i`), a 2D cell an `Euler2`
// (`[f64; 3 n^2]`: `rho` at `n j + i`, `rho u` at `n^2 + n j + i`, `rho v`
// at `2 n^2 + n j + i`).
//
// The scheme is `kernels.rs`'s strong-form DGSEM on collocated GLL
// nodes, applied to each variable along each direction: along a line the
// state is `(rho, m_n, m_t)` (the momentum normal and tangential to the
// faces the line crosses), the flux `f = (m_n, m_n^2 / rho + a^2 rho, m_n
// m_t / rho)`, the face flux Lax-Friedrichs with the largest eigenvalue
// of the two sides, `|u_n| + a`. In 1D the tangential momentum is 0.
// The volume term is summed as `sum_j D_ij (f_j - f_i)` and the face flux
// of two equal states is exactly their flux, so a constant state has a
// right-hand side of exactly 0.
//
// The global `p = [n, a, 0, 2/hx, 2/hy]`, as the advection kernels' with
// the sound speed in place of the velocity.

use qflow_par::Offsets;
use qflow_par_macros::device;

use super::DG_ORDER;

use crate::tables::{GLL_D, GLL_W};

/// The conserved variables of a 1D cell: `rho` at `i`, `rho u` at `n + i`.
pub type Euler1 = [f64; 2 * DG_ORDER];

/// The conserved variables of a 2D cell: `rho` at `n j + i`, `rho u` at
/// `n^2 + n j + i`, `rho v` at `2 n^2 + n j + i`.
pub type Euler2 = [f64; 3 * DG_ORDER * DG_ORDER];

/// Whether the isothermal Euler kernels of `n` nodes per direction run
/// their node loops with the loop over the nodes innermost (the volume
/// sums of a line over `k` outside the loop over the nodes `i`, and the 2D
/// y-direction row by row, [`iso_rhs_2d_y_rows`]) rather than line by
/// line: the same values either way (each node's sum has the same terms
/// in the same order). The compiler makes vector code of the first for
/// every order but 4 (2D, 8 nodes: half the time of the line by line
/// loops; docs/performance.md 6.2).
#[device]
#[inline(always)]
pub fn iso_rows_first(n: usize) -> bool {
    n != 4
}

/// The isothermal flux across a face of the state `(rho, m_n, m_t)`,
/// `a2 = a^2`: `(m_n, m_n u_n + a2 rho, m_t u_n)`.
#[device]
#[inline(always)]
pub fn iso_flux(a2: f64, rho: f64, mn: f64, mt: f64) -> [f64; 3] {
    let un = mn / rho;
    [mn, mn * un + a2 * rho, mt * un]
}

/// The Lax-Friedrichs flux between the states `l` and `r` (`(rho, m_n,
/// m_t)` each): the mean of their fluxes less `lambda / 2 (r - l)`, with
/// `lambda = max(|u_n,l|, |u_n,r|) + a`.
#[device]
#[inline(always)]
pub fn iso_lf_flux(a: f64, l: [f64; 3], r: [f64; 3]) -> [f64; 3] {
    let a2 = a * a;
    let fl = iso_flux(a2, l[0], l[1], l[2]);
    let fr = iso_flux(a2, r[0], r[1], r[2]);
    let lambda = (l[1] / l[0]).abs().max((r[1] / r[0]).abs()) + a;
    let mut f = [0.0; 3];
    for v in 0..3 {
        f[v] = 0.5 * (fl[v] + fr[v]) - 0.5 * lambda * (r[v] - l[v]);
    }
    f
}

/// The bracket of the strong-form DGSEM along one line of `n` nodes: `q`
/// holds `rho` at `i`, `m_n` at `8 + i`, `m_t` at `16 + i`; `left` and
/// `right` the states across the line's first and last faces. `dq/dt =
/// -(2/h)` times the result (same layout).
#[device]
#[inline(always)]
pub fn iso_line_rhs(n: usize, a: f64, q: &[f64; 24], left: [f64; 3], right: [f64; 3]) -> [f64; 24] {
    let d0 = 64 * (n - 1);
    let w0 = 8 * (n - 1);
    let a2 = a * a;
    let mut f = [0.0; 24];
    for i in 0..n {
        let fi = iso_flux(a2, q[i], q[8 + i], q[16 + i]);
        for v in 0..3 {
            f[8 * v + i] = fi[v];
        }
    }
    let mut out = [0.0; 24];
    if iso_rows_first(n) {
        // Node i's sum over k, the same terms in the same order, with the
        // loop over the nodes innermost.
        for v in 0..3 {
            for k in 0..n {
                let fk = f[8 * v + k];
                for i in 0..n {
                    out[8 * v + i] += GLL_D[d0 + 8 * i + k] * (fk - f[8 * v + i]);
                }
            }
        }
    } else {
        for v in 0..3 {
            for i in 0..n {
                let fi = f[8 * v + i];
                let mut s = 0.0;
                for j in 0..n {
                    s += GLL_D[d0 + 8 * i + j] * (f[8 * v + j] - fi);
                }
                out[8 * v + i] = s;
            }
        }
    }
    let last = n - 1;
    let fr = iso_lf_flux(a, [q[last], q[8 + last], q[16 + last]], right);
    let fl = iso_lf_flux(a, left, [q[0], q[8], q[16]]);
    for v in 0..3 {
        out[8 * v + last] += (fr[v] - f[8 * v + last]) / GLL_W[w0 + last];
        out[8 * v] -= (fl[v] - f[8 * v]) / GLL_W[w0];
    }
    out
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
    let mut q = [0.0; 24];
    for i in 0..n {
        q[i] = u.value(0, 0, 0, i);
        q[8 + i] = u.value(0, 0, 0, n + i);
    }
    let left = [u.value(-1, 0, 0, last), u.value(-1, 0, 0, n + last), 0.0];
    let right = [u.value(1, 0, 0, 0), u.value(1, 0, 0, n), 0.0];
    let line = iso_line_rhs(n, p[1], &q, left, right);
    for i in 0..n {
        r[i] = -p[3] * line[i];
        r[n + i] = -p[3] * line[8 + i];
    }
}

/// The right-hand side of a 2D cell from it and its neighbours along x
/// and y: along x the normal momentum is `rho u`, along y `rho v`.
#[device]
#[inline(always)]
pub fn iso_rhs_2d(p: [f64; 5], u: Offsets<'_, Euler2>, r: &mut Euler2, w: &mut IsoWork2) {
    // `n` is this module's order, a constant (the compiler unrolls the node
    // loops); `w`'s y fluxes as the stage's (its right-hand side unused).
    iso_rhs_2d_n(DG_ORDER, p, u, r, &mut w.g)
}

/// The 2D Euler kernels' work space ([`iso_lserk_2d`], [`iso_rhs_2d`]; made once
/// per chunk of cells on the CPU, once per work item on a device:
/// `scratch(IsoWork2::new)`): a cell's right-hand side and the y fluxes
/// of [`iso_rhs_2d_y_rows`]. Each is written whole (the values in use)
/// before it is read, so a cell's values never depend on the cell before,
/// and no cell zeroes them (local arrays were: 3-6% of the stage's time at
/// 6 and 8 nodes, docs/performance.md 6.2).
#[device]
#[derive(Clone, Copy, Debug)]
pub struct IsoWork2 {
    /// The right-hand side of the cell.
    pub r: Euler2,
    /// The y fluxes, variable `v` of node `(i, k)` at `64 v + 8 k + i`.
    pub g: [f64; 192],
}

#[device]
impl IsoWork2 {
    /// Zeros (never read before written).
    #[inline(always)]
    pub fn new() -> IsoWork2 {
        IsoWork2 {
            r: [0.0; 3 * DG_ORDER * DG_ORDER],
            g: [0.0; 192],
        }
    }
}

impl Default for IsoWork2 {
    fn default() -> Self {
        Self::new()
    }
}

/// [`iso_rhs_2d`] for `n` nodes per direction; `g`: work space of
/// [`iso_rhs_2d_y_rows`] (its contents do not matter).
#[device]
#[inline(always)]
pub fn iso_rhs_2d_n(
    n: usize,
    p: [f64; 5],
    u: Offsets<'_, Euler2>,
    r: &mut Euler2,
    g: &mut [f64; 192],
) {
    let nn = n * n;
    let last = n - 1;
    // Values are read one by one, the cell's own too (no copy of the whole
    // cell).
    // Along x: row j, (rho, rho u, rho v).
    for j in 0..n {
        let mut q = [0.0; 24];
        for v in 0..3 {
            for i in 0..n {
                q[8 * v + i] = u.value(0, 0, 0, nn * v + n * j + i);
            }
        }
        let w = n * j + last;
        let e = n * j;
        let left = [
            u.value(-1, 0, 0, w),
            u.value(-1, 0, 0, nn + w),
            u.value(-1, 0, 0, 2 * nn + w),
        ];
        let right = [
            u.value(1, 0, 0, e),
            u.value(1, 0, 0, nn + e),
            u.value(1, 0, 0, 2 * nn + e),
        ];
        let line = iso_line_rhs(n, p[1], &q, left, right);
        for v in 0..3 {
            for i in 0..n {
                r[nn * v + n * j + i] = -p[3] * line[8 * v + i];
            }
        }
    }
    if iso_rows_first(n) {
        iso_rhs_2d_y_rows(n, p, u, r, g);
        return;
    }
    // Along y: column i, (rho, rho v, rho u).
    for i in 0..n {
        let mut q = [0.0; 24];
        for j in 0..n {
            q[j] = u.value(0, 0, 0, n * j + i);
            q[8 + j] = u.value(0, 0, 0, 2 * nn + n * j + i);
            q[16 + j] = u.value(0, 0, 0, nn + n * j + i);
        }
        let s = n * last + i;
        let left = [
            u.value(0, -1, 0, s),
            u.value(0, -1, 0, 2 * nn + s),
            u.value(0, -1, 0, nn + s),
        ];
        let right = [
            u.value(0, 1, 0, i),
            u.value(0, 1, 0, 2 * nn + i),
            u.value(0, 1, 0, nn + i),
        ];
        let line = iso_line_rhs(n, p[1], &q, left, right);
        for j in 0..n {
            r[n * j + i] -= p[4] * line[j];
            r[2 * nn + n * j + i] -= p[4] * line[8 + j];
            r[nn + n * j + i] -= p[4] * line[16 + j];
        }
    }
}

/// The y-direction of [`iso_rhs_2d_n`] row by row
/// ([`iso_rows_first`]): the fluxes `g` of every node along y
/// first (`(rho v, rho v^2 + a^2 rho, rho u v)`), then row `j` of every
/// column at once, `sum_k D_jk (g_k - g_j)` with `g_k` row `k`, then the
/// faces (rows 0 and `n - 1`); subtracted from `r`. The same values as
/// the column by column loop of [`iso_rhs_2d_n`].
#[device]
#[inline(always)]
pub fn iso_rhs_2d_y_rows(
    n: usize,
    p: [f64; 5],
    u: Offsets<'_, Euler2>,
    r: &mut Euler2,
    g: &mut [f64; 192],
) {
    let nn = n * n;
    let last = n - 1;
    let d0 = 64 * (n - 1);
    let w0 = 8 * (n - 1);
    let a = p[1];
    let a2 = a * a;
    // Variable v (rho, rho v, rho u) of node (i, k) at 64 v + 8 k + i
    // (every value read is written first).
    for k in 0..n {
        for i in 0..n {
            let m = n * k + i;
            let gk = iso_flux(a2, u.value(0, 0, 0, m), u.value(0, 0, 0, 2 * nn + m), u.value(0, 0, 0, nn + m));
            for v in 0..3 {
                g[64 * v + 8 * k + i] = gk[v];
            }
        }
    }
    for j in 0..n {
        let mut out = [0.0; 24];
        for v in 0..3 {
            for k in 0..n {
                let d = GLL_D[d0 + 8 * j + k];
                for i in 0..n {
                    out[8 * v + i] += d * (g[64 * v + 8 * k + i] - g[64 * v + 8 * j + i]);
                }
            }
        }
        if j == last {
            for i in 0..n {
                let m = n * last + i;
                let own = [u.value(0, 0, 0, m), u.value(0, 0, 0, 2 * nn + m), u.value(0, 0, 0, nn + m)];
                let north = [u.value(0, 1, 0, i), u.value(0, 1, 0, 2 * nn + i), u.value(0, 1, 0, nn + i)];
                let fr = iso_lf_flux(a, own, north);
                for v in 0..3 {
                    out[8 * v + i] += (fr[v] - g[64 * v + 8 * last + i]) / GLL_W[w0 + last];
                }
            }
        }
        if j == 0 {
            for i in 0..n {
                let s = n * last + i;
                let south = [u.value(0, -1, 0, s), u.value(0, -1, 0, 2 * nn + s), u.value(0, -1, 0, nn + s)];
                let own = [u.value(0, 0, 0, i), u.value(0, 0, 0, 2 * nn + i), u.value(0, 0, 0, nn + i)];
                let fl = iso_lf_flux(a, south, own);
                for v in 0..3 {
                    out[8 * v + i] -= (fl[v] - g[64 * v + i]) / GLL_W[w0];
                }
            }
        }
        for i in 0..n {
            r[n * j + i] -= p[4] * out[i];
            r[2 * nn + n * j + i] -= p[4] * out[8 + i];
            r[nn + n * j + i] -= p[4] * out[16 + i];
        }
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
pub fn iso_diag_2d(_p: [f64; 5], u: &Euler2, mass: &mut f64, kinetic: &mut f64, low: &mut f64) {
    // This module's order (the loops unroll); each row summed apart, so
    // that the rows' chains of dependent additions overlap.
    let n = DG_ORDER;
    let w0 = 8 * (n - 1);
    let mut m = 0.0;
    let mut k = 0.0;
    let mut lo = *low;
    for j in 0..n {
        let (mut rm, mut rk) = (0.0, 0.0);
        let mut rlo = u[n * j];
        for i in 0..n {
            let s = n * j + i;
            let rho = u[s];
            let mx = u[n * n + s];
            let my = u[2 * n * n + s];
            rm += GLL_W[w0 + i] * rho;
            rk += GLL_W[w0 + i] * (0.5 * (mx * mx + my * my) / rho);
            rlo = rlo.min(rho);
        }
        m += GLL_W[w0 + j] * rm;
        k += GLL_W[w0 + j] * rk;
        lo = lo.min(rlo);
    }
    *mass += m;
    *kinetic += k;
    *low = lo;
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
    let used = 3 * (p[0] as usize) * (p[0] as usize);
    for k in 0..used {
        u0[k] = u[k];
    }
}

/// Puts the step's start back: `u = u0` (2D Euler).
#[device]
#[inline(always)]
pub fn iso_restore_2d(p: [f64; 5], u0: &Euler2, u: &mut Euler2) {
    let used = 3 * (p[0] as usize) * (p[0] as usize);
    for k in 0..used {
        u[k] = u0[k];
    }
}

/// `y += c x` (2D Euler).
#[device]
#[inline(always)]
pub fn iso_axpy_2d(p: [f64; 5], c: f64, x: &Euler2, y: &mut Euler2) {
    let used = 3 * (p[0] as usize) * (p[0] as usize);
    for k in 0..used {
        y[k] += c * x[k];
    }
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
    iso_lserk_2d_n(DG_ORDER, p, s, u, k, un, w)
}

/// [`iso_lserk_2d`] for `n` nodes per direction.
#[device]
#[inline(always)]
pub fn iso_lserk_2d_n(
    n: usize,
    p: [f64; 5],
    s: [f64; 3],
    u: Offsets<'_, Euler2>,
    k: &mut Euler2,
    un: &mut Euler2,
    w: &mut IsoWork2,
) {
    // `A k` first: the register's loads then overlap the right-hand side
    // (read at the end, they stalled the cell: below order 8 a cell's
    // values in use are not contiguous with the next cell's, and no
    // prefetcher fetches them ahead). The right-hand side goes to an array
    // of its own (its second sweep adds to the first: in `un` it read
    // lines still on their way to the cache).
    if iso_rows_first(n) {
        // `A k` in place, the right-hand side in the work space: no array
        // zeroed per cell (the same operations: the same bits).
        for m in 0..3 * n * n {
            k[m] *= s[0];
        }
        iso_rhs_2d_n(n, p, u, &mut w.r, &mut w.g);
        for m in 0..3 * n * n {
            k[m] += s[2] * w.r[m];
            un[m] = u.value(0, 0, 0, m) + s[1] * k[m];
        }
    } else {
        // 4 nodes (48 values a cell, its lines line by line): local
        // arrays, which the compiler keeps near (in the work space the
        // cell ran 16-20% longer, docs/performance.md 6.2).
        let mut ak = [0.0; 3 * DG_ORDER * DG_ORDER];
        for m in 0..3 * n * n {
            ak[m] = s[0] * k[m];
        }
        let mut r = [0.0; 3 * DG_ORDER * DG_ORDER];
        iso_rhs_2d_n(n, p, u, &mut r, &mut w.g);
        for m in 0..3 * n * n {
            k[m] = ak[m] + s[2] * r[m];
            un[m] = u.value(0, 0, 0, m) + s[1] * k[m];
        }
    }
}
