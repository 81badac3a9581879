//! The CPU backends: `serial` (one chunk on the calling thread) and
//! `threads` (chunks on a rayon pool). Both run the reference kernels of
//! `qflow_lskum::kernels`; only the cutting into chunks differs, so they give
//! bit-identical fields for any thread count.

use std::ops::Range;
use std::sync::Arc;

use qflow_lskum::forces::ForceSums;
use qflow_lskum::kernels::{self, FluxInputs, UpdateOutcome};
use qflow_lskum::{Geometry, Params, Vec4};

use crate::par::Par;
use crate::Backend;

/// Solution state and scratch of every point, allocated once.
#[derive(Clone, Debug)]
pub struct CpuState {
    /// Primitive state `[rho, u, v, p]`.
    pub prim: Vec<Vec4>,
    /// The state at the start of the iteration.
    pub prim_old: Vec<Vec4>,
    /// q-variables.
    pub q: Vec<Vec4>,
    /// x-derivatives of q.
    pub qx: Vec<Vec4>,
    /// y-derivatives of q.
    pub qy: Vec<Vec4>,
    /// Inner-iteration output, swapped with `qx`; between the last inner
    /// sweep and the state update it holds the flux residual (the two are
    /// never live at once, which saves 32 bytes per point).
    pub qx_next: Vec<Vec4>,
    /// Inner-iteration output, swapped with `qy`.
    pub qy_next: Vec<Vec4>,
    /// Stencil maxima of q.
    pub q_max: Vec<Vec4>,
    /// Stencil minima of q.
    pub q_min: Vec<Vec4>,
    /// Local time step.
    pub delta: Vec<f64>,
}

impl CpuState {
    /// State for `n` points, every array zeroed.
    pub fn new(n: usize) -> Self {
        let v = || vec![[0.0; 4]; n];
        CpuState {
            prim: v(),
            prim_old: v(),
            q: v(),
            qx: v(),
            qy: v(),
            qx_next: v(),
            qy_next: v(),
            q_max: v(),
            q_min: v(),
            delta: vec![0.0; n],
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.prim.len() * (9 * 32 + 8)
    }
}

/// A CPU backend.
pub struct CpuBackend {
    geom: Arc<Geometry>,
    params: Params,
    par: Par,
    s: CpuState,
}

impl CpuBackend {
    /// The serial backend.
    pub fn serial(geom: Arc<Geometry>, params: Params) -> Self {
        Self::with_par(geom, params, Par::Seq)
    }

    /// The threads backend on `threads` threads (0: one per core).
    pub fn threads(
        geom: Arc<Geometry>,
        params: Params,
        threads: usize,
    ) -> Result<Self, rayon::ThreadPoolBuildError> {
        Ok(Self::with_par(geom, params, Par::rayon(threads)?))
    }

    /// A backend running its chunks as `par` says.
    pub fn with_par(geom: Arc<Geometry>, params: Params, par: Par) -> Self {
        let s = CpuState::new(geom.len());
        CpuBackend {
            geom,
            params,
            par,
            s,
        }
    }

    /// The geometry the backend runs on.
    pub fn geometry(&self) -> &Arc<Geometry> {
        &self.geom
    }

    /// The kernels' settings.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// How the kernels' chunks run.
    pub fn par(&self) -> &Par {
        &self.par
    }

    /// The state arrays (a distributed layer packs the values its
    /// neighbours read from them).
    pub fn arrays(&self) -> &CpuState {
        &self.s
    }

    /// The state arrays, to write (a distributed layer unpacks the values of
    /// its ghost points into them).
    pub fn arrays_mut(&mut self) -> &mut CpuState {
        &mut self.s
    }

    // The steps over a range `r` of points: each writes the outputs of the
    // points of `r` only and reads any point through the stencils, so a
    // distributed layer can compute the points whose stencils are wholly
    // local while ghost values travel, and the rest after. Over `0..len()`
    // they are the `Backend` steps.

    /// [`Backend::local_time_step`] over the points `r`.
    pub fn local_time_step_range(&mut self, r: Range<usize>) {
        let (g, cfl, prim) = (&*self.geom, self.params.cfl, &self.s.prim);
        let at = r.start;
        self.par.for2(
            &mut self.s.delta[r.clone()],
            &mut self.s.prim_old[r],
            |first, delta, old| kernels::local_time_step(g, cfl, prim, at + first, delta, old),
        );
    }

    /// [`Backend::q_variables`] over the points `r`.
    pub fn q_variables_range(&mut self, r: Range<usize>) {
        let prim = &self.s.prim[r.clone()];
        self.par.for1(&mut self.s.q[r], |first, q| {
            kernels::q_variables(&prim[first..first + q.len()], q)
        });
    }

