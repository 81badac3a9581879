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
//!   else computed from the stencil. Each element's 4 cells are 4-wide
//!   vectors (no shuffles: along y the lanes never meet), AVX registers
//!   where the runner runs its AVX2 build, compiled for AVX-512 where the
//!   processor has it (`lines_y.rs`, `lanes.rs`).
//!
//! The step's last sweep along x also measures the step ([`residue`]),
//! an element at a time in the same vectors.
//!
//! Every value is the element kernels' expression with the same operands
//! in the same order, so the new states are their bits exactly, wherever
//! a line or a call starts. The CPU backends run these; OpenCL runs the
//! element loops.

use qflow_par::{LineOffsets, LineRead, LineWrite};

use crate::kernels::{ghost_values, region2, residue, source_row, switch, Cells};
use crate::lanes::{Lanes, V};
use crate::lines_y::{sweep_y, Rows};

/// Elements a row is marched in at a time: each pass over a chunk reads
/// and writes buffers that stay in the L1 cache.
pub const CHUNK: usize = 16;
/// Cells of a chunk's buffers: its elements and one each side.
const NW: usize = 4 * (CHUNK + 2);

/// Four components of the cells of a chunk (value `c` of cell `t` at
/// `[c][t]`).
type Comps = [[f64; NW]; 4];

/// The line loops' scratch (made once for all the lines of a call): the
/// x sweeps' chunk buffers, and what the y sweeps carry from a row to the
/// next.
pub struct Lines {
    /// States, then their new values.
    a: Comps,
    /// Switches.
    th: [f64; NW],
    /// The filter's coefficients.
    k: [f64; NW],
    /// Filtered states.
    w: Comps,
    /// Their fluxes.
    f: Comps,
    /// Half-point fluxes.
    g: Comps,
    /// The y sweeps' rows.
    rows: Rows,
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
            th: [0.0; NW],
            k: [0.0; NW],
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
        assert!((1..=CHUNK).contains(&m));
        for (s, e) in u
            .values(first..first + m + 2, -1, row, 0)
            .iter()
            .enumerate()
        {
            put(&mut self.a, 4 * s, e);
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
    #[cfg(target_arch = "x86_64")]
    if qflow_par::kernel::use_avx2() {
        return sweep_x_in::<crate::lanes::avx::Avx, CONS>(
            gas, sweep, bc, kind, u, out, u0, lines, change, bad,
        );
    }
    sweep_x_in::<V, CONS>(gas, sweep, bc, kind, u, out, u0, lines, change, bad)
}

/// [`sweep_x`] with the vectors `L` (for the copies out and the measure).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn sweep_x_in<L: Lanes, const CONS: bool>(
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
    // The line's maxima: the edges' in scalars, the other elements' per
    // lane (a max is the same in any order).
    let (mut most, mut worst) = (*change, *bad);
    let (mut most4, mut bad4) = (L::splat(0.0), L::splat(0.0));
    let mut first = 0;
    while first < n {
        let m = CHUNK.min(n - first);
        if ky <= 0 {
            lines.x_chunk::<CONS>(kind, u, first, m, row, consts);
        }
        let dst = out.values_mut(first..first + m);
        for (j, d) in dst.iter_mut().enumerate() {
            let k = first + j;
            // Only a line's ends can be ghost columns; the ghost rows are
            // not measured.
            if ky != 0 || k == 0 || k + 1 == n {
                let o = if ky > 0 {
                    region2(bc)
                } else {
                    take(&lines.a, 4 * (j + 1))
                };
                let kd = kind.get(k);
                let v = ghost_values(&kd, &o, bc);
                if let Some(u0) = u0 {
                    residue(&kd, &u0.get(k), &v, &mut most, &mut worst);
                }
                *d = v;
            } else {
                let t = 4 * (j + 1);
                let a = &lines.a;
                let q = [
                    L::load(&a[0][t..]),
                    L::load(&a[1][t..]),
                    L::load(&a[2][t..]),
                    L::load(&a[3][t..]),
                ];
                for c in 0..4 {
                    q[c].store(&mut d[4 * c..]);
                }
                if let Some(u0) = u0 {
                    L::residue(&q, L::load(&u0.get(k)[..4]), &mut most4, &mut bad4);
                }
            }
        }
        first += m;
    }
    let (m4, b4) = L::measured(most4, bad4);
    *change = if m4 > most { m4 } else { most };
    *bad = if b4 && worst < 1.0 { 1.0 } else { worst };
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
            sweep_y::<$cons>(gas, sweep, &bc, &kind, &u, &mut out, &mut lines.rows);
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
