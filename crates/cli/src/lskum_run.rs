//! A q-LSKUM case from its file to its outputs, on any backend and rank
//! count: rank 0 reads or generates the cloud, checks it, renumbers it,
//! partitions it (several ranks) and builds the problem; the layer hands
//! every rank its part; the run driver runs the method; rank 0 writes the
//! outputs in the cloud's own numbering.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, Context, Result};

use qflow_lskum::decl::LOOPS;
use qflow_lskum::settings::Scheme;
use qflow_lskum::{method::Lskum, problem, Settings};
use qflow_mesh::partition::{Method as PartitionMethod, Partition};
use qflow_mesh::{renumber, Cloud};
use qflow_par::comm::{Comm, ExchangeMode};
use qflow_par::driver::history::Row;
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::driver::{self, OutputPhase, RunConfig};
use qflow_par::launch::{distribute, executor, Catalog};
use qflow_par::Exec;

use crate::case::{prepare_output_dir, CaseFile};
use crate::lskum_case::{choose_numbering, load_cloud, problem_key, LskumCase};
use crate::run::{add_rank_reports, Finished, RunOptions};

/// What rank 0 keeps of the setup for the outputs.
struct Root {
    cloud: Cloud,
    name: String,
    /// Problem point of each cloud point.
    new_of_old: Vec<u32>,
    numbering: String,
    /// The stencils in the problem's numbering (the Newton-Krylov
    /// scheme's preconditioner).
    stencils: Vec<Vec<usize>>,
    fingerprint: u64,
    setup_seconds: f64,
    /// The output folder, held until the run ends.
    _lock: crate::case::OutputLock,
}

/// The owner of every problem point for `ranks` ranks.
fn partition(
    internal: &Cloud,
    new_of_old: &[u32],
    ranks: usize,
    choice: Option<&str>,
    dir: &Path,
) -> Result<Vec<u32>> {
    let p = match choice.unwrap_or("metis") {
        "metis" => Partition::new(internal, ranks, PartitionMethod::Metis)?,
        "rcb" => Partition::new(internal, ranks, PartitionMethod::Rcb)?,
        other => match other.strip_prefix("file:") {
            Some(f) => {
                // A partition file numbers the cloud's own points.
                let path = dir.join(f);
                let user = Partition::read(&path, internal.len(), Some(ranks))?;
                let mut part = vec![0u32; internal.len()];
                for (old, &new) in new_of_old.iter().enumerate() {
                    part[new as usize] = user.part()[old];
                }
                Partition::from_parts(ranks, part)?
            }
            None => anyhow::bail!("--partitioner {other}: expected metis, rcb or file:PATH"),
        },
    };
    Ok(p.part().to_vec())
}

