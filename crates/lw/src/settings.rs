//! The `[grid]` and `[lw]` sections of a case: the grid, the scheme's
//! choices and the problem's physics, with the paper's values as defaults.

use qflow_par::driver::Num;
use serde::{Deserialize, Serialize};

/// The artificial viscosity filter applied before each sweep's
/// Lax-Wendroff update.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Viscosity {
    /// The paper's filter, `U_i += eta/2 theta_i (U_{i+1} - 2 U_i +
    /// U_{i-1})`: not a difference of fluxes, so its shocks break the
    /// jump conditions (docs/lw.md).
    Paper,
    /// The same filter as a difference of interface terms with
    /// `theta_{i+1/2} = max(theta_i, theta_{i+1})`: conservative, so the
    /// shocks converge to the exact ones.
    Conservative,
}

impl Viscosity {
    /// The name in case files.
    pub fn name(self) -> &'static str {
        match self {
            Viscosity::Paper => "paper",
            Viscosity::Conservative => "conservative",
        }
    }
}

/// The bottom wall's ghost cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Wall {
    /// As the paper's code: both ghost rows copy the first row with the
    /// normal momentum set to zero.
    Paper,
    /// A mirror: ghost row `k` below the wall is row `k` above it with the
    /// normal momentum negated (a slip wall, symmetric about `y = 0`).
    Mirror,
}

impl Wall {
    /// The name in case files.
    pub fn name(self) -> &'static str {
        match self {
            Wall::Paper => "paper",
            Wall::Mirror => "mirror",
        }
    }
}

/// Where the unknowns sit and how the run is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Setup {
    /// Cell centres `((i + 1/2) dx, (j + 1/2) dy)`, the wall at `y = 0`
    /// between the first row and its ghosts; region 2 from the
    /// oblique-shock relations; the last step shortened to end at the final
    /// time.
    Exact,
    /// As the paper's serial code: nodes `((i + 1) dx, (j + 1) dy)`, region
    /// 2 as its five-digit constants, its initial line from its `pi =
    /// 3.141592654` with nodes on the line in region 1, whole steps while
    /// `t < final_time`. With `viscosity = "paper"` and `wall = "paper"` a
    /// run reproduces that code's numbers to the last bit.
    PaperCode,
}

impl Setup {
    /// The name in case files.
    pub fn name(self) -> &'static str {
        match self {
            Setup::Exact => "exact",
            Setup::PaperCode => "paper-code",
        }
    }
}

/// How a distributed run cuts the grid among ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decomposition {
    /// Strips along x (the paper's 1D decomposition).
    Strips,
    /// Boxes in x and y with the shortest cut faces.
    Blocks,
}

impl Decomposition {
    /// The name in case files.
    pub fn name(self) -> &'static str {
        match self {
            Decomposition::Strips => "strips",
            Decomposition::Blocks => "blocks",
        }
    }
}

/// The grid: `nx x ny` cells on `[0, 4] x [0, 1]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grid {
    /// Cells along x.
    pub nx: usize,
    /// Cells along y.
    pub ny: usize,
}

/// The domain's length (x) and height (y).
pub const DOMAIN: [f64; 2] = [4.0, 1.0];

impl Grid {
    /// Checks the sizes; the error names the key.
    pub fn validate(&self) -> Result<(), String> {
        for (key, n) in [("nx", self.nx), ("ny", self.ny)] {
            if n < 4 {
                return Err(format!("[grid] {key} = {n}: at least 4 cells are needed"));
            }
            if n > 100_000 {
                return Err(format!(
                    "[grid] {key} = {n}: more than 100000 cells per direction"
                ));
            }
        }
        if self.nx % 4 != 0 {
            return Err(format!(
                "[grid] nx = {}: must be a multiple of 4 (the cells are updated 4 at a time along x)",
                self.nx
            ));
        }
        if self.nx.saturating_mul(self.ny) > 400_000_000 {
            return Err(format!(
                "[grid] {} x {} cells is more than 4e8",
                self.nx, self.ny
            ));
        }
        Ok(())
    }

    /// Cell widths `(dx, dy)`.
    pub fn spacing(&self) -> [f64; 2] {
        [DOMAIN[0] / self.nx as f64, DOMAIN[1] / self.ny as f64]
    }

    /// Where the unknown of cell `(i, j)` sits: its centre, or the paper's
    /// code's node `((i + 1) dx, (j + 1) dy)`.
    pub fn point(&self, i: usize, j: usize, setup: Setup) -> [f64; 2] {
        let [dx, dy] = self.spacing();
        match setup {
            Setup::Exact => [(i as f64 + 0.5) * dx, (j as f64 + 0.5) * dy],
            Setup::PaperCode => [(i + 1) as f64 * dx, (j + 1) as f64 * dy],
        }
    }
}

