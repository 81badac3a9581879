//! The q-LSKUM case file:
//!
//! ```toml
//! method = "lskum"             # the default
//! [cloud]
//! file = "naca0012.cloud"      # relative to the case file's folder
//! # or: generate = { section = "naca0012", wall_points = 160, rings = 60, far_field = 10.0 }
//! # or: generate = { section = "naca0012", layout = "quadtree", wall_spacing = 0.0025,
//! #                  grading = 5.0, far_field = 10.0 }
//!
//! [flow]
//! mach = 0.63
//! aoa = 2.0                    # degrees
//! far_field = "free-stream"    # or "vortex": with the point vortex of the lift
//!
//! [solver]                     # all optional, reference defaults
//! cfl = 0.2
//! scheme = "ssprk43"           # or "euler", or "newton-krylov" (steady)
//! implicit_cfl = 3.0           # newton-krylov: first pseudo step, in explicit steps
//! krylov_vectors = 40          # newton-krylov: GMRES vectors per step at most
//! krylov_tolerance = 0.2       # newton-krylov: GMRES's relative tolerance
//! jacobian_every = 5           # newton-krylov: iterations per preconditioner
//! preconditioner = "ilu0"      # newton-krylov: or "lu-sgs" (block symmetric Gauss-Seidel)
//! inner_iterations = 3
//! limiter = "venkatakrishnan"  # or "venkatakrishnan-point", "none"
//! vl_const = 50.0
//! power = 0.0
//! force_normals = "boundary"   # or "solver" (the reference's)
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

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

use qflow_lskum::settings::{FarField, ForceNormals, Limiter, Preconditioner, Scheme};
use qflow_lskum::Settings;
use qflow_mesh::generate::{Naca4, NacaOGrid, NacaQuadtree, Stretching};
use qflow_mesh::partition::{Method as PartitionMethod, Partition};
use qflow_mesh::{check, native, renumber, Cloud};

use crate::case::{MethodName, Output, Stop};

/// A q-LSKUM case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LskumCase {
    /// The method (`lskum`).
    #[serde(default)]
    pub method: Option<MethodName>,
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
    /// A cloud file (legacy text or native), relative to the case file.
    pub file: Option<PathBuf>,
    /// A cloud to generate.
    pub generate: Option<GenerateSpec>,
}

/// The layout of a generated cloud.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// Rings of points from the body to a far-field circle
    /// ([`NacaOGrid`]).
    #[default]
    OGrid,
    /// The centres of a quadtree's cells, refined towards the body
    /// ([`NacaQuadtree`]).
    Quadtree,
}

/// A NACA 4-digit cloud to generate (see `qflow generate`): an O-grid
/// (`wall_points`, `rings`, optionally `first_spacing` or `growth`) or a
/// quadtree (`layout = "quadtree"`, `wall_spacing`, optionally `grading`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateSpec {
    /// The section, e.g. `naca0012`.
    pub section: String,
    /// O-grid (the default) or quadtree.
    #[serde(default)]
    pub layout: Layout,
    /// O-grid: points on the body.
    pub wall_points: Option<usize>,
    /// O-grid: rings of points, body and far field included.
    pub rings: Option<usize>,
    /// Far-field radius in chords, about (0.5, 0) (quadtree: half the
    /// square's side).
    pub far_field: f64,
    /// O-grid: first-ring spacing (chords); exclusive with `growth`.
    pub first_spacing: Option<f64>,
    /// O-grid: growth ratio of the ring spacings; exclusive with
    /// `first_spacing`.
    pub growth: Option<f64>,
    /// Quadtree: the largest cell size at the body (chords).
    pub wall_spacing: Option<f64>,
    /// Quadtree: cells of size h are split while closer than `grading` x h
    /// to the body (default 4).
    pub grading: Option<f64>,
}

/// A cloud generator of either layout.
#[derive(Clone, Debug, PartialEq)]
pub enum Generator {
    /// An O-grid.
    OGrid(NacaOGrid),
    /// A quadtree cloud.
    Quadtree(NacaQuadtree),
}

/// Peak memory of an explicit run per point (the cloud, the problem's
/// stencils and dats, the outputs), bytes: measured 1.49 kB at 128,000
/// points, 1.36 kB at 512,000 with `field.vtu`.
const BYTES_PER_POINT: u64 = 1500;

