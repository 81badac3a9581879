//! The Lax-Wendroff updates as line kernels (the layer's line loops,
//! [`qflow_par::Axis`]): each call updates a whole row (sweeps along x) or
//! column (along y) of elements, a chunk of elements at a time, computing
//! every cell's flux and every interface's half-point flux once, where the
//! element kernels of [`crate::kernels`] compute an element's and both its
//! neighbours' fluxes and both of its interfaces (2 to 3 times the
//! arithmetic).
//!
//! Each value is the element kernels' expression with the same operands
//! in the same order, so the new states are their bits exactly: the
//! half-point state between cells `a` and `b` is `(w_a + w_b)/2 - (r/2)
//! (F_b - F_a)` whether it is cell `b`'s left or cell `a`'s right
//! interface. A line may start anywhere (a rank's part, a piece of the
//! core): what a chunk needs from before it is computed from the stencil.
//! The CPU backends run these; OpenCL runs the element kernels.

use qflow_par::{LineOffsets, LineRead, LineWrite};

use crate::kernels::{ghost_values, region2, residue, source_row, sweep_element, Cells};

/// Elements a line is marched in at a time: each pass over a chunk reads
/// and writes buffers that stay in the L1 cache.
/// (On 1600 x 400 cells chunks of 32 ran the x updates slower than 16.)
const CHUNK: usize = 16;
/// Cells of a chunk's buffers: its elements and one each side.
const NW: usize = 4 * (CHUNK + 2);

/// The buffers a line kernel marches through, a chunk of the line at a
/// time, component by component along the line (value `c` of cell `t` at
/// `[c][t]`; the cells of element `j` of the chunk at `t = 4 (j + 1) +
/// lane`), so that each pass is a plain loop over arrays (the compiler
/// makes 4-wide vector operations of it) and the neighbour along x is the
/// next cell: the line's states, fluxes, half-point states and face
/// fluxes, and the updates. The line loops' scratch: made once for all the
/// lines of a call.
pub struct Chunk {
    w: [[f64; NW]; 4],
    f: [[f64; NW]; 4],
    h: [[f64; NW]; 4],
    g: [[f64; NW]; 4],
    o: [[f64; NW]; 4],
}

impl Default for Chunk {
    fn default() -> Chunk {
        Chunk::new()
    }
}

impl Chunk {
    /// Zeroed buffers.
    pub fn new() -> Chunk {
        Chunk {
            w: [[0.0; NW]; 4],
            f: [[0.0; NW]; 4],
            h: [[0.0; NW]; 4],
            g: [[0.0; NW]; 4],
            o: [[0.0; NW]; 4],
        }
    }

    /// The update of element `j` of the chunk (after [`Chunk::update`]).
    #[inline(always)]
    fn out(&self, j: usize) -> Cells {
        let mut e = [0.0; 16];
        for c in 0..4 {
            for l in 0..4 {
                e[4 * c + l] = self.o[c][4 * j + l];
            }
        }
        e
    }

    /// The Richtmyer updates of elements `first .. first + m` of the line
    /// (`m <= CHUNK`) along x (`along_x`, the cells `row` rows up) or y,
    /// into `self.o`: passes over the chunk (fluxes, half-point states,
    /// their fluxes, updates), each value computed once per chunk, with
    /// [`crate::kernels::richtmyer`]'s expressions.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn update(
        &mut self,
        w: &LineOffsets<'_, Cells>,
        first: usize,
        m: usize,
        along_x: bool,
        row: i32,
        r: f64,
        gm1: f64,
    ) {
        assert!(m <= CHUNK);
        let n = if along_x { 1 } else { 2 };
        // The neighbour's distance in cells, and the first face needed.
        let d = if along_x { 1 } else { 4 };
        let cells = 4 * (m + 2);
        for s in 0..m + 2 {
            let e = w.at(first as isize + s as isize - 1).at(0, row, 0);
            for c in 0..4 {
                for l in 0..4 {
                    self.w[c][4 * s + l] = e[4 * c + l];
                }
            }
        }
        fluxes(&self.w, &mut self.f, 0..cells, n, gm1);
        // Faces between cell t and cell t + d, for t in 4 - d .. 4 (m + 1).
        let faces = 4 - d..4 * (m + 1);
        for c in 0..4 {
            let (wc, fc, hc) = (&self.w[c], &self.f[c], &mut self.h[c]);
            for t in faces.clone() {
                hc[t] = 0.5 * (wc[t] + wc[t + d]) - 0.5 * r * (fc[t + d] - fc[t]);
            }
        }
        fluxes(&self.h, &mut self.g, faces, n, gm1);
        for c in 0..4 {
            let (wc, gc, oc) = (&self.w[c], &self.g[c], &mut self.o[c]);
            for t in 4..4 * (m + 1) {
                oc[t - 4] = wc[t] - r * (gc[t] - gc[t - d]);
            }
        }
    }
}