/// Runs a q-LSKUM case on every rank of `comm`.
pub fn run(comm: Box<dyn Comm>, case: &CaseFile, opts: &RunOptions) -> Result<Finished> {
    let lc: LskumCase = case.get()?;
    lc.validate()
        .with_context(|| format!("case file {}", case.path.display()))?;
    let settings = lc.settings();
    let out_dir = lc.output.folder(case, opts.output.as_deref())?;
    let rank0 = comm.rank() == 0;
    let ranks = comm.size();
    let t = Instant::now();
    let mut root: Option<Root> = None;
    let setup = if rank0 {
        Some(
            (|| -> Result<_> {
                let lock = prepare_output_dir(&out_dir)?;
                let (cloud, name) = load_cloud(&lc, &case.dir)?;
                let (new_of_old, numbering) = choose_numbering(&cloud, lc.solver.renumber);
                let internal = cloud.permuted(&new_of_old);
                let problem = problem::build(&internal, &settings);
                let owners = if ranks > 1 {
                    Some(partition(
                        &internal,
                        &new_of_old,
                        ranks,
                        opts.partitioner.as_deref(),
                        &case.dir,
                    )?)
                } else {
                    None
                };
                drop(internal);
                let fingerprint = crate::lskum_case::fingerprint(&cloud);
                root = Some(Root {
                    cloud,
                    name,
                    new_of_old,
                    numbering,
                    stencils: if settings.scheme == Scheme::NewtonKrylov {
                        problem::stencil_rows(&problem)
                    } else {
                        Vec::new()
                    },
                    fingerprint,
                    setup_seconds: 0.0,
                    _lock: lock,
                });
                Ok((problem, owners))
            })()
            .map_err(|e| format!("{e:#}")),
        )
    } else {
        None
    };
    let catalog = Catalog::of(&LOOPS, &qflow_lskum::decl::DATS);
    let part = distribute(&*comm, setup, &LOOPS, &catalog, false).map_err(|e| anyhow!(e))?;
    let part = Arc::new(part);
    let points = part
        .set(&qflow_lskum::decl::POINTS)
        .map_or(0, |s| s.global_len);
    let method = Lskum::new(settings.clone(), points);
    let mode = opts.exchange.unwrap_or(ExchangeMode::Nonblocking);
    let mut ex = executor(comm, part, &method, &opts.backend, mode).map_err(|e| anyhow!(e))?;
    let mut method = method;
    if let Some(r) = root.as_mut() {
        method.set_user_numbering(renumber::inverse(&r.new_of_old).into());
        method.set_stencils(std::mem::take(&mut r.stencils));
        r.setup_seconds = t.elapsed().as_secs_f64();
    }
    let max_iters = opts.max_iters.unwrap_or(lc.stop.max_iters);
    let config = RunConfig {
        max_iters,
        residue_drop: lc.stop.residue_drop,
        final_time: None,
        checkpoint_every: lc.output.checkpoint_every,
        out_dir: Some(out_dir.clone()),
        resume: opts.resume,
        quiet: opts.quiet,
        problem_key: problem_key(&settings),
        fingerprint: root.as_ref().map_or(0, |r| r.fingerprint),
        user_numbering: root
            .as_ref()
            .map(|r| vec![("points", renumber::inverse(&r.new_of_old))])
            .unwrap_or_default(),
    };
    if let Some(r) = &root {
        if !opts.quiet {
            crate::errln!(
                "qflow: {} ({} points, numbering {}), {}, {} with {} inner iterations, M {} at {} deg, up to {} iterations",
                r.name,
                points,
                r.numbering,
                ex.describe(),
                settings.scheme.name(),
                settings.inner_iterations,
                settings.mach,
                settings.aoa,
                max_iters
            );
        }
    }
    let vtk = lc.output.vtk;
    let plots = lc.output.plots;
    let pieces = opts.vtk_pieces;
    let outcome = {
        let root = root.as_ref();
        let mut outputs = |ex: &mut Exec, rows: &[Row], phase: OutputPhase| -> Result<(), String> {
            if phase != OutputPhase::Final {
                return Ok(());
            }
            let root = root.map(|r| (&r.cloud, r.new_of_old.as_slice()));
            crate::lskum_outputs::write_outputs(
                ex,
                root,
                &out_dir,
                rows,
                &settings,
                vtk && !pieces,
                plots,
            )?;
            if vtk && pieces {
                crate::lskum_outputs::write_pieces(ex, &out_dir, &settings)?;
            }
            Ok(())
        };
        driver::run(&mut method, &mut ex, &config, &mut outputs)?
    };
    let mut summary = root.as_ref().map(|r| {
        let mut s = Summary::default();
        s.push("case", Value::Text(case.path.display().to_string()));
        s.push("method", Value::Text("lskum".into()));
        s.push("cloud", Value::Text(r.name.clone()));
        s.push("points", Value::Int(points as i64));
        s.push("numbering", Value::Text(r.numbering.clone()));
        s.push("backend", Value::Text(ex.describe()));
        s.push("scheme", Value::Text(scheme_label(&settings)));
        s.push(
            "inner_iterations",
            Value::Int(settings.inner_iterations as i64),
        );
        s.push("iterations", Value::Int(outcome.iterations as i64));
        s.push("stop", Value::Text(outcome.stop.label().into()));
        // No iteration done (a run stopped in its first): no residue or
        // forces to report, rather than zeros (as fv leaves out its rms).
        if let Some(last) = outcome.history.last() {
            for (k, v) in qflow_lskum::method::COLUMNS.iter().zip(&last.values) {
                s.push(k, Value::Real(*v));
            }
        }
        s.add_speed(&outcome, points);
        s.push(
            "bytes_per_point",
            Value::Real(ex.bytes() as f64 / points.max(1) as f64 * ex.ranks() as f64),
        );
        if ex.ranks() > 1 {
            s.push("setup_seconds", Value::Real(r.setup_seconds));
        }
        s.push("output", Value::Text(out_dir.display().to_string()));
        s
    });
    if ex.ranks() > 1 {
        add_rank_reports(
            &ex,
            &qflow_lskum::decl::POINTS,
            outcome.steps_run,
            summary.as_mut(),
        );
    }
    if let Some(s) = &summary {
        s.write(&out_dir.join("summary.toml"))
            .context("writing the summary")?;
    }
    Ok(Finished {
        summary,
        stop: outcome.stop,
        out_dir,
    })
}

/// The scheme and its stage count, as the summary shows them.
pub fn scheme_label(s: &Settings) -> String {
    let n = s.scheme.stages();
    format!(
        "{} ({n} stage{})",
        s.scheme.name(),
        if n == 1 { "" } else { "s" }
    )
}
