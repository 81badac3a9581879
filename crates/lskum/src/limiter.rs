//! Venkatakrishnan's limiter on the reconstruction increments.

use crate::Vec4;
use qflow_par_macros::device;

/// The limiter's smoothness threshold `eps = (vl_const * min_dist)^3`
/// (`LSKUM.md` section 4; the formula uses `eps^2`).
#[device]
#[inline]
pub fn venkat_epsilon(vl_const: f64, min_dist: f64) -> f64 {
    let e = vl_const * min_dist;
    e * e * e
}

/// Limiter values `phi` per component for a reconstruction `qt` of `q` with
/// the stencil bounds `q_max`, `q_min`:
///
/// - where the unlimited increment `d- = qt - q` is at most `1e-5` in size,
///   `phi = 1`;
/// - else with `d+ = q_max - q` (for `d- > 0`) or `q_min - q` (for `d- < 0`),
///   `phi = min(1, ((d+^2 + eps^2) d- + 2 d-^2 d+) / (d- (d+^2 + 2 d-^2 + d- d+ + eps^2)))`.
///
/// Written in the reference's order of operations.
#[device]
#[inline]
pub fn venkatakrishnan(qt: &Vec4, q: &Vec4, q_max: &Vec4, q_min: &Vec4, epsi: f64) -> Vec4 {
    let mut phi = [1.0; 4];
    let eps2 = epsi * epsi;
    for i in 0..4 {
        let del_neg = qt[i] - q[i];
        if del_neg.abs() > 1e-5 {
            let del_pos = if del_neg > 0.0 {
                q_max[i] - q[i]
            } else {
                q_min[i] - q[i]
            };
            let num = (del_pos * del_pos) + eps2;
            let num = (num * del_neg) + 2.0 * (del_neg * del_neg * del_pos);
            let den = (del_pos * del_pos) + (2.0 * del_neg * del_neg);
            let den = den + (del_neg * del_pos) + eps2;
            let den = den * del_neg;
            let temp = num / den;
            phi[i] = if temp < 1.0 { temp } else { 1.0 };
        }
    }
    phi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_increments_are_not_limited() {
        let q = [1.0; 4];
        let qt = [1.0 + 1e-6, 1.0 - 1e-6, 1.0, 1.0];
        assert_eq!(
            venkatakrishnan(&qt, &q, &[2.0; 4], &[0.0; 4], 0.0),
            [1.0; 4]
        );
    }

    #[test]
    fn overshoots_are_limited_and_smooth_regions_kept() {
        let q = [1.0; 4];
        // increment 0.5 towards a bound 0.1 away: strongly limited
        let qt = [1.5, 0.5, 1.5, 0.5];
        let phi = venkatakrishnan(&qt, &q, &[1.1; 4], &[0.9; 4], 0.0);
        for p in phi {
            assert!(p > 0.0 && p < 0.5, "{p}");
        }
        // bound far away: almost no limiting
        let phi = venkatakrishnan(&qt, &q, &[100.0; 4], &[-100.0; 4], 0.0);
        for p in phi {
            assert!(p > 0.99 && p <= 1.0, "{p}");
        }
        // a huge eps switches the limiter off
        let phi = venkatakrishnan(&qt, &q, &[1.1; 4], &[0.9; 4], 1e3);
        for p in phi {
            assert!(p > 1.0 - 1e-6, "{p}");
        }
    }
}
