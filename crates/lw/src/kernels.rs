//! The kernels of the Lax-Wendroff oblique-shock method (written once: the
//! CPU backends run them as they are, the OpenCL backend runs their
//! translation).
//!
//! An **element** of the block is a run of [`LANES`] = 4 cells along x, its
//! states stored component by component ([`Cells`]): every kernel updates
//! its 4 cells with the same operations lane by lane, which the compiler
//! turns into vector instructions (4 divisions at once). Each cell gets
//! the arithmetic of a cell-by-cell kernel, in the same order, so the
//! results do not depend on the grouping.
//!
//! The block holds the `nx x ny` cells and two ghost cells on each side;
//! an element's `kind` is `[ex, ky]`: `ex` -1 for the first element of a
//! row (its lanes 0 and 1 are the ghost columns left of the grid), 1 for
//! the last (lanes 2 and 3 the ghost columns right of it), 0 otherwise;
//! `ky` 0 for the grid's rows, -1/-2 for the ghost rows below it, 1/2 for
//! those above. A sweep along x or y is two loops:
//!
//! 1. `filter_*`: the artificial viscosity, `w = u + eta/2 (...)` inside;
//!    ghost cells copy `u`;
//! 2. `lw_*`: the Richtmyer two-step update of `w` into `u` inside (the
//!    fluxes of the three cells it reads and of the two half-point states
//!    computed on the spot); ghost cells take their boundary value from the
//!    *new* interior values, which they compute themselves (the left and
//!    top ghosts are fixed states, the right ones copy the last column, the
//!    bottom ones reflect the first rows), so every `u` the next sweep
//!    reads is current.
//!
//! States are conserved `[rho, rho u, rho v, rho E]`.

use qflow_par::Offsets;
use qflow_par_macros::device;

/// Cells per element.
pub const LANES: usize = 4;

/// A conserved state `[rho, rho u, rho v, rho E]`.
pub type State = [f64; 4];

/// The states of an element's 4 cells, component by component: value `c`
/// of lane `l` at `4 c + l`.
pub type Cells = [f64; 16];

/// The shock switch `theta_i` from three densities along the sweep:
/// `| |r_{i+1} - r_i| - |r_i - r_{i-1}| | / (|r_{i+1} - r_i| + |r_i - r_{i-1}| + 1e-100)`.
#[device]
#[inline(always)]
pub fn switch(rm: f64, r0: f64, rp: f64) -> f64 {
    let a = (rp - r0).abs();
    let b = (r0 - rm).abs();
    (a - b).abs() / (a + b + 1e-100)
}

/// The paper's filter of one cell `z` between `m` and `p` along the sweep:
/// `z + c theta (p - 2 z + m)` with `c = eta / 2`.
#[device]
#[inline(always)]
pub fn filter_paper(m: &State, z: &State, p: &State, c: f64) -> State {
    let ct = c * switch(m[0], z[0], p[0]);
    let mut w = [0.0; 4];
    for k in 0..4 {
        w[k] = z[k] + ct * (p[k] - 2.0 * z[k] + m[k]);
    }
    w
}

/// The conservative filter of one cell `z` between `m` and `p` (densities
/// `rmm`, `rpp` one further out): `z + c (theta_{i+1/2} (p - z) -
/// theta_{i-1/2} (z - m))` with `theta_{i+1/2} = max(theta_i, theta_{i+1})`.
#[device]
#[inline(always)]
pub fn filter_conservative(rmm: f64, m: &State, z: &State, p: &State, rpp: f64, c: f64) -> State {
    let tm = switch(rmm, m[0], z[0]);
    let t0 = switch(m[0], z[0], p[0]);
    let tp = switch(z[0], p[0], rpp);
    let cp = c * t0.max(tp);
    let cm = c * tm.max(t0);
    let mut w = [0.0; 4];
    for k in 0..4 {
        w[k] = z[k] + (cp * (p[k] - z[k]) - cm * (z[k] - m[k]));
    }
    w
}

