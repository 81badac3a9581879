//! Explicit Runge-Kutta schemes, as tableaus.
//!
//! | scheme | stages | order | source |
//! |---|---|---|---|
//! | `rk3-heun` | 3 | 3 | Heun's third-order method, `c = (0, 1/3, 2/3)`, `b = (1/4, 0, 3/4)`: how the paper's eq. 10 reads when its stages and weights are taken consistently |
//! | `ssprk3` | 3 | 3 | Shu & Osher (1988), strong-stability preserving |
//! | `rk4` | 4 | 4 | the classic scheme |
//! | `rk6` | 7 | 6 | Luther (1968), with `sqrt(21)`; its `a63 = -320 sqrt(21) / 1960` (a transcription that drops the sign falls to first order) |
//! | `lserk54` | 5 | 4 | Carpenter & Kennedy (1994), the low-storage (2N) scheme peer DG codes use by default; also as its equivalent tableau |
//!
//! A low-storage scheme is `du <- A_k du + h f(t + c_k h, u)`, `u <- u +
//! B_k du` for `k = 1..s` ([`LowStorage`]).

use std::fmt;
use std::str::FromStr;

/// A Runge-Kutta scheme by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// Heun's third-order method.
    Rk3Heun,
    /// Shu and Osher's SSP RK3.
    Ssprk3,
    /// The classic RK4.
    Rk4,
    /// Luther's 7-stage sixth-order method.
    Rk6,
    /// Carpenter and Kennedy's low-storage (5,4) method.
    Lserk54,
}

impl Scheme {
    /// Every scheme.
    pub const ALL: [Scheme; 5] = [
        Scheme::Rk3Heun,
        Scheme::Ssprk3,
        Scheme::Rk4,
        Scheme::Rk6,
        Scheme::Lserk54,
    ];

    /// The name, as in case files.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Rk3Heun => "rk3-heun",
            Scheme::Ssprk3 => "ssprk3",
            Scheme::Rk4 => "rk4",
            Scheme::Rk6 => "rk6",
            Scheme::Lserk54 => "lserk54",
        }
    }

    /// The order of accuracy.
    pub fn order(self) -> usize {
        match self {
            Scheme::Rk3Heun | Scheme::Ssprk3 => 3,
            Scheme::Rk4 | Scheme::Lserk54 => 4,
            Scheme::Rk6 => 6,
        }
    }

    /// The Butcher tableau.
    pub fn tableau(self) -> Tableau {
        match self {
            Scheme::Rk3Heun => Tableau {
                a: vec![vec![], vec![1.0 / 3.0], vec![0.0, 2.0 / 3.0]],
                b: vec![0.25, 0.0, 0.75],
                c: vec![0.0, 1.0 / 3.0, 2.0 / 3.0],
            },
            Scheme::Ssprk3 => Tableau {
                a: vec![vec![], vec![1.0], vec![0.25, 0.25]],
                b: vec![1.0 / 6.0, 1.0 / 6.0, 2.0 / 3.0],
                c: vec![0.0, 1.0, 0.5],
            },
            Scheme::Rk4 => Tableau {
                a: vec![vec![], vec![0.5], vec![0.0, 0.5], vec![0.0, 0.0, 1.0]],
                b: vec![1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0],
                c: vec![0.0, 0.5, 0.5, 1.0],
            },
            Scheme::Rk6 => luther(),
            Scheme::Lserk54 => LowStorage::carpenter_kennedy().tableau(),
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scheme {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Scheme::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Scheme::ALL.iter().map(|x| x.name()).collect();
                format!("unknown Runge-Kutta scheme '{s}' ({})", names.join(", "))
            })
    }
}

/// A Butcher tableau: stage `i` at `t + c_i h` from `y + h sum_j a_ij k_j`
/// (`a[i]` holds the `i` coefficients before the diagonal), the step
/// `y + h sum_i b_i k_i`.
#[derive(Clone, Debug, PartialEq)]
pub struct Tableau {
    /// The coefficients below the diagonal, row by row.
    pub a: Vec<Vec<f64>>,
    /// The weights.
    pub b: Vec<f64>,
    /// The nodes.
    pub c: Vec<f64>,
}

