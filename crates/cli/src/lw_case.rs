//! The Lax-Wendroff oblique-shock case file:
//!
//! ```toml
//! method = "lw"
//! [grid]
//! nx = 1600                      # cells on [0, 4] x [0, 1]
//! ny = 400
//!
//! [lw]                           # all optional: the paper's problem
//! viscosity = "conservative"     # or "paper": the published (non-conservative) filter
//! wall = "mirror"                # or "paper": ghosts copy the first row, v = 0
//! setup = "exact"                # or "paper-code": the paper's code's nodes, constants, steps
//! final_time = 3.0
//! cfl = 0.8
//! gamma = 1.4
//! inflow = [1.0, 2.9, 0.0, 0.71429]   # rho, u, v, p
//! shock_angle = 29.0             # degrees, from the top-left corner
//! decomposition = "blocks"       # or "strips": how mpirun cuts the grid
//!
//! [stop]                         # optional: a step limit before the final time
//! max_iters = 100
//!
//! [output]
//! dir = "out"
//! ```

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

use qflow_lw::{Grid, Settings};

use crate::case::{MethodName, Output, Stop};

/// A Lax-Wendroff case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LwCase {
    /// The method (`lw`).
    pub method: MethodName,
    /// The grid.
    pub grid: Grid,
    /// The method's settings.
    #[serde(default)]
    pub lw: Settings,
    /// A step limit (the run otherwise ends at `[lw] final_time`).
    pub stop: Option<Stop>,
    /// Where results go.
    #[serde(default)]
    pub output: Output,
}

impl LwCase {
    /// Checks every value before any work; the error names the key.
    pub fn validate(&self) -> Result<()> {
        if let Some(s) = &self.stop {
            s.validate()?;
            if s.residue_drop.is_some() {
                bail!("[stop] residue_drop: the lw method runs to [lw] final_time (or [stop] max_iters)");
            }
        }
        self.grid.validate().map_err(anyhow::Error::msg)?;
        self.lw.validate().map_err(anyhow::Error::msg)?;
        qflow_lw::problem::shock(&self.lw).map_err(anyhow::Error::msg)?;
        let need = self.bytes_needed();
        if let Some(have) = crate::case::available_memory() {
            if need > have {
                bail!(
                    "[grid] {} x {} cells: a run needs about {:.1} GiB, this machine has {:.1} GiB available",
                    self.grid.nx,
                    self.grid.ny,
                    need as f64 / f64::from(1 << 30),
                    have as f64 / f64::from(1 << 30)
                );
            }
        }
        Ok(())
    }

    /// About the bytes rank 0 holds at its peak: the problem it builds
    /// (the state and the kinds), the three state dats of its part, and the
    /// gathered state and fields of the outputs: 330 bytes per cell (3.3 GB
    /// measured on 6400 x 1600).
    pub fn bytes_needed(&self) -> u64 {
        let cells = (self.grid.nx as u64 + 4) * (self.grid.ny as u64 + 4);
        cells * 330
    }

    /// The step limit: the case's, else none.
    pub fn max_steps(&self) -> u64 {
        self.stop.as_ref().map_or(u64::MAX, |s| s.max_iters)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::case::CaseFile;

    fn case(text: &str) -> Result<LwCase> {
        let c = CaseFile::parse(text, Path::new("c.toml"), &[])?;
        let f: LwCase = c.get()?;
        f.validate()?;
        Ok(f)
    }

    #[test]
    fn a_case_reads_with_the_papers_defaults() {
        let c = case("method = \"lw\"\n[grid]\nnx = 100\nny = 25\n").unwrap();
        assert_eq!(c.lw, Settings::default());
        assert_eq!(c.grid, Grid { nx: 100, ny: 25 });
        assert_eq!(c.max_steps(), u64::MAX);
    }

    #[test]
    fn bad_cases_name_what_is_wrong() {
        let err = |t: &str| format!("{:#}", case(t).unwrap_err());
        let g = "method = \"lw\"\n[grid]\nnx = 100\nny = 25\n";
        let e = err("method = \"lw\"\n[grid]\nnx = 0\nny = 25\n");
        assert!(e.contains("[grid] nx = 0"), "{e}");
        let e = err(&format!("{g}[lw]\nviscosity = \"sticky\"\n"));
        assert!(e.contains("sticky"), "{e}");
        let e = err(&format!("{g}[lw]\ninflow = [1.0, 0.5, 0.0, 0.71429]\n"));
        assert!(
            e.contains("[lw] inflow") && e.contains("not supersonic"),
            "{e}"
        );
        let e = err(&format!("{g}[lw]\nshock_angle = 10.0\n"));
        assert!(e.contains("[lw] shock_angle = 10"), "{e}");
        let e = err(&format!("{g}[lw]\nfinal_time = 0.0\n"));
        assert!(e.contains("[lw] final_time = 0"), "{e}");
        let e = err(&format!("{g}[lw]\ncfl = 1.5\n"));
        assert!(e.contains("[lw] cfl = 1.5"), "{e}");
        let e = err(&format!("{g}[lw]\nmach = 2.0\n"));
        assert!(e.contains("mach"), "{e}");
        let e = err("method = \"lw\"\n");
        assert!(e.contains("grid"), "{e}");
        let e = err("method = \"lw\"\n[grid]\nnx = 102\nny = 25\n");
        assert!(
            e.contains("[grid] nx = 102: must be a multiple of 4"),
            "{e}"
        );
        // 4e8 cells: more memory than this machine has (where it has less
        // than the 100 GB that needs).
        let big = "method = \"lw\"\n[grid]\nnx = 100000\nny = 4000\n";
        let c = CaseFile::parse(big, Path::new("c.toml"), &[]).unwrap();
        let f: LwCase = c.get().unwrap();
        if crate::case::available_memory().is_some_and(|m| m < f.bytes_needed()) {
            let e = err(big);
            assert!(e.contains("GiB available"), "{e}");
        }
    }
}
