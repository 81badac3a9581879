//! A Lax-Wendroff oblique-shock case from its file to its outputs: rank 0
//! builds the grid's block and initial state; the layer cuts the block
//! into boxes (or strips) for the ranks and derives their halos from the
//! loops' stencils; the run driver runs the method to the final time; rank
//! 0 writes `history.csv`, the outputs of [`crate::lw_outputs`] and the
//! summary, with the density's L1 error against the exact solution.

use std::sync::Arc;

use anyhow::{anyhow, Context, Result};

use qflow_lw::decl::{DATS, LOOPS, U};
use qflow_lw::settings::Decomposition;
use qflow_lw::Lw;
use qflow_par::comm::{Comm, ExchangeMode};
use qflow_par::driver::history::Row;
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::driver::{self, Method, OutputPhase, RunConfig};
use qflow_par::launch::{distribute, executor, Catalog};
use qflow_par::Exec;

use crate::case::{prepare_output_dir, CaseFile};
use crate::lw_case::LwCase;
use crate::run::{Finished, RunOptions};

/// Runs a Lax-Wendroff case.
pub fn run(comm: Box<dyn Comm>, case: &CaseFile, opts: &RunOptions) -> Result<Finished> {
    let lc: LwCase = case.get()?;
    lc.validate()
        .with_context(|| format!("case file {}", case.path.display()))?;
    if opts.partitioner.is_some() {
        anyhow::bail!(
            "--partitioner: the lw method's grid is cut into boxes by the layer; \
             choose strips or blocks with --set lw.decomposition=strips"
        );
    }
    let (grid, settings) = (lc.grid.clone(), lc.lw.clone());
    let out_dir = lc.output.folder(case, opts.output.as_deref())?;
    let t = std::time::Instant::now();
    let rank0 = comm.rank() == 0;
    let mut lock = None;
    let setup = rank0.then(|| {
        (|| -> Result<_> {
            lock = Some(prepare_output_dir(&out_dir)?);
            let p = qflow_lw::problem::build(&grid, &settings).map_err(|e| anyhow!(e))?;
            Ok((p, None))
        })()
        .map_err(|e| format!("{e:#}"))
    });
    let catalog = Catalog::of(&LOOPS, &DATS);
    let strips = settings.decomposition == Decomposition::Strips;
    let part = distribute(&*comm, setup, &LOOPS, &catalog, strips).map_err(|e| anyhow!(e))?;
    let part = Arc::new(part);
    let mut method = Lw::new(settings.clone(), grid.clone()).map_err(|e| anyhow!(e))?;
    let mode = opts.exchange.unwrap_or(ExchangeMode::Nonblocking);
    let mut ex = executor(comm, part, &method, &opts.backend, mode).map_err(|e| anyhow!(e))?;
    let setup_seconds = t.elapsed().as_secs_f64();
    let cells = grid.nx * grid.ny;
    let key = settings.key(&grid);
    let config = RunConfig {
        max_iters: opts
            .max_iters
            .unwrap_or(lc.max_steps())
            .min(crate::run::step_limit(
                "[lw]",
                settings.final_time,
                qflow_lw::method::steps_to_end(&grid, &settings),
            )?),
        residue_drop: None,
        final_time: Some(settings.final_time),
        checkpoint_every: lc.output.checkpoint_every,
        out_dir: Some(out_dir.clone()),
        resume: opts.resume,
        quiet: opts.quiet,
        problem_key: key.clone(),
        // The grid is the geometry; the settings are in the key.
        fingerprint: ((grid.nx as u64) << 32) | grid.ny as u64,
        user_numbering: Vec::new(),
    };
    if !opts.quiet && rank0 {
        crate::errln!(
            "qflow: oblique shock on {} x {} cells, {}, {} viscosity, {} wall, {} set-up, Lax-Wendroff to t = {}",
            grid.nx,
            grid.ny,
            ex.describe(),
            settings.viscosity.name(),
            settings.wall.name(),
            settings.setup.name(),
            qflow_par::driver::Num(settings.final_time),
        );
    }
    let (vtk, plots) = (lc.output.vtk, lc.output.plots);
    let mut measured = Vec::new();
    let outcome = {
        let mut outputs = |ex: &mut Exec, rows: &[Row], phase: OutputPhase| -> Result<(), String> {
            if phase != OutputPhase::Final {
                return Ok(());
            }
            let Some(qflow_par::Values::F64(block)) = ex.gather(&U) else {
                // The other ranks give their cells to rank 0's gather.
                return Ok(());
            };
            let q = qflow_lw::problem::interior(&grid, &block);
            measured = crate::lw_outputs::measures(&grid, &settings, &q);
            crate::lw_outputs::write_outputs(&grid, &settings, &q, &out_dir, rows, vtk, plots)
                .map_err(|e| format!("{e:#}"))
        };
        driver::run(&mut method, &mut ex, &config, &mut outputs)?
    };
    let Some(lock) = lock else {
        return Ok(Finished {
            summary: None,
            stop: outcome.stop,
            out_dir,
        });
    };
    let mut s = Summary::default();
    s.push("case", Value::Text(case.path.display().to_string()));
    s.push("method", Value::Text("lw".into()));
    s.push("nx", Value::Int(grid.nx as i64));
    s.push("ny", Value::Int(grid.ny as i64));
    s.push("cells", Value::Int(cells as i64));
    s.push("backend", Value::Text(ex.describe()));
    s.push("viscosity", Value::Text(settings.viscosity.name().into()));
    s.push("wall", Value::Text(settings.wall.name().into()));
    s.push("setup", Value::Text(settings.setup.name().into()));
    s.push("steps", Value::Int(outcome.iterations as i64));
    s.push("dt", Value::Real(method.dt()));
    s.push("time", Value::Real(method.time().unwrap_or(0.0)));
    s.push("stop", Value::Text(outcome.stop.label().into()));
    for (k, v) in measured {
        // A shock the analysis cannot find (a run stopped early, a coarse
        // grid) is said so, not written as NaN.
        if v.is_finite() {
            s.push(&k, Value::Real(v));
        } else {
            s.push(&k, Value::Text("not found".into()));
        }
    }
    s.add_speed(&outcome, cells);
    if let Some(rdp) = s.real("rdp").filter(|r| *r > 0.0) {
        s.push("cell_updates_per_second", Value::Real(1.0 / rdp));
    }
    s.push("setup_seconds", Value::Real(setup_seconds));
    s.push("output", Value::Text(out_dir.display().to_string()));
    s.write(&out_dir.join("summary.toml"))
        .context("writing the summary")?;
    drop(lock);
    Ok(Finished {
        summary: Some(s),
        stop: outcome.stop,
        out_dir,
    })
}
