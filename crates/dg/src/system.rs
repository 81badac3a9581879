// The kernels of the nodal DG method for a system of conservation laws
// (`crate::laws`: isothermal Euler, the compressible Euler equations),
// written once over the law `L` of `NV` variables and compiled once per
// order like `kernels.rs` (the order's entry points, with their element
// types, are in `euler.rs`).
//
// An element holds the conserved variables of one DG cell, variable by
// variable, `n` nodes per direction: `LEN = NV n^d` values, variable `v`
// of node `(i, j)` at `n^2 v + n j + i` in 2D (`n v + i` in 1D).
//
// The scheme is `kernels.rs`'s strong-form DGSEM on collocated GLL
// nodes, applied to each variable along each direction: along a line the
// state is in the frame of the faces it crosses (`L::ALONG_Y` the order
// of the variables along y), the flux the law's, the face flux
// `laws::face_flux` (Lax-Friedrichs or HLL, the constant `F`: each
// entry point picks the copy by `p[2]`). The volume term is
// summed as `sum_j D_ij (f_j - f_i)`, so a constant state's volume term
// is exactly 0 (and with the Lax-Friedrichs flux, whose value for two
// equal states is their flux, its whole right-hand side).
//
// The global `p = [n, c, flux, 2/hx, 2/hy]`: `c` the law's parameter,
// `flux` 0 (Lax-Friedrichs) or 1 (HLL).

use qflow_par::Offsets;
use qflow_par_macros::device;

use crate::laws::{face_flux, Law};
use crate::tables::{GLL_D, GLL_W};

/// The bracket of the strong-form DGSEM along one line of `n` nodes: `q`
/// holds variable `v` of node `i` at `q[v][i]` (in the line's frame);
/// `left` and `right` the states across the line's first and last faces.
/// `dq/dt = -(2/h)` times the result (same layout). `rows_first`: the
/// volume sums with the loop over the nodes innermost (the same terms in
/// the same order: the same values; faster for some orders).
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn sys_line_rhs<L: Law<NV>, const NV: usize, const F: usize>(
    n: usize,
    rows_first: bool,
    c: f64,
    q: &[[f64; 8]; NV],
    left: [f64; NV],
    right: [f64; NV],
) -> [[f64; 8]; NV] {
    let d0 = 64 * (n - 1);
    let w0 = 8 * (n - 1);
    let mut f = [[0.0; 8]; NV];
    for i in 0..n {
        let mut qi = [0.0; NV];
        for v in 0..NV {
            qi[v] = q[v][i];
        }
        let fi = L::flux(c, &qi);
        for v in 0..NV {
            f[v][i] = fi[v];
        }
    }
    let mut out = [[0.0; 8]; NV];
    if rows_first {
        for v in 0..NV {
            for k in 0..n {
                let fk = f[v][k];
                for i in 0..n {
                    out[v][i] += GLL_D[d0 + 8 * i + k] * (fk - f[v][i]);
                }
            }
        }
    } else {
        for v in 0..NV {
            for i in 0..n {
                let fi = f[v][i];
                let mut s = 0.0;
                for j in 0..n {
                    s += GLL_D[d0 + 8 * i + j] * (f[v][j] - fi);
                }
                out[v][i] = s;
            }
        }
    }
    let last = n - 1;
    let mut ql = [0.0; NV];
    let mut q0 = [0.0; NV];
    for v in 0..NV {
        ql[v] = q[v][last];
        q0[v] = q[v][0];
    }
    let fr = face_flux::<L, NV, F>(c, &ql, &right);
    let fl = face_flux::<L, NV, F>(c, &left, &q0);
    for v in 0..NV {
        out[v][last] += (fr[v] - f[v][last]) / GLL_W[w0 + last];
        out[v][0] -= (fl[v] - f[v][0]) / GLL_W[w0];
    }
    out
}

/// The state of node `m` of the cell at offset `(dx, dy)` in a line's
/// frame along y (`along_y`) or x.
#[device]
#[inline(always)]
pub fn sys_node<L: Law<NV>, const NV: usize, const LEN: usize>(
    u: Offsets<'_, [f64; LEN]>,
    nn: usize,
    along_y: bool,
    dx: i32,
    dy: i32,
    m: usize,
) -> [f64; NV] {
    let mut q = [0.0; NV];
    for v in 0..NV {
        let w = if along_y { L::ALONG_Y[v] } else { v };
        q[v] = u.value(dx, dy, 0, nn * w + m);
    }
    q
}

