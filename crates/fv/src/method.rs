//! The Airfoil method for the run driver: one iteration is OP2's
//! `save_soln`, then two stages of `adt_calc`, `res_calc`, `bres_calc` and
//! `update`; the history's `rms` is the second stage's
//! `sqrt(sum of squared changes / cells)`, as OP2 prints it.

use qflow_par::driver::{Method, StepError};
use qflow_par::{DatDecl, Exec, GlobalDecl, LoopDecl, SetDecl};

use crate::decl::*;
use crate::settings::Settings;

/// The kernels as OpenCL C, translated from [`crate::kernels`] at build
/// time (`DEVICE_SOURCE`).
mod device {
    include!(concat!(env!("OUT_DIR"), "/fv.rs"));
}
pub use device::{DEVICE_FUNCTIONS, DEVICE_SOURCE};

/// The columns of the method's history.
pub const COLUMNS: [&str; 1] = ["rms"];

/// The Airfoil method on one rank.
pub struct Fv {
    settings: Settings,
    cells: usize,
}

impl Fv {
    /// The method with `settings` on a mesh of `cells` cells in all.
    pub fn new(settings: Settings, cells: usize) -> Self {
        Fv { settings, cells }
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }
}

impl Method for Fv {
    fn name(&self) -> &'static str {
        "fv"
    }

    fn loops(&self) -> &'static [&'static LoopDecl] {
        &LOOPS
    }

    fn dats(&self) -> &'static [&'static DatDecl] {
        &DATS
    }

    fn globals(&self) -> &'static [&'static GlobalDecl] {
        &GLOBALS
    }

    fn device_source(&self) -> &'static str {
        DEVICE_SOURCE
    }

    fn work_set(&self) -> &'static SetDecl {
        &CELLS
    }

    fn columns(&self) -> &'static [&'static str] {
        &COLUMNS
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
        row[0] = rms;
        Ok(())
    }

    fn progress_label(&self, row: &[f64]) -> String {
        format!("rms {:.5e}", row[0])
    }
}