/// The Euler flux of `q` across a face normal to axis `n` (1: x, 2: y);
/// `gm1 = gamma - 1`. Written as the paper's code writes it (`rho u u + p`
/// from the velocities), so that its bits are reproduced.
#[device]
#[inline(always)]
pub fn flux(q: &State, n: usize, gm1: f64) -> State {
    let u = q[1] / q[0];
    let v = q[2] / q[0];
    let p = gm1 * (q[3] - 0.5 * q[0] * (u * u + v * v));
    let ru = q[0] * u;
    if n == 1 {
        [q[1], ru * u + p, ru * v, (q[3] + p) * u]
    } else {
        [q[2], ru * v, q[0] * v * v + p, (q[3] + p) * v]
    }
}

/// The Richtmyer two-step update of cell `w0` between `wm` and `wp` along
/// axis `n`, from the three cells' fluxes, with `r = (dt/2) / h` of the
/// sweep: half-point states `w_{i+1/2} = (w_i + w_{i+1})/2 - r/2 (F_{i+1} -
/// F_i)`, then `w_i - r (F(w_{i+1/2}) - F(w_{i-1/2}))`.
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn richtmyer(
    wm: &State,
    w0: &State,
    wp: &State,
    fm: &State,
    f0: &State,
    fp: &State,
    n: usize,
    r: f64,
    gm1: f64,
) -> State {
    let mut hm = [0.0; 4];
    let mut hp = [0.0; 4];
    for k in 0..4 {
        hm[k] = 0.5 * (wm[k] + w0[k]) - 0.5 * r * (f0[k] - fm[k]);
        hp[k] = 0.5 * (w0[k] + wp[k]) - 0.5 * r * (fp[k] - f0[k]);
    }
    let gm = flux(&hm, n, gm1);
    let gp = flux(&hp, n, gm1);
    let mut out = [0.0; 4];
    for k in 0..4 {
        out[k] = w0[k] - r * (gp[k] - gm[k]);
    }
    out
}

/// Lane `l` of `q` as a state.
#[device]
#[inline(always)]
pub fn lane(q: &Cells, l: usize) -> State {
    [q[l], q[4 + l], q[8 + l], q[12 + l]]
}

/// Sets lane `l` of `q` to `s`.
#[device]
#[inline(always)]
pub fn set_lane(q: &mut Cells, l: usize, s: &State) {
    for c in 0..4 {
        q[4 * c + l] = s[c];
    }
}

/// The cells `d` places along x from the element `own`'s (`d` in
/// `-4..=4`), taken from it and its neighbours `prev` and `next`: a shift
/// of the lanes the compiler makes of register shuffles.
#[device]
#[inline(always)]
pub fn shifted(prev: &Cells, own: &Cells, next: &Cells, d: i32) -> Cells {
    let mut s = [0.0; 16];
    for c in 0..4 {
        for l in 0..4 {
            let k = l as i32 + d;
            s[4 * c + l] = if k < 0 {
                prev[4 * c + (k + 4) as usize]
            } else if k >= 4 {
                next[4 * c + (k - 4) as usize]
            } else {
                own[4 * c + k as usize]
            };
        }
    }
    s
}

/// The fluxes of an element's cells across faces normal to axis `n`.
#[device]
#[inline(always)]
pub fn flux_cells(q: &Cells, n: usize, gm1: f64) -> Cells {
    let mut f = [0.0; 16];
    for l in 0..4 {
        let s = lane(q, l);
        let g = flux(&s, n, gm1);
        set_lane(&mut f, l, &g);
    }
    f
}

/// A filter's result with the ghost cells of `kind` copying `own` (the
/// filter leaves boundary values as they are).
#[device]
#[inline(always)]
pub fn keep_ghosts(kind: &[i32; 2], own: &Cells, filtered: &Cells) -> Cells {
    let mut w = *filtered;
    for c in 0..4 {
        for l in 0..4 {
            let ghost = kind[1] != 0 || (kind[0] < 0 && l < 2) || (kind[0] > 0 && l >= 2);
            if ghost {
                w[4 * c + l] = own[4 * c + l];
            }
        }
    }
    w
}

