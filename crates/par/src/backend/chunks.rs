//! How the threads backend cuts a loop's elements into chunks and runs
//! them, and copies a halo's elements on its threads.
//!
//! A loop of plain elements (and a one-rank halo copy) is split into the
//! same parts every time it runs, [`PARTS_PER_THREAD`] consecutive parts
//! owned by each thread of the pool ([`Claims`]): a thread runs its own
//! parts first, in order, so that from loop to loop the same thread
//! touches the same elements and finds them in its core's cache (rayon's
//! work stealing alone handed each loop's halves to whichever thread got
//! there first: the cells and their dats moved between the cores' caches
//! every loop; `docs/performance.md` 6.3); a thread done with its own parts
//! then takes the others' still waiting, from their end, so a thread held
//! up (another process on its core, a late wake-up) does not hold the loop.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_utils::CachePadded;
use rayon::prelude::*;

use crate::decl::LoopDecl;
use crate::kernel::LoopArgs;

/// Copies element `from[i]` of `v` (`dim` values per element, stored
/// together) to element `to[i]`, as reading every source and then writing
/// every target would (later pairs win where targets repeat). When every
/// target lies past every source (a halo after the owned elements) the
/// targets split off as chunks of their own and are written in place, on
/// `pool`'s threads when it is given (no unsafe); otherwise through a
/// buffer.
pub(super) fn copy_elements(
    v: &mut [f64],
    dim: usize,
    from: &[u32],
    to: &[u32],
    pool: Option<&rayon::ThreadPool>,
) {
    assert_eq!(from.len(), to.len(), "as many sources as targets");
    let (Some(&lo), Some(&hi)) = (to.iter().min(), from.iter().max()) else {
        return;
    };
    let (lo, hi) = (lo as usize, hi as usize);
    if lo <= hi {
        // A target may be a source: all read first.
        let buf: Vec<f64> = from
            .iter()
            .flat_map(|&f| &v[f as usize * dim..(f as usize + 1) * dim])
            .copied()
            .collect();
        for (k, &t) in to.iter().enumerate() {
            let t = t as usize;
            v[t * dim..(t + 1) * dim].copy_from_slice(&buf[k * dim..(k + 1) * dim]);
        }
        return;
    }
    let top = to.iter().max().map_or(lo, |&t| t as usize);
    // Source of each target in `lo..=top` (u32::MAX: none).
    let mut source = vec![u32::MAX; top - lo + 1];
    for (&f, &t) in from.iter().zip(to) {
        source[t as usize - lo] = f;
    }
    let (own, halo) = v.split_at_mut(lo * dim);
    let own = &*own;
    let halo = &mut halo[..(top - lo + 1) * dim];
    let copy = |(t, &f): (&mut [f64], &u32)| {
        if f != u32::MAX {
            let f = f as usize;
            t.copy_from_slice(&own[f * dim..(f + 1) * dim]);
        }
    };
    match pool {
        Some(pool) => pool.install(|| {
            halo.par_chunks_mut(dim)
                .zip(source.par_iter())
                .with_min_len((2048 / dim.max(1)).max(1))
                .for_each(copy)
        }),
        None => halo.chunks_mut(dim).zip(source.iter()).for_each(copy),
    }
}

/// Parts of a loop's elements owned by each thread ([`Claims`]): enough
/// that a thread held up loses only the last few to the others, few
/// enough that claiming them does not show (2D Euler at 1e5 nodes: a part
/// is about 20 us on 2 threads).
pub(super) const PARTS_PER_THREAD: usize = 8;

/// Parts per thread of a line loop ([`run_whole`]): each part is a call of
/// the loop's runner, whose scratch is made anew, so a sweep that carries
/// values from a line to the next (`lw`'s y sweeps) computes them afresh
/// at each part's first line (about two lines' work): with 8 parts per
/// thread that was about 8% of such a sweep on 2 threads, and the sweeps
/// ran 1.4-1.5x serial (2 parts: 1.8-1.9x; docs/performance.md 5).
pub(super) const LINE_PARTS_PER_THREAD: usize = 2;

