//! The per-point kernels of one q-LSKUM iteration (`LSKUM.md` section 4),
//! as plain functions over struct-of-arrays slices.
//!
//! Every kernel computes a contiguous range of points `first..first + n`,
//! writing only those points' entries in its output slices (of length `n`)
//! and reading any point through the stencils. A backend decides how to cut
//! the points into ranges (one range on one core, chunks on threads, local
//! and halo parts on MPI ranks); the value computed for a point never depends
//! on that choice, which is what makes every backend give bit-identical
//! fields.
//!
//! The arithmetic follows the reference implementation's order of operations
//! so that qflow reproduces it to round-off.
//!
//! Reads and writes of each step (what a distributed backend must exchange):
//!
//! | kernel | reads through the stencil | writes at the point |
//! |---|---|---|
//! | [`local_time_step`] | `prim` | `delta`, `prim_old` |
//! | [`q_variables`] | - | `q` |
//! | [`q_derivatives`] | `q` | `qx`, `qy`, `q_max`, `q_min` |
//! | [`q_inner_iteration`] | `q`, `qx`, `qy` | `qx_new`, `qy_new` |
//! | [`flux_residual`] | `q`, `qx`, `qy` | `res` |
//! | [`state_update`] | - | `prim` |

use crate::flux::{b_of, Frame, Kinetic};
use crate::gas::{self, FreeStream};
use crate::geometry::Geometry;
use crate::limiter::{venkat_epsilon, venkatakrishnan};
use crate::settings::{Limiter, Scheme, Settings};
use crate::{math, Vec4};
use qflow_mesh::PointKind;

/// The settings the kernels need, in the form they use them.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// CFL number.
    pub cfl: f64,
    /// Least-squares weight exponent.
    pub power: f64,
    /// Venkatakrishnan's constant.
    pub vl_const: f64,
    /// Whether to limit the reconstruction.
    pub limiter: bool,
    /// Time-marching scheme.
    pub scheme: Scheme,
    /// Free stream (far-field state).
    pub free_stream: FreeStream,
}

impl From<&Settings> for Params {
    fn from(s: &Settings) -> Self {
        Params {
            cfl: s.cfl,
            power: s.power,
            vl_const: s.vl_const,
            limiter: s.limiter == Limiter::Venkatakrishnan,
            scheme: s.scheme,
            free_stream: s.free_stream(),
        }
    }
}

