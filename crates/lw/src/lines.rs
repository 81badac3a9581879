//! Whole sweeps as line loops (the layer's line loops, [`qflow_par::Axis`]):
//! each sweep is ONE loop from one state dat into another, the artificial
//! viscosity filter computed on the fly (the filtered states are never
//! stored), so that a sweep reads its state and writes the new one once,
//! and every cell's switch, filtered state, flux and every interface's
//! half-point flux is computed once (the element loops of
//! [`crate::kernels`] compute a filter loop's result into `w` and, in the
//! update, an element's and its neighbours' fluxes and both its
//! interfaces).
//!
//! - **Along x** ([`sweep_x_paper`], ...): one call per row, marched
//!   [`CHUNK`] elements at a time through buffers that stay in the L1
//!   cache, component by component along x (value `c` of cell `t` at
//!   `[c][t]`), so that each pass is a plain loop the compiler makes vector
//!   code of and the neighbour along x is the next cell.
//! - **Along y** ([`sweep_y_paper_to_u`], ...): also one call per *row*
//!   (a line loop along x), the row's new values from the rows around it;
//!   what a row shares with the next one up (its filtered state, flux,
//!   half-point flux below and switches) is kept in [`Lines`] and reused
//!   when the call's next row is that one (as the serial backend, a
//!   thread's task or a rank's part of the rows runs them, bottom to top),
//!   else computed from the stencil. Each element's operations run lane by
//!   lane on its 4 cells (4-wide vector code, no shuffles: along y the
//!   lanes never meet).
//!
//! Every value is the element kernels' expression with the same operands
//! in the same order, so the new states are their bits exactly, wherever
//! a line or a call starts. The CPU backends run these; OpenCL runs the
//! element loops.

use qflow_par::{LineOffsets, LineRead, LineWrite};

use crate::kernels::{ghost_values, region2, residue, source_row, switch, Cells};

/// Elements a row is marched in at a time: each pass over a chunk reads
/// and writes buffers that stay in the L1 cache.
pub const CHUNK: usize = 16;
/// Cells of a chunk's buffers: its elements and one each side.
const NW: usize = 4 * (CHUNK + 2);

/// Four components of the cells of a chunk (value `c` of cell `t` at
/// `[c][t]`).
type Comps = [[f64; NW]; 4];

/// The line loops' scratch (made once for all the lines of a call): a
/// chunk's buffers, and what the y sweeps carry from a row to the next.
pub struct Lines {
    /// States (along y: the source row's).
    a: Comps,
    /// Along y: the states of the row above.
    b: Comps,
    /// Along y: the states two rows up.
    c: Comps,
    /// Along y, a row's start: the states two rows below.
    d: Comps,
    /// Densities (along y: three rows up), then the switches.
    th: [f64; NW],
    /// Along y: switches (or densities).
    t2: [f64; NW],
    /// The filter's coefficients (along y: below the cells).
    k: [f64; NW],
    /// Along y: the filter's coefficients above the cells.
    k2: [f64; NW],
    /// Filtered states.
    w: Comps,
    /// Their fluxes.
    f: Comps,
    /// Half-point fluxes.
    g: Comps,
    /// The y sweeps' rows.
    rows: Rows,
}

/// What a y sweep carries from row `s` to row `s + 1` of its line loop,
/// for each cell of the row, component by component (`[c][t]`, `t` the
/// cell's place in the row): `w_s`, `F(w_s)`, `G_{s-1/2}` (the half-point
/// flux below) and the switches `theta_s`, `theta_{s+1}`.
#[derive(Default)]
struct Rows {
    /// The local index of the first element of the row these are for
    /// (`None`: nothing kept).
    at: Option<isize>,
    w: [Vec<f64>; 4],
    f: [Vec<f64>; 4],
    g: [Vec<f64>; 4],
    t0: Vec<f64>,
    t1: Vec<f64>,
}

impl Rows {
    /// Room for rows of `n` cells.
    fn resize(&mut self, n: usize) {
        for v in self.w.iter_mut().chain(&mut self.f).chain(&mut self.g) {
            v.resize(n, 0.0);
        }
        self.t0.resize(n, 0.0);
        self.t1.resize(n, 0.0);
    }
}

impl Default for Lines {
    fn default() -> Lines {
        Lines::new()
    }
}

