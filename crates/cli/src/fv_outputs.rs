//! What a finite-volume run leaves behind, besides the history and the
//! summary: `surface.csv` (the pressure coefficient along each wall),
//! `field.vtu` of the cells, and the pictures `history.png`, `cp.png`
//! (surface pressure) and `mach.png` (the Mach field round the aerofoil).
//! Everything is in the mesh's own numbering, whatever renumbering the
//! run used.

use std::path::Path;

use anyhow::Result;

use qflow_fv::decl::Q;
use qflow_fv::forces::Coefficients;
use qflow_fv::method::COLUMNS;
use qflow_fv::problem::CellOrder;
use qflow_fv::{Fv, Settings};
use qflow_io::plot::{MachPoints, Window};
use qflow_io::surface::SurfaceRow;
use qflow_mesh::poly::PolyMesh;
use qflow_par::driver::history::Row;
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::driver::{RunOutcome, StopReason};
use qflow_par::{Exec, Values};

use crate::fv_run::{FvRun, Root};
use crate::pipeline::{Ran, Verdict};

/// Pixels of `mach.png`.
const MACH_SIZE: (u32, u32) = (1200, 900);

/// The primitive fields of the cells, as `(name, values)`: `rho`, `u`, `v`,
/// `p`, `Mach`.
pub fn cell_fields(q: &[f64], settings: &Settings) -> Vec<(&'static str, Vec<f64>)> {
    let n = q.len() / 4;
    let (gam, gm1) = (settings.gam, settings.gm1());
    let mut f: Vec<(&'static str, Vec<f64>)> = ["rho", "u", "v", "p", "Mach"]
        .iter()
        .map(|&k| (k, Vec::with_capacity(n)))
        .collect();
    for c in q.chunks_exact(4) {
        let (rho, u, v) = (c[0], c[1] / c[0], c[2] / c[0]);
        let p = gm1 * (c[3] - 0.5 * rho * (u * u + v * v));
        let mach = u.hypot(v) / (gam * p / rho).sqrt();
        for (k, x) in [rho, u, v, p, mach].into_iter().enumerate() {
            f[k].1.push(x);
        }
    }
    f
}

/// The wall's rows, body by body (`shape` 1, 2, ...: the chains of wall
/// edges, [`PolyMesh::boundary_chains`]) and in order along each: every
/// wall edge's midpoint, its x scaled to the body's chord, and the
/// pressure coefficient `(p - p_inf) / (rho_inf |u_inf|^2 / 2)` of its
/// cell. `index` is the boundary edge's number in the mesh.
pub fn wall_rows(mesh: &PolyMesh, q: &[f64], settings: &Settings) -> Vec<SurfaceRow> {
    let mut rows = Vec::new();
    for (k, chain) in mesh.boundary_chains(1).iter().enumerate() {
        let xs = chain
            .iter()
            .flat_map(|&b| mesh.bedge_nodes[b])
            .map(|n| mesh.x[n as usize][0]);
        let (lo, hi) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
        let chord = if hi > lo { hi - lo } else { 1.0 };
        for &b in &from_trailing_edge(mesh, chain) {
            let [n1, n2] = mesh.bedge_nodes[b];
            let (a, c) = (mesh.x[n1 as usize], mesh.x[n2 as usize]);
            let (x, y) = (0.5 * (a[0] + c[0]), 0.5 * (a[1] + c[1]));
            let s = &q[4 * mesh.bedge_cell[b] as usize..][..4];
            rows.push(SurfaceRow {
                index: b,
                shape: k as u32 + 1,
                x,
                y,
                x_over_c: (x - lo) / chord,
                cp: qflow_fv::forces::pressure_coefficient(s, settings),
            });
        }
    }
    rows
}

/// A closed chain of wall edges turned to start at the edge whose midpoint
/// has the largest x (an aerofoil's trailing edge), as the cp plot and
/// `surface.csv` expect (a mesh's wall edges may start anywhere: Gmsh's
/// and SU2's at the first curve's first node); an open chain as it is.
fn from_trailing_edge(mesh: &PolyMesh, chain: &[usize]) -> Vec<usize> {
    let (Some(&first), Some(&last)) = (chain.first(), chain.last()) else {
        return Vec::new();
    };
    let [a, b] = mesh.bedge_nodes[first];
    let [c, d] = mesh.bedge_nodes[last];
    let closed = chain.len() > 2 && (a == c || a == d || b == c || b == d);
    if !closed {
        return chain.to_vec();
    }
    let mid_x = |e: usize| {
        let [n1, n2] = mesh.bedge_nodes[e];
        mesh.x[n1 as usize][0] + mesh.x[n2 as usize][0]
    };
    let start = (0..chain.len())
        .max_by(|&i, &j| mid_x(chain[i]).total_cmp(&mid_x(chain[j])))
        .unwrap_or(0);
    let mut turned = chain[start..].to_vec();
    turned.extend_from_slice(&chain[..start]);
    turned
}

/// `surface.csv`: `x,y,cp` of the wall rows ([`wall_rows`]), in order
/// along each body.
fn write_surface(path: &Path, rows: &[SurfaceRow]) -> Result<()> {
    qflow_mesh::fsutil::write_atomically(path, |w| {
        use std::io::Write;
        writeln!(w, "x,y,cp")?;
        for r in rows {
            writeln!(w, "{:?},{:?},{:?}", r.x, r.y, r.cp)?;
        }
        Ok(())
    })?;
    Ok(())
}

/// The Mach field's points (the cell centres) and the bodies' outlines
/// (the wall chains' nodes).
fn mach_points(mesh: &PolyMesh, mach: &[f64]) -> MachPoints {
    let (mut x, mut y) = (
        Vec::with_capacity(mesh.cells()),
        Vec::with_capacity(mesh.cells()),
    );
    for c in 0..mesh.cells() {
        let [cx, cy] = mesh.cell_centroid(c);
        x.push(cx);
        y.push(cy);
    }
    let bodies = mesh
        .boundary_chains(1)
        .iter()
        .map(|chain| {
            chain
                .iter()
                .map(|&b| {
                    let p = mesh.x[mesh.bedge_nodes[b][0] as usize];
                    (p[0], p[1])
                })
                .collect()
        })
        .collect();
    MachPoints {
        x,
        y,
        mach: mach.to_vec(),
        bodies,
    }
}

/// The window of `mach.png`: half a chord round the bodies (their x range
/// as the chord), or the default unit-chord window without walls.
fn window_round(rows: &[SurfaceRow]) -> Option<Window> {
    let (lo, hi) = rows
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), r| (a.min(r.x), b.max(r.x)));
    let (ylo, yhi) = rows
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), r| (a.min(r.y), b.max(r.y)));
    if rows.is_empty() || hi <= lo {
        return None;
    }
    let c = hi - lo;
    Some(Window {
        x_min: lo - 0.5 * c,
        x_max: hi + 0.5 * c,
        y_min: 0.5 * (ylo + yhi) - 0.75 * c,
        y_max: 0.5 * (ylo + yhi) + 0.75 * c,
    })
}

