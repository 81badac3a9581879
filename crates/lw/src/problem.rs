//! The oblique-shock problem as the layer's problem: one structured block
//! of `(nx + 4) x (ny + 4)` cells (the grid and two ghost rows on each
//! side), the cells' kinds, and the initial state: region 1 left of the
//! incident shock's line from `(0, 1)`, region 2 elsewhere, ghosts at
//! their boundary values.

use qflow_par::{DatData, PartitionHints, Problem, SetData, Shape, Values};

use crate::decl::{CELLS, KIND, U, U0, W};
use crate::exact::{ObliqueShock, Primitive};
use crate::kernels::LANES;
use crate::settings::{Grid, Settings, Setup, Wall};

/// The paper's code's region 2 `[rho, u, v, p]` (five digits).
pub const PAPER_REGION2: [f64; 4] = [1.69997, 2.61934, -0.50632, 1.52819];
/// The paper's code's value of pi (its initial shock line).
// Deliberately not `std::f64::consts::PI`: the paper's code truncates it.
#[allow(clippy::approx_constant)]
pub const PAPER_PI: f64 = 3.141592654;

/// Ghost rows on each side of the grid.
pub const GHOSTS: usize = 2;

/// The conserved state of a primitive one.
pub fn conserved(s: &Primitive, gamma: f64) -> [f64; 4] {
    [
        s.rho,
        s.rho * s.u,
        s.rho * s.v,
        s.p / (gamma - 1.0) + s.rho * (s.u * s.u + s.v * s.v) / 2.0,
    ]
}

/// The primitive state of a conserved one.
pub fn primitive(q: &[f64], gamma: f64) -> Primitive {
    let u = q[1] / q[0];
    let v = q[2] / q[0];
    Primitive {
        rho: q[0],
        u,
        v,
        p: (gamma - 1.0) * (q[3] - 0.5 * q[0] * (u * u + v * v)),
    }
}

/// The regions' states for `settings` (region 2 behind the incident
/// shock, from the oblique-shock relations).
pub fn shock(settings: &Settings) -> Result<ObliqueShock, String> {
    let [rho, u, v, p] = settings.inflow;
    ObliqueShock::new(
        settings.gamma,
        Primitive { rho, u, v, p },
        settings.shock_angle,
    )
    .map_err(|e| {
        format!(
            "[lw] shock_angle = {} with inflow {:?}: no regular shock reflection: {e}",
            settings.shock_angle, settings.inflow
        )
    })
}

/// The block's extent, ghosts included.
pub fn extent(grid: &Grid) -> [usize; 2] {
    [grid.nx + 2 * GHOSTS, grid.ny + 2 * GHOSTS]
}

/// The index of grid cell `(i, j)` among the block's cells (before they
/// are grouped into elements).
pub fn index(grid: &Grid, i: usize, j: usize) -> usize {
    (j + GHOSTS) * extent(grid)[0] + i + GHOSTS
}

/// The kind of one coordinate of the block: 0 inside, `-2, -1` before,
/// `1, 2` after.
fn kind_of(c: usize, n: usize) -> i32 {
    if c < GHOSTS {
        c as i32 - GHOSTS as i32
    } else if c >= n + GHOSTS {
        (c - n - GHOSTS) as i32 + 1
    } else {
        0
    }
}

/// The bc global: region 1, region 2 (conserved) and the wall flag.
pub fn bc(settings: &Settings, shock: &ObliqueShock) -> [f64; 9] {
    let q1 = conserved(&shock.region1, settings.gamma);
    let region2 = match settings.setup {
        Setup::Exact => shock.region2,
        Setup::PaperCode => {
            let [rho, u, v, p] = PAPER_REGION2;
            Primitive { rho, u, v, p }
        }
    };
    let q2 = conserved(&region2, settings.gamma);
    let wall = match settings.wall {
        Wall::Mirror => 1.0,
        Wall::Paper => 0.0,
    };
    [q1[0], q1[1], q1[2], q1[3], q2[0], q2[1], q2[2], q2[3], wall]
}

