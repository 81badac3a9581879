//! The Airfoil method for the run driver: one iteration is OP2's
//! `save_soln`, then two stages of `adt_calc`, `res_calc`, `bres_calc` and
//! `update`; the history's `rms` is the second stage's
//! `sqrt(sum of squared changes / cells)`, as OP2 prints it, and
//! `log_rms_drop` its `log10` relative to the first iteration's (which
//! `[stop] residue_drop` watches).

use qflow_par::driver::{Declared, Method, StepError};
use qflow_par::Exec;

use crate::decl::*;
use crate::settings::Settings;

/// The kernels as OpenCL C, translated from [`crate::kernels`] at build
/// time (`DEVICE_SOURCE`).
mod device {
    include!(concat!(env!("OUT_DIR"), "/fv.rs"));
}
pub use device::{DEVICE_FUNCTIONS, DEVICE_SOURCE};

/// The columns of the method's history.
pub const COLUMNS: [&str; 2] = ["rms", "log_rms_drop"];

/// The Airfoil method on one rank.
pub struct Fv {
    settings: Settings,
    cells: usize,
    /// The first iteration's rms, the reference of `log_rms_drop` (0 until
    /// it is known).
    first_rms: f64,
}

impl Fv {
    /// The method with `settings` on a mesh of `cells` cells in all.
    pub fn new(settings: Settings, cells: usize) -> Self {
        Fv {
            settings,
            cells,
            first_rms: 0.0,
        }
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The mesh's cells (every rank's).
    pub fn cells(&self) -> usize {
        self.cells
    }
}

impl Method for Fv {
    fn declared(&self) -> Declared {
        Declared {
            name: "fv",
            loops: &LOOPS,
            dats: &DATS,
            globals: &GLOBALS,
            device_source: DEVICE_SOURCE,
            work_set: &CELLS,
            columns: &COLUMNS,
        }
    }

    fn log_residue_column(&self) -> Option<usize> {
        Some(1)
    }

    fn books(&self) -> Vec<(&'static str, f64)> {
        vec![("first_rms", self.first_rms)]
    }

    fn restore_books(&mut self, books: &[(String, f64)]) -> Result<(), String> {
        // A checkpoint from before the drop was kept has none: the first
        // iteration after the restart is then the reference.
        self.first_rms = books
            .iter()
            .find(|(k, _)| k == "first_rms")
            .map_or(0.0, |b| b.1);
        Ok(())
    }

    fn start(&mut self, ex: &mut Exec) -> Result<(), StepError> {
        ex.set_const(&GAS, &self.settings.gas());
        ex.set_const(&QINF, &self.settings.qinf());
        Ok(())
    }

    fn step(&mut self, ex: &mut Exec, iteration: u64, row: &mut [f64]) -> Result<(), StepError> {
        ex.run(&SAVE_SOLN)?;
        ex.reset(&BAD);
        for _stage in 0..2 {
            ex.run(&ADT_CALC)?;
            ex.run(&RES_CALC)?;
            ex.run(&BRES_CALC)?;
            ex.reset(&RMS);
            ex.run(&UPDATE)?;
        }
        let mut sum = [0.0; 2];
        ex.reduce(&[&RMS, &BAD], &mut sum)?;
        let rms = (sum[0] / self.cells as f64).sqrt();
        if !rms.is_finite() || sum[1] > 0.0 {
            // save_soln left the start of the step in qold: put it back.
            ex.swap(&Q, &QOLD);
            return Err(StepError::NonPhysical(format!(
                "iteration {iteration}: a state that is not physical (density or pressure not \
                 above 0, or not finite; rms = {rms}); stopped with the state after iteration {} \
                 kept (a smaller [fv] cfl may help)",
                iteration - 1
            )));
        }
        if self.first_rms <= 0.0 {
            self.first_rms = rms;
        }
        row[0] = rms;
        row[1] = if self.first_rms > 0.0 && rms > 0.0 {
            (rms / self.first_rms).log10()
        } else {
            0.0
        };
        Ok(())
    }

    fn progress_label(&self, row: &[f64]) -> String {
        format!("rms {:.5e}", row[0])
    }
}
