//! The state update of a Runge-Kutta stage, the restore of the last good
//! state, and the force integrals of a surface point.

use super::residual::{OUTER, WALL};
use crate::gas::{self, FreeStream, P_INF};
use crate::Vec4;
use qflow_par_macros::device;

/// Runge-Kutta stage update of a point: conserved state in the point's
/// frame (the kinetic far-field state at outer points), `U <- U - f R`
/// with the scheme's factor `f`, the SSPRK scheme's third stage averaging
/// `U = U/3 + 2 U_old/3` (`average` not 0), zero normal momentum at walls,
/// rotation back and primitives.
///
/// Contributes the squared density change to `sum_sq` (wall and interior
/// points) and, if the new state is not physical, the stage number to
/// `bad` (a minimum over points: the first stage that went bad).
///
/// `stage` is `[stage number, residual factor f, average]`; `free_stream`
/// is `[Mach number, angle of attack in radians]`; `vortex` the far field's
/// point vortex ([`gas::far_field_free_stream`]; strength 0: none).
#[device]
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn state_update(
    stage: [f64; 3],
    free_stream: [f64; 2],
    vortex: [f64; 3],
    x: &f64,
    y: &f64,
    nx: &f64,
    ny: &f64,
    kind: &i32,
    prim_old: &Vec4,
    res: &Vec4,
    prim: &mut Vec4,
    sum_sq: &mut f64,
    bad: &mut f64,
) {
    let nx = *nx;
    let ny = *ny;
    let kind = *kind;
    let factor = stage[1];
    let fs = FreeStream {
        mach: free_stream[0],
        theta: free_stream[1],
    };
    let inf = if kind == OUTER {
        gas::far_field_free_stream(&fs, vortex, *x, *y)
    } else {
        fs.primitive()
    };
    let mut u = if kind == OUTER {
        gas::far_field_state(prim, nx, ny, &inf)
    } else {
        gas::conserved_in_frame(prim, nx, ny)
    };
    let u_old = if kind == OUTER {
        gas::far_field_state(prim_old, nx, ny, &inf)
    } else {
        gas::conserved_in_frame(prim_old, nx, ny)
    };
    let rho_before = u[0];
    for c in 0..4 {
        u[c] -= factor * res[c];
    }
    if stage[2] != 0.0 {
        for c in 0..4 {
            u[c] = u[c] * 1.0 / 3.0 + u_old[c] * 2.0 / 3.0;
        }
    }
    if kind == WALL {
        u[2] = 0.0;
    }
    let u2_rot = u[1];
    let u3_rot = u[2];
    u[1] = u2_rot * ny + u3_rot * nx;
    u[2] = u3_rot * ny - u2_rot * nx;
    if kind != OUTER {
        let d = u[0] - rho_before;
        *sum_sq += d * d;
    }
    let w = gas::primitive_of_conserved(&u);
    if !gas::is_physical(&w) {
        *bad = stage[0];
    }
    *prim = w;
}

/// Puts back the state of the start of the iteration.
#[device]
#[inline(always)]
pub fn restore(prim_old: &Vec4, prim: &mut Vec4) {
    *prim = *prim_old;
}

/// The force integrals of one surface point with state `prim`, with
/// `c = -(p - p_inf) / q` (the reference's variable `cp`, which is minus the
/// pressure coefficient):
/// `forces = (c nx ds, c ny ds, -c ny ds (x - 0.25) + c nx ds y)`. `surface` is
/// `[x, y, nx, ny, ds]`; `dynamic_pressure` is `rho_inf M^2 / 2`.
#[device]
#[inline(always)]
pub fn force_sums(dynamic_pressure: f64, surface: &[f64; 5], prim: &Vec4, forces: &mut [f64; 3]) {
    let (x, y, nx, ny, ds) = (surface[0], surface[1], surface[2], surface[3], surface[4]);
    let cp = prim[3] - P_INF;
    let cp = -cp / dynamic_pressure;
    forces[0] = cp * nx * ds;
    forces[1] = cp * ny * ds;
    forces[2] = (-cp * ny * ds * (x - 0.25)) + (cp * nx * ds * y);
}
