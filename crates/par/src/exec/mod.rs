//! The executor: one rank's backend, its part and its [`Comm`], driven by a
//! method one loop at a time.
//!
//! Before a loop, [`Exec::run`] refreshes the halos it needs: the dats the
//! loop reads through a map or a stencil whose ghost copies are stale (a
//! loop that writes a dat makes its ghosts stale). With an overlapping
//! exchange mode it starts the exchange, computes the core elements (which
//! read no ghost) while the values travel, polling for progress between
//! chunks (a device gets the core as one launch), then finishes the
//! exchange and computes the rest. Reductions accumulate on the backend
//! until the method asks for their values ([`Exec::reduce`]): then one
//! all-reduce merges every requested value, with the control flags (a stop
//! request, a backend fault) riding along. On one rank ([`SelfComm`](crate::comm::SelfComm)) all of
//! this reduces to running the loop over every element.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::backend::LocalBackend;
use crate::comm::{flags, Comm, Exchange, ExchangeMode, ExchangeTimes, PeerCounts, Record};
use crate::decl::{DatDecl, GlobalDecl, LoopDecl, SetDecl};
use crate::driver::LoopTime;
use crate::part::Part;

mod collect;
mod lines;
mod run;
mod sweep;
mod times;

/// Core elements computed between two polls of an exchange under way.
const POLL_CHUNK: usize = 4096;

/// The core elements of `n` computed while an exchange travels before it
/// is polled or finished: an eighth, at least [`POLL_CHUNK`].
fn overlap_share(n: usize) -> usize {
    (n / 8).max(POLL_CHUNK)
}

/// A run that cannot go on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExecError {
    /// A backend failed (a device fault, a kernel that could not run).
    #[error("rank {rank}: {message}")]
    Backend {
        /// The rank (the lowest, if several failed).
        rank: usize,
        /// What happened.
        message: String,
    },
}

/// What the executor knows of a loop.
struct LoopInfo {
    set: usize,
    /// Dats read through a map or stencil: (dat, its set).
    halo_reads: Vec<(usize, usize)>,
    /// Dats written.
    writes: Vec<usize>,
    /// Dats written in place ([`LoopDecl::writes_in_place`]): (dat, its
    /// set).
    in_place: Vec<(usize, usize)>,
}

/// Communication statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CommStats {
    /// Halo exchanges.
    pub exchange: ExchangeTimes,
    /// Time in reductions (including waiting for the slowest rank).
    pub reduce: Duration,
    /// Reductions done.
    pub reductions: u64,
}

/// One rank's executor.
pub struct Exec {
    local: Box<dyn LocalBackend>,
    comm: Box<dyn Comm>,
    part: Arc<Part>,
    mode: ExchangeMode,
    /// Per set: whether some rank has neighbours (then every rank takes
    /// part in its exchanges).
    exchanged: Vec<bool>,
    stale: Vec<bool>,
    /// Per dat: whether a loop has read it through a halo (or it was
    /// swapped with such a dat): a one-rank periodic halo of it is worth
    /// refreshing in the loop that writes it ([`Exec::run_owned`]).
    halo_read: Vec<bool>,
    /// The dats the last loop's own parts refreshed the halos of.
    fused: Vec<usize>,
    /// Their declarations (scratch).
    fused_decls: Vec<&'static DatDecl>,
    /// Per set whose halo is a copy of this rank's own elements: every
    /// peer entry's sources and targets, laid end to end.
    self_pairs: HashMap<usize, (Vec<u32>, Vec<u32>)>,
    /// Per set, its owned elements for a gather whose halos travel: the
    /// first share of the core, then the others in memory order
    /// (`run.rs`, `run_gather_overlapped`).
    first_and_after: HashMap<usize, FirstAndAfter>,
    loops: HashMap<usize, LoopInfo>,
    /// In key order: their windows are freed collectively, in the same
    /// order on every rank.
    exchanges: BTreeMap<(usize, u64), Box<dyn Exchange>>,
    owned_spans: Vec<Vec<Range<usize>>>,
    /// Per set, the owned spans and the executed halo: where loops that
    /// increment through a map run.
    inc_spans: Vec<Vec<Range<usize>>>,
    scratch: Vec<Range<usize>>,
    groups: Vec<(usize, u64)>,
    record: Record,
    control: u64,
    agreed: u64,
    reduce_time: Duration,
    reductions: u64,
    times: Vec<LoopTime>,
    /// Per sweep colour dat: each colour's runs of owned elements.
    sweep_runs: HashMap<usize, Vec<Vec<Range<usize>>>>,
    /// Per block set, axis and piece length: its owned elements as lines.
    line_spans: HashMap<(usize, usize, usize), lines::LineSpans>,
}

