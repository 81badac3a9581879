//! Tests of the native format: round trips, the layout, the file API and
//! speed; named errors in [`errors`], fuzzing in [`fuzz`].

mod errors;
mod fuzz;

use super::layout::*;
use super::read::{u32_at, u64_at};
use super::*;
use crate::{PointKind, QuadtreeFields, NO_POINT};
use std::path::PathBuf;
use std::time::Instant;

const P: &str = "t.qfc";

fn path() -> &'static Path {
    Path::new(P)
}

fn bits(a: &[f64]) -> Vec<u64> {
    a.iter().map(|v| v.to_bits()).collect()
}

/// Whether two clouds hold the same values, every real bit for bit.
fn same(a: &Cloud, b: &Cloud) -> bool {
    let qt = match (&a.quadtree, &b.quadtree) {
        (None, None) => true,
        (Some(p), Some(q)) => {
            bits(&p.nx) == bits(&q.nx) && bits(&p.ny) == bits(&q.ny) && p.depth == q.depth
        }
        _ => false,
    };
    qt && bits(&a.x) == bits(&b.x)
        && bits(&a.y) == bits(&b.y)
        && a.kind == b.kind
        && a.left == b.left
        && a.right == b.right
        && a.shape == b.shape
        && bits(&a.min_dist) == bits(&b.min_dist)
        && a.nbr_start == b.nbr_start
        && a.nbr == b.nbr
}

fn variant_of(c: &Cloud) -> Variant {
    if c.quadtree.is_some() {
        Variant::Quadtree
    } else {
        Variant::Plain
    }
}

/// `c` written as legacy text in its variant and read back.
fn via_legacy(c: &Cloud) -> Cloud {
    let v = variant_of(c);
    let mut text = Vec::new();
    legacy::write_to(c, v, &mut text).unwrap();
    legacy::parse(&text, Path::new("t.cloud"), Some(v)).unwrap()
}

/// Recomputes the checksum of a file after it has been changed.
fn reseal(b: &mut [u8]) {
    if b.len() >= CHECKSUM_LEN {
        let end = b.len() - CHECKSUM_LEN;
        let crc = crc32fast::hash(&b[..end]);
        b[end..].copy_from_slice(&crc.to_le_bytes());
    }
}

fn set_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn set_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// Offset of field `field` (0 name, 16 type, 24 count, 32 offset, 40
/// length) of table entry `e`.
fn entry(e: usize, field: usize) -> usize {
    HEADER_LEN + e * ENTRY_LEN + field
}

/// A small cloud: 4 points, every kind, boundary links, a quadtree if
/// asked for.
fn small(quadtree: bool) -> Cloud {
    Cloud {
        x: vec![0.0, 1.0, -0.0, 0.1 + 0.2],
        y: vec![5e-324, -1e300, 0.5, 1.0 / 3.0],
        kind: vec![
            PointKind::Wall,
            PointKind::Wall,
            PointKind::Interior,
            PointKind::Outer,
        ],
        left: vec![1, 0, NO_POINT, 3],
        right: vec![1, 0, NO_POINT, 3],
        shape: vec![1, 1, 0, 0],
        min_dist: vec![0.5, 0.25, -0.0, 1e-310],
        nbr_start: vec![0, 3, 5, 8, 9],
        nbr: vec![1, 2, 3, 0, 2, 0, 1, 3, 2],
        quadtree: quadtree.then(|| QuadtreeFields {
            nx: vec![0.0, -1.0, 0.5, 1e-320],
            ny: vec![1.0, 0.0, -0.5, 2.0],
            depth: vec![3, i64::MIN, i64::MAX, 0],
        }),
    }
}

fn err_of(bytes: &[u8]) -> String {
    from_bytes(bytes, path()).unwrap_err().to_string()
}

// -- the 9600-point cloud --------------------------------------------------

/// The shared reference data folder, if present (see the lskum crate's
/// tests): `$QFLOW_SHARED_DATA` or `../shared/data` beside the project.
fn shared_data() -> Option<PathBuf> {
    let dir = std::env::var_os("QFLOW_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    if dir.join("naca0012-9600.partgrid").exists() {
        Some(dir)
    } else {
        assert!(
            std::env::var_os("QFLOW_REQUIRE_DATA").is_none(),
            "QFLOW_REQUIRE_DATA is set but the shared data are not at {}",
            dir.display()
        );
        eprintln!(
            "SKIPPED: shared reference data not found at {}",
            dir.display()
        );
        None
    }
}

/// A file name in the temporary folder, unique to this process and test.
fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("qflow-native-{}-{name}", std::process::id()))
}

