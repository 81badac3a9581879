//! Corrupted input files never panic (issue 16): for every format qflow
//! reads - point clouds (legacy text, native binary), quadrilateral meshes
//! (OP2 text, native `.qfm`, SU2, Gmsh 4.1) - a seeded corpus of at least
//! 100 damaged copies of a valid file (bytes flipped, the file cut short,
//! lines deleted, doubled or swapped, numbers replaced by huge, negative,
//! fractional, non-finite or empty ones) is read, and what reads is
//! checked; each either gives a named error or a value, never a panic.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use qflow_mesh::generate::NacaOGrid;
use qflow_mesh::poly::naca0012::Op2Naca0012;
use qflow_mesh::poly::{cells::CellMesh, gmsh, native as qnative, op2, su2, Boundary};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Damaged copies of `good`, `n` of them, from `seed`.
fn corpus(good: &[u8], n: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = StdRng::seed_from_u64(seed);
    let text = std::str::from_utf8(good).is_ok();
    (0..n)
        .map(|k| {
            let mut b = good.to_vec();
            // One to three damages each.
            for _ in 0..1 + k % 3 {
                damage(&mut b, text, &mut rng);
            }
            b
        })
        .collect()
}

fn damage(b: &mut Vec<u8>, text: bool, rng: &mut StdRng) {
    if b.is_empty() {
        return;
    }
    let choice = if text {
        rng.gen_range(0..6)
    } else {
        rng.gen_range(0..3)
    };
    match choice {
        0 => {
            let i = rng.gen_range(0..b.len());
            b[i] ^= 1 << rng.gen_range(0..8);
        }
        1 => {
            let at = rng.gen_range(0..b.len());
            b.truncate(at);
        }
        2 => {
            // A random byte, or a run of them, overwritten.
            let i = rng.gen_range(0..b.len());
            let len = rng.gen_range(1..16).min(b.len() - i);
            for x in &mut b[i..i + len] {
                *x = rng.gen();
            }
        }
        _ => {
            let s = String::from_utf8_lossy(b).into_owned();
            let mut lines: Vec<String> = s.lines().map(str::to_string).collect();
            if lines.is_empty() {
                return;
            }
            let i = rng.gen_range(0..lines.len());
            match choice {
                3 => {
                    lines.remove(i);
                }
                4 => {
                    let j = rng.gen_range(0..lines.len());
                    lines.swap(i, j);
                    let l = lines[i].clone();
                    lines.insert(i, l);
                }
                _ => {
                    // One number of the line replaced.
                    let words: Vec<&str> = lines[i].split_whitespace().collect();
                    if !words.is_empty() {
                        let w = rng.gen_range(0..words.len());
                        let bad = [
                            "-1",
                            "0",
                            "4294967296",
                            "1e308",
                            "-7.5",
                            "nan",
                            "inf",
                            "",
                            "x",
                            "99999999999999999999",
                        ];
                        let mut ws: Vec<String> = words.iter().map(|s| s.to_string()).collect();
                        ws[w] = bad[rng.gen_range(0..bad.len())].to_string();
                        lines[i] = ws.join(" ");
                    }
                }
            }
            *b = (lines.join("\n") + "\n").into_bytes();
        }
    }
}

/// Runs `read` on every damaged copy; the number that panicked, and how
/// many read at all.
fn panics(name: &str, good: &[u8], seed: u64, read: &dyn Fn(&[u8]) -> bool) -> usize {
    assert!(read(good), "{name}: the undamaged file must read");
    let mut bad = 0;
    let mut ok = 0;
    for (k, b) in corpus(good, 120, seed).iter().enumerate() {
        match catch_unwind(AssertUnwindSafe(|| read(b))) {
            Ok(true) => ok += 1,
            Ok(false) => {}
            Err(_) => {
                bad += 1;
                eprintln!("{name}: damaged copy {k} panicked");
            }
        }
    }
    eprintln!("{name}: 120 damaged copies, {ok} still read, {bad} panicked");
    bad
}

fn cloud() -> qflow_mesh::Cloud {
    NacaOGrid {
        section: "naca0012".parse().unwrap(),
        wall_points: 24,
        rings: 6,
        far_field: 5.0,
        stretching: None,
    }
    .generate()
    .unwrap()
}

