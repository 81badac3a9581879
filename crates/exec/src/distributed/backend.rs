//! The distributed backend: the local CPU backend over one rank's part, the
//! ghost exchange around its steps, and the iteration's one reduction.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use qflow_lskum::forces::ForceSums;
use qflow_lskum::gas;
use qflow_lskum::kernels::UpdateOutcome;
use qflow_lskum::{Geometry, Params, Vec4};

use super::halo::{ExchangeMode, ExchangeTimes, Exchanger, Fields};
use super::part::LocalPart;
use super::reduce::{Record, Reducer};
use crate::{Backend, BadPoint, CpuBackend, Par};

/// Interior points computed between two polls of the exchange.
const POLL_CHUNK: usize = 4096;

/// What a rank's backend shares with the run that drives it (the backend
/// itself is inside the solver).
#[derive(Debug, Default)]
pub struct Shared {
    /// Set (e.g. by a Ctrl-C handler) to ask every rank to stop; the request
    /// travels with the iteration's reduction.
    pub stop_requested: AtomicBool,
    /// Set when any rank asked to stop: every rank sees it after the same
    /// iteration.
    pub stop_agreed: AtomicBool,
    /// Communication statistics so far.
    pub stats: Mutex<CommStats>,
    /// The non-physical point all ranks agreed on, if the run went bad.
    pub bad_point: Mutex<Option<BadPoint>>,
}

/// Communication statistics of one rank.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CommStats {
    /// Ghost exchanges: counts, bytes and times.
    pub exchange: ExchangeTimes,
    /// Time in the iteration's reduction (including waiting for the slowest
    /// rank).
    pub reduce: Duration,
    /// Reductions done.
    pub reductions: u64,
}

/// The backend of one MPI rank (see the module documentation).
pub struct DistributedBackend {
    cpu: CpuBackend,
    geom: Arc<Geometry>,
    global: Vec<u32>,
    global_len: usize,
    n_interior: usize,
    n_owned: usize,
    rank: usize,
    ranks: usize,
    stages: usize,
    ex: Exchanger,
    reducer: Reducer,
    /// Ghost `q` waits for the ghost `prim` still on its way.
    ghost_q_stale: bool,
    /// The first bad point of this rank in the current iteration.
    local_bad: Option<BadPoint>,
    /// The bad point all ranks agreed on.
    agreed_bad: Option<BadPoint>,
    /// Force sums of the current state, all ranks merged, when known.
    forces: Option<ForceSums>,
    reduce_time: Duration,
    reductions: u64,
    shared: Arc<Shared>,
}

impl DistributedBackend {
    /// The backend of `part` running its kernels as `par` says, exchanging
    /// as `mode` says. Collective: every rank calls it, in the same order
    /// with respect to other collectives.
    pub fn new(part: LocalPart, params: Params, par: Par, mode: ExchangeMode) -> Self {
        let LocalPart {
            rank,
            ranks,
            global_len,
            global,
            n_interior,
            n_owned,
            geometry,
            state,
            recv,
            send,
        } = part;
        let stages = params.scheme.stages();
        let geom = Arc::new(geometry);
        let ghosts = geom.len() - n_owned;
        let ex = Exchanger::new(mode, n_owned, ghosts, &recv, &send);
        let reducer = Reducer::new();
        let mut b = DistributedBackend {
            cpu: CpuBackend::with_par(geom.clone(), params, par),
            geom,
            global,
            global_len,
            n_interior,
            n_owned,
            rank: rank as usize,
            ranks: ranks as usize,
            stages,
            ex,
            reducer,
            ghost_q_stale: false,
            local_bad: None,
            agreed_bad: None,
            forces: None,
            reduce_time: Duration::ZERO,
            reductions: 0,
            shared: Arc::new(Shared::default()),
        };
        b.set_state(&state);
        b
    }

    /// The local geometry (owned points, then ghosts).
    pub fn geometry(&self) -> &Arc<Geometry> {
        &self.geom
    }

    /// What the backend shares with the run driving it.
    pub fn shared(&self) -> Arc<Shared> {
        self.shared.clone()
    }

    /// Owned points.
    pub fn owned(&self) -> usize {
        self.n_owned
    }

