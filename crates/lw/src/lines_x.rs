//! The x sweeps of [`crate::lines`]: a row per call, element by element,
//! each element's 4 cells as 4-wide vectors (AVX registers where the
//! runner uses its AVX2 build, compiled for AVX-512 where the processor
//! has it, as the y sweeps). A cell's neighbours along x are the lanes
//! beside it, the end lanes shifted in from the element before or after
//! ([`Lanes::prev`], [`Lanes::next`]); each element's switches, filtered
//! state and flux are computed once, one element ahead of its update, and
//! carried to the next element in registers.
//!
//! Every value is [`crate::kernels`]' expression with the same operands
//! in the same order, lane by lane, so the bits are the element loops'.
//! Past the line's ends the stencil stops at the elements the line loop
//! offers (one each side): the lanes that would need more are never used.

use qflow_par::{LineOffsets, LineRead, LineWrite};

use crate::kernels::{ghost_values, region2, residue, source_row, Cells};
use crate::lanes::{Lanes, V};
use crate::lines_y::{filter, flux, half_flux, rho, state, switches};

/// The coefficients of an element's 4 cells (`c = eta/2`) from their
/// switches `t` and the next element's `tn`: the conservative filter's of
/// each cell's face on the right, `c max(theta_t, theta_{t+1})`, or the
/// paper's of each cell, `c theta_t`.
#[inline(always)]
fn coefficients<L: Lanes, const CONS: bool>(c: L, t: L, tn: L) -> L {
    if CONS {
        c.mul(t.max(t.next(tn)))
    } else {
        c.mul(t)
    }
}

/// The switches of an element's cells, densities `r`, between the
/// elements' `rp` (before) and `rn` (after).
#[inline(always)]
fn switches_x<L: Lanes>(rp: L, r: L, rn: L) -> L {
    switches(r.prev(rp), r, r.next(rn))
}

/// The filtered state of element `z` between `m` and `p` (the elements
/// before and after), with its coefficients `k` and the element before's
/// `km`.
#[inline(always)]
fn filtered<L: Lanes, const CONS: bool>(m: &[L; 4], z: &[L; 4], p: &[L; 4], k: L, km: L) -> [L; 4] {
    let mut a = *z;
    let mut b = *z;
    for c in 0..4 {
        a[c] = z[c].prev(m[c]);
        b[c] = z[c].next(p[c]);
    }
    filter::<L, CONS>(&a, z, &b, k, k.prev(km))
}

/// Lanes of `w` shifted on by one cell, `wn` the next element's.
#[inline(always)]
fn next4<L: Lanes>(w: &[L; 4], wn: &[L; 4]) -> [L; 4] {
    [
        w[0].next(wn[0]),
        w[1].next(wn[1]),
        w[2].next(wn[2]),
        w[3].next(wn[3]),
    ]
}

/// A sweep along x of a row: the new values of its elements into `out`;
/// with `u0` (the step's last sweep) each also measured against it
/// ([`residue`]; `change` and `bad` accumulate).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sweep_x<const CONS: bool>(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: &[f64; 9],
    kind: &LineRead<'_, [i32; 2]>,
    u: &LineOffsets<'_, Cells>,
    out: &mut LineWrite<'_, Cells>,
    u0: Option<&LineRead<'_, Cells>>,
    change: &mut f64,
    bad: &mut f64,
) {
    #[cfg(target_arch = "x86_64")]
    if qflow_par::kernel::use_avx2() {
        if crate::lanes::avx512() {
            // SAFETY: the processor has AVX-512 F and VL.
            return unsafe {
                sweep_x_avx512::<CONS>(gas, sweep, bc, kind, u, out, u0, change, bad)
            };
        }
        return sweep_x_in::<crate::lanes::avx::Avx, CONS>(
            gas, sweep, bc, kind, u, out, u0, change, bad,
        );
    }
    sweep_x_in::<V, CONS>(gas, sweep, bc, kind, u, out, u0, change, bad)
}

/// [`sweep_x_in`] with AVX vectors, compiled for AVX-512 (32 registers;
/// the same AVX operations, never fused).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[allow(clippy::too_many_arguments)]
unsafe fn sweep_x_avx512<const CONS: bool>(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: &[f64; 9],
    kind: &LineRead<'_, [i32; 2]>,
    u: &LineOffsets<'_, Cells>,
    out: &mut LineWrite<'_, Cells>,
    u0: Option<&LineRead<'_, Cells>>,
    change: &mut f64,
    bad: &mut f64,
) {
    sweep_x_in::<crate::lanes::avx::Avx, CONS>(gas, sweep, bc, kind, u, out, u0, change, bad)
}

