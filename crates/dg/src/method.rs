//! The DG method for the run driver: linear advection or isothermal
//! Euler, one time step of the chosen Runge-Kutta scheme per
//! [`Method::step`]. The time step is fixed by [`Settings::dt`] from the
//! initial state's wave speeds; the last step is shortened to end at the
//! final time. The history holds the time and, for advection, the L2 norm
//! of the solution (Gauss-Lobatto quadrature on each cell; the upwind
//! scheme does not let it grow), for isothermal Euler the mass, the
//! kinetic energy and the smallest density. A step whose diagnostics are
//! not finite (or whose density is not positive) puts the step's start
//! back and stops the run.
//!
//! An explicit tableau (`rk3-heun`, `ssprk3`, `rk4`, `rk6`) keeps the
//! step's start in `u0` and each stage's right-hand side in its own dat;
//! `lserk54` runs Carpenter and Kennedy's 2-register form (`u` and one
//! register) with its `A`, `B` and `dt` set per stage, one loop per stage
//! (the right-hand side and the update fused, the new solution written to
//! `r` and swapped with `u`: `u` cannot be updated in place while its
//! neighbours read it); after the first stage the step's start is swapped
//! into `u0`, so no loop copies it.

use qflow_par::driver::{Declared, Method, StepError};
use qflow_par::{DatDecl, Exec, GlobalDecl, LoopDecl};

use crate::decl::{CELLS, COEF, KINETIC, MASS, MAX_STAGES, NORM_SQ, RHO_MIN, STAGE};
use crate::problem;
use crate::rk::{LowStorage, Scheme, Tableau};
use crate::settings::{Equation, Settings};

/// The columns of the method's history for advection.
pub const COLUMNS: [&str; 2] = ["time", "l2_norm"];

/// The columns of the method's history for isothermal Euler.
pub const EULER_COLUMNS: [&str; 4] = ["time", "mass", "kinetic_energy", "min_density"];
/// The history columns of a compressible Euler run (the last the smallest
/// density or pressure at a node).
pub const GAS_COLUMNS: [&str; 4] = ["time", "mass", "kinetic_energy", "min_density_pressure"];

/// The loops and dats of one equation's, dimension's and order's family
/// (the statics of `families.rs`, one set per order: `crate::orders!`).
pub(crate) struct Family {
    pub(crate) loops: &'static [&'static LoopDecl],
    pub(crate) dats: &'static [&'static DatDecl],
    pub(crate) globals: &'static [&'static GlobalDecl],
    pub(crate) u: &'static DatDecl,
    /// The step's start (put back if the step fails).
    pub(crate) u0: &'static DatDecl,
    pub(crate) r: &'static DatDecl,
    pub(crate) x: &'static DatDecl,
    pub(crate) stages: &'static [&'static DatDecl; MAX_STAGES],
    pub(crate) rhs: &'static LoopDecl,
    pub(crate) save: &'static LoopDecl,
    pub(crate) restore: &'static LoopDecl,
    pub(crate) axpy: &'static LoopDecl,
    pub(crate) lserk: &'static LoopDecl,
    /// The last low-storage stage with the diagnostics of `diag`.
    pub(crate) lserk_last: &'static LoopDecl,
    /// The diagnostics: `NORM_SQ` (advection) or `MASS`, `KINETIC` and
    /// `RHO_MIN` (Euler).
    pub(crate) diag: &'static LoopDecl,
    /// The operator's global: `PARAMS` (1D, 2D) or `PARAMS_3`.
    pub(crate) params: &'static GlobalDecl,
}

/// How a step advances.
enum Stepper {
    /// An explicit Butcher tableau (at most [`MAX_STAGES`] stages).
    Tableau(Tableau),
    /// A low-storage (2N) scheme.
    LowStorage(LowStorage),
}

/// The DG method on one rank.
pub struct Dg {
    settings: Settings,
    family: &'static Family,
    stepper: Stepper,
    /// The fixed time step.
    dt: f64,
    /// The simulated time after the last step.
    time: f64,
    /// Advection: the L2 norm of the initial state (with the upwind flux
    /// the norm cannot grow; twice it means the run diverges).
    norm0: f64,
}

