//! The files are read back with a reader written here from the VTK file
//! format's description ([`reader`]: quick-xml for the XML, the appended
//! block decoded by hand), which shares no code with the writer; the
//! parallel index is read with the `vtkio` crate. (`vtkio` cannot read the
//! `.vtu` files themselves: it parses the appended block as XML text, so it
//! reads base64 appended data but not raw.)

mod cells;
mod reader;

use std::path::PathBuf;

use qflow_mesh::{PointKind, NO_POINT};

use super::format::VTK_VERTEX;
use super::*;
use crate::test_case;
use reader::{read_pvtu_point_data, read_vtu, Vtu};

/// Owned point fields: six scalars (the names of q-LSKUM's) and one
/// vector, with values that tell every field and point apart.
struct Fields {
    scalars: Vec<(&'static str, Vec<f64>)>,
    velocity: [Vec<f64>; 2],
}

impl Fields {
    /// The fields of `cloud`: the synthetic flow's Mach number and Cp and
    /// four more of the point's place.
    fn of(cloud: &Cloud) -> Self {
        let flow = test_case::flow_of(cloud);
        let n = cloud.len();
        let column = |f: &dyn Fn(usize) -> f64| (0..n).map(f).collect::<Vec<f64>>();
        Fields {
            scalars: vec![
                ("rho", column(&|i| 1.0 + cloud.x[i] / 9.0)),
                ("u", column(&|i| 0.5 + cloud.y[i] / 11.0)),
                ("v", column(&|i| -0.1 - i as f64 / 13.0)),
                ("p", column(&|i| 0.7 + cloud.x[i] * cloud.y[i])),
                ("Mach", flow.mach),
                ("Cp", flow.cp),
            ],
            velocity: [
                column(&|i| 0.25 - cloud.y[i]),
                column(&|i| cloud.x[i] / 3.0),
            ],
        }
    }