/// [`sweep_x`] with the vectors `L`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn sweep_x_in<L: Lanes, const CONS: bool>(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: &[f64; 9],
    kind: &LineRead<'_, [i32; 2]>,
    u: &LineOffsets<'_, Cells>,
    out: &mut LineWrite<'_, Cells>,
    u0: Option<&LineRead<'_, Cells>>,
    change: &mut f64,
    bad: &mut f64,
) {
    let n = kind.len();
    if n == 0 {
        return;
    }
    // A row's elements share their `ky`.
    let ky = kind.get(0)[1];
    // The line's maxima: the ends' and ghost rows' in scalars, the other
    // elements' per lane (a max is the same in any order).
    let (mut most, mut worst) = (*change, *bad);
    let (mut most4, mut bad4) = (L::splat(0.0), L::splat(0.0));
    let dst = out.values_mut(0..n);
    if ky > 0 {
        for (k, d) in dst.iter_mut().enumerate() {
            let kd = kind.get(k);
            let v = ghost_values(&kd, &region2(bc), bc);
            if let Some(u0) = u0 {
                residue(&kd, &u0.get(k), &v, &mut most, &mut worst);
            }
            *d = v;
        }
        *change = most;
        *bad = worst;
        return;
    }
    let row = if ky < 0 { source_row(ky, bc) } else { 0 };
    // Elements -1 ..= n of the line: element k at `e[k + 1]`; past them the
    // last one stands in (only lanes never used read it).
    let e = u.values(0..n + 2, -1, row, 0);
    let at = |i: usize| &e[i.min(n + 1)];
    let (c, r, gm1) = (L::splat(sweep[2]), sweep[0], gas[1]);
    let hr = 0.5 * r;
    // The ghost columns (the first two lanes of a row's first element, the
    // last two of its last) keep their states.
    let first_ghost = kind.get(0)[0] < 0;
    let last_ghost = kind.get(n - 1)[0] > 0;
    let keep = |k: usize, w: &mut [L; 4], z: &[L; 4]| {
        if k == 0 && first_ghost {
            for c in 0..4 {
                w[c] = w[c].keep_half(z[c], true);
            }
        }
        if k + 1 == n && last_ghost {
            for c in 0..4 {
                w[c] = w[c].keep_half(z[c], false);
            }
        }
    };

    // Element -1 (only its last lane is used) and element 0; the switches
    // of elements 1 and 2 and the coefficients of element 1 (the loop
    // computes an element's coefficients an element ahead of its filter,
    // and their switches two ahead: the conservative coefficients need the
    // next element's switches, and computing them early keeps their
    // division off the chain from an element's state to its update).
    let (um, mut u_j, mut u_n): ([L; 4], [L; 4], [L; 4]) =
        (state(at(0)), state(at(1)), state(at(2)));
    let (r2, r3) = (rho::<L>(at(3)), rho::<L>(at(4)));
    let tm = switches_x(um[0], um[0], u_j[0]);
    let t_j = switches_x(um[0], u_j[0], u_n[0]);
    let t_n = switches_x(u_j[0], u_n[0], r2);
    let mut t_nn = switches_x(u_n[0], r2, r3);
    let km = coefficients::<L, CONS>(c, tm, t_j);
    let mut k_j = coefficients::<L, CONS>(c, t_j, t_n);
    let mut k_n = coefficients::<L, CONS>(c, t_n, t_nn);
    let wm = filtered::<L, CONS>(&um, &um, &u_j, km, km);
    let mut w_j = filtered::<L, CONS>(&um, &u_j, &u_n, k_j, km);
    keep(0, &mut w_j, &u_j);
    let fm = flux::<L, false>(&wm, gm1);
    let mut f_j = flux::<L, false>(&w_j, gm1);
    let mut g_p = half_flux::<L, false>(&wm, &next4(&wm, &w_j), &fm, &next4(&fm, &f_j), hr, gm1);

    for (j, d) in dst.iter_mut().enumerate() {
        // Element j + 1's filtered state and flux (it needs element j +
        // 2's state), and the switches of element j + 3 and coefficients
        // of j + 2 for the next elements.
        let u_nn: [L; 4] = state(at(j + 3));
        let t_3 = switches_x(u_nn[0], rho(at(j + 4)), rho(at(j + 5)));
        let k_nn = coefficients::<L, CONS>(c, t_nn, t_3);
        let mut w_n = filtered::<L, CONS>(&u_j, &u_n, &u_nn, k_n, k_j);
        keep(j + 1, &mut w_n, &u_n);
        let f_n = flux::<L, false>(&w_n, gm1);
        // The half-point fluxes on the right of element j's cells, and
        // its update.
        let g = half_flux::<L, false>(&w_j, &next4(&w_j, &w_n), &f_j, &next4(&f_j, &f_n), hr, gm1);
        let mut q = w_j;
        for c in 0..4 {
            q[c] = w_j[c].sub(L::splat(r).mul(g[c].sub(g[c].prev(g_p[c]))));
        }
        // Only a line's ends can be ghost columns.
        if ky != 0 || j == 0 || j + 1 == n {
            let mut o = [0.0; 16];
            for c in 0..4 {
                q[c].store(&mut o[4 * c..]);
            }
            let kd = kind.get(j);
            let v = ghost_values(&kd, &o, bc);
            if let Some(u0) = u0 {
                residue(&kd, &u0.get(j), &v, &mut most, &mut worst);
            }
            *d = v;
        } else {
            for c in 0..4 {
                q[c].store(&mut d[4 * c..]);
            }
            if let Some(u0) = u0 {
                L::residue(&q, L::load(&u0.get(j)[..4]), &mut most4, &mut bad4);
            }
        }
        (u_j, u_n, t_nn, k_j, k_n, w_j, f_j, g_p) = (u_n, u_nn, t_3, k_n, k_nn, w_n, f_n, g);
    }
    let (m4, b4) = L::measured(most4, bad4);
    *change = if m4 > most { m4 } else { most };
    *bad = if b4 && worst < 1.0 { 1.0 } else { worst };
}
