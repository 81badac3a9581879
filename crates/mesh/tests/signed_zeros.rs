//! A coordinate written `-0.0`, `-0.000000` or `-0e0` changes no mesh, in
//! any reader: OP2's text, qflow's native `.qfm`, SU2 and Gmsh (ASCII and
//! binary) each give the mesh the same file with plain zeros gives, to the
//! bit (`==` takes `-0.0` for `0.0`, so the coordinates' bits are compared
//! too), and no negative zero is left in its coordinates, before and after
//! `to_poly_mesh` and `check`.

use std::path::{Path, PathBuf};

use qflow_mesh::poly::cells::CellMesh;
use qflow_mesh::poly::{check::check, gmsh, native, op2, su2, Boundary, PolyMesh};

/// The spellings of a negative zero tried in each text format.
const SPELLINGS: [&str; 3] = ["-0.0", "-0.000000", "-0e0"];

/// Two unit squares side by side, nodes 0-2 along y = 0 and 3-5 along
/// y = 1, walls along y = 0 (as OP2 orients edges: first cell on the
/// right).
fn two_squares() -> PolyMesh {
    PolyMesh {
        x: vec![
            [0.0, 0.0],
            [1.0, 0.0],
            [2.0, 0.0],
            [0.0, 1.0],
            [1.0, 1.0],
            [2.0, 1.0],
        ],
        cell_start: vec![0, 4, 8],
        cell_nodes: vec![0, 1, 4, 3, 1, 2, 5, 4],
        edge_nodes: vec![[4, 1]],
        edge_cells: vec![[0, 1]],
        bedge_nodes: vec![[1, 0], [2, 1], [5, 2], [4, 5], [3, 4], [0, 3]],
        bedge_cell: vec![0, 1, 1, 1, 0, 0],
        bound: vec![1, 1, 2, 2, 2, 2],
    }
}

fn bits(x: &[[f64; 2]]) -> Vec<u64> {
    x.iter().flatten().map(|v| v.to_bits()).collect()
}

/// The coordinates (`what` says whose) hold no negative zero.
fn assert_no_negative_zero(x: &[[f64; 2]], what: &str) {
    if let Some(k) = x
        .iter()
        .position(|p| p.iter().any(|v| *v == 0.0 && v.is_sign_negative()))
    {
        panic!("{what}: node {k} keeps a negative zero: {:?}", x[k]);
    }
}

/// The same mesh to the bit, and no negative zero in `a`.
fn assert_same(a: &PolyMesh, b: &PolyMesh, what: &str) {
    assert_eq!(a, b, "{what}");
    assert_no_negative_zero(&a.x, what);
    assert_eq!(bits(&a.x), bits(&b.x), "{what}: coordinates' bits");
    let (ra, rb) = (check(a), check(b));
    assert!(ra.is_ok(), "{what}: {:?}", ra.findings);
    assert_eq!(ra.findings, rb.findings, "{what}");
}

/// The same cell mesh to the bit, no negative zero in `a`; then the same
/// mesh of polygons, checked, with `markers` mapped.
fn assert_same_cells(a: &CellMesh, b: &CellMesh, markers: &[(&str, Boundary)], what: &str) {
    assert_eq!(a, b, "{what}");
    assert_no_negative_zero(&a.x, what);
    assert_eq!(bits(&a.x), bits(&b.x), "{what}: coordinates' bits");
    let poly = |m: &CellMesh| {
        m.to_poly_mesh(markers)
            .unwrap_or_else(|e| panic!("{what}: {e}"))
    };
    assert_same(&poly(a), &poly(b), what);
}

