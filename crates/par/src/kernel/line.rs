//! What the kernel of a line loop ([`crate::decl::Axis`]) sees: one line
//! of a structured block's elements, every dat argument as a view of it.
//!
//! | loop argument | line kernel parameter |
//! |---|---|
//! | `read(D at S)` | [`LineOffsets<T>`]: each element's neighbourhood |
//! | `read(D)` | [`LineRead<T>`]: each element's value |
//! | `write(D)`, `rw(D)` | [`LineWrite<T>`]: each element's value, to set |
//! | `global(G)` | `T` by value |
//! | `min(G)`, `max(G)` | `&mut T`, from the identity for each line |
//! | `scratch(Type::new)` | `&mut Type`, made once per call of the runner |
//!
//! A line is handed to the runner as a span `first..last + 1` of local
//! element indices whose elements are `first`, `first + step`, ... (`step`
//! the block's stride along the axis: 1 along x, the row length along y),
//! so that a line along x is an ordinary span. Along x, a kernel may also
//! take a stretch of the line as one slice ([`LineOffsets::values`],
//! [`LineWrite::values_mut`]: checked once, not per element), and
//! [`LineOffsets::origin`] tells where the line lies, so that a kernel can
//! reuse what it computed for the previous line of the same call when
//! that was a known neighbour (results must not depend on it).

use std::marker::PhantomData;
use std::ops::Range;

use super::*;

/// One line of a block: elements `first + k step` for `k` in `0..len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    /// Its first element.
    pub first: usize,
    /// Elements between consecutive elements of the line.
    pub step: usize,
    /// Its elements.
    pub len: usize,
}

impl Line {
    /// The line a span `first..last + 1` gives with elements `step` apart.
    #[inline(always)]
    pub fn of(span: &Range<usize>, step: usize) -> Line {
        let n = if span.end > span.start {
            (span.end - span.start - 1) / step + 1
        } else {
            0
        };
        Line {
            first: span.start,
            step,
            len: n,
        }
    }

    /// The local index of element `k` of the line.
    #[inline(always)]
    pub fn element(&self, k: usize) -> usize {
        self.first + k * self.step
    }

    /// The index past its last element (the end of its span).
    pub fn end(&self) -> usize {
        if self.len == 0 {
            self.first
        } else {
            self.element(self.len - 1) + 1
        }
    }
}

/// The lines of a block's elements `spans` (rows along x) along the axis
/// whose stride is `strides[axis]`, in a block of `extent` elements per
/// direction: each element in exactly one line, a line never leaving its
/// row, column or plane of the block, and no longer than `piece`
/// elements; in the order of their first elements. Across x, lines of
/// `piece` elements in that order walk a band of rows side by side, each
/// row read in order (columns of a large block walked whole would touch a
/// new row, far in memory, at every element).
pub fn lines_of(
    spans: &[Range<usize>],
    extent: [usize; 3],
    axis: usize,
    piece: usize,
) -> Vec<Range<usize>> {
    let strides = [1, extent[0], extent[0] * extent[1]];
    let len: usize = extent.iter().product();
    let mut member = vec![false; len];
    for s in spans {
        for i in s.clone() {
            member[i] = true;
        }
    }
    let step = strides[axis];
    let coord = |i: usize| (i / step) % extent[axis];
    let mut out = Vec::new();
    for i in 0..len {
        let starts = member[i] && (coord(i) == 0 || !member[i - step]);
        if starts {
            let (mut first, mut last) = (i, i);
            loop {
                let more = coord(last) + 1 < extent[axis] && member[last + step];
                if !more || (last - first) / step + 1 == piece {
                    out.push(first..last + 1);
                    if !more {
                        break;
                    }
                    first = last + step;
                }
                last += step;
            }
        }
    }
    out.sort_by_key(|r| r.start);
    out
}

/// A dat read through a stencil along a line: each element's
/// neighbourhood.
#[derive(Clone, Copy)]
pub struct LineOffsets<'a, T> {
    at: Offsets<'a, T>,
    step: isize,
    n: usize,
}

