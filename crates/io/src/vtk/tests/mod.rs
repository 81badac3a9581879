//! The files are read back with a reader written here from the VTK file
//! format's description ([`reader`]: quick-xml for the XML, the appended
//! block decoded by hand), which shares no code with the writer; the
//! parallel index is read with the `vtkio` crate. (`vtkio` cannot read the
//! `.vtu` files themselves: it parses the appended block as XML text, so it
//! reads base64 appended data but not raw.)

mod cells;
mod reader;

use std::path::PathBuf;

use qflow_lskum::forces::pressure_coefficient;
use qflow_lskum::gas::GAMMA;
use qflow_mesh::{PointKind, NO_POINT};

use super::format::VTK_VERTEX;
use super::*;
use crate::surface::test_case;
use reader::{read_pvtu_point_data, read_vtu, Vtu};

/// Checks that `vtu` holds exactly the points `points` of the cloud (in
/// that order), numbered `numbers`, with their state.
fn check(
    vtu: &Vtu,
    cloud: &Cloud,
    prim: &[Vec4],
    fs: &FreeStream,
    points: &[usize],
    numbers: &[u64],
) {
    let m = points.len();
    assert_eq!((vtu.points, vtu.cells), (m, m));
    assert_eq!(vtu.point_data_attributes["Scalars"], "Mach");
    assert_eq!(vtu.point_data_attributes["Vectors"], "velocity");
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let expect = |f: &dyn Fn(usize) -> Vec<f64>| {
        bits(&points.iter().flat_map(|&i| f(i)).collect::<Vec<_>>())
    };
    assert_eq!(vtu.array("Points", "Points").components, 3);
    assert_eq!(
        bits(&vtu.f64s("Points", "Points")),
        expect(&|i| vec![cloud.x[i], cloud.y[i], 0.0])
    );
    type Scalar<'a> = (&'a str, &'a dyn Fn(&Vec4) -> f64);
    let scalars: [Scalar; 6] = [
        ("rho", &|s| s[0]),
        ("u", &|s| s[1]),
        ("v", &|s| s[2]),
        ("p", &|s| s[3]),
        ("Mach", &|s| {
            (s[1] * s[1] + s[2] * s[2]).sqrt() / (GAMMA * s[3] / s[0]).sqrt()
        }),
        ("Cp", &|s| pressure_coefficient(s[3], fs)),
    ];
    for (name, f) in scalars {
        assert_eq!(vtu.array("PointData", name).components, 1);
        let got = vtu.f64s("PointData", name);
        let want: Vec<f64> = points.iter().map(|&i| f(&prim[i])).collect();
        if name == "Mach" {
            // `hypot` and the square root of the sum may differ in the last bit.
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() <= 4.0 * f64::EPSILON * w.abs(), "{g} {w}");
            }
            assert_eq!(got.len(), want.len());
        } else {
            assert_eq!(bits(&got), bits(&want), "{name}");
        }
    }
    assert_eq!(vtu.array("PointData", "velocity").components, 3);
    assert_eq!(
        bits(&vtu.f64s("PointData", "velocity")),
        expect(&|i| vec![prim[i][1], prim[i][2], 0.0])
    );
    let kind = vtu.array("PointData", "kind");
    assert_eq!(kind.vtk_type, "Int32");
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
    let (cloud, prim, fs) = test_case::naca0012();
    let dir = test_case::temp_dir("vtu-whole");
    let path = dir.join("field.vtu");
    write_vtu(&path, &cloud, &prim, &fs).unwrap();
    let vtu = read_vtu(&path);
    let all: Vec<usize> = (0..cloud.len()).collect();
    let numbers: Vec<u64> = (1..=cloud.len() as u64).collect();
    check(&vtu, &cloud, &prim, &fs, &all, &numbers);
    // All three kinds are there, with their codes.
    let kinds = &vtu.array("PointData", "kind").bytes;
    for code in [0u8, 1, 2] {
        assert!(kinds.chunks_exact(4).any(|c| c == [code, 0, 0, 0]));
    }
    // 125 bytes a point, plus the header.
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size > 125 * cloud.len() as u64 && size < 125 * cloud.len() as u64 + 3000);
    // Nothing but the file is left in the folder.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn pieces_and_index_hold_every_point_once() {
    let (cloud, prim, fs) = test_case::naca0012();
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
    for (r, points) in pieces.iter().enumerate() {
        let name = format!("field_{r}.vtu");
        let numbers: Vec<u64> = points.iter().map(|&i| i as u64 + 1).collect();
        write_vtu_piece(&dir.join(&name), &cloud, &prim, &fs, points, &numbers).unwrap();
        names.push(name);
    }
    let index = dir.join("field.pvtu");
    write_pvtu(&index, &names).unwrap();

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
        check(&vtu, &cloud, &prim, &fs, &points, &numbers);
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
    let fs = test_case::free_stream();
    let dir = test_case::temp_dir("vtu-small");
    let empty = Cloud {
        nbr_start: vec![0],
        ..Cloud::default()
    };
    let path = dir.join("empty.vtu");
    write_vtu(&path, &empty, &[], &fs).unwrap();
    let vtu = read_vtu(&path);
    check(&vtu, &empty, &[], &fs, &[], &[]);
    assert!(vtu.arrays.iter().all(|a| a.bytes.is_empty()));

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
    // A non-physical state is written as it is.
    let prim = [[1.5, f64::NAN, -0.0, 0.5]];
    let path = dir.join("one.vtu");
    write_vtu(&path, &one, &prim, &fs).unwrap();
    let vtu = read_vtu(&path);
    assert_eq!(vtu.f64s("PointData", "u")[0].to_bits(), f64::NAN.to_bits());
    assert!(vtu.f64s("PointData", "Mach")[0].is_nan());
    assert_eq!(vtu.f64s("PointData", "v")[0].to_bits(), (-0.0f64).to_bits());
    let prim = [[1.5, 0.25, -0.0, 0.5]];
    write_vtu(&path, &one, &prim, &fs).unwrap();
    check(&read_vtu(&path), &one, &prim, &fs, &[0], &[1]);
    // A piece shows the numbers it is given.
    write_vtu_piece(&path, &one, &prim, &fs, &[0], &[9_600_000_001]).unwrap();
    check(&read_vtu(&path), &one, &prim, &fs, &[0], &[9_600_000_001]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_arguments_are_errors_and_write_nothing() {
    let (cloud, prim, fs) = test_case::naca0012();
    let dir = test_case::temp_dir("vtu-bad");
    let path = dir.join("bad.vtu");
    let n = cloud.len() as u32;
    let errors = [
        write_vtu(&path, &cloud, &prim[1..], &fs).unwrap_err(),
        write_vtu_piece(&path, &cloud, &prim, &fs, &[0, 1], &[1]).unwrap_err(),
        write_vtu_piece(&path, &cloud, &prim, &fs, &[n], &[1]).unwrap_err(),
    ];
    for (e, what) in errors
        .iter()
        .zip(["states for", "point numbers", "out of range"])
    {
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
    let e = write_vtu(&missing, &cloud, &prim, &fs).unwrap_err();
    assert!(matches!(e, OutputError::File(_)), "{e}");
    assert!(e.to_string().contains("field.vtu"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn index_escapes_piece_names() {
    let dir = test_case::temp_dir("pvtu-names");
    let index = dir.join("a.pvtu");
    let names = [PathBuf::from("r&d <1>.vtu"), PathBuf::from("sub/\"q\".vtu")];
    write_pvtu(&index, &names).unwrap();
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