/// The switches `th` of cells `z` between `m` and `p` (densities).
#[inline(always)]
fn switches_into(th: &mut [f64], m: &[f64], z: &[f64], p: &[f64]) {
    let n = th.len();
    let (m, z, p) = (&m[..n], &z[..n], &p[..n]);
    for i in 0..n {
        th[i] = switch(m[i], z[i], p[i]);
    }
}

/// The conservative filter's coefficient of a face between cells with
/// switches `a` and `b`: `c max(a, b)`; the paper's of a cell: `c theta`
/// (`b` unused).
#[inline(always)]
fn coefficients_into<const CONS: bool>(k: &mut [f64], a: &[f64], b: &[f64], c: f64) {
    let n = k.len();
    let a = &a[..n];
    if CONS {
        let b = &b[..n];
        for i in 0..n {
            k[i] = c * a[i].max(b[i]);
        }
    } else {
        for i in 0..n {
            k[i] = c * a[i];
        }
    }
}

/// One component of the filter of cells `z` between `m` and `p`: the
/// conservative one with the coefficients of the faces above (`kp`) and
/// below (`km`), [`crate::kernels::filter_conservative`]; the paper's with
/// the cells' (`kp`), [`crate::kernels::filter_paper`].
#[inline(always)]
fn filter_into<const CONS: bool>(
    w: &mut [f64],
    m: &[f64],
    z: &[f64],
    p: &[f64],
    kp: &[f64],
    km: &[f64],
) {
    let n = w.len();
    let (m, z, p, kp) = (&m[..n], &z[..n], &p[..n], &kp[..n]);
    if CONS {
        let km = &km[..n];
        for i in 0..n {
            w[i] = z[i] + (kp[i] * (p[i] - z[i]) - km[i] * (z[i] - m[i]));
        }
    } else {
        for i in 0..n {
            w[i] = z[i] + kp[i] * (p[i] - 2.0 * z[i] + m[i]);
        }
    }
}

/// [`crate::kernels::flux`] along x (`Y` false) or y of the states `q`
/// into `f`, its operations in its order.
#[inline(always)]
fn flux<const Y: bool>([rho, mx, my, e]: [f64; 4], gm1: f64) -> [f64; 4] {
    let u = mx / rho;
    let v = my / rho;
    let p = gm1 * (e - 0.5 * rho * (u * u + v * v));
    let ru = rho * u;
    if Y {
        [my, ru * v, rho * v * v + p, (e + p) * v]
    } else {
        [mx, ru * u + p, ru * v, (e + p) * u]
    }
}

/// [`flux`] of the cells `q[.][range]` into `f[.][range]`.
#[inline(always)]
fn fluxes_into<const Y: bool>(f: &mut Comps, q: &Comps, range: std::ops::Range<usize>, gm1: f64) {
    let [f0, f1, f2, f3] = f;
    for t in range {
        let g = flux::<Y>([q[0][t], q[1][t], q[2][t], q[3][t]], gm1);
        f0[t] = g[0];
        f1[t] = g[1];
        f2[t] = g[2];
        f3[t] = g[3];
    }
}

/// The flux `g` of the half-point states between cells `a` and `b` (fluxes
/// `fa`, `fb`), `h = (a + b)/2 - (r/2) (fb - fa)` with `hr = r/2`
/// ([`crate::kernels::richtmyer`]), for `n` cells: `a`, `fa` from `[.][ia]`,
/// `b`, `fb` from `[.][ib]`, `g` into `[.][ig]`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn half_fluxes_into<const Y: bool>(
    g: &mut [&mut [f64]; 4],
    a: [&[f64]; 4],
    b: [&[f64]; 4],
    fa: [&[f64]; 4],
    fb: [&[f64]; 4],
    hr: f64,
    gm1: f64,
) {
    let n = g[0].len();
    let a = a.map(|x| &x[..n]);
    let b = b.map(|x| &x[..n]);
    let fa = fa.map(|x| &x[..n]);
    let fb = fb.map(|x| &x[..n]);
    let [g0, g1, g2, g3] = g;
    let (g1, g2, g3) = (&mut g1[..n], &mut g2[..n], &mut g3[..n]);
    for i in 0..n {
        let mut h = [0.0; 4];
        for c in 0..4 {
            h[c] = 0.5 * (a[c][i] + b[c][i]) - hr * (fb[c][i] - fa[c][i]);
        }
        let v = flux::<Y>(h, gm1);
        g0[i] = v[0];
        g1[i] = v[1];
        g2[i] = v[2];
        g3[i] = v[3];
    }
}

