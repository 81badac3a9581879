//! The y sweeps of [`crate::lines`]: a row per call, element by element,
//! each element's 4 cells as 4-wide vectors (along y the lanes never
//! meet, so no shuffles), carrying what a row shares with the next one up
//! in [`Rows`] (one record per element, read and written in order).
//!
//! Every value is [`crate::kernels`]' expression with the same operands
//! in the same order, lane by lane, so the bits are the element loops'.

use qflow_par::{LineOffsets, LineWrite};

use crate::kernels::{ghost_values, region2, source_row, switch, Cells};

/// One value of an element's 4 cells.
type V = [f64; 4];
/// A state of an element's 4 cells, component by component.
type S = [V; 4];

#[inline(always)]
fn splat(x: f64) -> V {
    [x; 4]
}

macro_rules! lanewise {
    ($($name:ident: |$a:ident, $b:ident| $e:expr;)*) => {$(
        #[inline(always)]
        fn $name(x: V, y: V) -> V {
            let mut o = [0.0; 4];
            for l in 0..4 {
                let ($a, $b) = (x[l], y[l]);
                o[l] = $e;
            }
            o
        }
    )*};
}

lanewise! {
    add: |a, b| a + b;
    sub: |a, b| a - b;
    mul: |a, b| a * b;
    div: |a, b| a / b;
    max: |a, b| a.max(b);
}

/// The switches of 4 cells from the densities below, at and above them.
#[inline(always)]
fn switches(m: V, z: V, p: V) -> V {
    let mut o = [0.0; 4];
    for l in 0..4 {
        o[l] = switch(m[l], z[l], p[l]);
    }
    o
}

/// An element's cells as a state.
#[inline(always)]
fn state(e: &Cells) -> S {
    let mut s = [[0.0; 4]; 4];
    for c in 0..4 {
        for l in 0..4 {
            s[c][l] = e[4 * c + l];
        }
    }
    s
}

/// A state as an element's cells.
#[inline(always)]
fn cells(s: &S) -> Cells {
    let mut e = [0.0; 16];
    for c in 0..4 {
        for l in 0..4 {
            e[4 * c + l] = s[c][l];
        }
    }
    e
}

/// The densities of an element's cells.
#[inline(always)]
fn rho(e: &Cells) -> V {
    [e[0], e[1], e[2], e[3]]
}

/// [`crate::kernels::flux`] along y.
#[inline(always)]
fn flux(q: &S, gm1: f64) -> S {
    let u = div(q[1], q[0]);
    let v = div(q[2], q[0]);
    let kin = mul(mul(splat(0.5), q[0]), add(mul(u, u), mul(v, v)));
    let p = mul(splat(gm1), sub(q[3], kin));
    let ru = mul(q[0], u);
    [
        q[2],
        mul(ru, v),
        add(mul(mul(q[0], v), v), p),
        mul(add(q[3], p), v),
    ]
}

/// The filter of `z` between `m` and `p`: conservative with the
/// coefficients of the faces above and below (`kp`, `km`), or the paper's
/// with the cells' (`kp`).
#[inline(always)]
fn filter<const CONS: bool>(m: &S, z: &S, p: &S, kp: V, km: V) -> S {
    let mut w = [[0.0; 4]; 4];
    for k in 0..4 {
        w[k] = if CONS {
            add(
                z[k],
                sub(mul(kp, sub(p[k], z[k])), mul(km, sub(z[k], m[k]))),
            )
        } else {
            add(z[k], mul(kp, add(sub(p[k], mul(splat(2.0), z[k])), m[k])))
        };
    }
    w
}

/// The flux of the half-point state between `a` (below) and `b` with
/// fluxes `fa`, `fb` (`hr = r/2`).
#[inline(always)]
fn half_flux(a: &S, b: &S, fa: &S, fb: &S, hr: f64, gm1: f64) -> S {
    let mut h = [[0.0; 4]; 4];
    for k in 0..4 {
        h[k] = sub(
            mul(splat(0.5), add(a[k], b[k])),
            mul(splat(hr), sub(fb[k], fa[k])),
        );
    }
    flux(&h, gm1)
}

/// What an element carries from row `s` to row `s + 1`: `w_s`, `F(w_s)`,
/// `G_{s-1/2}` and the switches `theta_s`, `theta_{s+1}`.
#[derive(Clone, Copy, Default)]
struct Carry {
    w: S,
    f: S,
    g: S,
    t: [V; 2],
}

