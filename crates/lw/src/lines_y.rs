//! The y sweeps of [`crate::lines`]: a row per call, element by element,
//! each element's 4 cells as 4-wide vectors (along y the lanes never
//! meet, so no shuffles), carrying what a row shares with the next one up
//! in [`Rows`] (one record per element, read and written in order).
//!
//! Every value is [`crate::kernels`]' expression with the same operands
//! in the same order, lane by lane, so the bits are the element loops'.
//! (The hot loop avoids `array::map` and closures: they are not inlined
//! into the runner's AVX2 build.)

use qflow_par::{LineOffsets, LineWrite};

use crate::kernels::{ghost_values, region2, source_row, Cells};
use crate::lanes::{Lanes, V};

/// The switches of 4 cells from the densities below, at and above them
/// ([`crate::kernels::switch`]).
#[inline(always)]
pub(crate) fn switches<L: Lanes>(m: L, z: L, p: L) -> L {
    let a = p.sub(z).abs();
    let b = z.sub(m).abs();
    a.sub(b).abs().div(a.add(b).add(L::splat(1e-100)))
}

/// An element's cells as a state (component by component).
#[inline(always)]
pub(crate) fn state<L: Lanes>(e: &Cells) -> [L; 4] {
    [
        L::load(&e[0..]),
        L::load(&e[4..]),
        L::load(&e[8..]),
        L::load(&e[12..]),
    ]
}

/// The densities of an element's cells.
#[inline(always)]
pub(crate) fn rho<L: Lanes>(e: &Cells) -> L {
    L::load(&e[0..4])
}

/// [`crate::kernels::flux`] along y (`Y`) or x.
#[inline(always)]
pub(crate) fn flux<L: Lanes, const Y: bool>(q: &[L; 4], gm1: f64) -> [L; 4] {
    let u = q[1].div(q[0]);
    let v = q[2].div(q[0]);
    let kin = L::splat(0.5).mul(q[0]).mul(u.mul(u).add(v.mul(v)));
    let p = L::splat(gm1).mul(q[3].sub(kin));
    let ru = q[0].mul(u);
    if Y {
        [
            q[2],
            ru.mul(v),
            q[0].mul(v).mul(v).add(p),
            q[3].add(p).mul(v),
        ]
    } else {
        [q[1], ru.mul(u).add(p), ru.mul(v), q[3].add(p).mul(u)]
    }
}

/// The filter of `z` between `m` and `p`: conservative with the
/// coefficients of the faces above and below (`kp`, `km`), or the paper's
/// with the cells' (`kp`).
#[inline(always)]
pub(crate) fn filter<L: Lanes, const CONS: bool>(
    m: &[L; 4],
    z: &[L; 4],
    p: &[L; 4],
    kp: L,
    km: L,
) -> [L; 4] {
    let mut w = *z;
    for k in 0..4 {
        w[k] = if CONS {
            z[k].add(kp.mul(p[k].sub(z[k])).sub(km.mul(z[k].sub(m[k]))))
        } else {
            z[k].add(kp.mul(p[k].sub(L::splat(2.0).mul(z[k])).add(m[k])))
        };
    }
    w
}

/// The flux (along y: `Y`, or x) of the half-point state between `a`
/// (below, or left) and `b` with fluxes `fa`, `fb` (`hr = r/2`).
#[inline(always)]
pub(crate) fn half_flux<L: Lanes, const Y: bool>(
    a: &[L; 4],
    b: &[L; 4],
    fa: &[L; 4],
    fb: &[L; 4],
    hr: f64,
    gm1: f64,
) -> [L; 4] {
    let mut h = *a;
    for k in 0..4 {
        h[k] = L::splat(0.5)
            .mul(a[k].add(b[k]))
            .sub(L::splat(hr).mul(fb[k].sub(fa[k])));
    }
    flux::<L, Y>(&h, gm1)
}

/// What an element carries from row `s` to row `s + 1`: `w_s` (values
/// 0..4), `F(w_s)` (4..8), `G_{s-1/2}` (8..12) component by component, and
/// the switches `theta_s` (12), `theta_{s+1}` (13), each of its 4 cells.
type Carry = [[f64; 4]; 14];

