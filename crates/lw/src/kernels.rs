//! The kernels of the Lax-Wendroff oblique-shock method, each a function of
//! one cell of the grid's block (written once: the CPU backends run them as
//! they are, the OpenCL backend runs their translation).
//!
//! The block holds the `nx x ny` cells and two rows of ghost cells on each
//! side; a cell's `kind` `[kx, ky]` is `0, 0` inside, `-1`/`-2` for the first
//! and second ghost column (row) left of (below) the grid, `1`/`2` right of
//! (above) it. A sweep along `(a, b)` (`(1, 0)` for x, `(0, 1)` for y) is two
//! loops:
//!
//! 1. `filter_*`: the artificial viscosity, `w = u + eta/2 (...)` inside;
//!    ghost cells copy `u`;
//! 2. `lw_*`: the Richtmyer two-step update of `w` into `u` inside; ghost
//!    cells take their boundary value from the *new* interior values, which
//!    they compute themselves (the left and top ghosts are fixed states,
//!    the right ones copy the last column, the bottom ones reflect the
//!    first rows), so every `u` the next sweep reads is current.
//!
//! States are conserved `[rho, rho u, rho v, rho E]`.

use qflow_par::Offsets;
use qflow_par_macros::device;

/// A conserved state `[rho, rho u, rho v, rho E]`.
pub type State = [f64; 4];

/// The shock switch `theta_i` from three densities along the sweep:
/// `| |r_{i+1} - r_i| - |r_i - r_{i-1}| | / (|r_{i+1} - r_i| + |r_i - r_{i-1}| + 1e-100)`.
#[device]
#[inline(always)]
pub fn switch(rm: f64, r0: f64, rp: f64) -> f64 {
    let a = (rp - r0).abs();
    let b = (r0 - rm).abs();
    (a - b).abs() / (a + b + 1e-100)
}

/// The paper's filter at the cell along `(a, b)`:
/// `u_i + c theta_i (u_{i+1} - 2 u_i + u_{i-1})` with `c = eta / 2`.
#[device]
#[inline(always)]
pub fn filter_paper(u: Offsets<'_, State>, a: i32, b: i32, c: f64) -> State {
    let um = u.at(-a, -b, 0);
    let u0 = u.at(0, 0, 0);
    let up = u.at(a, b, 0);
    let ct = c * switch(um[0], u0[0], up[0]);
    let mut w = [0.0; 4];
    for k in 0..4 {
        w[k] = u0[k] + ct * (up[k] - 2.0 * u0[k] + um[k]);
    }
    w
}

