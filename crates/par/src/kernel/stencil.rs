//! An element's neighbours as a kernel reads them: through a
//! compressed-row map ([`Star`], a point's stencil; [`StarRows`], the one
//! map every such argument of a loop reads through) or by offsets in a
//! structured block ([`Offsets`]). The views of `views.rs` and `line.rs`
//! make them.

use std::marker::PhantomData;
use std::ops::Range;

/// [`Star::own`] of a map to another set: no own value.
pub(crate) const NO_OWN: usize = usize::MAX;

/// An element and its neighbours through a compressed-row map, as a kernel
/// reads them: a point's stencil (a map from the set to itself, with the
/// element's own value), or a row of another set's elements (a cell's
/// nodes, any number of them).
#[derive(Clone, Copy)]
pub struct Star<'a, T> {
    pub(super) base: *const T,
    pub(super) row: *const u32,
    pub(super) n: u32,
    pub(super) own: usize,
    pub(super) _life: PhantomData<&'a T>,
}

impl<'a, T: Copy> Star<'a, T> {
    /// The row `row` of `values` (a map to another set: no own value), for
    /// code that calls a kernel itself (a hand-written runner, a test).
    /// Panics if an index of the row is outside `values`.
    pub fn of_row(values: &'a [T], row: &'a [u32]) -> Star<'a, T> {
        if let Some(&k) = row.iter().find(|&&k| k as usize >= values.len()) {
            panic!("a Star's row names value {k} of {}", values.len());
        }
        Star {
            base: values.as_ptr(),
            row: row.as_ptr(),
            n: row.len() as u32,
            own: NO_OWN,
            _life: PhantomData,
        }
    }

    /// Number of neighbours.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.n as usize
    }

    /// Whether there are no neighbours.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The element's own value (a map from the set to itself only: a
    /// row of another set's elements has none, and asking is a panic).
    #[inline(always)]
    pub fn own(&self) -> T {
        if self.own == NO_OWN {
            no_own();
        }
        // SAFETY: the view was made for an element of the set (`own` in
        // bounds, checked by the view).
        unsafe { *self.base.add(self.own) }
    }

    /// The value of neighbour `m` (`m < len()`), in the map's order.
    #[inline(always)]
    pub fn nbr(&self, m: usize) -> T {
        if m >= self.n as usize {
            nbr_out_of_range(m, self.n);
        }
        // SAFETY: `m` is in the row; the map's values were checked against
        // the target set's local size when the map was built.
        unsafe { *self.base.add(*self.row.add(m) as usize) }
    }
}

/// The panic of [`Star::own`] on a map to another set.
#[cold]
#[inline(never)]
#[track_caller]
fn no_own() -> ! {
    panic!("`own()` of a Star through a map to another set: its rows have no own value")
}

/// The panic of [`Star::nbr`], out of line: its arguments go by value, so
/// that the check keeps neither the view nor the index in memory.
#[cold]
#[inline(never)]
#[track_caller]
fn nbr_out_of_range(m: usize, n: u32) -> ! {
    panic!("neighbour {m} of {n}")
}

/// Whether a loop's `Star` arguments (their maps' names, `""` for other
/// arguments) all go through one map, and there is at least one: then its
/// runner finds each element's row once and hands it to every `Star` (see
/// [`super::LoopArgs::star_rows`]), so that the compiler sees one row, one length
/// and one index load per neighbour instead of one per argument.
pub const fn one_star_map(maps: &[&str]) -> bool {
    let mut first: &[u8] = b"";
    let mut k = 0;
    while k < maps.len() {
        let m = maps[k].as_bytes();
        if !m.is_empty() {
            if first.is_empty() {
                first = m;
            } else if !bytes_eq(first, m) {
                return false;
            }
        }
        k += 1;
    }
    !first.is_empty()
}

const fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut k = 0;
    while k < a.len() {
        if a[k] != b[k] {
            return false;
        }
        k += 1;
    }
    true
}

/// The rows of the one compressed-row map every `Star` argument of a loop
/// reads through (from [`super::LoopArgs::star_rows`]).
#[derive(Clone, Copy)]
pub struct StarRows<'a> {
    pub(super) start: *const u32,
    pub(super) idx: *const u32,
    pub(super) rows: usize,
    pub(super) _life: PhantomData<&'a u32>,
}

/// One element's row of a [`StarRows`].
#[derive(Clone, Copy)]
pub struct StarRow<'a> {
    pub(super) row: *const u32,
    pub(super) n: u32,
    pub(super) _life: PhantomData<&'a u32>,
}

impl<'a> StarRows<'a> {
    /// Checks the span against the map's rows.
    #[inline(always)]
    pub fn span(&self, r: &Range<usize>) {
        assert!(r.end <= self.rows);
    }

    /// Element `i`'s row (`i` in a checked span).
    #[inline(always)]
    pub fn row(&self, i: usize) -> StarRow<'a> {
        debug_assert!(i < self.rows);
        // SAFETY: `i` is a row (spans checked), `start` has `rows + 1`
        // values and every row lies within `idx`.
        unsafe {
            let s = *self.start.add(i);
            let e = *self.start.add(i + 1);
            StarRow {
                row: self.idx.add(s as usize),
                n: e - s,
                _life: PhantomData,
            }
        }
    }
}

/// A structured block's element and its neighbours by offset, as a kernel
/// reads them.
#[derive(Clone, Copy)]
pub struct Offsets<'a, T> {
    pub(super) base: *const T,
    pub(super) at: isize,
    pub(super) sy: isize,
    pub(super) sz: isize,
    pub(super) len: isize,
    pub(super) _life: PhantomData<&'a T>,
}

impl<'a, T> Offsets<'a, T> {
    /// Element `at` of a structured block held in `values` (rows of `sy`
    /// elements, planes of `sz`; 0 for unused dimensions), as a kernel
    /// sees it: for calling a kernel by hand, as tests do. Every read is
    /// checked against `values`.
    pub fn new(values: &'a [T], at: usize, sy: usize, sz: usize) -> Self {
        Offsets {
            base: values.as_ptr(),
            at: at as isize,
            sy: sy as isize,
            sz: sz as isize,
            len: values.len() as isize,
            _life: PhantomData,
        }
    }
}

impl<T: Copy> Offsets<'_, T> {
    /// The value at offset `(dx, dy, dz)` from the element (unused
    /// dimensions 0); within the declared stencil's reach.
    #[inline(always)]
    pub fn at(&self, dx: i32, dy: i32, dz: i32) -> T {
        let k = self.at + dx as isize + dy as isize * self.sy + dz as isize * self.sz;
        assert!(
            k >= 0 && k < self.len,
            "offset ({dx}, {dy}, {dz}) outside the halo"
        );
        // SAFETY: in bounds, checked above.
        unsafe { *self.base.add(k as usize) }
    }
}

impl<const N: usize> Offsets<'_, [f64; N]> {
    /// Value `k` of the element at offset `(dx, dy, dz)`, read alone (no
    /// copy of the whole element: for kernels that need a few values of a
    /// large neighbour, such as the face nodes of a DG cell).
    #[inline(always)]
    pub fn value(&self, dx: i32, dy: i32, dz: i32, k: usize) -> f64 {
        let e = self.at + dx as isize + dy as isize * self.sy + dz as isize * self.sz;
        assert!(
            e >= 0 && e < self.len,
            "offset ({dx}, {dy}, {dz}) outside the halo"
        );
        assert!(k < N, "value {k} of an element of {N}");
        // SAFETY: in bounds, checked above; only value `k` is read.
        unsafe { (*self.base.add(e as usize))[k] }
    }
}