impl Dg {
    /// The method for `settings` (validated).
    pub fn new(settings: Settings) -> Result<Self, String> {
        settings.validate()?;
        let scheme = settings.scheme()?;
        let stepper = match scheme {
            Scheme::Lserk54 => Stepper::LowStorage(LowStorage::carpenter_kennedy()),
            s => Stepper::Tableau(s.tableau()),
        };
        if let Stepper::Tableau(t) = &stepper {
            assert!(t.stages() <= MAX_STAGES, "{scheme}: too many stages");
        }
        let family = crate::family(settings.order, settings.equation, settings.dimensions);
        let dt = settings.dt(problem::wave_speeds(&settings));
        Ok(Dg {
            settings,
            family,
            stepper,
            dt,
            time: 0.0,
            norm0: f64::INFINITY,
        })
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The fixed time step ([`Settings::dt`]).
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Right-hand side evaluations per step (the scheme's stages).
    pub fn stages(&self) -> usize {
        match &self.stepper {
            Stepper::LowStorage(ls) => ls.a.len(),
            Stepper::Tableau(t) => t.stages(),
        }
    }

    /// The solution's dat (1D or 2D).
    pub fn solution(&self) -> &'static DatDecl {
        self.family.u
    }

    /// The operator's global: `[n, ax, ay, 2/hx, 2/hy]` in 1D and 2D
    /// (isothermal Euler: `[n, a, flux, 2/hx, 2/hy]`, compressible Euler
    /// `gamma` in place of `a`), `[n, ax, ay, az, 2/hx, 2/hy, 2/hz]` in 3D
    /// (the Euler equations: `[n, a or gamma, flux, 0, ..]`); the GLL
    /// matrices are the kernels' constants, [`crate::tables`].
    pub fn params(&self) -> Vec<f64> {
        let n = self.settings.order as f64;
        let a = self.settings.speed();
        let h = self.settings.spacing();
        match (self.settings.equation, self.settings.dimensions) {
            (Equation::IsothermalEuler | Equation::Euler, d) => {
                let c = match self.settings.equation {
                    Equation::Euler => self.settings.gamma,
                    _ => self.settings.sound_speed,
                };
                let flux = self.settings.flux.code();
                if d == 3 {
                    vec![n, c, flux, 0.0, 2.0 / h[0], 2.0 / h[1], 2.0 / h[2]]
                } else {
                    vec![n, c, flux, 2.0 / h[0], 2.0 / h[1]]
                }
            }
            (Equation::Advection, 3) => {
                vec![n, a[0], a[1], a[2], 2.0 / h[0], 2.0 / h[1], 2.0 / h[2]]
            }
            (Equation::Advection, _) => vec![n, a[0], a[1], 2.0 / h[0], 2.0 / h[1]],
        }
    }

    /// Resets the diagnostics' reductions.
    fn reset_diagnostics(&self, ex: &mut Exec) {
        match self.settings.equation {
            Equation::Advection => ex.reset(&NORM_SQ),
            Equation::IsothermalEuler | Equation::Euler => {
                for g in [&MASS, &KINETIC, &RHO_MIN] {
                    ex.reset(g);
                }
            }
        }
    }

    /// The diagnostics after a step, the history row past the time:
    /// `[l2_norm]` (advection) or `[mass, kinetic_energy, min_density]`
    /// (Euler), and whether they are sound (finite; a positive density).
    /// `reduced`: the step's last loop has reduced them already.
    fn diagnostics(&self, ex: &mut Exec, reduced: bool) -> Result<(Vec<f64>, bool), StepError> {
        let h = self.settings.spacing();
        let jacobian: f64 = h[..self.settings.dimensions]
            .iter()
            .map(|v| 0.5 * v)
            .product();
        if !reduced {
            self.reset_diagnostics(ex);
            ex.run(self.family.diag)?;
        }
        match self.settings.equation {
            Equation::Advection => {
                let mut sum = [0.0];
                ex.reduce(&[&NORM_SQ], &mut sum)?;
                let norm = (sum[0] * jacobian).sqrt();
                Ok((vec![norm], norm.is_finite()))
            }
            Equation::IsothermalEuler | Equation::Euler => {
                let mut v = [0.0; 3];
                ex.reduce(&[&MASS, &KINETIC, &RHO_MIN], &mut v)?;
                let row = vec![v[0] * jacobian, v[1] * jacobian, v[2]];
                let sound = row.iter().all(|x| x.is_finite()) && v[2] > 0.0;
                Ok((row, sound))
            }
        }
    }

    /// `u += c k` for the stage dat `k` (swapped into `x` and back).
    fn axpy(&self, ex: &mut Exec, c: f64, k: &'static DatDecl) -> Result<(), StepError> {
        let f = self.family;
        ex.set_const(&COEF, &[c]);
        ex.swap(f.x, k);
        let r = ex.run(f.axpy);
        ex.swap(f.x, k);
        r?;
        Ok(())
    }

    /// `u = u0 + dt sum_j c_j k_j`.
    fn combine(&self, ex: &mut Exec, dt: f64, c: &[f64]) -> Result<(), StepError> {
        let f = self.family;
        ex.run(f.restore)?;
        for (j, &cj) in c.iter().enumerate() {
            if cj != 0.0 {
                self.axpy(ex, dt * cj, f.stages[j])?;
            }
        }
        Ok(())
    }

    /// One step of `dt`; whether its last loop reduced the diagnostics.
    fn advance(&self, ex: &mut Exec, dt: f64) -> Result<bool, StepError> {
        let f = self.family;
        match &self.stepper {
            Stepper::LowStorage(ls) => {
                let stages = ls.a.len();
                for s in 0..stages {
                    // One loop per stage: the right-hand side of `u` and
                    // the update, the new solution into `r`; the last
                    // stage reduces the diagnostics of the new solution
                    // too.
                    ex.set_const(&STAGE, &[ls.a[s], ls.b[s], dt]);
                    if s + 1 == stages {
                        self.reset_diagnostics(ex);
                        ex.run(f.lserk_last)?;
                    } else {
                        ex.run(f.lserk)?;
                    }
                    if s == 0 {
                        // The step's start goes to `u0` (put back if the
                        // step fails) by a swap, not a copy.
                        ex.swap(f.u0, f.u);
                    }
                    ex.swap(f.u, f.r);
                }
                Ok(true)
            }
            Stepper::Tableau(t) => {
                ex.run(f.save)?;
                for s in 0..t.stages() {
                    // Stage 1 reads the step's start, which u holds.
                    if s > 0 {
                        self.combine(ex, dt, &t.a[s])?;
                    }
                    ex.run(f.rhs)?;
                    ex.swap(f.r, f.stages[s]);
                }
                self.combine(ex, dt, &t.b)?;
                Ok(false)
            }
        }
    }
}

impl Method for Dg {
    fn declared(&self) -> Declared {
        Declared {
            name: "dg",
            loops: self.family.loops,
            dats: self.family.dats,
            globals: self.family.globals,
            // The kernels of the run's order only (one translation per
            // order).
            device_source: crate::device_source(self.settings.order),
            work_set: &CELLS,
            columns: match self.settings.equation {
                Equation::Advection => &COLUMNS,
                Equation::IsothermalEuler => &EULER_COLUMNS,
                Equation::Euler => &GAS_COLUMNS,
            },
        }
    }

