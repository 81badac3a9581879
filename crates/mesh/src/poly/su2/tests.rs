use super::*;
use crate::poly::check::check;
use crate::poly::Boundary;

/// Two unit squares: nodes 0-2 along y = 0, 3-5 along y = 1; elements on
/// lines 4-5, points on lines 7-12, marker `wall` on lines 14-17 (its
/// segments 16-17), `far` on lines 18-23.
const TWO: &str = "% two squares\nNDIME= 2\nNELEM= 2\n9 0 1 4 3 0\n9 1 2 5 4 1\nNPOIN= 6\n0 0 0\n1 0 1\n2 0 2\n0 1 3\n1 1 4\n2 1 5\nNMARK= 2\nMARKER_TAG= wall\nMARKER_ELEMS= 2\n3 0 1\n3 1 2\nMARKER_TAG= far\nMARKER_ELEMS= 4\n3 2 5\n3 5 4\n3 4 3\n3 3 0\n";

/// The design sections SU2's shape-design tutorials append after the
/// markers (`unsteady_naca0012_FFD.su2`: a periodic transform, then one
/// free-form deformation box).
const DESIGN: &str = "NPERIODIC= 1\nPERIODIC_INDEX= 0\n0.000000000000000e+00\t0.000000000000000e+00\t0.000000000000000e+00\n\
0.000000000000000e+00\t0.000000000000000e+00\t0.000000000000000e+00\n\
0.000000000000000e+00\t0.000000000000000e+00\t0.000000000000000e+00\n\
FFD_NBOX= 1\nFFD_NLEVEL= 1\nFFD_TAG= 0\nFFD_LEVEL= 0\nFFD_DEGREE_I= 1\nFFD_DEGREE_J= 1\nFFD_BLENDING= BEZIER\n\
FFD_PARENTS= 0\nFFD_CHILDREN= 0\nFFD_CORNER_POINTS= 4\n-0.05\t-0.07\n-0.05\t1.07\n2.05\t1.07\n2.05\t-0.07\n\
FFD_CONTROL_POINTS= 4\n0\t0\t0\t-0.05\t-0.07\t-0.5\n0\t1\t0\t-0.05\t1.07\t-0.5\n1\t0\t0\t2.05\t-0.07\t-0.5\n1\t1\t0\t2.05\t1.07\t-0.5\n\
FFD_SURFACE_POINTS= 2\nwall\t0\t0.0238\t0.0603\t0.5\nwall\t1\t0.5\t0.0603\t0.5\n";

fn read(t: &str) -> CellMesh {
    parse(t, Path::new("t.su2")).unwrap_or_else(|e| panic!("{e}"))
}

/// The error, which never names line 0.
fn err(t: &str) -> String {
    let e = parse(t, Path::new("t.su2")).unwrap_err().to_string();
    assert!(!e.contains("t.su2:0:"), "line 0: {e}");
    e
}

/// The same mesh, coordinates to the bit (a `-0.0` equals `0.0` for `==`).
fn assert_same(a: &CellMesh, b: &CellMesh) {
    assert_eq!(a, b);
    let bits = |m: &CellMesh| -> Vec<u64> { m.x.iter().flatten().map(|v| v.to_bits()).collect() };
    assert_eq!(bits(a), bits(b));
}

fn poly(m: &CellMesh) -> crate::poly::PolyMesh {
    let q = m
        .to_poly_mesh(&[("wall", Boundary::Wall), ("far", Boundary::FarField)])
        .unwrap();
    assert!(check(&q).is_ok(), "{:?}", check(&q).findings);
    q
}

#[test]
fn reads_cells_points_and_markers() {
    let m = read(TWO);
    assert_eq!(m.cell_start, [0, 4, 8]);
    assert_eq!(m.cell_nodes, [0, 1, 4, 3, 1, 2, 5, 4]);
    assert_eq!(m.x[5], [2.0, 1.0]);
    assert_eq!(m.marker_names(), ["wall", "far"]);
    assert_eq!(m.markers[0].1, [[0, 1], [1, 2]]);
    let q = poly(&m);
    assert_eq!((q.cells(), q.edges(), q.bedges()), (2, 1, 6));
    assert_eq!(q.bound.iter().filter(|&&b| b == 1).count(), 2);
    // Triangles beside a quadrilateral.
    let mixed = TWO
        .replace("NELEM= 2", "NELEM= 3")
        .replace("9 1 2 5 4 1", "5 1 2 5 1\n5 1 5 4 2");
    assert_eq!(poly(&read(&mixed)).cell_kinds(), [(3, 2), (4, 1)]);
}

