//! How a loop's elements run around the halo exchanges it needs: in one
//! go (the halos refreshed first, or by the loop itself on one rank), or
//! the core while the exchanges travel and then the rest.

use std::ops::Range;

use crate::decl::LoopDecl;

use super::{in_memory_order, overlap_share, Exec};

impl Exec {
    /// Runs `l` (of key `key`) over every element of `set` it runs on in
    /// one go; on one rank whose halo of `set` is a copy of its own
    /// elements, the dats it writes in place that loops read through the
    /// halo get their halos refreshed by the loop's own parts where the
    /// backend can ([`LocalBackend::run_copying`]; listed in `fused`).
    pub(super) fn run_owned(
        &mut self,
        l: &'static LoopDecl,
        key: usize,
        set: usize,
    ) -> Result<(), String> {
        let all = self.all_spans(l);
        let spans = std::mem::take(&mut all(self)[set]);
        let mut decls = std::mem::take(&mut self.fused_decls);
        decls.clear();
        // (`exchanges_with_itself`: one rank, halo pairs one to one.)
        if self.exchanged[set] && !l.has_indirect_increment() && self.exchanges_with_itself(set) {
            for &(d, s) in &self.loops[&key].in_place {
                if s == set && self.halo_read[d] {
                    self.fused.push(d);
                    decls.push(self.part.dats[d].decl);
                }
            }
        }
        let r = if decls.is_empty() {
            self.local.run(l, &spans)
        } else {
            let part = &self.part;
            let (from, to) = self.self_pairs.entry(set).or_insert_with(|| {
                let peers = &part.sets[set].peers;
                let from = peers.iter().flat_map(|p| p.send.iter().copied()).collect();
                let to = peers.iter().flat_map(|p| p.recv.iter().copied()).collect();
                (from, to)
            });
            let r = self.local.run_copying(l, &spans, &decls, from, to);
            if r != Ok(true) {
                // Not copied: the halos stay stale.
                self.fused.clear();
            }
            r.map(|_| ())
        };
        self.fused_decls = decls;
        all(self)[set] = spans;
        r
    }

    pub(super) fn run_exchanging(
        &mut self,
        l: &'static LoopDecl,
        key: usize,
        set: usize,
    ) -> Result<(), String> {
        let groups = std::mem::take(&mut self.groups);
        for &(s, mask) in &groups {
            self.start_exchange(s, mask);
        }
        let result = if self.overlapping(&groups)
            && !l.has_indirect_increment()
            && !self.local.asynchronous()
        {
            self.run_gather_overlapped(l, set, &groups)
        } else if self.overlapping(&groups) {
            let r = self.run_core(l, set, &groups);
            self.finish_exchanges(&groups);
            r.and_then(|_| {
                let mut rest = std::mem::take(&mut self.scratch);
                rest.clear();
                rest.extend(self.part.sets[set].rest.iter().cloned());
                if l.has_indirect_increment() {
                    rest.extend(self.part.sets[set].exec.iter().cloned());
                }
                let r = self.local.run(l, &rest);
                self.scratch = rest;
                r
            })
        } else {
            self.finish_exchanges(&groups);
            self.run_owned(l, key, set)
        };
        self.groups = groups;
        result
    }

    /// A loop without increments through a map (its elements may run in
    /// any order) whose halos travel in `groups`, on the CPU: the first
    /// eighth of the core while they travel, then every other owned
    /// element in memory order (the rest run after the whole core had each
    /// of its pieces cache-cold; see `lines.rs` for the line loops).
    fn run_gather_overlapped(
        &mut self,
        l: &'static LoopDecl,
        set: usize,
        groups: &[(usize, u64)],
    ) -> Result<(), String> {
        let (first, after) = match self.first_and_after.remove(&set) {
            Some(split) => split,
            None => first_and_after(&self.part.sets[set].core, &self.part.sets[set].rest),
        };
        let r = self.local.run(l, &first);
        self.finish_exchanges(groups);
        let r = r.and_then(|_| self.local.run(l, &after));
        self.first_and_after.insert(set, (first, after));
        r
    }

    /// The core of `set` while the exchanges of `groups` travel: in chunks
    /// between polls on the CPU, in one launch on a device.
    fn run_core(
        &mut self,
        l: &'static LoopDecl,
        set: usize,
        groups: &[(usize, u64)],
    ) -> Result<(), String> {
        let mut chunk = std::mem::take(&mut self.scratch);
        chunk.clear();
        let core = &self.part.sets[set].core;
        let n: usize = core.iter().map(|r| r.len()).sum();
        let mut result = Ok(());
        if self.local.asynchronous() {
            chunk.extend(core.iter().cloned());
            result = self.local.run(l, &chunk);
            self.local.flush();
        } else {
            let step = overlap_share(n);
            let mut filled = 0;
            for r in core {
                let mut a = r.start;
                while a < r.end {
                    let b = (a + step - filled).min(r.end);
                    chunk.push(a..b);
                    filled += b - a;
                    a = b;
                    if filled >= step {
                        result = result.and(self.local.run(l, &chunk));
                        chunk.clear();
                        filled = 0;
                        for &(s, mask) in groups {
                            if let Some(x) = self.exchanges.get_mut(&(s, mask)) {
                                x.progress();
                            }
                        }
                    }
                }
            }
            if !chunk.is_empty() {
                result = result.and(self.local.run(l, &chunk));
            }
        }
        chunk.clear();
        self.scratch = chunk;
        result
    }

    /// Whether a loop whose halos travel in `groups` computes its core
    /// while they travel (in chunks between polls, then the rest): in a
    /// mode that overlaps, unless every group is a copy of this rank's own
    /// elements ([`Self::exchanges_with_itself`]), done before the loop
    /// starts; then the loop runs its elements in one go (on the threads
    /// one fork and join, not one per chunk and one for the rest).
    pub(super) fn overlapping(&self, groups: &[(usize, u64)]) -> bool {
        self.mode.overlaps() && !groups.iter().all(|&(s, _)| self.exchanges_with_itself(s))
    }
}

/// The first eighth of `core` (at least `POLL_CHUNK` elements), and every
/// other element of `core` and `rest` in memory order.
fn first_and_after(
    core: &[Range<usize>],
    rest: &[Range<usize>],
) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
    let n: usize = core.iter().map(|r| r.len()).sum();
    let mut left = overlap_share(n);
    let mut first = Vec::new();
    let mut others: Vec<Range<usize>> = rest.to_vec();
    for r in core {
        let take = left.min(r.len());
        if take > 0 {
            first.push(r.start..r.start + take);
            left -= take;
        }
        others.push(r.start + take..r.end);
    }
    (first, in_memory_order(others.iter()))
}
