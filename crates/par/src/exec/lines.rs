//! Line loops ([`crate::decl::Axis`]): the owned elements of a block as
//! whole lines along the loop's axis, the core's lines computed while the
//! halos travel (whole lines between polls), then the rest's.

use std::ops::Range;

use super::{Exec, POLL_CHUNK};
use crate::decl::LoopDecl;
use crate::kernel::{lines_of, Line};

/// Most elements of a line along y or z the executor hands a kernel at
/// once: consecutive lines then lie side by side in a band of a few rows,
/// each row read in order, few enough streams for the hardware prefetcher
/// to follow. A kernel recomputes what it carries at each piece's start
/// (at 4 rows, a quarter to a half of its work again); on 1600 x 400 cells
/// whole columns and pieces of 16 rows ran slower than pieces of 4
/// (docs/performance.md section 12).
pub const LINE_PIECE: usize = 4;

/// A block's owned elements as lines along one axis.
#[derive(Clone, Debug, Default)]
pub(super) struct LineSpans {
    /// Every owned element's line.
    owned: Vec<Range<usize>>,
    /// The core's lines (they read no ghost).
    core: Vec<Range<usize>>,
    /// The other owned elements' lines.
    rest: Vec<Range<usize>>,
    /// The block's stride along the axis.
    step: usize,
}

impl Exec {
    /// The lines of `set` along `axis` (made on first use).
    fn line_spans(&mut self, set: usize, axis: usize) -> LineSpans {
        if let Some(s) = self.line_spans.remove(&(set, axis)) {
            return s;
        }
        let s = &self.part.sets[set];
        let block = s.block.as_ref().unwrap_or_else(|| {
            panic!(
                "a line loop runs on a structured block; `{}` is not",
                s.decl.name
            )
        });
        // Rows whole; columns (and planes) in pieces walked band by band.
        let piece = if axis == 0 { usize::MAX } else { LINE_PIECE };
        let lines = |spans: &[Range<usize>]| lines_of(spans, block.extent, axis, piece);
        let owned: Vec<Range<usize>> = s.owned_spans().cloned().collect();
        LineSpans {
            owned: lines(&owned),
            core: lines(&s.core),
            rest: lines(&s.rest),
            step: block.strides()[axis],
        }
    }

    /// Runs the line loop `l` on `set`, exchanging the halos of `groups`
    /// first (computing the core's lines meanwhile if the mode overlaps).
    pub(super) fn run_line_loop(&mut self, l: &'static LoopDecl, set: usize) -> Result<(), String> {
        let axis = l.line.expect("a line loop").index();
        let lines = self.line_spans(set, axis);
        let groups = std::mem::take(&mut self.groups);
        let result = if groups.is_empty() {
            self.local.run(l, &lines.owned)
        } else {
            for &(s, mask) in &groups {
                self.start_exchange(s, mask);
            }
            if self.mode.overlaps() {
                let r = self.run_core_lines(l, &lines, &groups);
                for &(s, mask) in &groups {
                    self.finish_exchange(s, mask);
                }
                r.and_then(|_| self.local.run(l, &lines.rest))
            } else {
                for &(s, mask) in &groups {
                    self.finish_exchange(s, mask);
                }
                self.local.run(l, &lines.owned)
            }
        };
        self.groups = groups;
        self.line_spans.insert((set, axis), lines);
        result
    }

    /// The core's lines while the exchanges of `groups` travel: whole lines
    /// of about `POLL_CHUNK` elements between polls on the CPU, one launch
    /// on a device.
    fn run_core_lines(
        &mut self,
        l: &'static LoopDecl,
        lines: &LineSpans,
        groups: &[(usize, u64)],
    ) -> Result<(), String> {
        if self.local.asynchronous() {
            let r = self.local.run(l, &lines.core);
            self.local.flush();
            return r;
        }
        let n: usize = lines.core.iter().map(|r| Line::of(r, lines.step).len).sum();
        let step = (n / 8).max(POLL_CHUNK);
        let mut result = Ok(());
        let (mut from, mut filled) = (0, 0);
        for (k, r) in lines.core.iter().enumerate() {
            filled += Line::of(r, lines.step).len;
            if filled >= step || k + 1 == lines.core.len() {
                result = result.and(self.local.run(l, &lines.core[from..=k]));
                from = k + 1;
                filled = 0;
                for &(s, mask) in groups {
                    if let Some(x) = self.exchanges.get_mut(&(s, mask)) {
                        x.progress();
                    }
                }
            }
        }
        result
    }
}
