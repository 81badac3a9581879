//! The flux residual of a point: the q-LSKUM split-flux derivatives over its
//! stencil, with reconstructed, limited q-variables.

use qflow_par::Star;
use qflow_par_macros::device;

use crate::flux::{b_of, Frame, Kinetic};
use crate::limiter::{venkat_epsilon, venkatakrishnan};
use crate::{gas, math, Vec4};

/// Point kinds, the legacy file's codes (`qflow_mesh::PointKind`).
#[device]
pub const WALL: i32 = 0;
/// An interior point.
#[device]
pub const INTERIOR: i32 = 1;
/// A far-field point.
#[device]
pub const OUTER: i32 = 2;

/// The `limiter` global's value for no reconstruction at all (`qt = q`):
/// the first-order residual of the Newton-Krylov preconditioner.
#[device]
pub const FIRST_ORDER: i32 = 3;

/// Neighbours the flux kernel handles per batch (longer stencils take
/// several batches).
#[device]
pub const BATCH: usize = 8;
/// Reconstructed states per batch: lane `m` is `qt_i` towards neighbour `m`,
/// lane `BATCH + m` is `qt_k` of neighbour `m`.
#[device]
pub const SIDES: usize = 2 * BATCH;
/// `S` values per batch: lane `j` is `S1` of state `j`, `SIDES + j` its `S2`.
#[device]
pub const MOMENTS: usize = 2 * SIDES;

/// The flux kernel's work space for one batch of neighbours of a point: the
/// reconstructed states, then everything their kinetic moments need, as
/// arrays over the batch so that the loops over them (`ln`, `exp`, `erf`,
/// `sqrt`, divisions) compile to SIMD code. Every lane is computed by the
/// same element-wise operations, so a value never depends on its lane or on
/// the other lanes; a lane a point does not use keeps a valid state (of
/// [`FluxBatch::new`] or of an earlier point), which no sum reads. The
/// layer keeps one per chunk of points (a CPU thread) or work item (a
/// device): `scratch(FluxBatch::new)` in the loop's declaration.
#[device]
#[derive(Clone, Copy, Debug)]
pub struct FluxBatch {
    /// Reconstructed q-variables per component and lane.
    pub qt: [[f64; SIDES]; 4],
    /// The states in the point's frame.
    pub frame: [Frame; SIDES],
    /// `S1` and `S2` of every state.
    pub s: [f64; MOMENTS],
    /// `sqrt(pi beta)` of the state of each `S`.
    pub spb: [f64; MOMENTS],
    /// `erf(S)`.
    pub erf: [f64; MOMENTS],
    /// `B(S)`.
    pub b: [f64; MOMENTS],
    /// Offsets of the neighbours in the s-n frame.
    pub ds: [f64; BATCH],
    /// Offsets of the neighbours in the s-n frame.
    pub dn: [f64; BATCH],
    /// Weighted offsets.
    pub ds_w: [f64; BATCH],
    /// Weighted offsets.
    pub dn_w: [f64; BATCH],
}