/// Writes the outputs of the final state: `surface.csv`, `field.vtu` (if
/// `vtk`), `history.png`, `cp.png` and `mach.png` (if `plots`); returns
/// the walls' force coefficients (`None`: no wall, or not rank 0).
#[allow(clippy::too_many_arguments)]
pub fn write_outputs(
    ex: &mut Exec,
    mesh: &PolyMesh,
    order: &CellOrder,
    settings: &Settings,
    dir: &Path,
    rows: &[Row],
    vtk: bool,
    plots: bool,
) -> Result<Option<Coefficients>> {
    let mut forces = None;
    if let Some(Values::F64(q)) = ex.gather(&Q) {
        let q = order.in_mesh_order(&q, 4);
        forces = qflow_fv::forces::coefficients(mesh, &q, settings);
        let wall = wall_rows(mesh, &q, settings);
        write_surface(&dir.join("surface.csv"), &wall)?;
        let fields = cell_fields(&q, settings);
        if vtk {
            let named: Vec<(&str, &[f64])> =
                fields.iter().map(|(k, v)| (*k, v.as_slice())).collect();
            qflow_io::vtk::write_cells_vtu(&dir.join("field.vtu"), mesh, &named)?;
        }
        if plots {
            if !wall.is_empty() {
                crate::run::picture(
                    qflow_io::plot::plot_cp_rows(
                        &dir.join("cp.png"),
                        &wall,
                        settings.mach,
                        settings.aoa,
                        // As always drawn: for gamma 1.4 (OP2's 1.4f
                        // widened, `settings.gam`, differs in the 8th digit).
                        qflow_lskum::fields::sonic_pressure_coefficient(settings.mach),
                    ),
                    "the surface pressure",
                )?;
            }
            let mach = &fields.iter().find(|f| f.0 == "Mach").expect("listed").1;
            crate::run::picture(
                qflow_io::plot::plot_mach_points(
                    &dir.join("mach.png"),
                    &mach_points(mesh, mach),
                    window_round(&wall),
                    MACH_SIZE,
                ),
                "the Mach field",
            )?;
        }
    }
    if plots && !rows.is_empty() {
        crate::run::picture(
            qflow_io::plot::plot_history(
                &dir.join("history.png"),
                &COLUMNS,
                &crate::run::plot_rows(rows),
            ),
            "the history",
        )?;
    }
    Ok(forces)
}

