//! The finite-volume (OP2 Airfoil) case file:
//!
//! ```toml
//! method = "fv"
//! [mesh]
//! file = "new_grid.dat"          # OP2's format or qflow's .qfm, relative to the case
//! # or a Gmsh (.msh 2.2 or 4.1) or SU2 (.su2) file of triangles, quadrilaterals
//! # or both, its boundary markers mapped:
//! # file = "airfoil.msh"
//! # wall = ["airfoil"]
//! # far_field = ["farfield"]
//! # or: generate = { kind = "op2-naca0012", i = 400, j = 600 }
//! #     (split = "triangles" or "mixed": its cells, or every other, as two triangles)
//!
//! [fv]                           # all optional: OP2's values
//! gam = 1.4                      # default: OP2's 1.4f widened to double
//! cfl = 0.9
//! eps = 0.05
//! mach = 0.4
//! aoa = 0.0                      # angle of attack, degrees (0: along +x, OP2's)
//! strategy = "owner-compute"     # or "sequential", "global-colouring", "two-level",
//!                                 # "atomics", "staged-atomics" (devices only)
//! block_size = 2048              # edges per block of "two-level" on CPUs
//! reorder = "none"               # or "rcm", "partition": renumber the mesh first
//! layout = "aos"                 # or "soa", "mixed" (soa for res only): how the backend stores q, res, ...
//!
//! [expect]                       # optional: the run checks its final rms
//! rms = 1.060114637578078e-04
//! relative_tolerance = 1e-10
//!
//! [stop]
//! max_iters = 1000
//! residue_drop = 10              # optional: stop once the rms has fallen 10 orders
//!                                 # below the first iteration's (history's log_rms_drop)
//!
//! [output]
//! dir = "out"
//! vtk = true                     # field.vtu of the cells
//! ```

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use qflow_fv::Settings;
use qflow_mesh::poly::cells::CellMesh;
use qflow_mesh::poly::naca0012::Op2Naca0012;
use qflow_mesh::poly::{check, Boundary, FileFormat, PolyMesh};

use crate::case::{MethodName, Output, Stop};

/// A finite-volume case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FvCase {
    /// The method (`fv`).
    pub method: MethodName,
    /// Where the mesh comes from.
    pub mesh: MeshSource,
    /// The method's settings.
    #[serde(default)]
    pub fv: Settings,
    /// A value the final rms must reproduce.
    pub expect: Option<Expect>,
    /// When to stop.
    #[serde(default)]
    pub stop: Stop,
    /// Where results go.
    #[serde(default)]
    pub output: Output,
}

/// The `[mesh]` section: a file, or a generator spec.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshSource {
    /// A mesh file, OP2's `new_grid.dat` text or qflow's native `.qfm`,
    /// relative to the case.
    pub file: Option<PathBuf>,
    /// A mesh to generate.
    pub generate: Option<GenerateMesh>,
    /// Gmsh and SU2 files: the boundary markers that are walls.
    #[serde(default)]
    pub wall: Vec<String>,
    /// Gmsh and SU2 files: the boundary markers that are far field.
    #[serde(default)]
    pub far_field: Vec<String>,
}

/// Peak memory of a run per cell (mesh, dats, plans, outputs), bytes.
const BYTES_PER_CELL: u64 = 500;

/// A mesh generator and its sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "kebab-case")]
pub enum GenerateMesh {
    /// OP2's NACA 0012 C-mesh of `3 i j` cells.
    Op2Naca0012 {
        /// Cells along the section.
        i: usize,
        /// Cells from the section to the far field.
        j: usize,
        /// Whether its quadrilaterals are split into triangles.
        #[serde(default)]
        split: Split,
    },
}

/// How a generated quadrilateral mesh is split into triangles (along the
/// diagonal from each cell's first node).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Split {
    /// OP2's quadrilaterals, unchanged.
    #[default]
    None,
    /// Every quadrilateral into two triangles.
    Triangles,
    /// Every other quadrilateral: a mixed mesh.
    Mixed,
}

/// The `[expect]` section: what the run must reproduce.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The rms of the last iteration.
    pub rms: f64,
    /// The largest relative difference that passes.
    #[serde(default = "default_tolerance")]
    pub relative_tolerance: f64,
}

fn default_tolerance() -> f64 {
    1e-10
}

impl Expect {
    /// The verdict on a run's final `rms`, as a line OP2's app would print,
    /// and whether it passed.
    pub fn verdict(&self, rms: f64) -> (String, bool) {
        let rel = ((rms - self.rms) / self.rms).abs();
        let passed = rel <= self.relative_tolerance;
        let word = if passed { "PASSED" } else { "FAILED" };
        (
            format!(
                "rms {rms:.15e} is within {rel:.3e} (relative) of the expected {:.15e}: {word} (tolerance {:.1e})",
                self.rms, self.relative_tolerance
            ),
            passed,
        )
    }
}