/// The layer's problem: the block, the kinds and the initial state.
pub fn build(grid: &Grid, settings: &Settings) -> Result<Problem, String> {
    grid.validate()?;
    settings.validate()?;
    let shock = shock(settings)?;
    let [ex, ey] = extent(grid);
    let (nx, ny) = (grid.nx, grid.ny);
    let bc = bc(settings, &shock);
    let q1 = [bc[0], bc[1], bc[2], bc[3]];
    let q2 = [bc[4], bc[5], bc[6], bc[7]];
    let tan = match settings.setup {
        Setup::Exact => settings.shock_angle.to_radians().tan(),
        Setup::PaperCode => (settings.shock_angle * PAPER_PI / 180.0).tan(),
    };
    let mut u = vec![0.0; ex * ey * 4];
    // The interior: region 1 left of the shock's line.
    for j in 0..ny {
        for i in 0..nx {
            let [x, y] = grid.point(i, j, settings.setup);
            let line = (1.0 - y) / tan;
            let left = match settings.setup {
                Setup::Exact => x < line,
                Setup::PaperCode => x <= line,
            };
            let q = if left { q1 } else { q2 };
            let e = index(grid, i, j);
            u[4 * e..4 * e + 4].copy_from_slice(&q);
        }
    }
    // The ghosts, as the kernels set them after every sweep.
    let mirror = settings.wall == Wall::Mirror;
    for jj in 0..ey {
        for ii in 0..ex {
            let (kx, ky) = (kind_of(ii, nx), kind_of(jj, ny));
            let q = match (kx, ky) {
                (0, 0) => continue,
                (kx, _) if kx < 0 => q1,
                (_, ky) if ky > 0 => q2,
                (kx, _) if kx > 0 => {
                    let s = jj * ex + ii - kx as usize;
                    [u[4 * s], u[4 * s + 1], u[4 * s + 2], u[4 * s + 3]]
                }
                (_, ky) => {
                    let up = if mirror { -2 * ky - 1 } else { -ky } as usize;
                    let s = (jj + up) * ex + ii;
                    let v = if mirror { -u[4 * s + 2] } else { 0.0 };
                    [u[4 * s], u[4 * s + 1], v, u[4 * s + 3]]
                }
            };
            let e = jj * ex + ii;
            u[4 * e..4 * e + 4].copy_from_slice(&q);
        }
    }
    // Elements of LANES cells along x, states component by component.
    let ne = ex / LANES;
    let mut kind = vec![0i32; ne * ey * 2];
    let mut elements = vec![0.0; ex * ey * 4];
    for jj in 0..ey {
        for ie in 0..ne {
            let e = jj * ne + ie;
            kind[2 * e] = if ie == 0 {
                -1
            } else if ie == ne - 1 {
                1
            } else {
                0
            };
            kind[2 * e + 1] = kind_of(jj, ny);
            for l in 0..LANES {
                let cell = jj * ex + ie * LANES + l;
                for c in 0..4 {
                    elements[16 * e + 4 * c + l] = u[4 * cell + c];
                }
            }
        }
    }
    let values = ex * ey * 4;
    Ok(Problem {
        sets: vec![SetData {
            decl: &CELLS,
            shape: Shape::Block {
                dims: [ne, ey, 1],
                periodic: [false; 3],
            },
            blocks: Vec::new(),
        }],
        maps: vec![],
        dats: vec![
            DatData {
                decl: &KIND,
                values: Values::I32(kind),
            },
            DatData {
                decl: &U,
                values: Values::F64(elements),
            },
            DatData {
                decl: &W,
                values: Values::F64(vec![0.0; values]),
            },
            DatData {
                decl: &U0,
                values: Values::F64(vec![0.0; values]),
            },
        ],
        hints: PartitionHints {
            primary: &CELLS,
            graph: None,
            coordinates: None,
            owners: vec![],
        },
    })
}

/// The interior cells' states `[rho, rho u, rho v, rho E]` in grid order
/// (`i` fastest) from the block's element values (ghosts included).
pub fn interior(grid: &Grid, block: &[f64]) -> Vec<[f64; 4]> {
    let ne = extent(grid)[0] / LANES;
    let mut out = Vec::with_capacity(grid.nx * grid.ny);
    for j in 0..grid.ny {
        for i in 0..grid.nx {
            let (ii, jj) = (i + GHOSTS, j + GHOSTS);
            let (e, l) = (jj * ne + ii / LANES, ii % LANES);
            let v = &block[16 * e..16 * e + 16];
            out.push([v[l], v[4 + l], v[8 + l], v[12 + l]]);
        }
    }
    out
}
