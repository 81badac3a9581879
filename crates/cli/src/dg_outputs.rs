//! Nodal DG's outputs.
//!
//! Outputs: `solution.csv` (the nodes: `x[,y]`, then each variable and
//! its exact value: `u,u_exact` or `rho,rho_u[,rho_v],rho_exact,...`),
//! `history.csv`, in 1D `solution.png` (computed nodes of `u` or the
//! density beside the exact solution), in 2D `field.vtu` (every variable;
//! a cell of the picture per node, bounded half-way between nodes) and
//! `field.png` (`u` or the density: the cells' polynomials sampled on a
//! uniform grid), in 3D `field.vtr` (a rectilinear grid, a cell per node,
//! every variable) and `field.png` (the plane `[picture]`, z = 1/4 unless
//! the case says another).

use std::path::Path;

use anyhow::{anyhow, Result};

use qflow_dg::gll::Gll;
use qflow_dg::{problem, Settings};
use qflow_io::plot::{GridField, LinePlot, Series, Style};
use qflow_mesh::poly::PolyMesh;

use crate::dg_case::{Axis, Plane};
use qflow_par::driver::summary::{Summary, Value};
use qflow_par::driver::Method;

use crate::dg_run::DgRun;
use crate::pipeline::{Ran, Verdict};
use qflow_dg::Dg;

/// The boundaries of the picture cells of one direction: each DG cell's
/// `n` nodes get the interval from half-way to the node before to half-way
/// to the node after (the cell's faces at its ends).
fn node_intervals(cells: usize, n: usize, h: f64, gll: &Gll) -> Vec<f64> {
    let mut b = Vec::with_capacity(cells * n + 1);
    for c in 0..cells {
        b.push(c as f64 * h);
        for i in 1..n {
            let (a, z) = (
                problem::node_position(gll, c, i - 1, h),
                problem::node_position(gll, c, i, h),
            );
            b.push(0.5 * (a + z));
        }
    }
    b.push(cells as f64 * h);
    b
}

/// Writes a 3D solution as `field.vtr`: a rectilinear grid with a cell per
/// node, bounded half-way between nodes (as the 2D `field.vtu`), every
/// variable as cell data.
fn write_field_3d(settings: &Settings, u: &[f64], path: &Path) -> Result<()> {
    let n = settings.order;
    let gll = Gll::new(n).map_err(|e| anyhow!("{e}"))?;
    let [cx, cy, cz] = settings.grid();
    let h = settings.spacing();
    let bounds = [
        node_intervals(cx, n, h[0], &gll),
        node_intervals(cy, n, h[1], &gll),
        node_intervals(cz, n, h[2], &gll),
    ];
    let (len, stride) = (
        problem::element_len(settings),
        problem::variable_stride(settings),
    );
    let names = problem::variable_names(settings);
    let (gx, gy) = (cx * n, cy * n);
    let mut grids = vec![vec![0.0; gx * gy * cz * n]; names.len()];
    for (e, chunk) in u.chunks_exact(len).enumerate() {
        let (ex, ey, ez) = (e % cx, e / cx % cy, e / (cx * cy));
        for (v, grid) in grids.iter_mut().enumerate() {
            for k in 0..n {
                for j in 0..n {
                    for i in 0..n {
                        let at = ((ez * n + k) * gy + ey * n + j) * gx + ex * n + i;
                        grid[at] = chunk[v * stride + (k * n + j) * n + i];
                    }
                }
            }
        }
    }
    let fields: Vec<(&str, &[f64])> = names
        .iter()
        .zip(&grids)
        .map(|(name, g)| (*name, g.as_slice()))
        .collect();
    qflow_io::vtk::write_rectilinear_vtr(path, [&bounds[0], &bounds[1], &bounds[2]], &fields)?;
    Ok(())
}

/// The Lagrange basis of the nodes `xi` at `x`: `l_i(x)` for every node.
fn lagrange(xi: &[f64], x: f64) -> Vec<f64> {
    (0..xi.len())
        .map(|i| {
            (0..xi.len())
                .filter(|&k| k != i)
                .map(|k| (x - xi[k]) / (xi[i] - xi[k]))
                .product()
        })
        .collect()
}

