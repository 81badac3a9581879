//! What a Lax-Wendroff run leaves behind, besides the history and the
//! summary: `solution.csv` (`x, y, rho, u, v, p` at the cell points),
//! `field.vtu` of the cells, and the pictures `history.png`, `density.png`
//! and `pressure.png` (filled contours: the shock pattern) and
//! `centreline.png` (density and pressure along `y = 0.5` beside the exact
//! solution).

use std::path::Path;

use anyhow::Result;

use qflow_io::plot::{GridField, LinePlot, Series, Style};
use qflow_lw::analysis::Solution;
use qflow_lw::problem::primitive;
use qflow_lw::settings::{Grid, Settings, DOMAIN};
use qflow_mesh::poly::PolyMesh;
use qflow_par::driver::history::Row;
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::driver::Method;

use crate::lw_run::LwRun;
use crate::pipeline::{Ran, Verdict};
use qflow_lw::Lw;

/// Pixels of the contour pictures.
const FIELD_SIZE: (u32, u32) = (1600, 600);
/// Colour bands of the contour pictures.
const LEVELS: usize = 20;
/// Pixels of the centre-line plot.
const LINE_SIZE: (u32, u32) = (1200, 700);

/// The primitive fields `rho, u, v, p` of the interior cells (grid order).
pub fn primitive_fields(q: &[[f64; 4]], gamma: f64) -> [Vec<f64>; 4] {
    let mut f: [Vec<f64>; 4] = Default::default();
    for c in q {
        let p = primitive(c, gamma);
        for (k, x) in [p.rho, p.u, p.v, p.p].into_iter().enumerate() {
            f[k].push(x);
        }
    }
    f
}

/// The measures of the final state against the exact solution, as
/// summary entries: the density's L1 error, the shocks' angles and
/// positions along `y = 0.5`, the plateaus of regions 2 and 3
/// ([`qflow_lw::analysis`]), each beside its exact value.
pub fn measures(grid: &Grid, settings: &Settings, q: &[[f64; 4]]) -> Vec<(String, f64)> {
    let Ok(ex) = qflow_lw::problem::shock(settings) else {
        return Vec::new();
    };
    let s = Solution {
        grid,
        setup: settings.setup,
        q,
        gamma: settings.gamma,
    };
    let m = s.measure(&ex);
    let mut out = vec![
        ("l1_density_error".to_string(), s.l1_density_error(&ex)),
        ("incident_angle".into(), m.incident_angle),
        (
            "incident_angle_exact".into(),
            ex.incident_angle.to_degrees(),
        ),
        ("reflected_angle".into(), m.reflected_angle),
        (
            "reflected_angle_exact".into(),
            ex.reflected_angle.to_degrees(),
        ),
        ("incident_x_at_half_height".into(), m.at_half_height[0]),
        ("incident_x_at_half_height_exact".into(), ex.incident_x(0.5)),
        ("reflected_x_at_half_height".into(), m.at_half_height[1]),
        (
            "reflected_x_at_half_height_exact".into(),
            ex.reflected_x(0.5),
        ),
    ];
    for (name, got, want) in [
        ("region2", m.region2, ex.region2),
        ("region3", m.region3, ex.region3),
    ] {
        for (k, g, w) in [
            ("rho", got.rho, want.rho),
            ("u", got.u, want.u),
            ("v", got.v, want.v),
            ("p", got.p, want.p),
        ] {
            out.push((format!("{name}_{k}"), g));
            out.push((format!("{name}_{k}_exact"), w));
        }
    }
    out
}

/// The grid as a quadrilateral mesh: cell `(i, j)` around its point.
fn grid_mesh(grid: &Grid, settings: &Settings) -> PolyMesh {
    let [dx, dy] = grid.spacing();
    let [x0, y0] = grid.point(0, 0, settings.setup);
    let (x0, y0) = (x0 - 0.5 * dx, y0 - 0.5 * dy);
    let mut x = Vec::with_capacity((grid.nx + 1) * (grid.ny + 1));
    for j in 0..=grid.ny {
        for i in 0..=grid.nx {
            x.push([x0 + i as f64 * dx, y0 + j as f64 * dy]);
        }
    }
    let n = |i: usize, j: usize| (j * (grid.nx + 1) + i) as u32;
    let mut mesh = PolyMesh {
        x,
        ..PolyMesh::default()
    };
    for j in 0..grid.ny {
        for i in 0..grid.nx {
            mesh.push_cell(&[n(i, j), n(i + 1, j), n(i + 1, j + 1), n(i, j + 1)]);
        }
    }
    mesh
}

/// `solution.csv`: a header row, then `x, y, rho, u, v, p` of every cell
/// point, `i` fastest.
fn write_solution(path: &Path, grid: &Grid, settings: &Settings, f: &[Vec<f64>; 4]) -> Result<()> {
    qflow_mesh::fsutil::write_atomically(path, |w| {
        use std::io::Write;
        writeln!(w, "x,y,rho,u,v,p")?;
        for j in 0..grid.ny {
            for i in 0..grid.nx {
                let [x, y] = grid.point(i, j, settings.setup);
                let c = j * grid.nx + i;
                writeln!(
                    w,
                    "{x:?},{y:?},{:?},{:?},{:?},{:?}",
                    f[0][c], f[1][c], f[2][c], f[3][c]
                )?;
            }
        }
        Ok(())
    })?;
    Ok(())
}

