//! A Lax-Wendroff oblique-shock case in the run pipeline: rank 0 builds
//! the grid's block and initial state; the layer cuts the block into boxes
//! (or strips) for the ranks and derives their halos from the loops'
//! stencils; the run goes to the final time; rank 0 writes the outputs of
//! [`crate::lw_outputs`] and the summary, with the density's L1 error
//! against the exact solution.

use anyhow::{anyhow, Context, Result};

use qflow_lw::decl::{DATS, LOOPS, U};
use qflow_lw::settings::Decomposition;
use qflow_lw::Lw;
use qflow_par::decl::{DatDecl, LoopDecl};
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::part::Part;
use qflow_par::Exec;

use crate::case::CaseFile;
use crate::lw_case::LwCase;
use crate::pipeline::{Built, CaseMethod, Final, Ran, Schedule, Verdict};
use crate::run::RunOptions;

/// The oblique shock's case and what its outputs measured.
pub struct LwRun {
    pub(crate) case: LwCase,
    /// The shock's measures of the final state (name, value).
    pub(crate) measured: Vec<(String, f64)>,
}

impl CaseMethod for LwRun {
    type Method = Lw;
    type Root = ();

    fn read(case: &CaseFile, opts: &RunOptions) -> Result<Self> {
        let lc: LwCase = case.get()?;
        lc.validate()
            .with_context(|| format!("case file {}", case.path.display()))?;
        if opts.partitioner.is_some() {
            anyhow::bail!(
                "--partitioner: the lw method's grid is cut into boxes by the layer; \
                 choose strips or blocks with --set lw.decomposition=strips"
            );
        }
        Ok(LwRun {
            case: lc,
            measured: Vec::new(),
        })
    }

    fn build(&self, _: &CaseFile, _: usize, _: &RunOptions) -> Result<Built<()>> {
        let problem =
            qflow_lw::problem::build(&self.case.grid, &self.case.lw).map_err(|e| anyhow!(e))?;
        Ok(Built::block(problem))
    }

    fn declarations(&self) -> (&'static [&'static LoopDecl], &'static [&'static DatDecl]) {
        (&LOOPS, &DATS)
    }

    fn strips(&self) -> bool {
        self.case.lw.decomposition == Decomposition::Strips
    }

    fn method(&self, _: &Part, _: Option<&mut ()>) -> Result<Lw> {
        Lw::new(self.case.lw.clone(), self.case.grid.clone()).map_err(|e| anyhow!(e))
    }

    fn schedule(&self, _: &Lw, _: Option<&()>, opts: &RunOptions) -> Result<Schedule> {
        let (grid, settings) = (&self.case.grid, &self.case.lw);
        let steps = qflow_lw::method::steps_to_end(grid, settings);
        Ok(Schedule {
            max_iters: opts
                .max_iters
                .unwrap_or(self.case.max_steps())
                .min(crate::run::step_limit("[lw]", settings.final_time, steps)?),
            residue_drop: None,
            final_time: Some(settings.final_time),
            problem_key: settings.key(grid),
            // The grid is the geometry; the settings are in the key.
            fingerprint: ((grid.nx as u64) << 32) | grid.ny as u64,
            user_numbering: Vec::new(),
        })
    }

    fn banner(&self, _: &(), _: &Lw, ex: &Exec, _: u64) -> String {
        let (grid, settings) = (&self.case.grid, &self.case.lw);
        format!(
            "oblique shock on {} x {} cells, {}, {} viscosity, {} wall, {} set-up, Lax-Wendroff to t = {}",
            grid.nx,
            grid.ny,
            ex.describe(),
            settings.viscosity.name(),
            settings.wall.name(),
            settings.setup.name(),
            qflow_par::driver::Num(settings.final_time),
        )
    }

    fn outputs(&mut self, _: Option<&()>, at: Final<'_>) -> Result<(), String> {
        let Final {
            ex,
            rows,
            dir,
            opts: _,
        } = at;
        let Some(qflow_par::Values::F64(block)) = ex.gather(&U) else {
            // The other ranks give their cells to rank 0's gather.
            return Ok(());
        };
        let (grid, settings, out) = (&self.case.grid, &self.case.lw, &self.case.output);
        let q = qflow_lw::problem::interior(grid, &block);
        self.measured = crate::lw_outputs::measures(grid, settings, &q);
        crate::lw_outputs::write_outputs(grid, settings, &q, dir, rows, out.vtk, out.plots)
            .map_err(|e| format!("{e:#}"))
    }

    fn elements(&self, _: &Part, _: &Lw) -> usize {
        self.case.grid.nx * self.case.grid.ny
    }

    fn summary(&self, _: &(), s: &mut Summary, ran: &Ran<Lw>) -> Option<Verdict> {
        self.summary_fields(s, ran)
    }

    fn speed_fields(&self, s: &mut Summary, _: &Ran<Lw>) {
        if let Some(rdp) = s.real("rdp").filter(|r| *r > 0.0) {
            s.push("cell_updates_per_second", Value::Real(1.0 / rdp));
        }
    }
}