impl Tableau {
    /// Stages.
    pub fn stages(&self) -> usize {
        self.b.len()
    }
}

/// Luther's seventh-stage sixth-order scheme (Luther 1968; the
/// coefficients as Butcher's book lists them).
fn luther() -> Tableau {
    let s = 21f64.sqrt();
    Tableau {
        a: vec![
            vec![],
            vec![1.0],
            vec![3.0 / 8.0, 1.0 / 8.0],
            vec![8.0 / 27.0, 2.0 / 27.0, 8.0 / 27.0],
            vec![
                (-21.0 + 9.0 * s) / 392.0,
                (-56.0 + 8.0 * s) / 392.0,
                (336.0 - 48.0 * s) / 392.0,
                (-63.0 + 3.0 * s) / 392.0,
            ],
            vec![
                (-1155.0 - 255.0 * s) / 1960.0,
                (-280.0 - 40.0 * s) / 1960.0,
                -320.0 * s / 1960.0,
                (63.0 + 363.0 * s) / 1960.0,
                (2352.0 + 392.0 * s) / 1960.0,
            ],
            vec![
                (330.0 + 105.0 * s) / 180.0,
                120.0 / 180.0,
                (-200.0 + 280.0 * s) / 180.0,
                (126.0 - 189.0 * s) / 180.0,
                (-686.0 - 126.0 * s) / 180.0,
                (490.0 - 70.0 * s) / 180.0,
            ],
        ],
        b: vec![
            9.0 / 180.0,
            0.0,
            64.0 / 180.0,
            0.0,
            49.0 / 180.0,
            49.0 / 180.0,
            9.0 / 180.0,
        ],
        c: vec![
            0.0,
            1.0,
            0.5,
            2.0 / 3.0,
            (7.0 - s) / 14.0,
            (7.0 + s) / 14.0,
            1.0,
        ],
    }
}

/// A low-storage (2N) scheme: `du <- a_k du + h f(t + c_k h, u)`,
/// `u <- u + b_k du`.
#[derive(Clone, Debug, PartialEq)]
pub struct LowStorage {
    /// `A_k` (`A_1 = 0`).
    pub a: Vec<f64>,
    /// `B_k`.
    pub b: Vec<f64>,
    /// `c_k`.
    pub c: Vec<f64>,
}

impl LowStorage {
    /// Carpenter and Kennedy's (5,4) scheme (NASA TM-109112, 1994,
    /// solution 3).
    pub fn carpenter_kennedy() -> LowStorage {
        LowStorage {
            a: vec![
                0.0,
                -567301805773.0 / 1357537059087.0,
                -2404267990393.0 / 2016746695238.0,
                -3550918686646.0 / 2091501179385.0,
                -1275806237668.0 / 842570457699.0,
            ],
            b: vec![
                1432997174477.0 / 9575080441755.0,
                5161836677717.0 / 13612068292357.0,
                1720146321549.0 / 2090206949498.0,
                3134564353537.0 / 4481467310338.0,
                2277821191437.0 / 14882151754819.0,
            ],
            c: vec![
                0.0,
                1432997174477.0 / 9575080441755.0,
                2526269341429.0 / 6820363962896.0,
                2006345519317.0 / 3224310063776.0,
                2802321613138.0 / 2924317926251.0,
            ],
        }
    }