impl FvCase {
    /// Checks every value before any work; the error names the key.
    pub fn validate(&self) -> Result<()> {
        self.stop.validate()?;
        self.fv.validate().map_err(anyhow::Error::msg)?;
        match (&self.mesh.file, &self.mesh.generate) {
            (Some(_), Some(_)) => bail!("[mesh]: give either file or generate, not both"),
            (None, None) => bail!("[mesh]: give a file or a generate spec"),
            _ => {}
        }
        if let Some(e) = &self.expect {
            if !(e.rms.is_finite() && e.rms > 0.0) {
                bail!("[expect] rms = {}: must be a positive number", e.rms);
            }
            if !(e.relative_tolerance.is_finite() && e.relative_tolerance >= 0.0) {
                bail!(
                    "[expect] relative_tolerance = {}: must be a number >= 0",
                    e.relative_tolerance
                );
            }
        }
        if let Some(GenerateMesh::Op2Naca0012 { i, j, .. }) = self.mesh.generate {
            // About 480 bytes per cell at the peak (measured: 347 MB for
            // the 720,000-cell mesh, 688 MB for twice that).
            let need = 3u64
                .saturating_mul(i as u64)
                .saturating_mul(j as u64)
                .saturating_mul(BYTES_PER_CELL);
            if let Some(have) = crate::case::available_memory() {
                if need > have {
                    bail!(
                        "[mesh] generate i = {i}, j = {j} ({} cells): a run needs about {:.1} GiB, \
                         this machine has {:.1} GiB available",
                        3 * i as u64 * j as u64,
                        need as f64 / f64::from(1 << 30),
                        have as f64 / f64::from(1 << 30)
                    );
                }
            }
        }
        Ok(())
    }

    /// Reads or generates the mesh and checks it; the error lists its
    /// defects. Also returns a name for messages.
    pub fn load_mesh(&self, case_dir: &Path) -> Result<(PolyMesh, String)> {
        let (mesh, name) = match (&self.mesh.file, &self.mesh.generate) {
            (Some(file), _) => {
                let path = case_dir.join(file);
                if !path.exists() {
                    bail!("mesh file {} does not exist", path.display());
                }
                // The format is told by the first bytes (magic numbers).
                let head = {
                    use std::io::Read;
                    let mut head = Vec::with_capacity(64);
                    std::fs::File::open(&path)
                        .and_then(|f| f.take(64).read_to_end(&mut head))
                        .with_context(|| format!("cannot read mesh file {}", path.display()))?;
                    head
                };
                let format = FileFormat::of(&path, &head);
                let mapped = !self.mesh.wall.is_empty() || !self.mesh.far_field.is_empty();
                if format.has_markers() && !mapped {
                    bail!(
                        "[mesh] file {}: a {format:?} mesh names its boundaries by marker: \
                         map them with wall = [...] and far_field = [...]",
                        path.display()
                    );
                }
                if !format.has_markers() && mapped {
                    bail!(
                        "[mesh] wall / far_field: {} is a {format:?} file, whose boundary flags are in the file",
                        path.display()
                    );
                }
                let boundaries: Vec<(&str, Boundary)> = self
                    .mesh
                    .wall
                    .iter()
                    .map(|m| (m.as_str(), Boundary::Wall))
                    .chain(
                        self.mesh
                            .far_field
                            .iter()
                            .map(|m| (m.as_str(), Boundary::FarField)),
                    )
                    .collect();
                (
                    qflow_mesh::poly::read_with_markers(&path, &boundaries)?,
                    path.display().to_string(),
                )
            }
            (None, Some(GenerateMesh::Op2Naca0012 { i, j, split })) => {
                let quads = Op2Naca0012 { i: *i, j: *j }.generate()?;
                let every = match split {
                    Split::None => 0,
                    Split::Triangles => 1,
                    Split::Mixed => 2,
                };
                let mesh = if every == 0 {
                    quads
                } else {
                    CellMesh::from_poly(&quads)
                        .split_quadrilaterals(every)
                        .to_poly_mesh(&[
                            ("wall", Boundary::Wall),
                            ("farfield", Boundary::FarField),
                        ])?
                };
                let how = match split {
                    Split::None => "",
                    Split::Triangles => ", split into triangles",
                    Split::Mixed => ", every other cell split into triangles",
                };
                (mesh, format!("generated op2-naca0012 ({i} x {j}{how})"))
            }
            (None, None) => bail!("[mesh]: give a file or a generate spec"),
        };
        let report = check::check(&mesh);
        if !report.is_ok() {
            let n = report.findings.len();
            let shown: Vec<String> = report
                .findings
                .iter()
                .take(10)
                .map(|f| format!("  {f}"))
                .collect();
            bail!(
                "mesh {name} has {n} defect{}:\n{}{}",
                if n == 1 { "" } else { "s" },
                shown.join("\n"),
                if n > 10 { "\n  ..." } else { "" }
            );
        }
        Ok((mesh, name))
    }
}

