//! The finite-volume meshes at the command line: telling a mesh file from
//! a point cloud, `qflow check` of a mesh, and `qflow convert` of a mesh
//! (OP2's text, Gmsh, SU2 or qflow's native `.qfm` in; `.qfm` or OP2's
//! text out).

use std::path::Path;

use anyhow::{bail, Context, Result};

use qflow_mesh::poly::cells::CellMesh;
use qflow_mesh::poly::{check, gmsh, native, op2, su2, Boundary, FileFormat, PolyMesh};

/// Whether a file (its start, `bytes`) is a finite-volume mesh rather than
/// a point cloud: by its magic bytes, its extension or its text
/// ([`crate::input_kind`]).
pub fn is_mesh(path: &Path, bytes: &[u8]) -> bool {
    crate::input_kind::input_kind(path, bytes).0.is_mesh()
}

/// Refuses a mesh where a command (`what`) takes a point cloud.
pub fn refuse_mesh(path: &Path, what: &str) -> Result<()> {
    use std::io::Read;
    // The start tells (magic bytes, the first line).
    let mut bytes = Vec::new();
    let Ok(file) = std::fs::File::open(path) else {
        return Ok(()); // The reader names the problem.
    };
    if file.take(1 << 16).read_to_end(&mut bytes).is_err() {
        return Ok(());
    }
    if is_mesh(path, &bytes) {
        bail!(
            "{}: a finite-volume mesh (for the fv method), not a point cloud: `qflow {what}` \
             takes q-LSKUM's clouds (`qflow check` and `qflow convert` read both)",
            path.display()
        );
    }
    Ok(())
}

/// The cells and markers of a Gmsh or SU2 file.
fn cells_of(bytes: &[u8], path: &Path, format: FileFormat) -> Result<CellMesh> {
    Ok(match format {
        FileFormat::Gmsh => gmsh::parse(bytes, path)?,
        _ => su2::parse_bytes(bytes, path)?,
    })
}

/// `qflow check` of a mesh read as `format`: the report's lines, and
/// whether the mesh has no error. A Gmsh or SU2 file's markers are listed,
/// and checked as far field (the kind does not change the geometry).
pub fn check_mesh(bytes: &[u8], path: &Path, format: FileFormat) -> Result<(String, bool)> {
    let mut out = String::new();
    let mesh = match format {
        FileFormat::Native => native::from_bytes(bytes, path)?,
        FileFormat::Op2 => op2::parse(bytes, path)?,
        FileFormat::Gmsh | FileFormat::Su2 => {
            let c = cells_of(bytes, path, format)?;
            let names: Vec<&str> = c.marker_names();
            out.push_str(&format!(
                "{}: boundary markers: {}\n",
                path.display(),
                names.join(", ")
            ));
            let map: Vec<(&str, Boundary)> =
                names.iter().map(|&n| (n, Boundary::FarField)).collect();
            c.to_poly_mesh(&map).map_err(|e| e.in_file(path))?
        }
    };
    let report = check::check(&mesh);
    for f in &report.findings {
        out.push_str(&format!("error: {f}\n"));
    }
    let walls = mesh.bound.iter().filter(|&&b| b == 1).count();
    out.push_str(&format!(
        "{}: {} nodes, {} cells ({}), {} edges, {} boundary edges ({walls} wall); {} error(s)\n",
        path.display(),
        mesh.nodes(),
        mesh.cells(),
        describe_cells(&mesh),
        mesh.edges(),
        mesh.bedges(),
        report.findings.len()
    ));
    Ok((out, report.is_ok()))
}

