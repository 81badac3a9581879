//! What a kernel sees, and how the CPU backends call it.
//!
//! A kernel is a Rust function of one element. Its parameters, in the
//! order of its loop's arguments, are:
//!
//! | loop argument | kernel parameter |
//! |---|---|
//! | `read(D)` | `&T`: the element's value |
//! | `write(D)`, `rw(D)` | `&mut T` |
//! | `read(D via M[k])` | `&T`: the value at slot `k` of map `M` |
//! | `inc(D via M[k])`, `inc(D)` | `&mut T`, added to |
//! | `read(D via M)` | [`Star<T>`]: the element's and its neighbours' values |
//! | `read(D at S)` | [`Offsets<T>`]: values at the stencil's offsets |
//! | `global(G)` | `T` by value |
//! | `sum(G)`, `min(G)`, `max(G)` | `&mut T`, starting at the reduction's identity for each element |
//!
//! with `T` one of `f64`, `i32`, `[f64; N]`, `[i32; N]` (`N` the dat's
//! `dim`). The [`crate::par_loop!`] macro generates, from a loop's
//! declaration, a [`CpuRunner`]: the kernel over spans of elements, its
//! arguments taken from [`LoopArgs`] through typed views that check the
//! declaration against the kernel's parameter types once per call.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use bitrep::SumF64;

use crate::decl::{Access, ElemType, Reduction};

mod atomic;
mod line;
mod rows;
use atomic::{add_f64_atomic, add_i32_atomic};
mod soa;
mod stencil;
mod views;
pub use line::*;
pub use soa::*;
pub use stencil::*;
pub use views::*;

/// The kernel of a loop over spans of elements on the CPU.
pub type CpuRunner = fn(&LoopArgs<'_>, &[Range<usize>]);

/// Types a dat's element can have in a kernel.
///
/// # Safety
///
/// `TY` and `DIM` must describe the type's memory exactly: `DIM` values of
/// type `TY`, contiguous, no padding.
pub unsafe trait Elem: Copy + Send + Sync + 'static {
    /// The value type.
    const TY: ElemType;
    /// Values per element.
    const DIM: usize;
    /// Zero: where a kernel's increment starts.
    fn zero() -> Self;
    /// `*target += self`, component by component.
    fn add_to(self, target: &mut Self);
    /// `*target += self`, each component one atomic read-modify-write
    /// (threads may add to the same target at once).
    ///
    /// # Safety
    ///
    /// `target` is valid for reads and writes and aligned for its type;
    /// every concurrent access to it is atomic.
    unsafe fn add_atomic(self, target: *mut Self);

    /// Element `i` of a dat stored as structure of arrays at `base`: its
    /// component `c` is value `c * stride + i`.
    ///
    /// # Safety
    ///
    /// `base` holds `DIM * stride` values of type `TY` and `i < stride`.
    #[inline(always)]
    unsafe fn load_soa(base: *const u8, i: usize, stride: usize) -> Self {
        let w = Self::TY.bytes();
        let mut v = std::mem::MaybeUninit::<Self>::uninit();
        for c in 0..Self::DIM {
            // SAFETY: in bounds (the caller's contract); `Self` is `DIM`
            // contiguous values of `TY` (the trait's contract).
            unsafe {
                std::ptr::copy_nonoverlapping(
                    base.add((c * stride + i) * w),
                    (v.as_mut_ptr() as *mut u8).add(c * w),
                    w,
                )
            }
        }
        // SAFETY: every byte written above.
        unsafe { v.assume_init() }
    }

    /// Stores `self` as element `i` of a structure of arrays at `base`.
    ///
    /// # Safety
    ///
    /// As [`Elem::load_soa`], and no other thread accesses element `i`.
    #[inline(always)]
    unsafe fn store_soa(self, base: *mut u8, i: usize, stride: usize) {
        let w = Self::TY.bytes();
        for c in 0..Self::DIM {
            // SAFETY: as in `load_soa`.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    (&self as *const Self as *const u8).add(c * w),
                    base.add((c * stride + i) * w),
                    w,
                )
            }
        }
    }

    /// Adds `self` to element `i` of a structure of arrays at `base`
    /// (`atomic`: each value one atomic read-modify-write).
    ///
    /// # Safety
    ///
    /// As [`Elem::load_soa`]; without `atomic` no other thread accesses
    /// element `i`, with it every concurrent access is atomic.
    #[inline(always)]
    unsafe fn add_soa(self, base: *mut u8, i: usize, stride: usize, atomic: bool) {
        let w = Self::TY.bytes();
        for c in 0..Self::DIM {
            let at = (c * stride + i) * w;
            let from = (&self as *const Self as *const u8).wrapping_add(c * w);
            // SAFETY: as in `load_soa`; the types match `TY`.
            unsafe {
                match (Self::TY, atomic) {
                    (ElemType::F64, false) => {
                        *(base.add(at) as *mut f64) += (from as *const f64).read_unaligned()
                    }
                    (ElemType::I32, false) => {
                        *(base.add(at) as *mut i32) += (from as *const i32).read_unaligned()
                    }
                    (ElemType::F64, true) => add_f64_atomic(
                        base.add(at) as *mut f64,
                        (from as *const f64).read_unaligned(),
                    ),
                    (ElemType::I32, true) => add_i32_atomic(
                        base.add(at) as *mut i32,
                        (from as *const i32).read_unaligned(),
                    ),
                }
            }
        }
    }
}

