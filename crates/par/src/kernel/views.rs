//! The typed views a CPU runner takes of its loop's arguments: each checks
//! the declaration against the kernel's parameter type once per call and
//! then hands the kernel its element's value, reference, neighbourhood,
//! constant, scratch or reduction slot.

use std::marker::PhantomData;
use std::ops::Range;
use std::sync::Mutex;

use bitrep::FastSumF64;

use super::*;

/// A loop's bound arguments and where its chunks' reductions go.
pub struct LoopArgs<'a> {
    /// The arguments, in the kernel's parameter order.
    pub args: &'a [RawArg],
    /// Partial reductions of the chunks done so far.
    pub sink: &'a Mutex<Partials>,
}

impl LoopArgs<'_> {
    /// The rows of the one map all `Star` arguments read through (a loop
    /// whose declaration has [`one_star_map`]): panics if the arguments'
    /// rows are not one map's.
    pub fn star_rows(&self) -> StarRows<'_> {
        let mut found: Option<(*const u32, *const u32, usize)> = None;
        for a in self.args {
            if let RawArg::Star {
                start, idx, rows, ..
            } = *a
            {
                match found {
                    None => found = Some((start, idx, rows)),
                    Some(f) => assert!(
                        f == (start, idx, rows),
                        "the loop's `Star` arguments go through different maps"
                    ),
                }
            }
        }
        let (start, idx, rows) = found.expect("the loop has a `Star` argument");
        StarRows {
            start,
            idx,
            rows,
            _life: PhantomData,
        }
    }

    /// Whether a dat of the arguments is stored as a structure of arrays
    /// (the runner then takes the views that copy per component; the
    /// array-of-structures runner has no layout test in its hot loop).
    pub fn any_soa(&self) -> bool {
        self.args.iter().any(|a| match *a {
            RawArg::Direct { dat, .. } | RawArg::Map { dat, .. } => dat.stride != 0,
            _ => false,
        })
    }

    /// Views of the arguments, taken in order by a runner.
    pub fn cursor(&self) -> ArgCursor<'_> {
        ArgCursor {
            args: self.args,
            sink: self.sink,
            next: 0,
        }
    }
}

/// Hands a runner its arguments' views in order, checking each against the
/// kernel's parameter type.
pub struct ArgCursor<'a> {
    args: &'a [RawArg],
    sink: &'a Mutex<Partials>,
    next: usize,
}

/// The array-of-structures views take dats stored that way only (the
/// runner with them runs when no argument is a structure of arrays).
fn check_aos(d: &RawDat, k: usize) {
    assert_eq!(
        d.stride, 0,
        "argument {k}: a structure of arrays in an array-of-structures runner"
    );
}

pub(super) fn check_elem<T: Elem>(d: &RawDat, k: usize) {
    assert!(
        d.ty == T::TY && d.dim == T::DIM,
        "argument {k}: the dat holds {} x {}, the kernel takes {} x {}",
        d.dim,
        d.ty.name(),
        T::DIM,
        T::TY.name()
    );
}

impl<'a> ArgCursor<'a> {
    pub(super) fn take(&mut self) -> (usize, RawArg) {
        let k = self.next;
        assert!(
            k < self.args.len(),
            "the kernel takes more arguments than the loop declares"
        );
        self.next += 1;
        (k, self.args[k])
    }

