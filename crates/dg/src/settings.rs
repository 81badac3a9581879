//! The `[dg]` section of a case: equation, dimensions, order, cells,
//! velocity, sound speed, time scheme, final time, CFL number and the
//! initial state.

use serde::{Deserialize, Serialize};

use crate::gll::MAX_NODES;
use crate::rk::Scheme;
use qflow_par::driver::Num;

/// The most cells a grid may have in all (2^31: element numbers fit the
/// layer's 32-bit maps; memory runs out well before on most machines).
pub const MAX_CELLS: u64 = 1 << 31;

/// The initial state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Initial {
    /// One smooth periodic mode: `sin(2 pi x)` in 1D, `sin(2 pi x) sin(2
    /// pi y)` in 2D, on the unit box; exact solution `u0(x - a t)`.
    Sine,
    /// `u = 1` everywhere (free-stream preservation).
    Constant,
    /// The paper's multi-mode signal (its eq. 14 and 17): `sum_{k=1}^{Nk}
    /// A_k sin(2 pi k x)` with amplitudes `A_k` drawn uniformly from
    /// `[0, 1)` by a generator seeded with `seed` (`Nk` = `modes`); a
    /// function of x alone in 2D too.
    Multimode,
    /// Isothermal Euler: a simple (one-family) wave, exact until it breaks
    /// into a shock. With the phase `phi = x` (1D) or `x + y` (2D: a plane
    /// wave along the diagonal, normal `n = (1, 1) / sqrt 2`), `rho0 = 1 +
    /// A sin(2 pi phi)` and the normal velocity `u_n = U_n + a ln rho0`
    /// (the Riemann invariant `u_n - a ln rho = U_n` uniform), the
    /// tangential velocity `U_t`, `(U_n, U_t)` the `velocity`'s
    /// components. Every state travels with `u_n + a`: `phi0 + g (u_n(phi0)
    /// + a) t = phi` (`g = |grad phi|`) gives the exact solution.
    SimpleWave,
    /// Isothermal Euler, 2D: the Galilean-boosted shear flow `rho = 1`, `u
    /// = U`, `v = V + A sin(2 pi (x - U t))`, exact for all time.
    Shear,
    /// Compressible Euler, 2D: the isentropic vortex (Shu's; Trixi.jl's
    /// `initial_condition_isentropic_vortex`) of strength `epsilon` =
    /// `amplitude`, on the unit box as on `[-10, 10]^2` (lengths scaled by
    /// 20: the vortex's radius is 1/20 of the box, so that it is periodic
    /// to round-off), centred at `(1/2, 1/2)` at `t = 0` and carried by the
    /// background `rho = 1`, `p = 1`, velocity `velocity`: with `r` the
    /// scaled distance to the centre, `T = 1 - (gamma - 1) epsilon^2 / (8
    /// gamma pi^2) e^(1 - r^2)`, `rho = T^(1/(gamma - 1))`, `p = rho T`,
    /// the velocity the background's plus `epsilon / (2 pi) e^((1 -
    /// r^2)/2) (-y, x)`. Exact for all time (it travels unchanged).
    IsentropicVortex,
    /// Compressible Euler, 2D: the density wave `rho = 1 + A sin(2 pi (x +
    /// y - (U + V) t))` at the constant velocity `(U, V)` = `velocity` and
    /// pressure `pressure`, exact for all time.
    DensityWave,
}

impl Initial {
    /// The name in case files.
    pub fn name(self) -> &'static str {
        match self {
            Initial::Sine => "sine",
            Initial::Constant => "constant",
            Initial::Multimode => "multimode",
            Initial::SimpleWave => "simple-wave",
            Initial::Shear => "shear",
            Initial::IsentropicVortex => "isentropic-vortex",
            Initial::DensityWave => "density-wave",
        }
    }
}

/// The equation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Equation {
    /// Linear advection `u_t + a . grad u = 0`.
    Advection,
    /// Isothermal Euler (`p = a^2 rho`, `a` the sound speed).
    IsothermalEuler,
    /// The compressible Euler equations of an ideal gas (`p = (gamma - 1)
    /// (E - |m|^2 / (2 rho))`), 2D.
    Euler,
}

impl Equation {
    /// The name in case files.
    pub fn name(self) -> &'static str {
        match self {
            Equation::Advection => "advection",
            Equation::IsothermalEuler => "isothermal-euler",
            Equation::Euler => "euler",
        }
    }
}

