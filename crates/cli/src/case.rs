//! Case files: TOML, every key checked (an unknown key is an error naming it),
//! every omitted setting at the reference's default.
//!
//! ```toml
//! [cloud]
//! file = "naca0012.cloud"      # relative to the case file's folder
//! # or: generate = { section = "naca0012", wall_points = 160, rings = 60, far_field = 10.0 }
//!
//! [flow]
//! mach = 0.63
//! aoa = 2.0                    # degrees
//!
//! [solver]                     # all optional, reference defaults
//! cfl = 0.2
//! scheme = "ssprk43"           # or "euler"
//! inner_iterations = 3
//! limiter = "venkatakrishnan"  # or "none"
//! vl_const = 50.0
//! power = 0.0
//! force_normals = "boundary"   # or "solver"
//! renumber = "auto"            # or "none", "rcm", "hilbert"
//!
//! [stop]
//! max_iters = 1000
//! residue_drop = 6.0           # optional: stop after a drop of 6 orders
//!
//! [output]
//! dir = "out"                  # relative to the case file's folder
//! checkpoint_every = 1000      # iterations; 0: only at the end
//! vtk = true                   # field.vtu for ParaView
//! plots = true                 # history.png, cp.png, mach.png
//! ```

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use qflow_mesh::generate::{Naca4, NacaOGrid, Stretching};
use qflow_lskum::settings::{ForceNormals, Limiter, Scheme};
use qflow_lskum::Settings;

/// A whole case file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Where the cloud comes from.
    pub cloud: CloudSource,
    /// The free stream.
    #[serde(default)]
    pub flow: Flow,
    /// The method's settings.
    #[serde(default)]
    pub solver: SolverSection,
    /// When to stop.
    #[serde(default)]
    pub stop: Stop,
    /// Where results go.
    #[serde(default)]
    pub output: Output,
}

/// The `[cloud]` section: a file, or a generator spec.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloudSource {
    /// A cloud file (legacy text format), relative to the case file.
    pub file: Option<PathBuf>,
    /// A cloud to generate.
    pub generate: Option<GenerateSpec>,
}

/// A NACA 4-digit O-grid to generate (see `qflow generate`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateSpec {
    /// The section, e.g. `naca0012`.
    pub section: String,
    /// Points on the body.
    pub wall_points: usize,
    /// Rings of points, body and far field included.
    pub rings: usize,
    /// Far-field radius in chords, about (0.5, 0).
    pub far_field: f64,
    /// First-ring spacing (chords); exclusive with `growth`.
    pub first_spacing: Option<f64>,
    /// Growth ratio of the ring spacings; exclusive with `first_spacing`.
    pub growth: Option<f64>,
}

impl GenerateSpec {
    /// The generator this spec describes.
    pub fn generator(&self) -> Result<NacaOGrid> {
        let section: Naca4 = self.section.parse()?;
        let stretching = match (self.first_spacing, self.growth) {
            (Some(_), Some(_)) => bail!("give either first_spacing or growth, not both"),
            (Some(h), None) => Some(Stretching::FirstSpacing(h)),
            (None, Some(g)) => Some(Stretching::GrowthRatio(g)),
            (None, None) => None,
        };
        Ok(NacaOGrid {
            section,
            wall_points: self.wall_points,
            rings: self.rings,
            far_field: self.far_field,
            stretching,
        })
    }
}

/// The `[flow]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Flow {
    /// Free-stream Mach number.
    pub mach: f64,
    /// Angle of attack, degrees.
    pub aoa: f64,
}

impl Default for Flow {
    fn default() -> Self {
        let s = Settings::default();
        Flow {
            mach: s.mach,
            aoa: s.aoa,
        }
    }
}

/// The `[solver]` section (every key optional; reference defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SolverSection {
    /// CFL number.
    pub cfl: f64,
    /// Time-marching scheme.
    pub scheme: Scheme,
    /// Inner (Jacobi) sweeps of the q-derivatives.
    pub inner_iterations: u32,
    /// Limiter.
    pub limiter: Limiter,
    /// Venkatakrishnan's constant.
    pub vl_const: f64,
    /// Least-squares weight exponent.
    pub power: f64,
    /// Normals of the force sum.
    pub force_normals: ForceNormals,
    /// Renumbering of the points for memory locality: `auto` (reverse
    /// Cuthill-McKee when it brings neighbours much closer in memory), `none`,
    /// `rcm` or `hilbert`. Outputs are always in the cloud's own numbering.
    pub renumber: RenumberChoice,
}

