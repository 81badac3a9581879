// The 3D kernels of the nodal DG method for isothermal Euler, as
// `euler.rs`'s 1D and 2D ones (compiled once per order): a cell is an
// `Euler3` (`[f64; 4 n^3]`: variable `v` of `rho, rho u, rho v, rho w` at
// node `(i, j, k)` at `v n^3 + n^2 k + n j + i`). Along a line the state is `(rho, m_n, m_t1,
// m_t2)`: the momentum normal to the faces the line crosses and the two
// tangential ones. The global `p = [n, a, 0, 0, 2/hx, 2/hy, 2/hz]`.

use qflow_par::Offsets;
use qflow_par_macros::device;

use super::DG_ORDER;

use crate::tables::{GLL_D, GLL_W};

/// The conserved variables of a 3D cell (variable `v` at node `(i, j, k)`
/// at `v n^3 + n^2 k + n j + i`).
pub type Euler3 = [f64; 4 * DG_ORDER * DG_ORDER * DG_ORDER];

/// The isothermal flux across a face of `(rho, m_n, m_t1, m_t2)`, `a2 =
/// a^2`: `(m_n, m_n u_n + a2 rho, m_t1 u_n, m_t2 u_n)`.
#[device]
#[inline(always)]
pub fn iso_flux_3d(a2: f64, q: [f64; 4]) -> [f64; 4] {
    let un = q[1] / q[0];
    [q[1], q[1] * un + a2 * q[0], q[2] * un, q[3] * un]
}

/// The Lax-Friedrichs flux between `l` and `r` (`(rho, m_n, m_t1, m_t2)`
/// each), `lambda = max(|u_n,l|, |u_n,r|) + a`.
#[device]
#[inline(always)]
pub fn iso_lf_flux_3d(a: f64, l: [f64; 4], r: [f64; 4]) -> [f64; 4] {
    let fl = iso_flux_3d(a * a, l);
    let fr = iso_flux_3d(a * a, r);
    let lambda = (l[1] / l[0]).abs().max((r[1] / r[0]).abs()) + a;
    let mut f = [0.0; 4];
    for v in 0..4 {
        f[v] = 0.5 * (fl[v] + fr[v]) - 0.5 * lambda * (r[v] - l[v]);
    }
    f
}

/// The bracket of the strong-form DGSEM along one line of `n` nodes: `q`
/// holds variable `v` of `(rho, m_n, m_t1, m_t2)` at `8 v + i`; `left`
/// and `right` the states across the line's first and last faces. `dq/dt
/// = -(2/h)` times the result (same layout).
#[device]
#[inline(always)]
pub fn iso_line_rhs_3d(
    n: usize,
    a: f64,
    q: &[f64; 32],
    left: [f64; 4],
    right: [f64; 4],
) -> [f64; 32] {
    let d0 = 64 * (n - 1);
    let w0 = 8 * (n - 1);
    let a2 = a * a;
    let mut f = [0.0; 32];
    for i in 0..n {
        let fi = iso_flux_3d(a2, [q[i], q[8 + i], q[16 + i], q[24 + i]]);
        for v in 0..4 {
            f[8 * v + i] = fi[v];
        }
    }
    let mut out = [0.0; 32];
    for v in 0..4 {
        for i in 0..n {
            let fi = f[8 * v + i];
            let mut s = 0.0;
            for j in 0..n {
                s += GLL_D[d0 + 8 * i + j] * (f[8 * v + j] - fi);
            }
            out[8 * v + i] = s;
        }
    }
    let last = n - 1;
    let fr = iso_lf_flux_3d(a, [q[last], q[8 + last], q[16 + last], q[24 + last]], right);
    let fl = iso_lf_flux_3d(a, left, [q[0], q[8], q[16], q[24]]);
    for v in 0..4 {
        out[8 * v + last] += (fr[v] - f[8 * v + last]) / GLL_W[w0 + last];
        out[8 * v] -= (fl[v] - f[8 * v]) / GLL_W[w0];
    }
    out
}