/// What SU2's tutorial meshes hold: points before elements, `x y 0 index`
/// points, CRLF and tabs (`mesh_RAE2822_turb.su2`); no space after `=`,
/// blanks round tabs (`mesh_n0012_225-65.su2`); comment lines between
/// sections and leading blanks (`mesh_channel_256x128.su2`); no indices;
/// angle offsets and design sections (`unsteady_naca0012_FFD.su2`). Each
/// reads to the same mesh.
#[test]
fn real_files_features_read_to_the_same_mesh() {
    let two = read(TWO);
    let npoin_first = "NDIME= 2\r\nNPOIN= 6\r\n0\t0\t0\t0\r\n1\t0\t0\t1\r\n2\t0\t0\t2\r\n0\t1\t0\t3\r\n1\t1\t0\t4\r\n2\t1\t0\t5\r\n\
NELEM= 2\r\n9\t0\t1\t4\t3\t\r\n9\t1\t2\t5\t4\t\r\nNMARK= 2\r\nMARKER_TAG= wall\r\nMARKER_ELEMS= 2\r\n3\t0\t1\t\r\n3\t1\t2\t\r\n\
MARKER_TAG= far\r\nMARKER_ELEMS= 4\r\n3\t2\t5\t\r\n3\t5\t4\t\r\n3\t4\t3\t\r\n3\t3\t0";
    assert_same(&read(npoin_first), &two);
    let tight = TWO
        .replace("= ", "=")
        .replace("9 0 1 4 3 0", "9 \t 0 \t 1 \t 4 \t 3 \t 0")
        .replace(
            "0 1 3\n",
            "0.000000000000000e+00\t1.000000000000000e+00\t3\n",
        );
    assert!(tight.contains("NELEM=2\n"));
    assert_same(&read(&tight), &two);
    let commented = TWO
        .replace("NELEM", "% \n% Inner element connectivity \n% \nNELEM")
        .replace("NPOIN", "%\n\n NPOIN")
        .replace("\n9 1 2", "\n 9     1    2")
        .replace("MARKER_TAG= far", "MARKER_TAG= far % the far field");
    assert_same(&read(&commented), &two);
    let plain = TWO
        .replace("9 0 1 4 3 0", "9 0 1 4 3")
        .replace("9 1 2 5 4 1", "9 1 2 5 4")
        .replace("\n1 1 4\n", "\n1 1\n");
    assert_same(&read(&plain), &two);
    let design = format!(
        "{}{DESIGN}",
        TWO.replace("NDIME= 2\n", "NDIME= 2\nAOA_OFFSET= 0\nAOS_OFFSET= 0\n")
    );
    assert_same(&read(&design), &two);
    // A single zone may say so.
    assert_same(&read(&format!("NZONE= 1\nIZONE= 1\n{TWO}")), &two);
    // Older SU2 files give the points twice (all, and those in the domain).
    assert_same(&read(&TWO.replace("NPOIN= 6", "NPOIN= 6 6")), &two);
}