    /// Owned points whose stencils are wholly owned.
    pub fn interior_points(&self) -> usize {
        self.n_interior
    }

    /// The cloud index of every local point.
    pub fn global_index(&self) -> &[u32] {
        &self.global
    }

    /// The exchange mode.
    pub fn mode(&self) -> ExchangeMode {
        self.ex.mode()
    }

    fn publish(&self) {
        if let Ok(mut s) = self.shared.stats.lock() {
            s.exchange = self.ex.times();
            s.reduce = self.reduce_time;
            s.reductions = self.reductions;
        }
    }

    /// Forgets the communication statistics (e.g. after a warm-up).
    pub fn reset_stats(&mut self) {
        self.ex.reset_times();
        self.reduce_time = Duration::ZERO;
        self.reductions = 0;
        self.publish();
    }

    /// Runs `step` over the interior points: in chunks between which the
    /// exchange under way is polled, so that it progresses while they are
    /// computed.
    fn interior(&mut self, step: impl Fn(&mut CpuBackend, Range<usize>)) {
        let n = self.n_interior;
        if self.ex.pending().is_none() || !self.ex.has_peers() {
            step(&mut self.cpu, 0..n);
            return;
        }
        let chunk = (n / 8).max(POLL_CHUNK);
        let mut at = 0;
        while at < n {
            let end = (at + chunk).min(n);
            step(&mut self.cpu, at..end);
            self.ex.progress();
            at = end;
        }
    }

    fn boundary(&self) -> Range<usize> {
        self.n_interior..self.n_owned
    }

    fn ghosts(&self) -> Range<usize> {
        self.n_owned..self.geom.len()
    }

    /// Finishes the exchange under way into the ghosts.
    fn finish(&mut self) {
        self.ex.finish(self.cpu.arrays_mut());
        self.publish();
    }

    /// Brings the ghosts' `q` up to date (their `prim` first).
    fn ghost_q(&mut self) {
        if self.ghost_q_stale {
            debug_assert_eq!(self.ex.pending(), Some(Fields::Prim));
            self.finish();
            let g = self.ghosts();
            self.cpu.q_variables_range(g);
            self.ghost_q_stale = false;
        }
    }

    fn start(&mut self, f: Fields) {
        self.ex.start(f, self.cpu.arrays_mut());
    }

    /// Records the first non-physical owned point of this stage (lowest
    /// original number) if none was recorded this iteration.
    fn note_bad(&mut self, stage: usize) {
        if self.local_bad.is_some() {
            return;
        }
        let s = self.cpu.arrays();
        let worst = (0..self.n_owned)
            .filter(|&j| !gas::is_physical(&s.prim[j]))
            .min_by_key(|&j| self.global[j]);
        if let Some(j) = worst {
            self.local_bad = Some(BadPoint {
                stage,
                point: self.global[j] as usize,
                x: self.geom.x[j],
                y: self.geom.y[j],
                state: s.prim[j],
                rank: self.rank,
            });
        }
    }

    fn all_reduce(&mut self, mine: &Record) -> Record {
        let t = Instant::now();
        let r = self.reducer.all_reduce(mine);
        self.reduce_time += t.elapsed();
        self.reductions += 1;
        self.publish();
        r
    }
}

impl Backend for DistributedBackend {
    fn name(&self) -> String {
        format!(
            "mpi ({} ranks x {}), {} exchange",
            self.ranks,
            self.cpu.name(),
            self.ex.mode().name()
        )
    }

    fn len(&self) -> usize {
        self.geom.len()
    }

    fn global_len(&self) -> usize {
        self.global_len
    }

    /// Sets the state of every local point (owned and ghosts) and refreshes
    /// the ghosts from their owners. Collective among neighbours.
    fn set_state(&mut self, prim: &[Vec4]) {
        self.ex.finish_discard();
        self.cpu.set_state(prim);
        self.start(Fields::Prim);
        self.finish();
        self.ghost_q_stale = false;
        self.forces = None;
        self.local_bad = None;
        self.agreed_bad = None;
    }

    fn state(&mut self, out: &mut [Vec4]) {
        if self.ex.pending() == Some(Fields::Prim) {
            self.finish();
            self.ghost_q_stale = false;
            let g = self.ghosts();
            self.cpu.q_variables_range(g);
        }
        self.cpu.state(out);
    }