#[device]
impl FluxBatch {
    /// A batch with a harmless state in every lane (`beta = 1/2`, at rest).
    #[inline(always)]
    pub fn new() -> FluxBatch {
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
    pub fn moments(&mut self, nx: f64, ny: f64) {
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
    pub fn kinetic(&self, j: usize) -> Kinetic {
        Kinetic::from_parts(
            &self.frame[j],
            self.erf[j],
            self.b[j],
            self.erf[SIDES + j],
            self.b[SIDES + j],
        )
    }
}

impl Default for FluxBatch {
    fn default() -> Self {
        FluxBatch::new()
    }
}

/// Least-squares sums of one split stencil in the point's s-n frame: the
/// moments of the offsets and, per component, the weighted flux differences.
#[device]
#[derive(Clone, Copy, Debug, Default)]
pub struct SplitSums {
    /// `S(ds ds_w)`.
    pub sss: f64,
    /// `S(dn dn_w)`.
    pub snn: f64,
    /// `S(ds dn_w)`.
    pub ssn: f64,
    /// `S(dG ds_w)` per component.
    pub sdf_s: Vec4,
    /// `S(dG dn_w)` per component.
    pub sdf_n: Vec4,
}

#[device]
impl SplitSums {
    /// Adds a neighbour at `(ds, dn)` (weighted `(ds_w, dn_w)`) with flux
    /// difference `g_k - g_i`.
    #[inline(always)]
    pub fn add(&mut self, ds: f64, dn: f64, ds_w: f64, dn_w: f64, g_k: &Vec4, g_i: &Vec4) {
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
    pub fn d_ds(&self) -> Vec4 {
        let one_by_det = 1.0 / (self.sss * self.snn - self.ssn * self.ssn);
        let mut out = [0.0; 4];
        for c in 0..4 {
            out[c] = (self.sdf_s[c] * self.snn - self.sdf_n[c] * self.ssn) * one_by_det;
        }
        out
    }

    /// `dG/dn` (y-type fluxes).
    #[inline(always)]
    pub fn d_dn(&self) -> Vec4 {
        let one_by_det = 1.0 / (self.sss * self.snn - self.ssn * self.ssn);
        let mut out = [0.0; 4];
        for c in 0..4 {
            out[c] = (self.sdf_n[c] * self.sss - self.sdf_s[c] * self.ssn) * one_by_det;
        }
        out
    }
}

/// The reconstructed q-variables of a point with q-variables `q`, gradient
/// `(qx, qy)` and stencil bounds `q_max`, `q_min`, towards the offset
/// `(dx, dy)`: `qt = q - phi/2 (dx qx + dy qy)`, limited per component:
/// `limiter` 1 with Venkatakrishnan's `phi` of this reconstruction (the
/// reference's), 2 with the point's own `phi` (`limiter_phi`: the least
/// over its stencil, frozen once the residue has fallen far enough), 0 not
/// at all; [`FIRST_ORDER`] (3) without reconstruction.
#[device]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn reconstruct(
    limiter: i32,
    q: &Vec4,
    qx: &Vec4,
    qy: &Vec4,
    q_max: &Vec4,
    q_min: &Vec4,
    epsi: f64,
    point_phi: &Vec4,
    dx: f64,
    dy: f64,
) -> Vec4 {
    let mut qt = [0.0; 4];
    if limiter == FIRST_ORDER {
        return *q;
    }
    if limiter == 2 {
        for c in 0..4 {
            qt[c] = q[c] - 0.5 * point_phi[c] * (dx * qx[c] + dy * qy[c]);
        }
        return qt;
    }
    for c in 0..4 {
        qt[c] = q[c] - 0.5 * (dx * qx[c] + dy * qy[c]);
    }
    if limiter != 0 {
        let phi = venkatakrishnan(&qt, q, q_max, q_min, epsi);
        for c in 0..4 {
            qt[c] = q[c] - 0.5 * phi[c] * (dx * qx[c] + dy * qy[c]);
        }
    }
    qt
}

/// The flux residual of a point for its kind:
/// interior `delta (dGx+/ds + dGx-/ds + dGy+/dn + dGy-/dn)`,
/// wall `2 delta (dGxII/ds + dGxI/ds + dGy-/dn)`,
/// outer `delta (dGxIII/ds + dGxIV/ds + dGy+/dn)`.
///
/// One pass over the stencil does the four split-flux derivatives: each
/// neighbour `k` is reconstructed once, `qt_i` and `qt_k` towards the same
/// offset, and its flux differences `G(qt_k) - G(qt_i)` (both in the frame
/// of the point) go to every split stencil it belongs to: `xpos` when
/// `ds <= 0`, `xneg` when `ds >= 0`, and by `dn` likewise (all of them to
/// `yneg` at a wall, to `ypos` at the far field). Sums run in stencil order,
/// as over precomputed split stencils, so the result is the same bits. The
/// neighbours go in batches of up to [`BATCH`]: first every reconstruction
/// of the batch, then their primitive states and kinetic moments
/// (vectorized over the batch), then the sums, in stencil order.
#[device]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn flux_residual(
    power: f64,
    vl_const: f64,
    limiter: i32,
    x: Star<f64>,
    y: Star<f64>,
    nx: &f64,
    ny: &f64,
    kind: &i32,
    min_dist: Star<f64>,
    q: Star<Vec4>,
    qx: Star<Vec4>,
    qy: Star<Vec4>,
    q_max: Star<Vec4>,
    q_min: Star<Vec4>,
    phi: Star<Vec4>,
    delta: &f64,
    bt: &mut FluxBatch,
    res: &mut Vec4,
) {
    let xi = x.own();
    let yi = y.own();
    let nx = *nx;
    let ny = *ny;
    let kind = *kind;
    let eps_i = venkat_epsilon(vl_const, min_dist.own());
    let qi = q.own();
    let qxi = qx.own();
    let qyi = qy.own();
    let (hi_i, lo_i) = if limiter == 1 {
        (q_max.own(), q_min.own())
    } else {
        (qi, qi)
    };
    let phi_i = if limiter == 2 { phi.own() } else { [1.0; 4] };
    let mut xpos = SplitSums::default();
    let mut xneg = SplitSums::default();
    let mut ypos = SplitSums::default();
    let mut yneg = SplitSums::default();
    let n = q.len();
    let mut start = 0;
    while start < n {
        let len = if n - start < BATCH { n - start } else { BATCH };
        for m in 0..len {
            let k = start + m;
            let dx = x.nbr(k) - xi;
            let dy = y.nbr(k) - yi;
            let ds = dx * ny - dy * nx;
            let dn = dx * nx + dy * ny;
            bt.ds[m] = ds;
            bt.dn[m] = dn;
            let eps_k = venkat_epsilon(vl_const, min_dist.nbr(k));
            let qk = q.nbr(k);
            let (hi_k, lo_k) = if limiter == 1 {
                (q_max.nbr(k), q_min.nbr(k))
            } else {
                (qk, qk)
            };
            let phi_k = if limiter == 2 { phi.nbr(k) } else { [1.0; 4] };
            let ti = reconstruct(
                limiter, &qi, &qxi, &qyi, &hi_i, &lo_i, eps_i, &phi_i, dx, dy,
            );
            let tk = reconstruct(
                limiter,
                &qk,
                &qx.nbr(k),
                &qy.nbr(k),
                &hi_k,
                &lo_k,
                eps_k,
                &phi_k,
                dx,
                dy,
            );
            for c in 0..4 {
                bt.qt[c][m] = ti[c];
                bt.qt[c][BATCH + m] = tk[c];
            }
        }
        // The weights after the reconstructions, so that their loop has no
        // call in it (`power == 0`: the weight is exactly 1).
        if power == 0.0 {
            for m in 0..len {
                bt.ds_w[m] = bt.ds[m];
                bt.dn_w[m] = bt.dn[m];
            }
        } else {
            for m in 0..len {
                let ds = bt.ds[m];
                let dn = bt.dn[m];
                let w = (ds * ds + dn * dn).sqrt().powf(power);
                bt.ds_w[m] = ds * w;
                bt.dn_w[m] = dn * w;
            }
        }
        bt.moments(nx, ny);
        for m in 0..len {
            let ds = bt.ds[m];
            let dn = bt.dn[m];
            let ds_w = bt.ds_w[m];
            let dn_w = bt.dn_w[m];
            let ki = bt.kinetic(m);
            let kk = bt.kinetic(BATCH + m);
            if kind == INTERIOR {
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
            } else if kind == WALL {
                if ds <= 0.0 {
                    xpos.add(ds, dn, ds_w, dn_w, &kk.quad_2(), &ki.quad_2());
                }
                if ds >= 0.0 {
                    xneg.add(ds, dn, ds_w, dn_w, &kk.quad_1(), &ki.quad_1());
                }
                yneg.add(ds, dn, ds_w, dn_w, &kk.gy_neg(), &ki.gy_neg());
            } else {
                if ds <= 0.0 {
                    xpos.add(ds, dn, ds_w, dn_w, &kk.quad_3(), &ki.quad_3());
                }
                if ds >= 0.0 {
                    xneg.add(ds, dn, ds_w, dn_w, &kk.quad_4(), &ki.quad_4());
                }
                ypos.add(ds, dn, ds_w, dn_w, &kk.gy_pos(), &ki.gy_pos());
            }
        }
        start += BATCH;
    }
    let delta = *delta;
    let mut r = [0.0; 4];
    if kind == INTERIOR {
        let a = xpos.d_ds();
        let b = xneg.d_ds();
        let c = ypos.d_dn();
        let d = yneg.d_dn();
        for m in 0..4 {
            r[m] = delta * (a[m] + b[m] + c[m] + d[m]);
        }
    } else if kind == WALL {
        let a = xpos.d_ds();
        let b = xneg.d_ds();
        let d = yneg.d_dn();
        for m in 0..4 {
            // The reference's factor 2 at walls (the update halves R).
            r[m] = delta * (a[m] + b[m] + d[m]) * 2.0;
        }
    } else {
        let a = xpos.d_ds();
        let b = xneg.d_ds();
        let c = ypos.d_dn();
        for m in 0..4 {
            r[m] = delta * (a[m] + b[m] + c[m]);
        }
    }
    *res = r;
}

/// A point's own limiter values (`limiter` 2 of [`reconstruct`]): the
/// least of Venkatakrishnan's `phi` over the reconstructions of its
/// unlimited gradient towards every neighbour and away from it (the
/// directions the flux kernel reconstructs the point in), per component.
#[device]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn limiter_phi(
    vl_const: f64,
    x: Star<f64>,
    y: Star<f64>,
    min_dist: &f64,
    q: &Vec4,
    qx: &Vec4,
    qy: &Vec4,
    q_max: &Vec4,
    q_min: &Vec4,
    phi: &mut Vec4,
) {
    let eps = venkat_epsilon(vl_const, *min_dist);
    let (xi, yi) = (x.own(), y.own());
    let mut least = [1.0; 4];
    for k in 0..x.len() {
        let dx = x.nbr(k) - xi;
        let dy = y.nbr(k) - yi;
        for side in 0..2 {
            let s = if side == 0 { 0.5 } else { -0.5 };
            let mut qt = [0.0; 4];
            for c in 0..4 {
                qt[c] = q[c] - s * (dx * qx[c] + dy * qy[c]);
            }
            let p = venkatakrishnan(&qt, q, q_max, q_min, eps);
            for c in 0..4 {
                if p[c] < least[c] {
                    least[c] = p[c];
                }
            }
        }
    }
    *phi = least;
}
