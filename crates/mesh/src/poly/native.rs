//! qflow's native binary format for meshes of polygons (`.qfm`): exact
//! coordinates, fast to read, checked on reading.
//!
//! ```text
//! magic    8 bytes  "QFLOWQM\0"
//! version  u32      2
//! counts   5 x u64  nodes, cells, cell nodes (all cells'), edges, boundary edges
//! x        f64 x 2 per node
//! sizes    u32 per cell: its number of nodes
//! cells    u32 per cell node: each cell's nodes, cell after cell
//! edges    u32 x 2 (nodes) then u32 x 2 (cells) per edge
//! bedges   u32 x 2 (nodes), u32 (cell), i32 (flag) per boundary edge
//! crc32    u32      of everything before it
//! ```
//!
//! All little-endian. Version 1 (quadrilaterals only: four counts, then
//! `u32 x 4` per cell and no sizes) is read too. A file that is truncated, damaged (checksum), of
//! another version, or whose mesh breaks [`PolyMesh::validate`] is refused
//! with the reason.

use std::path::Path;

use super::{MeshError, PolyMesh};

const MAGIC: &[u8; 8] = b"QFLOWQM\0";
const VERSION: u32 = 2;

/// Whether `bytes` start like a native mesh file.
pub fn is_native(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// The file's bytes.
pub fn to_bytes(m: &PolyMesh) -> Vec<u8> {
    let mut b = Vec::with_capacity(
        56 + 16 * m.nodes()
            + 4 * m.cells()
            + 4 * m.cell_nodes.len()
            + 16 * m.edges()
            + 16 * m.bedges(),
    );
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&VERSION.to_le_bytes());
    for n in [
        m.nodes(),
        m.cells(),
        m.cell_nodes.len(),
        m.edges(),
        m.bedges(),
    ] {
        b.extend_from_slice(&(n as u64).to_le_bytes());
    }
    for p in &m.x {
        b.extend_from_slice(&p[0].to_le_bytes());
        b.extend_from_slice(&p[1].to_le_bytes());
    }
    let u32s =
        |b: &mut Vec<u8>, v: &[u32]| v.iter().for_each(|x| b.extend_from_slice(&x.to_le_bytes()));
    for w in m.cell_start.windows(2) {
        u32s(&mut b, &[w[1] - w[0]]);
    }
    u32s(&mut b, &m.cell_nodes);
    for (n, c) in m.edge_nodes.iter().zip(&m.edge_cells) {
        u32s(&mut b, n);
        u32s(&mut b, c);
    }
    for i in 0..m.bedges() {
        u32s(&mut b, &m.bedge_nodes[i]);
        u32s(&mut b, &[m.bedge_cell[i]]);
        b.extend_from_slice(&m.bound[i].to_le_bytes());
    }
    let crc = crate::fsutil::crc32(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    b
}

/// Writes `m` to `path`, atomically.
pub fn write(m: &PolyMesh, path: &Path) -> Result<(), MeshError> {
    let bytes = to_bytes(m);
    crate::fsutil::write_atomically(path, |w| std::io::Write::write_all(w, &bytes))?;
    Ok(())
}

/// Reads a native mesh file.
pub fn read(path: &Path) -> Result<PolyMesh, MeshError> {
    let bytes = std::fs::read(path).map_err(|source| MeshError::Io {
        path: path.into(),
        cause: source,
    })?;
    from_bytes(&bytes, path)
}

/// Parses the bytes of a native mesh file (`path` for messages).
pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<PolyMesh, MeshError> {
    let bad = |message: String| MeshError::Parse {
        path: path.into(),
        line: 0,
        field: "native mesh".into(),
        message,
    };
    if !is_native(bytes) {
        return Err(bad("not a qflow mesh file (no QFLOWQM magic)".into()));
    }
    if bytes.len() < 16 {
        return Err(bad(format!("truncated: {} bytes", bytes.len())));
    }
    let (body, tail) = bytes.split_at(bytes.len() - 4);
    let stored = u32::from_le_bytes(tail.try_into().expect("4 bytes"));
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != VERSION && version != 1 {
        return Err(bad(format!(
            "format version {version}; this qflow reads 1 and {VERSION}"
        )));
    }
    let head = if version == 1 { 44 } else { 52 };
    if bytes.len() < head + 4 {
        return Err(bad(format!("truncated: {} bytes", bytes.len())));
    }
    let count = |k: usize| u64::from_le_bytes(bytes[12 + 8 * k..20 + 8 * k].try_into().expect("8"));
    // Version 1: quadrilaterals, 4 nodes a cell and no sizes.
    let (nn, nc, nk, ne, nb) = if version == 1 {
        let nc = count(1);
        (count(0), nc, nc.saturating_mul(4), count(2), count(3))
    } else {
        (count(0), count(1), count(2), count(3), count(4))
    };
    let sizes = if version == 1 { 0 } else { 4 };
    let expected = [nn, nc, nk, ne, nb]
        .iter()
        .zip([16u64, sizes, 4, 16, 16])
        .try_fold(head as u64, |acc, (&n, per)| {
            n.checked_mul(per).and_then(|x| x.checked_add(acc))
        });
    if expected != Some(body.len() as u64) {
        return Err(bad(format!(
            "{} bytes, but the counts ({nn} nodes, {nc} cells of {nk} nodes, {ne} edges, {nb} \
             boundary edges) need {}",
            bytes.len(),
            expected.map_or("more than 2^64".into(), |e| (e + 4).to_string())
        )));
    }
    if crate::fsutil::crc32(body) != stored {
        return Err(bad("checksum mismatch: the file is damaged".into()));
    }
    let mut at = head;
    let mut take = |n: usize| {
        let s = &body[at..at + n];
        at += n;
        s
    };
    let u32_at =
        |s: &[u8], k: usize| u32::from_le_bytes(s[4 * k..4 * k + 4].try_into().expect("4"));
    let mut m = PolyMesh::default();
    for _ in 0..nn {
        let s = take(16);
        // `+ 0.0` makes a stored `-0.0` the zero `0.0` is (every reader
        // gives the same mesh for either).
        m.x.push([
            f64::from_le_bytes(s[..8].try_into().expect("8")) + 0.0,
            f64::from_le_bytes(s[8..].try_into().expect("8")) + 0.0,
        ]);
    }
    m.cell_start.push(0);
    if version == 1 {
        m.cell_start.extend((1..=nc as u32).map(|c| 4 * c));
    } else {
        let s = take(4 * nc as usize);
        let mut total = 0u64;
        for c in 0..nc as usize {
            total += u64::from(u32_at(s, c));
            if total > nk {
                return Err(bad(format!(
                    "cell {c}: its size takes the cells past their {nk} nodes"
                )));
            }
            m.cell_start.push(total as u32);
        }
        if total != nk {
            return Err(bad(format!(
                "the cells' sizes add up to {total} nodes, the header says {nk}"
            )));
        }
    }
    let s = take(4 * nk as usize);
    m.cell_nodes = (0..nk as usize).map(|k| u32_at(s, k)).collect();
    for _ in 0..ne {
        let s = take(16);
        m.edge_nodes.push([u32_at(s, 0), u32_at(s, 1)]);
        m.edge_cells.push([u32_at(s, 2), u32_at(s, 3)]);
    }
    for _ in 0..nb {
        let s = take(16);
        m.bedge_nodes.push([u32_at(s, 0), u32_at(s, 1)]);
        m.bedge_cell.push(u32_at(s, 2));
        m.bound.push(u32_at(s, 3) as i32);
    }
    m.validate().map_err(|e| bad(e.to_string()))?;
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of version 1 (quadrilaterals, as qflow wrote them until
    /// 2026-12-02) reads as the mesh it held.
    #[test]
    fn version_1_files_are_read() {
        let m = crate::poly::two_squares();
        let mut b = Vec::new();
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&1u32.to_le_bytes());
        for n in [m.nodes(), m.cells(), m.edges(), m.bedges()] {
            b.extend_from_slice(&(n as u64).to_le_bytes());
        }
        for p in &m.x {
            b.extend_from_slice(&p[0].to_le_bytes());
            b.extend_from_slice(&p[1].to_le_bytes());
        }
        let mut u32s = |v: &[u32]| v.iter().for_each(|x| b.extend_from_slice(&x.to_le_bytes()));
        u32s(&m.cell_nodes);
        for (n, c) in m.edge_nodes.iter().zip(&m.edge_cells) {
            u32s(n);
            u32s(c);
        }
        for i in 0..m.bedges() {
            u32s(&[
                m.bedge_nodes[i][0],
                m.bedge_nodes[i][1],
                m.bedge_cell[i],
                m.bound[i] as u32,
            ]);
        }
        let crc = crate::fsutil::crc32(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        assert_eq!(from_bytes(&b, Path::new("old.qfm")).unwrap(), m);
    }

    /// A mixed mesh (a triangle beside a quadrilateral) round-trips.
    #[test]
    fn polygons_round_trip() {
        let mut m = crate::poly::two_squares();
        m.x.push([1.5, 2.0]);
        let cells: Vec<Vec<u32>> = vec![vec![0, 1, 4, 3], vec![1, 2, 5, 4]];
        m.set_cells(cells.iter().map(Vec::as_slice));
        m.push_cell(&[4, 5, 6]);
        let b = to_bytes(&m);
        let back = from_bytes(&b, Path::new("m.qfm")).unwrap();
        assert_eq!(back.cell(2), [4, 5, 6]);
        assert_eq!(back, m);
    }

    #[test]
    fn round_trips_and_refuses_damage() {
        let mut m = crate::poly::two_squares();
        m.x[4] = [1.0 + 1e-15, 0.1 + 0.2];
        let b = to_bytes(&m);
        assert_eq!(from_bytes(&b, Path::new("m.qfm")).unwrap(), m);
        let err = |b: &[u8]| from_bytes(b, Path::new("m.qfm")).unwrap_err().to_string();
        let mut damaged = b.clone();
        damaged[60] ^= 1;
        assert!(
            err(&damaged).contains("checksum mismatch"),
            "{}",
            err(&damaged)
        );
        assert!(
            err(&b[..b.len() - 8]).contains("need"),
            "{}",
            err(&b[..b.len() - 8])
        );
        assert!(err(b"new_grid").contains("no QFLOWQM magic"));
        let mut v3 = b.clone();
        v3[8] = 3;
        assert!(err(&v3).contains("format version 3"));
        // An index out of range with a valid checksum.
        let mut bad = m.clone();
        bad.cell_nodes[0] = 99;
        assert!(
            err(&to_bytes(&bad)).contains("node 99 out of range"),
            "{}",
            err(&to_bytes(&bad))
        );
    }
}