    /// [`Backend::q_derivatives`] over the points `r`.
    pub fn q_derivatives_range(&mut self, r: Range<usize>) {
        let (g, power) = (&*self.geom, self.params.power);
        let s = &mut self.s;
        let q = &s.q;
        let at = r.start;
        self.par.for4(
            &mut s.qx[r.clone()],
            &mut s.qy[r.clone()],
            &mut s.q_max[r.clone()],
            &mut s.q_min[r],
            |first, qx, qy, hi, lo| kernels::q_derivatives(g, power, q, at + first, qx, qy, hi, lo),
        );
    }

    /// One inner sweep of the q-derivatives over the points `r`, into the
    /// sweep's output arrays; [`CpuBackend::finish_inner_iteration`] swaps
    /// them in once every point is done.
    pub fn q_inner_iteration_range(&mut self, r: Range<usize>) {
        let (g, power) = (&*self.geom, self.params.power);
        let s = &mut self.s;
        let (q, qx, qy) = (&s.q, &s.qx, &s.qy);
        let at = r.start;
        self.par.for2(
            &mut s.qx_next[r.clone()],
            &mut s.qy_next[r],
            |first, qx_new, qy_new| {
                kernels::q_inner_iteration(g, power, q, qx, qy, at + first, qx_new, qy_new)
            },
        );
    }

    /// Makes the inner sweep's new gradients the current ones.
    pub fn finish_inner_iteration(&mut self) {
        std::mem::swap(&mut self.s.qx, &mut self.s.qx_next);
        std::mem::swap(&mut self.s.qy, &mut self.s.qy_next);
    }

    /// [`Backend::flux_residual`] over the points `r`.
    pub fn flux_residual_range(&mut self, r: Range<usize>) {
        let (g, p) = (&*self.geom, &self.params);
        let s = &mut self.s;
        let f = FluxInputs {
            q: &s.q,
            qx: &s.qx,
            qy: &s.qy,
            q_max: &s.q_max,
            q_min: &s.q_min,
            delta: &s.delta,
        };
        let at = r.start;
        self.par.for1(&mut s.qx_next[r], |first, res| {
            kernels::flux_residual(g, p, &f, at + first, res)
        });
    }

    /// [`Backend::state_update`] over the points `r`.
    pub fn state_update_range(&mut self, stage: usize, r: Range<usize>) -> UpdateOutcome {
        let (g, p) = (&*self.geom, &self.params);
        let s = &mut self.s;
        let at = r.start;
        self.par.map_reduce(
            &mut s.prim[r.clone()],
            &s.prim_old[r.clone()],
            &s.qx_next[r],
            |first, prim, old, res| kernels::state_update(g, p, stage, at + first, prim, old, res),
            |mut a, b| {
                a.merge(&b);
                a
            },
        )
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> String {
        match &self.par {
            Par::Seq => "serial".into(),
            Par::Rayon(_) => format!("threads ({})", self.par.threads()),
        }
    }

    fn len(&self) -> usize {
        self.geom.len()
    }

    fn set_state(&mut self, prim: &[Vec4]) {
        self.s.prim.copy_from_slice(prim);
        self.s.prim_old.copy_from_slice(prim);
    }

    fn state(&mut self, out: &mut [Vec4]) {
        out.copy_from_slice(&self.s.prim);
    }

    fn restore_iteration_start(&mut self) {
        self.s.prim.copy_from_slice(&self.s.prim_old);
    }

    fn local_time_step(&mut self) {
        self.local_time_step_range(0..self.geom.len());
    }

    fn q_variables(&mut self) {
        self.q_variables_range(0..self.geom.len());
    }

    fn q_derivatives(&mut self) {
        self.q_derivatives_range(0..self.geom.len());
    }

    fn q_inner_iteration(&mut self) {
        self.q_inner_iteration_range(0..self.geom.len());
        self.finish_inner_iteration();
    }

    fn flux_residual(&mut self) {
        self.flux_residual_range(0..self.geom.len());
    }

    fn state_update(&mut self, stage: usize) -> UpdateOutcome {
        self.state_update_range(stage, 0..self.geom.len())
    }

    fn force_sums(&mut self) -> ForceSums {
        let mut sums = ForceSums::default();
        for sp in &self.geom.surface {
            sums.add(
                sp,
                self.s.prim[sp.index as usize][3],
                &self.params.free_stream,
            );
        }
        sums
    }

    fn state_bytes(&self) -> usize {
        self.s.bytes()
    }

    fn pool(&self) -> Option<Arc<rayon::ThreadPool>> {
        match &self.par {
            Par::Seq => None,
            Par::Rayon(p) => Some(p.clone()),
        }
    }
}
