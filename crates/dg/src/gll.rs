//! Gauss-Lobatto-Legendre (GLL) points on `[-1, 1]`: the nodes of a nodal
//! DG element, their quadrature weights (the diagonal mass matrix) and
//! the differentiation matrix of the Lagrange polynomials through them.
//!
//! For `n >= 2` nodes (polynomial degree `N = n - 1`) the nodes are `-1`,
//! `1` and the roots of `P'_N` (Newton's method from the Chebyshev-Gauss-
//! Lobatto points, on the recurrence for `P_N`); the weights are
//! `2 / (N (N + 1) P_N(x_i)^2)`; the differentiation matrix is
//! `D_ij = P_N(x_i) / (P_N(x_j) (x_i - x_j))` off the diagonal,
//! `-N (N + 1) / 4` and `N (N + 1) / 4` at the two ends and 0 elsewhere on
//! it. One node (the paper's order 1) is the cell centre: weight 2, a zero
//! derivative (a finite-volume cell).

/// The most nodes per direction (the paper's orders 1 to 8).
pub const MAX_NODES: usize = 8;

/// The GLL points of one element.
#[derive(Clone, Debug, PartialEq)]
pub struct Gll {
    /// The nodes, ascending.
    pub nodes: Vec<f64>,
    /// The quadrature weights (sum 2).
    pub weights: Vec<f64>,
    /// `d[i][j] = l_j'(x_i)`, the derivative of the `j`-th Lagrange
    /// polynomial at node `i`.
    pub d: Vec<Vec<f64>>,
}

/// `(P_N(x), P_N'(x))` by the three-term recurrence.
fn legendre(n: usize, x: f64) -> (f64, f64) {
    let (mut p0, mut p1) = (1.0, x);
    if n == 0 {
        return (1.0, 0.0);
    }
    for k in 2..=n {
        let k = k as f64;
        let p2 = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
        p0 = p1;
        p1 = p2;
    }
    // P_N' from P_N and P_{N-1}, away from the ends (not used there).
    let dp = n as f64 * (x * p1 - p0) / (x * x - 1.0);
    (p1, dp)
}

