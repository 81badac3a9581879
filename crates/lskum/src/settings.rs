//! Settings of the method and their reference defaults (`docs/lskum.md`).

use serde::{Deserialize, Serialize};

use crate::gas::FreeStream;

/// The time-marching scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    /// Four-stage strong-stability-preserving Runge-Kutta in the reference's
    /// form: `U <- U - R/2` at each stage, the third stage averaging with the
    /// state at the start of the iteration.
    Ssprk43,
    /// Forward Euler, one stage, `U <- U - R`.
    Euler,
    /// Newton-Krylov for steady problems (`crate::newton`): pseudo-time
    /// Newton steps on the forward-Euler step's fixed point, GMRES with a
    /// first-order block ILU(0) preconditioner.
    #[serde(rename = "newton-krylov")]
    NewtonKrylov,
}

impl Scheme {
    /// Number of stages per iteration.
    pub fn stages(self) -> usize {
        match self {
            Scheme::Ssprk43 => 4,
            Scheme::Euler | Scheme::NewtonKrylov => 1,
        }
    }

    /// The factor of the flux residual in the update (`U <- U - f R`).
    pub fn residual_factor(self) -> f64 {
        // The reference writes 0.5 * euler with euler = 1 (ssprk43) or 2.
        match self {
            Scheme::Ssprk43 => 0.5,
            Scheme::Euler | Scheme::NewtonKrylov => 0.5 * 2.0,
        }
    }

    /// A lower-case name, as in case files.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Ssprk43 => "ssprk43",
            Scheme::Euler => "euler",
            Scheme::NewtonKrylov => "newton-krylov",
        }
    }
}

/// The Newton-Krylov scheme's preconditioner, built from the first-order
/// residual's Jacobian.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preconditioner {
    /// Block incomplete LU without fill.
    #[default]
    Ilu0,
    /// Block symmetric Gauss-Seidel, `(D + L) D^-1 (D + U)`: LU-SGS with
    /// the exact 4 x 4 blocks.
    LuSgs,
}

/// The reconstruction limiter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Limiter {
    /// Venkatakrishnan's limiter with constant `vl_const`, evaluated per
    /// reconstruction (the reference's).
    Venkatakrishnan,
    /// Venkatakrishnan's limiter per point: each point's value is the least
    /// over its stencil and every reconstruction from the point uses it
    /// (as SU2 does); it switches far less from one evaluation to the next,
    /// which steady solvers need on some clouds (docs/verification.md 9f).
    #[serde(rename = "venkatakrishnan-point")]
    VenkatakrishnanPoint,
    /// No limiting.
    None,
}

/// Which normal the force sum uses at shape points that are not wall points
/// (the trailing-edge point of the usual NACA clouds is an interior point
/// with a shape id).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ForceNormals {
    /// The normal from the left and right boundary neighbours at every shape
    /// point: the surface integral of the pressure over the body's polygon.
    Boundary,
    /// The solver's normal, `(0, 1)` at interior points, as the reference
    /// C++ code sums its forces (the reference's default; qflow's is
    /// `boundary`, because the trailing edge's force then acts along the
    /// body's own normal rather than straight up).
    Solver,
}

/// The free-stream state the kinetic far-field condition uses at the outer
/// points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FarField {
    /// The free stream itself (the reference's).
    #[default]
    FreeStream,
    /// The free stream plus the compressible point vortex of the body's
    /// lift (Thomas & Salas, AIAA J. 24(7), 1986): a lifting body's far
    /// field carries its circulation `Gamma = Cl c |V_inf| / 2`, which a
    /// plain free stream at a few chords ignores. Subsonic free streams only.
    Vortex,
}

/// Settings of the method. Every field has the reference's default except
/// `force_normals` (see [`ForceNormals`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// Free-stream Mach number.
    pub mach: f64,
    /// Angle of attack, degrees.
    pub aoa: f64,
    /// CFL number of the local time step.
    pub cfl: f64,
    /// Jacobi sweeps of the q-derivative fit after the first one (0: first
    /// order gradients).
    pub inner_iterations: u32,
    /// Venkatakrishnan's constant.
    pub vl_const: f64,
    /// Exponent of the least-squares weights `w = d^power`.
    pub power: f64,
    /// The limiter.
    pub limiter: Limiter,
    /// The time-marching scheme.
    pub scheme: Scheme,
    /// The normals of the force sum.
    pub force_normals: ForceNormals,
    /// The far-field state at the outer points.
    pub far_field: FarField,
    /// `> 0`: Venkatakrishnan's limiter per point (the least of its values
    /// over the point's stencil, whichever of the two Venkatakrishnan
    /// limiters is chosen), frozen once the residue has fallen this many
    /// orders (SU2's remedy for limiter limit cycles); 0: never frozen.
    pub limiter_freeze: f64,
    /// Newton-Krylov: the first pseudo time step, in units of the explicit
    /// local step (`cfl`); it grows as the residual falls.
    pub implicit_cfl: f64,
    /// Newton-Krylov: Krylov vectors per Newton step at most.
    pub krylov_vectors: u32,
    /// Newton-Krylov: GMRES stops when the linear residual is this
    /// fraction of the nonlinear one.
    pub krylov_tolerance: f64,
    /// Newton-Krylov: iterations between new preconditioners.
    pub jacobian_every: u32,
    /// Newton-Krylov: the preconditioner.
    pub preconditioner: Preconditioner,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            mach: 0.63,
            aoa: 2.0,
            cfl: 0.2,
            inner_iterations: 3,
            vl_const: 50.0,
            power: 0.0,
            limiter: Limiter::Venkatakrishnan,
            scheme: Scheme::Ssprk43,
            force_normals: ForceNormals::Boundary,
            far_field: FarField::FreeStream,
            limiter_freeze: 0.0,
            implicit_cfl: 3.0,
            krylov_vectors: 40,
            krylov_tolerance: 0.2,
            jacobian_every: 5,
            preconditioner: Preconditioner::Ilu0,
        }
    }
}