/// How long a thread done with a loop's parts spins for the others'
/// ([`Claims::run`]).
const SPIN_AT_END: std::time::Duration = std::time::Duration::from_micros(300);

/// Loops of at most this many elements run on the calling thread whole.
const SMALL_LOOP: usize = 64;

/// Which parts of the work under way are still to run: per thread, the
/// range of its own parts not yet claimed, `front << 32 | back`. The owner
/// claims from the front, the others from the back, each claim one
/// compare-and-swap, so every part runs exactly once. Sized once, for the
/// pool's threads (nothing allocated per loop); each cursor on a cache
/// line of its own (an owner's claims do not take the line from the
/// other threads' cores).
pub(super) struct Claims {
    cursors: Vec<CachePadded<AtomicU64>>,
    /// Parts of the run under way done.
    done: CachePadded<AtomicU64>,
}

impl Claims {
    /// Claims for a pool of `threads` threads.
    pub(super) fn new(threads: usize) -> Self {
        Claims {
            cursors: (0..threads.max(1))
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            done: CachePadded::new(AtomicU64::new(0)),
        }
    }

    pub(super) fn threads(&self) -> usize {
        self.cursors.len()
    }

    /// Part `front` of thread `t`'s (its owner's claim), if one is left.
    fn claim_own(&self, t: usize) -> Option<usize> {
        self.claim(t, |f, b| (f < b).then_some(((f + 1) << 32 | b, f)))
    }

    /// Part `back - 1` of thread `t`'s (another thread's claim): while
    /// its owner has not started (asleep, or its core taken), or has at
    /// least two left; the owner keeps its last part once it has started
    /// (a lag of a part or less, a late wake-up, would otherwise move a
    /// part to the other core's cache and back every loop).
    fn claim_other(&self, t: usize, start: u64) -> Option<usize> {
        self.claim(t, |f, b| {
            // `then`, not `then_some`: `b - 1` must not be evaluated when
            // `b == 0` (overflow checks in debug builds).
            (f < b && (f == start || b - f >= 2)).then(|| (f << 32 | (b - 1), b - 1))
        })
    }

    /// Claims by `next(front, back)`: the new cursor and the part, or
    /// `None`.
    fn claim(&self, t: usize, next: impl Fn(u64, u64) -> Option<(u64, u64)>) -> Option<usize> {
        let c = &self.cursors[t];
        let mut cur = c.load(Ordering::Acquire);
        loop {
            let (new, part) = next(cur >> 32, cur & 0xffff_ffff)?;
            match c.compare_exchange_weak(cur, new, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Some(part as usize),
                Err(now) => cur = now,
            }
        }
    }

    /// Runs `work(p)` once for each part `p` of `threads x per_thread` on
    /// `pool` (inside it, on the caller's pool, no job is injected and
    /// nothing allocated): thread `t` (the pool's index) runs parts `t
    /// per_thread ..` in order, then the parts of the others not yet
    /// started, from their end (but not an owner's last once it has
    /// started: [`Self::claim_other`]). One task per thread is offered; a
    /// thread that finds no part left to claim spins until every part is
    /// done (at most [`SPIN_AT_END`]) and returns.
    ///
    /// `&mut self`: one run at a time (resetting the cursors under a run
    /// would hand its parts out twice).
    pub(super) fn run(
        &mut self,
        pool: &rayon::ThreadPool,
        per_thread: usize,
        work: &(dyn Fn(usize) + Sync),
    ) {
        let t = self.threads();
        debug_assert!(t * per_thread < 1 << 32, "parts fit the cursors");
        let this = &*self;
        for (k, c) in self.cursors.iter().enumerate() {
            c.store(
                ((k * per_thread) as u64) << 32 | ((k + 1) * per_thread) as u64,
                Ordering::Release,
            );
        }
        self.done.store(0, Ordering::Release);
        let total = (t * per_thread) as u64;
        let task = |_| {
            let me = rayon::current_thread_index().unwrap_or(0) % t;
            while let Some(p) = this.claim_own(me) {
                work(p);
                this.done.fetch_add(1, Ordering::AcqRel);
            }
            for other in (1..t).map(|d| (me + d) % t) {
                while let Some(p) = this.claim_other(other, (other * per_thread) as u64) {
                    work(p);
                    this.done.fetch_add(1, Ordering::AcqRel);
                }
            }
            // Wait here for the others' last parts, spinning (at most
            // `SPIN_AT_END`), rather than in rayon's join, whose idle
            // thread yields its core at once: on a loaded machine a
            // yielded core went to another process for a time slice
            // (docs/performance.md 6.3).
            let start = std::time::Instant::now();
            let mut spins = 0u32;
            while this.done.load(Ordering::Acquire) < total {
                std::hint::spin_loop();
                spins += 1;
                if spins % 1024 == 0 && start.elapsed() > SPIN_AT_END {
                    break;
                }
            }
        };
        pool.install(|| (0..t).into_par_iter().with_max_len(1).for_each(task));
    }
}

