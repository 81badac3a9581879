//! The CPU backends: `serial` (one chunk on the calling thread) and
//! `threads` (chunks on a rayon pool). Both run the reference kernels of
//! `qflow_lskum::kernels`; only the cutting into chunks differs, so they give
//! bit-identical fields for any thread count.

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
        let (g, cfl, prim) = (&*self.geom, self.params.cfl, &self.s.prim);
        self.par.for2(
            &mut self.s.delta,
            &mut self.s.prim_old,
            |first, delta, old| kernels::local_time_step(g, cfl, prim, first, delta, old),
        );
    }

    fn q_variables(&mut self) {
        let prim = &self.s.prim;
        self.par.for1(&mut self.s.q, |first, q| {
            kernels::q_variables(&prim[first..first + q.len()], q)
        });
    }

    fn q_derivatives(&mut self) {
        let (g, power) = (&*self.geom, self.params.power);
        let s = &mut self.s;
        let q = &s.q;
        self.par.for4(
            &mut s.qx,
            &mut s.qy,
            &mut s.q_max,
            &mut s.q_min,
            |first, qx, qy, hi, lo| kernels::q_derivatives(g, power, q, first, qx, qy, hi, lo),
        );
    }

    fn q_inner_iteration(&mut self) {
        let (g, power) = (&*self.geom, self.params.power);
        let s = &mut self.s;
        let (q, qx, qy) = (&s.q, &s.qx, &s.qy);
        self.par
            .for2(&mut s.qx_next, &mut s.qy_next, |first, qx_new, qy_new| {
                kernels::q_inner_iteration(g, power, q, qx, qy, first, qx_new, qy_new)
            });
        std::mem::swap(&mut s.qx, &mut s.qx_next);
        std::mem::swap(&mut s.qy, &mut s.qy_next);
    }

    fn flux_residual(&mut self) {
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
        self.par.for1(&mut s.qx_next, |first, res| {
            kernels::flux_residual(g, p, &f, first, res)
        });
    }

    fn state_update(&mut self, stage: usize) -> UpdateOutcome {
        let (g, p) = (&*self.geom, &self.params);
        let s = &mut self.s;
        self.par.map_reduce(
            &mut s.prim,
            &s.prim_old,
            &s.qx_next,
            |first, prim, old, res| kernels::state_update(g, p, stage, first, prim, old, res),
            |mut a, b| {
                a.merge(&b);
                a
            },
        )
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