/// A count that is not the number of records after it names its line and
/// both numbers.
#[test]
fn counts_are_checked_against_the_records() {
    assert_eq!(
        err(&TWO.replace("NELEM= 2", "NELEM= 3")),
        "t.su2:3: NELEM: the header declares 3 elements, the file holds 2 before `NPOIN= 6` at line 6"
    );
    assert_eq!(
        err(&TWO.replace("NELEM= 2", "NELEM= 1")),
        "t.su2:3: NELEM: the header declares 1 element, the file holds 2 (line 5 is the first beyond them)"
    );
    assert_eq!(
        err(&TWO.replace("NPOIN= 6", "NPOIN= 7")),
        "t.su2:6: NPOIN: the header declares 7 points, the file holds 6 before `NMARK= 2` at line 13"
    );
    assert_eq!(
        err(&TWO.replace("NPOIN= 6", "NPOIN= 4")),
        "t.su2:6: NPOIN: the header declares 4 points, the file holds 6 (line 11 is the first beyond them)"
    );
    assert_eq!(
        err(&TWO.replace("NMARK= 2", "NMARK= 7")),
        "t.su2:13: NMARK: the header declares 7 markers, the file holds 2"
    );
    assert_eq!(
        err(&TWO.replace("NMARK= 2", "NMARK= 1")),
        "t.su2:13: NMARK: the header declares 1 marker, the file holds 2"
    );
    assert_eq!(
        err(&TWO.replace("MARKER_ELEMS= 2", "MARKER_ELEMS= 3")),
        "t.su2:15: marker `wall`: MARKER_ELEMS declares 3 segments, the file holds 2 before \
         `MARKER_TAG= far` at line 18"
    );
    assert_eq!(
        err(&TWO.replace("MARKER_ELEMS= 2", "MARKER_ELEMS= 1")),
        "t.su2:15: marker `wall`: MARKER_ELEMS declares 1 segment, the file holds 2 (line 17 is \
         the first beyond them)"
    );
    assert_eq!(
        err(&TWO.replace("MARKER_ELEMS= 4", "MARKER_ELEMS= 5")),
        "t.su2:19: marker `far`: MARKER_ELEMS declares 5 segments, the file holds 4 before the file ends"
    );
    // A raised count before the design sections does not swallow them.
    assert_eq!(
        err(&format!(
            "{}{DESIGN}",
            TWO.replace("MARKER_ELEMS= 4", "MARKER_ELEMS= 5")
        )),
        "t.su2:19: marker `far`: MARKER_ELEMS declares 5 segments, the file holds 4 before \
         `NPERIODIC= 1` at line 24"
    );
    assert_eq!(
        err(&TWO.replace("NELEM= 2", "NELEM= 2 3")),
        "t.su2:3: NELEM: `2 3` is not a count"
    );
    assert_eq!(
        err(&TWO.replace("NPOIN= 6", "NPOIN= 6 5")),
        "t.su2:6: NPOIN: `6 5` is not a count"
    );
    assert_eq!(
        err(&TWO.replace("NMARK= 2", "NMARK= -2")),
        "t.su2:13: NMARK: `-2` is not a count"
    );
}

/// An element line says what it holds and what its type takes.
#[test]
fn element_lines_say_what_their_type_takes() {
    let e = |from: &str, to: &str| err(&TWO.replace(from, to));
    assert_eq!(
        e("9 1 2 5 4 1", "9 1 2 5"),
        "t.su2:5: element 1: type 9 (quadrilateral) takes 4 nodes, the line has 3"
    );
    assert_eq!(
        e("9 1 2 5 4 1", "9 1 2 5 4 1 7"),
        "t.su2:5: element 1: type 9 (quadrilateral) takes 4 nodes and an optional index, the \
         line has 6 numbers after its type"
    );
    assert_eq!(
        e("9 0 1 4 3 0", "5 0 1"),
        "t.su2:4: element 0: type 5 (triangle) takes 3 nodes, the line has 2"
    );
    assert_eq!(
        e("9 1 2 5 4 1", "3 1 2"),
        "t.su2:5: element 1: type 3 (line): qflow's finite volumes take triangles (5) and \
         quadrilaterals (9)"
    );
    assert_eq!(
        e("9 1 2 5 4 1", "12 1 2 5 4 0 1 2 3"),
        "t.su2:5: element 1: type 12 (hexahedron): qflow's finite volumes take triangles (5) \
         and quadrilaterals (9)"
    );
    assert_eq!(
        e("9 1 2 5 4 1", "q 1 2 5 4 1"),
        "t.su2:5: element 1: `q` is not an element type (a VTK number)"
    );
    assert_eq!(
        e("9 1 2 5 4 1", "9 1 -2 5 4 1"),
        "t.su2:5: element 1: `-2` is not a node index"
    );
    assert_eq!(
        e("9 1 2 5 4 1", "9 1 2 5 4 a"),
        "t.su2:5: element 1: `a` is not an element index"
    );
    assert_eq!(
        e("3 1 2\n", "3 1 2 0\n"),
        "t.su2:17: marker `wall` element 1: type 3 (line) takes 2 nodes, the line has 3 \
         numbers after its type"
    );
    assert_eq!(
        e("3 1 2\n", "3 1\n"),
        "t.su2:17: marker `wall` element 1: type 3 (line) takes 2 nodes, the line has 1"
    );
    assert_eq!(
        e("3 1 2\n", "5 1 2 4\n"),
        "t.su2:17: marker `wall` element 1: type 5 (triangle): boundary elements of a 2D mesh \
         are line segments (3)"
    );
}