/// One-rank halo copies ([`copy_elements`]) planned once for the threads:
/// per pair of element lists seen, the pairs each thread writes.
#[derive(Default)]
pub(super) struct HaloCopies {
    plans: Vec<CopyPlan>,
}

/// The plan of one halo copy.
struct CopyPlan {
    from: Vec<u32>,
    to: Vec<u32>,
    elements: usize,
    /// Per thread, its `(from, to)` pairs in the order given; `None` where
    /// a target is also a source (then [`copy_elements`] runs instead).
    by_thread: Option<Vec<Vec<(u32, u32)>>>,
}

impl HaloCopies {
    /// Copies element `from[i]` of `v` (`dim` values per element, stored
    /// together) to element `to[i]` on `pool`'s threads, as
    /// [`copy_elements`] does: thread `t` writes the targets among the
    /// `t`-th of the `threads` equal ranges of `v`'s elements (the range
    /// whose cells its loops' parts mostly hold, so the copied halo lands
    /// in the cache of the core that reads it), each its own targets in the
    /// given order (later pairs win where targets repeat). The first copy
    /// of given lists plans it (allocating); later ones allocate nothing.
    pub(super) fn copy(
        &mut self,
        v: &mut [f64],
        dim: usize,
        from: &[u32],
        to: &[u32],
        pool: &rayon::ThreadPool,
        claims: &mut Claims,
    ) {
        assert_eq!(from.len(), to.len(), "as many sources as targets");
        let elements = v.len() / dim.max(1);
        let found = self
            .plans
            .iter()
            .position(|p| p.elements == elements && p.from == from && p.to == to);
        let k = match found {
            Some(k) => k,
            None => {
                self.plans
                    .push(CopyPlan::new(from, to, elements, claims.threads()));
                self.plans.len() - 1
            }
        };
        let Some(by_thread) = &self.plans[k].by_thread else {
            return copy_elements(v, dim, from, to, Some(pool));
        };
        let base = SharedValues(v.as_mut_ptr());
        let work = |t: usize| {
            for &(f, e) in &by_thread[t] {
                // SAFETY: every index is below `elements` (checked by the
                // plan), so both elements lie in `v`; no target is a
                // source (checked by the plan) and each target belongs to
                // one thread, so no element is written while another
                // thread reads or writes it, and `v` is borrowed mutably
                // for the whole copy.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        base.ptr().add(f as usize * dim),
                        base.ptr().add(e as usize * dim),
                        dim,
                    )
                }
            }
        };
        if from.len() <= SMALL_LOOP {
            // Not worth waking the pool.
            (0..by_thread.len()).for_each(work);
        } else {
            claims.run(pool, 1, &work);
        }
    }
}

