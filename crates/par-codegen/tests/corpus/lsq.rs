//! A least-squares gradient fit: weighted sums accumulated per neighbour
//! by `&mut self` methods, solved for the x and y derivatives of four
//! components.

use qflow_par_macros::device;

use super::Vec4;

/// The sums of a weighted least-squares fit of `dq = gx dx + gy dy`.
#[device]
#[derive(Clone, Copy, Debug, Default)]
pub struct Fit {
    sum_dx2: f64,
    sum_dy2: f64,
    sum_dxdy: f64,
    sum_dxdq: Vec4,
    sum_dydq: Vec4,
    count: u32,
}

#[device]
impl Fit {
    /// No neighbours yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The weight of a neighbour at `(dx, dy)`: `1/d^power`.
    fn weight(dx: f64, dy: f64, power: f64) -> f64 {
        let d2 = dx * dx + dy * dy;
        if power == 0.0 {
            1.0
        } else {
            1.0 / d2.sqrt().powf(power)
        }
    }

    /// Adds a neighbour at `(dx, dy)` whose values differ by `dq`.
    pub fn add(&mut self, dx: f64, dy: f64, dq: &Vec4, power: f64) {
        let w = Self::weight(dx, dy, power);
        self.add_weighted(w * dx, w * dy, dx, dy, dq);
        self.count += 1;
    }

    fn add_weighted(&mut self, wdx: f64, wdy: f64, dx: f64, dy: f64, dq: &Vec4) {
        self.sum_dx2 += wdx * dx;
        self.sum_dy2 += wdy * dy;
        self.sum_dxdy += wdx * dy;
        for c in 0..4 {
            self.sum_dxdq[c] += wdx * dq[c];
            self.sum_dydq[c] += wdy * dq[c];
        }
    }

    /// The determinant of the normal equations.
    pub fn det(&self) -> f64 {
        self.sum_dx2 * self.sum_dy2 - self.sum_dxdy * self.sum_dxdy
    }

    /// The derivatives `(d/dx, d/dy)` (zeros without neighbours).
    pub fn solve(&self) -> ([f64; 4], [f64; 4]) {
        let mut gx = [0.0; 4];
        let mut gy = [0.0; 4];
        if self.count == 0 {
            return (gx, gy);
        }
        let one_by_det = 1.0 / self.det();
        for c in 0..4 {
            gx[c] =
                (self.sum_dxdq[c] * self.sum_dy2 - self.sum_dydq[c] * self.sum_dxdy) * one_by_det;
            gy[c] =
                (self.sum_dydq[c] * self.sum_dx2 - self.sum_dxdq[c] * self.sum_dxdy) * one_by_det;
        }
        (gx, gy)
    }
}

/// Gradients of `q` at a point from `n` neighbours, and the fit's
/// determinant; components whose fit is not finite are zeroed.
#[device]
pub fn gradients(
    dxs: &[f64; 8],
    dys: &[f64; 8],
    dqs: &[[f64; 4]; 8],
    n: usize,
    power: f64,
) -> ([f64; 4], [f64; 4], f64) {
    let mut fit = Fit::new();
    for k in 0..n {
        fit.add(dxs[k], dys[k], &dqs[k], power);
    }
    let (gx, gy) = fit.solve();
    let mut ox = [0.0; 4];
    let mut oy = [0.0; 4];
    for j in 0..4 {
        (ox[j], oy[j]) = if gx[j].is_finite() && gy[j].is_finite() {
            (gx[j], gy[j])
        } else {
            (0.0, 0.0)
        };
    }
    (ox, oy, fit.det())
}