impl<'a, T: Copy> LineOffsets<'a, T> {
    /// Elements of the line.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the line is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The neighbourhood of element `k` of the line (reads within the
    /// declared stencil's reach of an element of the line; `k` itself may
    /// lie before or after the line when the offsets bring it back, as
    /// `at(k - 1)` does for `at(k).at(-1, 0, 0)` along x).
    #[inline(always)]
    pub fn at(&self, k: isize) -> Offsets<'a, T> {
        Offsets {
            at: self.at.at + k * self.step,
            ..self.at
        }
    }

    /// Where the line lies: the local index of its first element and the
    /// block's strides along y and z (in elements). For a kernel that
    /// reuses what it computed for the previous line of the same call
    /// when that line is a known neighbour (the row below, say): its
    /// results must not depend on whether it was, as lines come in any
    /// order and a call may start at any line.
    #[inline(always)]
    pub fn origin(&self) -> (isize, isize, isize) {
        (self.at.at, self.at.sy, self.at.sz)
    }

    /// The values at offset `(dx, dy, dz)` from the elements `range` of a
    /// line along x (whose elements lie side by side) as one slice,
    /// checked once (within the declared stencil's reach, as
    /// [`Offsets::at`]): for a kernel that copies a stretch of a row at a
    /// time.
    #[inline(always)]
    pub fn values(&self, range: Range<usize>, dx: i32, dy: i32, dz: i32) -> &'a [T] {
        assert!(self.step == 1, "values(): a line along x");
        let n = range.end.saturating_sub(range.start);
        let k = self.at.at
            + range.start as isize
            + dx as isize
            + dy as isize * self.at.sy
            + dz as isize * self.at.sz;
        assert!(
            k >= 0 && k + n as isize <= self.at.len,
            "offset ({dx}, {dy}, {dz}) outside the halo"
        );
        // SAFETY: in bounds, checked above; the dat is only read while
        // the loop runs.
        unsafe { std::slice::from_raw_parts(self.at.base.add(k as usize), n) }
    }
}

/// A dat read directly along a line.
#[derive(Clone, Copy)]
pub struct LineRead<'a, T> {
    base: *const T,
    line: Line,
    _life: PhantomData<&'a T>,
}

impl<T: Copy> LineRead<'_, T> {
    /// Elements of the line.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.line.len
    }

    /// Whether the line is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.line.len == 0
    }

    /// The value of element `k` of the line.
    #[inline(always)]
    pub fn get(&self, k: usize) -> T {
        assert!(
            k < self.line.len,
            "element {k} of a line of {}",
            self.line.len
        );
        // SAFETY: the line lies within the dat (checked by its view).
        unsafe { *self.base.add(self.line.element(k)) }
    }
}

/// A dat written along a line: the kernel sets every element (and may read
/// back what it set).
pub struct LineWrite<'a, T> {
    base: *mut T,
    line: Line,
    _life: PhantomData<&'a mut T>,
}

impl<T: Copy> LineWrite<'_, T> {
    /// Elements of the line.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.line.len
    }

    /// Whether the line is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.line.len == 0
    }

    /// The value of element `k` of the line.
    #[inline(always)]
    pub fn get(&self, k: usize) -> T {
        assert!(
            k < self.line.len,
            "element {k} of a line of {}",
            self.line.len
        );
        // SAFETY: the line lies within the dat (checked by its view).
        unsafe { *self.base.add(self.line.element(k)) }
    }

    /// The elements `range` of a line along x (whose elements lie side by
    /// side) as one slice to write, checked once.
    #[inline(always)]
    pub fn values_mut(&mut self, range: Range<usize>) -> &mut [T] {
        assert!(self.line.step == 1, "values_mut(): a line along x");
        assert!(
            range.start <= range.end && range.end <= self.line.len,
            "elements {range:?} of a line of {}",
            self.line.len
        );
        // SAFETY: within the line (checked above), which lies within the
        // dat (checked by its view); every element belongs to one line
        // only, run by one thread, and `self` is borrowed while the slice
        // lives.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.base.add(self.line.first + range.start),
                range.end - range.start,
            )
        }
    }

    /// Sets element `k` of the line.
    #[inline(always)]
    pub fn set(&mut self, k: usize, v: T) {
        assert!(
            k < self.line.len,
            "element {k} of a line of {}",
            self.line.len
        );
        // SAFETY: the line lies within the dat (checked by its view), and
        // every element belongs to one line only, run by one thread.
        unsafe { *self.base.add(self.line.element(k)) = v }
    }
}

/// A line runner's view of a stencil read.
pub struct LineOffsetsView<'a, T> {
    inner: OffsetsView<'a, T>,
}

/// A line runner's view of a direct read.
pub struct LineReadView<'a, T> {
    base: *const T,
    len: usize,
    _life: PhantomData<&'a T>,
}

/// A line runner's view of a direct write.
pub struct LineWriteView<'a, T> {
    base: *mut T,
    len: usize,
    _life: PhantomData<&'a mut T>,
}

fn check_line(line: &Line, len: usize) {
    assert!(line.end() <= len, "line {line:?} outside its set of {len}");
}

impl<'a, T: Elem> LineOffsetsView<'a, T> {
    /// The line's view.
    #[inline(always)]
    pub fn line(&mut self, line: &Line) -> LineOffsets<'a, T> {
        check_line(line, self.inner.len as usize);
        LineOffsets {
            at: self.inner.arg(line.first),
            step: line.step as isize,
            n: line.len,
        }
    }

    /// Nothing to do after a line.
    #[inline(always)]
    pub fn after(&mut self) {}
}

impl<'a, T: Elem> LineReadView<'a, T> {
    /// The line's view.
    #[inline(always)]
    pub fn line(&mut self, line: &Line) -> LineRead<'a, T> {
        check_line(line, self.len);
        LineRead {
            base: self.base,
            line: *line,
            _life: PhantomData,
        }
    }

    /// Nothing to do after a line.
    #[inline(always)]
    pub fn after(&mut self) {}
}