const SU2: &str = "NDIME= 2\nNELEM= 2\n9 0 1 4 3\n9 1 2 5 4\nNPOIN= 6\n0 0\n1 0\n2 0\n0 1\n1 1\n2 1\n\
NMARK= 2\nMARKER_TAG= wall\nMARKER_ELEMS= 2\n3 0 1\n3 1 2\nMARKER_TAG= far\nMARKER_ELEMS= 4\n3 2 5\n3 5 4\n3 4 3\n3 3 0\n";

const GMSH: &str = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n1 1 \"wall\"\n1 2 \"far\"\n$EndPhysicalNames\n$Entities\n0 2 1 0\n1 0 0 0 2 0 0 1 1 0\n2 0 0 0 2 1 0 1 2 0\n3 0 0 0 2 1 0 0 0\n$EndEntities\n$Nodes\n1 6 1 6\n2 3 0 6\n1\n2\n3\n4\n5\n6\n0 0 0\n1 0 0\n2 0 0\n0 1 0\n1 1 0\n2 1 0\n$EndNodes\n$Elements\n3 8 1 8\n1 1 1 2\n1 1 2\n2 2 3\n1 2 1 4\n3 3 6\n4 6 5\n5 5 4\n6 4 1\n2 3 3 2\n7 1 2 5 4\n8 2 3 6 5\n$EndElements\n";

/// A cell mesh read from SU2 or Gmsh, turned into a quad mesh and checked.
fn cells_then_check(c: Result<CellMesh, qflow_mesh::poly::MeshError>) -> bool {
    let Ok(c) = c else { return false };
    let map: Vec<(String, Boundary)> = c
        .marker_names()
        .iter()
        .map(|n| (n.to_string(), Boundary::Wall))
        .collect();
    let map: Vec<(&str, Boundary)> = map.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    match c.to_poly_mesh(&map) {
        Ok(m) => {
            let _ = qflow_mesh::poly::check::check(&m);
            true
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            false
        }
    }
}

#[test]
fn damaged_files_of_every_format_never_panic() {
    let p = Path::new("damaged");
    let c = cloud();
    let mut legacy = Vec::new();
    qflow_mesh::legacy::write_to(&c, qflow_mesh::legacy::Variant::Plain, &mut legacy).unwrap();
    let native = qflow_mesh::native::to_bytes(&c);
    let mesh = Op2Naca0012 { i: 4, j: 6 }.generate().unwrap();
    let mut op2_text = Vec::new();
    op2::write_to(&mesh, &mut op2_text).unwrap();
    let qfm = qnative::to_bytes(&mesh);
    let cloud_read = |r: Result<qflow_mesh::Cloud, qflow_mesh::CloudError>| match r {
        Ok(c) => {
            let _ = qflow_mesh::check::check(&c, &[]);
            true
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            false
        }
    };
    let mesh_read = |r: Result<qflow_mesh::poly::PolyMesh, qflow_mesh::poly::MeshError>| match r {
        Ok(m) => {
            let _ = qflow_mesh::poly::check::check(&m);
            true
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            false
        }
    };
    let mut total = 0;
    total += panics("legacy cloud", &legacy, 1, &|b| {
        cloud_read(qflow_mesh::legacy::parse(b, p, None))
    });
    total += panics(
        "lenient legacy cloud",
        &legacy,
        2,
        &|b| match qflow_mesh::legacy::parse_lenient(b, p, None) {
            Ok((c, probs)) => {
                let _ = qflow_mesh::check::check(&c, &probs);
                true
            }
            Err(_) => false,
        },
    );
    total += panics("native cloud", &native, 3, &|b| {
        cloud_read(qflow_mesh::native::from_bytes(b, p))
    });
    total += panics("OP2 mesh", &op2_text, 4, &|b| mesh_read(op2::parse(b, p)));
    total += panics("native mesh", &qfm, 5, &|b| {
        mesh_read(qnative::from_bytes(b, p))
    });
    total += panics(
        "SU2 mesh",
        SU2.as_bytes(),
        6,
        &|b| match std::str::from_utf8(b) {
            Ok(t) => cells_then_check(su2::parse(t, p)),
            Err(_) => false,
        },
    );
    total += panics("Gmsh mesh", GMSH.as_bytes(), 7, &|b| {
        cells_then_check(gmsh::parse(b, p))
    });
    assert_eq!(total, 0, "damaged files panicked (see above)");
}