/// Defines a public kernel that runs `$range` (an `#[inline(always)]`
/// function over a range of points) compiled for AVX2 when the processor has
/// it, else for the target's baseline (SSE2 on x86-64): the 4-component
/// loops of the least-squares kernels then run 4 lanes wide instead of 2.
/// Neither build contracts `a * b + c` into a fused multiply-add (Rust never
/// does), so both give the same bits.
macro_rules! dispatched {
    ($(#[$meta:meta])* pub fn $name:ident => $range:ident($($arg:ident: $ty:ty),* $(,)?)) => {
        $(#[$meta])*
        #[allow(clippy::too_many_arguments)]
        pub fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                #[allow(clippy::too_many_arguments)]
                unsafe fn avx2($($arg: $ty),*) {
                    $range($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the processor has AVX2, all `avx2` requires.
                    unsafe { avx2($($arg),*) };
                    return;
                }
            }
            $range($($arg),*)
        }
    };
}

/// Least-squares weight `d^power` for an offset of length `dist()`. With
/// `power == 0` the weight is exactly 1, as `pow` gives, without computing
/// the distance.
#[inline(always)]
fn weight(power: f64, dist: impl FnOnce() -> f64) -> f64 {
    if power == 0.0 {
        1.0
    } else {
        dist().powf(power)
    }
}

/// Local time step of each point in the range, and the copy of the state at
/// the start of the iteration (`prim_old`, which the SSPRK scheme's third
/// stage and a divergence stop need):
/// `delta_i = min(1, min over neighbours k of CFL |r_k - r_i| / (|u_k| + 3 sqrt(p_k / rho_k)))`.
/// The factor 3 and the cap at 1 are the reference's.
pub fn local_time_step(
    g: &Geometry,
    cfl: f64,
    prim: &[Vec4],
    first: usize,
    delta: &mut [f64],
    prim_old: &mut [Vec4],
) {
    for (j, (d, old)) in delta.iter_mut().zip(prim_old.iter_mut()).enumerate() {
        let i = first + j;
        let (xi, yi) = (g.x[i], g.y[i]);
        let mut min_delt = 1.0f64;
        for &k in g.stencil.row(i) {
            let k = k as usize;
            let w = &prim[k];
            let dist = (g.x[k] - xi).hypot(g.y[k] - yi);
            let mod_u = w[1].hypot(w[2]);
            let mut delta_t = dist / (mod_u + 3.0 * (w[3] / w[0]).sqrt());
            delta_t *= cfl;
            if min_delt > delta_t {
                min_delt = delta_t;
            }
        }
        *d = min_delt;
        *old = prim[i];
    }
}

/// q-variables of each point (pointwise; `prim` and `q` cover the same
/// points).
pub fn q_variables(prim: &[Vec4], q: &mut [Vec4]) {
    for (qi, w) in q.iter_mut().zip(prim) {
        *qi = gas::q_of_primitive(w);
    }
}

/// Least-squares sums of one fit: `S(w dx^2)`, `S(w dy^2)`, `S(w dx dy)` and
/// per component `S(w dx dq)`, `S(w dy dq)`.
#[derive(Default)]
struct Fit {
    sxx: f64,
    syy: f64,
    sxy: f64,
    sxq: Vec4,
    syq: Vec4,
}

impl Fit {
    /// Adds one neighbour at offset `(dx, dy)` with weight `w` and difference `dq`.
    #[inline(always)]
    fn add(&mut self, dx: f64, dy: f64, w: f64, dq: impl Fn(usize) -> f64) {
        self.sxx += (dx * dx) * w;
        self.syy += (dy * dy) * w;
        self.sxy += (dx * dy) * w;
        for c in 0..4 {
            let iv = w * dq(c);
            self.sxq[c] += dx * iv;
            self.syq[c] += dy * iv;
        }
    }

    /// The gradient `(qx, qy)` solving the 2x2 normal equations.
    #[inline(always)]
    fn solve(&self) -> (Vec4, Vec4) {
        let det = (self.sxx * self.syy) - (self.sxy * self.sxy);
        let one_by_det = 1.0 / det;
        let mut gx = [0.0; 4];
        let mut gy = [0.0; 4];
        for c in 0..4 {
            gx[c] = one_by_det * (self.sxq[c] * self.syy - self.syq[c] * self.sxy);
            gy[c] = one_by_det * (self.syq[c] * self.sxx - self.sxq[c] * self.sxy);
        }
        (gx, gy)
    }
}

dispatched! {
    /// First least-squares q-derivatives over the full stencil (eq. 15), and the
    /// stencil's bounds of `q` (point included) for the limiter.
    pub fn q_derivatives => q_derivatives_range(
        g: &Geometry,
        power: f64,
        q: &[Vec4],
        first: usize,
        qx: &mut [Vec4],
        qy: &mut [Vec4],
        q_max: &mut [Vec4],
        q_min: &mut [Vec4],
    )
}

/// [`q_derivatives`] over a range, inlined into each instruction-set variant.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn q_derivatives_range(
    g: &Geometry,
    power: f64,
    q: &[Vec4],
    first: usize,
    qx: &mut [Vec4],
    qy: &mut [Vec4],
    q_max: &mut [Vec4],
    q_min: &mut [Vec4],
) {
    for j in 0..qx.len() {
        let i = first + j;
        let (xi, yi) = (g.x[i], g.y[i]);
        let qi = &q[i];
        let mut fit = Fit::default();
        let mut hi = *qi;
        let mut lo = *qi;
        for &k in g.stencil.row(i) {
            let k = k as usize;
            let dx = g.x[k] - xi;
            let dy = g.y[k] - yi;
            let w = weight(power, || dx.hypot(dy));
            let qk = &q[k];
            fit.add(dx, dy, w, |c| qk[c] - qi[c]);
            for c in 0..4 {
                if hi[c] < qk[c] {
                    hi[c] = qk[c];
                }
                if lo[c] > qk[c] {
                    lo[c] = qk[c];
                }
            }
        }
        (qx[j], qy[j]) = fit.solve();
        q_max[j] = hi;
        q_min[j] = lo;
    }
}

dispatched! {
    /// One Jacobi sweep of the second-order q-derivatives: the same fit with
    /// `dq = (q_k - d.grad q_k / 2) - (q_i - d.grad q_i / 2)`, using the previous
    /// sweep's gradients `qx`, `qy` of every point; the new ones go to `qx_new`,
    /// `qy_new` (the caller swaps them in once every point is done).
    pub fn q_inner_iteration => q_inner_iteration_range(
        g: &Geometry,
        power: f64,
        q: &[Vec4],
        qx: &[Vec4],
        qy: &[Vec4],
        first: usize,
        qx_new: &mut [Vec4],
        qy_new: &mut [Vec4],
    )
}

