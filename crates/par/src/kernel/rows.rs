//! `arg_row` of every view: what the runner of a loop whose `Star`
//! arguments share one map calls, passing each view the element's row
//! (only a `Star` view uses it).

use super::views::*;
use super::*;

impl<T: Elem> DirectRead<'_, T> {
    /// [`Self::arg`] (a runner with one `Star` map passes every view the
    /// element's row; only [`StarView`] uses it).
    ///
    /// # Safety
    ///
    /// None beyond [`Self::arg`]'s protocol.
    #[inline(always)]
    pub unsafe fn arg_row(&mut self, i: usize, _row: &StarRow<'_>) -> &T {
        self.arg(i)
    }
}

impl<T: Elem> DirectWrite<'_, T> {
    /// [`Self::arg`] (a runner with one `Star` map passes every view the
    /// element's row; only [`StarView`] uses it).
    ///
    /// # Safety
    ///
    /// None beyond [`Self::arg`]'s protocol.
    #[inline(always)]
    pub unsafe fn arg_row(&mut self, i: usize, _row: &StarRow<'_>) -> &mut T {
        self.arg(i)
    }
}

impl<T: Elem> Mapped<'_, T> {
    /// [`Self::arg`] (a runner with one `Star` map passes every view the
    /// element's row; only [`StarView`] uses it).
    ///
    /// # Safety
    ///
    /// None beyond [`Self::arg`]'s protocol.
    #[inline(always)]
    pub unsafe fn arg_row(&mut self, i: usize, _row: &StarRow<'_>) -> &T {
        self.arg(i)
    }
}

impl<T: Elem, const SOA: bool> MappedInc<'_, T, SOA> {
    /// [`Self::arg`] (a runner with one `Star` map passes every view the
    /// element's row; only [`StarView`] uses it).
    ///
    /// # Safety
    ///
    /// None beyond [`Self::arg`]'s protocol.
    #[inline(always)]
    pub unsafe fn arg_row(&mut self, i: usize, _row: &StarRow<'_>) -> &mut T {
        self.arg(i)
    }
}

impl<'a, T: Elem> OffsetsView<'a, T> {
    /// [`Self::arg`] (a runner with one `Star` map passes every view the
    /// element's row; only [`StarView`] uses it).
    ///
    /// # Safety
    ///
    /// None beyond [`Self::arg`]'s protocol.
    #[inline(always)]
    pub unsafe fn arg_row(&mut self, i: usize, _row: &StarRow<'_>) -> Offsets<'a, T> {
        self.arg(i)
    }
}

impl<T: Copy> ConstView<T> {
    /// [`Self::arg`] (a runner with one `Star` map passes every view the
    /// element's row; only [`StarView`] uses it).
    ///
    /// # Safety
    ///
    /// None beyond [`Self::arg`]'s protocol.
    #[inline(always)]
    pub unsafe fn arg_row(&mut self, i: usize, _row: &StarRow<'_>) -> T {
        self.arg(i)
    }
}

impl<T> ScratchView<T> {
    /// [`Self::arg`] (a runner with one `Star` map passes every view the
    /// element's row; only [`StarView`] uses it).
    ///
    /// # Safety
    ///
    /// None beyond [`Self::arg`]'s protocol.
    #[inline(always)]
    pub unsafe fn arg_row(&mut self, i: usize, _row: &StarRow<'_>) -> &mut T {
        self.arg(i)
    }
}

impl<T: ReduceElem> ReduceView<'_, T> {
    /// [`Self::arg`] (a runner with one `Star` map passes every view the
    /// element's row; only [`StarView`] uses it).
    ///
    /// # Safety
    ///
    /// None beyond [`Self::arg`]'s protocol.
    #[inline(always)]
    pub unsafe fn arg_row(&mut self, i: usize, _row: &StarRow<'_>) -> &mut T {
        self.arg(i)
    }
}
