//! The distributed backend: a local backend (CPU, or a device's) over one
//! rank's part, the ghost exchange around its steps, and the iteration's
//! one reduction.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use qflow_lskum::forces::ForceSums;
use qflow_lskum::kernels::UpdateOutcome;
use qflow_lskum::{Geometry, Params, Vec4};

use super::comm::{agree, World};
use super::halo::{ExchangeMode, ExchangeTimes, Exchanger, Fields};
use super::local::LocalCompute;
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

/// The backend of one MPI rank (see the module documentation): the local
/// backend `L` computes the rank's part (a [`CpuBackend`], serial or
/// threads; or, with the feature `opencl`, a
/// [`crate::opencl::OpenClBackend`] on the rank's device).
pub struct DistributedBackend<L: LocalCompute = CpuBackend> {
    local: L,
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

impl DistributedBackend<CpuBackend> {
    /// The backend of `part` running its kernels on the CPU as `par` says,
    /// exchanging as `mode` says. Collective: every rank calls it, in the
    /// same order with respect to other collectives.
    pub fn new(part: LocalPart, params: Params, par: Par, mode: ExchangeMode) -> Self {
        Self::with_local(part, params, mode, |geom, params| {
            CpuBackend::with_par(geom, params, par)
        })
    }
}

impl<L: LocalCompute> DistributedBackend<L> {
    /// The backend of `part` computing with the local backend that `make`
    /// starts on the part's geometry, exchanging as `mode` says; every
    /// rank's local backend must start, else every rank gets an error:
    /// rank 0 the failed ranks' messages (`rank r: message`, one per line,
    /// ranks with the same message on one line), the others an empty one
    /// (only rank 0 reports; see [`super::agree`]). Collective over
    /// `world`.
    pub fn try_with_local(
        world: &World,
        part: LocalPart,
        params: Params,
        mode: ExchangeMode,
        make: impl FnOnce(Arc<Geometry>, Params) -> Result<L, String>,
    ) -> Result<Self, String> {
        let (geom, part) = split_geometry(part);
        let local = agree(world, make(geom.clone(), params))?;
        Ok(Self::assemble(part, geom, local, params, mode))
    }

    /// [`DistributedBackend::try_with_local`] for a local backend that
    /// cannot fail to start. Collective.
    pub fn with_local(
        part: LocalPart,
        params: Params,
        mode: ExchangeMode,
        make: impl FnOnce(Arc<Geometry>, Params) -> L,
    ) -> Self {
        let (geom, part) = split_geometry(part);
        let local = make(geom.clone(), params);
        Self::assemble(part, geom, local, params, mode)
    }

