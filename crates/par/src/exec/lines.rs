//! Line loops ([`crate::decl::Axis`]): the owned elements of a block as
//! whole lines along the loop's axis; where the exchange overlaps, a first
//! share of the core's lines computed while the halos travel, then the
//! other owned elements as whole lines.

use std::ops::Range;

use super::{overlap_share, Exec};
use crate::decl::{ArgKind, LoopDecl};
use crate::kernel::{lines_of, Line};

/// Bytes of a band of rows of one dat that line pieces along y or z are
/// sized to: a column is handed out in pieces, consecutive pieces lying
/// side by side in a band of rows whose rows are read in order; a band of
/// about this size (a quarter of a 1 MB L2 cache) stays in the cache
/// while the pieces walk it and keeps the row streams few enough for the
/// hardware prefetcher. A kernel recomputes what it carries at each
/// piece's start, so pieces are at least [`MIN_PIECE`] long. For `lw`
/// (128-byte elements): 14 rows on 400 x 100 cells, 4 on 1600 x 400;
/// there, whole columns and pieces of 16 rows ran slower than pieces of 4
/// (docs/performance.md 5).
pub const BAND_BYTES: usize = 192 * 1024;
/// The shortest piece of a line along y or z.
pub const MIN_PIECE: usize = 4;

/// The length of the pieces a line loop `l` over rows of `row_elements`
/// elements gets its columns in.
fn piece(l: &LoopDecl, row_elements: usize) -> usize {
    let bytes = l
        .args
        .iter()
        .filter_map(|a| match a.kind {
            ArgKind::Dat { dat, .. } => Some(dat.dim * dat.ty.bytes()),
            _ => None,
        })
        .max()
        .unwrap_or(8);
    (BAND_BYTES / (row_elements * bytes).max(1)).max(MIN_PIECE)
}

/// A block's owned elements as lines along one axis.
#[derive(Clone, Debug, Default)]
pub(super) struct LineSpans {
    /// Every owned element's line.
    owned: Vec<Range<usize>>,
    /// The core's lines (they read no ghost).
    core: Vec<Range<usize>>,
    /// The other owned elements' lines.
    rest: Vec<Range<usize>>,
    /// The core's lines computed while the halos travel (on the CPU): the
    /// first eighth of the core, at least `POLL_CHUNK` elements.
    first: Vec<Range<usize>>,
    /// The owned elements not in `first`, as whole lines where they can
    /// be: computed once the halos are in.
    after: Vec<Range<usize>>,
}

impl Exec {
    /// The lines of `set` along the axis of line loop `l` (made on first
    /// use, per set, axis and piece length).
    fn line_spans(&mut self, l: &LoopDecl, set: usize) -> ((usize, usize, usize), LineSpans) {
        let s = &self.part.sets[set];
        let block = s.block.as_ref().unwrap_or_else(|| {
            panic!(
                "a line loop runs on a structured block; `{}` is not",
                s.decl.name
            )
        });
        let axis = l.line.expect("a line loop").index();
        // Rows whole; columns (and planes) in pieces walked band by band.
        let piece = if axis == 0 {
            usize::MAX
        } else {
            piece(l, block.extent[0])
        };
        let key = (set, axis, piece);
        if let Some(lines) = self.line_spans.remove(&key) {
            return (key, lines);
        }
        let lines = |spans: &[Range<usize>]| lines_of(spans, block.extent, axis, piece);
        let owned: Vec<Range<usize>> = s.owned_spans().cloned().collect();
        let step = block.strides()[axis];
        let core = lines(&s.core);
        let n: usize = core.iter().map(|r| Line::of(r, step).len).sum();
        let share = overlap_share(n);
        let (mut k, mut filled) = (0, 0);
        while k < core.len() && filled < share {
            filled += Line::of(&core[k], step).len;
            k += 1;
        }
        let first = core[..k].to_vec();
        // The owned elements less `first`'s.
        let mut member = vec![false; block.extent.iter().product()];
        for s in &owned {
            member[s.clone()].fill(true);
        }
        for r in &first {
            let l = Line::of(r, step);
            for j in 0..l.len {
                member[l.first + j * l.step] = false;
            }
        }
        let mut others = Vec::new();
        let mut i = 0;
        while i < member.len() {
            if member[i] {
                let start = i;
                while i < member.len() && member[i] {
                    i += 1;
                }
                others.push(start..i);
            } else {
                i += 1;
            }
        }
        let made = LineSpans {
            owned: lines(&owned),
            core,
            rest: lines(&s.rest),
            first,
            after: lines(&others),
        };
        (key, made)
    }

    /// Runs the line loop `l` on `set`, exchanging the halos of `groups`
    /// first (computing the core's lines meanwhile if the mode overlaps).
    pub(super) fn run_line_loop(&mut self, l: &'static LoopDecl, set: usize) -> Result<(), String> {
        let (key, lines) = self.line_spans(l, set);
        let groups = std::mem::take(&mut self.groups);
        let result = if groups.is_empty() {
            self.local.run(l, &lines.owned)
        } else {
            for &(s, mask) in &groups {
                self.start_exchange(s, mask);
            }
            if self.overlapping(&groups) {
                self.run_lines_overlapped(l, &lines, &groups)
            } else {
                self.finish_exchanges(&groups);
                self.local.run(l, &lines.owned)
            }
        };
        self.groups = groups;
        self.line_spans.insert(key, lines);
        result
    }

    /// The core's lines while the exchanges of `groups` travel, then the
    /// others; the exchanges finished in between. On a device: the whole
    /// core in one launch, then the rest's lines. On the CPU: the first
    /// share of the core (`first`), then every other owned element as
    /// whole lines (`after`, in memory order): run all after the core, the
    /// rest's pieces (a row cut by the halo: its ends) each started with
    /// cache misses and restarted what a line carries: 2 MPI ranks of
    /// `lw` on 1600 x 400 cells ran 7-10% slower overlapped than blocking
    /// (docs/performance.md 5).
    fn run_lines_overlapped(
        &mut self,
        l: &'static LoopDecl,
        lines: &LineSpans,
        groups: &[(usize, u64)],
    ) -> Result<(), String> {
        let asynchronous = self.local.asynchronous();
        let r = if asynchronous {
            let r = self.local.run(l, &lines.core);
            self.local.flush();
            r
        } else {
            self.local.run(l, &lines.first)
        };
        self.finish_exchanges(groups);
        r.and_then(|_| {
            let others = if asynchronous {
                &lines.rest
            } else {
                &lines.after
            };
            self.local.run(l, others)
        })
    }
}