/// [`crate::kernels::flux`] of the cells `range` of `q` into `f`, with its
/// operations in its order, along axis `n`.
#[inline(always)]
fn fluxes(
    q: &[[f64; NW]; 4],
    f: &mut [[f64; NW]; 4],
    range: std::ops::Range<usize>,
    n: usize,
    gm1: f64,
) {
    let [f0, f1, f2, f3] = f;
    for t in range {
        let (rho, mx, my, e) = (q[0][t], q[1][t], q[2][t], q[3][t]);
        let u = mx / rho;
        let v = my / rho;
        let p = gm1 * (e - 0.5 * rho * (u * u + v * v));
        let ru = rho * u;
        if n == 1 {
            f0[t] = mx;
            f1[t] = ru * u + p;
            f2[t] = ru * v;
            f3[t] = (e + p) * u;
        } else {
            f0[t] = my;
            f1[t] = ru * v;
            f2[t] = rho * v * v + p;
            f3[t] = (e + p) * v;
        }
    }
}

/// A sweep along x of a row: the new values of each element into `u`;
/// with `u0` (the step's last sweep) each also measured against it
/// ([`residue`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn sweep_x_row(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: &[f64; 9],
    kind: &LineRead<'_, [i32; 2]>,
    w: &LineOffsets<'_, Cells>,
    u: &mut LineWrite<'_, Cells>,
    u0: Option<&LineRead<'_, Cells>>,
    chunk: &mut Chunk,
    change: &mut f64,
    bad: &mut f64,
) {
    let n = kind.len();
    if n == 0 {
        return;
    }
    let (r, gm1) = (sweep[0], gas[1]);
    // A row's elements share their `ky`.
    let ky = kind.get(0)[1];
    let row = if ky < 0 { source_row(ky, bc) } else { 0 };
    let mut first = 0;
    while first < n {
        let m = CHUNK.min(n - first);
        if ky <= 0 {
            chunk.update(w, first, m, true, row, r, gm1);
        }
        for j in 0..m {
            let k = first + j;
            let kd = kind.get(k);
            let out = if ky > 0 { region2(bc) } else { chunk.out(j) };
            let v = ghost_values(&kd, &out, bc);
            if let Some(u0) = u0 {
                residue(&kd, &u0.get(k), &v, change, bad);
            }
            u.set(k, v);
        }
        first += m;
    }
}

/// The Lax-Wendroff update along x of a row (`sweep[0] = dt/2 / dx`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn lw_x_line(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: [f64; 9],
    kind: LineRead<'_, [i32; 2]>,
    w: LineOffsets<'_, Cells>,
    mut u: LineWrite<'_, Cells>,
    chunk: &mut Chunk,
) {
    let (mut change, mut bad) = (0.0, 0.0);
    let (k, w) = (&kind, &w);
    sweep_x_row(
        gas,
        sweep,
        &bc,
        k,
        w,
        &mut u,
        None,
        chunk,
        &mut change,
        &mut bad,
    );
}

/// The Lax-Wendroff update along x of a row for the step's last sweep,
/// which also measures the step ([`residue`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn lw_x_residue_line(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: [f64; 9],
    kind: LineRead<'_, [i32; 2]>,
    w: LineOffsets<'_, Cells>,
    u0: LineRead<'_, Cells>,
    mut u: LineWrite<'_, Cells>,
    chunk: &mut Chunk,
    change: &mut f64,
    bad: &mut f64,
) {
    let (k, w) = (&kind, &w);
    sweep_x_row(gas, sweep, &bc, k, w, &mut u, Some(&u0), chunk, change, bad);
}

/// The Lax-Wendroff update along y of a column (`sweep[1] = dt/2 / dy`):
/// the grid's rows marched in chunks; the ghost rows by the element
/// kernel.
#[inline(always)]
pub fn lw_y_line(
    gas: [f64; 2],
    sweep: [f64; 4],
    bc: [f64; 9],
    kind: LineRead<'_, [i32; 2]>,
    w: LineOffsets<'_, Cells>,
    mut u: LineWrite<'_, Cells>,
    chunk: &mut Chunk,
) {
    let (r, gm1) = (sweep[1], gas[1]);
    let n = kind.len();
    let mut k = 0;
    while k < n {
        let kd = kind.get(k);
        if kd[1] != 0 {
            u.set(k, sweep_element(&kd, w.at(k as isize), false, r, gm1, &bc));
            k += 1;
            continue;
        }
        // A run of the grid's rows, at most a chunk.
        let mut m = 1;
        while m < CHUNK && k + m < n && kind.get(k + m)[1] == 0 {
            m += 1;
        }
        chunk.update(&w, k, m, false, 0, r, gm1);
        for j in 0..m {
            u.set(k + j, ghost_values(&kind.get(k + j), &chunk.out(j), &bc));
        }
        k += m;
    }
}
