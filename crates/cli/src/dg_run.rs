//! A nodal DG case from its file to its outputs: rank 0 builds the cells'
//! block and initial state; the layer cuts the periodic block into boxes
//! for the ranks and derives the face halos from the loops' stencils; the
//! run driver runs the method to the final time; rank 0 writes the
//! outputs and the summary with the errors against the exact solution and
//! the PID (seconds per right-hand-side evaluation per degree of freedom).

use std::sync::Arc;

use anyhow::{anyhow, Context, Result};

use qflow_dg::{problem, Dg};
use qflow_par::comm::{Comm, ExchangeMode};
use qflow_par::driver::history::Row;
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::driver::{self, Method, OutputPhase, RunConfig};
use qflow_par::launch::{distribute, executor, Catalog};
use qflow_par::{Exec, Values};

use crate::case::{prepare_output_dir, CaseFile};
use crate::dg_case::DgCase;
use crate::run::{Finished, RunOptions};

/// Runs a nodal DG case.
pub fn run(comm: Box<dyn Comm>, case: &CaseFile, opts: &RunOptions) -> Result<Finished> {
    let dc: DgCase = case.get()?;
    dc.validate()
        .with_context(|| format!("case file {}", case.path.display()))?;
    crate::dg_case::refuse_unused_keys(case, &dc.dg)
        .with_context(|| format!("case file {}", case.path.display()))?;
    if opts.partitioner.is_some() {
        anyhow::bail!("--partitioner: the dg method's cells are cut into boxes by the layer");
    }
    let settings = dc.dg.clone();
    let out_dir = dc.output.folder(case, opts.output.as_deref())?;
    let t = std::time::Instant::now();
    let rank0 = comm.rank() == 0;
    let mut lock = None;
    let setup = rank0.then(|| {
        (|| -> Result<_> {
            lock = Some(prepare_output_dir(&out_dir)?);
            let p = problem::build(&settings).map_err(|e| anyhow!(e))?;
            Ok((p, None))
        })()
        .map_err(|e| format!("{e:#}"))
    });
    let mut method = Dg::new(settings.clone()).map_err(|e| anyhow!(e))?;
    let loops = method.loops();
    let catalog = Catalog::of(loops, problem::dats(&settings));
    let part = distribute(&*comm, setup, loops, &catalog, false).map_err(|e| anyhow!(e))?;
    let part = Arc::new(part);
    // One rank exchanges with itself only (the periodic images): nothing
    // to overlap, so one loop over all cells per stage rather than the
    // core in pieces between polls and the border cells after (each a
    // fork and join of the threads).
    let mode = opts.exchange.unwrap_or(if comm.size() == 1 {
        ExchangeMode::Blocking
    } else {
        ExchangeMode::Nonblocking
    });
    let mut ex = executor(comm, part, &method, &opts.backend, mode).map_err(|e| anyhow!(e))?;
    let setup_seconds = t.elapsed().as_secs_f64();
    let cells: usize = settings.grid().iter().product();
    let n = settings.order;
    let dofs = cells * n.pow(settings.dimensions as u32);
    let mut key = format!(
        "equation = {}\ndimensions = {}\norder = {}\ncells = {:?}\nvelocity = {:?}\nsound_speed = {:?}\namplitude = {:?}\nrk = {}\ncfl = {:?}\ninitial = {}\n",
        settings.equation.name(),
        settings.dimensions,
        n,
        settings.cells,
        settings.velocity,
        settings.sound_speed,
        settings.amplitude,
        settings.rk,
        settings.cfl,
        settings.initial.name()
    );
    // The multi-mode signal's amplitudes are part of the problem (a resume
    // with another seed or count was accepted and measured its errors
    // against another exact solution).
    if settings.initial == qflow_dg::settings::Initial::Multimode {
        key.push_str(&format!(
            "modes = {}\nseed = {}\n",
            settings.modes, settings.seed
        ));
    }
    let steps_to_end = crate::run::step_limit(
        "[dg]",
        settings.final_time,
        ((settings.final_time / method.dt()).ceil(), method.dt()),
    )?;
    let config = RunConfig {
        max_iters: opts.max_iters.unwrap_or(dc.max_steps()).min(steps_to_end),
        residue_drop: None,
        final_time: Some(settings.final_time),
        checkpoint_every: dc.output.checkpoint_every,
        out_dir: Some(out_dir.clone()),
        resume: opts.resume,
        quiet: opts.quiet,
        problem_key: key,
        // Cells per direction (at most 2^20 each): 21 bits apiece.
        fingerprint: {
            let [cx, cy, cz] = settings.grid().map(|c| c as u64);
            (cx << 42) | (cy << 21) | cz
        },
        user_numbering: Vec::new(),
    };
    if !opts.quiet && rank0 {
        crate::errln!(
            "qflow: nodal DG, {}D {}, order {n} (degree {}), {cells} cells ({dofs} nodes), {}, {}, to t = {}",
            settings.dimensions,
            settings.equation.name(),
            n - 1,
            settings.rk,
            ex.describe(),
            qflow_par::driver::Num(settings.final_time)
        );
    }
    let (vtk, plots) = (dc.output.vtk, dc.output.plots);
    let plane = dc.picture.unwrap_or_default();
    let mut errors = None;
    let u_dat = method.solution();
    let outcome = {
        let mut outputs =
            |ex: &mut Exec, _rows: &[Row], phase: OutputPhase| -> Result<(), String> {
                if phase != OutputPhase::Final {
                    return Ok(());
                }
                let Some(Values::F64(u)) = ex.gather(u_dat) else {
                    return Ok(());
                };
                // At the final time (the summary keeps them only if the
                // run got there).
                errors = Some(problem::variable_errors(&settings, &u, settings.final_time));
                crate::dg_outputs::write_outputs(&settings, &u, &out_dir, vtk, plots, plane)
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
    let time = method.time().unwrap_or(0.0);
    let mut s = Summary::default();
    s.push("case", Value::Text(case.path.display().to_string()));
    s.push("method", Value::Text("dg".into()));
    s.push("equation", Value::Text(settings.equation.name().into()));
    s.push("dimensions", Value::Int(settings.dimensions as i64));
    s.push("order", Value::Int(n as i64));
    s.push("cells", Value::Int(cells as i64));
    s.push("dofs", Value::Int(dofs as i64));
    s.push("rk", Value::Text(settings.rk.clone()));
    s.push("backend", Value::Text(ex.describe()));
    s.push("steps", Value::Int(outcome.iterations as i64));
    s.push("dt", Value::Real(method.dt()));
    s.push("time", Value::Real(time));
    s.push("stop", Value::Text(outcome.stop.label().into()));
    if let Some((l2, linf)) = errors.filter(|_| time == settings.final_time) {
        // The first variable (u, or the density) plainly; the momenta by
        // name.
        s.push("l2_error", Value::Real(l2[0]));
        s.push("linf_error", Value::Real(linf[0]));
        for (v, name) in problem::variable_names(&settings)
            .iter()
            .enumerate()
            .skip(1)
        {
            s.push(&format!("l2_error_{name}"), Value::Real(l2[v]));
            s.push(&format!("linf_error_{name}"), Value::Real(linf[v]));
        }
        s.push(
            "error_norms",
            Value::Text(
                "l2: Gauss-Lobatto quadrature on each cell (the mass matrix's); linf: at the nodes; l2_error and linf_error are of the first variable (u, or the density)"
                    .into(),
            ),
        );
    }
    s.add_speed(&outcome, cells);
    let rhs = outcome.steps_run as f64 * method.stages() as f64 * dofs as f64;
    if rhs > 0.0 {
        s.push("pid", Value::Real(outcome.wall_seconds / rhs));
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