/// What Newton-Krylov adds per point, bytes: the Jacobian's 4 x 4 blocks
/// and their factors (about 2.5 kB at 9 neighbours), and 32 bytes per
/// Krylov vector (measured, all in: 5.95 kB per point at 128,000 points,
/// 3.6 kB at 512,000, with 40 vectors).
const NEWTON_BYTES_PER_POINT: u64 = 2500;

impl Generator {
    /// The points it makes, without generating them: an O-grid's exactly,
    /// a quadtree's estimated from its parameters
    /// ([`NacaQuadtree::estimated_points`]).
    pub fn points(&self) -> Result<usize> {
        Ok(match self {
            Self::OGrid(g) => g.point_count()?,
            Self::Quadtree(g) => g.estimated_points()?,
        })
    }

    /// Generates the cloud.
    pub fn generate(&self) -> Result<Cloud> {
        Ok(match self {
            Self::OGrid(g) => g.generate()?,
            Self::Quadtree(g) => g.generate()?,
        })
    }
}

impl GenerateSpec {
    /// The generator this spec describes; an error names a key that does
    /// not belong to the layout or a missing one.
    pub fn generator(&self) -> Result<Generator> {
        let section: Naca4 = self.section.parse()?;
        let given = |name: &'static str, set: bool| set.then_some(name);
        match self.layout {
            Layout::OGrid => {
                if let Some(k) = given("wall_spacing", self.wall_spacing.is_some())
                    .or(given("grading", self.grading.is_some()))
                {
                    bail!("[cloud] generate: `{k}` belongs to layout = \"quadtree\", not to an O-grid")
                }
                let (Some(wall_points), Some(rings)) = (self.wall_points, self.rings) else {
                    bail!("[cloud] generate: an O-grid needs `wall_points` and `rings`")
                };
                let stretching = match (self.first_spacing, self.growth) {
                    (Some(_), Some(_)) => {
                        bail!("[cloud] generate: give either first_spacing or growth, not both")
                    }
                    (Some(h), None) => Some(Stretching::FirstSpacing(h)),
                    (None, Some(g)) => Some(Stretching::GrowthRatio(g)),
                    (None, None) => None,
                };
                Ok(Generator::OGrid(NacaOGrid {
                    section,
                    wall_points,
                    rings,
                    far_field: self.far_field,
                    stretching,
                }))
            }
            Layout::Quadtree => {
                if let Some(k) = given("wall_points", self.wall_points.is_some())
                    .or(given("rings", self.rings.is_some()))
                    .or(given("first_spacing", self.first_spacing.is_some()))
                    .or(given("growth", self.growth.is_some()))
                {
                    bail!("[cloud] generate: `{k}` belongs to an O-grid, not to layout = \"quadtree\"")
                }
                let Some(wall_spacing) = self.wall_spacing else {
                    bail!("[cloud] generate: a quadtree needs `wall_spacing` (chords)")
                };
                Ok(Generator::Quadtree(NacaQuadtree {
                    section,
                    far_field: self.far_field,
                    wall_spacing,
                    grading: self.grading.unwrap_or(4.0),
                }))
            }
        }
    }

    /// A short description for messages and summaries.
    pub fn describe(&self) -> String {
        match self.layout {
            Layout::OGrid => format!(
                "{} O-grid {} x {}",
                self.section,
                self.wall_points.unwrap_or(0),
                self.rings.unwrap_or(0)
            ),
            Layout::Quadtree => format!(
                "{} quadtree, wall spacing {}, grading {}",
                self.section,
                self.wall_spacing.unwrap_or(0.0),
                self.grading.unwrap_or(4.0)
            ),
        }
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
    /// The far-field state: the free stream, or with the point vortex of
    /// the body's lift.
    pub far_field: FarField,
}

impl Default for Flow {
    fn default() -> Self {
        let s = Settings::default();
        Flow {
            mach: s.mach,
            aoa: s.aoa,
            far_field: s.far_field,
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
    /// Renumbering of the points for memory locality. Outputs are always in
    /// the cloud's own numbering.
    pub renumber: RenumberChoice,
    /// Orders of residue fall after which the limiter (then per point) is
    /// frozen; 0: the reference's limiter.
    pub limiter_freeze: f64,
    /// Newton-Krylov: the first pseudo time step in explicit steps.
    pub implicit_cfl: f64,
    /// Newton-Krylov: Krylov vectors per Newton step at most.
    pub krylov_vectors: u32,
    /// Newton-Krylov: GMRES's relative tolerance.
    pub krylov_tolerance: f64,
    /// Newton-Krylov: iterations between new preconditioners.
    pub jacobian_every: u32,
    /// Newton-Krylov: the preconditioner.
    pub preconditioner: Preconditioner,
}

/// The `renumber` setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum RenumberChoice {
    /// Reverse Cuthill-McKee when it at least halves the mean index gap
    /// between a point and its neighbours; the cloud's order otherwise.
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
            limiter_freeze: s.limiter_freeze,
            implicit_cfl: s.implicit_cfl,
            krylov_vectors: s.krylov_vectors,
            krylov_tolerance: s.krylov_tolerance,
            jacobian_every: s.jacobian_every,
            preconditioner: s.preconditioner,
        }
    }
}