/// What a y sweep carries from a row to the next, per element.
#[derive(Default)]
pub(crate) struct Rows {
    /// The local index of the first element of the row these are for
    /// (`None`: nothing kept).
    at: Option<isize>,
    carry: Vec<Carry>,
}

/// Values `k..k + 4` of `c` as a state.
#[inline(always)]
fn carried<L: Lanes>(c: &Carry, k: usize) -> [L; 4] {
    [
        L::load(&c[k]),
        L::load(&c[k + 1]),
        L::load(&c[k + 2]),
        L::load(&c[k + 3]),
    ]
}

/// Stores `s` into values `k..k + 4` of `c`.
#[inline(always)]
fn carry<L: Lanes>(c: &mut Carry, k: usize, s: &[L; 4]) {
    for i in 0..4 {
        s[i].store(&mut c[k + i]);
    }
}

/// What [`Rows`] keeps for source row `s` (`row` rows up from the line's)
/// for the elements of the line, from the stencil (rows `s - 3 ..= s + 2`;
/// `below`: whether row `s - 1` is the grid's).
#[inline(always)]
fn start<L: Lanes, const CONS: bool>(
    rows: &mut Rows,
    u: &LineOffsets<'_, Cells>,
    n: usize,
    row: i32,
    below: bool,
    [c, r, gm1]: [f64; 3],
) {
    rows.carry.resize(n, [[0.0; 4]; 14]);
    let v = |d: i32| u.values(0..n, 0, row + d, 0);
    let (e1, e0, ep) = (v(-1), v(0), v(1));
    // (The conservative filter of row s needs theta_{s-1}.)
    let e2 = if below || CONS { v(-2) } else { e1 };
    let e3 = if below && CONS { v(-3) } else { e1 };
    let ep2 = if CONS { v(2) } else { e1 };
    let c = L::splat(c);
    for (j, cr) in rows.carry.iter_mut().enumerate() {
        let (qm2, qm, q0, q1): ([L; 4], [L; 4], [L; 4], [L; 4]) =
            (state(&e2[j]), state(&e1[j]), state(&e0[j]), state(&ep[j]));
        let t_2 = switches(rho(&e3[j]), qm2[0], qm[0]);
        let t_1 = switches(qm2[0], qm[0], q0[0]);
        let t0 = switches(qm[0], q0[0], q1[0]);
        let t1 = switches(q0[0], q1[0], rho(&ep2[j]));
        let wm = if !below {
            qm
        } else if CONS {
            filter::<L, true>(&qm2, &qm, &q0, c.mul(t_1.max(t0)), c.mul(t_2.max(t_1)))
        } else {
            filter::<L, false>(&qm2, &qm, &q0, c.mul(t_1), c)
        };
        let w0 = if CONS {
            filter::<L, true>(&qm, &q0, &q1, c.mul(t0.max(t1)), c.mul(t_1.max(t0)))
        } else {
            filter::<L, false>(&qm, &q0, &q1, c.mul(t0), c)
        };
        let (fm, f0) = (flux::<L, true>(&wm, gm1), flux::<L, true>(&w0, gm1));
        carry(cr, 0, &w0);
        carry(cr, 4, &f0);
        carry(
            cr,
            8,
            &half_flux::<L, true>(&wm, &w0, &fm, &f0, 0.5 * r, gm1),
        );
        t0.store(&mut cr[12]);
        t1.store(&mut cr[13]);
    }
}

/// A sweep along y of a row: its new values into `out`, from the state
/// `u` (`sweep[1] = dt/2 / dy`, `sweep[3] = eta_y / 2`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sweep_y<const CONS: bool>(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: &[f64; 9],
    kind: &LineOffsets<'_, [i32; 2]>,
    u: &LineOffsets<'_, Cells>,
    out: &mut LineWrite<'_, Cells>,
    rows: &mut Rows,
) {
    #[cfg(target_arch = "x86_64")]
    if qflow_par::kernel::use_avx2() {
        if crate::lanes::avx512() {
            // SAFETY: the processor has AVX-512 F and VL.
            return unsafe { sweep_y_avx512::<CONS>(gas, sweep, bc, kind, u, out, rows) };
        }
        return sweep_y_in::<crate::lanes::avx::Avx, CONS>(gas, sweep, bc, kind, u, out, rows);
    }
    sweep_y_in::<V, CONS>(gas, sweep, bc, kind, u, out, rows)
}

