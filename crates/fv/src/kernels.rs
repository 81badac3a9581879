//! The five kernels of OP2's Airfoil application, each a function of one
//! element written in the Rust subset that is translated to OpenCL C at
//! build time (`docs/fv.md` states the scheme).
//!
//! The state `q = [rho, rho u, rho v, rho E]` lives on cells. An edge's
//! flux is taken along `(dy, -dx)` with `(dx, dy) = x1 - x2`: out of its
//! first cell and into its second. The arithmetic follows OP2's kernels
//! operation by operation (the same products and sums in the same order),
//! so that a serial run reproduces OP2's own regression value to
//! round-off.

use qflow_par::Star;
use qflow_par_macros::device;

/// `gam`, `gm1`, `cfl`, `eps`: the constants the kernels read.
#[device]
pub type Gas = [f64; 4];

/// Keeps the state at the start of the iteration.
#[device]
#[inline(always)]
pub fn save_soln(q: &[f64; 4], qold: &mut [f64; 4]) {
    *qold = *q;
}

/// The cell's time-step factor: the sum over its sides (node `k` to node
/// `k + 1`, the last back to the first) of the convective and acoustic
/// face speeds, divided by the CFL number. A quadrilateral's four sides
/// are summed in OP2's order, so its bits are OP2's.
#[device]
#[inline(always)]
pub fn adt_calc(gas: Gas, x: Star<'_, [f64; 2]>, q: &[f64; 4], adt: &mut f64) {
    let (gam, gm1, cfl) = (gas[0], gas[1], gas[2]);
    let ri = 1.0 / q[0];
    let u = ri * q[1];
    let v = ri * q[2];
    let c = (gam * gm1 * (ri * q[3] - 0.5 * (u * u + v * v))).sqrt();
    let n = x.len();
    let mut from = x.nbr(0);
    let mut to = x.nbr(1);
    let mut a = side_speed(&from, &to, u, v, c);
    for k in 2..n + 1 {
        from = to;
        to = x.nbr(k % n);
        a += side_speed(&from, &to, u, v, c);
    }
    *adt = a / cfl;
}

/// `|u dy - v dx| + c |d|` of the side from `a` to `b`.
#[device]
#[inline(always)]
pub fn side_speed(a: &[f64; 2], b: &[f64; 2], u: f64, v: f64, c: f64) -> f64 {
    let dx = b[0] - a[0];
    let dy = b[1] - a[1];
    (u * dy - v * dx).abs() + c * (dx * dx + dy * dy).sqrt()
}

/// The pressure of a state.
#[device]
#[inline(always)]
pub fn pressure(gm1: f64, q: &[f64; 4]) -> f64 {
    let ri = 1.0 / q[0];
    gm1 * (q[3] - 0.5 * ri * (q[1] * q[1] + q[2] * q[2]))
}

/// The flux through an interior edge: central with scalar dissipation
/// `mu = eps (adt1 + adt2) / 2`, added to the first cell's residual and
/// taken from the second's.
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn res_calc(
    gas: Gas,
    x1: &[f64; 2],
    x2: &[f64; 2],
    q1: &[f64; 4],
    q2: &[f64; 4],
    adt1: &f64,
    adt2: &f64,
    res1: &mut [f64; 4],
    res2: &mut [f64; 4],
) {
    let (gm1, eps) = (gas[1], gas[3]);
    let dx = x1[0] - x2[0];
    let dy = x1[1] - x2[1];
    let ri1 = 1.0 / q1[0];
    let p1 = gm1 * (q1[3] - 0.5 * ri1 * (q1[1] * q1[1] + q1[2] * q1[2]));
    let vol1 = ri1 * (q1[1] * dy - q1[2] * dx);
    let ri2 = 1.0 / q2[0];
    let p2 = gm1 * (q2[3] - 0.5 * ri2 * (q2[1] * q2[1] + q2[2] * q2[2]));
    let vol2 = ri2 * (q2[1] * dy - q2[2] * dx);
    let mu = 0.5 * (*adt1 + *adt2) * eps;
    let f0 = 0.5 * (vol1 * q1[0] + vol2 * q2[0]) + mu * (q1[0] - q2[0]);
    res1[0] += f0;
    res2[0] -= f0;
    let f1 = 0.5 * (vol1 * q1[1] + p1 * dy + vol2 * q2[1] + p2 * dy) + mu * (q1[1] - q2[1]);
    res1[1] += f1;
    res2[1] -= f1;
    let f2 = 0.5 * (vol1 * q1[2] - p1 * dx + vol2 * q2[2] - p2 * dx) + mu * (q1[2] - q2[2]);
    res1[2] += f2;
    res2[2] -= f2;
    let f3 = 0.5 * (vol1 * (q1[3] + p1) + vol2 * (q2[3] + p2)) + mu * (q1[3] - q2[3]);
    res1[3] += f3;
    res2[3] -= f3;
}