/// [`q_inner_iteration`] over a range, inlined into each instruction-set variant.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn q_inner_iteration_range(
    g: &Geometry,
    power: f64,
    q: &[Vec4],
    qx: &[Vec4],
    qy: &[Vec4],
    first: usize,
    qx_new: &mut [Vec4],
    qy_new: &mut [Vec4],
) {
    for j in 0..qx_new.len() {
        let i = first + j;
        let (xi, yi) = (g.x[i], g.y[i]);
        let (qi, qxi, qyi) = (&q[i], &qx[i], &qy[i]);
        let mut fit = Fit::default();
        for &k in g.stencil.row(i) {
            let k = k as usize;
            let dx = g.x[k] - xi;
            let dy = g.y[k] - yi;
            let w = weight(power, || dx.hypot(dy));
            let (qk, qxk, qyk) = (&q[k], &qx[k], &qy[k]);
            fit.add(dx, dy, w, |c| {
                let qi_tilde = qi[c] - 0.5 * (dx * qxi[c] + dy * qyi[c]);
                let qk_tilde = qk[c] - 0.5 * (dx * qxk[c] + dy * qyk[c]);
                qk_tilde - qi_tilde
            });
        }
        (qx_new[j], qy_new[j]) = fit.solve();
    }
}

/// The fields the flux residual reads.
#[derive(Clone, Copy)]
pub struct FluxInputs<'a> {
    /// q-variables.
    pub q: &'a [Vec4],
    /// x-derivatives of q.
    pub qx: &'a [Vec4],
    /// y-derivatives of q.
    pub qy: &'a [Vec4],
    /// Stencil maxima of q.
    pub q_max: &'a [Vec4],
    /// Stencil minima of q.
    pub q_min: &'a [Vec4],
    /// Local time steps.
    pub delta: &'a [f64],
}

/// The reconstructed q-variables at point `i` towards the offset `(dx, dy)`:
/// `qt = q_i - phi/2 (dx qx_i + dy qy_i)`, limited per component.
#[inline(always)]
fn reconstruct(p: &Params, f: &FluxInputs, epsi: f64, i: usize, dx: f64, dy: f64) -> Vec4 {
    let (q, qx, qy) = (&f.q[i], &f.qx[i], &f.qy[i]);
    let mut qt = [0.0; 4];
    for c in 0..4 {
        qt[c] = q[c] - 0.5 * (dx * qx[c] + dy * qy[c]);
    }
    if p.limiter {
        let phi = venkatakrishnan(&qt, q, &f.q_max[i], &f.q_min[i], epsi);
        for c in 0..4 {
            qt[c] = q[c] - 0.5 * phi[c] * (dx * qx[c] + dy * qy[c]);
        }
    }
    qt
}

/// Neighbours the flux kernel handles per batch (longer stencils take
/// several batches).
const BATCH: usize = 8;
/// Reconstructed states per batch: lane `m` is `qt_i` towards neighbour `m`,
/// lane `BATCH + m` is `qt_k` of neighbour `m`.
const SIDES: usize = 2 * BATCH;
/// `S` values per batch: lane `j` is `S1` of state `j`, `SIDES + j` its `S2`.
const MOMENTS: usize = 2 * SIDES;

/// The flux kernel's work space for one batch of neighbours of a point, on
/// the stack: the reconstructed states, then everything their kinetic
/// moments need, as arrays over the batch so that the loops over them
/// (`ln`, `exp`, `erf`, `sqrt`, divisions) compile to SIMD code. Every lane
/// is computed by the same element-wise operations, so a value never
/// depends on its lane or on the other lanes.
struct FluxBatch {
    /// Reconstructed q-variables per component and lane.
    qt: [[f64; SIDES]; 4],
    /// The states in the point's frame.
    frame: [Frame; SIDES],
    /// `S1` and `S2` of every state.
    s: [f64; MOMENTS],
    /// `sqrt(pi beta)` of the state of each `S`.
    spb: [f64; MOMENTS],
    /// `erf(S)`.
    erf: [f64; MOMENTS],
    /// `B(S)`.
    b: [f64; MOMENTS],
    /// Offsets of the neighbours in the s-n frame, and weighted.
    ds: [f64; BATCH],
    dn: [f64; BATCH],
    ds_w: [f64; BATCH],
    dn_w: [f64; BATCH],
}

impl FluxBatch {
    fn new() -> Self {
        // A harmless state in the unused lanes (beta = 1/2, at rest).
        let mut qt = [[0.0; SIDES]; 4];
        qt[3] = [-1.0; SIDES];
        let rest = Frame::new(0.0, 1.0, &[1.0, 0.0, 0.0, 1.0]);
        FluxBatch {
            qt,
            frame: [rest; SIDES],
            s: [0.0; MOMENTS],
            spb: [1.0; MOMENTS],
            erf: [0.0; MOMENTS],
            b: [0.0; MOMENTS],
            ds: [0.0; BATCH],
            dn: [0.0; BATCH],
            ds_w: [0.0; BATCH],
            dn_w: [0.0; BATCH],
        }
    }