    fn start(&mut self, ex: &mut Exec) -> Result<(), StepError> {
        ex.set_const(self.family.params, &self.params());
        ex.set_const(&COEF, &[0.0]);
        ex.set_const(&STAGE, &[0.0; 3]);
        if self.settings.equation == Equation::Advection {
            // (Before a resume puts its state back: the initial state's
            // norm bounds the resumed one's.)
            self.norm0 = self.diagnostics(ex, false)?.0[0];
        }
        Ok(())
    }

    fn step(&mut self, ex: &mut Exec, iteration: u64, row: &mut [f64]) -> Result<(), StepError> {
        let end = self.settings.final_time;
        let last = self.time + self.dt >= end * (1.0 - 1e-12);
        let dt = if last { end - self.time } else { self.dt };
        let reduced = if dt > 0.0 {
            self.advance(ex, dt)?
        } else {
            false
        };
        let (diag, sound) = self.diagnostics(ex, reduced)?;
        let grown = self.settings.equation == Equation::Advection && diag[0] > 2.0 * self.norm0;
        if !sound || grown {
            // Where the state went wrong (rank 0 scans the gathered state).
            let place = match self.settings.equation {
                Equation::Euler => ex
                    .gather(self.family.u)
                    .and_then(|v| match v {
                        qflow_par::Values::F64(u) => {
                            crate::problem::first_unphysical(&self.settings, &u)
                        }
                        qflow_par::Values::I32(_) => None,
                    })
                    .map(|p| format!(": {p}"))
                    .unwrap_or_default(),
                _ => String::new(),
            };
            if dt > 0.0 {
                ex.run(self.family.restore)?;
            }
            let what = match self.settings.equation {
                Equation::Advection if sound => format!(
                    "the L2 norm grew to {:.6e}, more than twice the initial state's {:.6e} \
                     (with the upwind flux it cannot grow): the run diverges",
                    diag[0], self.norm0
                ),
                Equation::Advection => format!("the solution is no longer finite (L2 norm {})", diag[0]),
                Equation::IsothermalEuler => format!(
                    "the solution is no longer finite or its density no longer positive (mass {}, kinetic energy {}, smallest density {})",
                    diag[0], diag[1], diag[2]
                ),
                Equation::Euler => format!(
                    "the solution is no longer finite or its density or pressure no longer positive{place} (mass {}, kinetic energy {}, smallest density or pressure {})",
                    diag[0], diag[1], diag[2]
                ),
            };
            return Err(StepError::NonPhysical(format!(
                "step {iteration} (t = {:.6}): {what}; stopped with the state after step {} kept (a smaller [dg] cfl may help)",
                self.time + dt,
                iteration - 1
            )));
        }
        self.time = if last { end } else { self.time + dt };
        row[0] = self.time;
        row[1..].copy_from_slice(&diag);
        Ok(())
    }

    fn time(&self) -> Option<f64> {
        Some(self.time)
    }

    fn books(&self) -> Vec<(&'static str, f64)> {
        vec![("time", self.time)]
    }

    fn restore_books(&mut self, books: &[(String, f64)]) -> Result<(), String> {
        self.time = qflow_par::driver::checkpoint::book_time(books)?;
        Ok(())
    }

    fn progress_label(&self, row: &[f64]) -> String {
        match self.settings.equation {
            Equation::Advection => format!("t {:.4}  L2 {:.6e}", row[0], row[1]),
            Equation::IsothermalEuler | Equation::Euler => {
                format!(
                    "t {:.4}  mass {:.12e}  min rho {:.4e}",
                    row[0], row[1], row[3]
                )
            }
        }
    }
}
