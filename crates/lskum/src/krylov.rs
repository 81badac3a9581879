//! The linear algebra of the Newton-Krylov scheme, on one process: a
//! block-sparse matrix of 4 x 4 blocks over the stencils, its block ILU(0)
//! factorisation, restarted GMRES with right preconditioning, and the
//! column colouring that lets coloured differences fill the matrix.
//!
//! Nothing here knows q-LSKUM; `newton` gives it the stencils and the
//! residual.

/// A 4 x 4 block, row-major.
pub type Block = [f64; 16];

/// A sparse matrix of 4 x 4 blocks: row `i` has a block for each column of
/// its pattern (sorted, with the diagonal).
#[derive(Clone, Debug)]
pub struct BlockSparse {
    /// Row starts into `col` and `val`, `rows + 1` entries.
    pub start: Vec<usize>,
    /// Block columns, sorted within a row.
    pub col: Vec<usize>,
    /// Blocks.
    pub val: Vec<Block>,
    /// Position of each row's diagonal block.
    pub diag: Vec<usize>,
}

impl BlockSparse {
    /// Zero blocks on the pattern `{i} + rows[i]` of each row (repeats and
    /// the row itself may be in `rows[i]` or not).
    pub fn with_pattern(rows: &[Vec<usize>]) -> Self {
        let mut start = Vec::with_capacity(rows.len() + 1);
        let mut col = Vec::new();
        let mut diag = Vec::with_capacity(rows.len());
        start.push(0);
        for (i, r) in rows.iter().enumerate() {
            let mut r = r.clone();
            r.push(i);
            r.sort_unstable();
            r.dedup();
            let at = r.binary_search(&i).unwrap_or(0);
            diag.push(col.len() + at);
            col.extend_from_slice(&r);
            start.push(col.len());
        }
        let val = vec![[0.0; 16]; col.len()];
        BlockSparse {
            start,
            col,
            val,
            diag,
        }
    }

    /// Block rows.
    pub fn rows(&self) -> usize {
        self.start.len() - 1
    }

    /// The position of block `(i, j)`, if the pattern has it.
    pub fn find(&self, i: usize, j: usize) -> Option<usize> {
        let r = &self.col[self.start[i]..self.start[i + 1]];
        r.binary_search(&j).ok().map(|p| p + self.start[i])
    }

