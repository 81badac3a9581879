//! What the DG benches share: the case of a row.

use qflow_dg::{Equation, Initial, Settings};

/// The case of a row: the shapes `scripts/bench-dg.py` times (lserk54; a
/// sine wave along the diagonal for advection; for 2D isothermal Euler the
/// boosted shear flow, which never breaks, so that the blocks may run on;
/// in 3D a simple wave of amplitude 1e-3, which breaks only at t = 92,
/// far beyond the steps a row runs).
pub fn case(equation: &str, order: usize, nodes: f64, dims: usize) -> Result<Settings, String> {
    let cells = ((nodes.powf(1.0 / dims as f64) / order as f64).round() as usize).max(2);
    let base = Settings {
        dimensions: dims,
        order,
        cells: vec![cells; dims],
        rk: "lserk54".into(),
        final_time: 1e9,
        ..Settings::default()
    };
    match equation {
        "advection" => Ok(Settings {
            equation: Equation::Advection,
            velocity: vec![1.0; dims],
            initial: Initial::Sine,
            ..base
        }),
        "isothermal-euler" if dims == 2 => Ok(Settings {
            equation: Equation::IsothermalEuler,
            velocity: vec![0.3, -0.2],
            sound_speed: 1.0,
            amplitude: 0.5,
            initial: Initial::Shear,
            ..base
        }),
        "isothermal-euler" => {
            let wave = Settings {
                equation: Equation::IsothermalEuler,
                velocity: vec![0.3, -0.2, 0.1],
                sound_speed: 1.0,
                amplitude: 1e-3,
                initial: Initial::SimpleWave,
                ..base
            };
            Ok(Settings {
                final_time: 0.9 * wave.breaking_time(),
                ..wave
            })
        }
        other => Err(format!("\"{other}\" is not advection or isothermal-euler")),
    }
}