impl LskumCase {
    /// Checks the case: the cloud source, the stop rule and every setting,
    /// and that a cloud to generate fits in the memory this machine has
    /// available ([`Self::bytes_needed`]), before it is generated; errors
    /// name the key.
    pub fn validate(&self) -> Result<()> {
        match (&self.cloud.file, &self.cloud.generate) {
            (Some(_), Some(_)) => bail!("[cloud]: give either `file` or `generate`, not both"),
            (None, None) => bail!("[cloud]: give a cloud `file` or a `generate` spec"),
            _ => {}
        }
        self.stop.validate()?;
        self.settings()
            .validate()
            .map_err(|e| anyhow::anyhow!("[{}] {e}", section_of(e.key)))?;
        if let Some(g) = &self.cloud.generate {
            let points = g.generator()?.points()?;
            let need = self.bytes_needed(points);
            if let Some(have) = crate::case::available_memory() {
                if need > have {
                    bail!(
                        "[cloud] generate: {} ({}{points} points): a run needs about {:.1} GiB, \
                         this machine has {:.1} GiB available",
                        g.describe(),
                        if g.layout == Layout::Quadtree {
                            "about "
                        } else {
                            ""
                        },
                        need as f64 / f64::from(1 << 30),
                        have as f64 / f64::from(1 << 30)
                    );
                }
            }
        }
        Ok(())
    }

    /// About the bytes rank 0 holds at the peak of a run of this case on
    /// a cloud of `points` points.
    pub fn bytes_needed(&self, points: usize) -> u64 {
        let mut per_point = BYTES_PER_POINT;
        if self.solver.scheme == Scheme::NewtonKrylov {
            per_point += NEWTON_BYTES_PER_POINT + 32 * u64::from(self.solver.krylov_vectors);
        }
        (points as u64).saturating_mul(per_point)
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
            far_field: self.flow.far_field,
            limiter_freeze: self.solver.limiter_freeze,
            implicit_cfl: self.solver.implicit_cfl,
            krylov_vectors: self.solver.krylov_vectors,
            krylov_tolerance: self.solver.krylov_tolerance,
            jacobian_every: self.solver.jacobian_every,
            preconditioner: self.solver.preconditioner,
        }
    }
}

/// The case section a setting is in.
fn section_of(key: &str) -> &'static str {
    match key {
        "mach" | "aoa" | "far_field" => "flow",
        _ => "solver",
    }
}

/// The settings that define the discrete problem (a checkpoint of another
/// problem cannot be resumed; CFL, scheme and the Newton-Krylov settings,
/// the preconditioner among them, may change: they change the way, not
/// the steady state, up to the outer points' CFL dependence of
/// docs/verification.md 9e).
pub fn problem_key(s: &Settings) -> String {
    let mut key = format!(
        "mach = {:?}\naoa = {:?}\ninner_iterations = {}\nvl_const = {:?}\npower = {:?}\nlimiter = {:?}\n",
        s.mach, s.aoa, s.inner_iterations, s.vl_const, s.power, s.limiter
    );
    // Only when set, so that checkpoints from before the key still resume.
    if s.far_field != FarField::FreeStream {
        key.push_str(&format!("far_field = {:?}\n", s.far_field));
    }
    if s.limiter_freeze > 0.0 {
        key.push_str(&format!("limiter_freeze = {:?}\n", s.limiter_freeze));
    }
    key
}