    /// A direct read.
    pub fn read<T: Elem>(&mut self) -> DirectRead<'a, T> {
        match self.take() {
            (k, RawArg::Direct { dat, .. }) => {
                check_elem::<T>(&dat, k);
                check_aos(&dat, k);
                DirectRead {
                    ptr: dat.ptr as *const T,
                    len: dat.len,
                    _life: PhantomData,
                }
            }
            (k, other) => panic!("argument {k}: declared {other:?}, used as a direct read"),
        }
    }

    /// A direct write, read-write or increment.
    pub fn write<T: Elem>(&mut self) -> DirectWrite<'a, T> {
        match self.take() {
            (k, RawArg::Direct { dat, access }) if access.writes() => {
                check_elem::<T>(&dat, k);
                check_aos(&dat, k);
                DirectWrite {
                    ptr: dat.ptr as *mut T,
                    len: dat.len,
                    _life: PhantomData,
                }
            }
            (k, other) => panic!("argument {k}: declared {other:?}, used as a direct write"),
        }
    }

    /// A read or increment through slot `k` of a fixed-arity map.
    pub fn mapped<T: Elem>(&mut self) -> Mapped<'a, T> {
        match self.take() {
            (
                k,
                RawArg::Map {
                    dat,
                    map,
                    arity,
                    slot,
                    rows,
                    ..
                },
            ) => {
                check_elem::<T>(&dat, k);
                check_aos(&dat, k);
                Mapped {
                    ptr: dat.ptr as *mut T,
                    map,
                    arity,
                    slot,
                    rows,
                    _life: PhantomData,
                }
            }
            (k, other) => panic!("argument {k}: declared {other:?}, used through a map"),
        }
    }

    /// An increment through slot `k` of a fixed-arity map.
    pub fn mapped_inc<T: Elem, const SOA: bool>(&mut self) -> MappedInc<'a, T, SOA> {
        match self.take() {
            (
                k,
                RawArg::Map {
                    dat,
                    map,
                    arity,
                    slot,
                    rows,
                    adds,
                    ..
                },
            ) => {
                check_elem::<T>(&dat, k);
                MappedInc {
                    adds,
                    stride: dat.stride,
                    ptr: dat.ptr as *mut T,
                    map,
                    arity,
                    slot,
                    rows,
                    local: T::zero(),
                    target: 0,
                    _life: PhantomData,
                }
            }
            (k, other) => panic!("argument {k}: declared {other:?}, incremented through a map"),
        }
    }

    /// A read through a compressed-row map.
    pub fn star<T: Elem>(&mut self) -> StarView<'a, T> {
        match self.take() {
            (
                k,
                RawArg::Star {
                    dat,
                    start,
                    idx,
                    rows,
                    own,
                },
            ) => {
                check_elem::<T>(&dat, k);
                assert_eq!(
                    dat.stride, 0,
                    "argument {k}: a Star reads arrays of structures"
                );
                StarView {
                    base: dat.ptr as *const T,
                    start,
                    idx,
                    rows,
                    own,
                    _life: PhantomData,
                }
            }
            (k, other) => panic!("argument {k}: declared {other:?}, used as a Star"),
        }
    }

    /// A read through stencil offsets.
    pub fn offsets<T: Elem>(&mut self) -> OffsetsView<'a, T> {
        match self.take() {
            (k, RawArg::Offsets { dat, sy, sz }) => {
                check_elem::<T>(&dat, k);
                assert_eq!(
                    dat.stride, 0,
                    "argument {k}: offsets read arrays of structures"
                );
                OffsetsView {
                    base: dat.ptr as *const T,
                    sy,
                    sz,
                    len: dat.len as isize,
                    _life: PhantomData,
                }
            }
            (k, other) => panic!("argument {k}: declared {other:?}, used as Offsets"),
        }
    }

    /// A constant.
    pub fn global<T: ConstElem>(&mut self) -> ConstView<T> {
        match self.take() {
            (k, RawArg::Const { ty, f, i, dim }) => {
                assert!(
                    ty == T::TY && dim == T::DIM,
                    "argument {k}: the global holds {dim} x {}, the kernel takes {} x {}",
                    ty.name(),
                    T::DIM,
                    T::TY.name()
                );
                ConstView {
                    v: T::from_values(&f, &i),
                }
            }
            (k, other) => panic!("argument {k}: declared {other:?}, used as a constant"),
        }
    }

    /// A reduction.
    pub fn reduce<T: ReduceElem>(&mut self) -> ReduceView<'a, T> {
        match self.take() {
            (k, RawArg::Reduce { op, dim, offset }) => {
                assert!(
                    dim == T::DIM && T::TY == ElemType::F64 && dim <= MAX_REDUCE_DIM,
                    "argument {k}: the reduction has {dim} values, the kernel takes {}",
                    T::DIM
                );
                ReduceView {
                    op,
                    offset,
                    dim,
                    sums: Default::default(),
                    ext: [identity(op); MAX_REDUCE_DIM],
                    scratch: T::splat(identity(op)),
                    sink: self.sink,
                }
            }
            (k, other) => panic!("argument {k}: declared {other:?}, used as a reduction"),
        }
    }

    /// Work space, made once per call of the runner.
    pub fn scratch<T>(&mut self, init: T) -> ScratchView<T> {
        match self.take() {
            (_, RawArg::Scratch) => ScratchView { v: init },
            (k, other) => panic!("argument {k}: declared {other:?}, used as scratch"),
        }
    }

    /// Checks that the kernel took every declared argument.
    pub fn done(&self) {
        assert!(
            self.next == self.args.len(),
            "the loop declares {} arguments, the kernel takes {}",
            self.args.len(),
            self.next
        );
    }
}