/// The right-hand side of a 2D cell from it and its neighbours along x
/// and y, `n` nodes per direction; `g`: work space of
/// [`sys_rhs_2d_y_rows`] (its contents do not matter).
#[device]
#[inline(always)]
pub fn sys_rhs_2d_n<L: Law<NV>, const NV: usize, const LEN: usize, const F: usize>(
    n: usize,
    rows_first: bool,
    p: [f64; 5],
    u: Offsets<'_, [f64; LEN]>,
    r: &mut [f64; LEN],
    g: &mut [[f64; 64]; NV],
) {
    let nn = n * n;
    let last = n - 1;
    // Values are read one by one, the cell's own too (no copy of the whole
    // cell). Along x: row j in the stored order.
    for j in 0..n {
        let mut q = [[0.0; 8]; NV];
        for v in 0..NV {
            for i in 0..n {
                q[v][i] = u.value(0, 0, 0, nn * v + n * j + i);
            }
        }
        let left = sys_node::<L, NV, LEN>(u, nn, false, -1, 0, n * j + last);
        let right = sys_node::<L, NV, LEN>(u, nn, false, 1, 0, n * j);
        let line = sys_line_rhs::<L, NV, F>(n, rows_first, p[1], &q, left, right);
        for v in 0..NV {
            for i in 0..n {
                r[nn * v + n * j + i] = -p[3] * line[v][i];
            }
        }
    }
    if rows_first {
        sys_rhs_2d_y_rows::<L, NV, LEN, F>(n, p, u, r, g);
        return;
    }
    // Along y: column i, the variables in `L::ALONG_Y`'s order, the law's
    // parameter `p[2]` if it differs per direction.
    let cy = if L::PER_DIRECTION { p[2] } else { p[1] };
    for i in 0..n {
        let mut q = [[0.0; 8]; NV];
        for v in 0..NV {
            for j in 0..n {
                q[v][j] = u.value(0, 0, 0, nn * L::ALONG_Y[v] + n * j + i);
            }
        }
        let left = sys_node::<L, NV, LEN>(u, nn, true, 0, -1, n * last + i);
        let right = sys_node::<L, NV, LEN>(u, nn, true, 0, 1, i);
        let line = sys_line_rhs::<L, NV, F>(n, rows_first, cy, &q, left, right);
        for v in 0..NV {
            for j in 0..n {
                r[nn * L::ALONG_Y[v] + n * j + i] -= p[4] * line[v][j];
            }
        }
    }
}

/// The y-direction of [`sys_rhs_2d_n`] row by row: the fluxes `g` of
/// every node along y first (variable `v` of node `(i, k)` at `g[v][8 k +
/// i]`, every value read written first), then row `j` of every column at
/// once, `sum_k D_jk (g_k - g_j)`, then the faces (rows 0 and `n - 1`);
/// subtracted from `r`. The same values as the column by column loop.
#[device]
#[inline(always)]
pub fn sys_rhs_2d_y_rows<L: Law<NV>, const NV: usize, const LEN: usize, const F: usize>(
    n: usize,
    p: [f64; 5],
    u: Offsets<'_, [f64; LEN]>,
    r: &mut [f64; LEN],
    g: &mut [[f64; 64]; NV],
) {
    let nn = n * n;
    let last = n - 1;
    let d0 = 64 * (n - 1);
    let w0 = 8 * (n - 1);
    // The law's parameter along y (`p[2]` if it differs per direction).
    let c = if L::PER_DIRECTION { p[2] } else { p[1] };
    for k in 0..n {
        for i in 0..n {
            let q = sys_node::<L, NV, LEN>(u, nn, true, 0, 0, n * k + i);
            let gk = L::flux(c, &q);
            for v in 0..NV {
                g[v][8 * k + i] = gk[v];
            }
        }
    }
    for j in 0..n {
        let mut out = [[0.0; 8]; NV];
        for v in 0..NV {
            for k in 0..n {
                let d = GLL_D[d0 + 8 * j + k];
                for i in 0..n {
                    out[v][i] += d * (g[v][8 * k + i] - g[v][8 * j + i]);
                }
            }
        }
        if j == last {
            for i in 0..n {
                let own = sys_node::<L, NV, LEN>(u, nn, true, 0, 0, n * last + i);
                let north = sys_node::<L, NV, LEN>(u, nn, true, 0, 1, i);
                let fr = face_flux::<L, NV, F>(c, &own, &north);
                for v in 0..NV {
                    out[v][i] += (fr[v] - g[v][8 * last + i]) / GLL_W[w0 + last];
                }
            }
        }
        if j == 0 {
            for i in 0..n {
                let south = sys_node::<L, NV, LEN>(u, nn, true, 0, -1, n * last + i);
                let own = sys_node::<L, NV, LEN>(u, nn, true, 0, 0, i);
                let fl = face_flux::<L, NV, F>(c, &south, &own);
                for v in 0..NV {
                    out[v][i] -= (fl[v] - g[v][i]) / GLL_W[w0];
                }
            }
        }
        for v in 0..NV {
            for i in 0..n {
                r[nn * L::ALONG_Y[v] + n * j + i] -= p[4] * out[v][i];
            }
        }
    }
}

