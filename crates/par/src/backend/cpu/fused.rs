//! One-rank halo copies made by the loop that writes the dat
//! ([`super::LocalBackend::run_copying`]) on the threads: a periodic block
//! on one rank fills its halo from its own elements, and when a loop
//! writes a dat in place that a later loop reads through the halo, each
//! thread copies the halo targets whose sources lie in the part it has
//! just computed, inside the loop's own fork and join (no copy, and no
//! fork and join of its own, before the next loop).

use std::ops::Range;

use super::{chunks, CpuBackend, Par};
use crate::backend::LocalBackend;
use crate::decl::{DatDecl, LoopDecl};
use crate::problem::Values;

/// A dat's values written by the threads of a loop, each pair's target by
/// one thread ([`FusedCopies::by_part`]).
#[derive(Clone, Copy)]
pub(super) struct SharedF64(pub(super) *mut f64);

// SAFETY: the threads write disjoint targets that no thread reads, and
// read sources they computed themselves (`CpuBackend::run_fused`).
unsafe impl Sync for SharedF64 {}

/// The copy pairs `(from, to)` of each part of a loop, planned once per
/// spans, pairs and parts seen (later loops allocate nothing).
#[derive(Default)]
pub(super) struct FusedCopies {
    plans: Vec<FusedPlan>,
}

struct FusedPlan {
    spans: Vec<Range<usize>>,
    from: Vec<u32>,
    to: Vec<u32>,
    parts: usize,
    elements: usize,
    /// Per part, its pairs in the order given; `None` where the pairs
    /// cannot be made inside the loop (see [`FusedCopies::by_part`]).
    by_part: Option<Vec<Vec<(u32, u32)>>>,
}

impl FusedCopies {
    /// Per part of `spans` cut into `parts` as
    /// [`super::chunks::run_chunks`] cuts them, the pairs whose source lies
    /// in it; `None` unless every source lies in `spans` and every target
    /// is below `elements`, outside `spans`, no source and no other pair's
    /// target (then no thread reads or writes a target another writes, and
    /// the order of the pairs does not matter).
    pub(super) fn by_part(
        &mut self,
        spans: &[Range<usize>],
        from: &[u32],
        to: &[u32],
        parts: usize,
        elements: usize,
    ) -> Option<&[Vec<(u32, u32)>]> {
        let found = self.plans.iter().position(|p| {
            p.parts == parts
                && p.elements == elements
                && p.from == from
                && p.to == to
                && p.spans == spans
        });
        let k = match found {
            Some(k) => k,
            None => {
                self.plans.push(FusedPlan {
                    spans: spans.to_vec(),
                    from: from.to_vec(),
                    to: to.to_vec(),
                    parts,
                    elements,
                    by_part: plan(spans, from, to, parts, elements),
                });
                self.plans.len() - 1
            }
        };
        self.plans[k].by_part.as_deref()
    }
}