impl CopyPlan {
    fn new(from: &[u32], to: &[u32], elements: usize, threads: usize) -> Self {
        let mut source = vec![false; elements];
        for &f in from.iter().chain(to) {
            assert!((f as usize) < elements, "element {f} of {elements}");
        }
        for &f in from {
            source[f as usize] = true;
        }
        let by_thread = to.iter().all(|&e| !source[e as usize]).then(|| {
            let mut by = vec![Vec::new(); threads];
            for (&f, &e) in from.iter().zip(to) {
                by[e as usize * threads / elements].push((f, e));
            }
            by
        });
        CopyPlan {
            from: from.to_vec(),
            to: to.to_vec(),
            elements,
            by_thread,
        }
    }
}

/// A dat's values shared by the threads of a halo copy, each writing
/// elements of its own.
struct SharedValues(*mut f64);

// SAFETY: the threads write disjoint elements and read none that is
// written (`HaloCopies::copy`).
unsafe impl Sync for SharedValues {}

impl SharedValues {
    fn ptr(&self) -> *mut f64 {
        self.0
    }
}

/// Runs `spans` of loop `l` on `pool` in [`PARTS_PER_THREAD`] parts per
/// thread of about the same number of elements, the same parts for the
/// same spans every time, each thread its own first ([`Claims`]): part `k`
/// takes elements `k total / parts .. (k + 1) total / parts` of the spans
/// laid end to end, however many spans that covers (a plan's colour may
/// be many short runs, a structured block's part many rows), given to the
/// loop's runner in at most three calls (each call binds the loop's views
/// anew: a call per row cost 2D DG's threads 0.05-0.1x of their speed-up,
/// docs/performance.md 6.3).
///
/// `after(k)`, if given, runs on part `k`'s thread right after the part
/// (for every part, in order, on the calling thread when the loop is too
/// small to share: then [`parts`] is 1).
pub(super) fn run_chunks(
    l: &LoopDecl,
    args: &LoopArgs<'_>,
    spans: &[Range<usize>],
    pool: &rayon::ThreadPool,
    claims: &mut Claims,
    after: Option<&(dyn Fn(usize) + Sync)>,
) {
    let total: usize = spans.iter().map(|s| s.len()).sum();
    let parts = parts(total, claims.threads());
    if parts == 1 {
        (l.cpu)(args, spans);
        if let Some(after) = after {
            after(0);
        }
        return;
    }
    let per_thread = parts / claims.threads();
    let run_chunk = |k: usize| {
        let (from, to) = (k * total / parts, (k + 1) * total / parts);
        // The part: a piece of its first span, then whole spans, then a
        // piece of its last, given to the loop's runner in at most three
        // calls (a call binds the loop's views anew; the whole spans go
        // as they are, uncopied).
        let (mut at, mut s) = (0, 0);
        while at + spans[s].len() <= from {
            at += spans[s].len();
            s += 1;
        }
        // `spans[s]` holds position `from`, at `at` of the spans laid end to end.
        let head = spans[s].start + (from - at)..spans[s].start + (to - at).min(spans[s].len());
        if !head.is_empty() {
            (l.cpu)(args, std::slice::from_ref(&head));
        }
        at += spans[s].len();
        s += 1;
        if at < to {
            let mut e = s;
            let mut end = at;
            while e < spans.len() && end + spans[e].len() <= to {
                end += spans[e].len();
                e += 1;
            }
            if e > s {
                (l.cpu)(args, &spans[s..e]);
            }
            if end < to {
                let tail = spans[e].start..spans[e].start + (to - end);
                (l.cpu)(args, std::slice::from_ref(&tail));
            }
        }
        if let Some(after) = after {
            after(k);
        }
    };
    claims.run(pool, per_thread, &run_chunk);
}

/// The parts [`run_chunks`] cuts `total` elements into on `threads`
/// threads (1: the loop runs whole on the calling thread); part `k` is
/// elements `k total / parts .. (k + 1) total / parts` of its spans laid
/// end to end.
pub(super) fn parts(total: usize, threads: usize) -> usize {
    if total <= SMALL_LOOP {
        1
    } else {
        PARTS_PER_THREAD.min(total.div_ceil(threads)) * threads
    }
}

