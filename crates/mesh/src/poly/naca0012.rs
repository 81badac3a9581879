//! The NACA 0012 C-type quadrilateral mesh of OP2's Airfoil application, as
//! its MATLAB/Octave generator `apps/mesh_generators/naca0012.m` makes it
//! (read, not copied; `docs/fv.md` describes the construction):
//!
//! 1. the upper surface at `x = sin^2 t`, `t` evenly spaced in `[0, pi/2]`
//!    (100 stations), with the NACA 0012 thickness polynomial (scaled by
//!    0.594689181, closed at the trailing edge);
//! 2. the square-root map `w = sqrt(z - 0.0077)` opens the section around
//!    its leading-edge focus into a nearly flat curve; a not-a-knot cubic
//!    spline through its image (both surfaces, 199 points) gives the curve
//!    `eta_b(xi)`;
//! 3. the computational grid: `3I + 1` columns evenly spaced in
//!    `xi in [-3, 3]`, each column from `eta_b(xi)` (0 outside
//!    `|xi| < 1`) to `eta = 3` in `J` equal steps;
//! 4. squaring back, `z = (xi + i eta)^2`: a C-mesh whose cut runs from the
//!    trailing edge to `x = 9`, with the far field on the parabola
//!    `x = y^2 / 36 - 9`.
//!
//! Node `(i, j)` is `i + j (3I + 1)`, cell `(i, j)` is `i + 3I j`; `j = 0`
//! is the section and the cut (whose nodes are duplicated, not merged).
//! OP2's files hold coordinates printed with six decimals, and the
//! published regression value was computed on such a file, so the
//! generator rounds coordinates the same way ([`Op2Naca0012::generate`]).
//!
//! Two details of Octave's arithmetic decide some of those printed digits
//! and are reproduced: `linspace` fills from both ends (a plain `a + i d`
//! changes some sixth decimals), and the complex square `(1 + 0i) w^2`
//! turns a `-0` on the cut into `+0`.

use super::{Boundary, MeshError, PolyMesh};

/// OP2's NACA 0012 mesh of `3 i j` cells (the classic 720,000-cell mesh is
/// `i = 400`, `j = 600`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op2Naca0012 {
    /// Cells along the section (the wake cut has `i` on each side).
    pub i: usize,
    /// Cells from the section to the far field.
    pub j: usize,
}

impl Op2Naca0012 {
    /// The mesh, coordinates rounded to six decimals as in OP2's files.
    // Nodes are numbered row by row (j) across the columns (i): the loops
    // index the columns' values by row.
    #[allow(clippy::needless_range_loop)]
    pub fn generate(&self) -> Result<PolyMesh, MeshError> {
        let (ii, jj) = (self.i, self.j);
        if ii < 2 || jj < 2 {
            return Err(MeshError::Generate(format!(
                "op2-naca0012 with i = {ii}, j = {jj}: both must be at least 2"
            )));
        }
        if 3u64 * ii as u64 * jj as u64 > u32::MAX as u64 / 2 {
            return Err(MeshError::Generate(format!(
                "op2-naca0012 with i = {ii}, j = {jj}: too many cells for 32-bit indices"
            )));
        }
        let curve = section_curve();
        let n = 3 * ii + 1;
        let xb = linspace(-3.0, 3.0, n);
        let mut yb = vec![0.0; n];
        for k in ii + 1..2 * ii {
            yb[k] = curve.eval(xb[k]);
        }
        let columns: Vec<Vec<f64>> = (0..n).map(|k| linspace(yb[k], 3.0, jj + 1)).collect();
        let mut x = Vec::with_capacity(n * (jj + 1));
        for j in 0..=jj {
            for (k, &a) in xb.iter().enumerate() {
                let b = columns[k][j];
                // (1 + 0i) (a + ib)^2, as Octave evaluates the square.
                let (p, q) = (a * a - b * b, a * b + b * a);
                x.push([six_decimals(p - 0.0 * q), six_decimals(q + 0.0 * p)]);
            }
        }
        let node = |i: usize, j: usize| (i + j * n) as u32;
        let cell = |i: usize, j: usize| (i + j * 3 * ii) as u32;
        let mut m = PolyMesh {
            x,
            ..PolyMesh::default()
        };
        for j in 0..jj {
            for i in 0..3 * ii {
                m.push_cell(&[
                    node(i, j),
                    node(i + 1, j),
                    node(i + 1, j + 1),
                    node(i, j + 1),
                ]);
            }
        }
        for j in 0..jj {
            for i in 0..3 * ii {
                if j == 0 && i < ii {
                    // The cut: the upper side's cell first.
                    m.edge_nodes.push([node(i, 0), node(i + 1, 0)]);
                    m.edge_cells.push([cell(3 * ii - 1 - i, 0), cell(i, 0)]);
                }
                if j + 1 < jj {
                    m.edge_nodes.push([node(i, j + 1), node(i + 1, j + 1)]);
                    m.edge_cells.push([cell(i, j), cell(i, j + 1)]);
                }
                if i + 1 < 3 * ii {
                    m.edge_nodes.push([node(i + 1, j), node(i + 1, j + 1)]);
                    m.edge_cells.push([cell(i + 1, j), cell(i, j)]);
                }
            }
        }
        let mut bedge = |nodes: [u32; 2], c: u32, b: Boundary| {
            m.bedge_nodes.push(nodes);
            m.bedge_cell.push(c);
            m.bound.push(b.flag());
        };
        for i in ii..2 * ii {
            bedge([node(i + 1, 0), node(i, 0)], cell(i, 0), Boundary::Wall);
        }
        for j in 0..jj {
            let c = cell(3 * ii - 1, j);
            bedge(
                [node(3 * ii, j + 1), node(3 * ii, j)],
                c,
                Boundary::FarField,
            );
        }
        for i in (0..3 * ii).rev() {
            bedge(
                [node(i, jj), node(i + 1, jj)],
                cell(i, jj - 1),
                Boundary::FarField,
            );
        }
        for j in (0..jj).rev() {
            bedge([node(0, j), node(0, j + 1)], cell(0, j), Boundary::FarField);
        }
        m.validate()?;
        Ok(m)
    }
}