/// What a y sweep carries from a row to the next, per element.
#[derive(Default)]
pub(crate) struct Rows {
    /// The local index of the first element of the row these are for
    /// (`None`: nothing kept).
    at: Option<isize>,
    carry: Vec<Carry>,
}

/// [`Carry`] of source row `s` (`row` rows up from the line's) for the
/// elements of the line, from the stencil (rows `s - 3 ..= s + 2`; `below`:
/// whether row `s - 1` is the grid's).
#[inline(always)]
fn start<const CONS: bool>(
    rows: &mut Rows,
    u: &LineOffsets<'_, Cells>,
    n: usize,
    row: i32,
    below: bool,
    [c, r, gm1]: [f64; 3],
) {
    rows.carry.resize(n, Carry::default());
    let v = |d: i32| u.values(0..n, 0, row + d, 0);
    let (e1, e0, ep) = (v(-1), v(0), v(1));
    // (The conservative filter of row s needs theta_{s-1}.)
    let e2 = if below || CONS { v(-2) } else { e1 };
    let e3 = if below && CONS { v(-3) } else { e1 };
    let ep2 = if CONS { v(2) } else { e1 };
    let c = splat(c);
    for (j, carry) in rows.carry.iter_mut().enumerate() {
        let (qm2, qm, q0, q1) = (state(&e2[j]), state(&e1[j]), state(&e0[j]), state(&ep[j]));
        let t_2 = switches(rho(&e3[j]), qm2[0], qm[0]);
        let t_1 = switches(qm2[0], qm[0], q0[0]);
        let t0 = switches(qm[0], q0[0], q1[0]);
        let t1 = switches(q0[0], q1[0], rho(&ep2[j]));
        let wm = if !below {
            qm
        } else if CONS {
            filter::<true>(&qm2, &qm, &q0, mul(c, max(t_1, t0)), mul(c, max(t_2, t_1)))
        } else {
            filter::<false>(&qm2, &qm, &q0, mul(c, t_1), c)
        };
        let w0 = if CONS {
            filter::<true>(&qm, &q0, &q1, mul(c, max(t0, t1)), mul(c, max(t_1, t0)))
        } else {
            filter::<false>(&qm, &q0, &q1, mul(c, t0), c)
        };
        let (fm, f0) = (flux(&wm, gm1), flux(&w0, gm1));
        *carry = Carry {
            w: w0,
            f: f0,
            g: half_flux(&wm, &w0, &fm, &f0, 0.5 * r, gm1),
            t: [t0, t1],
        };
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
        start::<CONS>(rows, u, n, row, below, [c, r, gm1]);
    }
    let v = |d: i32| u.values(0..n, 0, row + d, 0);
    let (e0, e1) = (v(0), v(1));
    let (e2, e3) = if above { (v(2), v(3)) } else { (e1, e1) };
    let (hr, c) = (0.5 * r, splat(c));
    for (j, (carry, d)) in rows.carry.iter_mut().zip(dst.iter_mut()).enumerate() {
        let q1 = state(&e1[j]);
        // w_{s+1}: filtered if row s + 1 is the grid's.
        let mut t2 = [0.0; 4];
        let wn = if !above {
            q1
        } else if CONS {
            let (q0, q2) = (state(&e0[j]), state(&e2[j]));
            t2 = switches(q1[0], q2[0], rho(&e3[j]));
            let [t0, t1] = carry.t;
            filter::<true>(&q0, &q1, &q2, mul(c, max(t1, t2)), mul(c, max(t0, t1)))
        } else {
            let (q0, q2) = (state(&e0[j]), state(&e2[j]));
            filter::<false>(&q0, &q1, &q2, mul(c, switches(q0[0], q1[0], q2[0])), c)
        };
        let fnew = flux(&wn, gm1);
        let gnew = half_flux(&carry.w, &wn, &carry.f, &fnew, hr, gm1);
        let mut o = [[0.0; 4]; 4];
        for k in 0..4 {
            o[k] = sub(carry.w[k], mul(splat(r), sub(gnew[k], carry.g[k])));
        }
        *carry = Carry {
            w: wn,
            f: fnew,
            g: gnew,
            t: [carry.t[1], t2],
        };
        let o = cells(&o);
        // Only a line's ends can be ghost columns.
        *d = if ky != 0 || j == 0 || j + 1 == n {
            ghost_values(&kind.at(j as isize).at(0, 0, 0), &o, bc)
        } else {
            o
        };
    }
    rows.at = if above { Some(at + sy) } else { None };
}