/// `centreline.png`: density and pressure along the row nearest `y =
/// 0.5`, computed (points) and exact (lines, at the row's height).
fn plot_centreline(path: &Path, grid: &Grid, settings: &Settings, f: &[Vec<f64>; 4]) -> Result<()> {
    let j = grid.ny / 2;
    let y = grid.point(0, j, settings.setup)[1];
    let xs: Vec<f64> = (0..grid.nx)
        .map(|i| grid.point(i, j, settings.setup)[0])
        .collect();
    let at = |k: usize| -> Vec<(f64, f64)> {
        xs.iter()
            .enumerate()
            .map(|(i, &x)| (x, f[k][j * grid.nx + i]))
            .collect()
    };
    let (rho, p) = (at(0), at(3));
    let mut exact_rho = Vec::new();
    let mut exact_p = Vec::new();
    if let Ok(ex) = qflow_lw::problem::shock(settings) {
        // Fine enough to draw the jumps as steep lines.
        let n = 4000;
        for k in 0..=n {
            let x = DOMAIN[0] * k as f64 / n as f64;
            let s = ex.state_at(x, y);
            exact_rho.push((x, s.rho));
            exact_p.push((x, s.p));
        }
    }
    let series = [
        Series {
            label: "density",
            points: &rho,
            style: Style::Points,
        },
        Series {
            label: "density, exact",
            points: &exact_rho,
            style: Style::Line,
        },
        Series {
            label: "pressure",
            points: &p,
            style: Style::Points,
        },
        Series {
            label: "pressure, exact",
            points: &exact_p,
            style: Style::Line,
        },
    ];
    let title = format!(
        "{} x {}, {} viscosity: along y = {y:.4}",
        grid.nx,
        grid.ny,
        settings.viscosity.name()
    );
    let plot = LinePlot {
        title: &title,
        x_label: "x",
        y_label: "density, pressure",
        series: &series,
        log_x: false,
        log_y: false,
    };
    crate::run::picture(
        qflow_io::plot::plot_lines(path, &plot, LINE_SIZE),
        "the centre line",
    )
}

/// Writes the outputs of the final state `q` (interior cells, grid
/// order): `solution.csv`, `field.vtu` (if `vtk`) and the pictures (if
/// `plots`).
pub fn write_outputs(
    grid: &Grid,
    settings: &Settings,
    q: &[[f64; 4]],
    dir: &Path,
    rows: &[Row],
    vtk: bool,
    plots: bool,
) -> Result<()> {
    let f = primitive_fields(q, settings.gamma);
    write_solution(&dir.join("solution.csv"), grid, settings, &f)?;
    if vtk {
        let named: Vec<(&str, &[f64])> = ["rho", "u", "v", "p"]
            .iter()
            .zip(&f)
            .map(|(k, v)| (*k, v.as_slice()))
            .collect();
        qflow_io::vtk::write_cells_vtu(&dir.join("field.vtu"), &grid_mesh(grid, settings), &named)?;
    }
    if plots {
        for (k, name, file) in [
            (0, "density", "density.png"),
            (3, "pressure", "pressure.png"),
        ] {
            let field = GridField {
                nx: grid.nx,
                ny: grid.ny,
                x: (0.0, DOMAIN[0]),
                y: (0.0, DOMAIN[1]),
                values: &f[k],
                name,
                axes: ["x", "y"],
            };
            crate::run::picture(
                qflow_io::plot::plot_grid_field(&dir.join(file), &field, LEVELS, FIELD_SIZE),
                &format!("the {name}"),
            )?;
        }
        plot_centreline(&dir.join("centreline.png"), grid, settings, &f)?;
        if !rows.is_empty() {
            // The rate of change against time, on a log scale: how the
            // flow settles.
            let rate: Vec<(f64, f64)> = rows.iter().map(|r| (r.values[0], r.values[1])).collect();
            let series = [Series {
                label: "",
                points: &rate,
                style: Style::Line,
            }];
            let plot = LinePlot {
                title: "History: the largest change of density per unit time",
                x_label: "time",
                y_label: "max |d rho / dt|",
                series: &series,
                log_x: false,
                log_y: true,
            };
            crate::run::picture(
                qflow_io::plot::plot_lines(&dir.join("history.png"), &plot, LINE_SIZE),
                "the history",
            )?;
        }
    }
    Ok(())
}

impl LwRun {
    /// The summary's fields of the run (after `case` and `method`).
    pub(crate) fn summary_fields(&self, s: &mut Summary, ran: &Ran<Lw>) -> Option<Verdict> {
        let (outcome, ex, method) = (ran.outcome, ran.ex, ran.method);
        let (grid, settings) = (&self.case.grid, &self.case.lw);
        s.push("nx", Value::Int(grid.nx as i64));
        s.push("ny", Value::Int(grid.ny as i64));
        s.push("cells", Value::Int((grid.nx * grid.ny) as i64));
        s.push("backend", Value::Text(ex.describe()));
        s.push("viscosity", Value::Text(settings.viscosity.name().into()));
        s.push("wall", Value::Text(settings.wall.name().into()));
        s.push("setup", Value::Text(settings.setup.name().into()));
        s.push("steps", Value::Int(outcome.iterations as i64));
        s.push("dt", Value::Real(method.dt()));
        s.push("time", Value::Real(method.time().unwrap_or(0.0)));
        s.push("stop", Value::Text(outcome.stop.label().into()));
        for (k, v) in &self.measured {
            // A shock the analysis cannot find (a run stopped early, a
            // coarse grid) is said so, not written as NaN.
            if v.is_finite() {
                s.push(k, Value::Real(*v));
            } else {
                s.push(k, Value::Text("not found".into()));
            }
        }
        None
    }
}