impl FvRun {
    /// The summary's fields of a finite-volume run, and the verdict of
    /// its `[expect]` check.
    pub(crate) fn summary_fields(
        &self,
        root: &Root,
        s: &mut Summary,
        ran: &Ran<Fv>,
    ) -> Option<Verdict> {
        let (outcome, ex, method) = (ran.outcome, ran.ex, ran.method);
        let settings = &self.case.fv;
        // No iteration completed (the first one blew up): no rms to report.
        let rms = outcome.history.last().map(|r| r.values[0]);
        s.push("mesh", Value::Text(root.name.clone()));
        s.push("cells", Value::Int(method.cells() as i64));
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
        if let Some(f) = &self.forces {
            s.push("cl", Value::Real(f.cl));
            s.push("cd", Value::Real(f.cd));
            s.push("cm", Value::Real(f.cm));
        }
        self.verdict(s, outcome, rms)
    }

    /// The `[expect]` check of the final rms, into the summary.
    fn verdict(&self, s: &mut Summary, outcome: &RunOutcome, rms: Option<f64>) -> Option<Verdict> {
        let (expect, max_iters) = (self.case.expect.as_ref()?, self.case.stop.max_iters);
        match (&outcome.stop, rms) {
            // The expectation is of the case's own iteration count.
            (StopReason::MaxIterations, Some(rms)) if outcome.iterations == max_iters => {
                let (line, passed) = expect.verdict(rms);
                s.push("expected_rms", Value::Real(expect.rms));
                let check = if passed { "passed" } else { "failed" };
                s.push("check", Value::Text(check.into()));
                Some((line, passed))
            }
            (StopReason::MaxIterations, _) => {
                // Said, not silent: a user may think the check passed.
                // (Other stops say why themselves.)
                let at = format!(
                    "of iteration {max_iters}, the run stopped at {} ({})",
                    outcome.iterations,
                    outcome.stop.label()
                );
                s.push(
                    "check",
                    Value::Text(format!("not made: the expected rms is {at}")),
                );
                crate::errln!("[expect] rms not checked: it is {at}");
                None
            }
            _ => None,
        }
    }
}
