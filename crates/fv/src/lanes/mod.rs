//! `res_calc` four edges and `adt_calc` four cells at a time in AVX2
//! registers: the CPU runners of [`crate::decl::RES_CALC`] and
//! [`crate::decl::ADT_CALC`] (`with cpu(...)` of `par_loop!`).
//!
//! Element by element both loops are bound by instructions, not by memory
//! (docs/performance.md 4, 4.2): `res_calc`'s 40-odd operations and
//! increments per edge, `adt_calc`'s five square roots per cell. Here each
//! group of 4 consecutive elements of a span loads its cells' states as 4
//! rows, turns them into 4 columns (one register per component, one lane
//! per element), and computes lane by lane with the kernel's operations in
//! its order (no fused multiply-add: the same bits). `res_calc` turns its
//! fluxes back into rows and adds them to the cells' residuals edge after
//! edge, as the layer's generated runner does: each increment first into
//! a zeroed local value (`0 + f`, `0 - f`), then into the target;
//! `adt_calc` stores its 4 factors at once (4 quadrilaterals; a group
//! with another polygon goes cell by cell). A span's last elements (fewer
//! than 4) go through the kernel itself. The device code, and the CPU
//! where the arguments do not allow this (a structure-of-arrays dat,
//! atomic increments, a processor without AVX2), run the kernel element by
//! element (the generated runner).

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use qflow_par::kernel::{Adds, CpuRunner, LoopArgs, RawArg};
use qflow_par::{Access, ElemType};

/// Calls of each runner that ran four elements at a time: `res_calc`'s,
/// `adt_calc`'s (for tests: that a run took this path).
static VECTOR_CALLS: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];

/// How many calls of [`res_calc_lanes`] and of [`adt_calc_lanes`] so far
/// ran four elements at a time (the others went through the generated
/// runner).
pub fn vector_calls() -> [u64; 2] {
    [
        VECTOR_CALLS[0].load(Ordering::Relaxed),
        VECTOR_CALLS[1].load(Ordering::Relaxed),
    ]
}

/// Runs `res_calc` over `spans` four edges at a time where the processor
/// and the arguments allow it, else through the generated runner `each`.
pub fn res_calc_lanes(args: &LoopArgs<'_>, spans: &[Range<usize>], each: CpuRunner) {
    #[cfg(target_arch = "x86_64")]
    if qflow_par::kernel::use_avx2() {
        if let Some(b) = Bound::of(args) {
            for span in spans {
                assert!(span.end <= b.rows, "a span beyond the loop's edges");
            }
            // SAFETY: the processor has AVX2; `Bound::of` checked the
            // arguments' kinds, types and layouts, the spans lie within
            // the maps' rows, and the layer's map values lie within their
            // target sets; increments are not atomic, so no element
            // running at the same time shares a target (the layer's plan).
            unsafe { avx2::run(&b, spans) };
            VECTOR_CALLS[0].fetch_add(1, Ordering::Relaxed);
            return;
        }
    }
    each(args, spans)
}

/// Runs `adt_calc` over `spans` four cells at a time where the processor
/// and the arguments allow it, else through the generated runner `each`.
pub fn adt_calc_lanes(args: &LoopArgs<'_>, spans: &[Range<usize>], each: CpuRunner) {
    #[cfg(target_arch = "x86_64")]
    if qflow_par::kernel::use_avx2() {
        if let Some(b) = AdtBound::of(args) {
            for span in spans {
                assert!(span.end <= b.rows, "a span beyond the loop's cells");
            }
            // SAFETY: the processor has AVX2; `AdtBound::of` checked the
            // arguments' kinds, types and layouts, the spans lie within the
            // cells, the map's values within the nodes (the layer checked
            // them); each cell's factor is written by its own element only.
            unsafe { avx2::run_adt(&b, spans) };
            VECTOR_CALLS[1].fetch_add(1, Ordering::Relaxed);
            return;
        }
    }
    each(args, spans)
}