/// `text` with every zero (`0`, `0.0`, ...) in the fields `fields` (from
/// 0) of the lines `coordinate_lines` (from 1) written `spelling`; it
/// asserts that `at_least` were.
fn respelt(
    text: &str,
    coordinate_lines: std::ops::RangeInclusive<usize>,
    fields: std::ops::Range<usize>,
    spelling: &str,
    at_least: usize,
) -> String {
    let mut n = 0;
    let out: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if !coordinate_lines.contains(&(i + 1)) {
                return l.to_string();
            }
            l.split_whitespace()
                .enumerate()
                .map(|(k, w)| {
                    if fields.contains(&k) && w.parse::<f64>() == Ok(0.0) {
                        n += 1;
                        spelling.to_string()
                    } else {
                        w.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert!(n >= at_least, "{n} zeros respelt in\n{text}");
    out.join("\n") + "\n"
}

/// A scratch file of `bytes`, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, bytes: &[u8]) -> Scratch {
        let p = std::env::temp_dir().join(format!("qflow-zeros-{}-{name}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        Scratch(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// OP2's text, as qflow writes it (`0.0`) and as OP2's generator does
/// (`0.000000`), read to the same mesh.
#[test]
fn op2_text_reads_negative_zeros_as_the_same_mesh() {
    let plain = two_squares();
    let mut shortest = Vec::new();
    op2::write_to(&plain, &mut shortest).unwrap();
    let mut op2_style = Vec::new();
    op2::write_to_op2_style(&plain, &mut op2_style).unwrap();
    for text in [&shortest, &op2_style] {
        let text = String::from_utf8(text.clone()).unwrap();
        let want = op2::parse(text.as_bytes(), Path::new("plain.dat")).unwrap();
        assert_eq!(bits(&want.x), bits(&plain.x));
        for s in SPELLINGS {
            // Lines 2-7 are the nodes' coordinates; five of their twelve are 0.
            let neg = respelt(&text, 2..=7, 0..2, s, 5);
            assert!(neg.contains(&format!("\n{s} {s}")), "{neg}");
            let m = op2::parse(neg.as_bytes(), Path::new("neg.dat")).unwrap();
            assert_eq!(m, want, "{s}");
            assert_eq!(check(&m).findings, check(&want).findings, "{s}");
            assert!(check(&m).is_ok(), "{s}");
        }
    }
}

/// The bits of OP2's coordinates: no `-0.0` is kept.
#[test]
fn op2_text_keeps_no_negative_zero() {
    let plain = two_squares();
    let mut text = Vec::new();
    op2::write_to(&plain, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    for s in SPELLINGS {
        let neg = respelt(&text, 2..=7, 0..2, s, 5);
        let m = op2::parse(neg.as_bytes(), Path::new("neg.dat")).unwrap();
        assert_same(&m, &plain, &format!("OP2 text, zeros written {s}"));
    }
}

/// A mesh with negative zeros written to a `.qfm` and read back is the
/// mesh with plain zeros.
#[test]
fn native_files_read_negative_zeros_as_zeros() {
    let plain = two_squares();
    let mut neg = plain.clone();
    for p in &mut neg.x {
        for v in p.iter_mut() {
            if *v == 0.0 {
                *v = -0.0;
            }
        }
    }
    assert_eq!(neg.x[0][0].to_bits(), (-0.0f64).to_bits());
    let bytes = native::to_bytes(&neg);
    let m = native::from_bytes(&bytes, Path::new("neg.qfm")).unwrap();
    assert_same(&m, &plain, "native bytes");
    let file = Scratch::new("neg.qfm", &[]);
    native::write(&neg, &file.0).unwrap();
    assert_same(&native::read(&file.0).unwrap(), &plain, "native file");
    let any = qflow_mesh::poly::read_with_markers(&file.0, &[]).unwrap();
    assert_same(&any, &plain, "read_with_markers of a .qfm");
}

/// SU2's two squares: elements on lines 3-4, points (x y index) on 6-11.
const SU2: &str = "NDIME= 2\nNELEM= 2\n9 0 1 4 3 0\n9 1 2 5 4 1\nNPOIN= 6\n0 0 0\n1 0 1\n2 0 2\n0 1 3\n1 1 4\n2 1 5\nNMARK= 2\nMARKER_TAG= wall\nMARKER_ELEMS= 2\n3 0 1\n3 1 2\nMARKER_TAG= far\nMARKER_ELEMS= 4\n3 2 5\n3 5 4\n3 4 3\n3 3 0\n";

#[test]
fn su2_files_read_negative_zeros_as_zeros() {
    let markers = [("wall", Boundary::Wall), ("far", Boundary::FarField)];
    let want = su2::parse(SU2, Path::new("plain.su2")).unwrap();
    for s in SPELLINGS {
        // x and y, not the index after them (point 0's is a 0 too).
        let neg = respelt(SU2, 6..=11, 0..2, s, 5);
        assert!(neg.contains(&format!("\n{s} {s} 0\n")), "{neg}");
        let m = su2::parse(&neg, Path::new("neg.su2")).unwrap();
        assert_same_cells(&m, &want, &markers, &format!("SU2, zeros written {s}"));
        // And through the file readers.
        let file = Scratch::new("neg.su2", neg.as_bytes());
        let m = su2::read(&file.0).unwrap();
        assert_same_cells(&m, &want, &markers, &format!("su2::read, {s}"));
        let any = qflow_mesh::poly::read_with_markers(&file.0, &markers).unwrap();
        let poly = want.to_poly_mesh(&markers).unwrap();
        assert_same(&any, &poly, &format!("read_with_markers of a .su2, {s}"));
    }
}

/// Gmsh's two squares, MSH 4.1: lines 15-30 `$Nodes`, the coordinates on
/// lines 24-29.
const MSH41: &str = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n1 1 \"wall\"\n1 2 \"far\"\n$EndPhysicalNames\n\
$Entities\n0 2 1 0\n1 0 0 0 2 0 0 1 1 0\n2 0 0 0 2 1 0 1 2 0\n3 0 0 0 2 1 0 0 0\n$EndEntities\n\
$Nodes\n1 6 1 6\n2 3 0 6\n1\n2\n3\n4\n5\n6\n0 0 0\n1 0 0\n2 0 0\n0 1 0\n1 1 0\n2 1 0\n$EndNodes\n\
$Elements\n3 8 1 8\n1 1 1 2\n1 1 2\n2 2 3\n1 2 1 4\n3 3 6\n4 6 5\n5 5 4\n6 4 1\n2 3 3 2\n7 1 2 5 4\n8 2 3 6 5\n$EndElements\n";

/// The same in MSH 2.2: coordinates (after each node's tag) on lines 11-16.
const MSH22: &str = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n1 1 \"wall\"\n1 2 \"far\"\n$EndPhysicalNames\n\
$Nodes\n6\n1 0 0 0\n2 1 0 0\n3 2 0 0\n4 0 1 0\n5 1 1 0\n6 2 1 0\n$EndNodes\n\
$Elements\n8\n1 1 2 1 1 1 2\n2 1 2 1 1 2 3\n3 1 2 2 2 3 6\n4 1 2 2 2 6 5\n5 1 2 2 2 5 4\n6 1 2 2 2 4 1\n7 3 2 0 3 1 2 5 4\n8 3 2 0 3 2 3 6 5\n$EndElements\n";

/// The two squares in binary MSH 2.2 (little-endian), coordinates `z`
/// where they are zero.
fn binary22(z: f64) -> Vec<u8> {
    let mut b = b"$MeshFormat\n2.2 1 8\n".to_vec();
    b.extend(1i32.to_le_bytes());
    b.extend(b"\n$EndMeshFormat\n");
    b.extend(
        &MSH22.as_bytes()[MSH22.find("$PhysicalNames").unwrap()..MSH22.find("$Nodes").unwrap()],
    );
    b.extend(b"$Nodes\n6\n");
    for (tag, p) in [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1]]
        .iter()
        .enumerate()
    {
        b.extend((tag as i32 + 1).to_le_bytes());
        for v in [p[0], p[1], 0] {
            let v = if v == 0 { z } else { f64::from(v) };
            b.extend(v.to_le_bytes());
        }
    }
    b.extend(b"\n$EndNodes\n$Elements\n8\n");
    // Blocks: type, count, tags (physical, curve); then number, tags, nodes.
    let blocks: [(i32, &[[i32; 5]]); 2] = [
        (
            1,
            &[
                [1, 1, 1, 1, 2],
                [2, 1, 1, 2, 3],
                [3, 2, 2, 3, 6],
                [4, 2, 2, 6, 5],
                [5, 2, 2, 5, 4],
                [6, 2, 2, 4, 1],
            ],
        ),
        (3, &[[7, 0, 3, 1, 2], [8, 0, 3, 2, 3]]),
    ];
    let quads = [[5, 4], [6, 5]];
    for (kind, elements) in blocks {
        for v in [kind, elements.len() as i32, 2] {
            b.extend(v.to_le_bytes());
        }
        for (k, e) in elements.iter().enumerate() {
            e.iter().for_each(|v| b.extend(v.to_le_bytes()));
            if kind == 3 {
                quads[k]
                    .iter()
                    .for_each(|v: &i32| b.extend(v.to_le_bytes()));
            }
        }
    }
    b.extend(b"\n$EndElements\n");
    b
}

#[test]
fn gmsh_files_read_negative_zeros_as_zeros() {
    let markers = [("wall", Boundary::Wall), ("far", Boundary::FarField)];
    let read = |b: &[u8], what: &str| {
        gmsh::parse(b, Path::new("t.msh")).unwrap_or_else(|e| panic!("{what}: {e}"))
    };
    let want = read(MSH41.as_bytes(), "plain 4.1");
    assert_eq!(read(MSH22.as_bytes(), "plain 2.2"), want);
    for s in SPELLINGS {
        // Every node has a zero z; five of the x and y are zero too.
        for (text, lines, fields, version) in
            [(MSH41, 24..=29, 0..3, "4.1"), (MSH22, 11..=16, 1..4, "2.2")]
        {
            let neg = respelt(text, lines, fields, s, 11);
            let what = format!("MSH {version}, zeros written {s}");
            assert_same_cells(&read(neg.as_bytes(), &what), &want, &markers, &what);
        }
    }
    let plain = read(&binary22(0.0), "binary 2.2");
    assert_eq!(plain, want);
    let neg = read(&binary22(-0.0), "binary 2.2, -0.0");
    assert_same_cells(&neg, &want, &markers, "binary MSH 2.2, zeros -0.0");
    let file = Scratch::new("neg.msh", &binary22(-0.0));
    let any = qflow_mesh::poly::read_with_markers(&file.0, &markers).unwrap();
    assert_same(
        &any,
        &want.to_poly_mesh(&markers).unwrap(),
        "read_with_markers of a binary .msh",
    );
}