    fn assemble(
        part: LocalPart,
        geom: Arc<Geometry>,
        local: L,
        params: Params,
        mode: ExchangeMode,
    ) -> Self {
        let LocalPart {
            rank,
            ranks,
            global_len,
            global,
            n_interior,
            n_owned,
            geometry: _,
            state,
            recv,
            send,
        } = part;
        let stages = params.scheme.stages();
        let ghosts = geom.len() - n_owned;
        let ex = Exchanger::new(mode, n_owned, ghosts, &recv, &send);
        let reducer = Reducer::new();
        let mut b = DistributedBackend {
            local,
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

    /// The local backend.
    pub fn local(&self) -> &L {
        &self.local
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

    /// Runs `step` over the interior points: on the CPU in chunks between
    /// which the exchange under way is polled, so that it progresses while
    /// they are computed; on a device as one launch, submitted at once, so
    /// that the device computes them while the host waits for the messages.
    fn interior(&mut self, step: impl Fn(&mut L, Range<usize>)) {
        let n = self.n_interior;
        if self.local.asynchronous() {
            // One launch; the device computes while the host waits for the
            // messages.
            step(&mut self.local, 0..n);
            if self.ex.pending().is_some() {
                self.local.flush();
            }
            return;
        }
        if self.ex.pending().is_none() || !self.ex.has_peers() {
            step(&mut self.local, 0..n);
            return;
        }
        let chunk = (n / 8).max(POLL_CHUNK);
        let mut at = 0;
        while at < n {
            let end = (at + chunk).min(n);
            step(&mut self.local, at..end);
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
        self.ex.finish(&mut self.local);
        self.publish();
    }

    /// Brings the ghosts' `q` up to date (their `prim` first).
    fn ghost_q(&mut self) {
        if self.ghost_q_stale {
            debug_assert_eq!(self.ex.pending(), Some(Fields::Prim));
            self.finish();
            let g = self.ghosts();
            self.local.q_variables_range(g);
            self.ghost_q_stale = false;
        }
    }

    fn start(&mut self, f: Fields) {
        self.ex.start(f, &mut self.local);
    }

    /// Records the first non-physical owned point of this stage (lowest
    /// original number) if none was recorded this iteration.
    fn note_bad(&mut self, stage: usize) {
        if self.local_bad.is_some() {
            return;
        }
        if let Some((stage, j, state)) = self.local.first_bad(stage, self.n_owned, &self.global) {
            self.local_bad = Some(BadPoint {
                stage,
                point: self.global[j] as usize,
                x: self.geom.x[j],
                y: self.geom.y[j],
                state,
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

/// The geometry of `part`, shared, and the part without it.
fn split_geometry(mut part: LocalPart) -> (Arc<Geometry>, LocalPart) {
    let empty = Geometry {
        x: Vec::new(),
        y: Vec::new(),
        nx: Vec::new(),
        ny: Vec::new(),
        kind: Vec::new(),
        min_dist: Vec::new(),
        stencil: Default::default(),
        surface: Vec::new(),
    };
    let geom = Arc::new(std::mem::replace(&mut part.geometry, empty));
    (geom, part)
}

impl<L: LocalCompute> Backend for DistributedBackend<L> {
    fn name(&self) -> String {
        format!(
            "mpi ({} ranks x {}), {} exchange",
            self.ranks,
            self.local.name(),
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
        self.local.set_state(prim);
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
            self.local.q_variables_range(g);
        }
        self.local.state(out);
    }

    fn restore_iteration_start(&mut self) {
        // The update under way carries the bad state: drop it.
        self.ex.finish_discard();
        self.ghost_q_stale = false;
        self.local.restore_iteration_start();
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
        let g = self.ghosts();
        self.local.save_start_state(g);
        let b = self.boundary();
        self.local.local_time_step_range(b);
    }

    fn q_variables(&mut self) {
        self.local.q_variables_range(0..self.n_owned);
        if self.ex.pending() == Some(Fields::Prim) {
            // Ghost q once their prim is in (in q_derivatives, after its
            // interior).
            self.ghost_q_stale = true;
        } else {
            let g = self.ghosts();
            self.local.q_variables_range(g);
        }
    }

    fn q_derivatives(&mut self) {
        self.interior(|c, r| c.q_derivatives_range(r));
        self.ghost_q();
        let b = self.boundary();
        self.local.q_derivatives_range(b);
        self.start(Fields::Derivatives);
    }

    fn q_inner_iteration(&mut self) {
        self.interior(|c, r| c.q_inner_iteration_range(r));
        self.finish();
        let b = self.boundary();
        self.local.q_inner_iteration_range(b);
        self.local.finish_inner_iteration();
        self.start(Fields::Gradients);
    }

    fn flux_residual(&mut self) {
        self.interior(|c, r| c.flux_residual_range(r));
        self.finish();
        let b = self.boundary();
        self.local.flux_residual_range(b);
    }

    fn state_update(&mut self, stage: usize) -> UpdateOutcome {
        let out = self.local.state_update_owned(stage, self.n_owned);
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
            forces: self.local.force_sums(),
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
            forces: self.local.force_sums(),
            ..Record::default()
        };
        let all = self.all_reduce(&mine);
        self.forces = Some(all.forces.clone());
        all.forces
    }

    fn state_bytes(&self) -> usize {
        self.local.state_bytes() + self.ex.bytes()
    }

    fn pool(&self) -> Option<Arc<rayon::ThreadPool>> {
        self.local.pool()
    }

    fn bad_point(&self) -> Option<BadPoint> {
        self.agreed_bad
    }
}