/// The face flux of the Euler equations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaceFlux {
    /// The local Lax-Friedrichs flux: the two sides' mean flux less half
    /// the largest wave speed of the two times the jump.
    Rusanov,
    /// The HLL flux, with Davis's estimates of the slowest and fastest
    /// waves.
    Hll,
}

impl FaceFlux {
    /// The name in case files.
    pub fn name(self) -> &'static str {
        match self {
            FaceFlux::Rusanov => "rusanov",
            FaceFlux::Hll => "hll",
        }
    }

    /// Its code in the kernels' global (`p[2]`).
    pub fn code(self) -> f64 {
        match self {
            FaceFlux::Rusanov => 0.0,
            FaceFlux::Hll => 1.0,
        }
    }
}

/// The case's `[dg]` section: linear advection `u_t + a . grad u = 0` or
/// isothermal Euler on the periodic unit box `[0, 1]^d`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// The equation: `"advection"`, `"isothermal-euler"` or `"euler"`.
    pub equation: Equation,
    /// 1, 2 or 3.
    pub dimensions: usize,
    /// Nodes per direction (polynomial degree + 1), 1 to 8: the paper's
    /// "order".
    pub order: usize,
    /// Cells per direction, one number per dimension.
    pub cells: Vec<usize>,
    /// The advection velocity, one component per dimension; for isothermal
    /// Euler the background flow velocity of the initial state.
    pub velocity: Vec<f64>,
    /// Isothermal Euler: the sound speed `a` (`p = a^2 rho`).
    pub sound_speed: f64,
    /// Isothermal Euler: the amplitude `A` of the simple wave's density or
    /// of the shear flow's transverse velocity; compressible Euler: the
    /// density wave's amplitude or the vortex's strength.
    pub amplitude: f64,
    /// Compressible Euler: the ratio of specific heats.
    pub gamma: f64,
    /// Compressible Euler: the pressure of the density wave and of the
    /// constant state.
    pub pressure: f64,
    /// The Euler equations' face flux: `"rusanov"` (the default) or
    /// `"hll"`.
    pub flux: FaceFlux,
    /// The time scheme: "rk3-heun", "ssprk3", "rk4", "rk6", "lserk54".
    pub rk: String,
    /// The final time.
    pub final_time: f64,
    /// The CFL number of the time step `dt = cfl min(h_d) / (sum_d
    /// lambda_d (2 (n - 1) + 1))` (`n` nodes per direction, `lambda_d` the
    /// largest wave speed along direction `d`: `|a_d|` for advection,
    /// `max |u_d| + a` over the initial state for isothermal Euler).
    pub cfl: f64,
    /// The initial state.
    pub initial: Initial,
    /// The number of modes `Nk` of the multi-mode signal.
    pub modes: usize,
    /// The seed of the multi-mode signal's amplitudes.
    pub seed: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            equation: Equation::Advection,
            dimensions: 1,
            order: 4,
            cells: vec![16],
            velocity: vec![1.0],
            sound_speed: 1.0,
            amplitude: 0.1,
            gamma: 1.4,
            pressure: 1.0,
            flux: FaceFlux::Rusanov,
            rk: "lserk54".into(),
            final_time: 1.0,
            cfl: 0.5,
            initial: Initial::Sine,
            modes: 40,
            seed: 1,
        }
    }
}