impl Drop for Exec {
    fn drop(&mut self) {
        // The exchanges hold MPI windows and requests: they go before the
        // world (which may finalize MPI when it drops), in key order.
        while self.exchanges.pop_first().is_some() {}
    }
}

impl Exec {
    /// An executor of `part` on `local`, talking to the other ranks through
    /// `comm` with exchanges as `mode` says.
    pub fn new(
        part: Arc<Part>,
        local: Box<dyn LocalBackend>,
        comm: Box<dyn Comm>,
        mode: ExchangeMode,
    ) -> Self {
        assert!(part.dats.len() <= 64, "more than 64 dats");
        assert!(part.sets.len() <= 64, "more than 64 sets");
        // Whether any rank exchanges each set's halos: creating an exchange
        // is collective (and a fence is), so a rank without neighbours
        // takes part too.
        let mut r = Record::default();
        for (k, set) in part.sets.iter().enumerate() {
            if set.has_peers() {
                r.flags |= 1 << k;
            }
        }
        comm.all_reduce(&mut r);
        let exchanged = (0..part.sets.len())
            .map(|k| r.flags & (1 << k) != 0)
            .collect();
        // A loop over every owned element runs them in memory order (the
        // core and the rest of a block merged: the rest's single elements
        // at the ends of rows would otherwise come last, one call and one
        // far jump each, all in the last thread's parts); any order gives
        // the same values where no element increments another's. Loops
        // that increment through a map keep the part's order.
        let owned_spans = part
            .sets
            .iter()
            .map(|s| in_memory_order(s.owned_spans()))
            .collect();
        let inc_spans = part
            .sets
            .iter()
            .map(|s| s.owned_spans().chain(&s.exec).cloned().collect())
            .collect();
        Exec {
            inc_spans,
            exchanged,
            stale: vec![false; part.dats.len()],
            halo_read: vec![false; part.dats.len()],
            fused: Vec::new(),
            fused_decls: Vec::new(),
            self_pairs: HashMap::new(),
            first_and_after: HashMap::new(),
            local,
            comm,
            part,
            mode,
            loops: HashMap::new(),
            exchanges: BTreeMap::new(),
            owned_spans,
            scratch: Vec::with_capacity(64),
            groups: Vec::with_capacity(8),
            record: Record::default(),
            control: 0,
            agreed: 0,
            reduce_time: Duration::ZERO,
            reductions: 0,
            times: Vec::with_capacity(32),
            sweep_runs: HashMap::new(),
            line_spans: HashMap::new(),
        }
    }

    /// The local backend's name (`serial`, `threads (2)`, `opencl (device)`).
    pub fn backend_name(&self) -> String {
        self.local.name()
    }

    /// Whether the backend runs line loops ([`crate::decl::Axis`]; the
    /// CPU backends do, OpenCL does not): a method offers element loops
    /// for the others.
    pub fn lines(&self) -> bool {
        self.local.lines()
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.comm.rank()
    }

    /// Ranks in all.
    pub fn ranks(&self) -> usize {
        self.comm.size()
    }

    /// The part this rank holds.
    pub fn part(&self) -> &Arc<Part> {
        &self.part
    }

    /// The backend.
    pub fn backend(&mut self) -> &mut dyn LocalBackend {
        &mut *self.local
    }

    /// The communicator.
    pub fn comm(&self) -> &dyn Comm {
        &*self.comm
    }

    /// The exchange mode.
    pub fn mode(&self) -> ExchangeMode {
        self.mode
    }

    /// A description: backend, ranks, exchange.
    pub fn describe(&self) -> String {
        if self.comm.size() == 1 {
            self.local.name()
        } else {
            format!(
                "mpi ({} ranks x {}), {} exchange",
                self.comm.size(),
                self.local.name(),
                self.mode.name()
            )
        }
    }

    fn dat_index(&self, d: &DatDecl) -> usize {
        self.part
            .dat_index(d)
            .unwrap_or_else(|| panic!("dat `{}` is not part of the problem", d.name))
    }

    fn set_index(&self, s: &SetDecl) -> usize {
        self.part
            .set_index(s)
            .unwrap_or_else(|| panic!("set `{}` is not part of the problem", s.name))
    }

