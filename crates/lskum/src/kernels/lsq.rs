//! The pointwise and least-squares kernels: local time step, q-variables,
//! first q-derivatives with the limiter's stencil bounds, and the inner
//! (Jacobi) sweeps of the second-order q-derivatives.
//!
//! Each is a function of one point: its own values and its neighbours'
//! through the stencil ([`Star`]), in the reference implementation's order
//! of operations.

use qflow_par::Star;
use qflow_par_macros::device;

use crate::{gas, Vec4};

/// Least-squares weight `d^power` for an offset `(dx, dy)`. With
/// `power == 0` the weight is exactly 1, as `pow` gives, and the distance
/// is not computed.
#[device]
#[inline(always)]
pub fn weight(power: f64, dx: f64, dy: f64) -> f64 {
    if power == 0.0 {
        1.0
    } else {
        dx.hypot(dy).powf(power)
    }
}

/// Local time step of a point, and the copy of its state at the start of
/// the iteration (`prim_old`, which the SSPRK scheme's third stage and a
/// restore need):
/// `delta_i = min(1, min over neighbours k of CFL |r_k - r_i| / (|u_k| + 3 sqrt(p_k / rho_k)))`.
/// The factor 3 and the cap at 1 are the reference's.
#[device]
#[inline(always)]
pub fn local_time_step(
    cfl: f64,
    x: Star<f64>,
    y: Star<f64>,
    prim: Star<Vec4>,
    delta: &mut f64,
    prim_old: &mut Vec4,
) {
    let xi = x.own();
    let yi = y.own();
    let mut min_delt = 1.0;
    for m in 0..prim.len() {
        let w = prim.nbr(m);
        let dist = (x.nbr(m) - xi).hypot(y.nbr(m) - yi);
        let mod_u = w[1].hypot(w[2]);
        let mut delta_t = dist / (mod_u + 3.0 * (w[3] / w[0]).sqrt());
        delta_t *= cfl;
        if min_delt > delta_t {
            min_delt = delta_t;
        }
    }
    *delta = min_delt;
    *prim_old = prim.own();
}

/// q-variables of a point.
#[device]
#[inline(always)]
pub fn q_variables(prim: &Vec4, q: &mut Vec4) {
    *q = gas::q_of_primitive(prim);
}

/// Least-squares sums of one fit: `S(w dx^2)`, `S(w dy^2)`, `S(w dx dy)` and
/// per component `S(w dx dq)`, `S(w dy dq)`.
#[device]
#[derive(Clone, Copy, Debug, Default)]
pub struct Fit {
    /// `S(w dx^2)`.
    pub sxx: f64,
    /// `S(w dy^2)`.
    pub syy: f64,
    /// `S(w dx dy)`.
    pub sxy: f64,
    /// `S(w dx dq)` per component.
    pub sxq: Vec4,
    /// `S(w dy dq)` per component.
    pub syq: Vec4,
}

#[device]
impl Fit {
    /// Adds one neighbour at offset `(dx, dy)` with weight `w` and
    /// difference `dq`.
    #[inline(always)]
    pub fn add(&mut self, dx: f64, dy: f64, w: f64, dq: &Vec4) {
        self.sxx += (dx * dx) * w;
        self.syy += (dy * dy) * w;
        self.sxy += (dx * dy) * w;
        for c in 0..4 {
            let iv = w * dq[c];
            self.sxq[c] += dx * iv;
            self.syq[c] += dy * iv;
        }
    }