/// Runs `spans` of loop `l` on `pool`, each span whole on one thread
/// (a two-level plan's blocks, a line loop's lines): [`PARTS_PER_THREAD`]
/// parts of consecutive spans per thread ([`LINE_PARTS_PER_THREAD`] for a
/// line loop), the same parts every time, through [`Claims`] as
/// [`run_chunks`] (a loop scheduled by rayon's stealing between loops
/// run by fixed parts cost OP2's Airfoil `update` three times its time
/// on 2 threads, docs/performance.md 8).
pub(super) fn run_whole(
    l: &LoopDecl,
    args: &LoopArgs<'_>,
    spans: &[Range<usize>],
    pool: &rayon::ThreadPool,
    claims: &mut Claims,
) {
    let n = spans.len();
    if n <= 1 {
        (l.cpu)(args, spans);
        return;
    }
    let most = if l.line.is_some() {
        LINE_PARTS_PER_THREAD
    } else {
        PARTS_PER_THREAD
    };
    let per_thread = most.min(n.div_ceil(claims.threads()));
    let parts = per_thread * claims.threads();
    let run_part = |k: usize| {
        let group = &spans[k * n / parts..(k + 1) * n / parts];
        if !group.is_empty() {
            (l.cpu)(args, group);
        }
    };
    claims.run(pool, per_thread, &run_part);
}

#[cfg(test)]
mod tests {
    use std::ops::Range;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    /// Visits per element of [`pieces_runner`]'s loop, its calls, and the
    /// most pieces one call was given.
    static VISITS: Mutex<Vec<u32>> = Mutex::new(Vec::new());
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    static MOST_PIECES: AtomicUsize = AtomicUsize::new(0);

    fn pieces_runner(_: &crate::kernel::LoopArgs<'_>, pieces: &[Range<usize>]) {
        CALLS.fetch_add(1, Ordering::Relaxed);
        MOST_PIECES.fetch_max(pieces.len(), Ordering::Relaxed);
        let mut v = VISITS.lock().unwrap();
        for r in pieces {
            for e in r.clone() {
                v[e] += 1;
            }
        }
    }

