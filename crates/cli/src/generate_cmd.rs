//! `qflow generate`: a NACA 4-digit section's point cloud (an O-grid, or
//! a quadtree's cell centres), or OP2's NACA 0012 quadrilateral C-mesh.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use qflow_mesh::generate::{Naca4, NacaOGrid, NacaQuadtree, Stretching};

use crate::convert_cmd::clear_stale_temporaries;

/// `qflow generate`'s options.
#[derive(Clone, Debug, clap::Args)]
pub struct GenerateArgs {
    /// The section, e.g. naca0012 or naca2412; or op2-naca0012 for
    /// OP2's mesh.
    pub section: String,
    /// op2-naca0012: cells along the section (each side of the cut too)
    /// [default: 400].
    #[arg(long)]
    pub i: Option<usize>,
    /// op2-naca0012: cells from the section to the far field [default:
    /// 600].
    #[arg(long)]
    pub j: Option<usize>,
    /// O-grid: points on the body [default: 160].
    #[arg(long)]
    pub wall_points: Option<usize>,
    /// O-grid: rings of points from the body to the far field, both
    /// included [default: 60].
    #[arg(long)]
    pub rings: Option<usize>,
    /// Far-field radius in chords, about (0.5, 0) (quadtree: half the
    /// square's side) [default: 10].
    #[arg(long)]
    pub far_field: Option<f64>,
    /// The cloud's layout: `o-grid` (rings of points) or `quadtree`
    /// (the centres of a quadtree's cells, refined towards the body).
    #[arg(long, default_value = "o-grid", value_parser = ["o-grid", "quadtree"])]
    pub layout: String,
    /// Quadtree: the largest cell size at the body (chords) [default:
    /// 0.01].
    #[arg(long)]
    pub wall_spacing: Option<f64>,
    /// Quadtree: cells of size h are split while closer than
    /// grading x h to the body, 3 to 32 [default: 4].
    #[arg(long)]
    pub grading: Option<f64>,
    /// O-grid: spacing of the first ring off the body (chords).
    #[arg(long, conflicts_with = "growth")]
    pub first_spacing: Option<f64>,
    /// O-grid: growth ratio of successive ring spacings.
    #[arg(long)]
    pub growth: Option<f64>,
    /// Output file: qflow's native binary format if it ends in `.qfc`,
    /// the legacy text format otherwise.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Generates the cloud or mesh `a` asks for and writes one line of what
/// was written to `out`.
pub fn generate(a: &GenerateArgs, out: &mut dyn Write) -> Result<()> {
    let GenerateArgs {
        section,
        i,
        j,
        wall_points,
        rings,
        far_field,
        layout,
        wall_spacing,
        grading,
        first_spacing,
        growth,
        output,
    } = a.clone();
    if section == "op2-naca0012" {
        // The clouds' options are mistakes here, not something to
        // ignore.
        for (flag, given) in [
            ("--wall-points", wall_points.is_some()),
            ("--rings", rings.is_some()),
            ("--far-field", far_field.is_some()),
            ("--layout quadtree", layout == "quadtree"),
            ("--wall-spacing", wall_spacing.is_some()),
            ("--grading", grading.is_some()),
            ("--first-spacing", first_spacing.is_some()),
            ("--growth", growth.is_some()),
        ] {
            if given {
                anyhow::bail!(
                    "{flag}: an option of the point clouds; op2-naca0012 takes --i, --j and -o"
                );
            }
        }
        let (i, j) = (i.unwrap_or(400), j.unwrap_or(600));
        let t = std::time::Instant::now();
        let mesh = qflow_mesh::poly::naca0012::Op2Naca0012 { i, j }.generate()?;
        let secs = t.elapsed().as_secs_f64();
        clear_stale_temporaries(&output);
        qflow_mesh::poly::write_any(&mesh, &output)?;
        writeln!(
                    out,
            "{}: OP2 NACA 0012 mesh, {} nodes, {} cells, {} edges, {} boundary edges in {secs:.3} s",
            output.display(),
            mesh.nodes(),
            mesh.cells(),
            mesh.edges(),
            mesh.bedges()
        )
        .context("writing to standard output")?;
        return Ok(());
    }
    if let Some(flag) = [("--i", i), ("--j", j)]
        .iter()
        .find_map(|(f, v)| v.is_some().then_some(f))
    {
        anyhow::bail!("{flag}: an option of op2-naca0012 (OP2's quadrilateral mesh), not of {section}'s point cloud");
    }
    let section: Naca4 = section.parse()?;
    let quadtree = layout == "quadtree";
    // An option of the other layout is a mistake, not something to
    // ignore.
    let (foreign, other) = if quadtree {
        let given = [
            ("--wall-points", wall_points.is_some()),
            ("--rings", rings.is_some()),
            ("--first-spacing", first_spacing.is_some()),
            ("--growth", growth.is_some()),
        ];
        (given.into_iter().find(|g| g.1), "an O-grid")
    } else {
        let given = [
            ("--wall-spacing", wall_spacing.is_some()),
            ("--grading", grading.is_some()),
        ];
        (given.into_iter().find(|g| g.1), "--layout quadtree")
    };
    if let Some((flag, _)) = foreign {
        anyhow::bail!("{flag} belongs to {other}, not to --layout {layout}");
    }
    let far_field = far_field.unwrap_or(10.0);
    let t = std::time::Instant::now();
    let cloud = if quadtree {
        NacaQuadtree {
            section,
            far_field,
            wall_spacing: wall_spacing.unwrap_or(0.01),
            grading: grading.unwrap_or(4.0),
        }
        .generate()?
    } else {
        let stretching = first_spacing
            .map(Stretching::FirstSpacing)
            .or(growth.map(Stretching::GrowthRatio));
        NacaOGrid {
            section,
            wall_points: wall_points.unwrap_or(160),
            rings: rings.unwrap_or(60),
            far_field,
            stretching,
        }
        .generate()?
    };
    let secs = t.elapsed().as_secs_f64();
    // A quadtree cloud in the legacy text format: the variant that
    // keeps its depths and normals.
    let format = match qflow_mesh::native::format_for_path(&output) {
        qflow_mesh::native::Format::Legacy if cloud.quadtree.is_some() => {
            qflow_mesh::native::Format::LegacyQuadtree
        }
        f => f,
    };
    clear_stale_temporaries(&output);
    qflow_mesh::native::write_any(&cloud, &output, format)?;
    writeln!(
        out,
        "{}: {} points in {:.3} s ({:.3e} points per second)",
        output.display(),
        cloud.len(),
        secs,
        cloud.len() as f64 / secs.max(1e-9)
    )
    .context("writing to standard output")?;
    Ok(())
}
