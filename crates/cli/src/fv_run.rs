//! A finite-volume (OP2 Airfoil) case in the run pipeline: rank 0 reads or
//! generates the mesh, checks it and builds the problem; rank 0 writes the
//! outputs of [`crate::fv_outputs`] and the summary, and checks the final
//! rms against the case's `[expect]` section.
//!
//! Under `mpirun` the cells are cut by METIS; each rank runs the edges of
//! its cells, including those another rank owns (the layer's executed
//! halo, OP2's redundant execution), so no increment travels.

use anyhow::{anyhow, Context, Result};

use qflow_fv::decl::{CELLS, DATS, LOOPS, PECELL, Q};
use qflow_fv::forces::Coefficients;
use qflow_fv::Fv;
use qflow_mesh::poly::PolyMesh;
use qflow_par::backend::BackendSpec;
use qflow_par::decl::{DatDecl, LoopDecl};
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::part::Part;
use qflow_par::Exec;

use crate::case::CaseFile;
use crate::fv_case::{fingerprint, problem_key, FvCase};
use crate::pipeline::{Built, CaseMethod, Final, Ran, Schedule, Verdict};
use crate::run::RunOptions;

/// What rank 0 keeps: the mesh, its name, where its cells went, the
/// checkpoints' fingerprint and the time the mesh took to read.
pub struct Root {
    mesh: PolyMesh,
    pub(crate) name: String,
    order: qflow_fv::problem::CellOrder,
    fingerprint: u64,
    mesh_seconds: f64,
}

/// The finite-volume case and the forces its outputs measured.
pub struct FvRun {
    pub(crate) case: FvCase,
    pub(crate) forces: Option<Coefficients>,
}

impl CaseMethod for FvRun {
    type Method = Fv;
    type Root = Root;

    fn read(case: &CaseFile, _: &RunOptions) -> Result<Self> {
        let fc: FvCase = case.get()?;
        fc.validate()
            .with_context(|| format!("case file {}", case.path.display()))?;
        Ok(FvRun {
            case: fc,
            forces: None,
        })
    }

    fn build(&self, case: &CaseFile, ranks: usize, _: &RunOptions) -> Result<Built<Root>> {
        let t = std::time::Instant::now();
        let (mesh, name) = self.case.load_mesh(&case.dir)?;
        let mesh_seconds = t.elapsed().as_secs_f64();
        // The checkpoints' fingerprint (a copy of the mesh in native bytes
        // and its checksum) beside the problem's construction.
        let (fingerprint, built) = std::thread::scope(|s| {
            let f = s.spawn(|| fingerprint(&mesh));
            let built = qflow_fv::problem::build(&mesh, &self.case.fv);
            let f = f.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            (f, built)
        });
        let (fingerprint, built) = (fingerprint?, built.map_err(|e| anyhow!(e))?);
        // Several ranks: the cells cut by METIS on their edge graph.
        let owners = (ranks > 1)
            .then(|| qflow_par::reorder::partition_targets(&built.problem, &PECELL, ranks))
            .transpose()
            .map_err(|e| anyhow!(e))?;
        Ok(Built {
            problem: built.problem,
            owners,
            root: Root {
                mesh,
                name,
                order: built.cells,
                fingerprint,
                mesh_seconds,
            },
        })
    }

    fn declarations(&self) -> (&'static [&'static LoopDecl], &'static [&'static DatDecl]) {
        (&LOOPS, &DATS)
    }

    fn method(&self, part: &Part, _: Option<&mut Root>) -> Result<Fv> {
        let cells = part.set(&CELLS).map_or(0, |s| s.global_len);
        Ok(Fv::new(self.case.fv.clone(), cells))
    }

    fn backend(&self, opts: &RunOptions) -> BackendSpec {
        self.case.fv.backend(&opts.backend)
    }

    fn schedule(&self, _: &Fv, root: Option<&Root>, opts: &RunOptions) -> Result<Schedule> {
        Ok(Schedule {
            max_iters: opts.max_iters.unwrap_or(self.case.stop.max_iters),
            residue_drop: self.case.stop.residue_drop,
            final_time: None,
            problem_key: problem_key(&self.case.fv),
            fingerprint: root.map_or(0, |r| r.fingerprint),
            user_numbering: Vec::new(),
        })
    }

    fn banner(&self, r: &Root, m: &Fv, ex: &Exec, max_iters: u64) -> String {
        let s = &self.case.fv;
        format!(
            "{} ({} cells, {} edges, {} boundary edges), {}, {} increments, reorder {}, OP2 Airfoil scheme at M {}, {} degrees, up to {max_iters} iterations",
            r.name,
            m.cells(),
            r.mesh.edges(),
            r.mesh.bedges(),
            ex.describe(),
            s.strategy.name(),
            s.reorder.name(),
            s.mach,
            s.aoa,
        )
    }

    fn outputs(&mut self, root: Option<&Root>, at: Final<'_>) -> Result<(), String> {
        let (ex, rows, dir) = (at.ex, at.rows, at.dir);
        let Some(r) = root else {
            // The other ranks give their cells to rank 0's gather.
            ex.gather(&Q);
            return Ok(());
        };
        let (s, out) = (&self.case.fv, &self.case.output);
        crate::fv_outputs::write_outputs(ex, &r.mesh, &r.order, s, dir, rows, out.vtk, out.plots)
            .map(|f| self.forces = f)
            .map_err(|e| format!("{e:#}"))
    }

    fn summary(&self, root: &Root, s: &mut Summary, ran: &Ran<Fv>) -> Option<Verdict> {
        self.summary_fields(root, s, ran)
    }

    fn setup_fields(&self, root: &Root, s: &mut Summary) {
        // Of the set-up, reading and checking the mesh (the rest: the
        // problem, its plan and the backend).
        s.push("setup_mesh_seconds", Value::Real(root.mesh_seconds));
    }
}
