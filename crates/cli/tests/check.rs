//! `qflow check` on files that are not what they seem (issue 44): a
//! cloud with two point lines swapped (its stencils then reach across the
//! cloud), and damaged OP2 meshes, which must be read as OP2's meshes (by
//! their extension or their text), not as clouds.

mod common;

use std::path::{Path, PathBuf};

use common::{qflow, stderr};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qflow-check-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `qflow check` of `path`: its report, its errors, whether it passed.
fn check(path: &Path) -> (String, String, bool) {
    let o = qflow(&["check", path.to_str().unwrap()]);
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    (stdout(&o), stderr(&o), o.status.success())
}

/// Two swapped point lines of a legacy cloud (points 101 and 301, interior
/// points on rings 2 and 7): the points that list point 101 now reach five
/// rings out, and each is warned of, naming it; the cloud as generated has
/// no such warning.
#[test]
fn swapped_point_lines_are_far_neighbour_warnings() {
    let d = scratch("swapped");
    let cloud = d.join("c.cloud");
    let o = qflow(&[
        "generate",
        "naca0012",
        "--wall-points",
        "40",
        "--rings",
        "12",
        "-o",
        cloud.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (report, _, ok) = check(&cloud);
    assert!(ok, "{report}");
    assert!(report.contains("0 error(s), 0 warning(s)"), "{report}");
    assert!(!report.contains("times as far"), "{report}");
    // Line k + 1 of the file (after the count) is point k (1-based).
    let text = std::fs::read_to_string(&cloud).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let (a, b) = (101, 301);
    lines.swap(a, b);
    let swapped = d.join("swapped.cloud");
    std::fs::write(&swapped, lines.join("\n") + "\n").unwrap();
    let (report, errors, _) = check(&swapped);
    let far: Vec<&str> = report
        .lines()
        .filter(|l| l.contains("times as far as the median of its neighbours"))
        .collect();
    // Every point listing point 101 (ring 2) now reaches five rings out.
    let naming = far
        .iter()
        .filter(|l| l.starts_with("warning: point ") && l.contains(&format!(": neighbour {a} is ")))
        .count();
    assert!(
        naming >= 6,
        "{naming} warnings name point {a}: {report}{errors}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// A small OP2 mesh (`qflow generate op2-naca0012`), its lines.
fn op2_lines(d: &Path) -> Vec<String> {
    let mesh = d.join("good.dat");
    let o = qflow(&[
        "generate",
        "op2-naca0012",
        "--i",
        "4",
        "--j",
        "6",
        "-o",
        mesh.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&mesh).unwrap();
    text.lines().map(String::from).collect()
}

/// Damaged OP2 meshes named `.dat` (the header's counts cut to one, a
/// letter in a count, the file cut short in its header or after a few
/// lines; and 120 seeded damaged copies) are read as OP2's meshes: the
/// report's first line says so, and the error is OP2's reader's, never a
/// cloud reader's. A legacy cloud named `.dat` or `.txt` is still read as
/// a cloud, by its text; a name that tells (`.cloud`, `.qfm`) is followed.
#[test]
fn damaged_op2_meshes_are_read_as_op2_meshes() {
    let d = scratch("op2");
    let lines = op2_lines(&d);
    let counts: Vec<&str> = lines[0].split_whitespace().collect();
    let whole = lines.join("\n") + "\n";
    let first_line = "read as an OP2 mesh (new_grid.dat text)";
    let damaged = [
        (
            format!("{}\n{}", counts[0], lines[1..].join("\n")),
            "one count",
        ),
        (
            format!(
                "{} {}x {} {}\n{}",
                counts[0],
                counts[1],
                counts[2],
                counts[3],
                lines[1..].join("\n")
            ),
            "a letter",
        ),
        (whole[..3].to_string(), "cut in its header"),
        (lines[..4].join("\n"), "cut after 3 nodes"),
        (String::new(), "empty"),
    ];
    // A cloud reader's messages (the legacy text's first line is a point
    // count, then points of eight fields or more).
    let cloud_words = ["point count", "cloud", "neighbour"];
    for (text, what) in &damaged {
        let path = d.join("new_grid.dat");
        std::fs::write(&path, text).unwrap();
        let (report, errors, ok) = check(&path);
        assert!(!ok, "{what}: passed");
        let head = report.lines().next().unwrap_or("");
        assert!(head.contains(first_line), "{what}: {head}");
        for w in cloud_words {
            assert!(
                !errors.contains(w),
                "{what}: a cloud reader's error: {errors}"
            );
        }
    }
    // 120 seeded damaged copies: each read as OP2's mesh (or refused by
    // OP2's reader), none as a cloud, none panics.
    let good = whole.as_bytes();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for k in 0..120 {
        let mut b = good.to_vec();
        match k % 3 {
            0 => {
                let i = next(b.len());
                b[i] ^= 1 << next(8);
            }
            1 => b.truncate(next(b.len())),
            _ => {
                let i = next(b.len());
                b[i] = next(256) as u8;
            }
        }
        let path = d.join(format!("{k}.dat"));
        std::fs::write(&path, &b).unwrap();
        let (report, errors, _) = check(&path);
        let head = report.lines().next().unwrap_or("");
        assert!(head.contains(first_line), "copy {k}: {head}\n{errors}");
    }
    // A legacy cloud named .dat or .txt is a cloud by its text; a .cloud
    // holding OP2's text is read as a cloud (and refused as one).
    let cloud = d.join("c.cloud");
    let o = qflow(&[
        "generate",
        "naca0012",
        "--wall-points",
        "40",
        "--rings",
        "10",
        "-o",
        cloud.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for name in ["c.dat", "c.txt", "partGrid"] {
        let path = d.join(name);
        std::fs::copy(&cloud, &path).unwrap();
        let (report, _, ok) = check(&path);
        assert!(ok, "{name}: {report}");
        let head = report.lines().next().unwrap();
        assert!(
            head.contains("read as a q-LSKUM cloud (legacy text), told by its text"),
            "{name}: {head}"
        );
    }
    let op2_named_cloud = d.join("m.cloud");
    std::fs::write(&op2_named_cloud, &whole).unwrap();
    let (report, _, ok) = check(&op2_named_cloud);
    assert!(!ok);
    assert!(
        report.starts_with(&format!(
            "{}: read as a q-LSKUM cloud (legacy text), told by its extension .cloud",
            op2_named_cloud.display()
        )),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
