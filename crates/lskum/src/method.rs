//! q-LSKUM as a method of the run driver: one iteration of Algorithm 1 as
//! a sequence of declared loops, the residue as the reference reports it,
//! forces, and a clean stop when the state goes non-physical.

use std::sync::Arc;

use qflow_par::driver::{Declared, Method, StepError};
use qflow_par::{Exec, Values};

use crate::decl::*;
use crate::forces::Coefficients;
use crate::gas::{self, FreeStream};
use crate::newton::{self, Newton, Pattern};
use crate::settings::{FarField, Limiter, Scheme, Settings};

/// The kernels as device code: `DEVICE_SOURCE` (OpenCL C translated from
/// this crate's `#[device]` Rust by `build.rs`) and `DEVICE_FUNCTIONS`.
mod device {
    include!(concat!(env!("OUT_DIR"), "/lskum.rs"));
}
pub use device::{DEVICE_FUNCTIONS, DEVICE_SOURCE};

/// The columns of q-LSKUM's history.
pub const COLUMNS: [&str; 5] = ["log10_residue", "residue", "cl", "cd", "cm"];

/// The q-LSKUM method on one rank.
pub struct Lskum {
    settings: Settings,
    free_stream: FreeStream,
    points: usize,
    /// The residue of iteration 2 (`log10_residue` is relative to it).
    res_ref: f64,
    /// The user's number of each point of the problem (rank 0; `None`: the
    /// problem's numbering), for messages.
    user_index: Option<Arc<[u32]>>,
    /// Coefficients after the last iteration.
    coefficients: Coefficients,
    /// The lift coefficient the far field's point vortex carries (the last
    /// iteration's; 0 at the start).
    vortex_cl: f64,
    /// Whether the points' own limiter values are frozen
    /// (`limiter_freeze`).
    limiter_frozen: bool,
    /// The Newton-Krylov scheme's state (`scheme = "newton-krylov"`).
    newton: Newton,
}

impl Lskum {
    /// The method with `settings` on a problem of `points` points.
    pub fn new(settings: Settings, points: usize) -> Self {
        let free_stream = settings.free_stream();
        Lskum {
            settings,
            free_stream,
            points,
            res_ref: 0.0,
            user_index: None,
            coefficients: Coefficients::default(),
            vortex_cl: 0.0,
            limiter_frozen: false,
            newton: Newton::default(),
        }
    }

    /// Where the far field's point vortex sits: the quarter chord of a unit
    /// chord from the origin along x (the body of the clouds qflow reads
    /// and generates).
    pub const VORTEX_AT: [f64; 2] = [0.25, 0.0];

    /// The far field's point vortex `[strength, x, y]` for a lift
    /// coefficient `cl` (strength 0 without the correction):
    /// `Gamma sqrt(1 - M^2) / (2 pi)` with `Gamma = cl |V_inf| / 2` for a
    /// unit chord, `|V_inf| = M` (the free stream's sound speed is 1).
    pub fn vortex(&self, cl: f64) -> [f64; 3] {
        let strength = match self.settings.far_field {
            FarField::FreeStream => 0.0,
            FarField::Vortex => {
                let m = self.free_stream.mach;
                0.5 * cl * m * (1.0 - m * m).sqrt() / (2.0 * std::f64::consts::PI)
            }
        };
        [strength, Self::VORTEX_AT[0], Self::VORTEX_AT[1]]
    }

