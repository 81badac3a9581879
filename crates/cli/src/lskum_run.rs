//! A q-LSKUM case in the run pipeline, on any backend and rank count: rank
//! 0 reads or generates the cloud, checks it, renumbers it, partitions it
//! (several ranks) and builds the problem; rank 0 writes the outputs of
//! [`crate::lskum_outputs`] in the cloud's own numbering.

use anyhow::{Context, Result};

use qflow_lskum::decl::{DATS, LOOPS, POINTS};
use qflow_lskum::settings::Scheme;
use qflow_lskum::{method::Lskum, problem, Settings};
use qflow_mesh::{renumber, Cloud};
use qflow_par::decl::{DatDecl, LoopDecl};
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::part::Part;
use qflow_par::Exec;

use crate::case::CaseFile;
use crate::lskum_case::{choose_numbering, load_cloud, problem_key, LskumCase};
use crate::pipeline::{Built, CaseMethod, Final, Ran, Schedule, Verdict};
use crate::run::RunOptions;

/// What rank 0 keeps of the set-up for the outputs.
pub struct Root {
    pub(crate) cloud: Cloud,
    pub(crate) name: String,
    /// Problem point of each cloud point.
    pub(crate) new_of_old: Vec<u32>,
    pub(crate) numbering: String,
    /// The stencils in the problem's numbering (the Newton-Krylov
    /// scheme's preconditioner), until the method takes them.
    stencils: Vec<Vec<usize>>,
    fingerprint: u64,
}

/// The q-LSKUM case and its settings.
pub struct LskumRun {
    pub(crate) case: LskumCase,
    pub(crate) settings: Settings,
}

impl CaseMethod for LskumRun {
    type Method = Lskum;
    type Root = Root;

    fn read(case: &CaseFile, _: &RunOptions) -> Result<Self> {
        let lc: LskumCase = case.get()?;
        lc.validate()
            .with_context(|| format!("case file {}", case.path.display()))?;
        let settings = lc.settings();
        Ok(LskumRun { case: lc, settings })
    }

    fn build(&self, case: &CaseFile, ranks: usize, opts: &RunOptions) -> Result<Built<Root>> {
        let (cloud, name) = load_cloud(&self.case, &case.dir)?;
        let (new_of_old, numbering) = choose_numbering(&cloud, self.case.solver.renumber);
        let internal = cloud.permuted(&new_of_old);
        let problem = problem::build(&internal, &self.settings);
        let owners = (ranks > 1)
            .then(|| crate::lskum_case::partition(&internal, &new_of_old, ranks, opts, &case.dir))
            .transpose()?;
        drop(internal);
        let newton = self.settings.scheme == Scheme::NewtonKrylov;
        let root = Root {
            fingerprint: crate::lskum_case::fingerprint(&cloud),
            cloud,
            name,
            new_of_old,
            numbering,
            stencils: if newton {
                problem::stencil_rows(&problem)
            } else {
                Vec::new()
            },
        };
        Ok(Built {
            problem,
            owners,
            root,
        })
    }

    fn declarations(&self) -> (&'static [&'static LoopDecl], &'static [&'static DatDecl]) {
        (&LOOPS, &DATS)
    }

    fn method(&self, part: &Part, root: Option<&mut Root>) -> Result<Lskum> {
        let points = part.set(&POINTS).map_or(0, |s| s.global_len);
        let mut method = Lskum::new(self.settings.clone(), points);
        if let Some(r) = root {
            method.set_user_numbering(renumber::inverse(&r.new_of_old).into());
            method.set_stencils(std::mem::take(&mut r.stencils));
        }
        Ok(method)
    }

    fn schedule(&self, _: &Lskum, root: Option<&Root>, opts: &RunOptions) -> Result<Schedule> {
        Ok(Schedule {
            max_iters: opts.max_iters.unwrap_or(self.case.stop.max_iters),
            residue_drop: self.case.stop.residue_drop,
            final_time: None,
            problem_key: problem_key(&self.settings),
            fingerprint: root.map_or(0, |r| r.fingerprint),
            user_numbering: root
                .map(|r| vec![("points", renumber::inverse(&r.new_of_old))])
                .unwrap_or_default(),
        })
    }

    fn banner(&self, r: &Root, _: &Lskum, ex: &Exec, max_iters: u64) -> String {
        let s = &self.settings;
        format!(
            "{} ({} points, numbering {}), {}, {} with {} inner iterations, M {} at {} deg, up to {max_iters} iterations",
            r.name,
            r.cloud.len(),
            r.numbering,
            ex.describe(),
            crate::lskum_outputs::scheme_label(s),
            s.inner_iterations,
            s.mach,
            s.aoa,
        )
    }

    fn outputs(&mut self, root: Option<&Root>, at: Final<'_>) -> Result<(), String> {
        self.write_final(root, at)
    }

    fn summary(&self, r: &Root, s: &mut Summary, ran: &Ran<Lskum>) -> Option<Verdict> {
        self.summary_fields(r, s, ran);
        None
    }

    fn speed_fields(&self, s: &mut Summary, ran: &Ran<Lskum>) {
        let ex = ran.ex;
        let points = qflow_par::driver::Method::work_set(ran.method);
        let n = ex.part().set(points).map_or(1, |p| p.global_len.max(1));
        let bytes = ex.bytes() as f64 / n as f64 * ex.ranks() as f64;
        s.push("bytes_per_point", Value::Real(bytes));
    }
}