    /// Primitive states, frames, `erf(S)` and `B(S)` of every lane: the
    /// operations of [`gas::primitive_of_q`] and [`Kinetic::new`], lane by
    /// lane. `erf` is [`math::erf_near`] everywhere and [`math::erf_tail`]
    /// where `|S| >= 1.25` (if any lane has one), which is [`math::erf`].
    #[inline(always)]
    fn moments(&mut self, nx: f64, ny: f64) {
        for j in 0..SIDES {
            let qt = [self.qt[0][j], self.qt[1][j], self.qt[2][j], self.qt[3][j]];
            let fr = Frame::new(nx, ny, &gas::primitive_of_q(&qt));
            self.s[j] = fr.s1;
            self.s[SIDES + j] = fr.s2;
            self.spb[j] = fr.sqrt_pi_beta;
            self.spb[SIDES + j] = fr.sqrt_pi_beta;
            self.frame[j] = fr;
        }
        let mut tail = false;
        for l in 0..MOMENTS {
            let s = self.s[l];
            self.erf[l] = math::erf_near(s);
            self.b[l] = b_of(s, self.spb[l]);
            tail |= math::erf_needs_tail(s);
        }
        if tail {
            for l in 0..MOMENTS {
                let s = self.s[l];
                if math::erf_needs_tail(s) {
                    self.erf[l] = math::erf_tail(s);
                }
            }
        }
    }

    /// The kinetic moments of lane `j`.
    #[inline(always)]
    fn kinetic(&self, j: usize) -> Kinetic {
        Kinetic::from_parts(
            &self.frame[j],
            self.erf[j],
            self.b[j],
            self.erf[SIDES + j],
            self.b[SIDES + j],
        )
    }
}

/// Least-squares sums of one split stencil in the point's s-n frame: the
/// moments of the offsets and, per component, the weighted flux differences.
#[derive(Default)]
struct SplitSums {
    sss: f64,
    snn: f64,
    ssn: f64,
    sdf_s: Vec4,
    sdf_n: Vec4,
}

impl SplitSums {
    /// Adds a neighbour at `(ds, dn)` (weighted `(ds_w, dn_w)`) with flux
    /// difference `g_k - g_i`.
    #[inline(always)]
    fn add(&mut self, ds: f64, dn: f64, ds_w: f64, dn_w: f64, g_k: &Vec4, g_i: &Vec4) {
        self.sss += ds * ds_w;
        self.snn += dn * dn_w;
        self.ssn += ds * dn_w;
        for c in 0..4 {
            let d = g_k[c] - g_i[c];
            self.sdf_s[c] += d * ds_w;
            self.sdf_n[c] += d * dn_w;
        }
    }

    /// `dG/ds` (x-type fluxes).
    #[inline(always)]
    fn d_ds(&self) -> Vec4 {
        let one_by_det = 1.0 / (self.sss * self.snn - self.ssn * self.ssn);
        let mut out = [0.0; 4];
        for c in 0..4 {
            out[c] = (self.sdf_s[c] * self.snn - self.sdf_n[c] * self.ssn) * one_by_det;
        }
        out
    }

    /// `dG/dn` (y-type fluxes).
    #[inline(always)]
    fn d_dn(&self) -> Vec4 {
        let one_by_det = 1.0 / (self.sss * self.snn - self.ssn * self.ssn);
        let mut out = [0.0; 4];
        for c in 0..4 {
            out[c] = (self.sdf_n[c] * self.sss - self.sdf_s[c] * self.ssn) * one_by_det;
        }
        out
    }
}

/// The flux residual of point `i` for its kind.
///
/// One pass over the stencil does the four split-flux derivatives (eq. 11):
/// each neighbour `k` is reconstructed once, `qt_i` and `qt_k` towards the
/// same offset, and its flux differences `G(qt_k) - G(qt_i)` (both in the
/// frame of point `i`) go to every split stencil it belongs to: `xpos` when
/// `ds <= 0`, `xneg` when `ds >= 0`, and by `dn` likewise (all of them to
/// `yneg` at a wall, to `ypos` at the far field). Sums run in stencil order,
/// as over the precomputed split stencils, so the result is the same bits.
///
/// The neighbours go in batches of up to 8: first every reconstruction of
/// the batch, then their primitive states and kinetic moments (`ln`, `exp`,
/// `erf`, `sqrt`: vectorized over the batch), then the sums, in stencil
/// order.
#[inline]
pub fn flux_residual_point(g: &Geometry, p: &Params, f: &FluxInputs, i: usize) -> Vec4 {
    flux_residual_batched(g, p, f, i, &mut FluxBatch::new())
}