/// Copies element `e`'s 4 cells into cells `t .. t + 4` of `q`.
#[inline(always)]
fn put(q: &mut Comps, t: usize, e: &Cells) {
    for c in 0..4 {
        for l in 0..4 {
            q[c][t + l] = e[4 * c + l];
        }
    }
}

/// Cells `t .. t + 4` of `q` as an element.
#[inline(always)]
fn take(q: &Comps, t: usize) -> Cells {
    let mut e = [0.0; 16];
    for c in 0..4 {
        for l in 0..4 {
            e[4 * c + l] = q[c][t + l];
        }
    }
    e
}

/// Mutable views of `[.][range]`.
#[inline(always)]
fn parts(q: &mut Comps, range: std::ops::Range<usize>) -> [&mut [f64]; 4] {
    let [a, b, c, d] = q;
    [
        &mut a[range.clone()],
        &mut b[range.clone()],
        &mut c[range.clone()],
        &mut d[range],
    ]
}

/// Views of `[.][from..]`.
#[inline(always)]
fn from(q: &Comps, from: usize) -> [&[f64]; 4] {
    [&q[0][from..], &q[1][from..], &q[2][from..], &q[3][from..]]
}

impl Lines {
    /// Zeroed buffers.
    pub fn new() -> Lines {
        Lines {
            a: [[0.0; NW]; 4],
            b: [[0.0; NW]; 4],
            c: [[0.0; NW]; 4],
            d: [[0.0; NW]; 4],
            th: [0.0; NW],
            t2: [0.0; NW],
            k: [0.0; NW],
            k2: [0.0; NW],
            w: [[0.0; NW]; 4],
            f: [[0.0; NW]; 4],
            g: [[0.0; NW]; 4],
            rows: Rows::default(),
        }
    }

    /// The new values (along x) of elements `first .. first + m` of the
    /// line (`m <= CHUNK`), the cells `row` rows up, into `self.a[.][4 ..
    /// 4 (m + 1)]`: the filter (`c = eta/2`; ghost columns keep their
    /// state), the fluxes, the half-point states and their fluxes, and the
    /// Richtmyer update.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn x_chunk<const CONS: bool>(
        &mut self,
        kind: &LineRead<'_, [i32; 2]>,
        u: &LineOffsets<'_, Cells>,
        first: usize,
        m: usize,
        row: i32,
        [c, r, gm1]: [f64; 3],
    ) {
        assert!(m >= 1 && m <= CHUNK);
        for s in 0..m + 2 {
            let e = u.at(first as isize + s as isize - 1).at(0, row, 0);
            put(&mut self.a, 4 * s, &e);
        }
        // Filtered states are needed at cells 3 ..= last (the element's
        // cells and one each side); their switches one further.
        let last = 4 * m + 4;
        let q = &self.a;
        if CONS {
            switches_into(
                &mut self.th[2..last + 2],
                &q[0][1..],
                &q[0][2..],
                &q[0][3..],
            );
            // k[t]: c theta_{t+1/2}, the coefficient of face t | t + 1.
            coefficients_into::<true>(&mut self.k[2..last + 1], &self.th[2..], &self.th[3..], c);
        } else {
            switches_into(
                &mut self.th[3..last + 1],
                &q[0][2..],
                &q[0][3..],
                &q[0][4..],
            );
            coefficients_into::<false>(&mut self.k[3..last + 1], &self.th[3..], &[], c);
        }
        // The filtered states and their fluxes, cells 3 ..= last.
        {
            let n = last - 2;
            let um = from(q, 2).map(|x| &x[..n]);
            let uz = from(q, 3).map(|x| &x[..n]);
            let up = from(q, 4).map(|x| &x[..n]);
            let (kp, km) = (&self.k[3..3 + n], &self.k[2..2 + n]);
            let w = parts(&mut self.w, 3..last + 1).map(|x| &mut x[..n]);
            let f = parts(&mut self.f, 3..last + 1).map(|x| &mut x[..n]);
            for i in 0..n {
                let mut v = [0.0; 4];
                for c in 0..4 {
                    let (a, z, p) = (um[c][i], uz[c][i], up[c][i]);
                    v[c] = if CONS {
                        z + (kp[i] * (p - z) - km[i] * (z - a))
                    } else {
                        z + kp[i] * (p - 2.0 * z + a)
                    };
                    w[c][i] = v[c];
                }
                let g = flux::<false>(v, gm1);
                for c in 0..4 {
                    f[c][i] = g[c];
                }
            }
        }
        // The ghost columns keep their states (their neighbours' filters
        // read them; their own updates are replaced by boundary values).
        let mut keep = |t: usize| {
            let v = [q[0][t], q[1][t], q[2][t], q[3][t]];
            let g = flux::<false>(v, gm1);
            for c in 0..4 {
                self.w[c][t] = v[c];
                self.f[c][t] = g[c];
            }
        };
        if kind.get(first)[0] < 0 {
            keep(4);
            keep(5);
        }
        if kind.get(first + m - 1)[0] > 0 {
            keep(4 * m + 2);
            keep(4 * m + 3);
        }
        // Face t between cells t and t + 1, for t in 3 .. last.
        let (w, f) = (&self.w, &self.f);
        let mut g = parts(&mut self.g, 3..last);
        half_fluxes_into::<false>(
            &mut g,
            from(w, 3),
            from(w, 4),
            from(f, 3),
            from(f, 4),
            0.5 * r,
            gm1,
        );
        let n = last - 4;
        let w = from(w, 4).map(|x| &x[..n]);
        let gp = from(&self.g, 4).map(|x| &x[..n]);
        let gm = from(&self.g, 3).map(|x| &x[..n]);
        let o = parts(&mut self.a, 4..last).map(|x| &mut x[..n]);
        for i in 0..n {
            for c in 0..4 {
                o[c][i] = w[c][i] - r * (gp[c][i] - gm[c][i]);
            }
        }
    }
}