// SAFETY: one f64.
unsafe impl Elem for f64 {
    const TY: ElemType = ElemType::F64;
    const DIM: usize = 1;
    fn zero() -> Self {
        0.0
    }
    fn add_to(self, target: &mut Self) {
        *target += self;
    }
    unsafe fn add_atomic(self, target: *mut Self) {
        // SAFETY: the caller's contract.
        unsafe { add_f64_atomic(target, self) }
    }
}
// SAFETY: one i32.
unsafe impl Elem for i32 {
    const TY: ElemType = ElemType::I32;
    const DIM: usize = 1;
    fn zero() -> Self {
        0
    }
    fn add_to(self, target: &mut Self) {
        *target += self;
    }
    unsafe fn add_atomic(self, target: *mut Self) {
        // SAFETY: the caller's contract.
        unsafe { add_i32_atomic(target, self) }
    }
}
// SAFETY: arrays are contiguous without padding.
unsafe impl<const N: usize> Elem for [f64; N] {
    const TY: ElemType = ElemType::F64;
    const DIM: usize = N;
    fn zero() -> Self {
        [0.0; N]
    }
    fn add_to(self, target: &mut Self) {
        for (t, v) in target.iter_mut().zip(self) {
            *t += v;
        }
    }
    unsafe fn add_atomic(self, target: *mut Self) {
        for (c, v) in self.into_iter().enumerate() {
            // SAFETY: component `c` of a valid target (the caller's contract).
            unsafe { add_f64_atomic((target as *mut f64).add(c), v) }
        }
    }
}
// SAFETY: arrays are contiguous without padding.
unsafe impl<const N: usize> Elem for [i32; N] {
    const TY: ElemType = ElemType::I32;
    const DIM: usize = N;
    fn zero() -> Self {
        [0; N]
    }
    fn add_to(self, target: &mut Self) {
        for (t, v) in target.iter_mut().zip(self) {
            *t += v;
        }
    }
    unsafe fn add_atomic(self, target: *mut Self) {
        for (c, v) in self.into_iter().enumerate() {
            // SAFETY: component `c` of a valid target (the caller's contract).
            unsafe { add_i32_atomic((target as *mut i32).add(c), v) }
        }
    }
}

/// Element types a global constant can have.
pub trait ConstElem: Elem {
    /// The value from the global's stored values.
    fn from_values(f: &[f64], i: &[i32]) -> Self;
}

impl ConstElem for f64 {
    fn from_values(f: &[f64], _: &[i32]) -> Self {
        f[0]
    }
}
impl ConstElem for i32 {
    fn from_values(_: &[f64], i: &[i32]) -> Self {
        i[0]
    }
}
impl<const N: usize> ConstElem for [f64; N] {
    fn from_values(f: &[f64], _: &[i32]) -> Self {
        std::array::from_fn(|k| f[k])
    }
}
impl<const N: usize> ConstElem for [i32; N] {
    fn from_values(_: &[f64], i: &[i32]) -> Self {
        std::array::from_fn(|k| i[k])
    }
}

/// Element types a reduction can have (`f64` values).
pub trait ReduceElem: Elem {
    /// Every value set to `v`.
    fn splat(v: f64) -> Self;
    /// Value `c`.
    fn get(&self, c: usize) -> f64;
}