/// A node index out of range names the element, its line and the index,
/// whichever of NELEM and NPOIN comes first.
#[test]
fn node_indices_out_of_range_name_the_element() {
    assert_eq!(
        err(&TWO.replace("9 1 2 5 4 1", "9 1 2 6 4 1")),
        "t.su2:5: element 1: node 6 out of range: the file has points 0 to 5 (NPOIN= 6)"
    );
    assert_eq!(
        err(&TWO.replace("3 4 3\n", "3 4 30\n")),
        "t.su2:22: marker `far` element 2: node 30 out of range: the file has points 0 to 5 \
         (NPOIN= 6)"
    );
    assert_eq!(
        err(&TWO.replace("9 1 2 5 4 1", "9 1 2 5000000000 4 1")),
        "t.su2:5: element 1: node 5000000000 out of range (qflow's node indices are 32-bit)"
    );
    // Points first; a comment between the elements moves their lines.
    let npoin_first =
        "NDIME= 2\nNPOIN= 3\n0 0\n1 0\n0 1\nNELEM= 2\n5 0 1 2\n% the next one\n5 0 2 3\n\
NMARK= 1\nMARKER_TAG= w\nMARKER_ELEMS= 0\n";
    assert_eq!(
        err(npoin_first),
        "t.su2:9: element 1: node 3 out of range: the file has points 0 to 2 (NPOIN= 3)"
    );
    assert_eq!(
        err(&npoin_first.replace("NPOIN= 3\n0 0\n1 0\n0 1", "NPOIN= 0")),
        "t.su2:4: element 0: node 0 out of range: the file has no points (NPOIN= 0)"
    );
}

#[test]
fn points_are_two_finite_coordinates_and_an_optional_index() {
    let e = |from: &str, to: &str| err(&TWO.replace(from, to));
    assert_eq!(
        e("\n1 1 4\n", "\n1 x 4\n"),
        "t.su2:11: point 4: `1 x 4` is not two finite coordinates"
    );
    assert_eq!(
        e("\n1 1 4\n", "\n1 inf 4\n"),
        "t.su2:11: point 4: `1 inf 4` is not two finite coordinates"
    );
    assert_eq!(
        e("\n1 1 4\n", "\n1\n"),
        "t.su2:11: point 4: `1` is not two finite coordinates"
    );
    assert_eq!(
        e("\n1 1 4\n", "\n1 1 0.5 4\n"),
        "t.su2:11: point 4: `1 1 0.5 4`: a 2D point is `x y` and an optional index (or `x y 0 index`)"
    );
    assert_eq!(
        e("\n1 1 4\n", "\n1 1 0.5\n"),
        "t.su2:11: point 4: `1 1 0.5`: a 2D point is `x y` and an optional index (or `x y 0 index`)"
    );
    assert_eq!(
        e("\n1 1 4\n", "\n1 1 0 4 4\n"),
        "t.su2:11: point 4: `1 1 0 4 4`: a 2D point is `x y` and an optional index (or `x y 0 index`)"
    );
}