/// Reads (either format) or generates the cloud of a case and checks it; the
/// error lists the cloud's defects.
pub fn load_cloud(case: &LskumCase, case_dir: &Path) -> Result<(Cloud, String)> {
    let (cloud, name) = if let Some(file) = &case.cloud.file {
        let path = case_dir.join(file);
        if !path.exists() {
            bail!("cloud file {} does not exist", path.display());
        }
        (native::read_any(&path)?, path.display().to_string())
    } else {
        let spec = case
            .cloud
            .generate
            .as_ref()
            .expect("case checked: file or generate");
        let g = spec.generator()?;
        (g.generate()?, format!("generated {}", spec.describe()))
    };
    let report = check::check(&cloud, &[]);
    if !report.is_ok() {
        let (e, _) = report.counts();
        let mut msg = format!("cloud {name} has {e} defect(s) the solver cannot run with:\n");
        for f in report.errors().take(20) {
            msg += &format!("  {f}\n");
        }
        if e > 20 {
            msg += "  ...\n";
        }
        bail!("{msg}(run `qflow check` on the cloud for the full list)");
    }
    // A cloud-wide warning (no shapes: forces of 0) is said by the run too;
    // per-point ones are `qflow check`'s to list.
    for f in report
        .findings
        .iter()
        .filter(|f| f.problem == qflow_mesh::check::Problem::NoShape)
    {
        tracing::warn!("cloud {name}: {f}");
    }
    Ok((cloud, name))
}

/// A fingerprint of a cloud's geometry and connectivity (CRC-32 of its
/// native encoding, with its point count): two clouds with the same
/// fingerprint are, for all practical purposes, the same cloud.
pub fn fingerprint(cloud: &Cloud) -> u64 {
    // The native bytes end with their own CRC-32; the CRC of a message
    // and its CRC is the same for every message (CRC-32's residue
    // 0x2144df1c), so hash the body only.
    let bytes = native::to_bytes(cloud);
    let body = &bytes[..bytes.len().saturating_sub(4)];
    (cloud.len() as u64) << 32 | qflow_mesh::fsutil::crc32(body) as u64
}

/// The numbering a run uses (`new_of_old`) and why.
pub fn choose_numbering(cloud: &Cloud, choice: RenumberChoice) -> (Vec<u32>, String) {
    match choice {
        RenumberChoice::None => (renumber::identity(cloud.len()), "none".into()),
        RenumberChoice::Rcm => (renumber::reverse_cuthill_mckee(cloud), "rcm".into()),
        RenumberChoice::Hilbert => (renumber::hilbert(cloud), "hilbert".into()),
        RenumberChoice::Auto => {
            // Keep a numbering that already has neighbours close together
            // (generated clouds and the usual published ones do: RCM then
            // gains nothing measurable); renumber one that does not.
            let rcm = renumber::reverse_cuthill_mckee(cloud);
            let before = renumber::mean_neighbour_gap(cloud);
            let after = renumber::mean_neighbour_gap(&cloud.permuted(&rcm));
            if after < 0.5 * before {
                (
                    rcm,
                    format!("rcm (auto: mean neighbour index gap {before:.0} -> {after:.0})"),
                )
            } else {
                (
                    renumber::identity(cloud.len()),
                    format!(
                        "none (auto: the cloud's order keeps neighbours close already, mean index gap \
                         {before:.0}; RCM's would be {after:.0})"
                    ),
                )
            }
        }
    }
}

