//! The fields of a q-LSKUM solution as its outputs name them: density,
//! velocity, pressure, Mach number and pressure coefficient of every point,
//! from the primitive states and the free stream, and the sonic pressure
//! coefficient of the surface plot. The writers (`qflow-io`) take these as
//! named columns and know nothing of the gas.

use crate::forces::pressure_coefficient;
use crate::gas::{FreeStream, GAMMA};
use crate::Vec4;

/// The local Mach number `|u| / a` of the primitive state `w = [rho, u, v,
/// p]`, with the speed of sound `a = sqrt(gamma p / rho)`.
#[inline]
pub fn mach_number(w: &Vec4) -> f64 {
    w[1].hypot(w[2]) / (GAMMA * w[3] / w[0]).sqrt()
}

/// The pressure coefficient at which the flow is sonic (isentropic from
/// the free stream), for a free-stream Mach number `mach`; `None` unless
/// `mach` is finite and positive.
pub fn sonic_pressure_coefficient(mach: f64) -> Option<f64> {
    if !(mach > 0.0 && mach.is_finite()) {
        return None;
    }
    let m2 = mach * mach;
    let ratio = (2.0 + (GAMMA - 1.0) * m2) / (GAMMA + 1.0);
    Some(2.0 / (GAMMA * m2) * (ratio.powf(GAMMA / (GAMMA - 1.0)) - 1.0))
}

/// The name ParaView colours a point file by when it opens it.
pub const VTK_ACTIVE_SCALAR: &str = "Mach";

/// The name of the velocity vector of a point file, the one ParaView draws
/// glyphs with.
pub const VTK_VELOCITY: &str = "velocity";

/// The fields of every point of a solution, one value per point each, in
/// the points' order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointFields {
    /// Density.
    pub rho: Vec<f64>,
    /// x-velocity.
    pub u: Vec<f64>,
    /// y-velocity.
    pub v: Vec<f64>,
    /// Pressure.
    pub p: Vec<f64>,
    /// Mach number ([`mach_number`]).
    pub mach: Vec<f64>,
    /// Pressure coefficient with the conventional sign, negative on the
    /// suction side ([`pressure_coefficient`]).
    pub cp: Vec<f64>,
}

impl PointFields {
    /// The fields of the primitive states `prim` (`prim[i]` is point `i`)
    /// in the free stream `fs`.
    pub fn new(prim: &[Vec4], fs: &FreeStream) -> Self {
        let column = |f: &dyn Fn(&Vec4) -> f64| prim.iter().map(f).collect();
        PointFields {
            rho: column(&|s| s[0]),
            u: column(&|s| s[1]),
            v: column(&|s| s[2]),
            p: column(&|s| s[3]),
            mach: column(&mach_number),
            cp: column(&|s| pressure_coefficient(s[3], fs)),
        }
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.rho.len()
    }

    /// Whether there is no point.
    pub fn is_empty(&self) -> bool {
        self.rho.is_empty()
    }

