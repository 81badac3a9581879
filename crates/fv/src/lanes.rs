//! `res_calc` four edges at a time in AVX2 registers: the CPU runner of
//! [`crate::decl::RES_CALC`] (`with cpu(...)` of `par_loop!`).
//!
//! The edge loop is the method's most expensive loop (about half an
//! iteration), and element by element it is bound by instructions, not
//! by memory (docs/performance.md 11). Here each group of 4 consecutive
//! edges of a span loads its two cells' states as 4 rows, turns them into
//! 4 columns (one register per component, one lane per edge), computes the
//! 4 fluxes lane by lane with [`crate::kernels::res_calc`]'s operations in
//! its order (no fused multiply-add: the same bits), turns the fluxes back
//! into rows and adds them to the cells' residuals edge after edge, as the
//! layer's generated runner does: each increment first into a zeroed local
//! value (`0 + f`, `0 - f`), then into the target. A span's last edges
//! (fewer than 4) go through the kernel itself. The device code, and the
//! CPU where the arguments do not allow this (a structure-of-arrays dat,
//! atomic increments, a processor without AVX2), run the kernel element by
//! element (the generated runner).

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use qflow_par::kernel::{CpuRunner, LoopArgs, RawArg};
use qflow_par::{Access, ElemType};

/// Calls of the runner that ran the edges four at a time (for tests: that
/// a run took this path).
static VECTOR_CALLS: AtomicU64 = AtomicU64::new(0);

/// How many calls of [`res_calc_lanes`] so far ran the edges four at a
/// time (the others went through the generated runner).
pub fn vector_calls() -> u64 {
    VECTOR_CALLS.load(Ordering::Relaxed)
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
            VECTOR_CALLS.fetch_add(1, Ordering::Relaxed);
            return;
        }
    }
    each(args, spans)
}

/// The loop's arguments as `res_calc` takes them, when every dat is an
/// array of structures and the increments are not atomic.
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
}

/// A map argument: its dat's first value, the map's values, its rows.
type Mapped = (*mut u8, *const u32, usize);

impl Bound {
    fn of(args: &LoopArgs<'_>) -> Option<Bound> {
        let a = args.args;
        if a.len() != 9 {
            return None;
        }
        let gas = match a[0] {
            RawArg::Const {
                ty: ElemType::F64,
                f,
                dim: 4,
                ..
            } => [f[0], f[1], f[2], f[3]],
            _ => return None,
        };
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
                    atomic: false,
                } if dat.ty == ElemType::F64
                    && dat.dim == dim
                    && dat.stride == 0
                    && acc == access
                    && slot == want =>
                {
                    Some((dat.ptr, map, rows))
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
            let t1 = &mut *self.res.add(c1);
            for k in 0..4 {
                t1[k] += r1[k];
            }
            let t2 = &mut *self.res.add(c2);
            for k in 0..4 {
                t2[k] += r2[k];
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;
    use std::ops::Range;

    use super::Bound;

    /// Rows `a`, `b`, `c`, `d` of 4 values as 4 columns.
    #[target_feature(enable = "avx2")]
    fn transpose(a: __m256d, b: __m256d, c: __m256d, d: __m256d) -> [__m256d; 4] {
        {
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
                let (mut dx, mut dy, mut a1, mut a2) = ([0.0; 4], [0.0; 4], [0.0; 4], [0.0; 4]);
                let mut l1 = [zero; 4];
                let mut l2 = [zero; 4];
                let mut cells = [[0usize; 2]; 4];
                for k in 0..4 {
                    let [n1, n2] = unsafe { *b.pedge.add(e + k) };
                    let (x1, x2) = unsafe { (&*b.x.add(n1 as usize), &*b.x.add(n2 as usize)) };
                    dx[k] = x1[0] - x2[0];
                    dy[k] = x1[1] - x2[1];
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
                let (dx, dy) =
                    unsafe { (_mm256_loadu_pd(dx.as_ptr()), _mm256_loadu_pd(dy.as_ptr())) };
                let (adt1, adt2) =
                    unsafe { (_mm256_loadu_pd(a1.as_ptr()), _mm256_loadu_pd(a2.as_ptr())) };
                let q1 = transpose(l1[0], l1[1], l1[2], l1[3]);
                let q2 = transpose(l2[0], l2[1], l2[2], l2[3]);
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
                let f = transpose(f0, f1, f2, f3);
                for k in 0..4 {
                    let [c1, c2] = cells[k];
                    unsafe {
                        let r1 = (*b.res.add(c1)).as_mut_ptr();
                        _mm256_storeu_pd(r1, ad(_mm256_loadu_pd(r1), ad(zero, f[k])));
                        let r2 = (*b.res.add(c2)).as_mut_ptr();
                        _mm256_storeu_pd(r2, ad(_mm256_loadu_pd(r2), sb(zero, f[k])));
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
}