#[test]
fn cloud_9600_round_trips_exactly() {
    let Some(dir) = shared_data() else {
        return;
    };
    let file = dir.join("naca0012-9600.partgrid");
    let original = legacy::read(&file).unwrap();
    assert_eq!(original.len(), 9600);
    // legacy -> native -> legacy: every value.
    let bytes = to_bytes(&original);
    let native = from_bytes(&bytes, path()).unwrap();
    assert!(same(&original, &native));
    let legacy_again = via_legacy(&native);
    assert!(same(&original, &legacy_again));
    // native -> legacy -> native: the same bytes.
    assert_eq!(to_bytes(&legacy_again), bytes);

    // The same through files and the format-sniffing front door.
    let q = temp("9600.qfc");
    let t = temp("9600.cloud");
    assert_eq!(format_for_path(&q), Format::Native);
    assert_eq!(format_for_path(&t), Format::Legacy);
    write_any(&original, &q, format_for_path(&q)).unwrap();
    assert_eq!(std::fs::read(&q).unwrap(), bytes);
    let from_file = read_any(&q).unwrap();
    assert!(same(&original, &from_file));
    assert!(same(&original, &read(&q).unwrap()));
    write_any(&from_file, &t, format_for_path(&t)).unwrap();
    let from_text = read_any(&t).unwrap();
    assert!(same(&original, &from_text));
    write(&from_text, &q).unwrap();
    assert_eq!(std::fs::read(&q).unwrap(), bytes);
    let _ = std::fs::remove_file(&q);
    let _ = std::fs::remove_file(&t);
    eprintln!(
        "9600 points: legacy text {} bytes, native {} bytes",
        std::fs::metadata(&file).unwrap().len(),
        bytes.len()
    );
}

// -- the layout and the API ---------------------------------------------------

#[test]
fn layout_is_as_documented() {
    let c = small(true);
    let b = to_bytes(&c);
    assert_eq!(&b[..8], b"QFLOWCLD");
    assert_eq!(u32_at(&b, 8), 1);
    assert_eq!(u32_at(&b, 12), 1);
    assert_eq!(u64_at(&b, 16), 4);
    assert_eq!(u64_at(&b, 24), 9);
    assert_eq!(u32_at(&b, 32), 12);
    assert_eq!(u32_at(&b, 36), 0);
    assert_eq!(u64_at(&b, 40), b.len() as u64);
    let mut pos = HEADER_LEN + 12 * ENTRY_LEN;
    for (e, (name, elem, _, _)) in SECTIONS.iter().enumerate() {
        assert_eq!(&b[entry(e, 0)..entry(e, 16)], &padded_name(name));
        assert_eq!(u32_at(&b, entry(e, 16)), elem.code());
        let count = u64_at(&b, entry(e, 24));
        assert_eq!(u64_at(&b, entry(e, 32)), pos as u64);
        assert_eq!(u64_at(&b, entry(e, 40)), count * elem.size());
        pos = align_up(pos + (count * elem.size()) as usize);
    }
    assert_eq!(pos + 4, b.len());
    // x, then y: raw little-endian f64s.
    let x0 = u64_at(&b, entry(0, 32)) as usize;
    assert_eq!(u64_at(&b, x0 + 16), (-0.0f64).to_bits());
    // kind: 4 bytes of codes, then zero padding to 8.
    let k0 = u64_at(&b, entry(2, 32)) as usize;
    assert_eq!(&b[k0..k0 + 8], &[0, 0, 1, 2, 0, 0, 0, 0]);
    // The checksum is zlib's CRC-32 of everything before it.
    assert_eq!(crc32fast::hash(b"123456789"), 0xCBF4_3926);
    let end = b.len() - 4;
    assert_eq!(u32_at(&b, end), crc32fast::hash(&b[..end]));
    // Without quadtree fields: flag clear, 9 sections.
    let b = to_bytes(&small(false));
    assert_eq!(u32_at(&b, 12), 0);
    assert_eq!(u32_at(&b, 32), 9);
    assert!(from_bytes(&b, path()).unwrap().quadtree.is_none());
}

/// Builds a file from sections given in any order (name, type code,
/// count, bytes), as another writer might.
fn raw_file(flags: u32, n: u64, m: u64, sections: &[(&str, u32, u64, Vec<u8>)]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&MAGIC);
    b.extend_from_slice(&VERSION.to_le_bytes());
    b.extend_from_slice(&flags.to_le_bytes());
    b.extend_from_slice(&n.to_le_bytes());
    b.extend_from_slice(&m.to_le_bytes());
    b.extend_from_slice(&(sections.len() as u32).to_le_bytes());
    b.extend_from_slice(&[0; 12]);
    b.resize(HEADER_LEN + sections.len() * ENTRY_LEN + 16, 0xAA); // a gap
    for (e, (name, code, count, data)) in sections.iter().enumerate() {
        let at = align_up(b.len());
        b.resize(at, 0xBB);
        b[entry(e, 0)..entry(e, 16)].copy_from_slice(&padded_name(name));
        set_u32(&mut b, entry(e, 16), *code);
        set_u64(&mut b, entry(e, 24), *count);
        set_u64(&mut b, entry(e, 32), at as u64);
        set_u64(&mut b, entry(e, 40), data.len() as u64);
        b.extend_from_slice(data);
    }
    b.extend_from_slice(&[0; 4]);
    let len = b.len() as u64;
    set_u64(&mut b, 40, len);
    reseal(&mut b);
    b
}