/// [`flux_residual_point`] with a given work space.
#[inline(always)]
fn flux_residual_batched(
    g: &Geometry,
    p: &Params,
    f: &FluxInputs,
    i: usize,
    bt: &mut FluxBatch,
) -> Vec4 {
    let (xi, yi, nx, ny) = (g.x[i], g.y[i], g.nx[i], g.ny[i]);
    let kind = g.kind[i];
    let eps_i = venkat_epsilon(p.vl_const, g.min_dist[i]);
    let (mut xpos, mut xneg) = (SplitSums::default(), SplitSums::default());
    let (mut ypos, mut yneg) = (SplitSums::default(), SplitSums::default());
    for chunk in g.stencil.row(i).chunks(BATCH) {
        for (m, &k) in chunk.iter().enumerate() {
            let k = k as usize;
            let dx = g.x[k] - xi;
            let dy = g.y[k] - yi;
            let ds = dx * ny - dy * nx;
            let dn = dx * nx + dy * ny;
            let w = weight(p.power, || (ds * ds + dn * dn).sqrt());
            bt.ds[m] = ds;
            bt.dn[m] = dn;
            bt.ds_w[m] = ds * w;
            bt.dn_w[m] = dn * w;
            let eps_k = venkat_epsilon(p.vl_const, g.min_dist[k]);
            let qi = reconstruct(p, f, eps_i, i, dx, dy);
            let qk = reconstruct(p, f, eps_k, k, dx, dy);
            for c in 0..4 {
                bt.qt[c][m] = qi[c];
                bt.qt[c][BATCH + m] = qk[c];
            }
        }
        bt.moments(nx, ny);
        for m in 0..chunk.len() {
            let (ds, dn, ds_w, dn_w) = (bt.ds[m], bt.dn[m], bt.ds_w[m], bt.dn_w[m]);
            let ki = bt.kinetic(m);
            let kk = bt.kinetic(BATCH + m);
            match kind {
                PointKind::Interior => {
                    if ds <= 0.0 {
                        xpos.add(ds, dn, ds_w, dn_w, &kk.gx_pos(), &ki.gx_pos());
                    }
                    if ds >= 0.0 {
                        xneg.add(ds, dn, ds_w, dn_w, &kk.gx_neg(), &ki.gx_neg());
                    }
                    if dn <= 0.0 {
                        ypos.add(ds, dn, ds_w, dn_w, &kk.gy_pos(), &ki.gy_pos());
                    }
                    if dn >= 0.0 {
                        yneg.add(ds, dn, ds_w, dn_w, &kk.gy_neg(), &ki.gy_neg());
                    }
                }
                PointKind::Wall => {
                    if ds <= 0.0 {
                        xpos.add(ds, dn, ds_w, dn_w, &kk.quad_2(), &ki.quad_2());
                    }
                    if ds >= 0.0 {
                        xneg.add(ds, dn, ds_w, dn_w, &kk.quad_1(), &ki.quad_1());
                    }
                    yneg.add(ds, dn, ds_w, dn_w, &kk.gy_neg(), &ki.gy_neg());
                }
                PointKind::Outer => {
                    if ds <= 0.0 {
                        xpos.add(ds, dn, ds_w, dn_w, &kk.quad_3(), &ki.quad_3());
                    }
                    if ds >= 0.0 {
                        xneg.add(ds, dn, ds_w, dn_w, &kk.quad_4(), &ki.quad_4());
                    }
                    ypos.add(ds, dn, ds_w, dn_w, &kk.gy_pos(), &ki.gy_pos());
                }
            }
        }
    }
    let delta = f.delta[i];
    let mut r = [0.0; 4];
    match kind {
        PointKind::Interior => {
            let (a, b, c, d) = (xpos.d_ds(), xneg.d_ds(), ypos.d_dn(), yneg.d_dn());
            for m in 0..4 {
                r[m] = delta * (a[m] + b[m] + c[m] + d[m]);
            }
        }
        PointKind::Wall => {
            let (a, b, d) = (xpos.d_ds(), xneg.d_ds(), yneg.d_dn());
            for m in 0..4 {
                // The reference's factor 2 at walls (the update halves R).
                r[m] = delta * (a[m] + b[m] + d[m]) * 2.0;
            }
        }
        PointKind::Outer => {
            let (a, b, c) = (xpos.d_ds(), xneg.d_ds(), ypos.d_dn());
            for m in 0..4 {
                r[m] = delta * (a[m] + b[m] + c[m]);
            }
        }
    }
    r
}

