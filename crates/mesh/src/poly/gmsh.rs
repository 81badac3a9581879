//! Gmsh's MSH 4.1 files (ASCII and binary, parsed by the `mshio` crate),
//! 2D quadrilateral meshes: 4-node quadrilaterals (`Qua4`) on surfaces,
//! 2-node lines (`Lin2`) on curves. A curve's boundary marker is the name
//! of its physical group (`$PhysicalNames`, which `mshio` does not read:
//! read here), else `physical N`, else `curve N`.

use std::collections::HashMap;
use std::path::Path;

use mshio::mshfile::ElementType;

use super::cells::CellMesh;
use super::MeshError;

/// Reads a Gmsh MSH 4.1 file.
pub fn read(path: &Path) -> Result<CellMesh, MeshError> {
    let bytes = std::fs::read(path).map_err(|source| MeshError::Io {
        path: path.into(),
        cause: source,
    })?;
    parse(&bytes, path)
}

/// A parser's message without the hex dump of the file that `mshio`
/// appends (the rest of the file, however long), on one line, at most 400
/// characters.
fn brief(e: &dyn std::fmt::Display) -> String {
    let text = e.to_string();
    let kept: Vec<&str> = text
        .lines()
        .take_while(|l| !l.starts_with("Hex dump"))
        .map(|l| l.trim().trim_end_matches(','))
        .filter(|l| !l.is_empty())
        .collect();
    let line = kept.join("; ");
    let mut out: String = line.chars().take(400).collect();
    if out.len() < line.len() {
        out.push_str(" ...");
    }
    out
}

/// Whether `bytes` start like an MSH file.
pub fn is_msh(bytes: &[u8]) -> bool {
    bytes.starts_with(b"$MeshFormat")
}

/// Parses the bytes of an MSH 4.1 file (`path` for messages).
pub fn parse(bytes: &[u8], path: &Path) -> Result<CellMesh, MeshError> {
    let bad = |message: String| MeshError::Parse {
        path: path.into(),
        line: 0,
        field: "gmsh".into(),
        message,
    };
    let msh = mshio::parse_msh_bytes(bytes).map_err(|e| {
        bad(format!(
            "not a Gmsh MSH 4.1 file, or damaged: {}",
            brief(&e)
        ))
    })?;
    let nodes = msh
        .data
        .nodes
        .as_ref()
        .ok_or_else(|| bad("no $Nodes section".into()))?;
    let elements = msh
        .data
        .elements
        .as_ref()
        .ok_or_else(|| bad("no $Elements section".into()))?;
    // The header's count, checked against the blocks (not trusted for an
    // allocation: a damaged header asked for terabytes).
    let held: usize = nodes.node_blocks.iter().map(|b| b.nodes.len()).sum();
    if nodes.num_nodes != held as u64 {
        return Err(bad(format!(
            "the $Nodes header declares {} nodes, its blocks hold {held}",
            nodes.num_nodes
        )));
    }
    // Node tags to indices, in the file's order.
    let mut index: HashMap<u64, u32> = HashMap::new();
    let mut x = Vec::with_capacity(held);
    for block in &nodes.node_blocks {
        let base = x.len();
        match &block.node_tags {
            Some(tags) => {
                for (&tag, &i) in tags {
                    index.insert(tag, (base + i) as u32);
                }
            }
            None => {
                for i in 0..block.nodes.len() {
                    index.insert(nodes.min_node_tag + (base + i) as u64, (base + i) as u32);
                }
            }
        }
        for n in &block.nodes {
            if n.z.abs() > 1e-12 * (1.0 + n.x.abs() + n.y.abs()) {
                return Err(bad(format!(
                    "a node at z = {}: qflow reads 2D meshes in the x-y plane",
                    n.z
                )));
            }
            x.push([n.x, n.y]);
        }
    }
    let node = |tag: u64| {
        index
            .get(&tag)
            .copied()
            .ok_or_else(|| bad(format!("an element names node {tag}, which the file lacks")))
    };
    let names = physical_names(bytes);
    let curve_marker = |entity: i32| -> String {
        let physical = msh
            .data
            .entities
            .as_ref()
            .and_then(|e| e.curves.iter().find(|c| c.tag == entity))
            .and_then(|c| c.physical_tags.first().copied());
        match physical {
            Some(p) => names
                .get(&(1, p))
                .cloned()
                .unwrap_or_else(|| format!("physical {p}")),
            None => format!("curve {entity}"),
        }
    };
    let mut mesh = CellMesh {
        x,
        ..CellMesh::default()
    };
    for block in &elements.element_blocks {
        match (block.entity_dim, block.element_type) {
            (2, ElementType::Qua4) => {
                for e in &block.elements {
                    let c = [node(e.nodes[0])?, node(e.nodes[1])?, node(e.nodes[2])?, node(e.nodes[3])?];
                    mesh.push_cell(&c);
                }
            }
            (1, ElementType::Lin2) => {
                let name = curve_marker(block.entity_tag);
                let segs = block
                    .elements
                    .iter()
                    .map(|e| Ok([node(e.nodes[0])?, node(e.nodes[1])?]))
                    .collect::<Result<Vec<_>, MeshError>>()?;
                match mesh.markers.iter_mut().find(|m| m.0 == name) {
                    Some(m) => m.1.extend(segs),
                    None => mesh.markers.push((name, segs)),
                }
            }
            (0, _) => {}
            (dim, t) => {
                return Err(bad(format!(
                    "elements of type {t:?} on a {dim}D entity: qflow's finite volumes take 4-node quadrilaterals and 2-node boundary lines"
                )))
            }
        }
    }
    if mesh.cells() == 0 {
        return Err(bad("no quadrilateral cells".into()));
    }
    Ok(mesh)
}

