//! The Lax-Wendroff updates as line kernels (the layer's line loops,
//! [`qflow_par::Axis`]): each call updates a whole row (sweeps along x) or
//! column (along y) of elements, marching along it and computing every
//! cell's flux and every interface's half-point flux once, carried to the
//! next element, where the element kernels of [`crate::kernels`] compute
//! an element's and both its neighbours' fluxes and both of its
//! interfaces (2 to 3 times the arithmetic).
//!
//! Each value is the element kernels' expression with the same operands
//! in the same order, so the new states are their bits exactly: the
//! half-point state between cells `a` and `b` is `(w_a + w_b)/2 - r/2 (F_b
//! - F_a)` whether it is cell `b`'s left or cell `a`'s right interface. A
//! line may start anywhere (a rank's part, a piece of the core): what it
//! carries is computed from the stencil at its start. The CPU backends run
//! these; OpenCL runs the element kernels.

use qflow_par::{LineOffsets, LineRead, LineWrite};

use crate::kernels::{
    flux, flux_cells, ghost_values, lane, region2, residue, set_lane, shifted, source_row,
    sweep_element, Cells, State,
};

/// The flux of the half-point state between cells `a` and `b` (`b` after
/// `a` along axis `n`) from their states and fluxes.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn interface(wa: &State, wb: &State, fa: &State, fb: &State, n: usize, r: f64, gm1: f64) -> State {
    let mut h = [0.0; 4];
    for k in 0..4 {
        h[k] = 0.5 * (wa[k] + wb[k]) - 0.5 * r * (fb[k] - fa[k]);
    }
    flux(&h, n, gm1)
}

/// [`interface`] lane by lane: between the cells of `wa` and those of `wb`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn interfaces(wa: &Cells, wb: &Cells, fa: &Cells, fb: &Cells, n: usize, r: f64, gm1: f64) -> Cells {
    let mut g = [0.0; 16];
    for l in 0..4 {
        let s = interface(
            &lane(wa, l),
            &lane(wb, l),
            &lane(fa, l),
            &lane(fb, l),
            n,
            r,
            gm1,
        );
        set_lane(&mut g, l, &s);
    }
    g
}

/// `w - r (g_right - g_left)` lane by lane.
#[inline(always)]
fn advance(w: &Cells, right: &Cells, left: &Cells, r: f64) -> Cells {
    let mut o = [0.0; 16];
    for i in 0..16 {
        o[i] = w[i] - r * (right[i] - left[i]);
    }
    o
}

/// The fluxes across the right faces of the cells of `w` (next element
/// `wn`, fluxes `f`, `fnext`).
#[inline(always)]
fn right_faces(w: &Cells, wn: &Cells, f: &Cells, fnext: &Cells, r: f64, gm1: f64) -> Cells {
    interfaces(
        w,
        &shifted(w, w, wn, 1),
        f,
        &shifted(f, f, fnext, 1),
        1,
        r,
        gm1,
    )
}

/// A sweep along x of a row: the new values of each element `k` handed
/// to `emit`.
#[inline(always)]
fn sweep_x_row(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: &[f64; 9],
    kind: &LineRead<'_, [i32; 2]>,
    w: &LineOffsets<'_, Cells>,
    mut emit: impl FnMut(usize, Cells),
) {
    let n = kind.len();
    if n == 0 {
        return;
    }
    let (r, gm1) = (sweep[0], gas[1]);
    // A row's elements share their `ky`.
    let ky = kind.get(0)[1];
    if ky > 0 {
        let top = region2(bc);
        for k in 0..n {
            emit(k, ghost_values(&kind.get(k), &top, bc));
        }
        return;
    }
    let row = if ky < 0 { source_row(ky, bc) } else { 0 };
    let cells = |k: isize| w.at(k).at(0, row, 0);
    let before = cells(-1);
    let mut wc = cells(0);
    let f_before = flux_cells(&before, 1, gm1);
    let mut fc = flux_cells(&wc, 1, gm1);
    // The right faces of the element before the row: lane 3 is the row's
    // first left face.
    let mut left = right_faces(&before, &wc, &f_before, &fc, r, gm1);
    for k in 0..n {
        let wn = cells(k as isize + 1);
        let fnext = flux_cells(&wn, 1, gm1);
        let right = right_faces(&wc, &wn, &fc, &fnext, r, gm1);
        let out = advance(&wc, &right, &shifted(&left, &right, &right, -1), r);
        emit(k, ghost_values(&kind.get(k), &out, bc));
        wc = wn;
        fc = fnext;
        left = right;
    }
}

/// The Lax-Wendroff update along x of a row (`sweep[0] = dt/2 / dx`).
#[inline(always)]
pub fn lw_x_line(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: [f64; 9],
    kind: LineRead<'_, [i32; 2]>,
    w: LineOffsets<'_, Cells>,
    mut u: LineWrite<'_, Cells>,
) {
    sweep_x_row(gas, sweep, &bc, &kind, &w, |k, v| u.set(k, v));
}

/// The Lax-Wendroff update along x of a row for the step's last sweep,
/// which also measures the step ([`residue`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn lw_x_residue_line(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: [f64; 9],
    kind: LineRead<'_, [i32; 2]>,
    w: LineOffsets<'_, Cells>,
    u0: LineRead<'_, Cells>,
    mut u: LineWrite<'_, Cells>,
    change: &mut f64,
    bad: &mut f64,
) {
    sweep_x_row(gas, sweep, &bc, &kind, &w, |k, v| {
        residue(&kind.get(k), &u0.get(k), &v, change, bad);
        u.set(k, v);
    });
}

/// The Lax-Wendroff update along y of a column (`sweep[1] = dt/2 / dy`):
/// the grid's rows marched, carrying the row below's state, flux and
/// upper faces; the ghost rows by the element kernel.
#[inline(always)]
pub fn lw_y_line(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: [f64; 9],
    kind: LineRead<'_, [i32; 2]>,
    w: LineOffsets<'_, Cells>,
    mut u: LineWrite<'_, Cells>,
) {
    let (r, gm1) = (sweep[1], gas[1]);
    // Whether `wc`, `fc` and `below` hold element k's state, flux and
    // lower faces.
    let mut carried = false;
    let (mut wc, mut fc, mut below) = ([0.0; 16], [0.0; 16], [0.0; 16]);
    for k in 0..kind.len() {
        let kd = kind.get(k);
        let at = w.at(k as isize);
        if kd[1] != 0 {
            u.set(k, sweep_element(&kd, at, false, r, gm1, &bc));
            carried = false;
            continue;
        }
        if !carried {
            wc = at.at(0, 0, 0);
            fc = flux_cells(&wc, 2, gm1);
            let wb = at.at(0, -1, 0);
            below = interfaces(&wb, &wc, &flux_cells(&wb, 2, gm1), &fc, 2, r, gm1);
        }
        let wn = at.at(0, 1, 0);
        let fnext = flux_cells(&wn, 2, gm1);
        let above = interfaces(&wc, &wn, &fc, &fnext, 2, r, gm1);
        u.set(k, ghost_values(&kd, &advance(&wc, &above, &below, r), &bc));
        wc = wn;
        fc = fnext;
        below = above;
        carried = true;
    }
}