/// Flux residual of each point in the range, per point kind:
/// interior `delta (dGx+/ds + dGx-/ds + dGy+/dn + dGy-/dn)`,
/// wall `2 delta (dGxII/ds + dGxI/ds + dGy-/dn)`,
/// outer `delta (dGxIII/ds + dGxIV/ds + dGy+/dn)`.
///
/// On x86-64 processors with AVX2 the kernel runs as code compiled for AVX2
/// (4 lanes instead of SSE2's 2); the two give the same bits (no fused
/// multiply-adds: Rust never contracts `a * b + c`), so the choice, made at
/// run time, changes the speed only.
pub fn flux_residual(g: &Geometry, p: &Params, f: &FluxInputs, first: usize, res: &mut [Vec4]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, all `flux_residual_avx2` requires.
        unsafe { flux_residual_avx2(g, p, f, first, res) };
        return;
    }
    flux_residual_portable(g, p, f, first, res);
}

/// [`flux_residual`] compiled for the target's baseline instruction set
/// (SSE2 on x86-64): the same bits as the AVX2 path.
pub fn flux_residual_portable(
    g: &Geometry,
    p: &Params,
    f: &FluxInputs,
    first: usize,
    res: &mut [Vec4],
) {
    flux_residual_range(g, p, f, first, res);
}

/// [`flux_residual`] compiled for AVX2.
///
/// # Safety
///
/// The processor must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn flux_residual_avx2(
    g: &Geometry,
    p: &Params,
    f: &FluxInputs,
    first: usize,
    res: &mut [Vec4],
) {
    flux_residual_range(g, p, f, first, res);
}

/// The flux residual over a range, inlined into each instruction-set
/// variant.
#[inline(always)]
fn flux_residual_range(g: &Geometry, p: &Params, f: &FluxInputs, first: usize, res: &mut [Vec4]) {
    let mut bt = FluxBatch::new();
    for (j, r) in res.iter_mut().enumerate() {
        *r = flux_residual_batched(g, p, f, first + j, &mut bt);
    }
}

/// What one state update found in its range.
#[derive(Clone, Debug, Default)]
pub struct UpdateOutcome {
    /// Exact sum of the squared density changes at wall and interior points
    /// (order-independent, so any split into ranges gives the same bits).
    pub sum_sq: bitrep::SumF64,
    /// The first point (lowest index) whose new state is not physical.
    pub bad_point: Option<usize>,
}

