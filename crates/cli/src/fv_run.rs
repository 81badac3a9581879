//! A finite-volume (OP2 Airfoil) case from its file to its outputs: rank 0
//! reads or generates the mesh, checks it and builds the problem; the run
//! driver runs the method; rank 0 writes `history.csv`, the outputs of
//! [`crate::fv_outputs`] and the summary, and checks the final rms against
//! the case's `[expect]` section.
//!
//! Under `mpirun` the cells are cut by METIS; each rank runs the edges of
//! its cells, including those another rank owns (the layer's executed
//! halo, OP2's redundant execution), so no increment travels.

use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};

use qflow_fv::decl::{DATS, LOOPS};
use qflow_fv::Fv;
use qflow_mesh::poly::PolyMesh;
use qflow_par::comm::{Comm, ExchangeMode};
use qflow_par::driver::history::Row;
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::driver::{self, OutputPhase, RunConfig, StopReason};
use qflow_par::launch::{distribute, executor, Catalog};
use qflow_par::Exec;

use crate::case::{prepare_output_dir, CaseFile};
use crate::fv_case::{fingerprint, problem_key, FvCase};
use crate::run::{Finished, RunOptions};

/// What rank 0 holds besides its part: the mesh and where its cells went.
struct Root {
    mesh: PolyMesh,
    name: String,
    order: qflow_fv::problem::CellOrder,
    fingerprint: u64,
    /// The output folder, held until the run ends.
    _lock: crate::case::OutputLock,
}