/// A direct read view.
pub struct DirectRead<'a, T> {
    pub(super) ptr: *const T,
    pub(super) len: usize,
    _life: PhantomData<&'a T>,
}

impl<T: Elem> DirectRead<'_, T> {
    /// Element `i`'s value.
    #[inline(always)]
    pub fn arg(&mut self, i: usize) -> &T {
        debug_assert!(i < self.len);
        // SAFETY: spans are within the set (checked by the backend).
        unsafe { &*self.ptr.add(i) }
    }

    /// Nothing to do after a kernel call.
    #[inline(always)]
    pub fn after(&mut self) {}

    /// Checks the span against the set (once per span).
    #[inline(always)]
    pub fn span(&self, r: &Range<usize>) {
        assert!(r.end <= self.len);
    }
}

/// A direct write view.
pub struct DirectWrite<'a, T> {
    pub(super) ptr: *mut T,
    pub(super) len: usize,
    _life: PhantomData<&'a mut T>,
}

impl<T: Elem> DirectWrite<'_, T> {
    /// Element `i`'s value, to write.
    #[inline(always)]
    pub fn arg(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.len);
        // SAFETY: spans are within the set, and every element is handed to
        // exactly one chunk.
        unsafe { &mut *self.ptr.add(i) }
    }

    /// Nothing to do after a kernel call.
    #[inline(always)]
    pub fn after(&mut self) {}

    /// Checks the span against the set.
    #[inline(always)]
    pub fn span(&self, r: &Range<usize>) {
        assert!(r.end <= self.len);
    }
}

/// A view through a fixed-arity map.
pub struct Mapped<'a, T> {
    ptr: *mut T,
    map: *const u32,
    arity: usize,
    slot: usize,
    rows: usize,
    _life: PhantomData<&'a mut T>,
}

impl<T: Elem> Mapped<'_, T> {
    /// The target of element `i`, to read (a shared reference: threads
    /// reading one target at once each hold one; a `&mut` here would alias).
    #[inline(always)]
    pub fn arg(&mut self, i: usize) -> &T {
        debug_assert!(i < self.rows);
        // SAFETY: the map's values were checked against the target set;
        // the loop only reads the dat (increments go through `MappedInc`).
        unsafe {
            &*self
                .ptr
                .add(*self.map.add(i * self.arity + self.slot) as usize)
        }
    }

    /// Nothing to do after a kernel call.
    #[inline(always)]
    pub fn after(&mut self) {}

    /// Checks the span against the map's rows.
    #[inline(always)]
    pub fn span(&self, r: &Range<usize>) {
        assert!(r.end <= self.rows);
    }
}