/// A sweep's filter of the element `own` between its neighbours along
/// the sweep (`m`, `p`; `mm`, `pp` one further) with `c = eta / 2`; ghost
/// cells copy `own`.
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn filter_cells(
    kind: &[i32; 2],
    mm: &Cells,
    m: &Cells,
    own: &Cells,
    p: &Cells,
    pp: &Cells,
    c: f64,
    conservative: bool,
    w: &mut Cells,
) {
    let mut f = [0.0; 16];
    for l in 0..4 {
        let s = if conservative {
            filter_conservative(mm[l], &lane(m, l), &lane(own, l), &lane(p, l), pp[l], c)
        } else {
            filter_paper(&lane(m, l), &lane(own, l), &lane(p, l), c)
        };
        set_lane(&mut f, l, &s);
    }
    *w = keep_ghosts(kind, own, &f);
}

/// The filter along x of an element (`c = eta_x / 2`).
#[device]
#[inline(always)]
pub fn filter_x(kind: &[i32; 2], u: Offsets<'_, Cells>, c: f64, conservative: bool, w: &mut Cells) {
    let (prev, own, next) = (u.at(-1, 0, 0), u.at(0, 0, 0), u.at(1, 0, 0));
    let mm = shifted(&prev, &own, &next, -2);
    let m = shifted(&prev, &own, &next, -1);
    let p = shifted(&prev, &own, &next, 1);
    let pp = shifted(&prev, &own, &next, 2);
    filter_cells(kind, &mm, &m, &own, &p, &pp, c, conservative, w);
}

/// The filter along y of an element (`c = eta_y / 2`).
#[device]
#[inline(always)]
pub fn filter_y(kind: &[i32; 2], u: Offsets<'_, Cells>, c: f64, conservative: bool, w: &mut Cells) {
    let (m, own, p) = (u.at(0, -1, 0), u.at(0, 0, 0), u.at(0, 1, 0));
    // The paper's filter reads one row each side only.
    let (mut mm, mut pp) = (m, p);
    if conservative {
        mm = u.at(0, -2, 0);
        pp = u.at(0, 2, 0);
    }
    filter_cells(kind, &mm, &m, &own, &p, &pp, c, conservative, w);
}

/// The Richtmyer update of the element `w0` between its neighbours along
/// the sweep, from the cells' fluxes (axis `n`).
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn update_cells(
    wm: &Cells,
    w0: &Cells,
    wp: &Cells,
    fm: &Cells,
    f0: &Cells,
    fp: &Cells,
    n: usize,
    r: f64,
    gm1: f64,
) -> Cells {
    let mut out = [0.0; 16];
    for l in 0..4 {
        let s = richtmyer(
            &lane(wm, l),
            &lane(w0, l),
            &lane(wp, l),
            &lane(fm, l),
            &lane(f0, l),
            &lane(fp, l),
            n,
            r,
            gm1,
        );
        set_lane(&mut out, l, &s);
    }
    out
}

/// The Richtmyer update along x of the element `row` rows away.
#[device]
#[inline(always)]
pub fn update_x(w: Offsets<'_, Cells>, row: i32, r: f64, gm1: f64) -> Cells {
    let (wa, w0, wb) = (w.at(-1, row, 0), w.at(0, row, 0), w.at(1, row, 0));
    let fa = flux_cells(&wa, 1, gm1);
    let f0 = flux_cells(&w0, 1, gm1);
    let fb = flux_cells(&wb, 1, gm1);
    update_cells(
        &shifted(&wa, &w0, &wb, -1),
        &w0,
        &shifted(&wa, &w0, &wb, 1),
        &shifted(&fa, &f0, &fb, -1),
        &f0,
        &shifted(&fa, &f0, &fb, 1),
        1,
        r,
        gm1,
    )
}

