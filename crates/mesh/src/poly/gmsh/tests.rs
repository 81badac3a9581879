use super::*;
use crate::poly::check::check;
use crate::poly::Boundary;

const HEAD: &str = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n1 1 \"wall\"\n1 2 \"far\"\n$EndPhysicalNames\n";
/// Curve 1 (physical 1, "wall") along y = 0, curve 2 ("far") round the
/// rest, surface 3.
const ENTITIES: &str = "$Entities\n0 2 1 0\n1 0 0 0 2 0 0 1 1 0\n2 0 0 0 2 1 0 1 2 0\n3 0 0 0 2 1 0 0 0\n$EndEntities\n";
const NODES: &str = "$Nodes\n1 6 1 6\n2 3 0 6\n1\n2\n3\n4\n5\n6\n0 0 0\n1 0 0\n2 0 0\n0 1 0\n1 1 0\n2 1 0\n$EndNodes\n";
const ELEMENTS: &str = "$Elements\n3 8 1 8\n1 1 1 2\n1 1 2\n2 2 3\n1 2 1 4\n3 3 6\n4 6 5\n5 5 4\n6 4 1\n2 3 3 2\n7 1 2 5 4\n8 2 3 6 5\n$EndElements\n";

/// Two unit squares in MSH 4.1 (ASCII): nodes 1-3 along y = 0, 4-6
/// along y = 1. Lines 15-30 are `$Nodes`, 31-44 `$Elements`.
fn two() -> String {
    format!("{HEAD}{ENTITIES}{NODES}{ELEMENTS}")
}

/// The same in MSH 2.2 (lines 9-17 `$Nodes`, 18-28 `$Elements`).
const TWO22: &str = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n1 1 \"wall\"\n1 2 \"far\"\n$EndPhysicalNames\n$Nodes\n6\n1 0 0 0\n2 1 0 0\n3 2 0 0\n4 0 1 0\n5 1 1 0\n6 2 1 0\n$EndNodes\n$Elements\n8\n1 1 2 1 1 1 2\n2 1 2 1 1 2 3\n3 1 2 2 2 3 6\n4 1 2 2 2 6 5\n5 1 2 2 2 5 4\n6 1 2 2 2 4 1\n7 3 2 0 3 1 2 5 4\n8 3 2 0 3 2 3 6 5\n$EndElements\n";

fn read(t: &str) -> CellMesh {
    parse(t.as_bytes(), Path::new("t.msh")).unwrap()
}

fn err(t: impl AsRef<[u8]>) -> String {
    let e = parse(t.as_ref(), Path::new("t.msh"))
        .unwrap_err()
        .to_string();
    assert!(!e.contains("t.msh:0:"), "line 0: {e}");
    e
}

fn poly(m: &CellMesh) -> crate::poly::PolyMesh {
    let q = m
        .to_poly_mesh(&[("wall", Boundary::Wall), ("far", Boundary::FarField)])
        .unwrap();
    assert!(check(&q).is_ok(), "{:?}", check(&q).findings);
    q
}

#[test]
fn reads_cells_and_named_boundaries_in_both_versions() {
    let m = read(&two());
    assert_eq!(m.cell_nodes, [0, 1, 4, 3, 1, 2, 5, 4]);
    assert_eq!(m.marker_names(), ["wall", "far"]);
    let q = poly(&m);
    assert_eq!((q.cells(), q.edges(), q.bedges()), (2, 1, 6));
    assert_eq!(q.bound.iter().filter(|&&b| b == 1).count(), 2);
    assert_eq!(read(TWO22), m);
    // Triangles, and a quadrilateral beside two triangles.
    let tri = two().replace(
        "2 3 3 2\n7 1 2 5 4\n8 2 3 6 5",
        "2 3 2 4\n7 1 2 5\n8 1 5 4\n9 2 3 6\n10 2 6 5",
    );
    let tri = tri.replace("3 8 1 8\n", "3 10 1 10\n");
    assert_eq!(poly(&read(&tri)).cell_kinds(), [(3, 4)]);
    let mixed = two().replace(
        "2 3 3 2\n7 1 2 5 4\n8 2 3 6 5",
        "2 3 3 1\n7 1 2 5 4\n2 3 2 2\n9 2 3 6\n10 2 6 5",
    );
    let mixed = mixed.replace("3 8 1 8\n", "4 9 1 10\n");
    assert_eq!(poly(&read(&mixed)).cell_kinds(), [(3, 2), (4, 1)]);
}

