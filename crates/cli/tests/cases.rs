//! Every shipped q-LSKUM case in `cases/` runs, at reduced size (64 x 24
//! points, the iterations of `STORED`), and reproduces stored numbers. The numbers were recorded from
//! qflow itself; a change in any of them means the numerics changed, which a
//! commit must then say and justify (update them with the new run's values).

use std::path::{Path, PathBuf};
use std::process::Command;

/// (case, iterations, the highest log10 residue allowed at the last, Cl,
/// Cd, Cm). The shipped cases converge (Newton-Krylov) to round-off within
/// these iterations at this size, so the coefficients are those of the
/// steady state, and the residue is round-off (whose digits are not
/// compared).
const STORED: [(&str, i64, f64, f64, f64, f64); 4] = [
    (
        "naca0012-subsonic",
        60,
        -12.0,
        0.362_495_779_220_950_2,
        -9.123_777_186_184_318e-3,
        -4.278_183_276_006_288e-3,
    ),
    (
        "naca0012-supersonic",
        60,
        -12.0,
        0.0,
        9.179_060_248_002_642e-2,
        0.0,
    ),
    (
        "naca0012-quadtree-supersonic",
        60,
        -12.0,
        0.0,
        8.582_714_485_252_727e-2,
        0.0,
    ),
    (
        "naca0012-transonic",
        60,
        -12.0,
        0.424_369_438_691_296_2,
        2.033_034_944_936_79e-2,
        -6.434_905_430_765_449e-2,
    ),
];

fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../cases")
}

/// The case at reduced size (64 x 24 points, or a quadtree cloud of about
/// 3,900 points; `iters` iterations), as TOML text.
fn reduced(case: &Path, iters: i64) -> String {
    resized(case, 64, 24, iters, None)
}

/// The case on a generated cloud of `wall_points` x `rings` points (a
/// quadtree case: of about 3,900 points), run for
/// `iters` iterations or until the residue has fallen `residue_drop` orders
/// (`None`: no such stop), without plots or VTK.
fn resized(
    case: &Path,
    wall_points: i64,
    rings: i64,
    iters: i64,
    residue_drop: Option<f64>,
) -> String {
    let mut v: toml::Table = std::fs::read_to_string(case).unwrap().parse().unwrap();
    let cloud = v["cloud"].as_table_mut().unwrap();
    let g = cloud["generate"]
        .as_table_mut()
        .expect("shipped cases generate their cloud");
    if g.get("layout").and_then(|l| l.as_str()) == Some("quadtree") {
        // About 3,900 points: the finest cells 0.01 chords (on the 10-chord
        // square), split while closer than 4 cells to the body.
        g.insert("wall_spacing".into(), 0.01.into());
        g.insert("grading".into(), 4.0.into());
    } else {
        g.insert("wall_points".into(), wall_points.into());
        g.insert("rings".into(), rings.into());
    }
    let stop = v
        .entry("stop")
        .or_insert(toml::Table::new().into())
        .as_table_mut()
        .unwrap();
    stop.insert("max_iters".into(), iters.into());
    match residue_drop {
        Some(d) => stop.insert("residue_drop".into(), d.into()),
        None => stop.remove("residue_drop"),
    };
    let mut out = toml::Table::new();
    out.insert("plots".into(), false.into());
    out.insert("vtk".into(), false.into());
    v.insert("output".into(), out.into());
    toml::to_string(&v).unwrap()
}

/// Runs `qflow run` on a case given as TOML text (in a fresh temporary
/// folder named after `tag`) and returns its history rows (iteration, log10
/// residue, residue, Cl, Cd, Cm, seconds).
fn run_history(tag: &str, case_text: &str) -> Vec<Vec<f64>> {
    let dir = std::env::temp_dir().join(format!("qflow-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let case = dir.join("case.toml");
    std::fs::write(&case, case_text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_qflow"))
        .args([
            "run",
            case.to_str().unwrap(),
            "-o",
            dir.join("out").to_str().unwrap(),
            "-q",
        ])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{tag}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let history = std::fs::read_to_string(dir.join("out/history.csv")).unwrap();
    let rows = history
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|t| t.parse().unwrap()).collect())
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    rows
}

#[test]
fn shipped_cases_reproduce_their_stored_numbers() {
    let mut found = 0;
    for entry in std::fs::read_dir(cases_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let table: toml::Table = text.parse().unwrap();
        let method = table.get("method").and_then(|m| m.as_str());
        if matches!(method, Some("fv") | Some("lw") | Some("dg")) {
            // The finite-volume cases check themselves against OP2's
            // numbers (tests/fv.rs), the oblique-shock and DG cases against
            // their exact solutions (tests/lw.rs, tests/dg.rs).
            continue;
        }
        let stored = STORED
            .iter()
            .find(|s| s.0 == name)
            .unwrap_or_else(|| panic!("no stored numbers for case {name}: add them"));
        found += 1;
        let rows = run_history(&format!("case-{name}"), &reduced(&path, stored.1));
        let last = rows.last().unwrap();
        let (it, logres, cl, cd, cm) = (last[0], last[1], last[3], last[4], last[5]);
        assert_eq!(it, stored.1 as f64);
        eprintln!("{name}: log10 residue {logres:.14e} Cl {cl:.17e} Cd {cd:.17e} Cm {cm:.17e}");
        let close = |a: f64, b: f64, what: &str| {
            assert!(
                (a - b).abs() <= 1e-9 * b.abs().max(1e-2),
                "{name}: {what} {a:e}, stored {b:e}"
            );
        };
        assert!(logres <= stored.2, "{name}: log10 residue {logres}");
        close(cl, stored.3, "Cl");
        close(cd, stored.4, "Cd");
        close(cm, stored.5, "Cm");
    }
    assert_eq!(found, STORED.len(), "a stored case has no file in cases/");
}

/// NACA 0012 at M 1.2, 0 degrees, the shipped supersonic case as shipped
/// (9,600 points, Newton-Krylov, stopping at a ten-order drop): it
/// converges, the symmetric body carries no lift (the generated cloud is
/// mirror-symmetric, so Cl is zero to round-off) and its wave drag is
/// Cd = 0.095 (the paper's value) to within 0.01. `docs/verification.md`
/// has the refinement table.
#[test]
fn supersonic_case_converges_with_no_lift_and_the_known_wave_drag() {
    let path = cases_dir().join("naca0012-supersonic.toml");
    let rows = run_history("supersonic", &resized(&path, 160, 60, 300, Some(10.0)));
    let last = rows.last().unwrap();
    let (it, logres, cl, cd) = (last[0], last[1], last[3], last[4]);
    eprintln!("supersonic 160x60: {it} iterations, log10 residue {logres:.3} Cl {cl:e} Cd {cd:.6}");
    assert!(
        logres <= -10.0 && it < 150.0,
        "not converged: log10 residue {logres} at {it}"
    );
    assert!(
        cl.abs() <= 1e-8,
        "Cl = {cl:e} on a symmetric body at 0 degrees"
    );
    assert!(
        (cd - 0.095).abs() <= 0.01,
        "Cd = {cd}, expected 0.095 +/- 0.01"
    );
}