/// The Richtmyer update along y of the element `row` rows away.
#[device]
#[inline(always)]
pub fn update_y(w: Offsets<'_, Cells>, row: i32, r: f64, gm1: f64) -> Cells {
    let (wm, w0, wp) = (w.at(0, row - 1, 0), w.at(0, row, 0), w.at(0, row + 1, 0));
    update_cells(
        &wm,
        &w0,
        &wp,
        &flux_cells(&wm, 2, gm1),
        &flux_cells(&w0, 2, gm1),
        &flux_cells(&wp, 2, gm1),
        2,
        r,
        gm1,
    )
}

/// The row (up from the element) whose new values a bottom ghost row of
/// `ky` (-1, -2) reflects: ghost row -1 reflects row 0; ghost row -2
/// reflects row 1 (`bc[8]` 1: mirror) or copies row 0 (the paper).
#[device]
#[inline(always)]
pub fn source_row(ky: i32, bc: &[f64; 9]) -> i32 {
    if bc[8] > 0.5 {
        -2 * ky - 1
    } else {
        -ky
    }
}

/// The new values of the element of `kind` from `out`, the update of its
/// own cells (inside) or of its source row (bottom ghost rows), or region
/// 2's state (top ghost rows): a bottom ghost row's normal momentum
/// reflected (mirror) or zeroed (the paper), and the ghost columns set.
#[device]
#[inline(always)]
pub fn ghost_values(kind: &[i32; 2], out: &Cells, bc: &[f64; 9]) -> Cells {
    let mut o = *out;
    if kind[1] < 0 {
        let mirror = bc[8] > 0.5;
        for l in 0..4 {
            o[8 + l] = if mirror { -o[8 + l] } else { 0.0 };
        }
    }
    // The ghost columns: region 1 on the left; on the right the last
    // column's new value (zero gradient; lane 1 of the last element).
    if kind[0] < 0 {
        let s = [bc[0], bc[1], bc[2], bc[3]];
        set_lane(&mut o, 0, &s);
        set_lane(&mut o, 1, &s);
    } else if kind[0] > 0 {
        let s = lane(&o, 1);
        set_lane(&mut o, 2, &s);
        set_lane(&mut o, 3, &s);
    }
    o
}

/// Region 2's state in every lane (the top ghost rows).
#[device]
#[inline(always)]
pub fn region2(bc: &[f64; 9]) -> Cells {
    let mut out = [0.0; 16];
    for l in 0..4 {
        let s = [bc[4], bc[5], bc[6], bc[7]];
        set_lane(&mut out, l, &s);
    }
    out
}

/// A sweep's new values of the element of `kind`: the update inside; at
/// ghost cells the boundary value of the new interior. `bc` is region 1's
/// state, region 2's state and the wall (`bc[8]`: 1 mirror, 0 the paper's
/// copy with zero normal momentum).
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn sweep_element(
    kind: &[i32; 2],
    w: Offsets<'_, Cells>,
    along_x: bool,
    r: f64,
    gm1: f64,
    bc: &[f64; 9],
) -> Cells {
    let ky = kind[1];
    let mut out = region2(bc);
    if ky <= 0 {
        let mut row = 0;
        if ky < 0 {
            row = source_row(ky, bc);
        }
        out = if along_x {
            update_x(w, row, r, gm1)
        } else {
            update_y(w, row, r, gm1)
        };
    }
    ghost_values(kind, &out, bc)
}

/// The paper's filter along x (`sweep[2] = eta_x / 2`; `gas[1] = gamma -
/// 1`).
#[device]
#[inline(always)]
pub fn filter_paper_x(sweep: [f64; 4], kind: &[i32; 2], u: Offsets<'_, Cells>, w: &mut Cells) {
    filter_x(kind, u, sweep[2], false, w);
}

/// The paper's filter along y (`sweep[3] = eta_y / 2`).
#[device]
#[inline(always)]
pub fn filter_paper_y(sweep: [f64; 4], kind: &[i32; 2], u: Offsets<'_, Cells>, w: &mut Cells) {
    filter_y(kind, u, sweep[3], false, w);
}

