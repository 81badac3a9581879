//! q-LSKUM's outputs: `solution.dat`, `surface.csv`, `field.vtu` (or one
//! VTK piece per rank and `field.pvtu`) and the plots, in the cloud's own
//! numbering: the fields of the state ([`qflow_lskum::fields`]) handed to
//! the writers of `qflow-io` by name.

use std::path::Path;

use anyhow::Result;

use qflow_lskum::decl::{KIND, PRIM, X, Y};
use qflow_lskum::fields::{
    sonic_pressure_coefficient, PointFields, VTK_ACTIVE_SCALAR, VTK_VELOCITY,
};
use qflow_lskum::Lskum;
use qflow_lskum::{Settings, Vec4};
use qflow_mesh::{Cloud, PointKind};
use qflow_par::driver::history::Row;
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::launch::agree;
use qflow_par::{Exec, Values};

use crate::lskum_run::{LskumRun, Root};
use crate::pipeline::{Final, Ran};

/// The final outputs (collective: gathers the state; rank 0 gives the
/// cloud and the problem point of each cloud point): `solution.dat`,
/// `surface.csv`, `field.vtu` and the plots, in the cloud's numbering.
pub fn write_outputs(
    ex: &mut Exec,
    root: Option<(&Cloud, &[u32])>,
    dir: &Path,
    rows: &[Row],
    settings: &Settings,
    vtk: bool,
    plots: bool,
) -> Result<(), String> {
    let gathered = ex.gather(&PRIM);
    let written = match (root, gathered) {
        (Some((cloud, new_of_old)), Some(Values::F64(p))) => {
            let prim: Vec<Vec4> = new_of_old
                .iter()
                .map(|&new| {
                    p[4 * new as usize..4 * new as usize + 4]
                        .try_into()
                        .expect("4")
                })
                .collect();
            write_files(dir, cloud, &prim, rows, settings, vtk, plots).map_err(|e| format!("{e:#}"))
        }
        _ => Ok(()),
    };
    agree(ex.comm(), written)
}

/// Runs `f` on the VTK point data of `fields`: `rho`, `u`, `v`, `p`,
/// `Mach`, `Cp` and the velocity, `Mach` and the velocity active.
fn with_vtk_data<T>(fields: &PointFields, f: impl FnOnce(&qflow_io::vtk::PointData) -> T) -> T {
    let (scalars, vectors) = (fields.vtk_scalars(), fields.vtk_vectors());
    f(&qflow_io::vtk::PointData {
        scalars: &scalars,
        vectors: &vectors,
        active_scalar: Some(VTK_ACTIVE_SCALAR),
        active_vector: Some(VTK_VELOCITY),
    })
}

fn write_files(
    d: &Path,
    cloud: &Cloud,
    prim: &[Vec4],
    rows: &[Row],
    settings: &Settings,
    vtk: bool,
    plots: bool,
) -> Result<()> {
    let fs = settings.free_stream();
    let fields = PointFields::new(prim, &fs);
    qflow_io::table::write_table(&d.join("solution.dat"), cloud, &fields.table_columns())?;
    let shapes = cloud.shape.iter().any(|&s| s > 0);
    if shapes {
        qflow_io::surface::write_surface(&d.join("surface.csv"), cloud, &fields.surface_columns())?;
    }
    if vtk {
        with_vtk_data(&fields, |data| {
            qflow_io::vtk::write_vtu(&d.join("field.vtu"), cloud, data)
        })?;
    }
    if plots {
        if !rows.is_empty() {
            crate::run::picture(
                qflow_io::plot::plot_history(
                    &d.join("history.png"),
                    &qflow_lskum::method::COLUMNS,
                    &crate::run::plot_rows(rows),
                ),
                "the history",
            )?;
        }
        if shapes {
            crate::run::picture(
                qflow_io::plot::plot_surface_cp(
                    &d.join("cp.png"),
                    cloud,
                    &fields.cp,
                    fs.mach,
                    // The angle back from the free stream's radians.
                    fs.theta.to_degrees(),
                    sonic_pressure_coefficient(fs.mach),
                ),
                "the surface Cp",
            )?;
            crate::run::picture(
                qflow_io::plot::plot_mach_field(
                    &d.join("mach.png"),
                    cloud,
                    &fields.mach,
                    None,
                    (1200, 900),
                ),
                "the Mach field",
            )?;
        }
    }
    Ok(())
}