/// `v` as a file printed with `%f` holds it.
fn six_decimals(v: f64) -> f64 {
    format!("{v:.6}")
        .parse()
        .expect("a printed number reads back")
}

/// Octave's `linspace(a, b, n)`: filled from both ends, the middle of an odd
/// count exactly 0 for a symmetric range.
fn linspace(a: f64, b: f64, n: usize) -> Vec<f64> {
    let mut r = vec![0.0; n];
    r[0] = a;
    r[n - 1] = b;
    let d = (b - a) / (n - 1) as f64;
    for i in 1..n / 2 {
        r[i] = a + i as f64 * d;
        r[n - 1 - i] = b - i as f64 * d;
    }
    if n % 2 == 1 {
        r[n / 2] = if a == -b { 0.0 } else { (a + b) / 2.0 };
    }
    r
}

/// The principal complex square root of `x + iy` (finite, moderate
/// arguments), computed as C libraries do.
fn csqrt(x: f64, y: f64) -> (f64, f64) {
    if y == 0.0 {
        return if x < 0.0 {
            (0.0, (-x).sqrt().copysign(y))
        } else {
            (x.sqrt().abs(), 0.0f64.copysign(y))
        };
    }
    if x == 0.0 {
        let r = (0.5 * y.abs()).sqrt();
        return (r, r.copysign(y));
    }
    let d = x.hypot(y);
    if x > 0.0 {
        let r = (0.5 * (d + x)).sqrt();
        (r, 0.5 * (y / r))
    } else {
        let s = (0.5 * (d - x)).sqrt();
        ((0.5 * (y / s)).abs(), s.copysign(y))
    }
}

/// The section's image under the square-root map, as a cubic spline.
fn section_curve() -> Spline {
    let t = linspace(0.0, std::f64::consts::FRAC_PI_2, 100);
    let xs: Vec<f64> = t.iter().map(|t| t.sin() * t.sin()).collect();
    let mut ys: Vec<f64> = xs
        .iter()
        .map(|&x| {
            0.594689181
                * (0.298222773 * x.sqrt() - 0.127125232 * x - 0.357907906 * (x * x)
                    + 0.291984971 * (x * x * x)
                    - 0.105174696 * x.powf(4.0))
        })
        .collect();
    ys[99] = 0.0;
    let w: Vec<(f64, f64)> = xs
        .iter()
        .zip(&ys)
        .map(|(&x, &y)| csqrt(x - 0.0077, y))
        .collect();
    let mut px: Vec<f64> = w.iter().rev().map(|p| -p.0).collect();
    let mut py: Vec<f64> = w.iter().rev().map(|p| p.1).collect();
    px.extend(w[1..].iter().map(|p| p.0));
    py.extend(w[1..].iter().map(|p| p.1));
    Spline::not_a_knot(px, py)
}

/// A cubic spline in piecewise form `((d t + c) t + b) t + a`.
struct Spline {
    x: Vec<f64>,
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    d: Vec<f64>,
}