    /// The columns of `solution.dat` after the point's place and kind:
    /// `rho u v p mach cp`.
    pub fn table_columns(&self) -> [(&'static str, &[f64]); 6] {
        [
            ("rho", &self.rho),
            ("u", &self.u),
            ("v", &self.v),
            ("p", &self.p),
            ("mach", &self.mach),
            ("cp", &self.cp),
        ]
    }

    /// The columns of `surface.csv` after the point's place: `cp`.
    pub fn surface_columns(&self) -> [(&'static str, &[f64]); 1] {
        [("cp", &self.cp)]
    }

    /// The scalar point data of a VTK file, in file order: `rho`, `u`,
    /// `v`, `p`, `Mach`, `Cp`.
    pub fn vtk_scalars(&self) -> [(&'static str, &[f64]); 6] {
        [
            ("rho", &self.rho),
            ("u", &self.u),
            ("v", &self.v),
            ("p", &self.p),
            (VTK_ACTIVE_SCALAR, &self.mach),
            ("Cp", &self.cp),
        ]
    }

    /// The vector point data of a VTK file: the velocity `(u, v)`.
    pub fn vtk_vectors(&self) -> [(&'static str, [&[f64]; 2]); 1] {
        [(VTK_VELOCITY, [&self.u, &self.v])]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gas::{P_INF, RHO_INF};

    /// The isentropic state of the free stream `fs` at pressure `p`, moving
    /// along the free stream (same total enthalpy).
    fn isentropic(fs: &FreeStream, p: f64) -> Vec4 {
        let rho = RHO_INF * (p / P_INF).powf(1.0 / GAMMA);
        // Total enthalpy per unit mass: a^2 / (gamma - 1) + |u|^2 / 2.
        let h0 = GAMMA * P_INF / RHO_INF / (GAMMA - 1.0) + 0.5 * fs.mach * fs.mach;
        let speed = (2.0 * (h0 - GAMMA * p / rho / (GAMMA - 1.0))).sqrt();
        [rho, speed * fs.theta.cos(), speed * fs.theta.sin(), p]
    }

    #[test]
    fn columns_hold_the_state_its_mach_number_and_cp() {
        let fs = FreeStream::new(0.63, 2.0);
        let mut prim: Vec<Vec4> = [1.0, 0.8, 0.6, 0.4]
            .iter()
            .map(|&f| isentropic(&fs, f * P_INF))
            .collect();
        // A non-physical state is carried as it is.
        prim.push([1.5, f64::NAN, -0.0, 0.5]);
        let f = PointFields::new(&prim, &fs);
        assert_eq!(f.len(), prim.len());
        assert!(!f.is_empty() && PointFields::new(&[], &fs).is_empty());
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for (k, column) in [&f.rho, &f.u, &f.v, &f.p].into_iter().enumerate() {
            let want: Vec<f64> = prim.iter().map(|s| s[k]).collect();
            assert_eq!(bits(column), bits(&want));
        }
        for (i, s) in prim.iter().enumerate() {
            let cp = (s[3] - P_INF) / (0.5 * RHO_INF * fs.mach * fs.mach);
            if i < 4 {
                let a = (GAMMA * s[3] / s[0]).sqrt();
                let m = (s[1] * s[1] + s[2] * s[2]).sqrt() / a;
                assert!((f.mach[i] - m).abs() <= 4.0 * f64::EPSILON * m, "{i}");
                assert!((f.cp[i] - cp).abs() <= 1e-15 * cp.abs().max(1.0), "{i}");
            }
            assert_eq!(f.cp[i].to_bits(), pressure_coefficient(s[3], &fs).to_bits());
            assert_eq!(f.mach[i].to_bits(), mach_number(s).to_bits());
        }
        // The free stream: its Mach number (to round-off: a is not exactly 1
        // with the reference's p_inf) and Cp 0.
        assert!((f.mach[0] - fs.mach).abs() < 1e-15, "{}", f.mach[0]);
        assert_eq!(f.cp[0], 0.0);
        // Expansion: faster, suction.
        assert!(f.mach.windows(2).take(3).all(|m| m[1] > m[0]));
        assert!(f.cp.windows(2).take(3).all(|c| c[1] < c[0]));
        assert!(f.mach[4].is_nan());

        // The columns of each file, named and in order.
        let names = |c: &[(&str, &[f64])]| c.iter().map(|f| f.0.to_string()).collect::<Vec<_>>();
        assert_eq!(
            names(&f.table_columns()),
            ["rho", "u", "v", "p", "mach", "cp"]
        );
        assert_eq!(
            names(&f.vtk_scalars()),
            ["rho", "u", "v", "p", "Mach", "Cp"]
        );
        assert_eq!(names(&f.surface_columns()), ["cp"]);
        // The columns are the fields themselves (compared by address: NaN is
        // not equal to itself).
        assert!(std::ptr::eq(f.vtk_scalars()[4].1, f.mach.as_slice()));
        assert!(std::ptr::eq(f.table_columns()[5].1, f.cp.as_slice()));
        assert!(std::ptr::eq(f.surface_columns()[0].1, f.cp.as_slice()));
        let [(velocity, [u, v])] = f.vtk_vectors();
        assert_eq!(velocity, VTK_VELOCITY);
        assert!(std::ptr::eq(u, f.u.as_slice()) && std::ptr::eq(v, f.v.as_slice()));
    }

    #[test]
    fn sonic_cp_is_the_cp_of_an_isentropic_state_at_mach_one() {
        for (mach, aoa) in [
            (0.3, 0.0),
            (0.63, 2.0),
            (0.85, 1.25),
            (1.2, 0.0),
            (2.0, 5.0),
        ] {
            let fs = FreeStream::new(mach, aoa);
            let star = sonic_pressure_coefficient(mach).unwrap();
            // The sonic pressure: p* / p0 = (2 / (gamma + 1))^(gamma / (gamma - 1)).
            let m2 = mach * mach;
            let p0 = P_INF * (1.0 + 0.5 * (GAMMA - 1.0) * m2).powf(GAMMA / (GAMMA - 1.0));
            let p_star = p0 * (2.0 / (GAMMA + 1.0)).powf(GAMMA / (GAMMA - 1.0));
            let sonic = isentropic(&fs, p_star);
            assert!((mach_number(&sonic) - 1.0).abs() < 1e-12, "M {mach}");
            let cp = pressure_coefficient(p_star, &fs);
            assert!((cp - star).abs() < 1e-12, "M {mach}: {cp} {star}");
            // Subsonic free streams reach it by suction, supersonic ones by
            // compression.
            assert_eq!(star < 0.0, mach < 1.0, "M {mach}");
        }
        for bad in [0.0, -0.5, f64::NAN, f64::INFINITY] {
            assert_eq!(sonic_pressure_coefficient(bad), None, "{bad}");
        }
    }
}