/// mshio numbered nodes by position when their tags were a permutation
/// of 1..n: blocks in another order than their tags gave a wrong mesh.
#[test]
fn nodes_are_found_by_tag_in_any_order_and_with_gaps() {
    let reversed = "$Nodes\n2 6 1 6\n2 3 0 3\n4\n5\n6\n0 1 0\n1 1 0\n2 1 0\n1 2 0 3\n1\n2\n3\n0 0 0\n1 0 0\n2 0 0\n$EndNodes\n";
    let m = read(&format!("{HEAD}{ENTITIES}{reversed}{ELEMENTS}"));
    assert_eq!(m, read(&two()));
    // 2.2, nodes backwards with gaps in their tags, sections out of order.
    let gaps = TWO22
        .replace("1 0 0 0\n2 1 0 0\n3 2 0 0\n4 0 1 0\n5 1 1 0\n6 2 1 0", "60 2 1 0\n50 1 1 0\n40 0 1 0\n30 2 0 0\n20 1 0 0\n10 0 0 0")
        .replace("1 1 2 1 1 1 2\n2 1 2 1 1 2 3\n3 1 2 2 2 3 6\n4 1 2 2 2 6 5\n5 1 2 2 2 5 4\n6 1 2 2 2 4 1\n7 3 2 0 3 1 2 5 4\n8 3 2 0 3 2 3 6 5",
            "1 1 2 1 1 10 20\n2 1 2 1 1 20 30\n3 1 2 2 2 30 60\n4 1 2 2 2 60 50\n5 1 2 2 2 50 40\n6 1 2 2 2 40 10\n7 3 2 0 3 10 20 50 40\n8 3 2 0 3 20 30 60 50");
    let (nodes, rest) = gaps.split_at(gaps.find("$Nodes").unwrap());
    let (nodes_sec, elements) = rest.split_at(rest.find("$Elements").unwrap());
    let swapped = format!("{nodes}{elements}$Periodic\n0\n$EndPeriodic\n{nodes_sec}");
    assert_eq!(read(&swapped), read(TWO22));
}

#[test]
fn points_and_unused_nodes_are_left_out() {
    // A point element on an extra node 7 (a circle's centre, say).
    let t = two()
        .replace("$Nodes\n1 6 1 6\n", "$Nodes\n2 7 1 7\n0 9 0 1\n7\n5 5 0\n")
        .replace(
            "$Elements\n3 8 1 8\n",
            "$Elements\n4 9 1 9\n0 9 15 1\n9 7\n",
        );
    assert_eq!(read(&t), read(&two()));
}

#[test]
fn curves_without_a_group_are_named_and_inner_ones_left_out() {
    // Curve 4, in no physical group, between the squares (nodes 2-5).
    let t = two()
        .replace("$Entities\n0 2 1 0\n", "$Entities\n0 3 1 0\n")
        .replace(
            "2 0 0 0 2 1 0 1 2 0\n",
            "2 0 0 0 2 1 0 1 2 0\n4 1 0 0 1 1 0 0 0\n",
        )
        .replace("3 8 1 8\n", "4 9 1 9\n")
        .replace("2 3 3 2\n", "1 4 1 1\n9 2 5\n2 3 3 2\n");
    let m = read(&t);
    assert_eq!(m.marker_names(), ["wall", "far", "curve 4"]);
    assert_eq!(poly(&m), poly(&read(&two())));
    // Curve 1 with no physical group is on the boundary: it must be mapped.
    let open = two().replace("1 0 0 0 2 0 0 1 1 0\n", "1 0 0 0 2 0 0 0 0\n");
    let m = read(&open);
    assert_eq!(m.marker_names(), ["curve 1", "far"]);
    let e = m.to_poly_mesh(&[("far", Boundary::FarField)]).unwrap_err();
    assert!(e.to_string().contains("`curve 1` is not mapped"), "{e}");
    // No names: `physical N`; 2.2 lines in no group: `curve N`.
    let unnamed = two().replace(
        "$PhysicalNames\n2\n1 1 \"wall\"\n1 2 \"far\"\n$EndPhysicalNames\n",
        "",
    );
    assert_eq!(read(&unnamed).marker_names(), ["physical 1", "physical 2"]);
    let t = TWO22.replace("\n3 1 2 2 2 3 6\n", "\n3 1 2 0 7 3 6\n");
    assert_eq!(read(&t).marker_names(), ["wall", "curve 7", "far"]);
}