    /// `y = A x`.
    pub fn apply(&self, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; x.len()];
        for i in 0..self.rows() {
            let mut s = [0.0; 4];
            for p in self.start[i]..self.start[i + 1] {
                let j = self.col[p];
                let t = mul_vec(&self.val[p], &x[4 * j..4 * j + 4]);
                for c in 0..4 {
                    s[c] += t[c];
                }
            }
            y[4 * i..4 * i + 4].copy_from_slice(&s);
        }
        y
    }

    /// Factorises in place, ILU(0) by blocks in row order: the strictly
    /// lower blocks become those of the unit lower factor, the upper ones
    /// of the upper factor, and the diagonal blocks the inverses of its
    /// pivots. An error names the first row whose pivot is singular.
    pub fn factorise_ilu0(&mut self) -> Result<(), usize> {
        for i in 0..self.rows() {
            for p in self.start[i]..self.diag[i] {
                let k = self.col[p];
                let l = mul(&self.val[p], &self.val[self.diag[k]]);
                self.val[p] = l;
                for q in self.diag[k] + 1..self.start[k + 1] {
                    if let Some(t) = self.find(i, self.col[q]) {
                        let d = mul(&l, &self.val[q]);
                        for (v, d) in self.val[t].iter_mut().zip(d) {
                            *v -= d;
                        }
                    }
                }
            }
            let d = self.diag[i];
            self.val[d] = inverse(&self.val[d]).ok_or(i)?;
        }
        Ok(())
    }

    /// Factorises in place for block symmetric Gauss-Seidel (LU-SGS with
    /// the exact blocks): the preconditioner `(D + L) D^-1 (D + U)`, written
    /// as `(I + L D^-1) (D + U)` so that [`BlockSparse::solve_ilu0`] applies
    /// its inverse: the diagonal blocks become their inverses and each
    /// strictly lower block `L_ik` becomes `L_ik D_k^-1`; no other block
    /// changes (no elimination). An error names the first row whose
    /// diagonal block is singular.
    pub fn factorise_sgs(&mut self) -> Result<(), usize> {
        for i in 0..self.rows() {
            let d = self.diag[i];
            self.val[d] = inverse(&self.val[d]).ok_or(i)?;
        }
        for i in 0..self.rows() {
            for p in self.start[i]..self.diag[i] {
                let k = self.col[p];
                self.val[p] = mul(&self.val[p], &self.val[self.diag[k]]);
            }
        }
        Ok(())
    }

    /// Solves with the factors of [`BlockSparse::factorise_ilu0`] or
    /// [`BlockSparse::factorise_sgs`]: forward with the unit lower factor,
    /// back with the upper one.
    pub fn solve_ilu0(&self, b: &[f64]) -> Vec<f64> {
        let mut x = b.to_vec();
        for i in 0..self.rows() {
            let mut s = [x[4 * i], x[4 * i + 1], x[4 * i + 2], x[4 * i + 3]];
            for p in self.start[i]..self.diag[i] {
                let k = self.col[p];
                let t = mul_vec(&self.val[p], &x[4 * k..4 * k + 4]);
                for c in 0..4 {
                    s[c] -= t[c];
                }
            }
            x[4 * i..4 * i + 4].copy_from_slice(&s);
        }
        for i in (0..self.rows()).rev() {
            let mut s = [x[4 * i], x[4 * i + 1], x[4 * i + 2], x[4 * i + 3]];
            for p in self.diag[i] + 1..self.start[i + 1] {
                let k = self.col[p];
                let t = mul_vec(&self.val[p], &x[4 * k..4 * k + 4]);
                for c in 0..4 {
                    s[c] -= t[c];
                }
            }
            let y = mul_vec(&self.val[self.diag[i]], &s);
            x[4 * i..4 * i + 4].copy_from_slice(&y);
        }
        x
    }
}

/// `a b` for 4 x 4 blocks.
pub fn mul(a: &Block, b: &Block) -> Block {
    let mut c = [0.0; 16];
    for i in 0..4 {
        for k in 0..4 {
            let aik = a[4 * i + k];
            for j in 0..4 {
                c[4 * i + j] += aik * b[4 * k + j];
            }
        }
    }
    c
}

/// `a x` for a 4 x 4 block and 4 values.
pub fn mul_vec(a: &Block, x: &[f64]) -> [f64; 4] {
    let mut y = [0.0; 4];
    for (i, y) in y.iter_mut().enumerate() {
        *y = a[4 * i] * x[0] + a[4 * i + 1] * x[1] + a[4 * i + 2] * x[2] + a[4 * i + 3] * x[3];
    }
    y
}

/// The inverse of a 4 x 4 block by Gauss-Jordan elimination with partial
/// pivoting; `None` if it is singular (a zero or non-finite pivot).
pub fn inverse(a: &Block) -> Option<Block> {
    let mut m = *a;
    let mut r = [0.0; 16];
    for i in 0..4 {
        r[5 * i] = 1.0;
    }
    for c in 0..4 {
        let p = (c..4)
            .max_by(|&i, &j| m[4 * i + c].abs().total_cmp(&m[4 * j + c].abs()))
            .unwrap_or(c);
        for j in 0..4 {
            m.swap(4 * c + j, 4 * p + j);
            r.swap(4 * c + j, 4 * p + j);
        }
        let pivot = m[4 * c + c];
        if pivot == 0.0 || !pivot.is_finite() {
            return None;
        }
        let d = 1.0 / pivot;
        for j in 0..4 {
            m[4 * c + j] *= d;
            r[4 * c + j] *= d;
        }
        for k in (0..4).filter(|&k| k != c) {
            let f = m[4 * k + c];
            for j in 0..4 {
                m[4 * k + j] -= f * m[4 * c + j];
                r[4 * k + j] -= f * r[4 * c + j];
            }
        }
    }
    Some(r)
}