/// The loop's arguments as `adt_calc` takes them, when every dat is an
/// array of structures.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct AdtBound {
    gas: [f64; 4],
    x: *const [f64; 2],
    /// Nodes.
    nodes: usize,
    /// Where each cell's nodes start in `pcell` (`rows + 1` values).
    start: *const u32,
    /// The cells' nodes, cell after cell.
    pcell: *const u32,
    q: *const [f64; 4],
    adt: *mut f64,
    /// Cells.
    rows: usize,
}

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
impl AdtBound {
    fn of(args: &LoopArgs<'_>) -> Option<AdtBound> {
        let a = args.args;
        if a.len() != 4 {
            return None;
        }
        let gas = constant4(&a[0])?;
        let (x, nodes, start, pcell, rows) = match a[1] {
            RawArg::Star {
                dat,
                start,
                idx,
                rows,
                ..
            } if dat.ty == ElemType::F64 && dat.dim == 2 && dat.stride == 0 => {
                (dat.ptr, dat.len, start, idx, rows)
            }
            _ => return None,
        };
        let direct = |arg: &RawArg, dim: usize, access: Access| match *arg {
            RawArg::Direct { dat, access: acc }
                if dat.ty == ElemType::F64
                    && dat.dim == dim
                    && dat.stride == 0
                    && acc == access =>
            {
                Some((dat.ptr, dat.len))
            }
            _ => None,
        };
        let (q, nq) = direct(&a[2], 4, Access::Read)?;
        let (adt, na) = direct(&a[3], 1, Access::Write)?;
        Some(AdtBound {
            gas,
            x: x as *const [f64; 2],
            nodes,
            start,
            pcell,
            q: q as *const [f64; 4],
            adt: adt as *mut f64,
            rows: rows.min(nq).min(na),
        })
    }

    /// Cell `i`'s nodes.
    ///
    /// # Safety
    ///
    /// As [`avx2::run_adt`].
    #[inline(always)]
    unsafe fn row(&self, i: usize) -> &[u32] {
        // SAFETY: the caller's contract: `i` is a cell, its row within the
        // map's values.
        unsafe {
            let (s, e) = (*self.start.add(i) as usize, *self.start.add(i + 1) as usize);
            std::slice::from_raw_parts(self.pcell.add(s), e - s)
        }
    }

    /// Cell `i` through the kernel.
    ///
    /// # Safety
    ///
    /// As [`avx2::run_adt`].
    #[inline(always)]
    unsafe fn one(&self, i: usize) {
        // SAFETY: the caller's contract.
        unsafe {
            let x = std::slice::from_raw_parts(self.x, self.nodes);
            crate::kernels::adt_calc(
                self.gas,
                qflow_par::Star::of_row(x, self.row(i)),
                &*self.q.add(i),
                &mut *self.adt.add(i),
            );
        }
    }
}

/// A constant of 4 doubles.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn constant4(arg: &RawArg) -> Option<[f64; 4]> {
    match *arg {
        RawArg::Const {
            ty: ElemType::F64,
            f,
            dim: 4,
            ..
        } => Some([f[0], f[1], f[2], f[3]]),
        _ => None,
    }
}

/// The loop's arguments as `res_calc` takes them, when every dat is an
/// array of structures and the increments are not atomic (they may be
/// kept to a part's own cells: owner compute).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct Bound {
    gas: [f64; 4],
    x: *const [f64; 2],
    q: *const [f64; 4],
    adt: *const f64,
    res: *mut [f64; 4],
    /// An edge's two nodes.
    pedge: *const [u32; 2],
    /// An edge's two cells.
    pecell: *const [u32; 2],
    /// Edges.
    rows: usize,
    /// The cells whose residuals this call adds to (all, but for a part
    /// of an owner-compute plan: its own).
    own: Range<usize>,
}