#[test]
fn signed_zeros_change_nothing() {
    // Coordinates are 3-value lines in 4.1, 4-value (tag first) in 2.2.
    let neg = |t: &str, width: usize| -> String {
        let (a, rest) = t.split_at(t.find("$Nodes").unwrap());
        let (nodes, b) = rest.split_at(rest.find("$EndNodes").unwrap());
        let coords = nodes
            .lines()
            .map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                if w.len() != width {
                    return l.to_string();
                }
                let k = width - 3;
                let mut w: Vec<String> = w.iter().map(|s| s.to_string()).collect();
                for v in &mut w[k..] {
                    if v == "0" {
                        *v = "-0.000000".into();
                    }
                }
                w.join(" ")
            })
            .collect::<Vec<_>>()
            .join("\n");
        format!("{a}{coords}\n{b}")
    };
    for (t, width) in [(two(), 3), (TWO22.to_string(), 4)] {
        let n = neg(&t, width);
        assert!(n.contains("-0.000000 -0.000000 -0.000000"), "{n}");
        let m = read(&n);
        assert_eq!(m, read(&t));
        assert!(m
            .x
            .iter()
            .all(|p| p[0].is_sign_positive() && p[1].is_sign_positive()));
        assert_eq!(poly(&m), poly(&read(&t)));
    }
}

/// The two squares in binary MSH 4.1: `size_t` of `st` bytes, big- or
/// little-endian; `declared` nodes in the header and `block` in the block
/// (6 belong), element 7's second node `node2` (2 belongs).
fn binary41(big: bool, st: usize, declared: u64, block: u64, node2: u64) -> Vec<u8> {
    let mut b = format!("$MeshFormat\n4.1 1 {st}\n").into_bytes();
    let int = |b: &mut Vec<u8>, v: i32| {
        b.extend(if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        })
    };
    let size = |b: &mut Vec<u8>, v: u64| match (st, big) {
        (4, true) => b.extend((v as u32).to_be_bytes()),
        (4, false) => b.extend((v as u32).to_le_bytes()),
        (_, true) => b.extend(v.to_be_bytes()),
        (_, false) => b.extend(v.to_le_bytes()),
    };
    let float = |b: &mut Vec<u8>, v: f64| {
        b.extend(if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        })
    };
    int(&mut b, 1);
    b.extend(b"\n$EndMeshFormat\n");
    b.extend(&HEAD.as_bytes()[HEAD.find("$PhysicalNames").unwrap()..]);
    b.extend(b"$Entities\n");
    [0, 2, 1, 0].into_iter().for_each(|v| size(&mut b, v));
    for (tag, physical) in [(1, Some(1)), (2, Some(2)), (3, None)] {
        int(&mut b, tag);
        (0..6).for_each(|_| float(&mut b, 0.5));
        size(&mut b, u64::from(physical.is_some()));
        physical.into_iter().for_each(|p| int(&mut b, p));
        size(&mut b, 0);
    }
    b.extend(b"\n$EndEntities\n$Nodes\n");
    [1, declared, 1, 6]
        .into_iter()
        .for_each(|v| size(&mut b, v));
    [2, 3, 0].into_iter().for_each(|v| int(&mut b, v));
    size(&mut b, block);
    (1..=6).for_each(|t| size(&mut b, t));
    for p in [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1]] {
        [p[0] as f64, p[1] as f64, 0.0]
            .into_iter()
            .for_each(|v| float(&mut b, v));
    }
    b.extend(b"\n$EndNodes\n$Elements\n");
    [3, 8, 1, 8].into_iter().for_each(|v| size(&mut b, v));
    let blocks: [(i32, i32, i32, &[&[u64]]); 3] = [
        (1, 1, 1, &[&[1, 1, 2], &[2, 2, 3]]),
        (1, 2, 1, &[&[3, 3, 6], &[4, 6, 5], &[5, 5, 4], &[6, 4, 1]]),
        (2, 3, 3, &[&[7, 1, node2, 5, 4], &[8, 2, 3, 6, 5]]),
    ];
    for (dim, tag, kind, elements) in blocks {
        [dim, tag, kind].into_iter().for_each(|v| int(&mut b, v));
        size(&mut b, elements.len() as u64);
        elements
            .iter()
            .flat_map(|e| e.iter())
            .for_each(|&v| size(&mut b, v));
    }
    b.extend(b"\n$EndElements\n");
    b
}