impl Settings {
    /// The multi-mode signal's amplitudes `A_1 .. A_Nk`, uniform in `[0,
    /// 1)` from the seed (`rand`'s `StdRng`: the same numbers for a seed
    /// with the same `rand` release, which `Cargo.lock` pins).
    pub fn amplitudes(&self) -> Vec<f64> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(self.seed);
        (0..self.modes).map(|_| rng.gen::<f64>()).collect()
    }

    /// The time scheme (after [`Settings::validate`]).
    pub fn scheme(&self) -> Result<Scheme, String> {
        self.rk
            .parse()
            .map_err(|e| format!("[dg] rk = \"{}\": {e}", self.rk))
    }

    /// The cells in use per direction, 1 past the case's dimensions.
    pub fn grid(&self) -> [usize; 3] {
        let mut g = [1; 3];
        for (d, c) in self.cells.iter().take(self.dimensions).enumerate() {
            g[d] = *c;
        }
        g
    }

    /// The cell widths `[hx, hy, hz]` on the unit box (1 past the case's
    /// dimensions).
    pub fn spacing(&self) -> [f64; 3] {
        self.grid().map(|c| 1.0 / c as f64)
    }

    /// The velocity in use, 0 past the case's dimensions.
    pub fn speed(&self) -> [f64; 3] {
        let mut a = [0.0; 3];
        for (d, v) in self.velocity.iter().take(self.dimensions).enumerate() {
            a[d] = *v;
        }
        a
    }

    /// The time step for the largest wave speeds `lambda` along x, y and
    /// z: `dt = cfl min_d h_d / (sum_d lambda_d (2 (n - 1) + 1))` over the
    /// case's dimensions, the usual RK-DG rule with the degree's `2 N +
    /// 1`; stable for `cfl <= 1` with every scheme here and every order
    /// (tested for advection). An infinite step if every speed is 0.
    pub fn dt(&self, lambda: [f64; 3]) -> f64 {
        let d = self.dimensions;
        let h = self.spacing()[..d]
            .iter()
            .fold(f64::INFINITY, |m, v| m.min(*v));
        let l: f64 = lambda[..d].iter().sum();
        self.cfl * h / (l * (2 * (self.order - 1) + 1) as f64)
    }

    /// Variables per node: 1 for advection, `1 + dimensions` for
    /// isothermal Euler.
    pub fn variables(&self) -> usize {
        match self.equation {
            Equation::Advection => 1,
            Equation::IsothermalEuler => 1 + self.dimensions,
            Equation::Euler => 2 + self.dimensions,
        }
    }

    /// The time at which the simple wave breaks into a shock: the first
    /// time at which two characteristics meet, `sqrt(1 - A^2) / (2 pi g a
    /// |A|)` (`g = |grad phi| = sqrt(dimensions)`); infinite for `A = 0`.
    pub fn breaking_time(&self) -> f64 {
        let g = (self.dimensions as f64).sqrt();
        let a = self.amplitude.abs();
        (1.0 - a * a).sqrt() / (2.0 * std::f64::consts::PI * g * self.sound_speed * a)
    }

    /// The compressible Euler settings, checked.
    fn validate_euler(&self) -> Result<(), String> {
        let name = self.initial.name();
        if self.dimensions == 1 {
            return Err(
                "[dg] dimensions = 1: the compressible Euler equations run in 2D and 3D (give dimensions = 2 or 3)"
                    .into(),
            );
        }
        if !(self.gamma.is_finite() && self.gamma > 1.0) {
            return Err(format!(
                "[dg] gamma = {}: give a finite ratio > 1",
                Num(self.gamma)
            ));
        }
        if !(self.pressure.is_finite() && self.pressure > 0.0) {
            return Err(format!(
                "[dg] pressure = {}: give a finite pressure > 0",
                Num(self.pressure)
            ));
        }
        if !self.amplitude.is_finite() {
            return Err(format!(
                "[dg] amplitude = {}: give a finite number",
                self.amplitude
            ));
        }
        match self.initial {
            Initial::Constant | Initial::IsentropicVortex => Ok(()),
            Initial::DensityWave if self.amplitude.abs() < 1.0 => Ok(()),
            Initial::DensityWave => Err(format!(
                "[dg] amplitude = {}: the density wave's density 1 + A sin(..) must stay positive (give |A| < 1)",
                Num(self.amplitude)
            )),
            _ => Err(format!(
                "[dg] initial = \"{name}\": compressible Euler takes \"constant\", \"isentropic-vortex\" or \"density-wave\""
            )),
        }
    }

    /// The initial states each equation takes, checked.
    fn validate_initial(&self) -> Result<(), String> {
        let name = self.initial.name();
        if self.flux == FaceFlux::Hll && self.equation == Equation::Advection {
            return Err(
                "[dg] flux = \"hll\": for the Euler equations (advection's flux is upwind: leave flux out)"
                    .into(),
            );
        }
        match (self.equation, self.initial) {
            (Equation::Euler, _) => self.validate_euler(),
            (Equation::Advection, Initial::Sine | Initial::Constant | Initial::Multimode) => Ok(()),
            (Equation::Advection, _) => Err(format!(
                "[dg] initial = \"{name}\": an Euler state; advection takes \"sine\", \"constant\" or \"multimode\""
            )),
            (
                Equation::IsothermalEuler,
                Initial::Sine | Initial::Multimode | Initial::IsentropicVortex | Initial::DensityWave,
            ) => Err(format!(
                "[dg] initial = \"{name}\": not an isothermal Euler state; isothermal Euler takes \"constant\", \"simple-wave\" or \"shear\" (2D)"
            )),
            (Equation::IsothermalEuler, Initial::Shear) if self.dimensions != 2 => Err(
                "[dg] initial = \"shear\": the boosted shear flow is 2D (give dimensions = 2)".into(),
            ),
            (Equation::IsothermalEuler, _) => {
                if !(self.sound_speed.is_finite() && self.sound_speed > 0.0) {
                    return Err(format!(
                        "[dg] sound_speed = {}: give a finite speed > 0",
                        Num(self.sound_speed)
                    ));
                }
                if !self.amplitude.is_finite() {
                    return Err(format!("[dg] amplitude = {}: give a finite number", self.amplitude));
                }
                if self.initial == Initial::SimpleWave {
                    if self.amplitude.abs() >= 1.0 {
                        return Err(format!(
                            "[dg] amplitude = {}: the simple wave's density 1 + A sin(..) must stay positive (give |A| < 1)",
                            Num(self.amplitude)
                        ));
                    }
                    let tb = self.breaking_time();
                    if self.final_time >= tb {
                        return Err(format!(
                            "[dg] final_time = {}: the simple wave breaks into a shock at t = {} (amplitude {}, sound speed {}); give an earlier time or a smaller amplitude",
                            Num(self.final_time), Num(tb), Num(self.amplitude), Num(self.sound_speed)
                        ));
                    }
                }
                Ok(())
            }
        }
    }

    /// Checks the settings; an error names the key.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=3).contains(&self.dimensions) {
            return Err(format!(
                "[dg] dimensions = {}: give 1, 2 or 3",
                self.dimensions
            ));
        }
        if !(1..=MAX_NODES).contains(&self.order) {
            return Err(format!(
                "[dg] order = {}: give 1 to {MAX_NODES} (nodes per direction, degree + 1)",
                self.order
            ));
        }
        let used = self.dimensions;
        if self.cells.len() != used {
            return Err(format!(
                "[dg] cells = {:?}: give {used} number{} (one per dimension)",
                self.cells,
                if used == 1 { "" } else { "s" }
            ));
        }
        if self.velocity.len() != used {
            return Err(format!(
                "[dg] velocity = {:?}: give {used} component{} (one per dimension)",
                self.velocity,
                if used == 1 { "" } else { "s" }
            ));
        }
        if self.cells.iter().any(|&c| c > 1 << 20) {
            return Err(format!(
                "[dg] cells = {:?}: at most 1048576 per direction",
                self.cells
            ));
        }
        if self.cells.contains(&0) {
            return Err(format!(
                "[dg] cells = {:?}: give at least one cell per direction",
                self.cells
            ));
        }
        let total = self
            .cells
            .iter()
            .try_fold(1u64, |n, &c| n.checked_mul(c as u64));
        if total.is_none_or(|n| n > MAX_CELLS) {
            return Err(format!(
                "[dg] cells = {:?}: at most {MAX_CELLS} cells in all",
                self.cells
            ));
        }
        if self.velocity.iter().any(|v| !v.is_finite()) {
            return Err(format!(
                "[dg] velocity = {:?}: give finite components",
                self.velocity
            ));
        }
        self.scheme()?;
        if !(self.final_time.is_finite() && self.final_time > 0.0) {
            return Err(format!(
                "[dg] final_time = {}: give a finite time > 0",
                Num(self.final_time)
            ));
        }
        if !(1..=1000).contains(&self.modes) {
            return Err(format!("[dg] modes = {}: give 1 to 1000", self.modes));
        }
        // Stable up to 1 with every scheme and order here; above, a run may
        // diverge (stopped by the method: a norm that grows, or a state
        // that is not finite or physical).
        if !(self.cfl.is_finite() && self.cfl > 0.0 && self.cfl <= 10.0) {
            return Err(format!(
                "[dg] cfl = {}: give a number > 0 and at most 10 (every scheme here is stable \
                 up to 1)",
                Num(self.cfl)
            ));
        }
        self.validate_initial()
    }
}