    /// The equivalent Butcher tableau: with `du_k = sum_j q_kj h k_j` and
    /// `u_k = u_0 + sum_j p_kj h k_j`, `q_k = A_k q_{k-1} + e_k` and
    /// `p_k = p_{k-1} + B_k q_k`; stage `k` reads `u_{k-1}`.
    pub fn tableau(&self) -> Tableau {
        let s = self.a.len();
        let mut q = vec![0.0; s];
        let mut p = vec![0.0; s];
        let mut a = Vec::with_capacity(s);
        for k in 0..s {
            a.push(p[..k].to_vec());
            for x in q.iter_mut() {
                *x *= self.a[k];
            }
            q[k] += 1.0;
            for j in 0..s {
                p[j] += self.b[k] * q[j];
            }
        }
        Tableau {
            a,
            b: p,
            c: self.c.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One step of `y' = f(t, y)` with tableau `t`.
    fn step(tab: &Tableau, f: &dyn Fn(f64, f64) -> f64, t: f64, y: f64, h: f64) -> f64 {
        let mut k: Vec<f64> = Vec::with_capacity(tab.stages());
        for i in 0..tab.stages() {
            let yi = y + h * tab.a[i].iter().zip(&k).map(|(a, k)| a * k).sum::<f64>();
            k.push(f(t + tab.c[i] * h, yi));
        }
        y + h * tab.b.iter().zip(&k).map(|(b, k)| b * k).sum::<f64>()
    }

    /// The error at `t = 1/2` of `y' = y^2`, `y(0) = 1` (exact
    /// `1 / (1 - t)`, nonlinear: it tests more than the linear order
    /// conditions), in `n` steps.
    fn error(tab: &Tableau, n: usize) -> f64 {
        let f = |_t: f64, y: f64| y * y;
        let h = 0.5 / n as f64;
        let mut y = 1.0;
        for s in 0..n {
            y = step(tab, &f, s as f64 * h, y, h);
        }
        (y - 2.0).abs()
    }

    #[test]
    fn row_sums_equal_the_nodes_and_weights_sum_to_one() {
        for s in Scheme::ALL {
            let t = s.tableau();
            assert_eq!(t.a.len(), t.stages(), "{s}");
            for (i, row) in t.a.iter().enumerate() {
                let sum: f64 = row.iter().sum();
                assert!(
                    (sum - t.c[i]).abs() < 1e-14,
                    "{s} row {i}: {sum} vs c {}",
                    t.c[i]
                );
            }
            let b: f64 = t.b.iter().sum();
            assert!((b - 1.0).abs() < 1e-14, "{s}: weights sum {b}");
        }
        // Luther's a63 is negative; with the sign dropped the scheme
        // breaks its row sum.
        let t = Scheme::Rk6.tableau();
        assert!(t.a[5][2] < 0.0);
        let flipped: f64 = t.a[5].iter().sum::<f64>() - 2.0 * t.a[5][2];
        assert!((flipped - t.c[5]).abs() > 0.1);
    }

    /// The quadrature conditions `sum b_i c_i^k = 1 / (k + 1)` for
    /// `k < order`, and the observed order on a nonlinear equation.
    #[test]
    fn each_scheme_reaches_its_order() {
        for s in Scheme::ALL {
            let t = s.tableau();
            for k in 0..s.order() {
                let q: f64 =
                    t.b.iter()
                        .zip(&t.c)
                        .map(|(b, c)| b * c.powi(k as i32))
                        .sum();
                assert!(
                    (q - 1.0 / (k as f64 + 1.0)).abs() < 1e-13,
                    "{s}: b.c^{k} = {q}"
                );
            }
            let (e1, e2) = (error(&t, 16), error(&t, 32));
            let observed = (e1 / e2).log2();
            assert!(
                (observed - s.order() as f64).abs() < 0.35,
                "{s}: observed order {observed:.2} (errors {e1:.2e}, {e2:.2e})"
            );
        }
        // Luther with a63's sign dropped is no longer sixth order.
        let mut bad = Scheme::Rk6.tableau();
        bad.a[5][2] = -bad.a[5][2];
        let observed = (error(&bad, 16) / error(&bad, 32)).log2();
        assert!(observed < 2.0, "sign-dropped RK6: order {observed:.2}");
    }

    /// The low-storage form and its tableau take the same steps.
    #[test]
    fn the_low_storage_form_agrees_with_its_tableau() {
        let ls = LowStorage::carpenter_kennedy();
        let f = |t: f64, y: f64| y * y + t;
        let (h, y0) = (0.1, 0.5);
        let (mut u, mut du) = (y0, 0.0);
        for k in 0..ls.a.len() {
            du = ls.a[k] * du + h * f(ls.c[k] * h, u);
            u += ls.b[k] * du;
        }
        let v = step(&ls.tableau(), &f, 0.0, y0, h);
        assert!((u - v).abs() < 1e-15, "{u} vs {v}");
        assert_eq!("lserk54".parse::<Scheme>(), Ok(Scheme::Lserk54));
        assert!("rk5".parse::<Scheme>().unwrap_err().contains("rk3-heun"));
    }
}