impl ReduceElem for f64 {
    #[inline(always)]
    fn splat(v: f64) -> Self {
        v
    }
    #[inline(always)]
    fn get(&self, _: usize) -> f64 {
        *self
    }
}
impl<const N: usize> ReduceElem for [f64; N] {
    #[inline(always)]
    fn splat(v: f64) -> Self {
        [v; N]
    }
    #[inline(always)]
    fn get(&self, c: usize) -> f64 {
        self[c]
    }
}

/// A dat's memory as the CPU backend passes it to a runner.
#[derive(Clone, Copy, Debug)]
pub struct RawDat {
    /// The first value.
    pub ptr: *mut u8,
    /// The values' type.
    pub ty: ElemType,
    /// Values per element.
    pub dim: usize,
    /// Elements (the local set's size, ghosts included).
    pub len: usize,
    /// 0: array of structures (element `i`'s values together); else
    /// structure of arrays, component `c` of element `i` at value
    /// `c * stride + i` (`stride` = `len`).
    pub stride: usize,
}

/// How an increment through a map reaches its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Adds {
    /// Added in place: no element running at the same time has the target.
    Plain,
    /// Each value one atomic read-modify-write (threads may reach one
    /// target at once).
    Atomic,
    /// Added in place where the target lies in `lo..hi`, dropped elsewhere:
    /// the owner-compute plan ([`crate::plan::Increments::OwnerCompute`]),
    /// where another part, which runs the same element too, owns the other
    /// targets.
    Owned {
        /// The first target owned.
        lo: u32,
        /// One past the last.
        hi: u32,
    },
}

/// One bound argument of a loop on the CPU.
#[derive(Clone, Copy, Debug)]
pub enum RawArg {
    /// The element's own value.
    Direct {
        /// The dat.
        dat: RawDat,
        /// Read, write or both.
        access: Access,
    },
    /// Through slot `slot` of a fixed-arity map.
    Map {
        /// The dat (on the map's target set).
        dat: RawDat,
        /// Read or increment.
        access: Access,
        /// The map's values, `arity` per source element.
        map: *const u32,
        /// Targets per source element.
        arity: usize,
        /// The slot used.
        slot: usize,
        /// Source elements (bound on the loop's element indices).
        rows: usize,
        /// How increments reach their targets.
        adds: Adds,
    },
    /// A compressed-row map from the set (to itself, or to another set).
    Star {
        /// The dat.
        dat: RawDat,
        /// Row starts (`rows + 1` values).
        start: *const u32,
        /// Targets.
        idx: *const u32,
        /// Rows.
        rows: usize,
        /// Whether the map goes from the set to itself (then an element
        /// has an own value in the dat, [`Star::own`]).
        own: bool,
    },
    /// A structured block's offsets (row stride `sy`, plane stride `sz`).
    Offsets {
        /// The dat.
        dat: RawDat,
        /// Elements between rows.
        sy: isize,
        /// Elements between planes.
        sz: isize,
    },
    /// A constant.
    Const {
        /// Its type.
        ty: ElemType,
        /// Values (f64 constants).
        f: [f64; MAX_CONST],
        /// Values (i32 constants).
        i: [i32; MAX_CONST],
        /// Number of values.
        dim: usize,
    },
    /// Work space made by the runner.
    Scratch,
    /// A reduction: values `offset..offset + dim` of the loop's partials.
    Reduce {
        /// The operation.
        op: Reduction,
        /// Values.
        dim: usize,
        /// Where its values go among the loop's reduced values.
        offset: usize,
    },
}

/// Most values of one constant passed to a kernel.
pub const MAX_CONST: usize = 16;
/// Most values of one reduction argument.
pub const MAX_REDUCE_DIM: usize = 4;
/// Most reduced values of one loop (all its reduction arguments).
pub const MAX_REDUCED: usize = 8;

// SAFETY: the pointers are into dats that outlive the loop call; the
// runner writes an element only from the chunk that owns it, and the layer
// runs loops with increments through maps on one thread, colour by colour
// (no two elements running at once share a target), or with atomic
// increments.
unsafe impl Send for RawArg {}
// SAFETY: as above.
unsafe impl Sync for RawArg {}