/// A sweep along x of a row: the new values of its elements into `out`;
/// with `u0` (the step's last sweep) each also measured against it
/// ([`residue`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn sweep_x<const CONS: bool>(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: &[f64; 9],
    kind: &LineRead<'_, [i32; 2]>,
    u: &LineOffsets<'_, Cells>,
    out: &mut LineWrite<'_, Cells>,
    u0: Option<&LineRead<'_, Cells>>,
    lines: &mut Lines,
    change: &mut f64,
    bad: &mut f64,
) {
    let n = kind.len();
    if n == 0 {
        return;
    }
    let consts = [sweep[2], sweep[0], gas[1]];
    // A row's elements share their `ky`.
    let ky = kind.get(0)[1];
    let row = if ky < 0 { source_row(ky, bc) } else { 0 };
    let mut first = 0;
    while first < n {
        let m = CHUNK.min(n - first);
        if ky <= 0 {
            lines.x_chunk::<CONS>(kind, u, first, m, row, consts);
        }
        for j in 0..m {
            let k = first + j;
            let kd = kind.get(k);
            let o = if ky > 0 {
                region2(bc)
            } else {
                take(&lines.a, 4 * (j + 1))
            };
            let v = ghost_values(&kd, &o, bc);
            if let Some(u0) = u0 {
                residue(&kd, &u0.get(k), &v, change, bad);
            }
            out.set(k, v);
        }
        first += m;
    }
}

/// The filter along y of `n` cells of the rows `z` between `m` and `p`
/// into `w`: the conservative one with the switches `tm`, `t0`, `tp` of
/// the rows (`k`, `k2`: scratch for the faces' coefficients below and
/// above), or the paper's (its own switches).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn filter_rows<const CONS: bool>(
    w: &mut Comps,
    [m, z, p]: [&Comps; 3],
    [tm, t0, tp]: [&[f64]; 3],
    k: &mut [f64; NW],
    k2: &mut [f64; NW],
    c: f64,
    n: usize,
) {
    if CONS {
        coefficients_into::<true>(&mut k[..n], tm, t0, c);
        coefficients_into::<true>(&mut k2[..n], t0, tp, c);
    } else {
        switches_into(&mut k[..n], &m[0], &z[0], &p[0]);
        coefficients_into::<false>(&mut k2[..n], &k[..], &[], c);
    }
    for (wq, ((mq, zq), pq)) in w.iter_mut().zip(m.iter().zip(z).zip(p)) {
        filter_into::<CONS>(&mut wq[..n], mq, zq, pq, &k2[..], &k[..]);
    }
}