impl Gll {
    /// The GLL points of `n` nodes, `1 <= n <= MAX_NODES`.
    pub fn new(n: usize) -> Result<Gll, String> {
        if !(1..=MAX_NODES).contains(&n) {
            return Err(format!(
                "{n} nodes per direction: give 1 to {MAX_NODES} (the order)"
            ));
        }
        if n == 1 {
            return Ok(Gll {
                nodes: vec![0.0],
                weights: vec![2.0],
                d: vec![vec![0.0]],
            });
        }
        let big_n = n - 1;
        let mut nodes: Vec<f64> = (0..n)
            .map(|i| -(std::f64::consts::PI * i as f64 / big_n as f64).cos())
            .collect();
        // Interior nodes: roots of P_N', by Newton on q = P_N' with
        // q' = (2x P_N' - N (N + 1) P_N) / (1 - x^2).
        for x in nodes.iter_mut().take(big_n).skip(1) {
            for _ in 0..100 {
                let (p, dp) = legendre(big_n, *x);
                let ddp = (2.0 * *x * dp - (big_n * (big_n + 1)) as f64 * p) / (1.0 - *x * *x);
                let step = dp / ddp;
                *x -= step;
                if step.abs() < 1e-16 {
                    break;
                }
            }
        }
        nodes[0] = -1.0;
        nodes[big_n] = 1.0;
        // Symmetric to the bit: mirror the upper half onto the lower.
        for i in 0..n / 2 {
            let v = 0.5 * (nodes[big_n - i] - nodes[i]);
            nodes[i] = -v;
            nodes[big_n - i] = v;
        }
        if n % 2 == 1 {
            nodes[n / 2] = 0.0;
        }
        let nn1 = (big_n * (big_n + 1)) as f64;
        let pn: Vec<f64> = nodes.iter().map(|&x| legendre(big_n, x).0).collect();
        let weights = pn.iter().map(|p| 2.0 / (nn1 * p * p)).collect();
        let mut d = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    d[i][j] = pn[i] / (pn[j] * (nodes[i] - nodes[j]));
                }
            }
        }
        d[0][0] = -nn1 / 4.0;
        d[big_n][big_n] = nn1 / 4.0;
        Ok(Gll { nodes, weights, d })
    }

    /// Nodes per direction.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether there are no nodes (never: at least one).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// The closed forms for 2 to 5 nodes (e.g. Hesthaven & Warburton,
    /// Nodal DG Methods, or any table of Lobatto quadrature).
    #[test]
    fn nodes_and_weights_match_their_closed_forms() {
        let s5 = 5f64.sqrt();
        let s37 = (3.0f64 / 7.0).sqrt();
        let table: [(&[f64], &[f64]); 4] = [
            (&[-1.0, 1.0], &[1.0, 1.0]),
            (&[-1.0, 0.0, 1.0], &[1.0 / 3.0, 4.0 / 3.0, 1.0 / 3.0]),
            (
                &[-1.0, -1.0 / s5, 1.0 / s5, 1.0],
                &[1.0 / 6.0, 5.0 / 6.0, 5.0 / 6.0, 1.0 / 6.0],
            ),
            (
                &[-1.0, -s37, 0.0, s37, 1.0],
                &[0.1, 49.0 / 90.0, 32.0 / 45.0, 49.0 / 90.0, 0.1],
            ),
        ];
        for (nodes, weights) in table {
            let g = Gll::new(nodes.len()).unwrap();
            for (a, b) in g.nodes.iter().zip(nodes) {
                assert!(close(*a, *b, 1e-15), "{} nodes: {a} vs {b}", nodes.len());
            }
            for (a, b) in g.weights.iter().zip(weights) {
                assert!(
                    close(*a, *b, 1e-15),
                    "{} nodes: weight {a} vs {b}",
                    nodes.len()
                );
            }
        }
        assert_eq!(Gll::new(1).unwrap().weights, [2.0]);
        assert!(Gll::new(0).unwrap_err().contains("1 to 8"));
        assert!(Gll::new(9).is_err());
    }

    /// `n` nodes integrate polynomials of degree `2n - 3` exactly and
    /// differentiate those of degree `n - 1` exactly.
    #[test]
    fn quadrature_and_derivatives_are_exact_to_their_degree() {
        for n in 2..=MAX_NODES {
            let g = Gll::new(n).unwrap();
            for k in 0..=(2 * n - 3) {
                let q: f64 = g
                    .nodes
                    .iter()
                    .zip(&g.weights)
                    .map(|(x, w)| w * x.powi(k as i32))
                    .sum();
                let exact = if k % 2 == 1 {
                    0.0
                } else {
                    2.0 / (k as f64 + 1.0)
                };
                assert!(close(q, exact, 1e-14), "n {n}, x^{k}: {q} vs {exact}");
            }
            for k in 0..n {
                for i in 0..n {
                    let du: f64 = (0..n).map(|j| g.d[i][j] * g.nodes[j].powi(k as i32)).sum();
                    let exact = if k == 0 {
                        0.0
                    } else {
                        k as f64 * g.nodes[i].powi(k as i32 - 1)
                    };
                    assert!(
                        close(du, exact, 1e-12),
                        "n {n}, d x^{k} at node {i}: {du} vs {exact}"
                    );
                }
            }
        }
    }

    /// Summation by parts: `M D + D^T M = diag(-1, 0, ..., 0, 1)` with the
    /// diagonal mass matrix `M = diag(w)`.
    #[test]
    fn the_mass_and_differentiation_matrices_sum_by_parts() {
        for n in 2..=MAX_NODES {
            let g = Gll::new(n).unwrap();
            for i in 0..n {
                for j in 0..n {
                    let q = g.weights[i] * g.d[i][j] + g.d[j][i] * g.weights[j];
                    let want = match (i, j) {
                        (0, 0) => -1.0,
                        (a, b) if a == n - 1 && b == n - 1 => 1.0,
                        _ => 0.0,
                    };
                    assert!(close(q, want, 1e-13), "n {n} ({i}, {j}): {q} vs {want}");
                }
            }
        }
    }
}