impl Spline {
    /// The not-a-knot spline through `(x, a)`, `x` increasing, at least 5
    /// points: the tridiagonal system for the interior curvature terms,
    /// eliminated from the top without pivoting (the system is diagonally
    /// dominant here, as LAPACK's `dgtsv` finds too).
    fn not_a_knot(x: Vec<f64>, a: Vec<f64>) -> Spline {
        let n = x.len();
        let h: Vec<f64> = (0..n - 1).map(|k| x[k + 1] - x[k]).collect();
        let m = n - 2;
        let mut g = vec![0.0; m];
        g[0] = 3.0 / (h[0] + h[1]) * (a[2] - a[1] - h[1] / h[0] * (a[1] - a[0]));
        g[m - 1] = 3.0 / (h[n - 2] + h[n - 3])
            * (h[n - 3] / h[n - 2] * (a[n - 1] - a[n - 2]) - (a[n - 2] - a[n - 3]));
        for k in 1..m - 1 {
            g[k] = 3.0 * (a[k + 2] - a[k + 1]) / h[k + 1] - 3.0 * (a[k + 1] - a[k]) / h[k];
        }
        let mut diag: Vec<f64> = (0..m).map(|k| 2.0 * (h[k] + h[k + 1])).collect();
        diag[0] -= h[0];
        diag[m - 1] -= h[n - 2];
        let mut upper: Vec<f64> = (0..m - 1).map(|k| h[k + 1]).collect();
        let mut lower = upper.clone();
        upper[0] = h[1] - h[0];
        lower[m - 2] = h[n - 3] - h[n - 2];
        // Forward elimination, then back substitution.
        for i in 0..m - 1 {
            let f = lower[i] / diag[i];
            diag[i + 1] -= f * upper[i];
            g[i + 1] -= f * g[i];
        }
        g[m - 1] /= diag[m - 1];
        for i in (0..m - 1).rev() {
            g[i] = (g[i] - upper[i] * g[i + 1]) / diag[i];
        }
        let mut c = vec![0.0; n];
        c[1..n - 1].copy_from_slice(&g);
        c[0] = c[1] + h[0] / h[1] * (c[1] - c[2]);
        c[n - 1] = c[n - 2] + h[n - 2] / h[n - 3] * (c[n - 2] - c[n - 3]);
        let b = (0..n - 1)
            .map(|k| (a[k + 1] - a[k]) / h[k] - h[k] / 3.0 * (c[k + 1] + 2.0 * c[k]))
            .collect();
        let d = (0..n - 1)
            .map(|k| (c[k + 1] - c[k]) / (3.0 * h[k]))
            .collect();
        Spline { x, a, b, c, d }
    }

    /// The value at `v` (the end pieces extend beyond the knots).
    fn eval(&self, v: f64) -> f64 {
        let last = self.x.len() - 2;
        let k = self
            .x
            .partition_point(|&x| x <= v)
            .saturating_sub(1)
            .min(last);
        let t = v - self.x[k];
        ((self.d[k] * t + self.c[k]) * t + self.b[k]) * t + self.a[k]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linspace_fills_from_both_ends() {
        assert_eq!(
            linspace(-3.0, 3.0, 7),
            [-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0]
        );
        let r = linspace(0.1, 0.7, 4);
        assert_eq!(r[2], 0.7 - (0.7 - 0.1) / 3.0);
    }

    #[test]
    fn the_spline_reproduces_a_cubic() {
        let x: Vec<f64> = (0..9).map(|k| (k as f64 * 0.37).powf(1.2)).collect();
        let f = |x: f64| 0.5 - x + 2.0 * x * x - 0.25 * x * x * x;
        let s = Spline::not_a_knot(x.clone(), x.iter().map(|&v| f(v)).collect());
        for v in [0.05, 0.5, 1.3, 2.0, x[8] + 0.1] {
            assert!(
                (s.eval(v) - f(v)).abs() < 1e-12,
                "{v}: {} vs {}",
                s.eval(v),
                f(v)
            );
        }
    }

    #[test]
    fn counts_and_landmarks_of_the_small_mesh() {
        let m = Op2Naca0012 { i: 40, j: 60 }.generate().unwrap();
        assert_eq!(
            (m.nodes(), m.cells(), m.edges(), m.bedges()),
            (7381, 7200, 14260, 280)
        );
        // The first edges and boundary edge as OP2's file lists them.
        assert_eq!(m.edge_nodes[..4], [[0, 1], [121, 122], [1, 122], [1, 2]]);
        assert_eq!(m.edge_cells[..4], [[119, 0], [0, 120], [1, 0], [118, 1]]);
        assert_eq!(
            (m.bedge_nodes[0], m.bedge_cell[0], m.bound[0]),
            ([41, 40], 40, 1)
        );
        // Trailing edge at (1, 0), leading edge at (-0.0077, 0), the cut
        // reaching x = 9, and a clean check.
        assert_eq!(m.x[40], [1.0, 0.0]);
        assert_eq!(m.x[60], [-0.0077, 0.0]);
        assert_eq!(m.x[0], [9.0, 0.0]);
        let report = super::super::check::check(&m);
        assert!(
            report.is_ok(),
            "{:?}",
            &report.findings[..3.min(report.findings.len())]
        );
    }

    /// md5 of OP2's generator's file for `i`, `j`: Octave 7.3 running
    /// `naca0012.m` on this machine (see docs/fv.md).
    fn op2_file_md5(i: usize, j: usize) -> String {
        let m = Op2Naca0012 { i, j }.generate().unwrap();
        let mut text = Vec::new();
        super::super::op2::write_to_op2_style(&m, &mut text).unwrap();
        use md5::Digest;
        format!("{:x}", md5::Md5::digest(&text))
    }

    #[test]
    fn the_small_file_is_byte_identical_to_op2s_generator() {
        assert_eq!(op2_file_md5(40, 60), "33f48dc7555dd28478ac73977f8f55a6");
    }

    #[test]
    fn the_720k_file_is_byte_identical_to_op2s_generator() {
        assert_eq!(op2_file_md5(400, 600), "e5aa839f64d279fb2cb1f722d3dc5296");
    }
}
