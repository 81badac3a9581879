//! Gmsh's MSH files, versions 2.2 and 4.1, ASCII and binary, as Gmsh
//! writes them: 2D meshes of 3-node triangles and 4-node quadrilaterals
//! on surfaces, 2-node lines on curves (the boundaries), points ignored.
//!
//! Nodes are found by tag, in any order and with gaps (`Mesh.SaveAll`
//! writes blocks out of tag order), and numbered in the order of their
//! tags; nodes no cell or line uses (a circle's centre, a spline's control
//! points) are left out. All 2D elements are the mesh, in a physical
//! surface or not.
//!
//! A line's boundary marker is the name of its physical group
//! (`$PhysicalNames`), else `physical N`, else, for a curve in no physical
//! group, `curve N` (2.2: an element's first tag is its physical group, its
//! second its curve; 4.1: a curve's physical groups are in `$Entities`).
//! A curve that lies between cells (no boundary) is left out by
//! [`CellMesh::to_poly_mesh`]; one on the boundary must be mapped.
//!
//! Sections may come in any order after `$MeshFormat`; unknown ones
//! (`$Periodic`, `$NodeData`, ...) are skipped, a partitioned mesh is
//! refused. Every count is checked against what follows it; every error
//! names the line (ASCII) or the byte (binary) at fault.

mod body;
mod build;
#[cfg(test)]
mod tests;
mod v2;
mod v4;

use std::collections::HashMap;
use std::path::Path;

use body::{Body, Packing, Section};
use build::Builder;

use super::cells::CellMesh;
use super::MeshError;

/// Reads a Gmsh MSH file (2.2 or 4.1, ASCII or binary).
pub fn read(path: &Path) -> Result<CellMesh, MeshError> {
    let bytes = std::fs::read(path).map_err(|source| MeshError::Io {
        path: path.into(),
        cause: source,
    })?;
    parse(&bytes, path)
}

/// Whether `bytes` start like an MSH file.
pub fn is_msh(bytes: &[u8]) -> bool {
    bytes.starts_with(b"$MeshFormat")
}

/// The versions read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Version {
    V2,
    V4,
}

/// Parses the bytes of an MSH file (`path` for messages).
pub fn parse(bytes: &[u8], path: &Path) -> Result<CellMesh, MeshError> {
    let sections = body::sections(bytes, path)?;
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    let last_line = (newlines + usize::from(!bytes.ends_with(b"\n"))).max(1);
    let at_end = |message: String| MeshError::Parse {
        path: path.into(),
        line: last_line,
        field: "end of file".into(),
        message,
    };
    let Some(first) = sections.first().filter(|s| s.name == "MeshFormat") else {
        return Err(MeshError::Parse {
            path: path.into(),
            line: sections.first().map_or(1, |s| s.line),
            field: "$MeshFormat".into(),
            message: "an MSH file starts with its $MeshFormat section".into(),
        });
    };
    let (version, pack) = format(path, first)?;
    let mut found: HashMap<&str, &Section> = HashMap::new();
    for s in &sections[1..] {
        let bad = |message: String| MeshError::Parse {
            path: path.into(),
            line: s.line,
            field: format!("${}", s.name),
            message,
        };
        match s.name {
            "MeshFormat" | "PhysicalNames" | "Entities" | "Nodes" | "Elements" => {
                if let Some(o) = found.insert(s.name, s) {
                    return Err(bad(format!(
                        "a second ${} section (the first at line {})",
                        s.name, o.line
                    )));
                }
            }
            "PartitionedEntities" => {
                return Err(bad(
                    "a partitioned mesh: qflow reads whole meshes (save it unpartitioned)".into(),
                ));
            }
            _ => {} // $Periodic, $NodeData, $Comments, ...: nothing a mesh needs
        }
    }
    let names = match found.get("PhysicalNames") {
        Some(s) => physical_names(&mut Body::text(path, s)?)?,
        None => HashMap::new(),
    };
    let nodes = found
        .get("Nodes")
        .ok_or_else(|| at_end("no $Nodes section".into()))?;
    let elements = found
        .get("Elements")
        .ok_or_else(|| at_end("no $Elements section".into()))?;
    let mut b = Builder::default();
    match version {
        Version::V2 => {
            v2::nodes(path, nodes, pack, &mut b)?;
            v2::elements(path, elements, pack, &names, &mut b)?;
        }
        Version::V4 => {
            let curves = match found.get("Entities") {
                Some(s) => v4::entities(&mut body(path, s, pack)?)?,
                None => HashMap::new(),
            };
            v4::nodes(&mut body(path, nodes, pack)?, &mut b)?;
            v4::elements(&mut body(path, elements, pack)?, &names, &curves, &mut b)?;
        }
    }
    b.finish().map_err(at_end)
}

