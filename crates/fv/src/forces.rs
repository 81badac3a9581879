//! The force coefficients of the walls, from the pressure of the cells
//! beside them, as q-LSKUM's summary has them: lift `cl` perpendicular and
//! drag `cd` parallel to the free stream, the pitching moment `cm` about
//! the quarter chord, counter-clockwise positive.
//!
//! A wall edge from node 1 to node 2 (its cell on its right, as OP2
//! orients boundary edges) carries the force `p (dy, -dx)` onto the body,
//! `(dx, dy) = x1 - x2`: the momentum that `bres_calc` lets out of the
//! cell. With the pressure coefficient in place of `p` (the free stream's
//! pressure adds nothing round a closed body) and the chord `c` of all
//! walls together (their extent in x), `(cx, cy) = sum cp (dy, -dx) / c`
//! and `cm = sum ((xm - xr) cp (-dx) - (ym - yr) cp dy) / c^2`, the
//! midpoint `(xm, ym)` and the reference point `(xr, yr)` a quarter chord
//! behind the walls' leading node.

use qflow_mesh::poly::PolyMesh;

use crate::Settings;

/// Lift, drag and pitching-moment coefficients.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Coefficients {
    /// Lift, perpendicular to the free stream.
    pub cl: f64,
    /// Drag, along the free stream.
    pub cd: f64,
    /// Pitching moment about the quarter chord, counter-clockwise
    /// positive.
    pub cm: f64,
}

/// The pressure of a state `[rho, rho u, rho v, rho E]`.
fn pressure(gm1: f64, s: &[f64]) -> f64 {
    gm1 * (s[3] - 0.5 * (s[1] * s[1] + s[2] * s[2]) / s[0])
}

/// The pressure coefficient of a state: `(p - p_inf) / (rho_inf |u_inf|^2 / 2)`.
pub fn pressure_coefficient(state: &[f64], settings: &Settings) -> f64 {
    let qinf = settings.qinf();
    let dynamic = 0.5 * (qinf[1] * qinf[1] + qinf[2] * qinf[2]) / qinf[0];
    (pressure(settings.gm1(), state) - pressure(settings.gm1(), &qinf)) / dynamic
}

/// The coefficients of the walls (boundary flag 1) of `mesh` with the
/// cell states `q` (4 values a cell, the mesh's numbering); `None` if the
/// mesh has no wall.
pub fn coefficients(mesh: &PolyMesh, q: &[f64], settings: &Settings) -> Option<Coefficients> {
    let walls: Vec<usize> = (0..mesh.bedges()).filter(|&b| mesh.bound[b] == 1).collect();
    let lead = walls
        .iter()
        .flat_map(|&b| mesh.bedge_nodes[b])
        .map(|n| mesh.x[n as usize])
        .min_by(|a, b| a[0].total_cmp(&b[0]))?;
    let hi = walls
        .iter()
        .flat_map(|&b| mesh.bedge_nodes[b])
        .map(|n| mesh.x[n as usize][0])
        .fold(f64::MIN, f64::max);
    let chord = if hi > lead[0] { hi - lead[0] } else { 1.0 };
    let (xr, yr) = (lead[0] + 0.25 * chord, lead[1]);
    let (mut cx, mut cy, mut cm) = (0.0, 0.0, 0.0);
    for &b in &walls {
        let [n1, n2] = mesh.bedge_nodes[b];
        let (a, c) = (mesh.x[n1 as usize], mesh.x[n2 as usize]);
        let (dx, dy) = (a[0] - c[0], a[1] - c[1]);
        let cell = mesh.bedge_cell[b] as usize;
        let cp = pressure_coefficient(&q[4 * cell..4 * cell + 4], settings);
        let (fx, fy) = (cp * dy, -cp * dx);
        let (xm, ym) = (0.5 * (a[0] + c[0]), 0.5 * (a[1] + c[1]));
        cx += fx;
        cy += fy;
        cm += (xm - xr) * fy - (ym - yr) * fx;
    }
    let (cx, cy, cm) = (cx / chord, cy / chord, cm / (chord * chord));
    let [cos, sin] = settings.direction();
    Some(Coefficients {
        cl: cy * cos - cx * sin,
        cd: cx * cos + cy * sin,
        cm,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One square cell walled all round (each wall with the cell on its
    /// right), at a pressure above the free stream's: a closed wall feels
    /// no net force from a uniform pressure.
    fn box_mesh() -> PolyMesh {
        let mut m = PolyMesh {
            x: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
            bedge_nodes: vec![[0, 3], [3, 2], [2, 1], [1, 0]],
            bedge_cell: vec![0; 4],
            bound: vec![1; 4],
            ..PolyMesh::default()
        };
        m.push_cell(&[0, 1, 2, 3]);
        m
    }

    #[test]
    fn a_uniform_pressure_gives_no_force() {
        let s = Settings::default();
        let mut q = s.qinf().to_vec();
        q[3] *= 1.3;
        let c = coefficients(&box_mesh(), &q, &s).unwrap();
        assert!(
            c.cl.abs() < 1e-15 && c.cd.abs() < 1e-15 && c.cm.abs() < 1e-15,
            "{c:?}"
        );
    }

    /// A flat plate: one wall edge along y = 0, a raised pressure below
    /// it pushes it up: lift `cp` at 0 degrees, turned into drag at 90.
    #[test]
    fn a_pressure_below_a_plate_lifts_it() {
        let plate = |aoa: f64| {
            let mut m = PolyMesh {
                x: vec![[0.0, 0.0], [1.0, 0.0], [0.5, -1.0]],
                // The cell below, on the right of the edge going +x.
                bedge_nodes: vec![[0, 1]],
                bedge_cell: vec![0],
                bound: vec![1],
                ..PolyMesh::default()
            };
            m.push_cell(&[0, 2, 1]);
            let s = Settings {
                aoa,
                ..Settings::default()
            };
            let mut q = s.qinf().to_vec();
            q[3] += 0.1;
            let cp = pressure_coefficient(&q, &s);
            (coefficients(&m, &q, &s).unwrap(), cp)
        };
        let (c, cp) = plate(0.0);
        assert!(cp > 0.0);
        assert!((c.cl - cp).abs() < 1e-14 && c.cd.abs() < 1e-14, "{c:?}");
        // The force acts at the mid chord, a quarter chord behind the
        // reference point: counter-clockwise (nose down), cp / 4.
        assert!((c.cm - 0.25 * cp).abs() < 1e-14, "{c:?}");
        let (c, cp) = plate(90.0);
        assert!((c.cd - cp).abs() < 1e-14 && c.cl.abs() < 1e-14, "{c:?}");
    }

    #[test]
    fn no_wall_no_coefficients() {
        let mut m = box_mesh();
        m.bound = vec![2; 4];
        assert!(coefficients(&m, &Settings::default().qinf(), &Settings::default()).is_none());
    }
}