/// A map argument: its dat's first value, the map's values, its rows, how
/// it adds.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
type Mapped = (*mut u8, *const u32, usize, Adds);

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
impl Bound {
    fn of(args: &LoopArgs<'_>) -> Option<Bound> {
        let a = args.args;
        if a.len() != 9 {
            return None;
        }
        let gas = constant4(&a[0])?;
        // The two slots of one map into one dat, as `res_calc` reads them.
        let pair = |k: usize, dim: usize, access: Access| -> Option<Mapped> {
            let one = |arg: &RawArg, want: usize| match *arg {
                RawArg::Map {
                    dat,
                    access: acc,
                    map,
                    arity: 2,
                    slot,
                    rows,
                    adds,
                } if dat.ty == ElemType::F64
                    && dat.dim == dim
                    && dat.stride == 0
                    && acc == access
                    && slot == want
                    && (adds == Adds::Plain
                        || (access == Access::Inc && matches!(adds, Adds::Owned { .. }))) =>
                {
                    Some((dat.ptr, map, rows, adds))
                }
                _ => None,
            };
            let (first, second) = (one(&a[k], 0)?, one(&a[k + 1], 1)?);
            (first == second).then_some(first)
        };
        let x = pair(1, 2, Access::Read)?;
        let q = pair(3, 4, Access::Read)?;
        let adt = pair(5, 1, Access::Read)?;
        let res = pair(7, 4, Access::Inc)?;
        // Nodes through one map, cells through another, every row count
        // the loop's.
        if q.1 != adt.1 || q.1 != res.1 || x.2 != q.2 || q.2 != adt.2 || q.2 != res.2 {
            return None;
        }
        Some(Bound {
            gas,
            x: x.0 as *const [f64; 2],
            q: q.0 as *const [f64; 4],
            adt: adt.0 as *const f64,
            res: res.0 as *mut [f64; 4],
            pedge: x.1 as *const [u32; 2],
            pecell: q.1 as *const [u32; 2],
            rows: q.2,
            own: match res.3 {
                Adds::Owned { lo, hi } => lo as usize..hi as usize,
                _ => 0..usize::MAX,
            },
        })
    }