/// The conservative filter at the cell along `(a, b)`:
/// `u_i + c (theta_{i+1/2} (u_{i+1} - u_i) - theta_{i-1/2} (u_i - u_{i-1}))`
/// with `theta_{i+1/2} = max(theta_i, theta_{i+1})`, `c = eta / 2`.
#[device]
#[inline(always)]
pub fn filter_conservative(u: Offsets<'_, State>, a: i32, b: i32, c: f64) -> State {
    let umm = u.at(-2 * a, -2 * b, 0)[0];
    let um = u.at(-a, -b, 0);
    let u0 = u.at(0, 0, 0);
    let up = u.at(a, b, 0);
    let upp = u.at(2 * a, 2 * b, 0)[0];
    let tm = switch(umm, um[0], u0[0]);
    let t0 = switch(um[0], u0[0], up[0]);
    let tp = switch(u0[0], up[0], upp);
    let cp = c * t0.max(tp);
    let cm = c * tm.max(t0);
    let mut w = [0.0; 4];
    for k in 0..4 {
        w[k] = u0[k] + (cp * (up[k] - u0[k]) - cm * (u0[k] - um[k]));
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

/// The Richtmyer two-step update along `(a, b)` (normal axis `n`) of the
/// cell at offset `(ox, oy)`, from the filtered states `w` and their
/// fluxes `fw` (computed once per cell by the filter), with `r = dt / dx`
/// of the sweep:
/// half-point states `w_{i+1/2} = (w_i + w_{i+1})/2 - r/2 (F_{i+1} - F_i)`,
/// then `w_i - r (F(w_{i+1/2}) - F(w_{i-1/2}))`.
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn richtmyer(
    w: Offsets<'_, State>,
    fw: Offsets<'_, State>,
    ox: i32,
    oy: i32,
    a: i32,
    b: i32,
    n: usize,
    r: f64,
    gm1: f64,
) -> State {
    let wm = w.at(ox - a, oy - b, 0);
    let w0 = w.at(ox, oy, 0);
    let wp = w.at(ox + a, oy + b, 0);
    let fm = fw.at(ox - a, oy - b, 0);
    let f0 = fw.at(ox, oy, 0);
    let fp = fw.at(ox + a, oy + b, 0);
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

/// A sweep's new value of the cell of `kind` (see the module's header):
/// the update inside; at ghost cells the boundary value of the new
/// interior. `bc` is region 1's state, region 2's state and the wall
/// (`bc[8]`: 1 mirror, 0 the paper's copy with zero normal momentum).
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn sweep_cell(
    kind: &[i32; 2],
    w: Offsets<'_, State>,
    fw: Offsets<'_, State>,
    a: i32,
    b: i32,
    n: usize,
    r: f64,
    gm1: f64,
    bc: &[f64; 9],
) -> State {
    let kx = kind[0];
    let ky = kind[1];
    if kx == 0 && ky == 0 {
        richtmyer(w, fw, 0, 0, a, b, n, r, gm1)
    } else if kx != 0 && ky != 0 {
        // A corner: no sweep reads it.
        w.at(0, 0, 0)
    } else if kx < 0 {
        [bc[0], bc[1], bc[2], bc[3]]
    } else if ky > 0 {
        [bc[4], bc[5], bc[6], bc[7]]
    } else if kx > 0 {
        // Zero gradient: the last column's new value.
        richtmyer(w, fw, -kx, 0, a, b, n, r, gm1)
    } else {
        // The wall: ghost row -1 reflects row 0; ghost row -2 reflects
        // row 1 (mirror) or copies row 0 (the paper).
        let mirror = bc[8] > 0.5;
        let src = if mirror { -2 * ky - 1 } else { -ky };
        let mut s = richtmyer(w, fw, 0, src, a, b, n, r, gm1);
        s[2] = if mirror { -s[2] } else { 0.0 };
        s
    }
}

/// A sweep's filter at the cell of `kind` along `(a, b)` with `c = eta /
/// 2`: `w` the filtered state inside (the copy of `u` at ghost cells) and
/// `fw` its flux across the sweep's faces.
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn filter_cell(
    kind: &[i32; 2],
    u: Offsets<'_, State>,
    a: i32,
    b: i32,
    c: f64,
    conservative: bool,
    gm1: f64,
    w: &mut State,
    fw: &mut State,
) {
    *w = if kind[0] == 0 && kind[1] == 0 {
        if conservative {
            filter_conservative(u, a, b, c)
        } else {
            filter_paper(u, a, b, c)
        }
    } else {
        u.at(0, 0, 0)
    };
    *fw = flux(w, (1 + b) as usize, gm1);
}

/// The paper's filter along x (`sweep[2] = eta_x / 2`).
#[device]
#[inline(always)]
pub fn filter_paper_x(
    gas: [f64; 2],
    sweep: [f64; 4],
    kind: &[i32; 2],
    u: Offsets<'_, State>,
    w: &mut State,
    fw: &mut State,
) {
    filter_cell(kind, u, 1, 0, sweep[2], false, gas[1], w, fw);
}

/// The paper's filter along y (`sweep[3] = eta_y / 2`).
#[device]
#[inline(always)]
pub fn filter_paper_y(
    gas: [f64; 2],
    sweep: [f64; 4],
    kind: &[i32; 2],
    u: Offsets<'_, State>,
    w: &mut State,
    fw: &mut State,
) {
    filter_cell(kind, u, 0, 1, sweep[3], false, gas[1], w, fw);
}

/// The conservative filter along x.
#[device]
#[inline(always)]
pub fn filter_conservative_x(
    gas: [f64; 2],
    sweep: [f64; 4],
    kind: &[i32; 2],
    u: Offsets<'_, State>,
    w: &mut State,
    fw: &mut State,
) {
    filter_cell(kind, u, 1, 0, sweep[2], true, gas[1], w, fw);
}

/// The conservative filter along y.
#[device]
#[inline(always)]
pub fn filter_conservative_y(
    gas: [f64; 2],
    sweep: [f64; 4],
    kind: &[i32; 2],
    u: Offsets<'_, State>,
    w: &mut State,
    fw: &mut State,
) {
    filter_cell(kind, u, 0, 1, sweep[3], true, gas[1], w, fw);
}

/// The Lax-Wendroff update along x (`sweep[0] = dt/2 / dx`; `gas[1] =
/// gamma - 1`).
#[device]
#[inline(always)]
pub fn lw_x(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: [f64; 9],
    kind: &[i32; 2],
    w: Offsets<'_, State>,
    fw: Offsets<'_, State>,
    u: &mut State,
) {
    *u = sweep_cell(kind, w, fw, 1, 0, 1, sweep[0], gas[1], &bc);
}

/// The Lax-Wendroff update along y (`sweep[1] = dt/2 / dy`).
#[device]
#[inline(always)]
pub fn lw_y(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: [f64; 9],
    kind: &[i32; 2],
    w: Offsets<'_, State>,
    fw: Offsets<'_, State>,
    u: &mut State,
) {
    *u = sweep_cell(kind, w, fw, 0, 1, 2, sweep[1], gas[1], &bc);
}

/// The Lax-Wendroff update along x for the step's last sweep, which also
/// measures the step ([`residue`]).
#[device]
#[allow(clippy::too_many_arguments)]
pub fn lw_x_residue(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: [f64; 9],
    kind: &[i32; 2],
    w: Offsets<'_, State>,
    fw: Offsets<'_, State>,
    u0: &State,
    u: &mut State,
    change: &mut f64,
    bad: &mut f64,
) {
    *u = sweep_cell(kind, w, fw, 1, 0, 1, sweep[0], gas[1], &bc);
    residue(kind, u0, u, change, bad);
}

/// The largest `|q| + c` inside the grid (the time step's wave speed).
#[device]
#[inline(always)]
pub fn wave_speed(gas: [f64; 2], kind: &[i32; 2], u: &State, speed: &mut f64) {
    if kind[0] == 0 && kind[1] == 0 {
        let vx = u[1] / u[0];
        let vy = u[2] / u[0];
        let p = gas[1] * (u[3] - 0.5 * u[0] * (vx * vx + vy * vy));
        let s = (vx * vx + vy * vy).sqrt() + (gas[0] * p / u[0]).sqrt();
        if s > *speed {
            *speed = s;
        }
    }
}

/// The squared change of density over the step inside the grid, and
/// whether every interior state is physical (`bad` counts those that are
/// not: non-finite, or density or pressure not above 0).
#[device]
#[inline(always)]
pub fn residue(kind: &[i32; 2], u0: &State, u: &State, change: &mut f64, bad: &mut f64) {
    if kind[0] == 0 && kind[1] == 0 {
        let d = u[0] - u0[0];
        *change += d * d;
        // p > 0 is 2 rho E > |rho v|^2 (rho > 0): no division. A NaN fails
        // every comparison; an infinite density makes d infinite.
        let fine = u[0] > 0.0
            && 2.0 * u[0] * u[3] > u[1] * u[1] + u[2] * u[2]
            && d.is_finite()
            && u[3].is_finite();
        if !fine {
            *bad += 1.0;
        }
    }
}