    fn restore_iteration_start(&mut self) {
        // The update under way carries the bad state: drop it.
        self.ex.finish_discard();
        self.ghost_q_stale = false;
        self.cpu.restore_iteration_start();
        self.forces = None;
    }

    fn local_time_step(&mut self) {
        self.forces = None;
        self.local_bad = None;
        self.agreed_bad = None;
        self.interior(|c, r| c.local_time_step_range(r));
        if self.ex.pending().is_some() {
            self.finish();
        }
        self.ghost_q_stale = false;
        // Ghosts keep their start-of-iteration state too, so that a restore
        // needs no message.
        let (n, g) = (self.n_owned, self.ghosts());
        let s = self.cpu.arrays_mut();
        let (prim, old) = (&s.prim[g.clone()], &mut s.prim_old[n..]);
        old.copy_from_slice(prim);
        let b = self.boundary();
        self.cpu.local_time_step_range(b);
    }

    fn q_variables(&mut self) {
        self.cpu.q_variables_range(0..self.n_owned);
        if self.ex.pending() == Some(Fields::Prim) {
            // Ghost q once their prim is in (in q_derivatives, after its
            // interior).
            self.ghost_q_stale = true;
        } else {
            let g = self.ghosts();
            self.cpu.q_variables_range(g);
        }
    }

    fn q_derivatives(&mut self) {
        self.interior(|c, r| c.q_derivatives_range(r));
        self.ghost_q();
        let b = self.boundary();
        self.cpu.q_derivatives_range(b);
        self.start(Fields::Derivatives);
    }

    fn q_inner_iteration(&mut self) {
        self.interior(|c, r| c.q_inner_iteration_range(r));
        self.finish();
        let b = self.boundary();
        self.cpu.q_inner_iteration_range(b);
        self.cpu.finish_inner_iteration();
        self.start(Fields::Gradients);
    }

    fn flux_residual(&mut self) {
        self.interior(|c, r| c.flux_residual_range(r));
        self.finish();
        let b = self.boundary();
        self.cpu.flux_residual_range(b);
    }

    fn state_update(&mut self, stage: usize) -> UpdateOutcome {
        let out = self.cpu.state_update_range(stage, 0..self.n_owned);
        self.start(Fields::Prim);
        if out.bad_point.is_some() {
            self.note_bad(stage);
        }
        if stage + 1 < self.stages {
            // A bad point waits for the iteration's reduction; the stages
            // left compute on (NaNs spread, nothing panics) and the state is
            // restored from the iteration's start.
            return UpdateOutcome {
                sum_sq: out.sum_sq,
                bad_point: None,
            };
        }
        let mine = Record {
            sum_sq: out.sum_sq,
            forces: self.cpu.force_sums(),
            stop: self.shared.stop_requested.load(Ordering::SeqCst),
            bad: self.local_bad,
        };
        let all = self.all_reduce(&mine);
        if all.stop {
            self.shared.stop_agreed.store(true, Ordering::SeqCst);
        }
        self.forces = Some(all.forces);
        self.agreed_bad = all.bad;
        if all.bad.is_some() {
            if let Ok(mut b) = self.shared.bad_point.lock() {
                *b = all.bad;
            }
        }
        UpdateOutcome {
            sum_sq: all.sum_sq,
            // The solver asks `bad_point()` which point it was.
            bad_point: all.bad.map(|_| 0),
        }
    }

    fn force_sums(&mut self) -> ForceSums {
        if let Some(f) = &self.forces {
            return f.clone();
        }
        let mine = Record {
            forces: self.cpu.force_sums(),
            ..Record::default()
        };
        let all = self.all_reduce(&mine);
        self.forces = Some(all.forces.clone());
        all.forces
    }

    fn state_bytes(&self) -> usize {
        self.cpu.state_bytes() + self.ex.bytes()
    }

    fn pool(&self) -> Option<Arc<rayon::ThreadPool>> {
        self.cpu.pool()
    }

    fn bad_point(&self) -> Option<BadPoint> {
        self.agreed_bad
    }
}