/// The settings that define the discrete problem, for checkpoints. Owner
/// compute gives the sequential plan's numbers, so the two share a key (a
/// run of one resumes from the other's checkpoint).
pub fn problem_key(s: &Settings) -> String {
    use qflow_par::plan::Increments;
    let strategy = match s.strategy {
        Increments::OwnerCompute => Increments::Sequential,
        other => other,
    };
    let mut key = format!(
        "gam = {:?}\ncfl = {:?}\neps = {:?}\nmach = {:?}\nstrategy = {}\nblock_size = {}\nreorder = {}\n",
        s.gam,
        s.cfl,
        s.eps,
        s.mach,
        strategy.name(),
        s.block_size,
        s.reorder.name()
    );
    // OP2's direction keeps the key of the runs before angles of attack.
    if s.aoa != 0.0 {
        key.push_str(&format!("aoa = {:?}\n", s.aoa));
    }
    key
}

/// A fingerprint of the mesh (its cell count and a checksum of its native
/// bytes).
pub fn fingerprint(mesh: &PolyMesh) -> Result<u64> {
    let bytes = qflow_mesh::poly::native::to_bytes(mesh);
    Ok((mesh.cells() as u64) << 32 | qflow_mesh::fsutil::crc32(&bytes) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::CaseFile;

    fn case(text: &str) -> Result<FvCase> {
        let c = CaseFile::parse(text, Path::new("c.toml"), &[])?;
        let f: FvCase = c.get()?;
        f.validate()?;
        Ok(f)
    }

    #[test]
    fn a_case_reads_with_op2s_defaults() {
        let c =
            case("method = \"fv\"\n[mesh]\ngenerate = { kind = \"op2-naca0012\", i = 4, j = 6 }\n")
                .unwrap();
        assert_eq!(c.fv, Settings::default());
        assert_eq!(
            c.mesh.generate,
            Some(GenerateMesh::Op2Naca0012 {
                i: 4,
                j: 6,
                split: Split::None
            })
        );
    }

    #[test]
    fn bad_cases_name_what_is_wrong() {
        let err = |t: &str| format!("{:#}", case(t).unwrap_err());
        let gen = "[mesh]\ngenerate = { kind = \"op2-naca0012\", i = 4, j = 6 }\n";
        let e = err(&format!("method = \"fv\"\n{gen}[fv]\nmach = 0.0\n"));
        assert!(e.contains("[fv] mach = 0"), "{e}");
        let e = err(&format!("method = \"fv\"\n{gen}[fv]\nmahc = 0.5\n"));
        assert!(e.contains("mahc"), "{e}");
        let e = err("method = \"fv\"\n[mesh]\n");
        assert!(e.contains("[mesh]: give a file or a generate spec"), "{e}");
        let e = err("method = \"fv\"\n[mesh]\ngenerate = { kind = \"box\", i = 4, j = 6 }\n");
        assert!(e.contains("box"), "{e}");
        let e = err(&format!("method = \"fv\"\n{gen}[expect]\nrms = -1.0\n"));
        assert!(e.contains("[expect] rms = -1"), "{e}");
    }

    /// Owner compute and the sequential plan give the same numbers: one
    /// checkpoint key; a colouring changes them: another.
    #[test]
    fn owner_compute_resumes_the_sequential_plans_checkpoints() {
        use qflow_par::plan::Increments;
        let with = |strategy| {
            problem_key(&Settings {
                strategy,
                ..Settings::default()
            })
        };
        assert_eq!(with(Increments::OwnerCompute), with(Increments::Sequential));
        assert_ne!(with(Increments::TwoLevel), with(Increments::Sequential));
        assert_ne!(with(Increments::Atomics), with(Increments::Sequential));
    }

    #[test]
    fn the_verdict_passes_within_the_tolerance_only() {
        let e = Expect {
            rms: 1.0e-4,
            relative_tolerance: 1e-10,
        };
        assert!(e.verdict(1.0e-4 * (1.0 + 5e-11)).1);
        let (line, ok) = e.verdict(1.0e-4 * (1.0 + 5e-10));
        assert!(!ok && line.contains("FAILED"), "{line}");
    }
}
