//! The nodal DG case file:
//!
//! ```toml
//! method = "dg"
//! [dg]
//! equation = "advection"        # or "isothermal-euler" (p = a^2 rho), or "euler"
//!                               # (an ideal gas, 2D and 3D)
//! dimensions = 2                # 1, 2 or 3
//! order = 8                     # nodes per direction (degree + 1), 1 to 8
//! cells = [40, 40]              # one number per dimension, on the unit box
//! velocity = [1.0, 1.0]         # one component per dimension (Euler: the background flow)
//! sound_speed = 1.0             # isothermal Euler: a
//! amplitude = 0.1               # isothermal Euler: of the simple wave's density / the shear;
//!                               # euler: the density wave's, or the vortex's strength (5)
//! gamma = 1.4                   # euler: the ratio of specific heats
//! pressure = 1.0                # euler: of the density wave and the constant state
//! flux = "rusanov"              # the Euler equations: or "hll"
//! rk = "rk6"                    # "rk3-heun", "ssprk3", "rk4", "rk6", "lserk54"
//! final_time = 1.0
//! cfl = 0.5
//! initial = "sine"              # or "constant", or "multimode" (the paper's eq. 14);
//!                               # isothermal Euler: "constant", "simple-wave" or "shear" (2D);
//!                               # euler: "constant", "isentropic-vortex" or "density-wave"
//! modes = 40                    # multimode: Nk, the largest wave number
//! seed = 1                      # multimode: the amplitudes' seed
//!
//! [stop]                        # optional: a step limit before the final time
//! max_iters = 100
//!
//! [picture]                     # 3D only: the plane field.png shows
//! normal = "z"                  # the axis across it: "x", "y" or "z"
//! at = 0.25                     # where it cuts that axis, in [0, 1]
//! ```

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

use qflow_dg::Settings;
pub use qflow_par::decl::Axis;

use crate::case::{CaseFile, MethodName, Output, Stop};

/// A nodal DG case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DgCase {
    /// The method (`dg`).
    pub method: MethodName,
    /// The method's settings.
    #[serde(default)]
    pub dg: Settings,
    /// A step limit (the run otherwise ends at `[dg] final_time`).
    pub stop: Option<Stop>,
    /// Where results go.
    #[serde(default)]
    pub output: Output,
    /// The plane of the 3D picture (default: z = 1/4, where the default
    /// sine mode peaks).
    pub picture: Option<Plane>,
}

/// A plane of the unit box: the coordinate `normal` at `at`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plane {
    /// The axis across the plane.
    pub normal: Axis,
    /// Where the plane cuts that axis (0 to 1).
    pub at: f64,
}

impl Default for Plane {
    fn default() -> Self {
        Plane {
            normal: Axis::Z,
            at: 0.25,
        }
    }
}

impl DgCase {
    /// Checks every value before any work; the error names the key.
    pub fn validate(&self) -> Result<()> {
        if let Some(s) = &self.stop {
            s.validate()?;
            if s.residue_drop.is_some() {
                bail!("[stop] residue_drop: the dg method runs to [dg] final_time (or [stop] max_iters)");
            }
        }
        self.dg.validate().map_err(anyhow::Error::msg)?;
        if let Some(p) = &self.picture {
            if self.dg.dimensions != 3 {
                bail!(
                    "[picture]: only 3D cases have a plane to choose (this one has dimensions = {}; \
                     its picture shows the whole box)",
                    self.dg.dimensions
                );
            }
            if !(0.0..=1.0).contains(&p.at) {
                bail!(
                    "[picture] at = {}: the plane must cut the box, 0 to 1",
                    p.at
                );
            }
        }
        let need = self.bytes_needed();
        if let Some(have) = crate::case::available_memory() {
            if need > have {
                bail!(
                    "[dg] cells = {:?}: a run needs about {:.1} GiB, this machine has {:.1} GiB available",
                    self.dg.cells,
                    need as f64 / f64::from(1 << 30),
                    have as f64 / f64::from(1 << 30)
                );
            }
        }
        Ok(())
    }

    /// About the bytes rank 0 holds: up to 11 dats of a cell's values (8
    /// or 64 per variable in 1D or 2D), and the outputs' copies.
    /// Saturates at `u64::MAX` (a grid too large to count is too large to
    /// hold).
    pub fn bytes_needed(&self) -> u64 {
        let per_cell = qflow_dg::problem::element_len(&self.dg) as u64;
        self.dg
            .grid()
            .iter()
            .try_fold(per_cell * 8 * 14, |b: u64, &c| b.checked_mul(c as u64))
            .unwrap_or(u64::MAX)
    }

    /// The step limit: the case's, else none.
    pub fn max_steps(&self) -> u64 {
        self.stop.as_ref().map_or(u64::MAX, |s| s.max_iters)
    }
}