/// An increment through a fixed-arity map: the kernel adds to a zeroed
/// local value, which is added to the target after the call (as OP2
/// does), so two arguments may increment the same dat, even the same
/// element.
pub struct MappedInc<'a, T, const SOA: bool> {
    ptr: *mut T,
    map: *const u32,
    arity: usize,
    slot: usize,
    rows: usize,
    local: T,
    target: usize,
    adds: Adds,
    /// Structure of arrays (see [`RawDat::stride`]).
    stride: usize,
    _life: PhantomData<&'a mut T>,
}

impl<T: Elem, const SOA: bool> MappedInc<'_, T, SOA> {
    /// A zeroed local value for element `i`'s increment.
    #[inline(always)]
    pub fn arg(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.rows);
        // SAFETY: `i` is a row of the map (spans checked).
        self.target = unsafe { *self.map.add(i * self.arity + self.slot) } as usize;
        self.local = T::zero();
        &mut self.local
    }

    /// Adds the kernel's increment to its target (atomically when the
    /// loop's plan runs elements that share targets at once; not at all
    /// when the plan gives the target to another part).
    #[inline(always)]
    pub fn after(&mut self) {
        let atomic = match self.adds {
            Adds::Plain => false,
            Adds::Atomic => true,
            Adds::Owned { lo, hi } => {
                if !(lo as usize..hi as usize).contains(&self.target) {
                    return;
                }
                false
            }
        };
        // SAFETY: the map's values were checked against the target set;
        // loops that increment through maps run on one thread, or colour by
        // colour (no two elements running at once share a target), or with
        // every increment atomic, or each part adding only to targets it
        // owns.
        unsafe {
            if SOA && self.stride != 0 {
                return self
                    .local
                    .add_soa(self.ptr as *mut u8, self.target, self.stride, atomic);
            }
            let target = self.ptr.add(self.target);
            if atomic {
                self.local.add_atomic(target)
            } else {
                self.local.add_to(&mut *target)
            }
        }
    }

    /// Checks the span against the map's rows.
    #[inline(always)]
    pub fn span(&self, r: &Range<usize>) {
        assert!(r.end <= self.rows);
    }
}

/// A view through a compressed-row map.
pub struct StarView<'a, T> {
    base: *const T,
    start: *const u32,
    idx: *const u32,
    rows: usize,
    /// The map goes from the set to itself: element `i` owns value `i`.
    own: bool,
    _life: PhantomData<&'a T>,
}

impl<'a, T: Elem> StarView<'a, T> {
    /// Element `i` and its neighbours.
    #[inline(always)]
    pub fn arg(&mut self, i: usize) -> Star<'a, T> {
        debug_assert!(i < self.rows);
        // SAFETY: `i` is a row (spans checked), `start` has `rows + 1`
        // values and every row lies within `idx`.
        unsafe {
            let s = *self.start.add(i);
            let e = *self.start.add(i + 1);
            Star {
                base: self.base,
                row: self.idx.add(s as usize),
                n: e - s,
                own: if self.own { i } else { super::stencil::NO_OWN },
                _life: PhantomData,
            }
        }
    }

    /// Nothing to do after a kernel call.
    #[inline(always)]
    pub fn after(&mut self) {}

    /// Checks the span against the map's rows.
    #[inline(always)]
    pub fn span(&self, r: &Range<usize>) {
        assert!(r.end <= self.rows);
    }
}

/// A view through stencil offsets.
pub struct OffsetsView<'a, T> {
    base: *const T,
    sy: isize,
    sz: isize,
    pub(super) len: isize,
    _life: PhantomData<&'a T>,
}

impl<'a, T: Elem> OffsetsView<'a, T> {
    /// Element `i`'s neighbourhood.
    #[inline(always)]
    pub fn arg(&mut self, i: usize) -> Offsets<'a, T> {
        Offsets {
            base: self.base,
            at: i as isize,
            sy: self.sy,
            sz: self.sz,
            len: self.len,
            _life: PhantomData,
        }
    }

    /// Nothing to do after a kernel call.
    #[inline(always)]
    pub fn after(&mut self) {}

    /// Checks the span against the block.
    #[inline(always)]
    pub fn span(&self, r: &Range<usize>) {
        assert!(r.end as isize <= self.len);
    }
}