/// The owner of every problem point for `ranks` ranks: the command line's
/// partitioner (METIS by default, RCB, or a partition file of the cloud's
/// own numbering).
pub fn partition(
    internal: &Cloud,
    new_of_old: &[u32],
    ranks: usize,
    opts: &crate::run::RunOptions,
    dir: &Path,
) -> Result<Vec<u32>> {
    let p = match opts.partitioner.as_deref().unwrap_or("metis") {
        "metis" => Partition::new(internal, ranks, PartitionMethod::Metis)?,
        "rcb" => Partition::new(internal, ranks, PartitionMethod::Rcb)?,
        other => match other.strip_prefix("file:") {
            Some(f) => {
                let user = Partition::read(&dir.join(f), internal.len(), Some(ranks))?;
                let mut part = vec![0u32; internal.len()];
                for (old, &new) in new_of_old.iter().enumerate() {
                    part[new as usize] = user.part()[old];
                }
                Partition::from_parts(ranks, part)?
            }
            None => anyhow::bail!("--partitioner {other}: expected metis, rcb or file:PATH"),
        },
    };
    Ok(p.part().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::CaseFile;

    fn parse(text: &str) -> Result<LskumCase> {
        let c = CaseFile::parse(text, Path::new("case.toml"), &[])?;
        let l: LskumCase = c.get()?;
        l.validate()?;
        Ok(l)
    }

    #[test]
    fn defaults_are_the_reference_settings() {
        let c = parse("[cloud]\nfile = \"a.cloud\"\n").unwrap();
        assert_eq!(c.settings(), Settings::default());
        assert_eq!(c.stop.max_iters, 1000);
    }

    #[test]
    fn unknown_keys_are_named() {
        for (text, word) in [
            ("[cloud]\nfile = \"a\"\n[flow]\nmahc = 0.5\n", "mahc"),
            ("[cloud]\nfile = \"a\"\n[solvr]\n", "solvr"),
            ("[cloud]\nfile = \"a\"\n[solver]\nscheme = \"rk9\"\n", "rk9"),
        ] {
            let e = format!("{:#}", parse(text).unwrap_err());
            assert!(e.contains(word), "{e}");
        }
    }

    #[test]
    fn bad_physics_is_refused_before_any_work() {
        for (text, key) in [
            ("[cloud]\nfile = \"a\"\n[solver]\ncfl = -1.0\n", "cfl"),
            ("[cloud]\nfile = \"a\"\n[flow]\nmach = 0.0\n", "mach"),
            ("[cloud]\nfile = \"a\"\n[flow]\nmach = 1e-300\n", "mach"),
            // Below 0.1 the compressible scheme's forces are meaningless.
            (
                "[cloud]\nfile = \"a\"\n[flow]\nmach = 0.09\n",
                "at least 0.1",
            ),
            ("[cloud]\nfile = \"a\"\n[flow]\naoa = nan\n", "aoa"),
            ("[cloud]\nfile = \"a\"\n[solver]\ncfl = inf\n", "cfl"),
            (
                "[cloud]\nfile = \"a\"\n[stop]\nmax_iters = 0\n",
                "max_iters",
            ),
            ("[cloud]\n", "[cloud]"),
        ] {
            let e = format!("{:#}", parse(text).unwrap_err());
            assert!(e.contains(key), "{key}: {e}");
        }
    }

    /// A generated cloud larger than this machine's memory, of either
    /// layout, is refused before it is generated (an O-grid of 5e8 points
    /// took 56 s and 8 GB to fail), naming the points and the memory.
    #[test]
    fn a_cloud_too_large_for_memory_is_refused_before_generating() {
        let Some(have) = crate::case::available_memory() else {
            eprintln!("SKIPPED: no MemAvailable");
            return;
        };
        for (spec, says) in [
            (
                "section = \"naca0012\", wall_points = 1000000, rings = 500, far_field = 10.0",
                "(500000000 points)",
            ),
            (
                "section = \"naca0012\", layout = \"quadtree\", wall_spacing = 1e-6, \
                 grading = 32.0, far_field = 1.0",
                "(about ",
            ),
        ] {
            let c: LskumCase = CaseFile::parse(
                &format!("[cloud]\ngenerate = {{ {spec} }}\n"),
                Path::new("case.toml"),
                &[],
            )
            .unwrap()
            .get()
            .unwrap();
            let points = c
                .cloud
                .generate
                .as_ref()
                .unwrap()
                .generator()
                .unwrap()
                .points()
                .unwrap();
            assert!(c.bytes_needed(points) > have, "{spec}: fits in memory here");
            let e = format!("{:#}", c.validate().unwrap_err());
            assert!(e.contains("GiB available") && e.contains(says), "{e}");
        }
        // The shipped sizes fit; Newton-Krylov needs more per point.
        let c = parse("[cloud]\ngenerate = { section = \"naca0012\", wall_points = 160, rings = 60, far_field = 10.0 }\n")
            .unwrap();
        let explicit = c.bytes_needed(9600);
        let mut nk = c.clone();
        nk.solver.scheme = Scheme::NewtonKrylov;
        assert!(nk.bytes_needed(9600) > 2 * explicit);
    }
}