#[test]
fn binary_files_of_either_byte_order_and_size_read() {
    let m = read(&two());
    for big in [false, true] {
        for st in [4, 8] {
            let b = binary41(big, st, 6, 6, 2);
            assert_eq!(
                parse(&b, Path::new("b.msh")).unwrap(),
                m,
                "big {big}, size_t {st}"
            );
        }
    }
    let b = |declared, block, node2| binary41(false, 8, declared, block, node2);
    let e = err(b(6, 6, 99));
    assert!(
        e.contains("$Elements, byte ") && e.contains("element 7 names node 99"),
        "{e}"
    );
    let e = err(b(7, 6, 2));
    assert!(
        e.contains("the header declares 7 nodes, its blocks hold 6"),
        "{e}"
    );
    let e = err(b(99999999999, 99999999999, 2));
    assert!(
        e.contains("declares 99999999999 nodes, the section has room for at most 6"),
        "{e}"
    );
    // Cut short anywhere: an error, never a panic.
    let good = b(6, 6, 2);
    for n in 0..good.len() {
        let _ = parse(&good[..n], Path::new("b.msh"));
    }
    let mut one = good.clone();
    one[22] = 2;
    assert!(err(&one).contains("must hold the int 1"), "{}", err(&one));
}

#[test]
fn other_elements_are_refused_by_name() {
    let six = two().replace(
        "2 3 3 2\n7 1 2 5 4\n8 2 3 6 5",
        "2 3 9 2\n7 1 2 5 4 3 6\n8 2 3 6 5 1 4",
    );
    assert_eq!(
        err(six),
        "t.msh:41: $Elements: block 3: element type 9 (6-node triangle): qflow reads 3-node \
         triangles, 4-node quadrilaterals and 2-node lines; re-mesh with Mesh.ElementOrder = 1"
    );
    let tet = TWO22.replace("7 3 2 0 3 1 2 5 4", "7 4 2 0 3 1 2 5 4");
    assert!(
        err(&tet)
            .starts_with("t.msh:26: $Elements: element 7: element type 4 (4-node tetrahedron)"),
        "{}",
        err(&tet)
    );
    assert!(err(&tet).contains("qflow reads 2D meshes"));
    let line_on_surface = two().replace("2 3 3 2\n", "2 3 1 2\n");
    assert!(err(&line_on_surface).contains("type 1 on a 2D entity (3)"));
    let short = TWO22.replace("7 3 2 0 3 1 2 5 4", "7 3 2 0 3 1 2 5");
    assert_eq!(
        err(&short),
        "t.msh:26: $Elements: node tag: missing (the line ends before it)"
    );
}