    /// A loop of many short spans (a structured block's rows; a colour's
    /// runs) on threads: every element of the spans runs once, none
    /// between them, each part in at most three calls of the runner.
    #[test]
    fn chunks_of_many_spans_run_every_element_once() {
        static SET: crate::decl::SetDecl = crate::decl::SetDecl { name: "rows" };
        static LOOP: crate::decl::LoopDecl = crate::decl::LoopDecl {
            name: "pieces",
            kernel: "pieces",
            set: &SET,
            args: &[],
            cpu: pieces_runner,
            sweep: None,
            line: None,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut claims = super::Claims::new(2);
        let sink = Mutex::new(crate::kernel::Partials::new(&[]));
        let args = crate::kernel::LoopArgs {
            args: &[],
            sink: &sink,
        };
        // Rows of `w` elements and one of halo: 2,001 rows of 3 (the 16
        // parts of 2 threads hold 375-376 elements each, all but the first
        // starting inside a row), and 40 of 50 (parts of 125: a piece, at
        // most one whole row, a piece).
        for (rows, w, most_rows) in [(2001, 3, 120), (40, 50, 1)] {
            let spans: Vec<Range<usize>> = (0..rows)
                .map(|j| (w + 1) * j + 1..(w + 1) * (j + 1))
                .collect();
            *VISITS.lock().unwrap() = vec![0; (w + 1) * rows + 1];
            CALLS.store(0, Ordering::Relaxed);
            MOST_PIECES.store(0, Ordering::Relaxed);
            super::run_chunks(&LOOP, &args, &spans, &pool, &mut claims, None);
            let v = VISITS.lock().unwrap();
            for (e, &n) in v.iter().enumerate() {
                let want = u32::from(e % (w + 1) != 0);
                assert_eq!(n, want, "rows of {w}: element {e} ran {n} times");
            }
            let (calls, most) = (
                CALLS.load(Ordering::Relaxed),
                MOST_PIECES.load(Ordering::Relaxed),
            );
            assert!(calls <= 3 * 16, "rows of {w}: {calls} calls for 16 parts");
            assert!(
                most >= most_rows,
                "rows of {w}: at most {most} rows in one call"
            );
        }
    }

    /// Every part runs exactly once, whatever the threads and parts per
    /// thread (a lone owner of a pool of one finds them all). Which thread
    /// runs which part depends on timing and is not checked.
    #[test]
    fn claims_run_every_part_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        for threads in 1..=4 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut claims = super::Claims::new(threads);
            for per_thread in [1, 2, 8] {
                for _ in 0..20 {
                    let runs: Vec<AtomicUsize> = (0..threads * per_thread)
                        .map(|_| AtomicUsize::new(0))
                        .collect();
                    claims.run(&pool, per_thread, &|p| {
                        runs[p].fetch_add(1, Ordering::Relaxed);
                    });
                    let counts: Vec<usize> =
                        runs.iter().map(|r| r.load(Ordering::Relaxed)).collect();
                    assert!(
                        counts.iter().all(|&c| c == 1),
                        "{threads} threads, {per_thread} per thread: {counts:?}"
                    );
                }
            }
        }
    }

    /// Planned halo copies on threads give what reading every source and
    /// then writing every target gives, the first time (planning) and
    /// again (the plan reused), where a target is also a source too (then
    /// not planned), and for another halo with the same lengths.
    #[test]
    fn planned_copies_read_all_then_write() {
        let dim = 3;
        let start: Vec<f64> = (0..40 * dim).map(|k| k as f64).collect();
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut claims = super::Claims::new(threads);
            let mut copies = super::HaloCopies::default();
            for (from, to) in [
                (vec![0u32, 5, 7, 2, 9], vec![30u32, 31, 39, 0, 30]),
                (vec![1, 2, 3], vec![35, 35, 20]),
                (vec![10, 2, 6], vec![1, 20, 11]),
                (vec![1, 2], vec![2, 3]),
                (vec![], vec![]),
            ] {
                let mut want = start.clone();
                for (&f, &t) in from.iter().zip(&to) {
                    let (f, t) = (f as usize, t as usize);
                    want[t * dim..(t + 1) * dim].copy_from_slice(&start[f * dim..(f + 1) * dim]);
                }
                for _ in 0..2 {
                    let mut got = start.clone();
                    copies.copy(&mut got, dim, &from, &to, &pool, &mut claims);
                    assert_eq!(got, want, "{threads} threads: {from:?} -> {to:?}");
                }
            }
        }
    }

    /// Copies, on threads or not, give what reading every source and then
    /// writing every target gives, a halo after the owned elements or not.
    #[test]
    fn element_copies_read_all_then_write() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let dim = 3;
        let start: Vec<f64> = (0..40 * dim).map(|k| k as f64).collect();
        for (from, to) in [
            (vec![0u32, 5, 7, 2], vec![30u32, 31, 39, 33]),
            (vec![1, 2, 3], vec![35, 35, 20]),
            (vec![10, 2], vec![1, 20]),
            (vec![1, 2], vec![2, 3]),
            (vec![], vec![]),
        ] {
            let mut want = start.clone();
            for (&f, &t) in from.iter().zip(&to) {
                let (f, t) = (f as usize, t as usize);
                want[t * dim..(t + 1) * dim].copy_from_slice(&start[f * dim..(f + 1) * dim]);
            }
            for pool in [None, Some(&pool)] {
                let mut got = start.clone();
                super::copy_elements(&mut got, dim, &from, &to, pool);
                assert_eq!(got, want, "{from:?} -> {to:?}");
            }
        }
    }
}