/// `"9600 triangles, 400 quadrilaterals"`: the cells by their number of
/// nodes.
pub fn describe_cells(mesh: &PolyMesh) -> String {
    mesh.cell_kinds()
        .iter()
        .map(|&(nodes, count)| {
            let name = match nodes {
                3 => "triangle".to_string(),
                4 => "quadrilateral".to_string(),
                n => format!("{n}-gon"),
            };
            format!("{count} {name}{}", if count == 1 { "" } else { "s" })
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The mesh of `input` with its markers mapped (`wall`, `far_field`:
/// marker names; a Gmsh or SU2 file must map every boundary marker).
fn read_mapped(input: &Path, wall: &[String], far_field: &[String]) -> Result<PolyMesh> {
    let bytes =
        std::fs::read(input).with_context(|| format!("cannot read mesh {}", input.display()))?;
    let format = FileFormat::of(input, &bytes);
    if !format.has_markers() {
        if let Some(m) = wall.iter().chain(far_field).next() {
            bail!(
                "--wall/--far-field {m}: {} names its boundaries by OP2's flags, not by \
                 markers; leave the options out",
                input.display()
            );
        }
        return Ok(match format {
            FileFormat::Native => native::from_bytes(&bytes, input)?,
            _ => op2::parse(&bytes, input)?,
        });
    }
    let c = cells_of(&bytes, input, format)?;
    if wall.is_empty() && far_field.is_empty() {
        bail!(
            "{}: its boundary markers ({}) must each be mapped: give --wall NAME and \
             --far-field NAME",
            input.display(),
            c.marker_names().join(", ")
        );
    }
    let map: Vec<(&str, Boundary)> = wall
        .iter()
        .map(|m| (m.as_str(), Boundary::Wall))
        .chain(far_field.iter().map(|m| (m.as_str(), Boundary::FarField)))
        .collect();
    Ok(c.to_poly_mesh(&map).map_err(|e| e.in_file(input))?)
}

/// `qflow convert` of a mesh: `input` (any mesh format) to `output`,
/// qflow's native `.qfm` (`to` "qfm", or a `.qfm` name) or OP2's text
/// (`to` "op2", or any other name; all quadrilaterals, every digit of the
/// coordinates kept). The mesh is checked first; returns the line to print.
pub fn convert_mesh(
    input: &Path,
    output: &Path,
    to: Option<&str>,
    wall: &[String],
    far_field: &[String],
) -> Result<String> {
    let native_out = match to {
        Some("qfm") => true,
        Some("op2") => false,
        Some(o) => bail!("--to {o}: a mesh converts to qfm (qflow's native) or op2 (OP2's text)"),
        None => output.extension().is_some_and(|e| e == "qfm"),
    };
    if let Some(e) = output
        .extension()
        .and_then(|e| e.to_str())
        .filter(|e| ["su2", "msh"].contains(&e.to_ascii_lowercase().as_str()))
    {
        bail!(
            "{}: qflow reads .{e} meshes but writes only OP2's text format and its native \
             .qfm",
            output.display()
        );
    }
    if output.extension().is_some_and(|e| e == "qfc") {
        bail!(
            "{}: a finite-volume mesh, and .qfc is qflow's point-cloud format: convert a mesh \
             to .qfm (qflow's native mesh) or OP2's text",
            input.display()
        );
    }
    let t = std::time::Instant::now();
    let mesh = read_mapped(input, wall, far_field)?;
    let report = check::check(&mesh);
    if !report.is_ok() {
        let first: Vec<String> = report
            .findings
            .iter()
            .take(5)
            .map(|f| f.to_string())
            .collect();
        bail!(
            "{}: {} defect(s), not converted: {}",
            input.display(),
            report.findings.len(),
            first.join("; ")
        );
    }
    let read = t.elapsed().as_secs_f64();
    if native_out {
        native::write(&mesh, output)?;
    } else {
        if !mesh.all_quadrilaterals() {
            bail!(
                "{}: OP2's mesh format holds quadrilaterals only, and this mesh has {}: \
                 convert it to .qfm",
                output.display(),
                describe_cells(&mesh)
            );
        }
        op2::write(&mesh, output)?;
    }
    Ok(format!(
        "{} -> {} ({}): {} nodes, {} cells ({}), read and checked in {read:.3} s, written in \
         {:.3} s",
        input.display(),
        output.display(),
        if native_out { "qfm" } else { "op2" },
        mesh.nodes(),
        mesh.cells(),
        describe_cells(&mesh),
        t.elapsed().as_secs_f64() - read
    ))
}
