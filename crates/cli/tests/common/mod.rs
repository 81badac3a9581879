//! Helpers shared by the command-line tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn qflow(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qflow"))
        .args(args)
        .output()
        .expect("running qflow")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh scratch folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qflow-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Asserts a failed run with a message containing every one of `needles`.
pub fn assert_fails_with(o: &Output, needles: &[&str]) {
    let e = stderr(o);
    assert!(
        !o.status.success(),
        "expected failure, got success; stderr:\n{e}"
    );
    assert!(!e.contains("panicked"), "qflow panicked:\n{e}");
    for n in needles {
        assert!(e.contains(n), "message lacks '{n}':\n{e}");
    }
}

/// Generates a small cloud into `dir` and returns its path.
pub fn small_cloud(dir: &Path) -> PathBuf {
    small_section_cloud(dir, "naca0012", "small.cloud")
}

/// A small generated cloud (48 wall points, 16 rings, far field at 8
/// chords) of a NACA section, `name` in `dir`.
pub fn small_section_cloud(dir: &Path, section: &str, name: &str) -> PathBuf {
    let p = dir.join(name);
    let o = qflow(&[
        "generate",
        section,
        "--wall-points",
        "48",
        "--rings",
        "16",
        "--far-field",
        "8",
        "-o",
        p.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    p
}

/// The lift coefficient in a run's summary.
pub fn summary_cl(out: &Path) -> f64 {
    let s = std::fs::read_to_string(out.join("summary.toml")).unwrap();
    s.lines()
        .find_map(|l| l.strip_prefix("cl = "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no cl in {s}"))
}

/// history.csv without the wall-clock column.
pub fn history_without_clock(out: &Path) -> Vec<String> {
    std::fs::read_to_string(out.join("history.csv"))
        .unwrap()
        .lines()
        .map(|l| l.rsplit_once(',').map_or(l, |x| x.0).to_string())
        .collect()
}

/// Writes the quadrilateral mesh `qfm` (qflow's native format, OP2's
/// NACA 0012 mesh) as an SU2 file and a Gmsh MSH 4.1 file: nodes at the
/// same place (the wake cut) merged, boundaries as the markers `airfoil`
/// (flag 1) and `farfield` (flag 2).
pub fn write_su2_and_gmsh(qfm: &Path, su2_path: &Path, msh_path: &Path) {
    let m = qflow_mesh::poly::native::read(qfm).unwrap();
    // Merge nodes at the same place (the cut).
    let mut first: std::collections::HashMap<(u64, u64), u32> = Default::default();
    let mut keep: Vec<[f64; 2]> = Vec::new();
    let map: Vec<u32> =
        m.x.iter()
            .map(|p| {
                *first
                    .entry((p[0].to_bits(), p[1].to_bits()))
                    .or_insert_with(|| {
                        keep.push(*p);
                        keep.len() as u32 - 1
                    })
            })
            .collect();
    let cells: Vec<[u32; 4]> = (0..m.cells())
        .map(|c| {
            let n = m.cell(c);
            [n[0], n[1], n[2], n[3]].map(|k| map[k as usize])
        })
        .collect();
    let segs = |flag: i32| -> Vec<[u32; 2]> {
        (0..m.bedges())
            .filter(|&b| m.bound[b] == flag)
            .map(|b| m.bedge_nodes[b].map(|k| map[k as usize]))
            .collect()
    };
    let (wall, far) = (segs(1), segs(2));
    // SU2.
    let mut su2 = format!("NDIME= 2\nNELEM= {}\n", cells.len());
    for c in &cells {
        su2 += &format!("9 {} {} {} {}\n", c[0], c[1], c[2], c[3]);
    }
    su2 += &format!("NPOIN= {}\n", keep.len());
    for p in &keep {
        su2 += &format!("{:?} {:?}\n", p[0], p[1]);
    }
    su2 += "NMARK= 2\n";
    for (name, s) in [("airfoil", &wall), ("farfield", &far)] {
        su2 += &format!("MARKER_TAG= {name}\nMARKER_ELEMS= {}\n", s.len());
        for x in s.iter() {
            su2 += &format!("3 {} {}\n", x[0], x[1]);
        }
    }
    std::fs::write(su2_path, su2).unwrap();
    // Gmsh MSH 4.1 (tags 1-based).
    let mut msh = String::from("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n1 1 \"airfoil\"\n1 2 \"farfield\"\n$EndPhysicalNames\n");
    msh += "$Entities\n0 2 1 0\n1 -10 -10 0 10 10 0 1 1 0\n2 -10 -10 0 10 10 0 1 2 0\n3 -10 -10 0 10 10 0 0 0\n$EndEntities\n";
    msh += &format!("$Nodes\n1 {n} 1 {n}\n2 3 0 {n}\n", n = keep.len());
    for k in 1..=keep.len() {
        msh += &format!("{k}\n");
    }
    for p in &keep {
        msh += &format!("{:?} {:?} 0\n", p[0], p[1]);
    }
    let total = wall.len() + far.len() + cells.len();
    msh += &format!("$EndNodes\n$Elements\n3 {total} 1 {total}\n");
    let mut tag = 0;
    for (curve, s) in [(1, &wall), (2, &far)] {
        msh += &format!("1 {curve} 1 {}\n", s.len());
        for x in s.iter() {
            tag += 1;
            msh += &format!("{tag} {} {}\n", x[0] + 1, x[1] + 1);
        }
    }
    msh += &format!("2 3 3 {}\n", cells.len());
    for c in &cells {
        tag += 1;
        msh += &format!(
            "{tag} {} {} {} {}\n",
            c[0] + 1,
            c[1] + 1,
            c[2] + 1,
            c[3] + 1
        );
    }
    msh += "$EndElements\n";
    std::fs::write(msh_path, msh).unwrap();
}