/// The method's settings (`[lw]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// The artificial viscosity: `"conservative"` (default) or `"paper"`.
    pub viscosity: Viscosity,
    /// The bottom wall: `"mirror"` (default) or `"paper"`.
    pub wall: Wall,
    /// `"exact"` (default) or `"paper-code"` (the paper's code's grid
    /// points, constants and step count).
    pub setup: Setup,
    /// Ratio of specific heats.
    pub gamma: f64,
    /// The inflow (region 1) `[rho, u, v, p]`.
    pub inflow: [f64; 4],
    /// The incident shock's angle below the horizontal, degrees; it starts
    /// at the top-left corner `(0, 1)`.
    pub shock_angle: f64,
    /// The time step is `cfl min(dx, dy) / max(|q| + c)` of the initial
    /// state, fixed for the run.
    pub cfl: f64,
    /// The time the run ends at (the last step is shortened to reach it).
    pub final_time: f64,
    /// How `mpirun` cuts the grid: `"blocks"` (default) or `"strips"`.
    pub decomposition: Decomposition,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            viscosity: Viscosity::Conservative,
            wall: Wall::Mirror,
            setup: Setup::Exact,
            gamma: 1.4,
            inflow: [1.0, 2.9, 0.0, 0.71429],
            shock_angle: 29.0,
            cfl: 0.8,
            final_time: 3.0,
            decomposition: Decomposition::Blocks,
        }
    }
}

impl Settings {
    /// Checks every value; the error names the key and the reason.
    pub fn validate(&self) -> Result<(), String> {
        let finite_positive = |key: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!(
                    "[lw] {key} = {}: must be a finite number above 0",
                    Num(v)
                ))
            }
        };
        finite_positive("final_time", self.final_time)?;
        finite_positive("cfl", self.cfl)?;
        if self.cfl > 1.0 {
            return Err(format!(
                "[lw] cfl = {}: above 1 the Lax-Wendroff sweeps are unstable",
                Num(self.cfl)
            ));
        }
        if !(self.gamma.is_finite() && self.gamma > 1.0 && self.gamma <= 3.0) {
            return Err(format!(
                "[lw] gamma = {}: must lie in (1, 3]",
                Num(self.gamma)
            ));
        }
        let [rho, u, v, p] = self.inflow;
        if !self.inflow.iter().all(|x| x.is_finite()) || rho <= 0.0 || p <= 0.0 {
            return Err(format!(
                "[lw] inflow = {:?}: [rho, u, v, p] must be finite with rho and p above 0",
                self.inflow
            ));
        }
        if v != 0.0 || u <= 0.0 {
            return Err(format!(
                "[lw] inflow = {:?}: the inflow must be along +x (v = 0, u > 0)",
                self.inflow
            ));
        }
        let mach = u / (self.gamma * p / rho).sqrt();
        if mach <= 1.0 {
            return Err(format!(
                "[lw] inflow = {:?}: Mach {mach:.4} is not supersonic; an attached oblique shock needs Mach above 1",
                self.inflow
            ));
        }
        if mach > 50.0 {
            return Err(format!(
                "[lw] inflow = {:?}: Mach {mach:.4e}: give at most Mach 50",
                self.inflow
            ));
        }
        if !(self.shock_angle.is_finite() && self.shock_angle > 0.0 && self.shock_angle < 90.0) {
            return Err(format!(
                "[lw] shock_angle = {}: must lie in (0, 90) degrees",
                Num(self.shock_angle)
            ));
        }
        // From the top-left corner the incident shock reaches the wall at
        // x = height / tan(angle); past the domain's end nothing reflects
        // (and the summary's region 3 would compare with nothing).
        let meets = DOMAIN[1] / self.shock_angle.to_radians().tan();
        if meets >= DOMAIN[0] {
            return Err(format!(
                "[lw] shock_angle = {}: the incident shock would meet the wall at x = {meets:.4}, \
                 beyond the domain's end at x = {}: give an angle above {:.4} degrees",
                Num(self.shock_angle),
                DOMAIN[0],
                (DOMAIN[1] / DOMAIN[0]).atan().to_degrees()
            ));
        }
        if self.setup == Setup::PaperCode {
            let d = Settings::default();
            if self.inflow != d.inflow || self.shock_angle != d.shock_angle || self.gamma != d.gamma
            {
                return Err(format!(
                    "[lw] setup = \"paper-code\": the paper's code fixes region 2 to its constants \
                     for its own flow only (inflow = {:?}, shock_angle = {}, gamma = {}); give \
                     those, or setup = \"exact\" (this case: inflow = {:?}, shock_angle = {}, \
                     gamma = {})",
                    d.inflow,
                    d.shock_angle,
                    d.gamma,
                    self.inflow,
                    Num(self.shock_angle),
                    Num(self.gamma)
                ));
            }
        }
        Ok(())
    }

    /// The settings that change the numbers, one `key = value` line each,
    /// for a checkpoint's key (a resume with any of them changed is
    /// refused, naming it). The final time, step limit, decomposition and
    /// outputs may change on resume.
    pub fn key(&self, grid: &Grid) -> String {
        format!(
            "grid = {} x {}\nviscosity = {}\nwall = {}\nsetup = {}\ngamma = {:?}\ninflow = {:?}\nshock_angle = {:?}\ncfl = {:?}\n",
            grid.nx,
            grid.ny,
            self.viscosity.name(),
            self.wall.name(),
            self.setup.name(),
            self.gamma,
            self.inflow,
            self.shock_angle,
            self.cfl
        )
    }
}