    fn info(&mut self, l: &'static LoopDecl) -> usize {
        let key = l as *const LoopDecl as usize;
        if !self.loops.contains_key(&key) {
            let set = self.set_index(l.set);
            let halo_reads = l
                .halo_reads()
                .map(|d| (self.dat_index(d), self.set_index(d.set)))
                .collect();
            let writes = l.writes().map(|d| self.dat_index(d)).collect();
            let mut in_place: Vec<(usize, usize)> = l
                .writes_in_place()
                .map(|d| (self.dat_index(d), self.set_index(d.set)))
                .collect();
            in_place.sort_unstable();
            in_place.dedup();
            for &(d, _) in &halo_reads {
                self.halo_read[d] = true;
            }
            self.loops.insert(
                key,
                LoopInfo {
                    set,
                    halo_reads,
                    writes,
                    in_place,
                },
            );
        }
        key
    }

    /// Runs loop `l` over every owned element of its set, halos refreshed
    /// first where it reads stale ones.
    pub fn run(&mut self, l: &'static LoopDecl) -> Result<(), ExecError> {
        if self.ranks() > 1 && l.has_indirect_increment() && l.has_reduction() {
            return Err(ExecError::Backend {
                rank: self.rank(),
                message: crate::launch::indirect_increment_message(l),
            });
        }
        let t = Instant::now();
        let r = if l.sweep.is_some() {
            self.run_sweep(l)
        } else {
            self.run_untimed(l)
        };
        self.time_loop(l, t);
        r
    }

    fn run_untimed(&mut self, l: &'static LoopDecl) -> Result<(), ExecError> {
        let key = self.info(l);
        let info = &self.loops[&key];
        let set = info.set;
        self.groups.clear();
        for &(d, s) in &info.halo_reads {
            if self.stale[d] && self.exchanged[s] {
                match self.groups.iter_mut().find(|g| g.0 == s) {
                    Some(g) => g.1 |= 1 << d,
                    None => self.groups.push((s, 1 << d)),
                }
            }
        }
        self.fused.clear();
        let result = if l.line.is_some() {
            self.run_line_loop(l, set)
        } else if self.groups.is_empty() {
            self.run_owned(l, key, set)
        } else {
            self.run_exchanging(l, key, set)
        };
        let info = &self.loops[&key];
        for &d in &info.writes {
            self.stale[d] = true;
        }
        for &d in &self.fused {
            self.stale[d] = false;
        }
        result.map_err(|message| ExecError::Backend {
            rank: self.rank(),
            message,
        })
    }

    /// Runs `l` over the given spans of its set's local elements only (a
    /// boundary condition on some of a block's cells), after refreshing the
    /// halos it reads.
    pub fn run_spans(
        &mut self,
        l: &'static LoopDecl,
        spans: &[Range<usize>],
    ) -> Result<(), ExecError> {
        let key = self.info(l);
        let groups: Vec<(usize, u64)> = {
            let info = &self.loops[&key];
            let mut g: Vec<(usize, u64)> = Vec::new();
            for &(d, s) in &info.halo_reads {
                if self.stale[d] && self.exchanged[s] {
                    match g.iter_mut().find(|x| x.0 == s) {
                        Some(x) => x.1 |= 1 << d,
                        None => g.push((s, 1 << d)),
                    }
                }
            }
            g
        };
        for &(s, mask) in &groups {
            self.start_exchange(s, mask);
            self.finish_exchange(s, mask);
        }
        let r = self.local.run(l, spans);
        for &d in &self.loops[&key].writes {
            self.stale[d] = true;
        }
        r.map_err(|message| ExecError::Backend {
            rank: self.rank(),
            message,
        })
    }

    /// Where loop `l` runs, per set: the owned elements, and the executed
    /// halo too if it increments through a map.
    fn all_spans(&self, l: &LoopDecl) -> fn(&mut Self) -> &mut Vec<Vec<Range<usize>>> {
        if l.has_indirect_increment() {
            |e| &mut e.inc_spans
        } else {
            |e| &mut e.owned_spans
        }
    }

