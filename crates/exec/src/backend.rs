//! The `Backend` trait: one method per step of the q-LSKUM iteration.

use qflow_lskum::forces::ForceSums;
use qflow_lskum::kernels::UpdateOutcome;
use qflow_lskum::Vec4;

/// A way to run the steps of the iteration. A backend owns the solution
/// state and its scratch (in host memory, or on a device) and runs each step
/// over all its points; the [`crate::Solver`] calls the steps in the order of
/// Algorithm 1 and keeps the books (residue, forces, timings).
///
/// Contract: for the same geometry, settings and initial state, every
/// backend's steps give the same values as the reference kernels of
/// `qflow_lskum::kernels` (CPU backends: bit-identical; device backends:
/// within a stated tolerance).
pub trait Backend: Send {
    /// A short description, e.g. `threads (4)`.
    fn name(&self) -> String;

    /// Number of points the backend owns.
    fn len(&self) -> usize;

    /// Whether the backend has no points.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sets the primitive state of every point.
    fn set_state(&mut self, prim: &[Vec4]);

    /// Copies the primitive state of every point into `out`.
    fn state(&mut self, out: &mut [Vec4]);

    /// Puts back the state saved at the start of the current iteration by
    /// [`Backend::local_time_step`]: the last good state after a step failed.
    fn restore_iteration_start(&mut self);

    /// Local time steps, and the save of the state at the start of the
    /// iteration.
    fn local_time_step(&mut self);

    /// q-variables from the primitive state.
    fn q_variables(&mut self);

    /// First q-derivatives and the limiter's stencil bounds.
    fn q_derivatives(&mut self);

    /// One inner (Jacobi) sweep of the q-derivatives.
    fn q_inner_iteration(&mut self);

    /// Flux residual.
    fn flux_residual(&mut self);

    /// State update of Runge-Kutta stage `stage` (0-based); returns the exact
    /// sum of squared density changes and the first non-physical point.
    fn state_update(&mut self, stage: usize) -> UpdateOutcome;

    /// Exact partial sums of the force integrals of the current state.
    fn force_sums(&mut self) -> ForceSums;

    /// Waits until all submitted work is done (for timing asynchronous
    /// devices; CPU backends are always done).
    fn synchronize(&mut self) {}

    /// Bytes of solution state and scratch the backend holds (geometry
    /// excluded).
    fn state_bytes(&self) -> usize;

    /// The thread pool the backend's kernels run on, if any: the solver runs
    /// each whole iteration inside it, so that the kernels' parallel loops
    /// start from a worker thread (no job is injected from outside, which
    /// keeps the iteration free of allocation).
    fn pool(&self) -> Option<std::sync::Arc<rayon::ThreadPool>> {
        None
    }

    /// Number of points of the whole problem, which the residue is
    /// normalised by: [`Backend::len`] for a backend that holds every point;
    /// the sum of every rank's owned points for a distributed backend.
    fn global_len(&self) -> usize {
        self.len()
    }

    /// The non-physical point that made the last [`Backend::state_update`]
    /// report a `bad_point`, described in the user's terms, when the
    /// backend knows it better than the solver's geometry does: a
    /// distributed backend agrees on one point across all ranks (it may be
    /// another rank's point). `None`: the solver describes
    /// `bad_point` itself from its geometry and numbering.
    fn bad_point(&self) -> Option<BadPoint> {
        None
    }
}

/// A non-physical point as a backend reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BadPoint {
    /// The Runge-Kutta stage (0-based) at which it went bad.
    pub stage: usize,
    /// The point, 0-based in the cloud's original numbering.
    pub point: usize,
    /// Its coordinates.
    pub x: f64,
    /// Its coordinates.
    pub y: f64,
    /// Its bad state `[rho, u, v, p]`.
    pub state: Vec4,
    /// The rank that owns it (0 for a backend that is not distributed).
    pub rank: usize,
}
