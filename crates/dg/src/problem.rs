//! Linear advection on the periodic unit box as the layer's problem: one
//! periodic structured block of `cx` (1D) or `cx x cy` (2D) DG cells, the
//! initial state at the GLL nodes, and the exact solution.

use std::f64::consts::PI;

use qflow_par::{DatData, DatDecl, PartitionHints, Problem, SetData, Shape, Values};

use crate::decl::{CELLS, DATS_1, DATS_2};
use crate::gll::Gll;
use crate::settings::{Initial, Settings};

/// Values per element of the family of `settings` (8 in 1D, 64 in 2D).
pub fn element_len(settings: &Settings) -> usize {
    if settings.dimensions == 1 {
        8
    } else {
        64
    }
}

/// The exact solution of a case: its initial state translated with the
/// velocity (periodic), `u0(x - a t)`. The multi-mode signal's amplitudes
/// are drawn once, here, not at every node.
pub struct ExactSolution<'a> {
    settings: &'a Settings,
    amplitudes: Vec<f64>,
}

impl<'a> ExactSolution<'a> {
    /// The exact solution of `settings`.
    pub fn new(settings: &'a Settings) -> Self {
        let amplitudes = match settings.initial {
            Initial::Multimode => settings.amplitudes(),
            _ => Vec::new(),
        };
        ExactSolution {
            settings,
            amplitudes,
        }
    }

    /// The initial state at `(x, y)` (`y` unused in 1D).
    pub fn initial(&self, x: f64, y: f64) -> f64 {
        match self.settings.initial {
            Initial::Multimode => multimode(&self.amplitudes, x),
            Initial::Constant => 1.0,
            Initial::Sine => {
                let s = (2.0 * PI * x).sin();
                if self.settings.dimensions == 1 {
                    s
                } else {
                    s * (2.0 * PI * y).sin()
                }
            }
        }
    }

    /// The solution at `(x, y)` at time `t`.
    pub fn at(&self, x: f64, y: f64, t: f64) -> f64 {
        let [ax, ay] = self.settings.speed();
        self.initial(x - ax * t, y - ay * t)
    }
}

/// The multi-mode signal `sum_k A_k sin(2 pi k x)` of the amplitudes `a`
/// (`A_1` first).
pub fn multimode(a: &[f64], x: f64) -> f64 {
    a.iter()
        .enumerate()
        .map(|(k, ak)| ak * (2.0 * PI * (k + 1) as f64 * x).sin())
        .sum()
}

/// The position of node `i` of cell `c` along a direction of cell width
/// `h`: `(c + (1 + xi_i) / 2) h`.
pub fn node_position(gll: &Gll, c: usize, i: usize, h: f64) -> f64 {
    (c as f64 + 0.5 * (1.0 + gll.nodes[i])) * h
}

/// Calls `f(element, slot, x, y)` for every node in use, element by
/// element (`x` fastest), nodes in the element's order.
pub fn for_each_node(settings: &Settings, mut f: impl FnMut(usize, usize, f64, f64)) {
    let gll = Gll::new(settings.order).expect("validated order");
    let n = settings.order;
    let [cx, cy] = settings.grid();
    let [hx, hy] = settings.spacing();
    for ey in 0..cy {
        for ex in 0..cx {
            let e = ey * cx + ex;
            if settings.dimensions == 1 {
                for i in 0..n {
                    f(e, i, node_position(&gll, ex, i, hx), 0.0);
                }
            } else {
                for j in 0..n {
                    let y = node_position(&gll, ey, j, hy);
                    for i in 0..n {
                        f(e, 8 * j + i, node_position(&gll, ex, i, hx), y);
                    }
                }
            }
        }
    }
}

/// The dats of the family `settings` runs.
pub fn dats(settings: &Settings) -> &'static [&'static DatDecl] {
    if settings.dimensions == 1 {
        &DATS_1
    } else {
        &DATS_2
    }
}

/// The layer's problem: the block and the initial state (the scratch
/// dats zero).
pub fn build(settings: &Settings) -> Result<Problem, String> {
    settings.validate()?;
    let [cx, cy] = settings.grid();
    let len = element_len(settings);
    let mut u = vec![0.0; cx * cy * len];
    let exact = ExactSolution::new(settings);
    for_each_node(settings, |e, k, x, y| {
        u[e * len + k] = exact.initial(x, y);
    });
    let decls = dats(settings);
    let mut dats = Vec::with_capacity(decls.len());
    dats.push(DatData {
        decl: decls[0],
        values: Values::F64(u),
    });
    for d in &decls[1..] {
        dats.push(DatData {
            decl: d,
            values: Values::F64(vec![0.0; cx * cy * len]),
        });
    }
    Ok(Problem {
        sets: vec![SetData {
            decl: &CELLS,
            shape: Shape::Block {
                dims: [cx, cy, 1],
                periodic: [true, settings.dimensions == 2, false],
            },
            blocks: Vec::new(),
        }],
        maps: vec![],
        dats,
        hints: PartitionHints {
            primary: &CELLS,
            graph: None,
            coordinates: None,
            owners: vec![],
        },
    })
}

/// The quadrature weight of slot `k` of an element: `(hx/2) w_i` in 1D,
/// `(hx/2)(hy/2) w_i w_j` in 2D (slot `k = 8 j + i`).
fn quadrature_weight(settings: &Settings, gll: &Gll, k: usize) -> f64 {
    let [hx, hy] = settings.spacing();
    if settings.dimensions == 1 {
        0.5 * hx * gll.weights[k]
    } else {
        0.25 * hx * hy * gll.weights[k % 8] * gll.weights[k / 8]
    }
}

/// The errors of the nodal values `u` (the block's elements, as
/// gathered) against the exact solution at time `t`: `(l2, linf)`, the L2
/// norm by GLL quadrature on each cell (`sum_cells (hx/2)(hy/2) sum_ij
/// w_i w_j e_ij^2`, square-rooted; the same quadrature as the mass
/// matrix) and the largest error at a node.
pub fn errors(settings: &Settings, u: &[f64], t: f64) -> (f64, f64) {
    let gll = Gll::new(settings.order).expect("validated order");
    let len = element_len(settings);
    let (mut sum, mut max) = (0.0f64, 0.0f64);
    let exact = ExactSolution::new(settings);
    for_each_node(settings, |e, k, x, y| {
        let err = u[e * len + k] - exact.at(x, y, t);
        sum += quadrature_weight(settings, &gll, k) * err * err;
        max = max.max(err.abs());
    });
    (sum.sqrt(), max)
}

/// The L2 norm of the nodal values `u` by GLL quadrature on each cell
/// (the discrete energy the upwind DG method does not increase).
pub fn l2_norm(settings: &Settings, u: &[f64]) -> f64 {
    let gll = Gll::new(settings.order).expect("validated order");
    let len = element_len(settings);
    let mut sum = 0.0;
    for_each_node(settings, |e, k, _, _| {
        sum += quadrature_weight(settings, &gll, k) * u[e * len + k] * u[e * len + k];
    });
    sum.sqrt()
}