    /// Edge `e` through the kernel, its increments added as the generated
    /// runner adds them.
    ///
    /// # Safety
    ///
    /// As [`avx2::run`].
    #[inline(always)]
    unsafe fn one(&self, e: usize) {
        // SAFETY: the caller's contract.
        unsafe {
            let [n1, n2] = *self.pedge.add(e);
            let [c1, c2] = *self.pecell.add(e);
            let (c1, c2) = (c1 as usize, c2 as usize);
            let (mut r1, mut r2) = ([0.0; 4], [0.0; 4]);
            crate::kernels::res_calc(
                self.gas,
                &*self.x.add(n1 as usize),
                &*self.x.add(n2 as usize),
                &*self.q.add(c1),
                &*self.q.add(c2),
                &*self.adt.add(c1),
                &*self.adt.add(c2),
                &mut r1,
                &mut r2,
            );
            if self.own.contains(&c1) {
                let t1 = &mut *self.res.add(c1);
                for k in 0..4 {
                    t1[k] += r1[k];
                }
            }
            if self.own.contains(&c2) {
                let t2 = &mut *self.res.add(c2);
                for k in 0..4 {
                    t2[k] += r2[k];
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;
    use std::ops::Range;

    use super::{AdtBound, Bound};

    /// Rows `a`, `b`, `c`, `d` of 4 values as 4 columns.
    ///
    /// # Safety
    ///
    /// The processor has AVX2 (an `unsafe fn`, as Rust 1.85 needs for a
    /// function with target features).
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn transpose(a: __m256d, b: __m256d, c: __m256d, d: __m256d) -> [__m256d; 4] {
        let t0 = _mm256_unpacklo_pd(a, b);
        let t1 = _mm256_unpackhi_pd(a, b);
        let t2 = _mm256_unpacklo_pd(c, d);
        let t3 = _mm256_unpackhi_pd(c, d);
        [
            _mm256_permute2f128_pd(t0, t2, 0x20),
            _mm256_permute2f128_pd(t1, t3, 0x20),
            _mm256_permute2f128_pd(t0, t2, 0x31),
            _mm256_permute2f128_pd(t1, t3, 0x31),
        ]
    }

    /// The edges of `spans`, four at a time (the loop's body inline here,
    /// in the function compiled for AVX2: a closure or a helper function
    /// would be compiled for the baseline and called).
    ///
    /// # Safety
    ///
    /// The processor has AVX2; `b`'s pointers are a bound loop's (its dats
    /// and maps alive, the map values within the target sets); the spans
    /// lie within the maps' rows; no other thread touches the residuals of
    /// these edges' cells meanwhile.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn run(b: &Bound, spans: &[Range<usize>]) {
        let (m, ad, sb) = (_mm256_mul_pd, _mm256_add_pd, _mm256_sub_pd);
        let (gm1, eps) = (_mm256_set1_pd(b.gas[1]), _mm256_set1_pd(b.gas[3]));
        let (half, one, zero) = (
            _mm256_set1_pd(0.5),
            _mm256_set1_pd(1.0),
            _mm256_setzero_pd(),
        );
        for span in spans {
            let mut e = span.start;
            while e + 4 <= span.end {
                // SAFETY (loads, stores): the function's contract; 4 values
                // of an element of 4 (unaligned allowed).
                // Each edge's `x1 - x2` as one 128-bit pair `(dx, dy)`,
                // and the factors: kept in registers (four scalars stored
                // and read back as one vector wait for the stores).
                let (mut d, mut a1, mut a2) = ([_mm_setzero_pd(); 4], [0.0; 4], [0.0; 4]);
                let mut l1 = [zero; 4];
                let mut l2 = [zero; 4];
                let mut cells = [[0usize; 2]; 4];
                for k in 0..4 {
                    let [n1, n2] = unsafe { *b.pedge.add(e + k) };
                    let (x1, x2) = unsafe {
                        (
                            _mm_loadu_pd((*b.x.add(n1 as usize)).as_ptr()),
                            _mm_loadu_pd((*b.x.add(n2 as usize)).as_ptr()),
                        )
                    };
                    d[k] = _mm_sub_pd(x1, x2);
                    let [c1, c2] = unsafe { *b.pecell.add(e + k) };
                    let (c1, c2) = (c1 as usize, c2 as usize);
                    cells[k] = [c1, c2];
                    unsafe {
                        a1[k] = *b.adt.add(c1);
                        a2[k] = *b.adt.add(c2);
                        l1[k] = _mm256_loadu_pd((*b.q.add(c1)).as_ptr());
                        l2[k] = _mm256_loadu_pd((*b.q.add(c2)).as_ptr());
                    }
                }
                // [dx0 dy0 dx1 dy1], [dx2 dy2 dx3 dy3] -> [dx0 dx2 dx1 dx3]
                // and the same of dy -> lanes in edge order.
                let (d01, d23) = (_mm256_set_m128d(d[1], d[0]), _mm256_set_m128d(d[3], d[2]));
                let dx = _mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_unpacklo_pd(d01, d23));
                let dy = _mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_unpackhi_pd(d01, d23));
                let adt1 = _mm256_set_pd(a1[3], a1[2], a1[1], a1[0]);
                let adt2 = _mm256_set_pd(a2[3], a2[2], a2[1], a2[0]);
                // SAFETY (transposes): AVX2 is present (the contract).
                let q1 = unsafe { transpose(l1[0], l1[1], l1[2], l1[3]) };
                let q2 = unsafe { transpose(l2[0], l2[1], l2[2], l2[3]) };
                // The kernel's expressions, operand for operand.
                let ri1 = _mm256_div_pd(one, q1[0]);
                let p1 = m(
                    gm1,
                    sb(q1[3], m(m(half, ri1), ad(m(q1[1], q1[1]), m(q1[2], q1[2])))),
                );
                let vol1 = m(ri1, sb(m(q1[1], dy), m(q1[2], dx)));
                let ri2 = _mm256_div_pd(one, q2[0]);
                let p2 = m(
                    gm1,
                    sb(q2[3], m(m(half, ri2), ad(m(q2[1], q2[1]), m(q2[2], q2[2])))),
                );
                let vol2 = m(ri2, sb(m(q2[1], dy), m(q2[2], dx)));
                let mu = m(m(half, ad(adt1, adt2)), eps);
                let f0 = ad(
                    m(half, ad(m(vol1, q1[0]), m(vol2, q2[0]))),
                    m(mu, sb(q1[0], q2[0])),
                );
                let f1 = ad(
                    m(
                        half,
                        ad(ad(ad(m(vol1, q1[1]), m(p1, dy)), m(vol2, q2[1])), m(p2, dy)),
                    ),
                    m(mu, sb(q1[1], q2[1])),
                );
                let f2 = ad(
                    m(
                        half,
                        sb(ad(sb(m(vol1, q1[2]), m(p1, dx)), m(vol2, q2[2])), m(p2, dx)),
                    ),
                    m(mu, sb(q1[2], q2[2])),
                );
                let f3 = ad(
                    m(half, ad(m(vol1, ad(q1[3], p1)), m(vol2, ad(q2[3], p2)))),
                    m(mu, sb(q1[3], q2[3])),
                );
                let f = unsafe { transpose(f0, f1, f2, f3) };
                for k in 0..4 {
                    let [c1, c2] = cells[k];
                    unsafe {
                        if b.own.contains(&c1) {
                            let r1 = (*b.res.add(c1)).as_mut_ptr();
                            _mm256_storeu_pd(r1, ad(_mm256_loadu_pd(r1), ad(zero, f[k])));
                        }
                        if b.own.contains(&c2) {
                            let r2 = (*b.res.add(c2)).as_mut_ptr();
                            _mm256_storeu_pd(r2, ad(_mm256_loadu_pd(r2), sb(zero, f[k])));
                        }
                    }
                }
                e += 4;
            }
            for e in e..span.end {
                // SAFETY: the function's contract.
                unsafe { b.one(e) };
            }
        }
    }

    /// The cells of `spans`, four at a time (the body inline, as in
    /// [`run`]).
    ///
    /// # Safety
    ///
    /// The processor has AVX2; `b`'s pointers are a bound loop's (its dats
    /// and map alive, the map values within the nodes); the spans lie
    /// within the cells; no other thread writes these cells' factors.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn run_adt(b: &AdtBound, spans: &[Range<usize>]) {
        let (m, ad, sb) = (_mm256_mul_pd, _mm256_add_pd, _mm256_sub_pd);
        let [gam, gm1, cfl, _] = b.gas;
        // `gam * gm1 * (...)` is `(gam * gm1) * (...)`, the same in every lane.
        let gg = _mm256_set1_pd(gam * gm1);
        let cfl = _mm256_set1_pd(cfl);
        let (half, one) = (_mm256_set1_pd(0.5), _mm256_set1_pd(1.0));
        // `f64::abs`: the sign bit cleared.
        let sign = _mm256_set1_pd(-0.0);
        for span in spans {
            let mut i = span.start;
            while i + 4 <= span.end {
                // A group of four quadrilaterals; a group with another
                // polygon goes cell by cell through the kernel.
                // SAFETY (loads): the function's contract.
                let rows = unsafe { [b.row(i), b.row(i + 1), b.row(i + 2), b.row(i + 3)] };
                if rows.iter().any(|r| r.len() != 4) {
                    for k in 0..4 {
                        // SAFETY: the function's contract.
                        unsafe { b.one(i + k) };
                    }
                    i += 4;
                    continue;
                }
                // Each side's `dx`, `dy` (side s from node s to node s + 1),
                // one lane per cell.
                let mut dx = [[0.0; 4]; 4];
                let mut dy = [[0.0; 4]; 4];
                let mut l = [_mm256_setzero_pd(); 4];
                for (k, n) in rows.iter().enumerate() {
                    // SAFETY (loads): the function's contract.
                    unsafe {
                        let p = [
                            *b.x.add(n[0] as usize),
                            *b.x.add(n[1] as usize),
                            *b.x.add(n[2] as usize),
                            *b.x.add(n[3] as usize),
                        ];
                        for s in 0..4 {
                            let (a, c) = (p[s], p[(s + 1) % 4]);
                            dx[s][k] = c[0] - a[0];
                            dy[s][k] = c[1] - a[1];
                        }
                        l[k] = _mm256_loadu_pd((*b.q.add(i + k)).as_ptr());
                    }
                }
                // SAFETY: AVX2 is present (the contract).
                let q = unsafe { transpose(l[0], l[1], l[2], l[3]) };
                // The kernel's expressions, operand for operand.
                let ri = _mm256_div_pd(one, q[0]);
                let u = m(ri, q[1]);
                let v = m(ri, q[2]);
                let c = _mm256_sqrt_pd(m(gg, sb(m(ri, q[3]), m(half, ad(m(u, u), m(v, v))))));
                let mut a = _mm256_setzero_pd();
                for s in 0..4 {
                    // SAFETY: 4 values of a local array of 4.
                    let (dx, dy) = unsafe {
                        (
                            _mm256_loadu_pd(dx[s].as_ptr()),
                            _mm256_loadu_pd(dy[s].as_ptr()),
                        )
                    };
                    let side = ad(
                        _mm256_andnot_pd(sign, sb(m(u, dy), m(v, dx))),
                        m(c, _mm256_sqrt_pd(ad(m(dx, dx), m(dy, dy)))),
                    );
                    a = if s == 0 { side } else { ad(a, side) };
                }
                // SAFETY: cells `i .. i + 4` of the factors (the contract).
                unsafe { _mm256_storeu_pd(b.adt.add(i), _mm256_div_pd(a, cfl)) };
                i += 4;
            }
            for i in i..span.end {
                // SAFETY: the function's contract.
                unsafe { b.one(i) };
            }
        }
    }
}

#[cfg(test)]
mod tests;