impl Lines {
    /// Loads element `e`'s densities into `d[t .. t + 4]`.
    #[inline(always)]
    fn densities(d: &mut [f64; NW], t: usize, e: &Cells) {
        d[t..t + 4].copy_from_slice(&e[0..4]);
    }

    /// What [`Rows`] keeps for the source row (`row` rows up from the
    /// line's) of elements `first .. first + m` of the line, computed from
    /// the stencil (the expressions of [`Lines::y_chunk`]): the filtered
    /// states of the row and the one below, their fluxes, the half-point
    /// flux between them and the switches of the row and the one above.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn y_start<const CONS: bool>(
        &mut self,
        u: &LineOffsets<'_, Cells>,
        first: usize,
        m: usize,
        row: i32,
        below: bool,
        [c, r, gm1]: [f64; 3],
    ) {
        assert!(m >= 1 && m <= CHUNK);
        let n = 4 * m;
        let cells = 4 * first..4 * first + n;
        // Rows s - 2 (d), s - 1 (a), s
        // (b), s + 1 (c); densities of s - 3 (th) and s + 2 (t2).
        for j in 0..m {
            let e = u.at((first + j) as isize);
            // (The conservative filter of row s needs theta_{s-1}.)
            if below || CONS {
                put(&mut self.d, 4 * j, &e.at(0, row - 2, 0));
            }
            if below && CONS {
                Self::densities(&mut self.th, 4 * j, &e.at(0, row - 3, 0));
            }
            put(&mut self.a, 4 * j, &e.at(0, row - 1, 0));
            put(&mut self.b, 4 * j, &e.at(0, row, 0));
            put(&mut self.c, 4 * j, &e.at(0, row + 1, 0));
            if CONS {
                Self::densities(&mut self.t2, 4 * j, &e.at(0, row + 2, 0));
            }
        }
        // theta_{s-2}, theta_{s-1}, theta_s, theta_{s+1}.
        let mut th = [[0.0; NW]; 4];
        if CONS {
            if below {
                switches_into(&mut th[0][..n], &self.th, &self.d[0], &self.a[0]);
            }
            switches_into(&mut th[1][..n], &self.d[0], &self.a[0], &self.b[0]);
            switches_into(&mut th[2][..n], &self.a[0], &self.b[0], &self.c[0]);
            switches_into(&mut th[3][..n], &self.b[0], &self.c[0], &self.t2);
        }
        let [t_2, t_1, t0, t1] = &th;
        // The row below: filtered if the grid's.
        let mut wm = self.a;
        if below {
            let rows3 = [&self.d, &self.a, &self.b];
            filter_rows::<CONS>(
                &mut wm,
                rows3,
                [t_2, t_1, t0],
                &mut self.k,
                &mut self.k2,
                c,
                n,
            );
        }
        let rows3 = [&self.a, &self.b, &self.c];
        filter_rows::<CONS>(
            &mut self.w,
            rows3,
            [t_1, t0, t1],
            &mut self.k,
            &mut self.k2,
            c,
            n,
        );
        let mut fm = [[0.0; NW]; 4];
        fluxes_into::<true>(&mut fm, &wm, 0..n, gm1);
        fluxes_into::<true>(&mut self.f, &self.w, 0..n, gm1);
        let rows = &mut self.rows;
        let [g0, g1, g2, g3] = &mut rows.g;
        let mut g = [g0, g1, g2, g3].map(|v| &mut v[cells.clone()][..n]);
        let (w, f) = (from(&self.w, 0), from(&self.f, 0));
        half_fluxes_into::<true>(&mut g, from(&wm, 0), w, from(&fm, 0), f, 0.5 * r, gm1);
        for i in 0..4 {
            rows.w[i][cells.clone()].copy_from_slice(&self.w[i][..n]);
            rows.f[i][cells.clone()].copy_from_slice(&self.f[i][..n]);
        }
        rows.t0[cells.clone()].copy_from_slice(&t0[..n]);
        rows.t1[cells].copy_from_slice(&t1[..n]);
    }

    /// The new values along y of the source row's elements `first ..
    /// first + m` (`m <= CHUNK`; `row` rows up from the line's) into
    /// `self.w[.][0 .. 4 m]`, from [`Rows`] (for this row) and the rows
    /// above (`above`: whether the next is the grid's), moving [`Rows`] on
    /// to the next row.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn y_chunk<const CONS: bool>(
        &mut self,
        u: &LineOffsets<'_, Cells>,
        first: usize,
        m: usize,
        row: i32,
        above: bool,
        [c, r, gm1]: [f64; 3],
    ) {
        assert!(m >= 1 && m <= CHUNK);
        let n = 4 * m;
        let cells = 4 * first..4 * first + n;
        for j in 0..m {
            let e = u.at((first + j) as isize);
            put(&mut self.a, 4 * j, &e.at(0, row, 0));
            put(&mut self.b, 4 * j, &e.at(0, row + 1, 0));
            if above {
                put(&mut self.c, 4 * j, &e.at(0, row + 2, 0));
                if CONS {
                    Self::densities(&mut self.th, 4 * j, &e.at(0, row + 3, 0));
                }
            }
        }
        let rows = &mut self.rows;
        let r3 = &self.th[..n];
        let qa = from(&self.a, 0).map(|x| &x[..n]);
        let qb = from(&self.b, 0).map(|x| &x[..n]);
        let qc = from(&self.c, 0).map(|x| &x[..n]);
        let [w0, w1, w2, w3] = &mut rows.w;
        let w = [w0, w1, w2, w3].map(|v| &mut v[cells.clone()][..n]);
        let [f0, f1, f2, f3] = &mut rows.f;
        let f = [f0, f1, f2, f3].map(|v| &mut v[cells.clone()][..n]);
        let [g0, g1, g2, g3] = &mut rows.g;
        let g = [g0, g1, g2, g3].map(|v| &mut v[cells.clone()][..n]);
        let (t0, t1) = (&mut rows.t0[cells.clone()][..n], &mut rows.t1[cells][..n]);
        let o = parts(&mut self.w, 0..n).map(|x| &mut x[..n]);
        let hr = 0.5 * r;
        for i in 0..n {
            let q1 = [qb[0][i], qb[1][i], qb[2][i], qb[3][i]];
            // w_{s+1}: filtered if row s + 1 is the grid's.
            let mut wn = q1;
            if above {
                let q0 = [qa[0][i], qa[1][i], qa[2][i], qa[3][i]];
                let q2 = [qc[0][i], qc[1][i], qc[2][i], qc[3][i]];
                let (kp, km) = if CONS {
                    // theta_{s+2} from the densities three rows up.
                    let t2 = switch(q1[0], q2[0], r3[i]);
                    let (x0, x1) = (t0[i], t1[i]);
                    t0[i] = x1;
                    t1[i] = t2;
                    (c * x1.max(t2), c * x0.max(x1))
                } else {
                    (c * switch(q0[0], q1[0], q2[0]), 0.0)
                };
                for k in 0..4 {
                    let (a, z, p) = (q0[k], q1[k], q2[k]);
                    wn[k] = if CONS {
                        z + (kp * (p - z) - km * (z - a))
                    } else {
                        z + kp * (p - 2.0 * z + a)
                    };
                }
            }
            let fn_ = flux::<true>(wn, gm1);
            let mut h = [0.0; 4];
            for k in 0..4 {
                h[k] = 0.5 * (w[k][i] + wn[k]) - hr * (fn_[k] - f[k][i]);
            }
            let gn = flux::<true>(h, gm1);
            for k in 0..4 {
                o[k][i] = w[k][i] - r * (gn[k] - g[k][i]);
                w[k][i] = wn[k];
                f[k][i] = fn_[k];
                g[k][i] = gn[k];
            }
        }
    }
}