    /// The fields as written: `Mach` and the velocity active.
    fn with<T>(&self, f: impl FnOnce(&PointData) -> T) -> T {
        let scalars: Vec<(&str, &[f64])> = self
            .scalars
            .iter()
            .map(|(name, v)| (*name, v.as_slice()))
            .collect();
        let vectors = [("velocity", [&self.velocity[0][..], &self.velocity[1][..]])];
        f(&PointData {
            scalars: &scalars,
            vectors: &vectors,
            active_scalar: Some("Mach"),
            active_vector: Some("velocity"),
        })
    }
}

/// Checks that `vtu` holds exactly the points `points` of the cloud (in
/// that order), numbered `numbers`, with the fields `data`.
fn check(vtu: &Vtu, cloud: &Cloud, data: &PointData, points: &[usize], numbers: &[u64]) {
    let m = points.len();
    assert_eq!((vtu.points, vtu.cells), (m, m));
    let active = |key: &str| vtu.point_data_attributes.get(key).map(String::as_str);
    assert_eq!(active("Scalars"), data.active_scalar);
    assert_eq!(active("Vectors"), data.active_vector);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let expect = |f: &dyn Fn(usize) -> Vec<f64>| {
        bits(&points.iter().flat_map(|&i| f(i)).collect::<Vec<_>>())
    };
    assert_eq!(vtu.array("Points", "Points").components, 3);
    assert_eq!(
        bits(&vtu.f64s("Points", "Points")),
        expect(&|i| vec![cloud.x[i], cloud.y[i], 0.0])
    );
    // The fields, in the order given, then kind and point.
    let declared: Vec<(&str, &str, usize)> = vtu
        .arrays
        .iter()
        .filter(|a| a.section == "PointData")
        .map(|a| (a.name.as_str(), a.vtk_type.as_str(), a.components))
        .collect();
    let want: Vec<(&str, &str, usize)> = (data.scalars.iter().map(|f| (f.0, "Float64", 1)))
        .chain(data.vectors.iter().map(|f| (f.0, "Float64", 3)))
        .chain([("kind", "Int32", 1), ("point", "Int64", 1)])
        .collect();
    assert_eq!(declared, want);
    for (name, values) in data.scalars {
        let got = vtu.f64s("PointData", name);
        assert_eq!(bits(&got), expect(&|i| vec![values[i]]), "{name}");
    }
    for (name, [x, y]) in data.vectors {
        let got = vtu.f64s("PointData", name);
        assert_eq!(bits(&got), expect(&|i| vec![x[i], y[i], 0.0]), "{name}");
    }
    let kind = vtu.array("PointData", "kind");
    let kinds: Vec<i32> = kind
        .bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want: Vec<i32> = points.iter().map(|&i| cloud.kind[i] as i32).collect();
    assert_eq!(kinds, want);
    let shown: Vec<u64> = vtu
        .i64s("PointData", "point")
        .iter()
        .map(|&v| v as u64)
        .collect();
    assert_eq!(shown, numbers);
    let k: Vec<i64> = (0..m as i64).collect();
    assert_eq!(vtu.i64s("Cells", "connectivity"), k);
    assert_eq!(
        vtu.i64s("Cells", "offsets"),
        k.iter().map(|k| k + 1).collect::<Vec<_>>()
    );
    let types = vtu.array("Cells", "types");
    assert_eq!(types.vtk_type, "UInt8");
    assert_eq!(types.bytes, vec![VTK_VERTEX; m]);
}

#[test]
fn whole_cloud_reads_back_exactly() {
    let (cloud, _) = test_case::naca0012();
    let fields = Fields::of(&cloud);
    let dir = test_case::temp_dir("vtu-whole");
    let path = dir.join("field.vtu");
    fields.with(|data| {
        write_vtu(&path, &cloud, data).unwrap();
        let vtu = read_vtu(&path);
        let all: Vec<usize> = (0..cloud.len()).collect();
        let numbers: Vec<u64> = (1..=cloud.len() as u64).collect();
        check(&vtu, &cloud, data, &all, &numbers);
        // All three kinds are there, with their codes.
        let kinds = &vtu.array("PointData", "kind").bytes;
        for code in [0u8, 1, 2] {
            assert!(kinds.chunks_exact(4).any(|c| c == [code, 0, 0, 0]));
        }
    });
    // 125 bytes a point (six scalars and a vector), plus the header.
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size > 125 * cloud.len() as u64 && size < 125 * cloud.len() as u64 + 3000);
    // Nothing but the file is left in the folder.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn any_fields_and_active_attributes() {
    let (cloud, flow) = test_case::naca0012();
    let dir = test_case::temp_dir("vtu-fields");
    let path = dir.join("field.vtu");
    let all: Vec<usize> = (0..cloud.len()).collect();
    let numbers: Vec<u64> = (1..=cloud.len() as u64).collect();
    // No field: the place, kind and number alone, no active attribute.
    let none = PointData::default();
    write_vtu(&path, &cloud, &none).unwrap();
    let vtu = read_vtu(&path);
    check(&vtu, &cloud, &none, &all, &numbers);
    assert!(vtu.point_data_attributes.is_empty());
    let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
    assert!(text.contains("      <PointData>\n"), "{text:.600}");
    // One scalar, two vectors, the second active and no active scalar.
    let scalars = [("Cp", &flow.cp[..])];
    let vectors = [
        ("a", [&flow.mach[..], &flow.cp[..]]),
        ("b", [&flow.cp[..], &flow.mach[..]]),
    ];
    let data = PointData {
        scalars: &scalars,
        vectors: &vectors,
        active_scalar: None,
        active_vector: Some("b"),
    };
    write_vtu(&path, &cloud, &data).unwrap();
    check(&read_vtu(&path), &cloud, &data, &all, &numbers);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn pieces_and_index_hold_every_point_once() {
    let (cloud, _) = test_case::naca0012();
    let fields = Fields::of(&cloud);
    let n = cloud.len();
    let dir = test_case::temp_dir("pvtu");
    // Three pieces: every third point, one of them backwards, and an
    // empty piece (a rank may own no point).
    let mut pieces: Vec<Vec<u32>> = (0..3)
        .map(|r| (0..n as u32).filter(|i| i % 3 == r).collect())
        .collect();
    pieces[1].reverse();
    pieces.push(Vec::new());
    let mut names = Vec::new();
    let index = dir.join("field.pvtu");
    fields.with(|data| {
        for (r, points) in pieces.iter().enumerate() {
            let name = format!("field_{r}.vtu");
            let numbers: Vec<u64> = points.iter().map(|&i| i as u64 + 1).collect();
            write_vtu_piece(&dir.join(&name), &cloud, data, points, &numbers).unwrap();
            names.push(name);
        }
        write_pvtu(&index, &names, data).unwrap();
    });

    let vtk = vtkio::Vtk::import(&index).unwrap();
    let vtkio::model::DataSet::UnstructuredGrid {
        meta: Some(meta),
        pieces: sources,
    } = vtk.data
    else {
        panic!("not a parallel unstructured grid: {:?}", vtk.data);
    };
    let vtkio::model::MetaData::UnstructuredGrid {
        ghost_level,
        points_type,
        attributes,
    } = *meta
    else {
        panic!("wrong metadata: {meta:?}");
    };
    assert_eq!(ghost_level, 0);
    assert_eq!(points_type, vtkio::model::ScalarType::F64);
    assert_eq!(sources.len(), pieces.len());
    assert!(attributes.cell_data.is_empty());
    // vtkio 0.7.0-rc2 does not read the arrays of `PPointData` (it looks
    // for `data_array` elements), so they are read here.
    let declared = read_pvtu_point_data(&index);
    let text = std::fs::read_to_string(&index).unwrap();
    assert!(
        text.contains(r#"<PPointData Scalars="Mach" Vectors="velocity">"#),
        "{text}"
    );

    let mut seen = vec![0u32; n];
    for (r, source) in sources.iter().enumerate() {
        let vtkio::model::Piece::Source(file, None) = source else {
            panic!("piece {r} is not a file: {source:?}");
        };
        let piece_path = dir.join(file);
        assert!(piece_path.is_file(), "{file}");
        let vtu = read_vtu(&piece_path);
        // The index declares the arrays each piece holds.
        let held: Vec<(String, String, usize)> = vtu
            .arrays
            .iter()
            .filter(|a| a.section == "PointData")
            .map(|a| (a.name.clone(), a.vtk_type.clone(), a.components))
            .collect();
        assert_eq!(declared, held);
        let points: Vec<usize> = pieces[r].iter().map(|&i| i as usize).collect();
        let numbers: Vec<u64> = points.iter().map(|&i| i as u64 + 1).collect();
        fields.with(|data| check(&vtu, &cloud, data, &points, &numbers));
        for number in vtu.i64s("PointData", "point") {
            seen[number as usize - 1] += 1;
        }
    }
    assert!(
        seen.iter().all(|&c| c == 1),
        "every point in exactly one piece"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn empty_and_one_point_clouds() {
    let dir = test_case::temp_dir("vtu-small");
    let empty = Cloud {
        nbr_start: vec![0],
        ..Cloud::default()
    };
    let path = dir.join("empty.vtu");
    let fields = Fields::of(&empty);
    fields.with(|data| {
        write_vtu(&path, &empty, data).unwrap();
        let vtu = read_vtu(&path);
        check(&vtu, &empty, data, &[], &[]);
        assert!(vtu.arrays.iter().all(|a| a.bytes.is_empty()));
    });

    let one = Cloud {
        x: vec![0.25],
        y: vec![-1.0 / 3.0],
        kind: vec![PointKind::Wall],
        left: vec![NO_POINT],
        right: vec![NO_POINT],
        shape: vec![1],
        min_dist: vec![1.0],
        nbr_start: vec![0, 0],
        nbr: vec![],
        quadtree: None,
    };
    // Special values are written as they are.
    let odd = [
        ("u", &[f64::NAN][..]),
        ("v", &[-0.0][..]),
        ("w", &[f64::INFINITY][..]),
    ];
    let data = PointData {
        scalars: &odd,
        ..PointData::default()
    };
    let path = dir.join("one.vtu");
    write_vtu(&path, &one, &data).unwrap();
    let vtu = read_vtu(&path);
    assert_eq!(vtu.f64s("PointData", "u")[0].to_bits(), f64::NAN.to_bits());
    assert_eq!(vtu.f64s("PointData", "v")[0].to_bits(), (-0.0f64).to_bits());
    check(&vtu, &one, &data, &[0], &[1]);
    // A piece shows the numbers it is given.
    let fields = Fields::of(&one);
    fields.with(|data| {
        write_vtu_piece(&path, &one, data, &[0], &[9_600_000_001]).unwrap();
        check(&read_vtu(&path), &one, data, &[0], &[9_600_000_001]);
    });
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_arguments_are_errors_and_write_nothing() {
    let (cloud, flow) = test_case::naca0012();
    let dir = test_case::temp_dir("vtu-bad");
    let path = dir.join("bad.vtu");
    let n = cloud.len() as u32;
    let (cp, mach) = (&flow.cp[..], &flow.mach[..]);
    let scalars = |s: &'static [(&'static str, usize)]| -> Vec<(&'static str, &[f64])> {
        s.iter().map(|&(name, cut)| (name, &cp[cut..])).collect()
    };
    let short = scalars(&[("Cp", 1)]);
    let good = scalars(&[("Cp", 0)]);
    let twice = scalars(&[("Cp", 0), ("Cp", 0)]);
    let spaced = scalars(&[("C p", 0)]);
    let kind = scalars(&[("kind", 0)]);
    let data = |s| PointData {
        scalars: s,
        ..PointData::default()
    };
    let bent = [("velocity", [cp, &mach[1..]])];
    let short_vector = [("velocity", [&cp[1..], &mach[1..]])];
    let point = [("point", [cp, mach])];
    let vectors = |v| PointData {
        vectors: v,
        ..PointData::default()
    };
    let errors = [
        (
            write_vtu(&path, &cloud, &data(&short)),
            "field `Cp` has 1535 values for 1536 points",
        ),
        (
            write_vtu(&path, &cloud, &data(&twice)),
            "field `Cp` is given twice",
        ),
        (
            write_vtu(&path, &cloud, &data(&spaced)),
            "letters, digits and _ only",
        ),
        (
            write_vtu(&path, &cloud, &data(&kind)),
            "field name `kind` is the cloud's own",
        ),
        (
            write_vtu(&path, &cloud, &vectors(&bent)),
            "vector `velocity` has 1536 x and 1535 y values",
        ),
        (
            write_vtu(&path, &cloud, &vectors(&short_vector)),
            "field `velocity` has 1535 values",
        ),
        (
            write_vtu(&path, &cloud, &vectors(&point)),
            "field name `point` is the cloud's own",
        ),
        (
            write_vtu(
                &path,
                &cloud,
                &PointData {
                    active_scalar: Some("Mach"),
                    ..data(&good)
                },
            ),
            "the active scalar `Mach` is not one of the scalars",
        ),
        (
            write_vtu(
                &path,
                &cloud,
                &PointData {
                    active_vector: Some("Cp"),
                    ..data(&good)
                },
            ),
            "the active vector `Cp` is not one of the vectors",
        ),
        (
            write_vtu_piece(&path, &cloud, &data(&short), &[0], &[1]),
            "1535 values",
        ),
        (
            write_vtu_piece(&path, &cloud, &data(&good), &[0, 1], &[1]),
            "point numbers",
        ),
        (
            write_vtu_piece(&path, &cloud, &data(&good), &[n], &[1]),
            "out of range",
        ),
        (
            write_pvtu(&path, &["a.vtu"], &data(&twice)),
            "field `Cp` is given twice",
        ),
    ];
    for (e, what) in errors {
        let e = e.unwrap_err();
        assert!(matches!(e, OutputError::Data { .. }), "{e}");
        assert_eq!(e.path(), path);
        let m = e.to_string();
        assert!(
            m.starts_with(&format!("{}: cannot write: ", path.display())),
            "{m}"
        );
        assert!(m.contains(what), "{m}");
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // A folder that does not exist: an I/O error naming the file.
    let missing = dir.join("no/such/folder/field.vtu");
    let e = write_vtu(&missing, &cloud, &data(&good)).unwrap_err();
    assert!(matches!(e, OutputError::File(_)), "{e}");
    assert!(e.to_string().contains("field.vtu"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn index_escapes_piece_names() {
    let dir = test_case::temp_dir("pvtu-names");
    let index = dir.join("a.pvtu");
    let names = [PathBuf::from("r&d <1>.vtu"), PathBuf::from("sub/\"q\".vtu")];
    write_pvtu(&index, &names, &PointData::default()).unwrap();
    let vtk = vtkio::Vtk::import(&index).unwrap();
    let vtkio::model::DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        panic!("not an unstructured grid");
    };
    let sources: Vec<String> = pieces
        .into_iter()
        .map(|p| match p {
            vtkio::model::Piece::Source(s, _) => s,
            _ => panic!("not a file piece"),
        })
        .collect();
    assert_eq!(sources, ["r&d <1>.vtu", "sub/\"q\".vtu"]);
    std::fs::remove_dir_all(dir).unwrap();
}