/// The settings that define a DG run's discrete problem (a checkpoint of
/// another is refused).
pub fn problem_key(settings: &qflow_dg::Settings) -> String {
    let mut key = format!(
        "equation = {}\ndimensions = {}\norder = {}\ncells = {:?}\nvelocity = {:?}\nsound_speed = {:?}\namplitude = {:?}\nrk = {}\ncfl = {:?}\ninitial = {}\n",
        settings.equation.name(),
        settings.dimensions,
        settings.order,
        settings.cells,
        settings.velocity,
        settings.sound_speed,
        settings.amplitude,
        settings.rk,
        settings.cfl,
        settings.initial.name()
    );
    // The multi-mode signal's amplitudes are part of the problem (a resume
    // with another seed or count was accepted and measured its errors
    // against another exact solution).
    if settings.initial == qflow_dg::settings::Initial::Multimode {
        key.push_str(&format!(
            "modes = {}\nseed = {}\n",
            settings.modes, settings.seed
        ));
    }
    key
}

/// Keys of `[dg]` that the case's equation or initial state does not use
/// (they were accepted and ignored), refused by name.
pub fn refuse_unused_keys(case: &CaseFile, dg: &qflow_dg::Settings) -> Result<()> {
    use qflow_dg::settings::{Equation, Initial};
    let Some(toml::Value::Table(t)) = case.table.get("dg") else {
        return Ok(());
    };
    let euler = dg.equation == Equation::IsothermalEuler;
    let gas = dg.equation == Equation::Euler;
    let multimode = dg.initial == Initial::Multimode;
    let pressure = gas && dg.initial != Initial::IsentropicVortex;
    for (key, used, what) in [
        ("sound_speed", euler, "isothermal-euler's"),
        ("amplitude", euler || gas, "the Euler equations'"),
        ("gamma", gas, "euler's"),
        (
            "pressure",
            pressure,
            "euler's density wave's and constant state's",
        ),
        ("flux", euler || gas, "the Euler equations'"),
        ("modes", multimode, "the multimode signal's"),
        ("seed", multimode, "the multimode signal's"),
    ] {
        if t.contains_key(key) && !used {
            bail!(
                "[dg] {key}: {what}, unused by this case (equation = \"{}\", initial = \"{}\"); \
                 leave it out",
                dg.equation.name(),
                dg.initial.name()
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn case(text: &str) -> Result<DgCase> {
        let c = CaseFile::parse(text, Path::new("c.toml"), &[])?;
        let f: DgCase = c.get()?;
        f.validate()?;
        Ok(f)
    }

    #[test]
    fn the_issues_case_reads() {
        let c = case(
            "method = \"dg\"\n[dg]\nequation = \"advection\"\ndimensions = 2\norder = 8\n\
             cells = [40, 40]\nvelocity = [1.0, 1.0]\nrk = \"rk6\"\nfinal_time = 1.0\ninitial = \"sine\"\n",
        )
        .unwrap();
        assert_eq!(c.dg.order, 8);
        assert_eq!(c.dg.grid(), [40, 40, 1]);
        assert_eq!(c.max_steps(), u64::MAX);
    }

    #[test]
    fn bad_cases_name_what_is_wrong() {
        let err = |t: &str| {
            format!(
                "{:#}",
                case(&format!("method = \"dg\"\n[dg]\n{t}")).unwrap_err()
            )
        };
        let e = err("order = 9\n");
        assert!(e.contains("[dg] order = 9"), "{e}");
        let e = err("dimensions = 2\ncells = [8]\nvelocity = [1.0, 1.0]\n");
        assert!(e.contains("[dg] cells = [8]"), "{e}");
        let e = err("rk = \"rk5\"\n");
        assert!(e.contains("rk5"), "{e}");
        let e = err("equation = \"isothermal-euler\"\n");
        assert!(e.contains("[dg] initial = \"sine\""), "{e}");
        let e =
            err("equation = \"isothermal-euler\"\ninitial = \"simple-wave\"\nsound_speed = -1.0\n");
        assert!(e.contains("[dg] sound_speed = -1"), "{e}");
        let e = err("cfl = 0.0\n");
        assert!(e.contains("[dg] cfl = 0"), "{e}");
        let e = err("dimensions = 4\n");
        assert!(e.contains("[dg] dimensions = 4"), "{e}");
        let e = err("dimensions = 3\ncells = [4, 4]\nvelocity = [1.0, 1.0, 1.0]\n");
        assert!(e.contains("[dg] cells = [4, 4]"), "{e}");
        let e = err("ordre = 3\n");
        assert!(e.contains("ordre"), "{e}");
        let three = "dimensions = 3\ncells = [4, 4, 4]\nvelocity = [1.0, 1.0, 1.0]\n";
        let e = err(&format!("{three}[picture]\nnormal = \"x\"\nat = 1.5\n"));
        assert!(e.contains("[picture] at = 1.5"), "{e}");
        let e = err(&format!("{three}[picture]\nnormal = \"w\"\nat = 0.5\n"));
        assert!(e.contains("`w`"), "{e}");
        let e = err("[picture]\nnormal = \"x\"\nat = 0.5\n");
        assert!(e.contains("[picture]: only 3D"), "{e}");
    }

    #[test]
    fn the_3d_picture_plane_is_chosen() {
        let three = "method = \"dg\"\n[dg]\ndimensions = 3\ncells = [4, 4, 4]\nvelocity = [1.0, 1.0, 1.0]\n";
        let c = case(three).unwrap();
        assert_eq!(c.picture, None);
        let c = case(&format!("{three}[picture]\nnormal = \"y\"\nat = 0.5\n")).unwrap();
        assert_eq!(
            c.picture,
            Some(Plane {
                normal: Axis::Y,
                at: 0.5
            })
        );
    }
}
