//! What a computed oblique-shock solution is measured by, against the
//! exact one ([`crate::exact`]): the L1 error of density, the shocks'
//! positions along rows and their angles (straight lines fitted through
//! the positions), and the plateau states of regions 2 and 3 (means over
//! patches well inside them).

use crate::exact::{ObliqueShock, Primitive};
use crate::problem::primitive;
use crate::settings::{Grid, Setup};

/// A computed solution: the interior cells' states, `i` fastest.
pub struct Solution<'a> {
    /// The grid.
    pub grid: &'a Grid,
    /// Where the cells' points are.
    pub setup: Setup,
    /// The states `[rho, rho u, rho v, rho E]`.
    pub q: &'a [[f64; 4]],
    /// Ratio of specific heats.
    pub gamma: f64,
}

/// The measured shocks and plateaus.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// The incident shock's angle below the horizontal, degrees.
    pub incident_angle: f64,
    /// The reflected shock's angle to the wall, degrees.
    pub reflected_angle: f64,
    /// The shocks' positions along `y = 0.5` (interpolated between rows).
    pub at_half_height: [f64; 2],
    /// The mean state of region 2's patch.
    pub region2: Primitive,
    /// The mean state of region 3's patch.
    pub region3: Primitive,
}

/// The patch `x0..x1, y0..y1` where region 2's plateau is measured: away
/// from both shocks (the incident one at `x <= 0.81`, the reflected one at
/// `x >= 3.08` there).
pub const REGION2_PATCH: [f64; 4] = [1.5, 2.5, 0.55, 0.8];
/// Region 3's patch: below the reflected shock (at `y >= 0.65` for `x >=
/// 3.3`), away from the wall's first rows.
pub const REGION3_PATCH: [f64; 4] = [3.3, 3.8, 0.1, 0.4];

impl Solution<'_> {
    /// The density of cell `(i, j)`.
    fn rho(&self, i: usize, j: usize) -> f64 {
        self.q[j * self.grid.nx + i][0]
    }

    /// The mean absolute error of density against `exact` at the cell
    /// points (the midpoint rule's L1 norm over the domain, divided by its
    /// area).
    pub fn l1_density_error(&self, exact: &ObliqueShock) -> f64 {
        let mut e = 0.0;
        for j in 0..self.grid.ny {
            for i in 0..self.grid.nx {
                let [x, y] = self.grid.point(i, j, self.setup);
                e += (self.rho(i, j) - exact.state_at(x, y).rho).abs();
            }
        }
        e / (self.grid.nx * self.grid.ny) as f64
    }

    /// Where the density along row `j` first crosses `level` at or after
    /// the point `x_from` (linear between cell points); `None` if it does
    /// not.
    pub fn crossing(&self, j: usize, level: f64, x_from: f64) -> Option<f64> {
        let g = self.grid;
        for i in 0..g.nx - 1 {
            let (xa, xb) = (
                g.point(i, j, self.setup)[0],
                g.point(i + 1, j, self.setup)[0],
            );
            if xb < x_from {
                continue;
            }
            let (a, b) = (self.rho(i, j), self.rho(i + 1, j));
            if (a - level) * (b - level) <= 0.0 && a != b {
                return Some(xa + (level - a) / (b - a) * (xb - xa));
            }
        }
        None
    }

    /// The two shocks along row `j`: the incident one where density
    /// crosses the mean of regions 1 and 2, the reflected one the mean of
    /// regions 2 and 3 (searched from half-way between the exact shocks).
    fn shocks_on_row(&self, j: usize, exact: &ObliqueShock) -> (Option<f64>, Option<f64>) {
        let y = self.grid.point(0, j, self.setup)[1];
        let (r1, r2, r3) = (exact.region1.rho, exact.region2.rho, exact.region3.rho);
        let mid = 0.5 * (exact.incident_x(y) + exact.reflected_x(y));
        let inc = self.crossing(j, 0.5 * (r1 + r2), 0.0).filter(|&x| x < mid);
        let refl = self.crossing(j, 0.5 * (r2 + r3), mid);
        (inc, refl)
    }

    /// The mean primitive state over the cells whose points lie in
    /// `[x0, x1] x [y0, y1]`.
    pub fn patch_mean(&self, patch: [f64; 4]) -> Primitive {
        let mut sum = [0.0; 4];
        let mut n = 0.0;
        for j in 0..self.grid.ny {
            for i in 0..self.grid.nx {
                let [x, y] = self.grid.point(i, j, self.setup);
                if x >= patch[0] && x <= patch[1] && y >= patch[2] && y <= patch[3] {
                    let p = primitive(&self.q[j * self.grid.nx + i], self.gamma);
                    for (s, v) in sum.iter_mut().zip([p.rho, p.u, p.v, p.p]) {
                        *s += v;
                    }
                    n += 1.0;
                }
            }
        }
        Primitive {
            rho: sum[0] / n,
            u: sum[1] / n,
            v: sum[2] / n,
            p: sum[3] / n,
        }
    }

    /// The shocks and plateaus: the incident shock's angle fitted through
    /// its positions on the rows with `0.55 <= y <= 0.95`, the reflected
    /// one's through `0.15 <= y <= 0.75` (clear of the corner, the wall's
    /// rows and the right boundary), the positions along `y = 0.5`
    /// interpolated between the two rows around it.
    pub fn measure(&self, exact: &ObliqueShock) -> Measured {
        let mut inc = Vec::new();
        let mut refl = Vec::new();
        for j in 0..self.grid.ny {
            let y = self.grid.point(0, j, self.setup)[1];
            let (a, b) = self.shocks_on_row(j, exact);
            if let (Some(x), true) = (a, (0.55..=0.95).contains(&y)) {
                inc.push((y, x));
            }
            if let (Some(x), true) = (b, (0.15..=0.75).contains(&y)) {
                refl.push((y, x));
            }
        }
        // x = x0 + s y: incident s = -1/tan(beta), reflected s = 1/tan(phi).
        let incident_angle = (-1.0 / slope(&inc)).atan().to_degrees();
        let reflected_angle = (1.0 / slope(&refl)).atan().to_degrees();
        // Along y = 0.5: between the rows below and above it.
        let dy = self.grid.spacing()[1];
        let y0 = self.grid.point(0, 0, self.setup)[1];
        let jb = (((0.5 - y0) / dy).floor().max(0.0) as usize).min(self.grid.ny - 2);
        let yb = self.grid.point(0, jb, self.setup)[1];
        let w = (0.5 - yb) / dy;
        let (ib, rb) = self.shocks_on_row(jb, exact);
        let (ia, ra) = self.shocks_on_row(jb + 1, exact);
        let lerp = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => a + w * (b - a),
            _ => f64::NAN,
        };
        Measured {
            incident_angle,
            reflected_angle,
            at_half_height: [lerp(ib, ia), lerp(rb, ra)],
            region2: self.patch_mean(REGION2_PATCH),
            region3: self.patch_mean(REGION3_PATCH),
        }
    }
}