/// Runs a finite-volume case.
pub fn run(comm: Box<dyn Comm>, case: &CaseFile, opts: &RunOptions) -> Result<Finished> {
    let fc: FvCase = case.get()?;
    fc.validate()
        .with_context(|| format!("case file {}", case.path.display()))?;
    let settings = fc.fv.clone();
    let out_dir = fc.output.folder(case, opts.output.as_deref())?;
    let t = std::time::Instant::now();
    let rank0 = comm.rank() == 0;
    // Rank 0 reads the mesh, builds the problem and cuts the cells by
    // METIS on their edge graph; every rank then runs its cells' edges and
    // the executed halo (OP2's redundant execution).
    let mut root: Option<Root> = None;
    let mut mesh_seconds = None;
    let setup = rank0.then(|| {
        (|| -> Result<_> {
            let lock = prepare_output_dir(&out_dir)?;
            let (mesh, name) = fc.load_mesh(&case.dir)?;
            mesh_seconds = Some(t.elapsed().as_secs_f64());
            // The checkpoints' fingerprint (a copy of the mesh in native
            // bytes and its checksum) beside the problem's construction.
            let (fingerprint, built) = std::thread::scope(|s| {
                let f = s.spawn(|| fingerprint(&mesh));
                let built = qflow_fv::problem::build(&mesh, &settings);
                let f = f.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                (f, built)
            });
            let (fingerprint, built) = (fingerprint?, built.map_err(|e| anyhow!(e))?);
            let owners = if comm.size() > 1 {
                Some(
                    qflow_par::reorder::partition_targets(
                        &built.problem,
                        &qflow_fv::decl::PECELL,
                        comm.size(),
                    )
                    .map_err(|e| anyhow!(e))?,
                )
            } else {
                None
            };
            root = Some(Root {
                mesh,
                name,
                order: built.cells,
                fingerprint,
                _lock: lock,
            });
            Ok((built.problem, owners))
        })()
        .map_err(|e| format!("{e:#}"))
    });
    let catalog = Catalog::of(&LOOPS, &DATS);
    let part = distribute(&*comm, setup, &LOOPS, &catalog, false).map_err(|e| anyhow!(e))?;
    let part = Arc::new(part);
    let cells = part.set(&qflow_fv::decl::CELLS).map_or(0, |s| s.global_len);
    let mut method = Fv::new(settings.clone(), cells);
    let spec = qflow_par::backend::BackendSpec {
        increments: settings.strategy,
        block_size: settings.block_size,
        layout: settings.layout,
        ..opts.backend.clone()
    };
    let mode = opts.exchange.unwrap_or(ExchangeMode::Nonblocking);
    let mut ex = executor(comm, part, &method, &spec, mode).map_err(|e| anyhow!(e))?;
    let setup_seconds = t.elapsed().as_secs_f64();
    let max_iters = opts.max_iters.unwrap_or(fc.stop.max_iters);
    let config = RunConfig {
        max_iters,
        residue_drop: fc.stop.residue_drop,
        final_time: None,
        checkpoint_every: fc.output.checkpoint_every,
        out_dir: Some(out_dir.clone()),
        resume: opts.resume,
        quiet: opts.quiet,
        problem_key: problem_key(&settings),
        fingerprint: root.as_ref().map_or(0, |r| r.fingerprint),
        user_numbering: Vec::new(),
    };
    if let (false, Some(r)) = (opts.quiet, &root) {
        crate::errln!(
            "qflow: {} ({} cells, {} edges, {} boundary edges), {}, {} increments, reorder {}, OP2 Airfoil scheme at M {}, {} degrees, up to {max_iters} iterations",
            r.name,
            cells,
            r.mesh.edges(),
            r.mesh.bedges(),
            ex.describe(),
            settings.strategy.name(),
            settings.reorder.name(),
            settings.mach,
            settings.aoa,
        );
    }
    let (vtk, plots) = (fc.output.vtk, fc.output.plots);
    let mut forces = None;
    let outcome = {
        let mut outputs = |ex: &mut Exec, rows: &[Row], phase: OutputPhase| -> Result<(), String> {
            if phase != OutputPhase::Final {
                return Ok(());
            }
            match &root {
                Some(r) => crate::fv_outputs::write_outputs(
                    ex, &r.mesh, &r.order, &settings, &out_dir, rows, vtk, plots,
                )
                .map(|f| forces = f),
                // The other ranks give their cells to rank 0's gather.
                None => {
                    ex.gather(&qflow_fv::decl::Q);
                    Ok(())
                }
            }
            .map_err(|e| format!("{e:#}"))
        };
        driver::run(&mut method, &mut ex, &config, &mut outputs)?
    };
    // No iteration completed (the first one blew up): no rms to report.
    let rms = outcome.history.last().map(|r| r.values[0]);
    let Some(root) = root else {
        return Ok(Finished {
            summary: None,
            stop: outcome.stop,
            out_dir,
        });
    };
    let name = root.name;
    let mut s = Summary::default();
    s.push("case", Value::Text(case.path.display().to_string()));
    s.push("method", Value::Text("fv".into()));
    s.push("mesh", Value::Text(name));
    s.push("cells", Value::Int(cells as i64));
    s.push("backend", Value::Text(ex.describe()));
    s.push("strategy", Value::Text(settings.strategy.name().into()));
    s.push("reorder", Value::Text(settings.reorder.name().into()));
    s.push("layout", Value::Text(settings.layout.name().into()));
    s.push("iterations", Value::Int(outcome.iterations as i64));
    s.push("stop", Value::Text(outcome.stop.label().into()));
    if let Some(rms) = rms {
        s.push("rms", Value::Real(rms));
    }
    s.push("mach", Value::Real(settings.mach));
    s.push("aoa", Value::Real(settings.aoa));
    if let Some(f) = forces {
        s.push("cl", Value::Real(f.cl));
        s.push("cd", Value::Real(f.cd));
        s.push("cm", Value::Real(f.cm));
    }
    let verdict = match (&fc.expect, &outcome.stop, rms) {
        // The expectation is of the case's own iteration count.
        (Some(e), StopReason::MaxIterations, Some(rms))
            if outcome.iterations == fc.stop.max_iters =>
        {
            let (line, passed) = e.verdict(rms);
            s.push("expected_rms", Value::Real(e.rms));
            s.push(
                "check",
                Value::Text(if passed { "passed" } else { "failed" }.into()),
            );
            Some((line, passed))
        }
        (Some(_), StopReason::MaxIterations, _) => {
            // Said, not silent: a user may think the check passed. (Other
            // stops say why themselves.)
            s.push(
                "check",
                Value::Text(format!(
                    "not made: the expected rms is of iteration {}, the run stopped at {} ({})",
                    fc.stop.max_iters,
                    outcome.iterations,
                    outcome.stop.label()
                )),
            );
            crate::errln!(
                "[expect] rms not checked: it is of iteration {}, the run stopped at {} ({})",
                fc.stop.max_iters,
                outcome.iterations,
                outcome.stop.label()
            );
            None
        }
        _ => None,
    };
    s.add_speed(&outcome, cells);
    s.push("setup_seconds", Value::Real(setup_seconds));
    // Of which reading and checking the mesh (the rest: the problem, its
    // plan and the backend).
    if let Some(m) = mesh_seconds {
        s.push("setup_mesh_seconds", Value::Real(m));
    }
    s.push("output", Value::Text(out_dir.display().to_string()));
    s.write(&out_dir.join("summary.toml"))
        .context("writing the summary")?;
    if let Some((line, passed)) = verdict {
        if !passed {
            bail!("{line}\nthe outputs are in {}", out_dir.display());
        }
        crate::errln!("{line}");
    }
    Ok(Finished {
        summary: Some(s),
        stop: outcome.stop,
        out_dir,
    })
}