/// The sections of a file as `raw_file` takes them.
fn sections_of(b: &[u8]) -> Vec<(&'static str, u32, u64, Vec<u8>)> {
    (0..u32_at(b, 32) as usize)
        .map(|e| {
            let s = SECTIONS
                .iter()
                .find(|k| padded_name(k.0) == b[entry(e, 0)..entry(e, 16)])
                .unwrap();
            let at = u64_at(b, entry(e, 32)) as usize;
            let len = u64_at(b, entry(e, 40)) as usize;
            (
                s.0,
                u32_at(b, entry(e, 16)),
                u64_at(b, entry(e, 24)),
                b[at..at + len].to_vec(),
            )
        })
        .collect()
}

#[test]
fn reader_takes_any_order_gaps_and_unknown_sections() {
    let c = small(true);
    let mut s = sections_of(&to_bytes(&c));
    s.reverse();
    s.insert(3, ("future", 9, 3, vec![1; 12]));
    s.insert(0, ("zz", 77, 0, vec![]));
    let b = raw_file(1, 4, 9, &s);
    assert!(same(&c, &from_bytes(&b, path()).unwrap()));
}

#[test]
fn file_api_and_sniffing() {
    let c = small(true);
    let q = temp("api.QFC");
    let t = temp("api.cloud");
    let tq = temp("api-qt.cloud");
    assert_eq!(format_for_path(&q), Format::Native);
    assert_eq!(format_for_path(Path::new("a.qfc.txt")), Format::Legacy);
    assert_eq!(format_for_path(Path::new("noext")), Format::Legacy);
    write_any(&c, &q, Format::Native).unwrap();
    write_any(&c, &t, Format::Legacy).unwrap();
    write_any(&c, &tq, Format::LegacyQuadtree).unwrap();
    assert!(same(&c, &read(&q).unwrap()));
    assert!(same(&c, &read_any(&q).unwrap()));
    let plain = read_any(&t).unwrap();
    assert!(plain.quadtree.is_none());
    assert!(same(&small(false), &plain));
    assert!(same(&c, &read_any(&tq).unwrap()));
    // A native file cut inside its magic is still reported as native.
    std::fs::write(&q, &MAGIC[..5]).unwrap();
    let e = read_any(&q).unwrap_err().to_string();
    assert!(e.contains("truncated"), "{e}");
    let e = read(&temp("missing.qfc")).unwrap_err().to_string();
    assert!(e.contains("missing.qfc"), "{e}");
    for f in [&q, &t, &tq] {
        let _ = std::fs::remove_file(f);
    }
    assert!(is_native(b"QFLOWCLD\x01"));
    assert!(!is_native(b"QFLOWCL"));
    assert!(!is_native(b"9600\n"));
}

// -- speed ------------------------------------------------------------------

#[test]
#[ignore = "slow: cargo test -p qflow-mesh --release -- --ignored --nocapture native_speed"]
fn native_speed() {
    let t = Instant::now();
    let cloud = crate::generate::NacaOGrid {
        section: "naca0012".parse().unwrap(),
        wall_points: 5000,
        rings: 2000,
        far_field: 50.0,
        stretching: None,
    }
    .generate()
    .unwrap();
    let n = cloud.len();
    eprintln!(
        "generated {n} points, {} neighbours in {:.1} s",
        cloud.nbr.len(),
        t.elapsed().as_secs_f64()
    );
    let f = temp("speed.qfc");
    // Each step runs 5 times: the first run of a step may pay for memory
    // the machine has not touched yet (page faults), the best shows the
    // code.
    let time = |what: &str, step: &mut dyn FnMut()| {
        let mut secs = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            step();
            secs.push(t.elapsed().as_secs_f64());
        }
        let best = secs.iter().cloned().fold(f64::MAX, f64::min);
        eprintln!(
            "{what}: best {best:.3} s ({:.1} million points/s), first {:.3} s, all {secs:.3?}",
            n as f64 / best / 1e6,
            secs[0],
        );
    };
    time("write (to_bytes into the file, synced)", &mut || {
        write(&cloud, &f).unwrap()
    });
    let size = std::fs::metadata(&f).unwrap().len();
    eprintln!("file: {size} bytes ({:.1} MB)", size as f64 / 1e6);
    time("read (std::fs::read + from_bytes)", &mut || {
        assert_eq!(read(&f).unwrap().len(), n)
    });
    let bytes = std::fs::read(&f).unwrap();
    time("from_bytes (in memory)", &mut || {
        assert_eq!(from_bytes(&bytes, &f).unwrap().len(), n)
    });
    time("to_bytes (in memory)", &mut || {
        assert_eq!(to_bytes(&cloud).len(), bytes.len())
    });
    let back = from_bytes(&bytes, &f).unwrap();
    assert!(same(&cloud, &back));
    assert!(to_bytes(&back) == bytes);
    let _ = std::fs::remove_file(&f);
}