/// Sections missing, repeated, out of order or of another kind of file.
#[test]
fn sections_are_named_when_missing_repeated_or_refused() {
    assert_eq!(
        err("NDIME= 3\n"),
        "t.su2:1: NDIME: 3 dimensions: qflow reads 2D meshes"
    );
    assert_eq!(
        err(&format!("NZONE= 4\nIZONE= 1\n{TWO}")),
        "t.su2:1: NZONE: 4 zones: qflow reads single-zone meshes"
    );
    // Zones without NZONE: the second zone's sections.
    assert_eq!(
        err(&format!("IZONE= 1\n{TWO}IZONE= 2\n{TWO}")),
        "t.su2:27: NDIME: a second NDIME= (the first is at line 3): qflow reads single-zone \
         meshes, each section once"
    );
    assert_eq!(
        err(&TWO.replace("NDIME= 2\n", "")),
        "t.su2:2: NELEM: before NDIME=: an SU2 file gives its dimension (NDIME= 2) first"
    );
    assert_eq!(
        err(&TWO.replace("NMARK= 2\n", "")),
        "t.su2:13: MARKER_TAG: before NMARK=: an SU2 file gives its number of markers first"
    );
    let no_points = TWO.replace("NPOIN= 6\n0 0 0\n1 0 1\n2 0 2\n0 1 3\n1 1 4\n2 1 5\n", "");
    assert_eq!(
        err(&no_points),
        "t.su2:16: NPOIN: the file ends without a NPOIN= section"
    );
    assert_eq!(
        err("% nothing"),
        "t.su2:1: NDIME: the file ends without a NDIME= section"
    );
    assert_eq!(
        err(""),
        "t.su2:1: NDIME: the file ends without a NDIME= section"
    );
    assert_eq!(
        err(&TWO.replace("MARKER_ELEMS= 2\n3 0 1\n3 1 2\n", "")),
        "t.su2:14: MARKER_TAG: marker `wall` has no MARKER_ELEMS= after it (line 15 is \
         `MARKER_TAG= far`)"
    );
    assert_eq!(
        err(&format!("{TWO}MARKER_TAG= inlet\n")),
        "t.su2:24: MARKER_TAG: marker `inlet` has no MARKER_ELEMS= after it (the file ends)"
    );
    assert_eq!(
        err(&TWO.replace("MARKER_TAG= wall\n", "")),
        "t.su2:14: MARKER_ELEMS: MARKER_ELEMS without a MARKER_TAG before it"
    );
    assert_eq!(
        err(&TWO.replace("MARKER_TAG= far", "MARKER_TAG= wall")),
        "t.su2:18: MARKER_TAG: marker `wall` is given twice (first at line 14)"
    );
    assert_eq!(
        err(&TWO.replace("MARKER_TAG= far", "MARKER_TAG=")),
        "t.su2:18: MARKER_TAG: a marker without a name"
    );
    assert_eq!(
        err(&TWO.replace("NMARK= 2\n", "NMARK= 2\n3 0 1\n")),
        "t.su2:14: record: `3 0 1` after `NMARK= 2` (line 13), which takes no records"
    );
    assert_eq!(
        err(&format!("9 0 1 4 3\n{TWO}")),
        "t.su2:1: keyword: expected KEY= value, found `9 0 1 4 3`"
    );
}

/// Bytes that are not UTF-8 name their line.
#[test]
fn bytes_that_are_not_text_name_their_line() {
    let mut b = TWO.as_bytes().to_vec();
    let at = TWO.find("1 1 4").unwrap();
    b[at + 2] = 0xff;
    let e = parse_bytes(&b, Path::new("t.su2")).unwrap_err().to_string();
    assert_eq!(e, "t.su2:11: text: not UTF-8 text (is this a binary file?)");
    let path = std::env::temp_dir().join(format!("qflow-su2-{}.su2", std::process::id()));
    std::fs::write(&path, &b).unwrap();
    let e = super::read(&path).unwrap_err().to_string();
    // The reader of any mesh (a run's `[mesh] file`) says the same.
    let any = crate::poly::read_with_markers(&path, &[])
        .unwrap_err()
        .to_string();
    std::fs::remove_file(&path).unwrap();
    assert!(
        e.ends_with(".su2:11: text: not UTF-8 text (is this a binary file?)"),
        "{e}"
    );
    assert_eq!(any, e);
}

/// Every prefix of a file and the file without any one of its lines reads
/// or gives an error naming a line of the file, never line 0, never a
/// panic.
#[test]
fn cut_files_give_named_errors() {
    let full = format!("{TWO}{DESIGN}");
    let lines = full.lines().count();
    let line_of = |e: &MeshError| match e {
        MeshError::Parse { line, .. } => *line,
        e => panic!("not a parse error: {e}"),
    };
    // The mesh is whole once its last segment is.
    let whole = full.find("3 3 0").unwrap() + 5;
    for cut in 0..full.len() {
        match parse(&full[..cut], Path::new("t.su2")) {
            Ok(_) => assert!(cut >= whole, "cut at {cut}: read"),
            Err(e) => assert!((1..=lines).contains(&line_of(&e)), "cut at {cut}: {e}"),
        }
    }
    let kept: Vec<&str> = full.lines().collect();
    for skip in 0..kept.len() {
        let text: Vec<&str> = [&kept[..skip], &kept[skip + 1..]].concat();
        let r = parse(&text.join("\n"), Path::new("t.su2"));
        // The comment and the design sections' keywords may go.
        let optional = skip == 0 || skip >= 23;
        match r {
            Ok(_) => assert!(optional, "line {} removed: read", skip + 1),
            Err(e) => assert!((1..lines).contains(&line_of(&e)), "{e}"),
        }
    }
}