/// The `renumber` setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RenumberChoice {
    /// RCM when it at least halves the mean index gap between a point and its
    /// neighbours.
    Auto,
    /// The cloud's numbering.
    None,
    /// Reverse Cuthill-McKee.
    Rcm,
    /// Hilbert curve.
    Hilbert,
}

impl Default for SolverSection {
    fn default() -> Self {
        let s = Settings::default();
        SolverSection {
            cfl: s.cfl,
            scheme: s.scheme,
            inner_iterations: s.inner_iterations,
            limiter: s.limiter,
            vl_const: s.vl_const,
            power: s.power,
            force_normals: s.force_normals,
            renumber: RenumberChoice::Auto,
        }
    }
}

/// The `[stop]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Stop {
    /// Iteration limit.
    pub max_iters: u64,
    /// Orders of magnitude of residue drop to stop at.
    pub residue_drop: Option<f64>,
}

impl Default for Stop {
    fn default() -> Self {
        Stop {
            max_iters: 1000,
            residue_drop: None,
        }
    }
}

/// The `[output]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Output {
    /// Output folder, relative to the case file's folder (default: `out/<case
    /// name>` in the current folder).
    pub dir: Option<PathBuf>,
    /// Write a checkpoint every this many iterations (0: only at the end).
    pub checkpoint_every: u64,
    /// Write the field for ParaView (`field.vtu`).
    pub vtk: bool,
    /// Write PNG plots (convergence, surface Cp, Mach field).
    pub plots: bool,
}

impl Default for Output {
    fn default() -> Self {
        Output {
            dir: None,
            checkpoint_every: 1000,
            vtk: true,
            plots: true,
        }
    }
}

impl Case {
    /// Reads and checks a case file. Errors name the file and the key.
    pub fn load(path: &Path) -> Result<Case> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read case file {}", path.display()))?;
        Self::parse(&text).with_context(|| format!("case file {}", path.display()))
    }

    /// Parses and checks the text of a case file.
    pub fn parse(text: &str) -> Result<Case> {
        let case: Case = toml::from_str(text)?;
        match (&case.cloud.file, &case.cloud.generate) {
            (Some(_), Some(_)) => bail!("[cloud]: give either `file` or `generate`, not both"),
            (None, None) => bail!("[cloud]: give a cloud `file` or a `generate` spec"),
            _ => {}
        }
        if case.stop.max_iters == 0 {
            bail!("[stop] max_iters = 0: nothing to run");
        }
        if let Some(d) = case.stop.residue_drop {
            if !(d.is_finite() && d > 0.0) {
                bail!(
                    "[stop] residue_drop = {d}: must be a positive number of orders of magnitude"
                );
            }
        }
        case.settings().validate()?;
        Ok(case)
    }

    /// The method's settings of this case.
    pub fn settings(&self) -> Settings {
        Settings {
            mach: self.flow.mach,
            aoa: self.flow.aoa,
            cfl: self.solver.cfl,
            inner_iterations: self.solver.inner_iterations,
            vl_const: self.solver.vl_const,
            power: self.solver.power,
            limiter: self.solver.limiter,
            scheme: self.solver.scheme,
            force_normals: self.solver.force_normals,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_reference_settings() {
        let c = Case::parse("[cloud]\nfile = \"a.cloud\"\n").unwrap();
        assert_eq!(c.settings(), Settings::default());
        assert_eq!(c.stop.max_iters, 1000);
    }

    #[test]
    fn unknown_keys_are_named() {
        let e = format!(
            "{:#}",
            Case::parse("[cloud]\nfile = \"a\"\n[flow]\nmahc = 0.5\n").unwrap_err()
        );
        assert!(e.contains("mahc"), "{e}");
        let e = format!(
            "{:#}",
            Case::parse("[cloud]\nfile = \"a\"\n[solvr]\n").unwrap_err()
        );
        assert!(e.contains("solvr"), "{e}");
        let e = format!(
            "{:#}",
            Case::parse("[cloud]\nfile = \"a\"\n[solver]\nscheme = \"rk9\"\n").unwrap_err()
        );
        assert!(e.contains("rk9") || e.contains("scheme"), "{e}");
    }

    #[test]
    fn bad_values_are_named() {
        let e = format!(
            "{:#}",
            Case::parse("[cloud]\nfile = \"a\"\n[solver]\ncfl = -1.0\n").unwrap_err()
        );
        assert!(e.contains("cfl"), "{e}");
        let e = format!("{:#}", Case::parse("[cloud]\n").unwrap_err());
        assert!(e.contains("[cloud]"), "{e}");
    }
}