/// The right-hand side of a 3D cell from it and its six face neighbours.
#[device]
#[inline(always)]
pub fn iso_rhs_3d(p: [f64; 7], u: Offsets<'_, Euler3>, r: &mut Euler3) {
    // `n` is this module's order, a constant (the compiler unrolls the node
    // loops).
    iso_rhs_3d_n(DG_ORDER, p, u, r)
}

/// [`iso_rhs_3d`] for `n` nodes per direction: along each direction `d`
/// the line's variables are `rho`, the momentum along `d`, then the other
/// two in x, y, z order.
#[device]
#[inline(always)]
pub fn iso_rhs_3d_n(n: usize, p: [f64; 7], u: Offsets<'_, Euler3>, r: &mut Euler3) {
    let nn = n * n;
    let nnn = nn * n;
    let last = n - 1;
    // The cell's own values are read one by one too (no copy of the whole
    // cell).
    // Along x: line (j, k), variables (rho, mx, my, mz).
    for k in 0..n {
        for j in 0..n {
            let b = nn * k + n * j;
            let mut q = [0.0; 32];
            for v in 0..4 {
                for i in 0..n {
                    q[8 * v + i] = u.value(0, 0, 0, nnn * v + b + i);
                }
            }
            let mut left = [0.0; 4];
            let mut right = [0.0; 4];
            for v in 0..4 {
                left[v] = u.value(-1, 0, 0, nnn * v + b + last);
                right[v] = u.value(1, 0, 0, nnn * v + b);
            }
            let line = iso_line_rhs_3d(n, p[1], &q, left, right);
            for v in 0..4 {
                for i in 0..n {
                    r[nnn * v + b + i] = -p[4] * line[8 * v + i];
                }
            }
        }
    }
    // Along y: line (i, k), variables (rho, my, mx, mz).
    let along_y = [0, 2, 1, 3];
    for k in 0..n {
        for i in 0..n {
            let b = nn * k + i;
            let mut q = [0.0; 32];
            for v in 0..4 {
                for j in 0..n {
                    q[8 * v + j] = u.value(0, 0, 0, nnn * along_y[v] + b + n * j);
                }
            }
            let mut left = [0.0; 4];
            let mut right = [0.0; 4];
            for v in 0..4 {
                left[v] = u.value(0, -1, 0, nnn * along_y[v] + b + n * last);
                right[v] = u.value(0, 1, 0, nnn * along_y[v] + b);
            }
            let line = iso_line_rhs_3d(n, p[1], &q, left, right);
            for v in 0..4 {
                for j in 0..n {
                    r[nnn * along_y[v] + b + n * j] -= p[5] * line[8 * v + j];
                }
            }
        }
    }
    // Along z: line (i, j), variables (rho, mz, mx, my).
    let along_z = [0, 3, 1, 2];
    for j in 0..n {
        for i in 0..n {
            let b = n * j + i;
            let mut q = [0.0; 32];
            for v in 0..4 {
                for k in 0..n {
                    q[8 * v + k] = u.value(0, 0, 0, nnn * along_z[v] + b + nn * k);
                }
            }
            let mut left = [0.0; 4];
            let mut right = [0.0; 4];
            for v in 0..4 {
                left[v] = u.value(0, 0, -1, nnn * along_z[v] + b + nn * last);
                right[v] = u.value(0, 0, 1, nnn * along_z[v] + b);
            }
            let line = iso_line_rhs_3d(n, p[1], &q, left, right);
            for v in 0..4 {
                for k in 0..n {
                    r[nnn * along_z[v] + b + nn * k] -= p[6] * line[8 * v + k];
                }
            }
        }
    }
}