/// Every rank writes its owned points as one VTK piece; rank 0 writes the
/// index `field.pvtu` once all are written (collective).
pub fn write_pieces(ex: &mut Exec, dir: &Path, settings: &Settings) -> Result<(), String> {
    let rank = ex.rank();
    let name = |r: usize| format!("field-{r:05}.vtu");
    let set = ex
        .part()
        .set(&qflow_lskum::decl::POINTS)
        .expect("points")
        .clone();
    let owned = set.owned;
    let f = |v: Values| match v {
        Values::F64(v) => v,
        Values::I32(v) => v.into_iter().map(f64::from).collect(),
    };
    let x = f(ex.backend().read(&X));
    let y = f(ex.backend().read(&Y));
    let kind = ex.backend().read(&KIND);
    let prim = f(ex.backend().read(&PRIM));
    let Values::I32(kind) = kind else {
        unreachable!("kind is an i32 dat")
    };
    let piece = Cloud {
        x: x[..owned].to_vec(),
        y: y[..owned].to_vec(),
        kind: kind[..owned]
            .iter()
            .map(|&k| PointKind::from_code(k as i64).unwrap_or(PointKind::Interior))
            .collect(),
        left: vec![qflow_mesh::NO_POINT; owned],
        right: vec![qflow_mesh::NO_POINT; owned],
        shape: vec![0; owned],
        min_dist: vec![0.0; owned],
        nbr_start: vec![0; owned + 1],
        nbr: Vec::new(),
        quadtree: None,
    };
    let local: Vec<Vec4> = (0..owned)
        .map(|i| prim[4 * i..4 * i + 4].try_into().expect("4"))
        .collect();
    let points: Vec<u32> = (0..owned as u32).collect();
    let numbers: Vec<u64> = (0..owned)
        .map(|i| set.global_of(i).unwrap_or(0) as u64 + 1)
        .collect();
    let fields = PointFields::new(&local, &settings.free_stream());
    let written = with_vtk_data(&fields, |data| {
        qflow_io::vtk::write_vtu_piece(&dir.join(name(rank)), &piece, data, &points, &numbers)
    })
    .map_err(|e| e.to_string());
    agree(ex.comm(), written)?;
    let index = if rank == 0 {
        let files: Vec<String> = (0..ex.ranks()).map(name).collect();
        with_vtk_data(&fields, |data| {
            qflow_io::vtk::write_pvtu(&dir.join("field.pvtu"), &files, data)
        })
        .map_err(|e| e.to_string())
    } else {
        Ok(())
    };
    agree(ex.comm(), index)
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

impl LskumRun {
    /// The final outputs (collective): the gathered field, or one VTK
    /// piece per rank with `--vtk-pieces`.
    pub(crate) fn write_final(&self, root: Option<&Root>, at: Final<'_>) -> Result<(), String> {
        let Final {
            ex,
            rows,
            dir,
            opts,
        } = at;
        let (vtk, plots, pieces) = (
            self.case.output.vtk,
            self.case.output.plots,
            opts.vtk_pieces,
        );
        let root = root.map(|r| (&r.cloud, r.new_of_old.as_slice()));
        write_outputs(ex, root, dir, rows, &self.settings, vtk && !pieces, plots)?;
        if vtk && pieces {
            write_pieces(ex, dir, &self.settings)?;
        }
        Ok(())
    }

    /// The summary's fields of a q-LSKUM run (after `case` and `method`).
    pub(crate) fn summary_fields(&self, r: &Root, s: &mut Summary, ran: &Ran<Lskum>) {
        let (outcome, ex) = (ran.outcome, ran.ex);
        let settings = &self.settings;
        s.push("cloud", Value::Text(r.name.clone()));
        s.push("points", Value::Int(r.cloud.len() as i64));
        s.push("numbering", Value::Text(r.numbering.clone()));
        s.push("backend", Value::Text(ex.describe()));
        s.push("scheme", Value::Text(scheme_label(settings)));
        let inner = settings.inner_iterations as i64;
        s.push("inner_iterations", Value::Int(inner));
        s.push("iterations", Value::Int(outcome.iterations as i64));
        s.push("stop", Value::Text(outcome.stop.label().into()));
        // No iteration done (a run stopped in its first): no residue or
        // forces to report, rather than zeros (as fv leaves out its rms).
        if let Some(last) = outcome.history.last() {
            for (k, v) in qflow_lskum::method::COLUMNS.iter().zip(&last.values) {
                s.push(k, Value::Real(*v));
            }
        }
    }
}