/// `(dimension, tag) -> name` from the `$PhysicalNames` section (ASCII in
/// both encodings).
fn physical_names(bytes: &[u8]) -> HashMap<(i32, i32), String> {
    let mut out = HashMap::new();
    let Some(start) = bytes.windows(14).position(|w| w == b"$PhysicalNames") else {
        return out;
    };
    let text = String::from_utf8_lossy(&bytes[start..]);
    for line in text.lines().skip(2) {
        if line.starts_with("$EndPhysicalNames") {
            break;
        }
        let mut f = line.splitn(3, char::is_whitespace);
        let (Some(d), Some(t), Some(n)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        if let (Ok(d), Ok(t)) = (d.parse(), t.parse()) {
            out.insert((d, t), n.trim().trim_matches('"').to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::Boundary;

    /// Two unit squares: curve 1 (physical "wall") along y = 0, curve 2
    /// ("far") around the rest.
    pub(crate) const TWO: &str = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n1 1 \"wall\"\n1 2 \"far\"\n$EndPhysicalNames\n$Entities\n0 2 1 0\n1 0 0 0 2 0 0 1 1 0\n2 0 0 0 2 1 0 1 2 0\n3 0 0 0 2 1 0 0 0\n$EndEntities\n$Nodes\n1 6 1 6\n2 3 0 6\n1\n2\n3\n4\n5\n6\n0 0 0\n1 0 0\n2 0 0\n0 1 0\n1 1 0\n2 1 0\n$EndNodes\n$Elements\n3 8 1 8\n1 1 1 2\n1 1 2\n2 2 3\n1 2 1 4\n3 3 6\n4 6 5\n5 5 4\n6 4 1\n2 3 3 2\n7 1 2 5 4\n8 2 3 6 5\n$EndElements\n";

    #[test]
    fn reads_quadrilaterals_and_named_boundaries() {
        let m = parse(TWO.as_bytes(), Path::new("t.msh")).unwrap();
        assert_eq!(
            (m.cell(0), m.cell(1)),
            (&[0, 1, 4, 3][..], &[1, 2, 5, 4][..])
        );
        assert_eq!(m.marker_names(), ["wall", "far"]);
        let q = m
            .to_poly_mesh(&[("wall", Boundary::Wall), ("far", Boundary::FarField)])
            .unwrap();
        assert!(crate::poly::check::check(&q).is_ok());
        assert_eq!(q.bound.iter().filter(|&&b| b == 1).count(), 2);
    }

    #[test]
    fn other_elements_and_damage_are_refused() {
        let e = |t: &str| {
            parse(t.as_bytes(), Path::new("t.msh"))
                .unwrap_err()
                .to_string()
        };
        let tri = TWO.replace("2 3 3 2\n7 1 2 5 4\n8 2 3 6 5", "2 3 2 2\n7 1 2 5\n8 2 3 6");
        assert!(e(&tri).contains("Tri3"), "{}", e(&tri));
        assert!(e("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 2").contains("t.msh"));
        let unnamed = TWO.replace(
            "$PhysicalNames\n2\n1 1 \"wall\"\n1 2 \"far\"\n$EndPhysicalNames\n",
            "",
        );
        let m = parse(unnamed.as_bytes(), Path::new("t.msh")).unwrap();
        assert_eq!(m.marker_names(), ["physical 1", "physical 2"]);
        // A header asking for 1e11 nodes was an allocation of 1.6 TB (an
        // abort), not an error.
        let huge = TWO.replace("$Nodes\n1 6 1 6\n", "$Nodes\n1 99999999999 1 6\n");
        assert!(
            e(&huge).contains("declares 99999999999 nodes, its blocks hold 6"),
            "{}",
            e(&huge)
        );
        // mshio's messages end in a hex dump of the rest of the file.
        let v22 = TWO.replace("4.1 0 8", "2.2 0 8");
        assert!(
            e(&v22).contains("revision 4.1") && !e(&v22).contains("Hex dump"),
            "{}",
            e(&v22)
        );
    }
}
