//! A DG case on the periodic unit box as the layer's problem: one
//! periodic structured block of `cx` (1D) or `cx x cy` (2D) DG cells, the
//! initial state at the GLL nodes, and the exact solution (linear
//! advection: the initial state translated; isothermal Euler: the simple
//! wave along its characteristics, the boosted shear flow, a constant).

use std::f64::consts::PI;

use qflow_par::{DatData, DatDecl, PartitionHints, Problem, SetData, Shape, Values};

use crate::decl::CELLS;
use crate::gll::Gll;
use crate::settings::{Equation, Initial, Settings};

/// Values per variable of an element in use: `n` in 1D, `n^2` in 2D
/// (packed: variable `v`'s node slot `k` is at `v * stride + k`, node `(i,
/// j)`'s slot `n j + i`; the kernels' `Cell2`, `Euler2`, ...).
pub fn variable_stride(settings: &Settings) -> usize {
    settings.order.pow(settings.dimensions as u32)
}

/// Values per element of the family of `settings` as stored (sized for
/// its order, nothing padded): `n^d` per variable, `vars n^d` in all.
pub fn element_len(settings: &Settings) -> usize {
    settings.variables() * variable_stride(settings)
}

/// The names of the variables of `settings`' equation, in element order.
pub fn variable_names(settings: &Settings) -> &'static [&'static str] {
    match (settings.equation, settings.dimensions) {
        (Equation::Advection, _) => &["u"],
        (Equation::IsothermalEuler, 1) => &["rho", "rho_u"],
        (Equation::IsothermalEuler, 2) => &["rho", "rho_u", "rho_v"],
        (Equation::IsothermalEuler, _) => &["rho", "rho_u", "rho_v", "rho_w"],
        (Equation::Euler, 2) => &["rho", "rho_u", "rho_v", "rho_e"],
        (Equation::Euler, _) => &["rho", "rho_u", "rho_v", "rho_w", "rho_e"],
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

    /// The initial advected value at `x` (the coordinates past the case's
    /// dimensions unused).
    fn initial_scalar(&self, x: [f64; 3]) -> f64 {
        match self.settings.initial {
            Initial::Multimode => multimode(&self.amplitudes, x[0]),
            Initial::Sine => x[..self.settings.dimensions]
                .iter()
                .map(|v| (2.0 * PI * v).sin())
                .product(),
            _ => 1.0,
        }
    }

    /// The conserved variables at `p` at time `t`, in element order, 0
    /// past the equation's [`Settings::variables`] (advection: `[u, 0, ..]`;
    /// isothermal Euler: `[rho, rho u, rho v, rho w, 0]`, the momenta past
    /// the case's dimensions 0; compressible Euler: `[rho, rho u, rho v,
    /// E, 0]` in 2D, `[rho, rho u, rho v, rho w, E]` in 3D).
    pub fn state(&self, p: [f64; 3], t: f64) -> [f64; MAX_VARIABLES] {
        let s = self.settings;
        let a = s.speed();
        let [x, y, z] = p;
        let [ux, uy, uz] = a;
        match s.equation {
            Equation::Advection => {
                let foot = [0, 1, 2].map(|d| p[d] - a[d] * t);
                [self.initial_scalar(foot), 0.0, 0.0, 0.0, 0.0]
            }
            Equation::IsothermalEuler if s.dimensions == 3 => {
                let (rho, v) = match s.initial {
                    Initial::SimpleWave => self.simple_wave_3d(p, t),
                    _ => (1.0, a),
                };
                [rho, rho * v[0], rho * v[1], rho * v[2], 0.0]
            }
            Equation::Euler => {
                // The 3D states are the 2D ones, uniform along z, carried by
                // the background's `uz` (the density wave's phase `x + y +
                // z`).
                let (rho, u, v, p) = match s.initial {
                    Initial::IsentropicVortex => self.vortex(x, y, t),
                    Initial::DensityWave => {
                        let phase = x + y + z - (ux + uy + uz) * t;
                        (
                            1.0 + s.amplitude * (2.0 * PI * phase).sin(),
                            ux,
                            uy,
                            s.pressure,
                        )
                    }
                    _ => (1.0, ux, uy, s.pressure),
                };
                let w = uz;
                let e = p / (s.gamma - 1.0) + 0.5 * rho * (u * u + v * v + w * w);
                if s.dimensions == 2 {
                    [rho, rho * u, rho * v, e, 0.0]
                } else {
                    [rho, rho * u, rho * v, rho * w, e]
                }
            }
            Equation::IsothermalEuler => {
                let (rho, u, v) = match s.initial {
                    Initial::SimpleWave => self.simple_wave(x, y, t),
                    Initial::Shear => (1.0, ux, uy + s.amplitude * (2.0 * PI * (x - ux * t)).sin()),
                    _ => (1.0, ux, uy),
                };
                [rho, rho * u, rho * v, 0.0, 0.0]
            }
        }
    }

    /// The isentropic vortex's `(rho, u, v, p)` at `(x, y, t)`
    /// ([`Initial::IsentropicVortex`]): the distance to the centre carried
    /// by the background velocity, the nearest periodic image's, scaled by
    /// 20.
    fn vortex(&self, x: f64, y: f64, t: f64) -> (f64, f64, f64, f64) {
        let s = self.settings;
        let [ux, uy, _] = s.speed();
        let (g, eps) = (s.gamma, s.amplitude);
        let near = |d: f64| d - d.round();
        let dx = 20.0 * near(x - 0.5 - ux * t);
        let dy = 20.0 * near(y - 0.5 - uy * t);
        let r2 = dx * dx + dy * dy;
        let du = eps / (2.0 * PI) * (0.5 * (1.0 - r2)).exp();
        let temp = 1.0 - (g - 1.0) * eps * eps / (8.0 * g * PI * PI) * (1.0 - r2).exp();
        let rho = temp.powf(1.0 / (g - 1.0));
        (rho, ux - du * dy, uy + du * dx, rho * temp)
    }

    /// The first variable (`u` or `rho`) at `p` at time `t`.
    pub fn at(&self, p: [f64; 3], t: f64) -> f64 {
        self.state(p, t)[0]
    }

    /// The 3D simple wave along the diagonal `n = (1, 1, 1) / sqrt 3`
    /// (phase `x + y + z`): `(rho, velocity)` at `p`, the velocity the
    /// background's plus `a ln(rho) n` (the Riemann invariant `u_n - a ln
    /// rho` uniform), the foot of the characteristic found as in
    /// [`Self::state`]'s 1D and 2D waves.
    fn simple_wave_3d(&self, p: [f64; 3], t: f64) -> (f64, [f64; 3]) {
        let s = self.settings;
        let bg = s.speed();
        let r = 1.0 / 3f64.sqrt();
        let un0 = r * (bg[0] + bg[1] + bg[2]);
        let rho = self.simple_wave_density(p[0] + p[1] + p[2], 3f64.sqrt(), un0, t);
        let du = r * s.sound_speed * rho.ln();
        (rho, [bg[0] + du, bg[1] + du, bg[2] + du])
    }

    /// The simple wave's `(rho, u, v)` at `(x, y, t)` ([`Initial::SimpleWave`]):
    /// the foot `phi0` of the characteristic through the point, from
    /// `phi0 + g (u_n(phi0) + a) t = phi` by Newton's method safeguarded by
    /// bisection (the left side grows with `phi0` before the wave breaks).
    fn simple_wave(&self, x: f64, y: f64, t: f64) -> (f64, f64, f64) {
        let s = self.settings;
        let a = s.sound_speed;
        let [ux, uy, _] = s.speed();
        let two = s.dimensions == 2;
        let r = std::f64::consts::FRAC_1_SQRT_2;
        // Phase, its gradient's length, the background's normal and
        // tangential velocity (n = (1, 1)/sqrt 2, t = (-1, 1)/sqrt 2).
        let (phi, g, un0, ut) = if two {
            (
                x + y,
                std::f64::consts::SQRT_2,
                r * (ux + uy),
                r * (uy - ux),
            )
        } else {
            (x, 1.0, ux, 0.0)
        };
        let rho = self.simple_wave_density(phi, g, un0, t);
        let un = un0 + a * rho.ln();
        if two {
            (rho, r * (un - ut), r * (un + ut))
        } else {
            (rho, un, 0.0)
        }
    }

    /// The simple wave's density at phase `phi` and time `t` (`g = |grad
    /// phi|`, `un0` the background's normal velocity): `rho0(phi0)` at the
    /// foot `phi0` of the characteristic, from `phi0 + g (u_n(phi0) + a) t =
    /// phi` by Newton's method safeguarded by bisection (the left side
    /// grows with `phi0` before the wave breaks).
    fn simple_wave_density(&self, phi: f64, g: f64, un0: f64, t: f64) -> f64 {
        let (a, amp) = (self.settings.sound_speed, self.settings.amplitude);
        let rho0 = |p: f64| 1.0 + amp * (2.0 * PI * p).sin();
        let f = |p: f64| p + g * (un0 + a * rho0(p).ln() + a) * t - phi;
        let df = |p: f64| 1.0 + t * g * a * amp * 2.0 * PI * (2.0 * PI * p).cos() / rho0(p);
        let (lo_s, hi_s) = (
            g * (un0 + a * (1.0 - amp.abs()).ln() + a),
            g * (un0 + a * (1.0 + amp.abs()).ln() + a),
        );
        let (mut lo, mut hi) = (phi - hi_s * t, phi - lo_s * t);
        let mut p = 0.5 * (lo + hi);
        for _ in 0..200 {
            let v = f(p);
            if v == 0.0 {
                break;
            }
            if v > 0.0 {
                hi = p;
            } else {
                lo = p;
            }
            let mut next = p - v / df(p);
            if !(next > lo && next < hi) {
                next = 0.5 * (lo + hi);
            }
            if (next - p).abs() <= 1e-16 * (1.0 + p.abs()) {
                p = next;
                break;
            }
            p = next;
        }
        rho0(p)
    }
}

/// The largest wave speed along x, y and z over the initial state at the
/// nodes: `|a_d|` for advection, `max |u_d| + a` for isothermal Euler (the
/// exact solutions here keep their range of states, so the initial
/// state's speeds hold for the whole run); 0 past the case's dimensions.
pub fn wave_speeds(settings: &Settings) -> [f64; 3] {
    if settings.equation == Equation::Advection {
        return settings.speed().map(f64::abs);
    }
    let exact = ExactSolution::new(settings);
    let mut l = [0.0f64; 3];
    if settings.equation == Equation::Euler {
        // `max |u_d| + c` over the nodes, `c` the sound speed there.
        let g = settings.gamma;
        for_each_node(settings, |_, _, p| {
            let q = exact.state(p, 0.0);
            let c = (g * gas_pressure(settings, q) / q[0]).sqrt();
            for d in 0..settings.dimensions {
                l[d] = l[d].max((q[1 + d] / q[0]).abs() + c);
            }
        });
        return l;
    }
    for_each_node(settings, |_, _, p| {
        let q = exact.state(p, 0.0);
        for d in 0..settings.dimensions {
            l[d] = l[d].max((q[1 + d] / q[0]).abs());
        }
    });
    let a = settings.sound_speed;
    [0, 1, 2].map(|d| {
        if d < settings.dimensions {
            l[d] + a
        } else {
            0.0
        }
    })
}

/// The most conserved variables of a family: 3D compressible Euler's
/// `(rho, rho u, rho v, rho w, E)`.
pub const MAX_VARIABLES: usize = 5;

/// The pressure of an ideal gas (the ratio `settings.gamma`) in the state
/// `q` of `settings`' dimensions: `(rho, rho u, rho v, E)` in 2D, `(rho,
/// rho u, rho v, rho w, E)` in 3D.
pub fn gas_pressure(settings: &Settings, q: [f64; MAX_VARIABLES]) -> f64 {
    let d = settings.dimensions;
    let m2: f64 = q[1..=d].iter().map(|m| m * m).sum();
    (settings.gamma - 1.0) * (q[1 + d] - 0.5 * m2 / q[0])
}

/// The first node of the nodal values `u` (the block's elements, as
/// gathered) whose density (or, compressible Euler, pressure) is not
/// positive or not finite: what it is, its cell and place, for a message;
/// `None` if there is none (or the equation is advection).
pub fn first_unphysical(settings: &Settings, u: &[f64]) -> Option<String> {
    if settings.equation == Equation::Advection {
        return None;
    }
    let len = element_len(settings);
    let stride = variable_stride(settings);
    let [cx, cy, _] = settings.grid();
    let mut found = None;
    for_each_node(settings, |e, k, p| {
        if found.is_some() {
            return;
        }
        let mut q = [0.0; MAX_VARIABLES];
        for (v, value) in q.iter_mut().enumerate().take(settings.variables()) {
            *value = u[e * len + v * stride + k];
        }
        let cell = [e % cx, e / cx % cy, e / (cx * cy)];
        let at = |what: String| {
            format!(
                "{what} in cell {:?} at ({})",
                &cell[..settings.dimensions],
                p[..settings.dimensions]
                    .iter()
                    .map(|x| format!("{x:.4}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        if !(q[0] > 0.0 && q[0].is_finite()) {
            found = Some(at(format!("density {}", q[0])));
        } else if settings.equation == Equation::Euler {
            let pr = gas_pressure(settings, q);
            if !(pr > 0.0 && pr.is_finite()) {
                found = Some(at(format!("pressure {pr}")));
            }
        }
    });
    found
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

/// Calls `f(element, slot, position)` for every node in use, element by
/// element (`x` fastest), nodes in the element's order (slot `n^2 k + n j
/// + i` of node `(i, j, k)`; coordinates past the case's dimensions 0).
pub fn for_each_node(settings: &Settings, mut f: impl FnMut(usize, usize, [f64; 3])) {
    let gll = Gll::new(settings.order).expect("validated order");
    let n = settings.order;
    let d = settings.dimensions;
    let [cx, cy, cz] = settings.grid();
    let h = settings.spacing();
    // Nodes per direction in use: n, or 1 past the dimensions.
    let m = [0, 1, 2].map(|k| if k < d { n } else { 1 });
    let at = |c: usize, i: usize, k: usize| {
        if k < d {
            node_position(&gll, c, i, h[k])
        } else {
            0.0
        }
    };
    for ez in 0..cz {
        for ey in 0..cy {
            for ex in 0..cx {
                let e = (ez * cy + ey) * cx + ex;
                for k in 0..m[2] {
                    let z = at(ez, k, 2);
                    for j in 0..m[1] {
                        let y = at(ey, j, 1);
                        for i in 0..m[0] {
                            f(e, (k * n + j) * n + i, [at(ex, i, 0), y, z]);
                        }
                    }
                }
            }
        }
    }
}

/// The loops of the kernel family `settings` runs.
pub fn loops(settings: &Settings) -> &'static [&'static qflow_par::LoopDecl] {
    crate::family(settings.order, settings.equation, settings.dimensions).loops
}

/// The solution's dat of the kernel family `settings` runs.
pub fn solution(settings: &Settings) -> &'static DatDecl {
    crate::family(settings.order, settings.equation, settings.dimensions).u
}

/// The dats of `settings`'s kernel family.
pub fn dats(settings: &Settings) -> &'static [&'static DatDecl] {
    crate::family(settings.order, settings.equation, settings.dimensions).dats
}

/// The layer's problem: the block and the initial state (the scratch
/// dats zero).
pub fn build(settings: &Settings) -> Result<Problem, String> {
    settings.validate()?;
    let [cx, cy, cz] = settings.grid();
    let cells = cx * cy * cz;
    let len = element_len(settings);
    let (stride, vars) = (variable_stride(settings), settings.variables());
    let mut u = vec![0.0; cells * len];
    let exact = ExactSolution::new(settings);
    for_each_node(settings, |e, k, p| {
        let q = exact.state(p, 0.0);
        for v in 0..vars {
            u[e * len + v * stride + k] = q[v];
        }
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
            values: Values::F64(vec![0.0; cells * len]),
        });
    }
    Ok(Problem {
        sets: vec![SetData {
            decl: &CELLS,
            shape: Shape::Block {
                dims: [cx, cy, cz],
                periodic: [0, 1, 2].map(|d| d < settings.dimensions),
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

/// The quadrature weight of slot `k` of an element: the product over the
/// case's dimensions of `(h_d / 2) w_i` (slot `k = n^2 k3 + n j + i`).
fn quadrature_weight(settings: &Settings, gll: &Gll, k: usize) -> f64 {
    let h = settings.spacing();
    let n = settings.order;
    let index = [k % n, k / n % n, k / (n * n)];
    (0..settings.dimensions)
        .map(|d| 0.5 * h[d] * gll.weights[index[d]])
        .product()
}

/// The errors of the nodal values `u` (the block's elements, as
/// gathered) against the exact solution at time `t`, per variable: `(l2,
/// linf)`, the L2 norm by GLL quadrature on each cell (`sum_cells
/// (hx/2)(hy/2) sum_ij w_i w_j e_ij^2`, square-rooted; the same quadrature
/// as the mass matrix) and the largest error at a node. Variables past
/// [`Settings::variables`] are 0.
pub fn variable_errors(
    settings: &Settings,
    u: &[f64],
    t: f64,
) -> ([f64; MAX_VARIABLES], [f64; MAX_VARIABLES]) {
    let gll = Gll::new(settings.order).expect("validated order");
    let len = element_len(settings);
    let (stride, vars) = (variable_stride(settings), settings.variables());
    let (mut sum, mut max) = ([0.0f64; MAX_VARIABLES], [0.0f64; MAX_VARIABLES]);
    let exact = ExactSolution::new(settings);
    for_each_node(settings, |e, k, p| {
        let q = exact.state(p, t);
        let w = quadrature_weight(settings, &gll, k);
        for v in 0..vars {
            let err = u[e * len + v * stride + k] - q[v];
            sum[v] += w * err * err;
            max[v] = max[v].max(err.abs());
        }
    });
    (sum.map(f64::sqrt), max)
}

/// The errors of the first variable (`u`, or the density): `(l2, linf)`
/// as [`variable_errors`] measures them.
pub fn errors(settings: &Settings, u: &[f64], t: f64) -> (f64, f64) {
    let (l2, linf) = variable_errors(settings, u, t);
    (l2[0], linf[0])
}

/// The L2 norm of the nodal values `u` by GLL quadrature on each cell
/// (the discrete energy the upwind DG method does not increase).
pub fn l2_norm(settings: &Settings, u: &[f64]) -> f64 {
    let gll = Gll::new(settings.order).expect("validated order");
    let len = element_len(settings);
    let mut sum = 0.0;
    for_each_node(settings, |e, k, _| {
        sum += quadrature_weight(settings, &gll, k) * u[e * len + k] * u[e * len + k];
    });
    sum.sqrt()
}