/// [`sweep_y_in`] with AVX vectors, compiled for AVX-512 (32 registers;
/// the same AVX operations, never fused).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[allow(clippy::too_many_arguments)]
unsafe fn sweep_y_avx512<const CONS: bool>(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: &[f64; 9],
    kind: &LineOffsets<'_, [i32; 2]>,
    u: &LineOffsets<'_, Cells>,
    out: &mut LineWrite<'_, Cells>,
    rows: &mut Rows,
) {
    sweep_y_in::<crate::lanes::avx::Avx, CONS>(gas, sweep, bc, kind, u, out, rows)
}

/// [`sweep_y`] with the vectors `L`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn sweep_y_in<L: Lanes, const CONS: bool>(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: &[f64; 9],
    kind: &LineOffsets<'_, [i32; 2]>,
    u: &LineOffsets<'_, Cells>,
    out: &mut LineWrite<'_, Cells>,
    rows: &mut Rows,
) {
    let n = kind.len();
    if n == 0 {
        return;
    }
    let ky = kind.at(0).at(0, 0, 0)[1];
    let dst = out.values_mut(0..n);
    if ky > 0 {
        for (k, d) in dst.iter_mut().enumerate() {
            *d = ghost_values(&kind.at(k as isize).at(0, 0, 0), &region2(bc), bc);
        }
        return;
    }
    let (c, r, gm1) = (sweep[3], sweep[1], gas[1]);
    let row = if ky < 0 { source_row(ky, bc) } else { 0 };
    let (origin, sy, _) = u.origin();
    let at = origin + row as isize * sy;
    // Whether the rows below and above the source row are the grid's
    // (else ghost rows, which the filter leaves as they are).
    let below = kind.at(0).at(0, row - 1, 0)[1] == 0;
    let above = kind.at(0).at(0, row + 1, 0)[1] == 0;
    if rows.at != Some(at) || rows.carry.len() != n {
        start::<L, CONS>(rows, u, n, row, below, [c, r, gm1]);
    }
    let v = |d: i32| u.values(0..n, 0, row + d, 0);
    let (e0, e1) = (v(0), v(1));
    let (e2, e3) = if above { (v(2), v(3)) } else { (e1, e1) };
    let (hr, c) = (0.5 * r, L::splat(c));
    for (j, (cr, d)) in rows.carry.iter_mut().zip(dst.iter_mut()).enumerate() {
        let q1: [L; 4] = state(&e1[j]);
        // w_{s+1}: filtered if row s + 1 is the grid's.
        let mut t2 = L::splat(0.0);
        let wn = if !above {
            q1
        } else if CONS {
            let (q0, q2) = (state(&e0[j]), state(&e2[j]));
            t2 = switches(q1[0], q2[0], rho(&e3[j]));
            let (t0, t1) = (L::load(&cr[12]), L::load(&cr[13]));
            filter::<L, true>(&q0, &q1, &q2, c.mul(t1.max(t2)), c.mul(t0.max(t1)))
        } else {
            let (q0, q2) = (state(&e0[j]), state(&e2[j]));
            filter::<L, false>(&q0, &q1, &q2, c.mul(switches(q0[0], q1[0], q2[0])), c)
        };
        let (w0, f0, g0) = (
            carried::<L>(cr, 0),
            carried::<L>(cr, 4),
            carried::<L>(cr, 8),
        );
        let fnew = flux::<L, true>(&wn, gm1);
        let gnew = half_flux::<L, true>(&w0, &wn, &f0, &fnew, hr, gm1);
        let mut o = [0.0; 16];
        for k in 0..4 {
            w0[k]
                .sub(L::splat(r).mul(gnew[k].sub(g0[k])))
                .store(&mut o[4 * k..]);
        }
        carry(cr, 0, &wn);
        carry(cr, 4, &fnew);
        carry(cr, 8, &gnew);
        if CONS {
            cr[12] = cr[13];
            t2.store(&mut cr[13]);
        }
        // Only a line's ends can be ghost columns.
        *d = if ky != 0 || j == 0 || j + 1 == n {
            ghost_values(&kind.at(j as isize).at(0, 0, 0), &o, bc)
        } else {
            o
        };
    }
    rows.at = if above { Some(at + sy) } else { None };
}