impl UpdateOutcome {
    /// Combines the outcomes of two ranges.
    pub fn merge(&mut self, other: &UpdateOutcome) {
        self.sum_sq.merge(&other.sum_sq);
        self.bad_point = match (self.bad_point, other.bad_point) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
}

/// Runge-Kutta stage `stage` (0-based) of the update of each point in the
/// range: conserved state in the point's frame (the kinetic far-field state
/// at outer points), `U <- U - f R` with the scheme's factor, the SSPRK
/// scheme's third stage averaging `U = U/3 + 2 U_old/3`, zero normal momentum
/// at walls, rotation back and primitives. `prim`, `prim_old` and `res` cover
/// the points of the range. Returns the squared density changes summed over
/// the wall and interior points of the range and the first non-physical
/// point.
pub fn state_update(
    g: &Geometry,
    p: &Params,
    stage: usize,
    first: usize,
    prim: &mut [Vec4],
    prim_old: &[Vec4],
    res: &[Vec4],
) -> UpdateOutcome {
    let mut out = UpdateOutcome::default();
    let factor = p.scheme.residual_factor();
    let average = p.scheme == Scheme::Ssprk43 && stage == 2;
    for (j, (w, (w_old, r))) in prim.iter_mut().zip(prim_old.iter().zip(res)).enumerate() {
        let i = first + j;
        let (nx, ny) = (g.nx[i], g.ny[i]);
        let kind = g.kind[i];
        let (mut u, u_old) = match kind {
            PointKind::Outer => (
                gas::far_field_state(w, nx, ny, &p.free_stream),
                gas::far_field_state(w_old, nx, ny, &p.free_stream),
            ),
            _ => (
                gas::conserved_in_frame(w, nx, ny),
                gas::conserved_in_frame(w_old, nx, ny),
            ),
        };
        let rho_before = u[0];
        for c in 0..4 {
            u[c] -= factor * r[c];
        }
        if average {
            for c in 0..4 {
                u[c] = u[c] * 1.0 / 3.0 + u_old[c] * 2.0 / 3.0;
            }
        }
        if kind == PointKind::Wall {
            u[2] = 0.0;
        }
        let (u2_rot, u3_rot) = (u[1], u[2]);
        u[1] = u2_rot * ny + u3_rot * nx;
        u[2] = u3_rot * ny - u2_rot * nx;
        if kind != PointKind::Outer {
            let d = u[0] - rho_before;
            out.sum_sq.add(d * d);
        }
        *w = gas::primitive_of_conserved(&u);
        if out.bad_point.is_none() && !gas::is_physical(w) {
            out.bad_point = Some(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use qflow_mesh::generate::NacaOGrid;

    /// The flux residual of point `i` neighbour by neighbour, without
    /// batches: every reconstruction converted and its moments taken on its
    /// own ([`gas::primitive_of_q`], [`Kinetic::new`]).
    fn unbatched(g: &Geometry, p: &Params, f: &FluxInputs, i: usize) -> Vec4 {
        let (xi, yi, nx, ny) = (g.x[i], g.y[i], g.nx[i], g.ny[i]);
        let eps_i = venkat_epsilon(p.vl_const, g.min_dist[i]);
        let mut sums: [SplitSums; 4] = Default::default();
        for &k in g.stencil.row(i) {
            let k = k as usize;
            let (dx, dy) = (g.x[k] - xi, g.y[k] - yi);
            let ds = dx * ny - dy * nx;
            let dn = dx * nx + dy * ny;
            let eps_k = venkat_epsilon(p.vl_const, g.min_dist[k]);
            let ki = Kinetic::new(
                nx,
                ny,
                &gas::primitive_of_q(&reconstruct(p, f, eps_i, i, dx, dy)),
            );
            let kk = Kinetic::new(
                nx,
                ny,
                &gas::primitive_of_q(&reconstruct(p, f, eps_k, k, dx, dy)),
            );
            let pairs = match g.kind[i] {
                PointKind::Interior => [
                    (ds <= 0.0, kk.gx_pos(), ki.gx_pos()),
                    (ds >= 0.0, kk.gx_neg(), ki.gx_neg()),
                    (dn <= 0.0, kk.gy_pos(), ki.gy_pos()),
                    (dn >= 0.0, kk.gy_neg(), ki.gy_neg()),
                ],
                PointKind::Wall => [
                    (ds <= 0.0, kk.quad_2(), ki.quad_2()),
                    (ds >= 0.0, kk.quad_1(), ki.quad_1()),
                    (false, [0.0; 4], [0.0; 4]),
                    (true, kk.gy_neg(), ki.gy_neg()),
                ],
                PointKind::Outer => [
                    (ds <= 0.0, kk.quad_3(), ki.quad_3()),
                    (ds >= 0.0, kk.quad_4(), ki.quad_4()),
                    (true, kk.gy_pos(), ki.gy_pos()),
                    (false, [0.0; 4], [0.0; 4]),
                ],
            };
            for (s, (take, gk, gi)) in sums.iter_mut().zip(pairs) {
                if take {
                    s.add(ds, dn, ds, dn, &gk, &gi);
                }
            }
        }
        let (a, b) = (sums[0].d_ds(), sums[1].d_ds());
        let (c, d) = (sums[2].d_dn(), sums[3].d_dn());
        let delta = f.delta[i];
        let mut r = [0.0; 4];
        for m in 0..4 {
            r[m] = match g.kind[i] {
                PointKind::Interior => delta * (a[m] + b[m] + c[m] + d[m]),
                PointKind::Wall => delta * (a[m] + b[m] + d[m]) * 2.0,
                PointKind::Outer => delta * (a[m] + b[m] + c[m]),
            };
        }
        r
    }

    /// A small cloud with a flow strong enough for the limiter and for
    /// `|S| >= 1.25` (erf's tail) at some neighbours.
    fn case(extend: bool) -> (Geometry, Vec<Vec4>) {
        let grid = NacaOGrid {
            wall_points: 40,
            rings: 12,
            ..NacaOGrid::default()
        };
        let cloud = grid.generate().unwrap();
        let mut g = Geometry::new(&cloud, crate::settings::ForceNormals::Boundary);
        if extend {
            // Stencils longer than a batch: every stencil and its first
            // entries again (13 neighbours or more: two batches).
            let mut start = vec![0u32];
            let mut idx = Vec::new();
            for i in 0..g.stencil.rows() {
                let row = g.stencil.row(i);
                idx.extend_from_slice(row);
                idx.extend_from_slice(&row[..5]);
                start.push(idx.len() as u32);
            }
            g.stencil = qflow_mesh::geometry::Csr { start, idx };
        }
        let prim = (0..g.x.len())
            .map(|i| {
                let (x, y) = (g.x[i], g.y[i]);
                [
                    1.0 + 0.3 * (3.0 * x).sin() * y.cos(),
                    0.6 + 1.5 * (2.0 * y).sin() * (x - 0.5).cos(),
                    0.2 * (x + y).cos(),
                    0.7 + 0.2 * (x * y).cos(),
                ]
            })
            .collect();
        (g, prim)
    }

    #[test]
    fn batches_and_instruction_sets_give_the_bits_of_neighbour_by_neighbour() {
        for (extend, limiter) in [(false, true), (true, true), (false, false)] {
            let (g, prim) = case(extend);
            let n = prim.len();
            let p = Params {
                limiter,
                ..Params::from(&Settings::default())
            };
            let mut q = vec![[0.0; 4]; n];
            q_variables(&prim, &mut q);
            let (mut qx, mut qy) = (vec![[0.0; 4]; n], vec![[0.0; 4]; n]);
            let (mut q_max, mut q_min) = (vec![[0.0; 4]; n], vec![[0.0; 4]; n]);
            q_derivatives(&g, 0.0, &q, 0, &mut qx, &mut qy, &mut q_max, &mut q_min);
            let delta: Vec<f64> = (0..n).map(|i| 1e-3 * (1.0 + (i % 7) as f64)).collect();
            let f = FluxInputs {
                q: &q,
                qx: &qx,
                qy: &qy,
                q_max: &q_max,
                q_min: &q_min,
                delta: &delta,
            };
            let tail = (0..n).any(|i| {
                let w = gas::primitive_of_q(&q[i]);
                let fr = Frame::new(g.nx[i], g.ny[i], &w);
                fr.s1.abs() >= math::ERF_TAIL_FROM || fr.s2.abs() >= math::ERF_TAIL_FROM
            });
            assert!(tail, "the case should reach erf's tail");
            let mut res = vec![[0.0; 4]; n];
            flux_residual(&g, &p, &f, 0, &mut res);
            let mut portable = vec![[0.0; 4]; n];
            flux_residual_portable(&g, &p, &f, 0, &mut portable);
            // Ranges cut anywhere give the same values.
            let mut parts = vec![[0.0; 4]; n];
            let (a, b) = parts.split_at_mut(n / 3);
            flux_residual(&g, &p, &f, 0, a);
            flux_residual(&g, &p, &f, n / 3, b);
            for i in 0..n {
                let want = unbatched(&g, &p, &f, i);
                let bits = |v: &Vec4| v.map(f64::to_bits);
                assert!(want.iter().all(|v| v.is_finite()), "{i}: {want:?}");
                assert_eq!(bits(&res[i]), bits(&want), "{i} ({extend}, {limiter})");
                assert_eq!(bits(&portable[i]), bits(&want), "{i}");
                assert_eq!(bits(&parts[i]), bits(&want), "{i}");
                assert_eq!(bits(&flux_residual_point(&g, &p, &f, i)), bits(&want));
            }
        }
    }

    #[test]
    fn least_squares_kernels_give_the_same_bits_on_every_instruction_set() {
        for extend in [false, true] {
            let (g, prim) = case(extend);
            let n = prim.len();
            let mut q = vec![[0.0; 4]; n];
            q_variables(&prim, &mut q);
            let zeros = || vec![[0.0; 4]; n];
            let bits = |v: &[Vec4]| v.iter().map(|x| x.map(f64::to_bits)).collect::<Vec<_>>();
            // The dispatched kernels (AVX2 where the processor has it) against
            // the range functions called from here (baseline build).
            let (mut qx, mut qy, mut hi, mut lo) = (zeros(), zeros(), zeros(), zeros());
            q_derivatives(&g, 0.0, &q, 0, &mut qx, &mut qy, &mut hi, &mut lo);
            let (mut bx, mut by, mut bhi, mut blo) = (zeros(), zeros(), zeros(), zeros());
            q_derivatives_range(&g, 0.0, &q, 0, &mut bx, &mut by, &mut bhi, &mut blo);
            assert_eq!(bits(&qx), bits(&bx));
            assert_eq!(bits(&qy), bits(&by));
            assert_eq!(bits(&hi), bits(&bhi));
            assert_eq!(bits(&lo), bits(&blo));
            assert!(qx.iter().flatten().any(|&v| v != 0.0));
            let (mut nx, mut ny) = (zeros(), zeros());
            q_inner_iteration(&g, 0.0, &q, &qx, &qy, 0, &mut nx, &mut ny);
            let (mut mx, mut my) = (zeros(), zeros());
            q_inner_iteration_range(&g, 0.0, &q, &qx, &qy, 0, &mut mx, &mut my);
            assert_eq!(bits(&nx), bits(&mx));
            assert_eq!(bits(&ny), bits(&my));
            assert_ne!(
                bits(&nx),
                bits(&qx),
                "an inner iteration changes the gradients"
            );
        }
    }
}