/// The least-squares slope of `x` on `y` through the points `(y, x)`;
/// NaN for fewer than two.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    if points.len() < 2 {
        return f64::NAN;
    }
    let my = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mx = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = points.iter().map(|p| (p.0 - my) * (p.1 - mx)).sum();
    let syy: f64 = points.iter().map(|p| (p.0 - my) * (p.0 - my)).sum();
    sxy / syy
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::conserved;
    use crate::settings::Settings;

    /// The exact solution sampled at the cell points measures as itself:
    /// angles within a cell's width over the fitted height, plateaus exact,
    /// L1 error only from the cells the shocks cut.
    #[test]
    fn the_exact_solution_measures_as_itself() {
        let ex = crate::problem::shock(&Settings::default()).unwrap();
        let grid = Grid { nx: 800, ny: 200 };
        let q: Vec<[f64; 4]> = (0..grid.nx * grid.ny)
            .map(|c| {
                let [x, y] = grid.point(c % grid.nx, c / grid.nx, Setup::Exact);
                conserved(&ex.state_at(x, y), 1.4)
            })
            .collect();
        let s = Solution {
            grid: &grid,
            setup: Setup::Exact,
            q: &q,
            gamma: 1.4,
        };
        let m = s.measure(&ex);
        assert!((m.incident_angle - 29.0).abs() < 0.1, "{m:?}");
        assert!(
            (m.reflected_angle - ex.reflected_angle.to_degrees()).abs() < 0.1,
            "{m:?}"
        );
        assert!(
            (m.at_half_height[0] - ex.incident_x(0.5)).abs() < 0.01,
            "{m:?}"
        );
        assert!(
            (m.at_half_height[1] - ex.reflected_x(0.5)).abs() < 0.01,
            "{m:?}"
        );
        assert!((m.region2.rho - ex.region2.rho).abs() < 1e-12, "{m:?}");
        assert!((m.region3.p - ex.region3.p).abs() < 1e-12, "{m:?}");
        assert!(s.l1_density_error(&ex) == 0.0);
        // A solution with its reflected shock moved measures as moved.
        let shifted: Vec<[f64; 4]> = (0..grid.nx * grid.ny)
            .map(|c| {
                let [x, y] = grid.point(c % grid.nx, c / grid.nx, Setup::Exact);
                conserved(&ex.state_at(x - 0.1, y), 1.4)
            })
            .collect();
        let s2 = Solution { q: &shifted, ..s };
        let m2 = s2.measure(&ex);
        assert!(
            (m2.at_half_height[1] - ex.reflected_x(0.5) - 0.1).abs() < 0.01,
            "{m2:?}"
        );
        assert!(s2.l1_density_error(&ex) > 0.01);
    }
}
