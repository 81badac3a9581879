//! Test data shared by the tests of this crate's writers: a cloud and a
//! synthetic flow on it, given as the named fields the writers take.

use std::path::PathBuf;

use qflow_mesh::generate::NacaOGrid;
use qflow_mesh::Cloud;

/// The free-stream Mach number of [`naca0012`]'s flow.
pub(crate) const FREE_MACH: f64 = 0.63;

/// The pressure coefficient and Mach number at every point of a cloud.
pub(crate) struct Flow {
    /// Pressure coefficient (negative on the suction side).
    pub(crate) cp: Vec<f64>,
    /// Mach number.
    pub(crate) mach: Vec<f64>,
}

/// A 64 x 24 NACA 0012 O-grid (1,536 points) and a synthetic flow on it
/// ([`flow_at`]).
pub(crate) fn naca0012() -> (Cloud, Flow) {
    let cloud = NacaOGrid {
        section: "naca0012".parse().unwrap(),
        wall_points: 64,
        rings: 24,
        far_field: 10.0,
        stretching: None,
    }
    .generate()
    .unwrap();
    let flow = flow_of(&cloud);
    (cloud, flow)
}

/// [`flow_at`] at every point of `cloud`.
pub(crate) fn flow_of(cloud: &Cloud) -> Flow {
    let (cp, mach) = (0..cloud.len())
        .map(|i| flow_at(cloud.x[i], cloud.y[i]))
        .unzip();
    Flow { cp, mach }
}

/// The synthetic flow at `(x, y)`, `(cp, mach)`: the free stream (Cp 0,
/// Mach [`FREE_MACH`]) with a suction over the section (strong on the
/// upper surface, weak on the lower, largest at the leading edge, down to
/// Cp -1.26) that decays within about 0.3 chords of the chord line, and
/// faster flow where the suction is (supersonic just above the leading
/// edge).
pub(crate) fn flow_at(x: f64, y: f64) -> (f64, f64) {
    let xc = x.clamp(0.0, 1.0);
    let distance_to_chord = (x - xc).hypot(y);
    let decay = (-(distance_to_chord / 0.15).powi(2)).exp();
    let side = 0.6 + 0.4 * (y / 0.02).tanh();
    let dip = decay * side * (1.0 - xc);
    (-1.26 * dip, FREE_MACH + 0.9 * dip)
}

/// A fresh, empty folder for the test `name`.
pub(crate) fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qflow-io-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
