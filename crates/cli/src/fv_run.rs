//! A finite-volume (OP2 Airfoil) case from its file to its outputs: rank 0
//! reads or generates the mesh, checks it and builds the problem; the run
//! driver runs the method; rank 0 writes `history.csv`, the outputs of
//! [`crate::fv_outputs`] and the summary, and checks the final rms against
//! the case's `[expect]` section.
//!
//! One rank for now: the edge loop increments both of its cells, and the
//! layer's distributed increments (OP2's executed halo) are not built yet,
//! so a run under `mpirun` on several ranks is refused before any work.

use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};

use qflow_fv::decl::{DATS, LOOPS};
use qflow_fv::Fv;
use qflow_par::backend::Program;
use qflow_par::comm::{Comm, ExchangeMode};
use qflow_par::driver::history::Row;
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::driver::{self, Method, OutputPhase, RunConfig, StopReason};
use qflow_par::launch::{agree, distribute, Catalog};
use qflow_par::Exec;

use crate::case::{prepare_output_dir, CaseFile};
use crate::fv_case::{fingerprint, problem_key, FvCase};
use crate::run::{Finished, RunOptions};

/// Runs a finite-volume case.
pub fn run(comm: Box<dyn Comm>, case: &CaseFile, opts: &RunOptions) -> Result<Finished> {
    let fc: FvCase = case.get()?;
    fc.validate()
        .with_context(|| format!("case file {}", case.path.display()))?;
    if comm.size() > 1 {
        bail!(
            "method fv runs on one rank for now: its edge loop increments cells through a map, \
             and distributed increments are not built yet; run it without mpirun \
             (--backend threads uses every core)"
        );
    }
    let settings = fc.fv.clone();
    let out_dir = fc.output.folder(case, opts.output.as_deref());
    let t = std::time::Instant::now();
    prepare_output_dir(&out_dir)?;
    let (mesh, name) = fc.load_mesh(&case.dir)?;
    let fp = fingerprint(&mesh)?;
    let qflow_fv::problem::Built {
        problem,
        cells: order,
    } = qflow_fv::problem::build(&mesh, &settings).map_err(|e| anyhow!(e))?;
    let catalog = Catalog::of(&LOOPS, &DATS);
    let part = distribute(&*comm, Some(Ok((problem, None))), &LOOPS, &catalog, false)
        .map_err(|e| anyhow!(e))?;
    let part = Arc::new(part);
    let cells = mesh.cells();
    let mut method = Fv::new(settings.clone(), cells);
    let program = Program {
        name: "fv",
        loops: &LOOPS,
        device_source: method.device_source(),
    };
    let spec = qflow_par::backend::BackendSpec {
        increments: settings.strategy,
        block_size: settings.block_size,
        ..opts.backend.clone()
    };
    let local = qflow_par::backend::create(
        &spec,
        part.clone(),
        method.globals(),
        &program,
        comm.node_rank(),
    );
    let local = agree(&*comm, local).map_err(|e| anyhow!(e))?;
    let mut ex = Exec::new(part, local, comm, ExchangeMode::Nonblocking);
    let setup_seconds = t.elapsed().as_secs_f64();
    let max_iters = opts.max_iters.unwrap_or(fc.stop.max_iters);
    let config = RunConfig {
        max_iters,
        residue_drop: None,
        final_time: None,
        checkpoint_every: fc.output.checkpoint_every,
        out_dir: Some(out_dir.clone()),
        resume: opts.resume,
        quiet: opts.quiet,
        problem_key: problem_key(&settings),
        fingerprint: fp,
        user_numbering: Vec::new(),
    };
    if !opts.quiet {
        eprintln!(
            "qflow: {name} ({} cells, {} edges, {} boundary edges), {}, {} increments, reorder {}, OP2 Airfoil scheme at M {}, up to {max_iters} iterations",
            cells,
            mesh.edges(),
            mesh.bedges(),
            ex.describe(),
            settings.strategy.name(),
            settings.reorder.name(),
            settings.mach,
        );
    }
    let (vtk, plots) = (fc.output.vtk, fc.output.plots);
    let outcome = {
        let mut outputs = |ex: &mut Exec, rows: &[Row], phase: OutputPhase| -> Result<(), String> {
            if phase != OutputPhase::Final {
                return Ok(());
            }
            crate::fv_outputs::write_outputs(
                ex, &mesh, &order, &settings, &out_dir, rows, vtk, plots,
            )
            .map_err(|e| format!("{e:#}"))
        };
        driver::run(&mut method, &mut ex, &config, &mut outputs)?
    };
    let rms = outcome.history.last().map_or(f64::NAN, |r| r.values[0]);
    let mut s = Summary::default();
    s.push("case", Value::Text(case.path.display().to_string()));
    s.push("method", Value::Text("fv".into()));
    s.push("mesh", Value::Text(name));
    s.push("cells", Value::Int(cells as i64));
    s.push("backend", Value::Text(ex.describe()));
    s.push("strategy", Value::Text(settings.strategy.name().into()));
    s.push("reorder", Value::Text(settings.reorder.name().into()));
    s.push("iterations", Value::Int(outcome.iterations as i64));
    s.push("stop", Value::Text(outcome.stop.label().into()));
    s.push("rms", Value::Real(rms));
    let verdict = match (&fc.expect, &outcome.stop) {
        // The expectation is of the case's own iteration count.
        (Some(e), StopReason::MaxIterations) if outcome.iterations == fc.stop.max_iters => {
            let (line, passed) = e.verdict(rms);
            s.push("expected_rms", Value::Real(e.rms));
            s.push(
                "check",
                Value::Text(if passed { "passed" } else { "failed" }.into()),
            );
            Some((line, passed))
        }
        _ => None,
    };
    s.add_speed(&outcome, cells);
    s.push("setup_seconds", Value::Real(setup_seconds));
    s.push("output", Value::Text(out_dir.display().to_string()));
    s.write(&out_dir.join("summary.toml"))
        .context("writing the summary")?;
    if let Some((line, passed)) = verdict {
        if !passed {
            bail!("{line}\nthe outputs are in {}", out_dir.display());
        }
        eprintln!("{line}");
    }
    Ok(Finished {
        summary: Some(s),
        stop: outcome.stop,
        out_dir,
    })
}