/// A setting with a value the method cannot use.
#[derive(Debug, thiserror::Error)]
#[error("setting `{key}` = {value}: {reason}")]
pub struct SettingsError {
    /// The setting's name.
    pub key: &'static str,
    /// The value given.
    pub value: String,
    /// Why it cannot be used.
    pub reason: &'static str,
}

/// The lowest free-stream Mach number a case may ask for (see
/// [`Settings::validate`]).
pub const MIN_MACH: f64 = 0.1;

impl Settings {
    /// Checks that every value is usable; the error names the setting.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let bad = |key, value: f64, reason| {
            Err(SettingsError {
                key,
                value: value.to_string(),
                reason,
            })
        };
        // At rest the far-field moments and Cp divide by M^2 (Mach 0 runs to
        // NaN), and the compressible scheme has no low-Mach preconditioning:
        // on the shipped subsonic case (NACA 0012, 2 degrees) Cl is 0.273 at
        // Mach 0.3 and 0.276 at 0.1, but -1.76 at 0.07, 0.73 at 0.05 and
        // -1.55 at 0.01 (docs/lskum.md, "Settings").
        if !(self.mach.is_finite() && self.mach >= MIN_MACH) {
            return bad(
                "mach",
                self.mach,
                "must be a finite Mach number of at least 0.1: below that q-LSKUM's \
                 compressible scheme (no low-Mach preconditioning) gives meaningless forces",
            );
        }
        if self.mach > 50.0 {
            return bad("mach", self.mach, "above 50 is surely a mistake");
        }
        if !(self.aoa.is_finite() && self.aoa.abs() <= 90.0) {
            return bad(
                "aoa",
                self.aoa,
                "must be an angle in degrees between -90 and 90",
            );
        }
        if !(self.cfl.is_finite() && self.cfl > 0.0) {
            return bad("cfl", self.cfl, "must be a finite number > 0");
        }
        if !(self.vl_const.is_finite() && self.vl_const >= 0.0) {
            return bad("vl_const", self.vl_const, "must be a finite number >= 0");
        }
        if !(self.power.is_finite() && self.power.abs() <= 16.0) {
            return bad(
                "power",
                self.power,
                "must be a finite exponent between -16 and 16",
            );
        }
        if self.inner_iterations > 100 {
            return Err(SettingsError {
                key: "inner_iterations",
                value: self.inner_iterations.to_string(),
                reason: "more than 100 sweeps is surely a mistake",
            });
        }
        if !(self.limiter_freeze.is_finite() && (0.0..=16.0).contains(&self.limiter_freeze)) {
            return bad(
                "limiter_freeze",
                self.limiter_freeze,
                "must be a number of orders between 0 (off) and 16",
            );
        }
        if self.limiter_freeze > 0.0 && self.limiter == Limiter::None {
            return bad(
                "limiter_freeze",
                self.limiter_freeze,
                "freezes Venkatakrishnan's limiter: set limiter = \"venkatakrishnan\" or \
                 \"venkatakrishnan-point\"",
            );
        }
        if !(self.implicit_cfl >= 1e-6 && self.implicit_cfl <= 1e4) {
            return bad(
                "implicit_cfl",
                self.implicit_cfl,
                "must be a number from 1e-6 to 1e4 (the longest pseudo time step)",
            );
        }
        // Rank 0 holds 2 x krylov_vectors vectors of 4 values per point.
        if !(1..=200).contains(&self.krylov_vectors) {
            return Err(SettingsError {
                key: "krylov_vectors",
                value: self.krylov_vectors.to_string(),
                reason: "must be between 1 and 200",
            });
        }
        if !(self.krylov_tolerance > 0.0 && self.krylov_tolerance < 1.0) {
            return bad(
                "krylov_tolerance",
                self.krylov_tolerance,
                "must be a fraction between 0 and 1 (both excluded)",
            );
        }
        if self.jacobian_every == 0 {
            return Err(SettingsError {
                key: "jacobian_every",
                value: "0".into(),
                reason: "must be at least 1 (a new preconditioner every iteration)",
            });
        }
        if self.far_field == FarField::Vortex && self.mach >= 0.95 {
            return Err(SettingsError {
                key: "far_field",
                value: format!("\"vortex\" at mach = {}", self.mach),
                reason: "the point vortex's compressibility factor sqrt(1 - M^2) needs a \
                         subsonic free stream (Mach below 0.95)",
            });
        }
        Ok(())
    }

    /// The free stream of these settings.
    pub fn free_stream(&self) -> FreeStream {
        FreeStream::new(self.mach, self.aoa)
    }
}
