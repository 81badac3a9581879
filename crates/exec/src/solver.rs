//! The iteration of Algorithm 1 over any [`Backend`], with the books kept:
//! residue as the reference reports it, forces, per-kernel timings, stopping
//! rules and a clean stop (last good state kept) when the state goes bad.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use qflow_lskum::forces::Coefficients;
use qflow_lskum::gas::FreeStream;
use qflow_lskum::{Geometry, Settings, Vec4};

use crate::Backend;

/// What one iteration produced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IterationReport {
    /// The iteration's number (1-based).
    pub iteration: u64,
    /// `log10(res / res_ref)` with `res_ref` the residue of iteration 2;
    /// 0 for iterations 1 and 2 (the reference's convention).
    pub log_residue: f64,
    /// The residue `sqrt(sum of squared density changes) / N` of the last
    /// stage.
    pub residue: f64,
    /// Force coefficients after the iteration.
    pub coefficients: Coefficients,
    /// Wall-clock seconds of the iteration.
    pub seconds: f64,
}

/// When to stop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StopRule {
    /// Stop after this many iterations in all (counting those of a run that
    /// is resumed).
    pub max_iters: u64,
    /// Stop once the residue has dropped by this many orders of magnitude
    /// (`log_residue <= -drop`).
    pub residue_drop: Option<f64>,
}

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The iteration limit was reached.
    MaxIterations,
    /// The residue dropped by the requested orders of magnitude.
    Converged,
    /// The caller's observer asked to stop.
    Interrupted,
}

/// Wall-clock time spent in each kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KernelTimes {
    /// Local time step (and the save of the iteration's start state).
    pub local_time_step: Duration,
    /// q-variables.
    pub q_variables: Duration,
    /// q-derivatives, inner iterations included.
    pub q_derivatives: Duration,
    /// Flux residual.
    pub flux_residual: Duration,
    /// State update (with the per-point residue contributions).
    pub state_update: Duration,
    /// Residue reduction and force sums.
    pub residue: Duration,
}

impl KernelTimes {
    /// The kernels with their names, in iteration order.
    pub fn named(&self) -> [(&'static str, Duration); 6] {
        [
            ("q_variables", self.q_variables),
            ("q_derivatives", self.q_derivatives),
            ("flux_residual", self.flux_residual),
            ("local_time_step", self.local_time_step),
            ("state_update", self.state_update),
            ("residue", self.residue),
        ]
    }

    /// Sum of all kernels.
    pub fn total(&self) -> Duration {
        self.named().iter().map(|(_, d)| *d).sum()
    }
}

/// A run that cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum SolverError {
    /// A point's new state is not physical (NaN, or non-positive density or
    /// pressure). The backend holds the state of the start of the iteration.
    #[error(
        "iteration {iteration}, stage {stage}: non-physical state at point {point} \
         (x = {x}, y = {y}): rho = {rho}, u = {u}, v = {v}, p = {p}; \
         stopped with the state after iteration {last_good} kept",
        rho = state[0], u = state[1], v = state[2], p = state[3]
    )]
    NonPhysical {
        /// The failing iteration (1-based).
        iteration: u64,
        /// The failing Runge-Kutta stage (1-based).
        stage: usize,
        /// The point, 1-based in the cloud's original numbering.
        point: usize,
        /// Its coordinates.
        x: f64,
        /// Its coordinates.
        y: f64,
        /// The bad state `[rho, u, v, p]`.
        state: Vec4,
        /// The last completed iteration, whose state is kept.
        last_good: u64,
    },
}

/// The q-LSKUM iteration on a backend.
pub struct Solver {
    backend: Box<dyn Backend>,
    geom: Arc<Geometry>,
    settings: Settings,
    free_stream: FreeStream,
    original_index: Option<Arc<[u32]>>,
    iteration: u64,
    res_ref: f64,
    times: KernelTimes,
    timed_iterations: u64,
}

impl Solver {
    /// A solver starting from the free stream everywhere.
    pub fn new(mut backend: Box<dyn Backend>, geom: Arc<Geometry>, settings: Settings) -> Self {
        let free_stream = settings.free_stream();
        let init = vec![free_stream.primitive(); geom.len()];
        backend.set_state(&init);
        Solver {
            backend,
            geom,
            settings,
            free_stream,
            original_index: None,
            iteration: 0,
            res_ref: 0.0,
            times: KernelTimes::default(),
            timed_iterations: 0,
        }
    }

    /// Tells the solver the cloud was renumbered: internal point `i` is the
    /// user's point `original_index[i]` (0-based). Used only in messages.
    pub fn set_original_numbering(&mut self, original_index: Arc<[u32]>) {
        self.original_index = Some(original_index);
    }

    /// Continues a run: sets the state and the books as they were after
    /// `iteration` iterations with reference residue `res_ref`.
    pub fn resume(&mut self, iteration: u64, res_ref: f64, prim: &[Vec4]) {
        self.backend.set_state(prim);
        self.iteration = iteration;
        self.res_ref = res_ref;
    }

    /// Completed iterations.
    pub fn iteration(&self) -> u64 {
        self.iteration
    }

