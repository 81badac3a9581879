//! q-LSKUM on one process without the run driver: a cloud, a backend, and
//! iterations on demand. For tests, benchmarks and programs that drive the
//! iteration themselves; `qflow run` uses the driver of `qflow-par`.

use std::sync::Arc;

use qflow_mesh::Cloud;
use qflow_par::backend::BackendSpec;
use qflow_par::comm::ExchangeMode;
use qflow_par::driver::StepError;
use qflow_par::{Exec, Values};

use crate::decl::{LOOPS, PRIM};
use crate::forces::Coefficients;
use crate::method::{Lskum, COLUMNS};
use crate::settings::Scheme;
use crate::{problem, Settings, Vec4};

qflow_par::method_solver!(
    /// A q-LSKUM run, the cloud's numbering kept: the layer's solver of
    /// the method (its executor `ex`, its `method`, `steps()`).
    Solver,
    Lskum
);

impl Solver {
    /// A solver on `cloud` (which must have passed `qflow_mesh::check`)
    /// with the backend `spec` asks for, every point at the free stream.
    pub fn new(cloud: &Cloud, settings: &Settings, spec: &BackendSpec) -> Result<Solver, String> {
        let p = problem::build(cloud, settings);
        let mut method = Lskum::new(settings.clone(), cloud.len());
        if settings.scheme == Scheme::NewtonKrylov {
            method.set_stencils(problem::stencil_rows(&p));
        }
        qflow_par::driver::solver::Solver::new(&p, method, spec).map(Solver)
    }

    /// A solver over the ranks of `comm` (collective): rank 0 gives the
    /// cloud and the owner rank of every point (`None` on one rank), the
    /// others `None`. The error of any rank reaches every rank.
    pub fn distributed(
        comm: Box<dyn qflow_par::comm::Comm>,
        root: Option<(&Cloud, Option<Vec<u32>>)>,
        settings: &Settings,
        spec: &BackendSpec,
        mode: ExchangeMode,
    ) -> Result<Solver, String> {
        let setup = root.map(|(cloud, owners)| Ok((problem::build(cloud, settings), owners)));
        let stencils = setup
            .as_ref()
            .filter(|_| settings.scheme == Scheme::NewtonKrylov)
            .and_then(|s: &Result<_, String>| s.as_ref().ok())
            .map(|(p, _)| problem::stencil_rows(p));
        let catalog = qflow_par::launch::Catalog::of(&LOOPS, &crate::decl::DATS);
        let part = qflow_par::launch::distribute(&*comm, setup, &LOOPS, &catalog, false)?;
        let points = part.set(&crate::decl::POINTS).map_or(0, |s| s.global_len);
        let part = Arc::new(part);
        let mut method = Lskum::new(settings.clone(), points);
        if let Some(rows) = stencils {
            method.set_stencils(rows);
        }
        let ex = qflow_par::launch::executor(comm, part, &method, spec, mode)?;
        qflow_par::driver::solver::Solver::on(ex, method).map(Solver)
    }

    /// Runs one iteration; its history row (`COLUMNS`).
    pub fn step(&mut self) -> Result<[f64; COLUMNS.len()], StepError> {
        let row = self.0.step()?;
        Ok(std::array::from_fn(|k| row[k]))
    }

    /// Runs `iters` iterations; the log residue of each.
    pub fn run(&mut self, iters: u64) -> Result<Vec<f64>, StepError> {
        (0..iters).map(|_| self.step().map(|r| r[0])).collect()
    }

    /// Completed iterations.
    pub fn iteration(&self) -> u64 {
        self.steps()
    }

    /// The primitive state of every point (on rank 0; empty elsewhere).
    /// Collective.
    pub fn state(&mut self) -> Vec<Vec4> {
        match self.ex.gather(&PRIM) {
            Some(Values::F64(v)) => v
                .chunks_exact(4)
                .map(|c| [c[0], c[1], c[2], c[3]])
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Sets the primitive state of every point.
    pub fn set_state(&mut self, prim: &[Vec4]) {
        let v: Vec<f64> = prim.iter().flatten().copied().collect();
        self.ex.scatter(&PRIM, Some(&Values::F64(v)));
    }

    /// Force coefficients after the last iteration.
    pub fn coefficients(&self) -> Coefficients {
        self.method.coefficients()
    }

    /// The executor, to run single loops (benchmarks of one kernel).
    pub fn exec(&mut self) -> &mut Exec {
        &mut self.ex
    }
}