/// A constant's view.
pub struct ConstView<T> {
    v: T,
}

impl<T: Copy> ConstView<T> {
    /// The constant.
    #[inline(always)]
    pub fn arg(&mut self, _: usize) -> T {
        self.v
    }

    /// Nothing to do after a kernel call.
    #[inline(always)]
    pub fn after(&mut self) {}

    /// Nothing to check.
    #[inline(always)]
    pub fn span(&self, _: &Range<usize>) {}
}

/// Work space's view.
pub struct ScratchView<T> {
    v: T,
}

impl<T> ScratchView<T> {
    /// The work space.
    #[inline(always)]
    pub fn arg(&mut self, _: usize) -> &mut T {
        &mut self.v
    }

    /// Nothing to do after a kernel call.
    #[inline(always)]
    pub fn after(&mut self) {}

    /// Nothing to check.
    #[inline(always)]
    pub fn span(&self, _: &Range<usize>) {}
}

/// A reduction's view: each element starts from the identity; its result
/// is folded into the chunk's partial result after the kernel call. Sums
/// go through `bitrep`'s streaming accumulator ([`FastSumF64`]: no carry
/// propagation per value), which finishes into the same exact [`SumF64`]
/// as adding each value to it directly.
pub struct ReduceView<'a, T> {
    op: Reduction,
    offset: usize,
    dim: usize,
    sums: [FastSumF64; MAX_REDUCE_DIM],
    ext: [f64; MAX_REDUCE_DIM],
    scratch: T,
    sink: &'a Mutex<Partials>,
}

impl<T: ReduceElem> ReduceView<'_, T> {
    /// The element's contribution, starting from the identity.
    #[inline(always)]
    pub fn arg(&mut self, _: usize) -> &mut T {
        self.scratch = T::splat(identity(self.op));
        &mut self.scratch
    }

    /// Folds the element's contribution in.
    #[inline(always)]
    pub fn after(&mut self) {
        for c in 0..T::DIM {
            let v = self.scratch.get(c);
            match self.op {
                Reduction::Sum => self.sums[c].add(v),
                Reduction::Min => self.ext[c] = fmin(self.ext[c], v),
                Reduction::Max => self.ext[c] = fmax(self.ext[c], v),
            }
        }
    }

    /// Nothing to check.
    #[inline(always)]
    pub fn span(&self, _: &Range<usize>) {}
}

impl<T> Drop for ReduceView<'_, T> {
    /// Hands the chunk's partial result to the loop.
    fn drop(&mut self) {
        let mut p = match self.sink.lock() {
            Ok(p) => p,
            Err(e) => e.into_inner(),
        };
        for c in 0..self.dim {
            let k = self.offset + c;
            match self.op {
                Reduction::Sum => p.sums[k].merge(&self.sums[c].finish()),
                Reduction::Min => p.ext[k] = fmin(p.ext[k], self.ext[c]),
                Reduction::Max => p.ext[k] = fmax(p.ext[k], self.ext[c]),
            }
        }
    }
}

impl<'a, T: Elem> StarView<'a, T> {
    /// Element `i` and its neighbours, with the element's row `row`.
    ///
    /// # Safety
    ///
    /// `row` is element `i`'s row of this view's map: from
    /// [`LoopArgs::star_rows`] of the arguments this view was taken from,
    /// for an `i` of a checked span.
    #[inline(always)]
    pub unsafe fn arg_row(&mut self, i: usize, row: &StarRow<'_>) -> Star<'a, T> {
        debug_assert!(i < self.rows && row.n == self.len_of(i));
        Star {
            base: self.base,
            row: row.row,
            n: row.n,
            own: if self.own { i } else { super::stencil::NO_OWN },
            _life: PhantomData,
        }
    }

    fn len_of(&self, i: usize) -> u32 {
        // SAFETY: `i` is a row (debug check only).
        unsafe { *self.start.add(i + 1) - *self.start.add(i) }
    }
}