/// A 3D cell's shares of the mass and the kinetic energy (on the
/// reference cell: the host scales by `hx hy hz / 8`) and the smallest
/// density at a node.
#[device]
#[inline(always)]
pub fn iso_diag_3d(_p: [f64; 7], u: &Euler3, mass: &mut f64, kinetic: &mut f64, low: &mut f64) {
    // This module's order (the loops unroll); each line summed apart, so
    // that the lines' chains of dependent additions overlap.
    let n = DG_ORDER;
    let nnn = n * n * n;
    let w0 = 8 * (n - 1);
    let mut m = 0.0;
    let mut e = 0.0;
    let mut lo = *low;
    for k in 0..n {
        for j in 0..n {
            let (mut lm, mut le) = (0.0, 0.0);
            let mut llo = u[(k * n + j) * n];
            for i in 0..n {
                let s = (k * n + j) * n + i;
                let rho = u[s];
                let mx = u[nnn + s];
                let my = u[2 * nnn + s];
                let mz = u[3 * nnn + s];
                lm += GLL_W[w0 + i] * rho;
                le += GLL_W[w0 + i] * (0.5 * (mx * mx + my * my + mz * mz) / rho);
                llo = llo.min(rho);
            }
            let w = GLL_W[w0 + j] * GLL_W[w0 + k];
            m += w * lm;
            e += w * le;
            lo = lo.min(llo);
        }
    }
    *mass += m;
    *kinetic += e;
    *low = lo;
}

/// The last stage of a low-storage step (3D Euler): [`iso_lserk_3d`], then the new
/// solution's diagnostics ([`iso_diag_3d`]) in the same pass (the same
/// values: the reductions are exact in any order).
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

/// Keeps the state at the start of a step: `u0 = u` (3D Euler; the `4
/// n^3` values in use, here and in the other 3D vector kernels).
#[device]
#[inline(always)]
pub fn iso_save_3d(p: [f64; 7], u: &Euler3, u0: &mut Euler3) {
    let n = p[0] as usize;
    for m in 0..4 * n * n * n {
        u0[m] = u[m];
    }
}

/// Puts the step's start back: `u = u0` (3D Euler).
#[device]
#[inline(always)]
pub fn iso_restore_3d(p: [f64; 7], u0: &Euler3, u: &mut Euler3) {
    let n = p[0] as usize;
    for m in 0..4 * n * n * n {
        u[m] = u0[m];
    }
}

/// `y += c x` (3D Euler).
#[device]
#[inline(always)]
pub fn iso_axpy_3d(p: [f64; 7], c: f64, x: &Euler3, y: &mut Euler3) {
    let n = p[0] as usize;
    for m in 0..4 * n * n * n {
        y[m] += c * x[m];
    }
}

/// A whole stage of a low-storage scheme in one pass, `s = [A, B, dt]`
/// (3D Euler): the right-hand side `r` of `u` ([`iso_rhs_3d`]) into `un`, then
/// `k = A k + dt r` and `un = u + B k`; the caller swaps `un` and `u`.
/// The operations and their order are those of the right-hand side
/// followed by the update `u += B k` in place, so the bits are the same;
/// one pass instead of two saves the traffic of `r` and a second read
/// of `u` (`u` cannot be updated in place here: its neighbours read it).
#[device]
#[inline(always)]
pub fn iso_lserk_3d(
    p: [f64; 7],
    s: [f64; 3],
    u: Offsets<'_, Euler3>,
    k: &mut Euler3,
    un: &mut Euler3,
) {
    // `n` is this module's order, a constant (the compiler unrolls the node
    // loops).
    iso_lserk_3d_n(DG_ORDER, p, s, u, k, un)
}

/// [`iso_lserk_3d`] for `n` nodes per direction.
#[device]
#[inline(always)]
pub fn iso_lserk_3d_n(
    n: usize,
    p: [f64; 7],
    s: [f64; 3],
    u: Offsets<'_, Euler3>,
    k: &mut Euler3,
    un: &mut Euler3,
) {
    iso_rhs_3d_n(n, p, u, un);
    for m in 0..4 * n * n * n {
        k[m] = s[0] * k[m] + s[2] * un[m];
        un[m] = u.value(0, 0, 0, m) + s[1] * k[m];
    }
}