/// Colours of the columns of a matrix whose row `i` has the pattern
/// `{i} + rows[i]`, such that no row has two columns of one colour: the
/// columns of one colour can be perturbed together and each row's
/// difference read back per column. Greedy, in column order; the colours
/// and their count.
pub fn column_colours(rows: &[Vec<usize>]) -> (Vec<usize>, usize) {
    let n = rows.len();
    let pattern = |i: usize| rows[i].iter().copied().chain(std::iter::once(i));
    let mut rows_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        for j in pattern(i) {
            rows_of[j].push(i);
        }
    }
    let mut colour = vec![usize::MAX; n];
    let mut taken: Vec<usize> = Vec::new();
    let mut count = 0;
    for j in 0..n {
        for &i in &rows_of[j] {
            for k in pattern(i) {
                let c = colour[k];
                if c != usize::MAX {
                    if taken.len() <= c {
                        taken.resize(c + 1, usize::MAX);
                    }
                    taken[c] = j;
                }
            }
        }
        let c = (0..).find(|&c| taken.get(c) != Some(&j)).unwrap_or(0);
        colour[j] = c;
        count = count.max(c + 1);
    }
    (colour, count)
}

/// The Euclidean inner product.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// What a GMRES solve reached.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GmresOutcome {
    /// Krylov vectors (operator applications) used.
    pub iterations: usize,
    /// The residual norm relative to the right-hand side's.
    pub relative_residual: f64,
}

