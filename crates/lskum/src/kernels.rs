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

use crate::flux::Kinetic;
use crate::gas::{self, FreeStream};
use crate::geometry::Geometry;
use crate::limiter::{venkat_epsilon, venkatakrishnan};
use crate::settings::{Limiter, Scheme, Settings};
use crate::Vec4;
use qflow_cloud::PointKind;

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

/// First least-squares q-derivatives over the full stencil (eq. 15), and the
/// stencil's bounds of `q` (point included) for the limiter.
#[allow(clippy::too_many_arguments)]
pub fn q_derivatives(
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

/// One Jacobi sweep of the second-order q-derivatives: the same fit with
/// `dq = (q_k - d.grad q_k / 2) - (q_i - d.grad q_i / 2)`, using the previous
/// sweep's gradients `qx`, `qy` of every point; the new ones go to `qx_new`,
/// `qy_new` (the caller swaps them in once every point is done).
#[allow(clippy::too_many_arguments)]
pub fn q_inner_iteration(
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

/// The reconstructed state at point `i` towards the offset `(dx, dy)`:
/// `qt = q_i - phi/2 (dx qx_i + dy qy_i)`, limited per component, as a
/// primitive state.
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
    gas::primitive_of_q(&qt)
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
#[inline]
pub fn flux_residual_point(g: &Geometry, p: &Params, f: &FluxInputs, i: usize) -> Vec4 {
    let (xi, yi, nx, ny) = (g.x[i], g.y[i], g.nx[i], g.ny[i]);
    let kind = g.kind[i];
    let eps_i = venkat_epsilon(p.vl_const, g.min_dist[i]);
    let (mut xpos, mut xneg) = (SplitSums::default(), SplitSums::default());
    let (mut ypos, mut yneg) = (SplitSums::default(), SplitSums::default());
    for &k in g.stencil.row(i) {
        let k = k as usize;
        let dx = g.x[k] - xi;
        let dy = g.y[k] - yi;
        let ds = dx * ny - dy * nx;
        let dn = dx * nx + dy * ny;
        let w = weight(p.power, || (ds * ds + dn * dn).sqrt());
        let (ds_w, dn_w) = (ds * w, dn * w);
        let eps_k = venkat_epsilon(p.vl_const, g.min_dist[k]);
        let ki = Kinetic::new(nx, ny, &reconstruct(p, f, eps_i, i, dx, dy));
        let kk = Kinetic::new(nx, ny, &reconstruct(p, f, eps_k, k, dx, dy));
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
pub fn flux_residual(g: &Geometry, p: &Params, f: &FluxInputs, first: usize, res: &mut [Vec4]) {
    for (j, r) in res.iter_mut().enumerate() {
        *r = flux_residual_point(g, p, f, first + j);
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
