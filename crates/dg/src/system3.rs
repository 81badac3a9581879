// The 3D kernels of the nodal DG method for a system of conservation laws
// (`crate::laws`: isothermal Euler, the compressible Euler equations),
// written once over the law `L` of `NV` variables like `system.rs`'s 2D
// ones (each order's entry points, with their element types, are in
// `euler3.rs`, `gas3.rs` and, for advection, `kernels3.rs`).
//
// A cell holds variable `v` of node `(i, j, k)` at `v n^3 + n^2 k + n j +
// i` (`LEN = NV n^3` values). Each direction's lines are `system.rs`'s
// line bracket in the frame of the faces they cross (`L::ALONG_Y`,
// `L::ALONG_Z`). The global `p = [n, c, flux, 0, 2/hx, 2/hy, 2/hz]`.

use qflow_par::Offsets;
use qflow_par_macros::device;

use crate::laws::Law;
use super::system::sys_line_rhs;
use crate::tables::GLL_W;

/// The cell's variable at place `v` of a line along direction `d` (0, 1,
/// 2: x, y, z) in `L`'s order.
#[device]
#[inline(always)]
pub fn sys_along<L: Law<NV>, const NV: usize>(d: usize, v: usize) -> usize {
    if d == 0 {
        v
    } else if d == 1 {
        L::ALONG_Y[v]
    } else {
        L::ALONG_Z[v]
    }
}

/// The terms of direction `d` (0, 1, 2: x, y, z) of a 3D cell's
/// right-hand side: set into `r` along x, subtracted from it along y and
/// z. A line's variables are `L`'s order along `d`, its parameter `p[1]`
/// or, per direction, `p[1 + d]`; `rows_first` as
/// [`sys_line_rhs`]'s.
#[device]
#[inline(always)]
pub fn sys_sweep_3d<L: Law<NV>, const NV: usize, const LEN: usize, const F: usize>(
    n: usize,
    rows_first: bool,
    d: usize,
    p: [f64; 7],
    u: Offsets<'_, [f64; LEN]>,
    r: &mut [f64; LEN],
) {
    let nn = n * n;
    let nnn = nn * n;
    let last = n - 1;
    // The step between a line's nodes, the steps between lines, the offset
    // of the next cell along `d`.
    let step = if d == 0 { 1 } else if d == 1 { n } else { nn };
    let sa = if d == 0 { n } else { 1 };
    let sb = if d == 2 { n } else { nn };
    let ex: i32 = if d == 0 { 1 } else { 0 };
    let ey: i32 = if d == 1 { 1 } else { 0 };
    let ez: i32 = if d == 2 { 1 } else { 0 };
    let c = if L::PER_DIRECTION { p[1 + d] } else { p[1] };
    for b2 in 0..n {
        for a in 0..n {
            let b = sa * a + sb * b2;
            let mut q = [[0.0; 8]; NV];
            let mut left = [0.0; NV];
            let mut right = [0.0; NV];
            for v in 0..NV {
                let o = nnn * sys_along::<L, NV>(d, v) + b;
                for i in 0..n {
                    q[v][i] = u.value(0, 0, 0, o + step * i);
                }
                left[v] = u.value(-ex, -ey, -ez, o + step * last);
                right[v] = u.value(ex, ey, ez, o);
            }
            let line = sys_line_rhs::<L, NV, F>(n, rows_first, c, &q, left, right);
            for v in 0..NV {
                let o = nnn * sys_along::<L, NV>(d, v) + b;
                for i in 0..n {
                    if d == 0 {
                        r[o + step * i] = -p[4] * line[v][i];
                    } else {
                        r[o + step * i] -= p[4 + d] * line[v][i];
                    }
                }
            }
        }
    }
}

/// The right-hand side of a 3D cell from it and its six face neighbours,
/// `n` nodes per direction.
#[device]
#[inline(always)]
pub fn sys_rhs_3d_n<L: Law<NV>, const NV: usize, const LEN: usize, const F: usize>(
    n: usize,
    rows_first: bool,
    p: [f64; 7],
    u: Offsets<'_, [f64; LEN]>,
    r: &mut [f64; LEN],
) {
    sys_sweep_3d::<L, NV, LEN, F>(n, rows_first, 0, p, u, r);
    sys_sweep_3d::<L, NV, LEN, F>(n, rows_first, 1, p, u, r);
    sys_sweep_3d::<L, NV, LEN, F>(n, rows_first, 2, p, u, r);
}

/// A whole stage of a low-storage scheme in one pass, `s = [A, B, dt]`
/// (3D): the right-hand side of `u` into `un`, then `k = A k + dt r` and
/// `un = u + B k`; the caller swaps `un` and `u` (the operations of the
/// right-hand side and the update in their order: the same bits).
#[device]
#[inline(always)]
pub fn sys_lserk_3d_n<L: Law<NV>, const NV: usize, const LEN: usize, const F: usize>(
    n: usize,
    rows_first: bool,
    p: [f64; 7],
    s: [f64; 3],
    u: Offsets<'_, [f64; LEN]>,
    k: &mut [f64; LEN],
    un: &mut [f64; LEN],
) {
    sys_rhs_3d_n::<L, NV, LEN, F>(n, rows_first, p, u, un);
    for m in 0..NV * n * n * n {
        k[m] = s[0] * k[m] + s[2] * un[m];
        un[m] = u.value(0, 0, 0, m) + s[1] * k[m];
    }
}

/// A 3D cell's shares of the mass, the kinetic energy (on the reference
/// cell: the host scales by `hx hy hz / 8`) and the smallest of the law's
/// positive quantity at a node; each line summed apart, so that the
/// lines' chains of dependent additions overlap.
#[device]
#[inline(always)]
pub fn sys_diag_3d<L: Law<NV>, const NV: usize, const LEN: usize>(
    n: usize,
    p: [f64; 7],
    u: &[f64; LEN],
    mass: &mut f64,
    kinetic: &mut f64,
    low: &mut f64,
) {
    let nnn = n * n * n;
    let w0 = 8 * (n - 1);
    let mut m = 0.0;
    let mut e = 0.0;
    let mut lo = *low;
    for k in 0..n {
        for j in 0..n {
            let (mut lm, mut le) = (0.0, 0.0);
            let mut llo = f64::INFINITY;
            for i in 0..n {
                let s = (k * n + j) * n + i;
                let mut q = [0.0; NV];
                for v in 0..NV {
                    q[v] = u[nnn * v + s];
                }
                lm += GLL_W[w0 + i] * q[0];
                le += GLL_W[w0 + i] * (0.5 * (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) / q[0]);
                llo = llo.min(L::positive(p[1], &q));
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

/// `u0 = u`, the whole element (its `LEN` values are all in use).
#[device]
#[inline(always)]
pub fn sys_copy<const LEN: usize>(u: &[f64; LEN], u0: &mut [f64; LEN]) {
    for m in 0..LEN {
        u0[m] = u[m];
    }
}

/// `y += c x`, the whole element.
#[device]
#[inline(always)]
pub fn sys_axpy<const LEN: usize>(c: f64, x: &[f64; LEN], y: &mut [f64; LEN]) {
    for m in 0..LEN {
        y[m] += c * x[m];
    }
}