impl<'a, T: Elem> LineWriteView<'a, T> {
    /// The line's view.
    #[inline(always)]
    pub fn line(&mut self, line: &Line) -> LineWrite<'a, T> {
        check_line(line, self.len);
        LineWrite {
            base: self.base,
            line: *line,
            _life: PhantomData,
        }
    }

    /// Nothing to do after a line.
    #[inline(always)]
    pub fn after(&mut self) {}
}

impl<T: Copy> ConstView<T> {
    /// The constant, for a line.
    #[inline(always)]
    pub fn line(&mut self, _: &Line) -> T {
        self.arg(0)
    }
}

impl<T> ScratchView<T> {
    /// The work space, for a line (the same for every line of the call).
    #[inline(always)]
    pub fn line(&mut self, _: &Line) -> &mut T {
        self.arg(0)
    }
}

impl<T: ReduceElem> ReduceView<'_, T> {
    /// The line's contribution, starting from the identity.
    #[inline(always)]
    pub fn line(&mut self, _: &Line) -> &mut T {
        self.arg(0)
    }
}

impl<'a> ArgCursor<'a> {
    /// A stencil read along lines.
    pub fn line_offsets<T: Elem>(&mut self) -> LineOffsetsView<'a, T> {
        LineOffsetsView {
            inner: self.offsets(),
        }
    }

    /// A direct read along lines.
    pub fn line_read<T: Elem>(&mut self) -> LineReadView<'a, T> {
        let v = self.read::<T>();
        LineReadView {
            base: v.ptr,
            len: v.len,
            _life: PhantomData,
        }
    }

    /// A direct write along lines.
    pub fn line_write<T: Elem>(&mut self) -> LineWriteView<'a, T> {
        let v = self.write::<T>();
        LineWriteView {
            base: v.ptr,
            len: v.len,
            _life: PhantomData,
        }
    }
}

impl LoopArgs<'_> {
    /// The stride along `axis` of the block a line loop runs on (from its
    /// stencil arguments' strides).
    pub fn line_step(&self, axis: usize) -> usize {
        let (sy, sz) = self
            .args
            .iter()
            .find_map(|a| match *a {
                RawArg::Offsets { sy, sz, .. } => Some((sy, sz)),
                _ => None,
            })
            .expect("a line loop reads a dat through a stencil");
        [1, sy as usize, sz as usize][axis]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 5 x 4 block's inner 3 x 2 box (the rows 1..3, columns 1..4), and
    /// the same box cut into two pieces.
    #[test]
    #[allow(clippy::single_range_in_vec_init)] // one span: a whole box
    fn lines_of_a_box_follow_its_rows_and_columns() {
        let extent = [5, 4, 1];
        let rows = vec![6..9, 11..14];
        assert_eq!(lines_of(&rows, extent, 0, usize::MAX), rows);
        assert_eq!(
            lines_of(&rows, extent, 1, usize::MAX),
            vec![6..12, 7..13, 8..14]
        );
        // Pieces of one element: every element its own line, in order.
        let ones: Vec<_> = [6, 7, 8, 11, 12, 13].iter().map(|&i| i..i + 1).collect();
        assert_eq!(lines_of(&rows, extent, 1, 1), ones);
        // A column cut where the spans leave a gap: two lines.
        let gappy = vec![6..9, 16..19];
        assert_eq!(
            lines_of(&gappy, extent, 1, 8),
            vec![6..7, 7..8, 8..9, 16..17, 17..18, 18..19]
        );
        // A line never wraps into the next row (x) or plane (y).
        let full = [0..20];
        assert_eq!(
            lines_of(&full, extent, 0, usize::MAX),
            vec![0..5, 5..10, 10..15, 15..20]
        );
        let cols = lines_of(&full, extent, 1, usize::MAX);
        assert_eq!(cols.len(), 5);
        assert_eq!(cols[0], 0..16);
        // Columns in pieces of 3 rows: band by band.
        let bands = lines_of(&full, extent, 1, 3);
        assert_eq!(bands.len(), 10);
        assert_eq!((bands[0].clone(), bands[4].clone()), (0..11, 4..15));
        assert_eq!((bands[5].clone(), bands[9].clone()), (15..16, 19..20));
        let one = [0..12];
        let planes = lines_of(&one, [2, 3, 2], 1, usize::MAX);
        assert_eq!(planes, vec![0..5, 1..6, 6..11, 7..12]);
    }

    #[test]
    fn a_line_counts_its_elements() {
        let l = Line::of(&(6..12), 5);
        assert_eq!((l.first, l.len, l.element(1), l.end()), (6, 2, 11, 12));
        assert_eq!(Line::of(&(3..9), 1).len, 6);
        assert_eq!(Line::of(&(3..3), 5).len, 0);
    }
}
