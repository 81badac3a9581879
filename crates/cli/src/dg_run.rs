//! A nodal DG case in the run pipeline: rank 0 builds the cells' block and
//! initial state; the layer cuts the periodic block into boxes for the
//! ranks and derives the face halos from the loops' stencils; the run goes
//! to the final time; rank 0 writes the outputs of [`crate::dg_outputs`]
//! and the summary with the errors against the exact solution and the PID
//! (seconds per right-hand-side evaluation per degree of freedom).

use anyhow::{anyhow, Context, Result};

use qflow_dg::{problem, Dg};
use qflow_par::comm::ExchangeMode;
use qflow_par::decl::{DatDecl, LoopDecl};
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::part::Part;
use qflow_par::{Exec, Values};

use crate::case::CaseFile;
use crate::dg_case::{problem_key, DgCase};
use crate::pipeline::{Built, CaseMethod, Final, Ran, Schedule, Verdict};
use crate::run::RunOptions;

/// The DG case and the errors its outputs measured (L2 and max per
/// variable, at the final time).
pub struct DgRun {
    pub(crate) case: DgCase,
    pub(crate) errors: Option<([f64; problem::MAX_VARIABLES], [f64; problem::MAX_VARIABLES])>,
}

impl CaseMethod for DgRun {
    type Method = Dg;
    type Root = ();

    fn read(case: &CaseFile, opts: &RunOptions) -> Result<Self> {
        let dc: DgCase = case.get()?;
        let at = || format!("case file {}", case.path.display());
        dc.validate().with_context(at)?;
        crate::dg_case::refuse_unused_keys(case, &dc.dg).with_context(at)?;
        if opts.partitioner.is_some() {
            anyhow::bail!("--partitioner: the dg method's cells are cut into boxes by the layer");
        }
        Ok(DgRun {
            case: dc,
            errors: None,
        })
    }

    fn build(&self, _: &CaseFile, _: usize, _: &RunOptions) -> Result<Built<()>> {
        let problem = problem::build(&self.case.dg).map_err(|e| anyhow!(e))?;
        Ok(Built::block(problem))
    }

    fn declarations(&self) -> (&'static [&'static LoopDecl], &'static [&'static DatDecl]) {
        (problem::loops(&self.case.dg), problem::dats(&self.case.dg))
    }

    fn method(&self, _: &Part, _: Option<&mut ()>) -> Result<Dg> {
        Dg::new(self.case.dg.clone()).map_err(|e| anyhow!(e))
    }

    fn exchange(&self, ranks: usize) -> ExchangeMode {
        // One rank exchanges with itself only (the periodic images):
        // nothing to overlap, so one loop over all cells per stage rather
        // than the core in pieces between polls and the border cells after
        // (each a fork and join of the threads).
        if ranks == 1 {
            ExchangeMode::Blocking
        } else {
            ExchangeMode::Nonblocking
        }
    }

    fn schedule(&self, m: &Dg, _: Option<&()>, opts: &RunOptions) -> Result<Schedule> {
        let s = &self.case.dg;
        let steps = ((s.final_time / m.dt()).ceil(), m.dt());
        let steps_to_end = crate::run::step_limit("[dg]", s.final_time, steps)?;
        let [cx, cy, cz] = s.grid().map(|c| c as u64);
        Ok(Schedule {
            max_iters: opts
                .max_iters
                .unwrap_or(self.case.max_steps())
                .min(steps_to_end),
            residue_drop: None,
            final_time: Some(s.final_time),
            problem_key: problem_key(s),
            // Cells per direction (at most 2^20 each): 21 bits apiece.
            fingerprint: (cx << 42) | (cy << 21) | cz,
            user_numbering: Vec::new(),
        })
    }

    fn banner(&self, _: &(), _: &Dg, ex: &Exec, _: u64) -> String {
        let s = &self.case.dg;
        format!(
            "nodal DG, {}D {}, order {} (degree {}), {} cells ({} nodes), {}, {}, to t = {}",
            s.dimensions,
            s.equation.name(),
            s.order,
            s.order - 1,
            self.cells(),
            self.dofs(),
            s.rk,
            ex.describe(),
            qflow_par::driver::Num(s.final_time)
        )
    }

    fn outputs(&mut self, _: Option<&()>, at: Final<'_>) -> Result<(), String> {
        let Final {
            ex,
            rows: _,
            dir,
            opts: _,
        } = at;
        let Some(Values::F64(u)) = ex.gather(problem::solution(&self.case.dg)) else {
            return Ok(());
        };
        let (s, out) = (&self.case.dg, &self.case.output);
        // At the final time (the summary keeps them only if the run got
        // there).
        self.errors = Some(problem::variable_errors(s, &u, s.final_time));
        let plane = self.case.picture.unwrap_or_default();
        crate::dg_outputs::write_outputs(s, &u, dir, out.vtk, out.plots, plane)
            .map_err(|e| format!("{e:#}"))
    }

    fn elements(&self, _: &Part, _: &Dg) -> usize {
        self.cells()
    }

    fn figure(&self, method: &Dg, _: usize) -> (&'static str, f64) {
        ("pid", (method.stages() * self.dofs()) as f64)
    }

    fn summary(&self, _: &(), s: &mut Summary, ran: &Ran<Dg>) -> Option<Verdict> {
        self.summary_fields(s, ran)
    }

    fn speed_fields(&self, s: &mut Summary, ran: &Ran<Dg>) {
        let outcome = ran.outcome;
        let rhs = outcome.steps_run as f64 * self.figure(ran.method, 0).1;
        if rhs > 0.0 {
            s.push("pid", Value::Real(outcome.wall_seconds / rhs));
        }
    }
}