impl CpuBackend {
    /// [`LocalBackend::run_copying`] on the threads: the copies made by
    /// each part's thread after the part, where the loop runs in parts
    /// ([`chunks::run_chunks`]) and the dats are f64 with values together.
    pub(super) fn run_fused(
        &mut self,
        l: &'static LoopDecl,
        spans: &[Range<usize>],
        dats: &[&'static DatDecl],
        from: &[u32],
        to: &[u32],
    ) -> Result<bool, String> {
        // The dats' values, each f64 and its values together (at most 8),
        // each written in place by `l` on its set (checked here, not left
        // to the caller: nothing else of the loop reaches the targets).
        let mut targets = [(SharedF64(std::ptr::null_mut()), 0, 0); 8];
        let in_place = |d: &&DatDecl| {
            std::ptr::eq(d.set, l.set) && l.writes_in_place().any(|w| std::ptr::eq(w, *d))
        };
        let shared = matches!(self.par, Par::Rayon(_))
            && !dats.is_empty()
            && dats.len() <= targets.len()
            && dats.iter().all(in_place);
        let key = l as *const LoopDecl as usize;
        self.bind_once(l);
        let b = &self.bound[&key];
        if !shared || b.colours.is_some() || b.owner.is_some() || b.serial || l.line.is_some() {
            return self.run(l, spans).map(|()| false);
        }
        for (t, dat) in targets.iter_mut().zip(dats) {
            let d = self.dat_index(dat);
            match &mut self.dats[d] {
                Values::F64(v) if !self.soa[d] => {
                    *t = (SharedF64(v.as_mut_ptr()), dat.dim, v.len())
                }
                _ => return self.run(l, spans).map(|()| false),
            }
        }
        let targets = &targets[..dats.len()];
        let elements = targets[0].2 / targets[0].1.max(1);
        if targets.iter().any(|t| t.2 != elements * t.1) {
            return self.run(l, spans).map(|()| false);
        }
        let total = spans.iter().map(|s| s.len()).sum();
        let mut fused = std::mem::take(&mut self.fused);
        // The parts `run_chunks` cuts the loop into.
        let parts = chunks::parts(total, self.claims.threads());
        let result = match fused.by_part(spans, from, to, parts, elements) {
            Some(by_part) => {
                let after = |k: usize| {
                    for &(f, e) in &by_part[k] {
                        for (v, dim, _) in targets {
                            // SAFETY: `f` and `e` are below `elements` (the
                            // plan's, part of its key), so both lie in the
                            // dat; `f` is an element of part `k`, computed by
                            // this thread just now; `e` is no element of the
                            // loop and no source, written by this pair alone,
                            // and the loop reaches the dat at its own
                            // elements only (checked above), so nothing else
                            // touches it during the loop.
                            unsafe {
                                std::ptr::copy_nonoverlapping(
                                    v.0.add(f as usize * dim),
                                    v.0.add(e as usize * dim),
                                    *dim,
                                )
                            }
                        }
                    }
                };
                self.run_after(l, spans, Some(&after)).map(|()| true)
            }
            None => self.run(l, spans).map(|()| false),
        };
        self.fused = fused;
        result
    }
}

fn plan(
    spans: &[Range<usize>],
    from: &[u32],
    to: &[u32],
    parts: usize,
    elements: usize,
) -> Option<Vec<Vec<(u32, u32)>>> {
    if from.len() != to.len() || parts == 0 {
        return None;
    }
    // Where each element lies in the spans laid end to end.
    let mut position = vec![usize::MAX; elements];
    let mut at = 0;
    for s in spans {
        for e in s.clone() {
            *position.get_mut(e)? = at;
            at += 1;
        }
    }
    let total = at;
    let mut target = vec![false; elements];
    for &e in to {
        let e = e as usize;
        if e >= elements || position[e] != usize::MAX || target[e] {
            return None;
        }
        target[e] = true;
    }
    let bound = |k: usize| k * total / parts;
    let mut by_part = vec![Vec::new(); parts];
    for (&f, &e) in from.iter().zip(to) {
        let pos = *position.get(f as usize)?;
        if pos == usize::MAX || target[f as usize] {
            return None;
        }
        let mut k = (pos * parts / total.max(1)).min(parts - 1);
        while k + 1 < parts && bound(k + 1) <= pos {
            k += 1;
        }
        while bound(k) > pos {
            k -= 1;
        }
        by_part[k].push((f, e));
    }
    Some(by_part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_go_to_the_part_of_their_source() {
        // 10 elements in two spans, 3 parts of 10: 0..3, 3..6, 6..10 of
        // the positions; elements 10, 11 are the halo.
        let spans = [0..4, 4..10];
        let parts = plan(&spans, &[0, 9, 5], &[10, 11, 12], 3, 13).unwrap();
        assert_eq!(parts, vec![vec![(0, 10)], vec![(5, 12)], vec![(9, 11)]]);
        // Spans in another order: positions follow the spans.
        let spans = [6..10, 0..6];
        // (positions 0..4 are elements 6..10, then 0..6).
        let parts = plan(&spans, &[5, 7], &[10, 11], 2, 12).unwrap();
        assert_eq!(parts, vec![vec![(7, 11)], vec![(5, 10)]]);
    }

    #[test]
    fn unsafe_pairs_are_refused() {
        let spans = [0..5, 5..10];
        // A target inside the loop's elements.
        assert!(plan(&spans, &[0], &[5], 2, 12).is_none());
        // A target twice.
        assert!(plan(&spans, &[0, 1], &[10, 10], 2, 12).is_none());
        // A source outside the loop's elements.
        assert!(plan(&spans, &[11], &[10], 2, 12).is_none());
        // A target that is also a source.
        assert!(plan(&spans, &[0, 10], &[10, 11], 2, 12).is_none());
        // Out of range.
        assert!(plan(&spans, &[0], &[12], 2, 12).is_none());
    }
}