/// A reader of `s` in the file's encoding.
fn body<'a>(path: &'a Path, s: &Section<'a>, pack: Option<Packing>) -> Result<Body<'a>, MeshError> {
    match pack {
        Some(p) => Ok(Body::binary(path, s, p)),
        None => Body::text(path, s),
    }
}

/// The version and, for a binary file, its packing, from `$MeshFormat`.
fn format(path: &Path, s: &Section) -> Result<(Version, Option<Packing>), MeshError> {
    let (first, rest) = s.split_first_line();
    let mut r = Body::text(path, &first)?;
    let bad = |r: &Body, m: String| r.err(m);
    if !r.record()? {
        return Err(bad(
            &r,
            "empty: expected `4.1 0 8` (version, file type, data size)".into(),
        ));
    }
    let v = r.rest_of_line().to_string();
    let fields: Vec<&str> = v.split_whitespace().collect();
    let [version, kind, size] = fields[..] else {
        return Err(bad(
            &r,
            format!(
                "`{}`: expected version, file type and data size",
                body::brief(&v)
            ),
        ));
    };
    let version = match version {
        "4.1" => Version::V4,
        "2.2" | "2.1" | "2.0" | "2" => Version::V2,
        _ => {
            return Err(bad(
                &r,
                format!("MSH version {version}: qflow reads 2.2 and 4.1 (Mesh.MshFileVersion)"),
            ))
        }
    };
    let size: usize = match (version, size) {
        (_, "8") => 8,
        (Version::V4, "4") => 4,
        _ => {
            return Err(bad(
                &r,
                format!("data size {size}: qflow reads 8 (and 4 in 4.1)"),
            ))
        }
    };
    match kind {
        "0" if rest.data.iter().all(u8::is_ascii_whitespace) => Ok((version, None)),
        "0" => Err(bad(
            &r,
            "an ASCII file (type 0) with more in its $MeshFormat".into(),
        )),
        "1" => {
            let one = rest.data.get(..4);
            let big_endian = match one {
                Some([1, 0, 0, 0]) => false,
                Some([0, 0, 0, 1]) => true,
                _ => {
                    let r = Body::binary(
                        path,
                        &rest,
                        Packing {
                            big_endian: false,
                            size_t: 8,
                        },
                    );
                    return Err(
                        r.err("a binary file's header must hold the int 1 (in either byte order)")
                    );
                }
            };
            Ok((
                version,
                Some(Packing {
                    big_endian,
                    size_t: size,
                }),
            ))
        }
        _ => Err(bad(
            &r,
            format!("file type {kind}: 0 (ASCII) or 1 (binary)"),
        )),
    }
}

/// `(dimension, tag) -> name` from `$PhysicalNames` (text in every
/// encoding): a count, then `dim tag "name"` a line.
fn physical_names(r: &mut Body) -> Result<HashMap<(i64, i64), String>, MeshError> {
    let mut out = HashMap::new();
    if !r.record()? {
        return Err(r.err("empty: expected the number of names"));
    }
    let head = r.here();
    let n = r.size("number of names")?;
    for k in 0..n {
        if !r.record()? {
            return Err(r.err_at(
                head,
                format!("the header declares {n} names, the section holds {k}"),
            ));
        }
        let dim = r.int("dimension")?;
        let tag = r.int("physical tag")?;
        let name = r.rest_of_line();
        let name = name
            .strip_prefix('"')
            .and_then(|n| n.strip_suffix('"'))
            .unwrap_or(name);
        if name.is_empty() {
            return Err(r.err(format!("physical group {dim}D {tag}: no name")));
        }
        out.insert((dim, tag), name.to_string());
    }
    r.finish(&format!("the {n} names its header declares"))?;
    Ok(out)
}