    /// The residue that `log_residue` is relative to (that of iteration 2),
    /// 0 before iteration 2.
    pub fn reference_residue(&self) -> f64 {
        self.res_ref
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The geometry.
    pub fn geometry(&self) -> &Arc<Geometry> {
        &self.geom
    }

    /// The backend's name.
    pub fn backend_name(&self) -> String {
        self.backend.name()
    }

    /// Bytes of state the backend holds.
    pub fn state_bytes(&self) -> usize {
        self.backend.state_bytes()
    }

    /// The current primitive state of every point (internal numbering).
    pub fn state(&mut self) -> Vec<Vec4> {
        let mut out = vec![[0.0; 4]; self.geom.len()];
        self.backend.state(&mut out);
        out
    }

    /// Time spent per kernel so far, and the number of iterations timed.
    pub fn kernel_times(&self) -> (KernelTimes, u64) {
        (self.times, self.timed_iterations)
    }

    /// Forgets the kernel timings (e.g. after a warm-up).
    pub fn reset_times(&mut self) {
        self.times = KernelTimes::default();
        self.timed_iterations = 0;
    }

    /// Force coefficients of the current state.
    pub fn coefficients(&mut self) -> Coefficients {
        self.backend.force_sums().coefficients(&self.free_stream)
    }

    fn timed<R>(
        backend: &mut dyn Backend,
        acc: &mut Duration,
        f: impl FnOnce(&mut dyn Backend) -> R,
    ) -> R {
        let t = Instant::now();
        let r = f(backend);
        backend.synchronize();
        *acc += t.elapsed();
        r
    }

    /// Runs one iteration.
    pub fn step(&mut self) -> Result<IterationReport, SolverError> {
        match self.backend.pool() {
            Some(pool) => pool.install(|| self.step_here()),
            None => self.step_here(),
        }
    }

    fn step_here(&mut self) -> Result<IterationReport, SolverError> {
        let start = Instant::now();
        let iteration = self.iteration + 1;
        let b = &mut *self.backend;
        let t = &mut self.times;
        Self::timed(b, &mut t.local_time_step, |b| b.local_time_step());
        let stages = self.settings.scheme.stages();
        let mut sum_sq = 0.0;
        for stage in 0..stages {
            Self::timed(b, &mut t.q_variables, |b| b.q_variables());
            Self::timed(b, &mut t.q_derivatives, |b| {
                b.q_derivatives();
                for _ in 0..self.settings.inner_iterations {
                    b.q_inner_iteration();
                }
            });
            Self::timed(b, &mut t.flux_residual, |b| b.flux_residual());
            let outcome = Self::timed(b, &mut t.state_update, |b| b.state_update(stage));
            if let Some(i) = outcome.bad_point {
                let error = match b.bad_point() {
                    Some(p) => SolverError::NonPhysical {
                        iteration,
                        stage: p.stage + 1,
                        point: p.point + 1,
                        x: p.x,
                        y: p.y,
                        state: p.state,
                        last_good: self.iteration,
                    },
                    None => {
                        let mut state = vec![[0.0; 4]; self.geom.len()];
                        b.state(&mut state);
                        let user = self.original_index.as_ref().map_or(i, |m| m[i] as usize);
                        SolverError::NonPhysical {
                            iteration,
                            stage: stage + 1,
                            point: user + 1,
                            x: self.geom.x[i],
                            y: self.geom.y[i],
                            state: state[i],
                            last_good: self.iteration,
                        }
                    }
                };
                b.restore_iteration_start();
                return Err(error);
            }
            sum_sq = Self::timed(b, &mut t.residue, |_| outcome.sum_sq.value());
        }
        let n = b.global_len() as f64;
        let residue = sum_sq.sqrt() / n;
        // The reference takes iteration 2's residue as the reference value
        // (iteration 1's is often exactly zero from a free-stream start).
        if iteration <= 2 {
            self.res_ref = residue;
        }
        let log_residue = if iteration <= 2 || self.res_ref <= 0.0 {
            0.0
        } else {
            (residue / self.res_ref).log10()
        };
        let fs = self.free_stream;
        let coefficients = Self::timed(b, &mut t.residue, |b| b.force_sums().coefficients(&fs));
        self.iteration = iteration;
        self.timed_iterations += 1;
        Ok(IterationReport {
            iteration,
            log_residue,
            residue,
            coefficients,
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// Iterates until `stop` says so or `observe` breaks; `observe` sees every
    /// iteration's report.
    pub fn run(
        &mut self,
        stop: &StopRule,
        mut observe: impl FnMut(&IterationReport) -> ControlFlow<()>,
    ) -> Result<StopReason, SolverError> {
        while self.iteration < stop.max_iters {
            let r = self.step()?;
            if observe(&r).is_break() {
                return Ok(StopReason::Interrupted);
            }
            if let Some(drop) = stop.residue_drop {
                if r.iteration > 2 && r.log_residue <= -drop {
                    return Ok(StopReason::Converged);
                }
            }
        }
        Ok(StopReason::MaxIterations)
    }
}