/// A sweep along y of a row: its new values into `out`, from the state
/// `u` (`sweep[1] = dt/2 / dy`, `sweep[3] = eta_y / 2`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn sweep_y<const CONS: bool>(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: &[f64; 9],
    kind: &LineOffsets<'_, [i32; 2]>,
    u: &LineOffsets<'_, Cells>,
    out: &mut LineWrite<'_, Cells>,
    lines: &mut Lines,
) {
    let n = kind.len();
    if n == 0 {
        return;
    }
    let ky = kind.at(0).at(0, 0, 0)[1];
    if ky > 0 {
        for k in 0..n {
            out.set(
                k,
                ghost_values(&kind.at(k as isize).at(0, 0, 0), &region2(bc), bc),
            );
        }
        return;
    }
    let consts = [sweep[3], sweep[1], gas[1]];
    let row = if ky < 0 { source_row(ky, bc) } else { 0 };
    let (origin, sy, _) = u.origin();
    let at = origin + row as isize * sy;
    // Whether the rows below and above the source row are the grid's
    // (else ghost rows, which the filter leaves as they are).
    let below = kind.at(0).at(0, row - 1, 0)[1] == 0;
    let above = kind.at(0).at(0, row + 1, 0)[1] == 0;
    let start = lines.rows.at != Some(at) || lines.rows.t0.len() != 4 * n;
    if start {
        lines.rows.resize(4 * n);
    }
    let mut first = 0;
    while first < n {
        let m = CHUNK.min(n - first);
        if start {
            lines.y_start::<CONS>(u, first, m, row, below, consts);
        }
        lines.y_chunk::<CONS>(u, first, m, row, above, consts);
        for j in 0..m {
            let kd = kind.at((first + j) as isize).at(0, 0, 0);
            out.set(first + j, ghost_values(&kd, &take(&lines.w, 4 * j), bc));
        }
        first += m;
    }
    lines.rows.at = if above { Some(at + sy) } else { None };
}