/// The flux through a boundary edge: the wall's pressure force (flag 1), or
/// the interior-edge flux against the free stream `qinf` (far field).
#[device]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn bres_calc(
    gas: Gas,
    qinf: [f64; 4],
    x1: &[f64; 2],
    x2: &[f64; 2],
    q1: &[f64; 4],
    adt1: &f64,
    bound: &i32,
    res1: &mut [f64; 4],
) {
    let (gm1, eps) = (gas[1], gas[3]);
    let dx = x1[0] - x2[0];
    let dy = x1[1] - x2[1];
    let ri1 = 1.0 / q1[0];
    let p1 = gm1 * (q1[3] - 0.5 * ri1 * (q1[1] * q1[1] + q1[2] * q1[2]));
    if *bound == 1 {
        res1[1] += p1 * dy;
        res1[2] += -p1 * dx;
    } else {
        let vol1 = ri1 * (q1[1] * dy - q1[2] * dx);
        let ri2 = 1.0 / qinf[0];
        let p2 = gm1 * (qinf[3] - 0.5 * ri2 * (qinf[1] * qinf[1] + qinf[2] * qinf[2]));
        let vol2 = ri2 * (qinf[1] * dy - qinf[2] * dx);
        let mu = *adt1 * eps;
        let f0 = 0.5 * (vol1 * q1[0] + vol2 * qinf[0]) + mu * (q1[0] - qinf[0]);
        res1[0] += f0;
        let f1 = 0.5 * (vol1 * q1[1] + p1 * dy + vol2 * qinf[1] + p2 * dy) + mu * (q1[1] - qinf[1]);
        res1[1] += f1;
        let f2 = 0.5 * (vol1 * q1[2] - p1 * dx + vol2 * qinf[2] - p2 * dx) + mu * (q1[2] - qinf[2]);
        res1[2] += f2;
        let f3 = 0.5 * (vol1 * (q1[3] + p1) + vol2 * (qinf[3] + p2)) + mu * (q1[3] - qinf[3]);
        res1[3] += f3;
    }
}

/// The explicit update `q = qold - res / adt`; clears the residual and adds
/// the squared changes to `rms`; `bad` becomes 1 where the new state is not
/// physical (density or pressure not above 0, or not finite).
#[device]
#[inline(always)]
pub fn update(
    qold: &[f64; 4],
    q: &mut [f64; 4],
    res: &mut [f64; 4],
    adt: &f64,
    rms: &mut f64,
    bad: &mut f64,
) {
    let adti = 1.0 / *adt;
    for n in 0..4 {
        let del = adti * res[n];
        q[n] = qold[n] - del;
        res[n] = 0.0;
        *rms += del * del;
    }
    // p > 0 is 2 rho E > |rho v|^2 (rho > 0): no division. A NaN fails
    // every comparison.
    let fine = q[0] > 0.0 && 2.0 * q[0] * q[3] > q[1] * q[1] + q[2] * q[2] && q[3].is_finite();
    if !fine {
        *bad = 1.0;
    }
}