    fn dats_of(&self, mask: u64) -> impl Iterator<Item = usize> + '_ {
        (0..self.part.dats.len()).filter(move |d| mask & (1 << d) != 0)
    }

    /// Whether set `s`'s halo comes from this rank's own elements only (one
    /// rank, a periodic block wrapping onto itself), each peer entry's
    /// elements paired one to one: then it is copied straight from element
    /// to element ([`LocalBackend::copy_elements`]), not packed, exchanged
    /// and unpacked (the same values).
    fn exchanges_with_itself(&self, s: usize) -> bool {
        self.comm.size() == 1
            && self.part.sets[s]
                .peers
                .iter()
                .all(|p| p.rank == 0 && p.send.len() == p.recv.len())
    }

    fn start_exchange(&mut self, s: usize, mask: u64) {
        if self.exchanges_with_itself(s) {
            let part = self.part.clone();
            for p in &part.sets[s].peers {
                for d in (0..part.dats.len()).filter(|d| mask & (1 << d) != 0) {
                    self.local
                        .copy_elements(part.dats[d].decl, &p.send, &p.recv);
                }
            }
            return;
        }
        if self.local.asynchronous() {
            // The halo is read from the device after the loops before it:
            // wait for them here, outside the exchange's timing (the loops
            // are timed by the device's clock).
            self.local.synchronize();
        }
        if !self.exchanges.contains_key(&(s, mask)) {
            let width: usize = self.dats_of(mask).map(|d| self.part.dats[d].decl.dim).sum();
            let peers: Vec<PeerCounts> = self.part.sets[s]
                .peers
                .iter()
                .map(|p| PeerCounts {
                    rank: p.rank,
                    send: p.send.len() * width,
                    recv: p.recv.len() * width,
                })
                .collect();
            let x = self.comm.exchange(&peers, self.mode);
            self.exchanges.insert((s, mask), x);
        }
        let part = self.part.clone();
        let x = self.exchanges.get_mut(&(s, mask)).expect("created");
        let buf = x.send_buffer();
        let mut at = 0;
        for p in &part.sets[s].peers {
            for d in (0..part.dats.len()).filter(|d| mask & (1 << d) != 0) {
                let decl = part.dats[d].decl;
                let n = p.send.len() * decl.dim;
                self.local.pack(decl, &p.send, &mut buf[at..at + n]);
                at += n;
            }
        }
        x.start();
    }

    /// Finishes the exchanges of `groups` ([`Self::finish_exchange`]).
    fn finish_exchanges(&mut self, groups: &[(usize, u64)]) {
        for &(s, mask) in groups {
            self.finish_exchange(s, mask);
        }
    }

    fn finish_exchange(&mut self, s: usize, mask: u64) {
        if !self.exchanges_with_itself(s) {
            let part = self.part.clone();
            let x = self.exchanges.get_mut(&(s, mask)).expect("started");
            x.finish();
            let buf = x.recv_buffer();
            let mut at = 0;
            for p in &part.sets[s].peers {
                for d in (0..part.dats.len()).filter(|d| mask & (1 << d) != 0) {
                    let decl = part.dats[d].decl;
                    let n = p.recv.len() * decl.dim;
                    self.local.unpack(decl, &p.recv, &buf[at..at + n]);
                    at += n;
                }
            }
        }
        // Fresh on every rank, with or without neighbours: ranks must agree
        // on what is stale, or a rank without neighbours would start
        // exchanges the others do not (a fence waits forever).
        for (d, stale) in self.stale.iter_mut().enumerate() {
            if mask & (1 << d) != 0 {
                *stale = false;
            }
        }
    }

    /// Exchanges the contents of two dats of the same shape (a sweep's new
    /// values become the current ones).
    pub fn swap(&mut self, a: &'static DatDecl, b: &'static DatDecl) {
        let (ia, ib) = (self.dat_index(a), self.dat_index(b));
        self.local.swap(a, b);
        self.stale.swap(ia, ib);
        let read = self.halo_read[ia] || self.halo_read[ib];
        self.halo_read[ia] = read;
        self.halo_read[ib] = read;
    }

    /// Sets an `f64` constant.
    pub fn set_const(&mut self, g: &'static GlobalDecl, values: &[f64]) {
        assert_eq!(
            values.len(),
            g.dim,
            "global `{}`: {} values",
            g.name,
            values.len()
        );
        self.local.set_const(g, values, &[]);
    }

    /// Sets an `i32` constant.
    pub fn set_const_i32(&mut self, g: &'static GlobalDecl, values: &[i32]) {
        assert_eq!(
            values.len(),
            g.dim,
            "global `{}`: {} values",
            g.name,
            values.len()
        );
        self.local.set_const(g, &[], values);
    }

    /// Resets a reduction to its identity.
    pub fn reset(&mut self, g: &'static GlobalDecl) {
        self.local.reset(g);
    }

    /// The values of the reductions `gs` over every rank, one after the
    /// other in `out`; one all-reduce, which also agrees on the control
    /// flags. Collective.
    pub fn reduce(&mut self, gs: &[&'static GlobalDecl], out: &mut [f64]) -> Result<(), ExecError> {
        if self.local.asynchronous() {
            // Wait for the loops before reading their partial results,
            // outside the reduction's timing (as for exchanges).
            self.local.synchronize();
        }
        let t = Instant::now();
        self.record.clear();
        for g in gs {
            let p = self.local.partial(g);
            self.record.push(&p);
        }
        self.record.flags = self.control;
        let local_error = self.local.error();
        if local_error.is_some() {
            self.record.flags |= flags::ERROR;
            self.record.error_rank = self.rank() as u64;
        }
        self.comm.all_reduce(&mut self.record);
        self.agreed |= self.record.flags;
        self.reduce_time += t.elapsed();
        self.reductions += 1;
        if self.record.flags & flags::ERROR != 0 {
            let rank = self.record.error_rank as usize;
            let message = self.error_message(rank, local_error);
            return Err(ExecError::Backend { rank, message });
        }
        for (k, o) in out.iter_mut().enumerate().take(self.record.n) {
            *o = self.record.value(k);
        }
        Ok(())
    }

    /// The failed rank's message, on every rank.
    fn error_message(&self, rank: usize, mine: Option<String>) -> String {
        let mut bytes = if rank == self.rank() {
            mine.unwrap_or_default().into_bytes()
        } else {
            Vec::new()
        };
        self.comm.broadcast(rank, &mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Agrees on the control flags without reducing anything (a step that
    /// reduced nothing). Collective.
    pub fn sync_control(&mut self) -> Result<(), ExecError> {
        self.reduce(&[], &mut [])
    }

    /// Asks every rank to stop after the current step because of `signal`
    /// (the request travels with the next reduction).
    pub fn request_stop(&mut self, signal: i32) {
        self.control |= flags::STOP;
        if (1..56).contains(&signal) {
            self.control |= 1 << (flags::SIGNAL_SHIFT + signal as u32);
        }
    }

    /// Whether some rank asked to stop (known after a reduction), and the
    /// signal behind it: the lowest-numbered one any rank received, the
    /// same on every rank (0 if none was named).
    pub fn stop_agreed(&self) -> Option<i32> {
        if self.agreed & flags::STOP == 0 {
            return None;
        }
        let signals = self.agreed >> flags::SIGNAL_SHIFT;
        Some(if signals == 0 {
            0
        } else {
            signals.trailing_zeros() as i32
        })
    }

    /// Communication statistics so far.
    pub fn stats(&self) -> CommStats {
        let mut exchange = ExchangeTimes::default();
        for x in self.exchanges.values() {
            exchange.add(&x.times());
        }
        CommStats {
            exchange,
            reduce: self.reduce_time,
            reductions: self.reductions,
        }
    }

    /// Bytes held by the backend and the exchange buffers.
    pub fn bytes(&self) -> usize {
        self.local.bytes() + self.exchanges.values().map(|x| x.bytes()).sum::<usize>()
    }

    /// Waits until the backend has done all submitted work.
    pub fn synchronize(&mut self) {
        self.local.synchronize();
    }

    /// The backend's thread pool, if any.
    pub fn pool(&self) -> Option<Arc<rayon::ThreadPool>> {
        self.local.pool()
    }
}

/// A set's owned elements split for an overlapped gather: the first share
/// of the core, and the others in memory order.
type FirstAndAfter = (Vec<Range<usize>>, Vec<Range<usize>>);

/// `spans` sorted and those that touch joined.
pub(super) fn in_memory_order<'a>(
    spans: impl Iterator<Item = &'a Range<usize>>,
) -> Vec<Range<usize>> {
    let mut v: Vec<Range<usize>> = spans.filter(|r| !r.is_empty()).cloned().collect();
    v.sort_unstable_by_key(|r| r.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(v.len());
    for r in v {
        match out.last_mut() {
            Some(last) if last.end >= r.start => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::in_memory_order;

    #[test]
    fn spans_in_memory_order_are_sorted_and_joined() {
        let spans = [5..7, 0..3, 3..5, 9..10, 8..8, 12..14];
        assert_eq!(in_memory_order(spans.iter()), vec![0..7, 9..10, 12..14]);
        assert!(in_memory_order([].iter()).is_empty());
    }
}