/// Writes `solution.csv` and the pictures of the final nodal values `u`
/// (the block's elements as gathered).
pub fn write_outputs(
    settings: &Settings,
    u: &[f64],
    dir: &Path,
    vtk: bool,
    plots: bool,
    plane: Plane,
) -> Result<()> {
    let len = problem::element_len(settings);
    let (stride, names) = (
        problem::variable_stride(settings),
        problem::variable_names(settings),
    );
    let vars = names.len();
    let t = settings.final_time;
    let exact = problem::ExactSolution::new(settings);
    // Per node: its position, the variables, their exact values.
    type State = [f64; problem::MAX_VARIABLES];
    let mut nodes: Vec<([f64; 3], State, State)> = Vec::new();
    problem::for_each_node(settings, |e, k, p| {
        let mut q = [0.0; problem::MAX_VARIABLES];
        for (v, qv) in q.iter_mut().enumerate().take(vars) {
            *qv = u[e * len + v * stride + k];
        }
        nodes.push((p, q, exact.state(p, t)));
    });
    let dims = settings.dimensions;
    let path = dir.join("solution.csv");
    qflow_mesh::fsutil::write_atomically(&path, |w| {
        use std::io::Write;
        let mut header: Vec<String> = ["x", "y", "z"][..dims]
            .iter()
            .map(|c| c.to_string())
            .collect();
        header.extend(names.iter().map(|n| n.to_string()));
        header.extend(names.iter().map(|n| format!("{n}_exact")));
        writeln!(w, "{}", header.join(","))?;
        for (p, q, e) in &nodes {
            let row: Vec<String> = p[..dims]
                .iter()
                .chain(q.iter().take(vars))
                .chain(e.iter().take(vars))
                .map(|v| format!("{v:?}"))
                .collect();
            writeln!(w, "{}", row.join(","))?;
        }
        Ok(())
    })?;
    if dims == 3 {
        // 3D: field.vtr, a VTK cell per node, and the picture of the plane
        // `[picture]` (z = 1/4 by default, where the sine mode peaks).
        if vtk {
            write_field_3d(settings, u, &dir.join("field.vtr"))?;
        }
        if plots {
            plot_field(settings, u, names[0], Some(plane), &dir.join("field.png"))?;
        }
        return Ok(());
    }
    let n = settings.order;
    let [cx, cy, _] = settings.grid();
    if dims == 1 {
        if plots {
            let computed: Vec<(f64, f64)> = nodes.iter().map(|p| (p.0[0], p.1[0])).collect();
            let exact: Vec<(f64, f64)> = (0..=2000)
                .map(|k| {
                    let x = k as f64 / 2000.0;
                    (x, exact.at([x, 0.0, 0.0], t))
                })
                .collect();
            let series = [
                Series {
                    label: "computed (nodes)",
                    points: &computed,
                    style: Style::Points,
                },
                Series {
                    label: "exact",
                    points: &exact,
                    style: Style::Line,
                },
            ];
            let title = format!("{cx} cells, order {n} ({}), t = {t}", settings.rk);
            let plot = LinePlot {
                title: &title,
                x_label: "x",
                y_label: names[0],
                series: &series,
                log_x: false,
                log_y: false,
            };
            crate::run::picture(
                qflow_io::plot::plot_lines(&dir.join("solution.png"), &plot, (1200, 700)),
                "the solution",
            )?;
        }
        return Ok(());
    }
    // 2D: a picture cell per node, in grid order (x fastest), per variable.
    let (gx, gy) = (cx * n, cy * n);
    let mut grids = vec![vec![0.0; gx * gy]; vars];
    for (e, chunk) in u.chunks_exact(len).enumerate() {
        let (ex, ey) = (e % cx, e / cx);
        for (v, grid) in grids.iter_mut().enumerate() {
            for j in 0..n {
                for i in 0..n {
                    grid[(ey * n + j) * gx + ex * n + i] = chunk[v * stride + n * j + i];
                }
            }
        }
    }
    if vtk {
        let gll = Gll::new(n).map_err(|e| anyhow!("{e}"))?;
        let [hx, hy, _] = settings.spacing();
        let (xs, ys) = (
            node_intervals(cx, n, hx, &gll),
            node_intervals(cy, n, hy, &gll),
        );
        let mut x = Vec::with_capacity(xs.len() * ys.len());
        for yv in &ys {
            for xv in &xs {
                x.push([*xv, *yv]);
            }
        }
        let id = |i: usize, j: usize| (j * xs.len() + i) as u32;
        let mut mesh = PolyMesh {
            x,
            ..PolyMesh::default()
        };
        for j in 0..gy {
            for i in 0..gx {
                mesh.push_cell(&[id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        let fields: Vec<(&str, &[f64])> = names
            .iter()
            .zip(&grids)
            .map(|(name, g)| (*name, g.as_slice()))
            .collect();
        qflow_io::vtk::write_cells_vtu(&dir.join("field.vtu"), &mesh, &fields)?;
    }
    if plots {
        plot_field(settings, u, names[0], None, &dir.join("field.png"))?;
    }
    Ok(())
}

/// Plots the first variable of `u` as `field.png` ([`field_samples`]).
fn plot_field(
    settings: &Settings,
    u: &[f64],
    name: &str,
    slice: Option<Plane>,
    path: &Path,
) -> Result<()> {
    let (samples, nx, ny) = field_samples(settings, u, slice)?;
    let label = match slice {
        Some(p) => format!("{name} at {} = {}", AXES[p.normal.index()], p.at),
        None => name.to_string(),
    };
    let [h, v] = picture_axes(slice);
    let field = GridField {
        nx,
        ny,
        x: (0.0, 1.0),
        y: (0.0, 1.0),
        values: &samples,
        name: &label,
        axes: [AXES[h], AXES[v]],
    };
    crate::run::picture(
        qflow_io::plot::plot_grid_field(path, &field, 20, (900, 800)),
        "the field",
    )
}

/// The coordinates' names.
const AXES: [&str; 3] = ["x", "y", "z"];

/// The coordinates along a picture's width and height: of the plane
/// `slice` in 3D (the other two, in order), x and y in 2D.
fn picture_axes(slice: Option<Plane>) -> [usize; 2] {
    match slice.map(|p| p.normal) {
        Some(Axis::X) => [1, 2],
        Some(Axis::Y) => [0, 2],
        Some(Axis::Z) | None => [0, 1],
    }
}

/// The first variable of `u` sampled on a uniform grid over the unit
/// square, 8 samples per cell and direction at the samples' centres (the
/// nodes cluster at the faces): the cells' polynomials; in 3D on the plane
/// `slice` (the layer of cells it cuts, their polynomials there), its
/// width and height the other two coordinates in order ([`picture_axes`]).
/// Returns the samples (across fastest) and their counts across and up.
fn field_samples(
    settings: &Settings,
    u: &[f64],
    slice: Option<Plane>,
) -> Result<(Vec<f64>, usize, usize)> {
    let n = settings.order;
    let len = problem::element_len(settings);
    let cells = settings.grid();
    let gll = Gll::new(n).map_err(|e| anyhow!("{e}"))?;
    let m = 8;
    let basis: Vec<Vec<f64>> = (0..m)
        .map(|s| lagrange(&gll.nodes, -1.0 + (2 * s + 1) as f64 / m as f64))
        .collect();
    let [h, v] = picture_axes(slice);
    // The axis across the picture, the layer of cells the plane cuts and
    // the basis along that axis at its place (2D: z, one layer, one node).
    let (a, layer, la) = match slice {
        Some(p) => {
            let a = p.normal.index();
            let at = (p.at * cells[a] as f64).min(cells[a] as f64 - 1e-9);
            let layer = at.floor() as usize;
            (
                a,
                layer,
                lagrange(&gll.nodes, 2.0 * (at - layer as f64) - 1.0),
            )
        }
        None => (2, 0, vec![1.0]),
    };
    // A node's offset in its cell, per coordinate (x fastest).
    let stride = [1, n, n * n];
    let (sx, sy) = (cells[h] * m, cells[v] * m);
    let mut samples = vec![0.0; sx * sy];
    for ev in 0..cells[v] {
        for eh in 0..cells[h] {
            let mut c = [0; 3];
            (c[a], c[h], c[v]) = (layer, eh, ev);
            let e = (c[2] * cells[1] + c[1]) * cells[0] + c[0];
            let chunk = &u[e * len..(e + 1) * len];
            for (b, lb) in basis.iter().enumerate() {
                for (s, ls) in basis.iter().enumerate() {
                    let mut value = 0.0;
                    for (k, lk) in la.iter().enumerate() {
                        for (j, lj) in lb.iter().enumerate() {
                            for (i, li) in ls.iter().enumerate() {
                                let at = k * stride[a] + j * stride[v] + i * stride[h];
                                value += li * lj * lk * chunk[at];
                            }
                        }
                    }
                    samples[(ev * m + b) * sx + eh * m + s] = value;
                }
            }
        }
    }
    Ok((samples, sx, sy))
}

impl DgRun {
    /// Cells of the block.
    pub(crate) fn cells(&self) -> usize {
        self.case.dg.grid().iter().product()
    }

    /// Degrees of freedom (nodes) per variable.
    pub(crate) fn dofs(&self) -> usize {
        let s = &self.case.dg;
        self.cells() * s.order.pow(s.dimensions as u32)
    }

    /// The summary's fields of the run (after `case` and `method`).
    pub(crate) fn summary_fields(&self, s: &mut Summary, ran: &Ran<Dg>) -> Option<Verdict> {
        let (outcome, ex, method) = (ran.outcome, ran.ex, ran.method);
        let dg = &self.case.dg;
        let time = method.time().unwrap_or(0.0);
        s.push("equation", Value::Text(dg.equation.name().into()));
        s.push("dimensions", Value::Int(dg.dimensions as i64));
        s.push("order", Value::Int(dg.order as i64));
        s.push("cells", Value::Int(self.cells() as i64));
        s.push("dofs", Value::Int(self.dofs() as i64));
        s.push("rk", Value::Text(dg.rk.clone()));
        s.push("backend", Value::Text(ex.describe()));
        s.push("steps", Value::Int(outcome.iterations as i64));
        s.push("dt", Value::Real(method.dt()));
        s.push("time", Value::Real(time));
        s.push("stop", Value::Text(outcome.stop.label().into()));
        if let Some((l2, linf)) = self.errors.as_ref().filter(|_| time == dg.final_time) {
            // The first variable (u, or the density) plainly; the momenta
            // by name.
            s.push("l2_error", Value::Real(l2[0]));
            s.push("linf_error", Value::Real(linf[0]));
            for (v, name) in problem::variable_names(dg).iter().enumerate().skip(1) {
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
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 3D picture's samples on the plane z = 1/4 are the sine mode's
    /// there, `sin(2 pi x) sin(2 pi y)`, to the interpolation error; on
    /// the plane z = 1/2 (a node plane of the mode) they vanish.
    #[test]
    fn the_3d_picture_is_the_solution_on_its_plane() {
        let settings = Settings {
            dimensions: 3,
            order: 6,
            cells: vec![4, 4, 4],
            velocity: vec![1.0, 1.0, 1.0],
            ..Settings::default()
        };
        let len = problem::element_len(&settings);
        let [cx, cy, cz] = settings.grid();
        let mut u = vec![0.0; len * cx * cy * cz];
        let exact = problem::ExactSolution::new(&settings);
        problem::for_each_node(&settings, |e, k, p| u[e * len + k] = exact.at(p, 0.0));
        let z = |at| {
            Some(Plane {
                normal: Axis::Z,
                at,
            })
        };
        let (s, nx, ny) = field_samples(&settings, &u, z(0.25)).unwrap();
        let mut worst: f64 = 0.0;
        for j in 0..ny {
            for i in 0..nx {
                let (x, y) = ((i as f64 + 0.5) / nx as f64, (j as f64 + 0.5) / ny as f64);
                let want =
                    (2.0 * std::f64::consts::PI * x).sin() * (2.0 * std::f64::consts::PI * y).sin();
                worst = worst.max((s[j * nx + i] - want).abs());
            }
        }
        assert!(worst < 1e-3, "{worst:e}");
        let (s, _, _) = field_samples(&settings, &u, z(0.5)).unwrap();
        assert!(s.iter().all(|v| v.abs() < 1e-3), "z = 1/2 is a node plane");
    }

    /// Planes across each axis: a polynomial of degree 3 in each
    /// coordinate, different in each (order 6 holds it exactly), sampled
    /// on the plane `normal = at` with the other two coordinates across
    /// and up in order, equals its values there to round-off.
    #[test]
    fn the_3d_picture_shows_the_plane_asked_for() {
        let settings = Settings {
            dimensions: 3,
            order: 6,
            cells: vec![3, 4, 5],
            velocity: vec![1.0, 1.0, 1.0],
            ..Settings::default()
        };
        let f = |p: [f64; 3]| p[0] + 10.0 * p[1] * p[1] + 100.0 * p[2].powi(3);
        let len = problem::element_len(&settings);
        let cells = settings.grid();
        let mut u = vec![0.0; len * cells.iter().product::<usize>()];
        problem::for_each_node(&settings, |e, k, p| u[e * len + k] = f(p));
        for (normal, at, axes) in [
            (Axis::X, 0.3, [1, 2]),
            (Axis::Y, 0.6, [0, 2]),
            (Axis::Z, 0.9, [0, 1]),
        ] {
            let plane = Plane { normal, at };
            let (s, nx, ny) = field_samples(&settings, &u, Some(plane)).unwrap();
            let [h, v] = picture_axes(Some(plane));
            assert_eq!([h, v], axes);
            assert_eq!((nx, ny), (8 * cells[h], 8 * cells[v]));
            let mut worst: f64 = 0.0;
            for j in 0..ny {
                for i in 0..nx {
                    let mut p = [0.0; 3];
                    p[normal.index()] = at;
                    p[h] = (i as f64 + 0.5) / nx as f64;
                    p[v] = (j as f64 + 0.5) / ny as f64;
                    worst = worst.max((s[j * nx + i] - f(p)).abs());
                }
            }
            assert!(worst < 1e-10, "{normal:?} = {at}: {worst:e}");
        }
    }
}