#[test]
fn damaged_files_name_the_line() {
    let t = two();
    let cases: &[(String, &str)] = &[
        (t.replace("1 6 1 6\n", "1 99999999999 1 6\n"), "t.msh:16: $Nodes: the header declares 99999999999 nodes, its blocks hold 6"),
        (t.replace("2 3 0 6\n", "2 3 0 10\n"), "t.msh:17: $Nodes: block 1 (entity 2D 3) declares 10 nodes, the section has room for at most 6"),
        (t.replace("2 3 0 6\n", "2 3 0 5\n"), "t.msh:23: $Nodes: y: missing (the line ends before it)"),
        (t.replace("3 8 1 8\n", "3 9 1 8\n"), "t.msh:32: $Elements: the header declares 9 elements, its blocks hold 8"),
        (t.replace("3 8 1 8\n", "4 8 1 8\n"), "t.msh:32: $Elements: the header declares 4 entity blocks, the section holds 3"),
        (t.replace("1 2 1 4\n", "1 2 1 5\n"), "t.msh:41: $Elements: 4 values where element 5 of block 2 (2-node line) takes 3: its tag and 2 node tags (the block declares 5 elements: is that right?)"),
        (t.replace("7 1 2 5 4", "7 1 2 5 4 9"), "t.msh:42: $Elements: 6 values where element 1 of block 3 (4-node quadrilateral) takes 5: its tag and 4 node tags (the block declares 2 elements: is that right?)"),
        (t.replace("7 1 2 5 4", "7 1 99 5 4"), "t.msh:42: $Elements: element 7 names node 99, which $Nodes does not have"),
        (t.replace("\n1 1 0\n", "\n1 1 0.5\n"), "t.msh:28: $Nodes: node 5 at z = 0.5: qflow reads 2D meshes in the x-y plane"),
        (t.replace("\n1 1 0\n", "\n1 nan 0\n"), "t.msh:28: $Nodes: y: NaN is not a finite number"),
        (t.replace("\n5\n6\n0 0 0", "\n5\n5\n0 0 0"), "t.msh:29: $Nodes: node tag 5 is given twice"),
        (t.replace("4.1 0 8", "4.0 0 8"), "t.msh:2: $MeshFormat: MSH version 4.0: qflow reads 2.2 and 4.1 (Mesh.MshFileVersion)"),
        (t.replace("$EndNodes\n", ""), "t.msh:15: sections: `$Nodes` has no `$EndNodes` after it"),
        (t.replace("$Elements", "$Elementz").replace("$EndElementz", "$EndElements"), "t.msh:31: sections: `$Elementz` has no `$EndElementz` after it"),
        (t.replace("$Elements\n3 8 1 8", "$PartitionedEntities\n1\n$EndPartitionedEntities\n$Elements\n3 8 1 8"), "t.msh:31: $PartitionedEntities: a partitioned mesh: qflow reads whole meshes (save it unpartitioned)"),
        (t.replace("2\n1 1 \"wall\"", "3\n1 1 \"wall\""), "t.msh:5: $PhysicalNames: the header declares 3 names, the section holds 2"),
        (format!("{HEAD}{ENTITIES}{NODES}"), "t.msh:30: end of file: no $Elements section"),
        (t.replace("3 8 1 8\n", "3 6 1 6\n").replace("2 3 3 2\n7 1 2 5 4\n8 2 3 6 5", "2 3 3 0"), "t.msh:42: end of file: no triangles or quadrilaterals: qflow reads the 2D elements of surfaces"),
        (TWO22.replace("$Nodes\n6\n", "$Nodes\n7\n"), "t.msh:10: number of nodes: the header declares 7 nodes, the section holds at most 6"),
        (TWO22.replace("$Elements\n8\n", "$Elements\n7\n"), "t.msh:27: $Elements: `8 3 2 0 3 2 3 6 5` after the 7 elements its header declares"),
        (TWO22.replace("2.2 0 8", "2.2 0 4"), "t.msh:2: $MeshFormat: data size 4: qflow reads 8 (and 4 in 4.1)"),
    ];
    for (text, want) in cases {
        assert_eq!(err(text), *want);
    }
    // Cut short anywhere: an error, never a panic, never line 0.
    for n in 0..t.len() {
        if let Err(e) = parse(&t.as_bytes()[..n], Path::new("t.msh")) {
            assert!(!e.to_string().contains("t.msh:0:"), "{e}");
        }
    }
}