    /// The gradient `(qx, qy)` solving the 2x2 normal equations.
    #[inline(always)]
    pub fn solve(&self) -> (Vec4, Vec4) {
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

/// Neighbour `m`'s terms of [`q_derivatives`]: its offset and difference
/// into `fit`, its q-variables into the bounds. `weighted` is whether
/// `power` is not 0 (else the weight is exactly 1, [`weight`]'s value):
/// the kernel tests it once per point, not once per neighbour, so that the
/// loop of the common case has no call in it.
#[device]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn derivatives_nbr(
    weighted: bool,
    power: f64,
    m: usize,
    x: Star<f64>,
    y: Star<f64>,
    q: Star<Vec4>,
    xi: f64,
    yi: f64,
    qi: &Vec4,
    fit: &mut Fit,
    hi: &mut Vec4,
    lo: &mut Vec4,
) {
    let dx = x.nbr(m) - xi;
    let dy = y.nbr(m) - yi;
    let w = if weighted { weight(power, dx, dy) } else { 1.0 };
    let qk = q.nbr(m);
    let mut dq = [0.0; 4];
    for c in 0..4 {
        dq[c] = qk[c] - qi[c];
    }
    fit.add(dx, dy, w, &dq);
    for c in 0..4 {
        if hi[c] < qk[c] {
            hi[c] = qk[c];
        }
        if lo[c] > qk[c] {
            lo[c] = qk[c];
        }
    }
}

/// First least-squares q-derivatives over the full stencil, and the
/// stencil's bounds of `q` (point included) for the limiter.
#[device]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn q_derivatives(
    power: f64,
    x: Star<f64>,
    y: Star<f64>,
    q: Star<Vec4>,
    qx: &mut Vec4,
    qy: &mut Vec4,
    q_max: &mut Vec4,
    q_min: &mut Vec4,
) {
    let xi = x.own();
    let yi = y.own();
    let qi = q.own();
    let mut fit = Fit::default();
    let mut hi = qi;
    let mut lo = qi;
    if power == 0.0 {
        for m in 0..q.len() {
            derivatives_nbr(
                false, power, m, x, y, q, xi, yi, &qi, &mut fit, &mut hi, &mut lo,
            );
        }
    } else {
        for m in 0..q.len() {
            derivatives_nbr(
                true, power, m, x, y, q, xi, yi, &qi, &mut fit, &mut hi, &mut lo,
            );
        }
    }
    let (gx, gy) = fit.solve();
    *qx = gx;
    *qy = gy;
    *q_max = hi;
    *q_min = lo;
}

/// Neighbour `m`'s terms of [`q_inner_iteration`] (`weighted` as for
/// [`derivatives_nbr`]).
#[device]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn inner_nbr(
    weighted: bool,
    power: f64,
    m: usize,
    x: Star<f64>,
    y: Star<f64>,
    q: Star<Vec4>,
    qx: Star<Vec4>,
    qy: Star<Vec4>,
    xi: f64,
    yi: f64,
    qi: &Vec4,
    qxi: &Vec4,
    qyi: &Vec4,
    fit: &mut Fit,
) {
    let dx = x.nbr(m) - xi;
    let dy = y.nbr(m) - yi;
    let w = if weighted { weight(power, dx, dy) } else { 1.0 };
    let qk = q.nbr(m);
    let qxk = qx.nbr(m);
    let qyk = qy.nbr(m);
    let mut dq = [0.0; 4];
    for c in 0..4 {
        let qi_tilde = qi[c] - 0.5 * (dx * qxi[c] + dy * qyi[c]);
        let qk_tilde = qk[c] - 0.5 * (dx * qxk[c] + dy * qyk[c]);
        dq[c] = qk_tilde - qi_tilde;
    }
    fit.add(dx, dy, w, &dq);
}

/// One Jacobi sweep of the second-order q-derivatives: the same fit with
/// `dq = (q_k - d.grad q_k / 2) - (q_i - d.grad q_i / 2)`, using the previous
/// sweep's gradients of every point; the new ones go to `qx_new`,
/// `qy_new` (swapped in once every point is done).
#[device]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn q_inner_iteration(
    power: f64,
    x: Star<f64>,
    y: Star<f64>,
    q: Star<Vec4>,
    qx: Star<Vec4>,
    qy: Star<Vec4>,
    qx_new: &mut Vec4,
    qy_new: &mut Vec4,
) {
    let xi = x.own();
    let yi = y.own();
    let qi = q.own();
    let qxi = qx.own();
    let qyi = qy.own();
    let mut fit = Fit::default();
    if power == 0.0 {
        for m in 0..q.len() {
            inner_nbr(
                false, power, m, x, y, q, qx, qy, xi, yi, &qi, &qxi, &qyi, &mut fit,
            );
        }
    } else {
        for m in 0..q.len() {
            inner_nbr(
                true, power, m, x, y, q, qx, qy, xi, yi, &qi, &qxi, &qyi, &mut fit,
            );
        }
    }
    let (gx, gy) = fit.solve();
    *qx_new = gx;
    *qy_new = gy;
}
