//! Kernels over neighbourhoods: a point's neighbours through a
//! compressed-row map (`Star`), a structured block's through offsets
//! (`Offsets`).

use qflow_par_macros::device;

use super::{Offsets, Star, Vec4};

/// The largest increase and decrease of each component towards the
/// neighbours, written to `hi` and `lo`; the number of neighbours.
#[device]
pub fn star_bounds(s: Star<'_, [f64; 4]>, hi: &mut Vec4, lo: &mut [f64; 4]) -> usize {
    let own = s.own();
    *hi = own;
    *lo = own;
    if s.is_empty() {
        return 0;
    }
    for m in 0..s.len() {
        let v = s.nbr(m);
        for c in 0..4 {
            hi[c] = hi[c].max(v[c]);
            lo[c] = lo[c].min(v[c]);
        }
    }
    s.len()
}

/// The five-point Laplacian at a cell, and the largest neighbour.
#[device]
pub fn laplace(o: Offsets<'_, f64>, h: f64) -> (f64, f64) {
    let c = o.at(0, 0, 0);
    let mut big = c;
    let mut sum = 0.0;
    for d in 0..4 {
        let (dx, dy) = if d < 2 {
            (2 * d - 1, 0)
        } else {
            (0, 2 * d - 5)
        };
        let v = o.at(dx, dy, 0);
        sum += v;
        if v > big {
            big = v;
        }
    }
    ((sum - 4.0 * c) / (h * h), big)
}