/// The reduced values of one loop call: partial results merged as chunks
/// finish (exact sums and min/max do not depend on the order).
#[derive(Clone, Debug)]
pub struct Partials {
    /// Exact sums.
    pub sums: [SumF64; MAX_REDUCED],
    /// Minima or maxima.
    pub ext: [f64; MAX_REDUCED],
    /// The operation of each value.
    pub ops: [Reduction; MAX_REDUCED],
    /// Values in use.
    pub n: usize,
}

impl Partials {
    /// Identities for the given operations (one per value).
    pub fn new(ops: &[Reduction]) -> Self {
        assert!(ops.len() <= MAX_REDUCED);
        let mut p = Partials {
            sums: Default::default(),
            ext: [0.0; MAX_REDUCED],
            ops: [Reduction::Sum; MAX_REDUCED],
            n: ops.len(),
        };
        for (k, &op) in ops.iter().enumerate() {
            p.ops[k] = op;
            p.ext[k] = identity(op);
        }
        p
    }

    /// Back to the identities.
    pub fn reset(&mut self) {
        for k in 0..self.n {
            self.sums[k] = SumF64::new();
            self.ext[k] = identity(self.ops[k]);
        }
    }

    /// Merges another set of partial results.
    pub fn merge(&mut self, o: &Partials) {
        for k in 0..self.n {
            match self.ops[k] {
                Reduction::Sum => self.sums[k].merge(&o.sums[k]),
                Reduction::Min => self.ext[k] = fmin(self.ext[k], o.ext[k]),
                Reduction::Max => self.ext[k] = fmax(self.ext[k], o.ext[k]),
            }
        }
    }

    /// Value `k`.
    pub fn value(&self, k: usize) -> f64 {
        match self.ops[k] {
            Reduction::Sum => self.sums[k].value(),
            _ => self.ext[k],
        }
    }
}

/// The identity of a reduction.
pub fn identity(op: Reduction) -> f64 {
    match op {
        Reduction::Sum => 0.0,
        Reduction::Min => f64::INFINITY,
        Reduction::Max => f64::NEG_INFINITY,
    }
}

/// `min` that keeps a NaN (a NaN contribution must not vanish).
#[inline(always)]
fn fmin(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// `max` that keeps a NaN.
#[inline(always)]
fn fmax(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

static BASELINE_ONLY: AtomicBool = AtomicBool::new(false);

/// Makes every runner use the target's baseline instruction set even where
/// the processor has AVX2 (for tests that compare the two builds; both give
/// the same bits, since neither contracts `a * b + c` into a fused
/// multiply-add).
pub fn set_baseline_only(yes: bool) {
    BASELINE_ONLY.store(yes, Ordering::SeqCst);
}

/// Whether runners use their AVX2 build.
#[inline]
pub fn use_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        !BASELINE_ONLY.load(Ordering::Relaxed) && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Calls `f` out of line: a loop's baseline build calls its kernel through
/// this where the loop runs no AVX2 build (`par_loop!`'s `where
/// avx2(false)`), as a function of its own.
#[inline(never)]
pub fn apart<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// A 64-byte aligned byte on a runner's stack ([`align_frame`]).
#[repr(C, align(64))]
struct FrameAnchor(u8);

/// Starts the calling function's frame on a cache line: every runner that
/// `par_loop!` generates calls it first (inlined into the runner).
///
/// A kernel inlined into a runner spills vector registers to the stack,
/// and a runner's frame is aligned to 16 bytes only: the compiler then
/// keeps 32-byte AVX values on slots aligned to 16, with unaligned moves,
/// and where the frame lands on the thread's stack decides which of them
/// straddle two cache lines, and so how fast the kernel runs. An object
/// aligned to 64 bytes whose address escapes makes the compiler realign
/// the frame before it allocates registers, and then it gives the 32-byte
/// spills aligned slots. 2D isothermal Euler of 4 nodes, serial, dats on
/// huge pages, over 256 stack depths (`crates/dg/benches/stack_depth.rs`):
/// quartiles of the PID 5.8-6.3e-9 and 6.0-6.9e-9 s in two runs without,
/// 5.7-6.0e-9 and 5.69-5.79e-9 with (docs/performance.md 8). The cost: one `and` of
/// the stack pointer per call of the runner, and the frame pointer
/// reserved.
#[inline(always)]
pub fn align_frame() {
    let mut anchor = FrameAnchor(0);
    std::hint::black_box(&mut anchor);
}