/// Solves `A x = b` by GMRES with right preconditioning `M^-1`, one cycle
/// of at most `dim` vectors (no restart: the Newton iteration is the outer
/// loop), from `x = 0`, until the residual is `tol` times that of `b`.
/// `apply(v)` is `A v`; `precondition(v)` is `M^-1 v`. A zero `b` gives
/// `x = 0`.
pub fn gmres(
    b: &[f64],
    dim: usize,
    tol: f64,
    mut apply: impl FnMut(&[f64]) -> Vec<f64>,
    mut precondition: impl FnMut(&[f64]) -> Vec<f64>,
) -> (Vec<f64>, GmresOutcome) {
    let len = b.len();
    let beta = dot(b, b).sqrt();
    let mut x = vec![0.0; len];
    if beta == 0.0 || dim == 0 {
        let outcome = GmresOutcome {
            iterations: 0,
            relative_residual: if beta == 0.0 { 0.0 } else { 1.0 },
        };
        return (x, outcome);
    }
    let mut v: Vec<Vec<f64>> = vec![b.iter().map(|e| e / beta).collect()];
    let mut z: Vec<Vec<f64>> = Vec::with_capacity(dim);
    // Hessenberg columns, rotated to upper triangular as they come.
    let mut h: Vec<Vec<f64>> = Vec::with_capacity(dim);
    let mut g = vec![0.0; dim + 1];
    g[0] = beta;
    let (mut cs, mut sn) = (vec![0.0; dim], vec![0.0; dim]);
    let mut k_done = 0;
    for k in 0..dim {
        let zk = precondition(&v[k]);
        let mut w = apply(&zk);
        z.push(zk);
        let mut col = vec![0.0; k + 2];
        for (j, vj) in v.iter().enumerate() {
            let hjk = dot(&w, vj);
            col[j] = hjk;
            for (we, ve) in w.iter_mut().zip(vj) {
                *we -= hjk * ve;
            }
        }
        let hn = dot(&w, &w).sqrt();
        col[k + 1] = hn;
        for j in 0..k {
            let t = cs[j] * col[j] + sn[j] * col[j + 1];
            col[j + 1] = -sn[j] * col[j] + cs[j] * col[j + 1];
            col[j] = t;
        }
        let d = col[k].hypot(col[k + 1]);
        k_done = k + 1;
        if d == 0.0 || !d.is_finite() {
            // A breakdown: the solution lies in the vectors so far.
            k_done = k;
            break;
        }
        cs[k] = col[k] / d;
        sn[k] = col[k + 1] / d;
        col[k] = d;
        col[k + 1] = 0.0;
        g[k + 1] = -sn[k] * g[k];
        g[k] *= cs[k];
        h.push(col);
        if g[k + 1].abs() <= tol * beta || hn == 0.0 {
            break;
        }
        v.push(w.iter().map(|e| e / hn).collect());
    }
    let mut y = vec![0.0; k_done];
    for i in (0..k_done).rev() {
        let s: f64 = (i + 1..k_done).map(|j| h[j][i] * y[j]).sum();
        y[i] = (g[i] - s) / h[i][i];
    }
    for (yj, zj) in y.iter().zip(&z) {
        for (xe, ze) in x.iter_mut().zip(zj) {
            *xe += yj * ze;
        }
    }
    let outcome = GmresOutcome {
        iterations: z.len(),
        relative_residual: g[k_done].abs() / beta,
    };
    (x, outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A random block matrix on a ring pattern (each row coupled to the
    /// rows 1 and 3 away), diagonally dominant.
    fn ring(n: usize, seed: u64) -> (Vec<Vec<usize>>, BlockSparse) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let rows: Vec<Vec<usize>> = (0..n)
            .map(|i| vec![(i + 1) % n, (i + n - 1) % n, (i + 3) % n])
            .collect();
        let mut a = BlockSparse::with_pattern(&rows);
        for i in 0..n {
            for p in a.start[i]..a.start[i + 1] {
                for e in 0..16 {
                    a.val[p][e] = rng.gen_range(-1.0..1.0);
                }
                if a.col[p] == i {
                    for c in 0..4 {
                        a.val[p][5 * c] += 12.0;
                    }
                }
            }
        }
        (rows, a)
    }

    #[test]
    fn inverse_of_a_block_times_the_block_is_the_identity() {
        let a: Block = [
            0.0, 2.0, 1.0, 0.5, 1.0, 0.0, 3.0, 1.0, 4.0, 1.0, 0.0, 2.0, 0.5, 0.25, 1.0, 3.0,
        ];
        let p = mul(&a, &inverse(&a).unwrap());
        for i in 0..4 {
            for j in 0..4 {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((p[4 * i + j] - want).abs() < 1e-14, "{p:?}");
            }
        }
        assert!(inverse(&[0.0; 16]).is_none());
    }

    #[test]
    fn colours_never_share_a_row() {
        let (rows, _) = ring(50, 1);
        let (colour, count) = column_colours(&rows);
        assert!((4..50).contains(&count), "{count}");
        for (i, r) in rows.iter().enumerate() {
            let mut seen: Vec<usize> = r.iter().chain([&i]).map(|&j| colour[j]).collect();
            seen.sort_unstable();
            let before = seen.len();
            seen.dedup();
            assert_eq!(seen.len(), before, "row {i}");
        }
    }

    #[test]
    fn ilu0_of_a_matrix_without_fill_solves_it_exactly() {
        // Block tridiagonal (a chain): ILU(0) has no fill to drop, so it is
        // the exact LU.
        let n: usize = 30;
        let rows: Vec<Vec<usize>> = (0..n)
            .map(|i| {
                [i.checked_sub(1), (i + 1 < n).then_some(i + 1)]
                    .into_iter()
                    .flatten()
                    .collect()
            })
            .collect();
        let mut a = BlockSparse::with_pattern(&rows);
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for v in &mut a.val {
            for e in v.iter_mut() {
                *e = rng.gen_range(-1.0..1.0);
            }
        }
        for i in 0..n {
            for c in 0..4 {
                a.val[a.diag[i]][5 * c] += 3.0;
            }
        }
        let x: Vec<f64> = (0..4 * n).map(|e| (e as f64).sin()).collect();
        let b = a.apply(&x);
        let mut f = a.clone();
        f.factorise_ilu0().unwrap();
        let y = f.solve_ilu0(&b);
        let err = x
            .iter()
            .zip(&y)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-12, "{err}");
    }

    #[test]
    fn sgs_factors_apply_the_inverse_of_the_symmetric_gauss_seidel_product() {
        let (_, a) = ring(30, 7);
        let n = a.rows();
        // (D + L) D^-1 (D + U) x, block by block from the unfactored matrix.
        let x: Vec<f64> = (0..4 * n)
            .map(|k| ((k * 37 % 11) as f64 - 5.0) / 3.0)
            .collect();
        let part = |lower: bool, v: &[f64]| {
            let mut y = vec![0.0; 4 * n];
            for i in 0..n {
                for p in a.start[i]..a.start[i + 1] {
                    let j = a.col[p];
                    if (lower && j < i) || (!lower && j > i) || j == i {
                        let t = mul_vec(&a.val[p], &v[4 * j..4 * j + 4]);
                        for c in 0..4 {
                            y[4 * i + c] += t[c];
                        }
                    }
                }
            }
            y
        };
        let du = part(false, &x);
        let mut mid = vec![0.0; 4 * n];
        for i in 0..n {
            let d = inverse(&a.val[a.diag[i]]).unwrap();
            mid[4 * i..4 * i + 4].copy_from_slice(&mul_vec(&d, &du[4 * i..4 * i + 4]));
        }
        let b = part(true, &mid);
        let mut f = a.clone();
        f.factorise_sgs().unwrap();
        let back = f.solve_ilu0(&b);
        let err = back
            .iter()
            .zip(&x)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-10, "{err}");
        // And it is not ILU(0) (the ring's matrix has fill).
        let mut g = a.clone();
        g.factorise_ilu0().unwrap();
        let other = g.solve_ilu0(&b);
        assert!(other.iter().zip(&x).any(|(p, q)| (p - q).abs() > 1e-6));
    }

    #[test]
    fn gmres_solves_to_its_tolerance_and_ilu_makes_it_shorter() {
        let (_, a) = ring(40, 3);
        let x: Vec<f64> = (0..160).map(|e| 1.0 + (e as f64 * 0.37).cos()).collect();
        let b = a.apply(&x);
        let (y, plain) = gmres(&b, 160, 1e-10, |v| a.apply(v), |v| v.to_vec());
        let err = x
            .iter()
            .zip(&y)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max);
        assert!(plain.relative_residual <= 1e-10, "{plain:?}");
        assert!(err < 1e-8, "{err}");
        let mut f = a.clone();
        f.factorise_ilu0().unwrap();
        let (y, pre) = gmres(&b, 160, 1e-10, |v| a.apply(v), |v| f.solve_ilu0(v));
        let err = x
            .iter()
            .zip(&y)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-8, "{err}");
        assert!(pre.iterations < plain.iterations, "{pre:?} {plain:?}");
        // The true residual is what GMRES reports.
        let r = a.apply(&y);
        let res: f64 = r
            .iter()
            .zip(&b)
            .map(|(p, q)| (p - q).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!((res / dot(&b, &b).sqrt() - pre.relative_residual).abs() < 1e-9);
        // A short cycle stops at its length with what it reached.
        let (_, short) = gmres(&b, 3, 1e-10, |v| a.apply(v), |v| v.to_vec());
        assert_eq!(short.iterations, 3);
        assert!(short.relative_residual > 1e-10 && short.relative_residual < 1.0);
    }

    #[test]
    fn gmres_without_a_usable_direction_says_so() {
        let b = vec![1.0, 2.0, 3.0, 4.0];
        // A zero right-hand side: the zero solution, exactly.
        let (x, o) = gmres(&[0.0; 4], 4, 1e-3, |v| v.to_vec(), |v| v.to_vec());
        assert_eq!((x, o.relative_residual), (vec![0.0; 4], 0.0));
        // A non-finite product: no direction, the residual untouched.
        let (x, o) = gmres(
            &b,
            4,
            1e-3,
            |v| v.iter().map(|_| f64::NAN).collect(),
            |v| v.to_vec(),
        );
        assert_eq!(x, vec![0.0; 4]);
        assert_eq!(o.relative_residual, 1.0);
    }
}