macro_rules! sweep_x_kernels {
    ($($(#[$m:meta])* $name:ident, $cons:literal;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name(
            gas: [f64; 2],
            sweep: [f64; 4],
            bc: [f64; 9],
            kind: LineRead<'_, [i32; 2]>,
            u: LineOffsets<'_, Cells>,
            mut out: LineWrite<'_, Cells>,
            lines: &mut Lines,
        ) {
            let (mut change, mut bad) = (0.0, 0.0);
            sweep_x::<$cons>(
                gas, sweep, &bc, &kind, &u, &mut out, None, lines, &mut change, &mut bad,
            );
        }
    )*};
}

sweep_x_kernels! {
    /// The step's first sweep along x with the paper's filter, a row.
    sweep_x_paper, false;
    /// The step's first sweep along x with the conservative filter, a row.
    sweep_x_conservative, true;
}

macro_rules! sweep_x_residue_kernels {
    ($($(#[$m:meta])* $name:ident, $cons:literal;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            gas: [f64; 2],
            sweep: [f64; 4],
            bc: [f64; 9],
            kind: LineRead<'_, [i32; 2]>,
            u: LineOffsets<'_, Cells>,
            u0: LineRead<'_, Cells>,
            mut out: LineWrite<'_, Cells>,
            lines: &mut Lines,
            change: &mut f64,
            bad: &mut f64,
        ) {
            sweep_x::<$cons>(gas, sweep, &bc, &kind, &u, &mut out, Some(&u0), lines, change, bad);
        }
    )*};
}

sweep_x_residue_kernels! {
    /// The step's last sweep along x with the paper's filter, a row,
    /// measuring the step ([`residue`]).
    sweep_x_residue_paper, false;
    /// The step's last sweep along x with the conservative filter, a row,
    /// measuring the step.
    sweep_x_residue_conservative, true;
}

macro_rules! sweep_y_kernels {
    ($($(#[$m:meta])* $name:ident, $cons:literal;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name(
            gas: [f64; 2],
            sweep: [f64; 4],
            bc: [f64; 9],
            kind: LineOffsets<'_, [i32; 2]>,
            u: LineOffsets<'_, Cells>,
            mut out: LineWrite<'_, Cells>,
            lines: &mut Lines,
        ) {
            sweep_y::<$cons>(gas, sweep, &bc, &kind, &u, &mut out, lines);
        }
    )*};
}

sweep_y_kernels! {
    /// A sweep along y with the paper's filter, a row (the step's first,
    /// into `u`).
    sweep_y_paper_to_u, false;
    /// A sweep along y with the paper's filter, a row (the step's second,
    /// into `w`).
    sweep_y_paper_to_w, false;
    /// A sweep along y with the conservative filter, a row, into `u`.
    sweep_y_conservative_to_u, true;
    /// A sweep along y with the conservative filter, a row, into `w`.
    sweep_y_conservative_to_w, true;
}