/// A whole stage of a low-storage scheme in one pass, `s = [A, B, dt]`
/// (2D): the right-hand side of `u` ([`sys_rhs_2d_n`]), then `k = A k + dt
/// r` and `un = u + B k`; the caller swaps `un` and `u`. `wr` and `g`:
/// work space. The operations and their order are those of the
/// right-hand side followed by the update, so the bits are the same.
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn sys_lserk_2d_n<L: Law<NV>, const NV: usize, const LEN: usize, const F: usize>(
    n: usize,
    rows_first: bool,
    p: [f64; 5],
    s: [f64; 3],
    u: Offsets<'_, [f64; LEN]>,
    k: &mut [f64; LEN],
    un: &mut [f64; LEN],
    wr: &mut [f64; LEN],
    g: &mut [[f64; 64]; NV],
) {
    // `A k` first: the register's loads then overlap the right-hand side.
    let used = NV * n * n;
    if rows_first {
        // `A k` in place, the right-hand side in the work space: no array
        // zeroed per cell (the same operations: the same bits).
        for m in 0..used {
            k[m] *= s[0];
        }
        sys_rhs_2d_n::<L, NV, LEN, F>(n, rows_first, p, u, wr, g);
        for m in 0..used {
            k[m] += s[2] * wr[m];
            un[m] = u.value(0, 0, 0, m) + s[1] * k[m];
        }
    } else {
        // Line by line (small cells): local arrays, which the compiler
        // keeps near (docs/performance.md 6.2).
        let mut ak = [0.0; LEN];
        for m in 0..used {
            ak[m] = s[0] * k[m];
        }
        let mut r = [0.0; LEN];
        sys_rhs_2d_n::<L, NV, LEN, F>(n, rows_first, p, u, &mut r, g);
        for m in 0..used {
            k[m] = ak[m] + s[2] * r[m];
            un[m] = u.value(0, 0, 0, m) + s[1] * k[m];
        }
    }
}

/// A 2D cell's shares of the mass `sum w rho`, the kinetic energy `sum w
/// |m|^2 / (2 rho)` (on the reference cell: the host scales by `hx hy /
/// 4`) and the smallest of the law's positive quantity at a node.
#[device]
#[inline(always)]
pub fn sys_diag_2d<L: Law<NV>, const NV: usize, const LEN: usize>(
    n: usize,
    p: [f64; 5],
    u: &[f64; LEN],
    mass: &mut f64,
    kinetic: &mut f64,
    low: &mut f64,
) {
    // Each row summed apart, so that the rows' chains of dependent
    // additions overlap.
    let nn = n * n;
    let w0 = 8 * (n - 1);
    let mut m = 0.0;
    let mut k = 0.0;
    let mut lo = *low;
    for j in 0..n {
        let (mut rm, mut rk) = (0.0, 0.0);
        let mut rlo = f64::INFINITY;
        for i in 0..n {
            let s = n * j + i;
            let mut q = [0.0; NV];
            for v in 0..NV {
                q[v] = u[nn * v + s];
            }
            rm += GLL_W[w0 + i] * q[0];
            rk += GLL_W[w0 + i] * (0.5 * (q[1] * q[1] + q[2] * q[2]) / q[0]);
            rlo = rlo.min(L::positive(p[1], &q));
        }
        m += GLL_W[w0 + j] * rm;
        k += GLL_W[w0 + j] * rk;
        lo = lo.min(rlo);
    }
    *mass += m;
    *kinetic += k;
    *low = lo;
}

/// `u0 = u` over the `NV n^2` values in use (2D; `n = p[0]`).
#[device]
#[inline(always)]
pub fn sys_save_2d<const NV: usize, const LEN: usize>(p: [f64; 5], u: &[f64; LEN], u0: &mut [f64; LEN]) {
    let used = NV * (p[0] as usize) * (p[0] as usize);
    for k in 0..used {
        u0[k] = u[k];
    }
}

/// `y += c x` over the values in use (2D).
#[device]
#[inline(always)]
pub fn sys_axpy_2d<const NV: usize, const LEN: usize>(
    p: [f64; 5],
    c: f64,
    x: &[f64; LEN],
    y: &mut [f64; LEN],
) {
    let used = NV * (p[0] as usize) * (p[0] as usize);
    for k in 0..used {
        y[k] += c * x[k];
    }
}