/// The conservative filter along x.
#[device]
#[inline(always)]
pub fn filter_conservative_x(
    sweep: [f64; 4],
    kind: &[i32; 2],
    u: Offsets<'_, Cells>,
    w: &mut Cells,
) {
    filter_x(kind, u, sweep[2], true, w);
}

/// The conservative filter along y.
#[device]
#[inline(always)]
pub fn filter_conservative_y(
    sweep: [f64; 4],
    kind: &[i32; 2],
    u: Offsets<'_, Cells>,
    w: &mut Cells,
) {
    filter_y(kind, u, sweep[3], true, w);
}

/// The Lax-Wendroff update along x (`sweep[0] = dt/2 / dx`).
#[device]
#[inline(always)]
pub fn lw_x(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: [f64; 9],
    kind: &[i32; 2],
    w: Offsets<'_, Cells>,
    u: &mut Cells,
) {
    *u = sweep_element(kind, w, true, sweep[0], gas[1], &bc);
}

/// The Lax-Wendroff update along y (`sweep[1] = dt/2 / dy`).
#[device]
#[inline(always)]
pub fn lw_y(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: [f64; 9],
    kind: &[i32; 2],
    w: Offsets<'_, Cells>,
    u: &mut Cells,
) {
    *u = sweep_element(kind, w, false, sweep[1], gas[1], &bc);
}

/// The Lax-Wendroff update along x for the step's last sweep, which also
/// measures the step ([`residue`]).
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn lw_x_residue(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: [f64; 9],
    kind: &[i32; 2],
    w: Offsets<'_, Cells>,
    u0: &Cells,
    u: &mut Cells,
    change: &mut f64,
    bad: &mut f64,
) {
    *u = sweep_element(kind, w, true, sweep[0], gas[1], &bc);
    residue(kind, u0, u, change, bad);
}

/// Whether lane `l` of the element of `kind` is a cell of the grid.
#[device]
#[inline(always)]
pub fn inside(kind: &[i32; 2], l: usize) -> bool {
    kind[1] == 0 && !(kind[0] < 0 && l < 2) && !(kind[0] > 0 && l >= 2)
}

/// The largest `|q| + c` inside the grid (the time step's wave speed).
#[device]
#[inline(always)]
pub fn wave_speed(gas: [f64; 2], kind: &[i32; 2], u: &Cells, speed: &mut f64) {
    for l in 0..4 {
        if inside(kind, l) {
            let q = lane(u, l);
            let vx = q[1] / q[0];
            let vy = q[2] / q[0];
            let p = gas[1] * (q[3] - 0.5 * q[0] * (vx * vx + vy * vy));
            let s = (vx * vx + vy * vy).sqrt() + (gas[0] * p / q[0]).sqrt();
            if s > *speed {
                *speed = s;
            }
        }
    }
}

/// The largest change of density over the step inside the grid, and
/// whether an interior state is not physical (`bad` 1: non-finite, or
/// density or pressure not above 0).
#[device]
#[inline(always)]
pub fn residue(kind: &[i32; 2], u0: &Cells, u: &Cells, change: &mut f64, bad: &mut f64) {
    // Selects, not branches, so that the lanes run together.
    let mut most = 0.0;
    let mut worst = 0.0;
    for l in 0..4 {
        let q = lane(u, l);
        let d = (q[0] - u0[l]).abs();
        // p > 0 is 2 rho E > |rho v|^2 (rho > 0): no division. A NaN fails
        // every comparison; an infinite density makes d infinite.
        let fine = q[0] > 0.0
            && 2.0 * q[0] * q[3] > q[1] * q[1] + q[2] * q[2]
            && d.is_finite()
            && q[3].is_finite();
        let counted = inside(kind, l);
        most = if counted && d > most { d } else { most };
        worst = if counted && !fine { 1.0 } else { worst };
    }
    if most > *change {
        *change = most;
    }
    if worst > *bad {
        *bad = worst;
    }
}