    /// Tells the method the user's number of each problem point (point `i`
    /// of the problem is the user's `user_index[i]`, 0-based); used in
    /// messages only.
    pub fn set_user_numbering(&mut self, user_index: Arc<[u32]>) {
        self.user_index = Some(user_index);
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The residue that `log10_residue` is relative to (iteration 2's).
    pub fn reference_residue(&self) -> f64 {
        self.res_ref
    }

    /// Force coefficients after the last iteration.
    pub fn coefficients(&self) -> Coefficients {
        self.coefficients
    }

    /// Gives rank 0 the stencils in the problem's numbering, which the
    /// Newton-Krylov scheme's preconditioner needs (the other ranks need
    /// none).
    pub fn set_stencils(&mut self, rows: Vec<Vec<usize>>) {
        self.newton.set_pattern(Pattern::new(rows));
    }

    pub(crate) fn newton_mut(&mut self) -> &mut Newton {
        &mut self.newton
    }

    /// The value of the `limiter` global for the settings and the
    /// limiter's state.
    fn limiter_code(&self) -> i32 {
        match self.settings.limiter {
            Limiter::None => 0,
            Limiter::VenkatakrishnanPoint => 2,
            Limiter::Venkatakrishnan if self.settings.limiter_freeze > 0.0 => 2,
            Limiter::Venkatakrishnan => 1,
        }
    }

    /// The flux residual of the state in `prim` (into `qx_next`):
    /// q-variables, their derivatives and inner sweeps, the points' own
    /// limiter values until they are frozen, the flux residual. With
    /// `first_order`, without reconstruction (the Newton-Krylov scheme's
    /// preconditioner).
    fn flux_residual(&self, ex: &mut Exec, first_order: bool) -> Result<(), StepError> {
        ex.run(&Q_VARIABLES)?;
        ex.run(&Q_DERIVATIVES)?;
        if first_order {
            ex.set_const_i32(&LIMITER, &[crate::kernels::FIRST_ORDER]);
        } else {
            for _ in 0..self.settings.inner_iterations {
                ex.run(&Q_INNER_ITERATION)?;
                ex.swap(&QX, &QX_NEXT);
                ex.swap(&QY, &QY_NEXT);
            }
            if self.limiter_code() == 2 && !self.limiter_frozen {
                ex.run(&LIMITER_PHI)?;
            }
        }
        ex.run(&FLUX_RESIDUAL)?;
        if first_order {
            ex.set_const_i32(&LIMITER, &[self.limiter_code()]);
        }
        Ok(())
    }

    /// One forward-Euler step with the current local time steps from the
    /// state in `prim`, into `prim`; the residue's sum of squares in
    /// `sum_sq` (reset first). The Newton-Krylov scheme's `G`.
    pub(crate) fn forward_euler(&self, ex: &mut Exec, first_order: bool) -> Result<(), StepError> {
        ex.set_const(&STAGE, &[0.0, 1.0, 0.0]);
        self.flux_residual(ex, first_order)?;
        ex.reset(&SUM_SQ);
        ex.run(&STATE_UPDATE)?;
        Ok(())
    }

    /// The stages `0..stages` of the iteration after its local time step.
    fn stages(&self, ex: &mut Exec, stages: usize) -> Result<(), StepError> {
        let scheme = self.settings.scheme;
        let factor = scheme.residual_factor();
        for stage in 0..stages {
            let average = scheme == Scheme::Ssprk43 && stage == 2;
            ex.set_const(
                &STAGE,
                &[stage as f64, factor, if average { 1.0 } else { 0.0 }],
            );
            self.flux_residual(ex, false)?;
            if stage + 1 == scheme.stages() {
                // The residue is that of the last stage.
                ex.reset(&SUM_SQ);
            }
            ex.run(&STATE_UPDATE)?;
        }
        Ok(())
    }

    /// After stage `bad` of `iteration` went non-physical somewhere: replays
    /// the iteration up to that stage (the same bits) to find the first
    /// bad point in the user's numbering, then puts back the iteration's
    /// start state. Collective.
    fn non_physical(
        &mut self,
        ex: &mut Exec,
        iteration: u64,
        bad: usize,
    ) -> Result<StepError, StepError> {
        ex.run(&RESTORE)?;
        ex.run(&LOCAL_TIME_STEP)?;
        self.stages(ex, bad + 1)?;
        let prim = ex.gather(&PRIM);
        let x = ex.gather(&X);
        let y = ex.gather(&Y);
        ex.run(&RESTORE)?;
        let mut message = String::new();
        if let (Some(Values::F64(prim)), Some(Values::F64(x)), Some(Values::F64(y))) = (prim, x, y)
        {
            let user = |i: usize| self.user_index.as_ref().map_or(i, |u| u[i] as usize);
            let found = (0..prim.len() / 4)
                .filter(|&i| {
                    !gas::is_physical(&[
                        prim[4 * i],
                        prim[4 * i + 1],
                        prim[4 * i + 2],
                        prim[4 * i + 3],
                    ])
                })
                .min_by_key(|&i| user(i));
            if let Some(i) = found {
                let w = &prim[4 * i..4 * i + 4];
                message = format!(
                    "iteration {iteration}, stage {}: non-physical state at point {} (x = {}, y = {}): \
                     rho = {}, u = {}, v = {}, p = {}; stopped with the state after iteration {} kept",
                    bad + 1,
                    user(i) + 1,
                    x[i],
                    y[i],
                    w[0],
                    w[1],
                    w[2],
                    w[3],
                    iteration - 1
                );
            }
        }
        if message.is_empty() {
            message = format!(
                "iteration {iteration}, stage {}: non-physical state; stopped with the state after \
                 iteration {} kept",
                bad + 1,
                iteration - 1
            );
        }
        Ok(StepError::NonPhysical(message))
    }
}

impl Method for Lskum {
    fn declared(&self) -> Declared {
        Declared {
            name: "lskum",
            loops: &LOOPS,
            dats: &DATS,
            globals: &GLOBALS,
            device_source: DEVICE_SOURCE,
            work_set: &POINTS,
            columns: &COLUMNS,
        }
    }

    fn log_residue_column(&self) -> Option<usize> {
        Some(0)
    }

    fn start(&mut self, ex: &mut Exec) -> Result<(), StepError> {
        let s = &self.settings;
        ex.set_const(&CFL, &[s.cfl]);
        ex.set_const(&POWER, &[s.power]);
        ex.set_const(&VL_CONST, &[s.vl_const]);
        ex.set_const_i32(&LIMITER, &[self.limiter_code()]);
        ex.set_const(
            &FREE_STREAM,
            &[self.free_stream.mach, self.free_stream.theta],
        );
        ex.set_const(&DYNAMIC_PRESSURE, &[self.free_stream.dynamic_pressure()]);
        ex.set_const(&STAGE, &[0.0, s.scheme.residual_factor(), 0.0]);
        Ok(())
    }

    fn step(&mut self, ex: &mut Exec, iteration: u64, row: &mut [f64]) -> Result<(), StepError> {
        ex.set_const(&VORTEX, &self.vortex(self.vortex_cl));
        ex.reset(&BAD_STAGE);
        let mut v = [0.0; 5];
        // Whether the state moved (a Newton iteration may reject its step;
        // the limiter is not frozen on such an iteration, whose last
        // evaluation was of a rejected state).
        let mut moved = true;
        if self.settings.scheme == Scheme::NewtonKrylov {
            (v[0], moved) = newton::step(self, ex, iteration)?;
            ex.reset(&FORCES);
            ex.run(&FORCE_SUMS)?;
            ex.reduce(&[&FORCES], &mut v[2..])?;
        } else {
            ex.run(&LOCAL_TIME_STEP)?;
            self.stages(ex, self.settings.scheme.stages())?;
            ex.reset(&FORCES);
            ex.run(&FORCE_SUMS)?;
            ex.reduce(&[&SUM_SQ, &BAD_STAGE, &FORCES], &mut v)?;
            if v[1].is_finite() {
                let e = self.non_physical(ex, iteration, v[1] as usize)?;
                return Err(e);
            }
        }
        let residue = v[0].sqrt() / self.points as f64;
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
        let freeze = self.settings.limiter_freeze;
        if freeze > 0.0 && !self.limiter_frozen && moved && iteration > 2 && log_residue <= -freeze
        {
            self.limiter_frozen = true;
            if ex.rank() == 0 {
                tracing::info!(
                    "iteration {iteration}: the residue fell {:.2} orders; the limiter is frozen",
                    -log_residue
                );
            }
        }
        self.coefficients = Coefficients::from_integrals(v[2], v[3], v[4], &self.free_stream);
        let c = self.coefficients;
        self.vortex_cl = c.cl;
        row.copy_from_slice(&[log_residue, residue, c.cl, c.cd, c.cm]);
        Ok(())
    }

    fn books(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("reference_residue", self.res_ref),
            ("vortex_cl", self.vortex_cl),
            ("limiter_frozen", f64::from(u8::from(self.limiter_frozen))),
            ("newton_sigma", self.newton.sigma),
            ("newton_norm_prev", self.newton.norm_prev),
            ("newton_norm_first", self.newton.norm_first),
        ]
    }

    fn restore_books(&mut self, books: &[(String, f64)]) -> Result<(), String> {
        self.res_ref = books
            .iter()
            .find(|(k, _)| k == "reference_residue")
            .map(|b| b.1)
            .ok_or("the checkpoint lacks the reference residue")?;
        // Checkpoints from before the far-field vortex: none was carried.
        self.vortex_cl = books
            .iter()
            .find(|(k, _)| k == "vortex_cl")
            .map_or(0.0, |b| b.1);
        self.limiter_frozen = books
            .iter()
            .any(|(k, v)| k == "limiter_frozen" && *v != 0.0);
        let book = |name: &str| books.iter().find(|(k, _)| k == name).map_or(0.0, |b| b.1);
        self.newton.sigma = book("newton_sigma");
        self.newton.norm_prev = book("newton_norm_prev");
        self.newton.norm_first = book("newton_norm_first");
        Ok(())
    }

    fn progress_label(&self, row: &[f64]) -> String {
        format!(
            "log10 res {:.4}  Cl {:.6}  Cd {:.6}",
            row[0], row[2], row[3]
        )
    }
}
