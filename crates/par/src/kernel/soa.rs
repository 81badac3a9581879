//! The views of the runner built for loops with a dat stored as a
//! structure of arrays ([`crate::layout`]): a dat so stored is copied per
//! component into a local value for the kernel (and back after a write);
//! a dat stored as an array of structures is read in place. The
//! array-of-structures runner uses the plain views of [`super::views`],
//! which carry none of this.

use std::marker::PhantomData;
use std::ops::Range;

use super::views::{check_elem, ArgCursor};
use super::StarRow;
use super::{Elem, RawArg};

impl<'a> ArgCursor<'a> {
    /// A direct read.
    pub fn read_soa<T: Elem>(&mut self) -> DirectReadSoa<'a, T> {
        match self.take() {
            (k, RawArg::Direct { dat, .. }) => {
                check_elem::<T>(&dat, k);
                DirectReadSoa {
                    ptr: dat.ptr as *const T,
                    len: dat.len,
                    stride: dat.stride,
                    local: T::zero(),
                    _life: PhantomData,
                }
            }
            (k, other) => panic!("argument {k}: declared {other:?}, used as a direct read"),
        }
    }

    /// A direct write, read-write or increment.
    pub fn write_soa<T: Elem>(&mut self) -> DirectWriteSoa<'a, T> {
        match self.take() {
            (k, RawArg::Direct { dat, access }) if access.writes() => {
                check_elem::<T>(&dat, k);
                DirectWriteSoa {
                    ptr: dat.ptr as *mut T,
                    len: dat.len,
                    stride: dat.stride,
                    local: T::zero(),
                    at: 0,
                    _life: PhantomData,
                }
            }
            (k, other) => panic!("argument {k}: declared {other:?}, used as a direct write"),
        }
    }

    /// A read through slot `k` of a fixed-arity map.
    pub fn mapped_soa<T: Elem>(&mut self) -> MappedSoa<'a, T> {
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
                MappedSoa {
                    ptr: dat.ptr as *mut T,
                    map,
                    arity,
                    slot,
                    rows,
                    stride: dat.stride,
                    local: T::zero(),
                    _life: PhantomData,
                }
            }
            (k, other) => panic!("argument {k}: declared {other:?}, used through a map"),
        }
    }
}

/// A direct read view of a dat that may be a structure of arrays.
pub struct DirectReadSoa<'a, T> {
    ptr: *const T,
    len: usize,
    /// Structure of arrays (see [`RawDat::stride`]): values are copied.
    stride: usize,
    local: T,
    _life: PhantomData<&'a T>,
}

impl<T: Elem> DirectReadSoa<'_, T> {
    /// Element `i`'s value.
    #[inline(always)]
    pub fn arg(&mut self, i: usize) -> &T {
        debug_assert!(i < self.len);
        if self.stride != 0 {
            // SAFETY: `i` is within the set, whose `DIM` arrays of
            // `stride` values start at `ptr`.
            self.local = unsafe { T::load_soa(self.ptr as *const u8, i, self.stride) };
            return &self.local;
        }
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

/// A direct write view of a dat that may be a structure of arrays.
pub struct DirectWriteSoa<'a, T> {
    ptr: *mut T,
    len: usize,
    /// Structure of arrays (see [`RawDat::stride`]): the value is copied
    /// in, and back after the call.
    stride: usize,
    local: T,
    at: usize,
    _life: PhantomData<&'a mut T>,
}

impl<T: Elem> DirectWriteSoa<'_, T> {
    /// Element `i`'s value, to write.
    #[inline(always)]
    pub fn arg(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.len);
        if self.stride != 0 {
            self.at = i;
            // SAFETY: as in `DirectReadSoa::arg`.
            self.local = unsafe { T::load_soa(self.ptr as *const u8, i, self.stride) };
            return &mut self.local;
        }
        // SAFETY: spans are within the set, and every element is handed to
        // exactly one chunk.
        unsafe { &mut *self.ptr.add(i) }
    }

    /// Stores a copied value back.
    #[inline(always)]
    pub fn after(&mut self) {
        if self.stride != 0 {
            // SAFETY: element `at` of this chunk (as in `arg`).
            unsafe {
                self.local
                    .store_soa(self.ptr as *mut u8, self.at, self.stride)
            }
        }
    }

    /// Checks the span against the set.
    #[inline(always)]
    pub fn span(&self, r: &Range<usize>) {
        assert!(r.end <= self.len);
    }
}

/// A view through a fixed-arity map of a dat that may be a structure of
/// arrays.
pub struct MappedSoa<'a, T> {
    ptr: *mut T,
    map: *const u32,
    arity: usize,
    slot: usize,
    rows: usize,
    /// Structure of arrays (see [`RawDat::stride`]): values are copied.
    stride: usize,
    local: T,
    _life: PhantomData<&'a mut T>,
}

impl<T: Elem> MappedSoa<'_, T> {
    /// The target of element `i`, to read (a shared reference, as
    /// [`crate::kernel::Mapped::arg`]).
    #[inline(always)]
    pub fn arg(&mut self, i: usize) -> &T {
        debug_assert!(i < self.rows);
        if self.stride != 0 {
            // SAFETY: the map's values were checked against the target
            // set, whose `DIM` arrays of `stride` values start at `ptr`.
            unsafe {
                let t = *self.map.add(i * self.arity + self.slot) as usize;
                self.local = T::load_soa(self.ptr as *const u8, t, self.stride);
            }
            return &self.local;
        }
        // SAFETY: the map's values were checked against the target set;
        // the loop only reads the dat.
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

impl<T: Elem> DirectReadSoa<'_, T> {
    /// [`Self::arg`] (a runner with one `Star` map passes every view the
    /// element's row; only a `Star` view uses it).
    ///
    /// # Safety
    ///
    /// None beyond [`Self::arg`]'s protocol.
    #[inline(always)]
    pub unsafe fn arg_row(&mut self, i: usize, _row: &StarRow<'_>) -> &T {
        self.arg(i)
    }
}

impl<T: Elem> DirectWriteSoa<'_, T> {
    /// [`Self::arg`], as [`DirectReadSoa::arg_row`].
    ///
    /// # Safety
    ///
    /// None beyond [`Self::arg`]'s protocol.
    #[inline(always)]
    pub unsafe fn arg_row(&mut self, i: usize, _row: &StarRow<'_>) -> &mut T {
        self.arg(i)
    }
}

impl<T: Elem> MappedSoa<'_, T> {
    /// [`Self::arg`], as [`DirectReadSoa::arg_row`].
    ///
    /// # Safety
    ///
    /// None beyond [`Self::arg`]'s protocol.
    #[inline(always)]
    pub unsafe fn arg_row(&mut self, i: usize, _row: &StarRow<'_>) -> &T {
        self.arg(i)
    }
}
