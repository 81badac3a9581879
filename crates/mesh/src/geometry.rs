//! Geometry that does not change between iterations: boundary normals, split
//! stencils and `min_dist` (`LSKUM.md` section 2).

use crate::{Cloud, PointKind, NO_POINT};

/// Compressed rows of point indices: row `i` is `idx[start[i]..start[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Csr {
    /// Row offsets, one more than there are rows.
    pub start: Vec<u32>,
    /// Point indices (0-based), row after row.
    pub idx: Vec<u32>,
}

impl Csr {
    /// Row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> &[u32] {
        &self.idx[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    fn with_capacity(rows: usize, entries: usize) -> Self {
        let mut start = Vec::with_capacity(rows + 1);
        start.push(0);
        Csr {
            start,
            idx: Vec::with_capacity(entries),
        }
    }

    fn close_row(&mut self) {
        self.start.push(self.idx.len() as u32);
    }
}

/// The four split stencils of every point.
///
/// With `t = (ny, -nx)` the tangent, `ds = d.t` and `dn = d.n` for the offset
/// `d` from the point to a neighbour: `xpos` holds the neighbours with
/// `ds <= 0`, `xneg` those with `ds >= 0`, `ypos` those with `dn <= 0` and
/// `yneg` those with `dn >= 0`; at a wall point `yneg` is the whole stencil and
/// `ypos` is empty, at an outer point the reverse. Stencil order is kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SplitStencils {
    /// Neighbours behind along the tangent (`ds <= 0`).
    pub xpos: Csr,
    /// Neighbours ahead along the tangent (`ds >= 0`).
    pub xneg: Csr,
    /// Neighbours behind along the normal (`dn <= 0`).
    pub ypos: Csr,
    /// Neighbours ahead along the normal (`dn >= 0`).
    pub yneg: Csr,
}

/// The unit normal of point `i` from its boundary neighbours, as the reference
/// computes it: the average of the two chord directions, rotated and
/// normalised. `None` when a boundary neighbour is missing.
pub fn boundary_normal(cloud: &Cloud, i: usize) -> Option<(f64, f64)> {
    let (l, r) = (cloud.left[i], cloud.right[i]);
    if l == NO_POINT || r == NO_POINT {
        return None;
    }
    let (mx, my) = (cloud.x[i], cloud.y[i]);
    let (lx, ly) = (cloud.x[l as usize], cloud.y[l as usize]);
    let (rx, ry) = (cloud.x[r as usize], cloud.y[r as usize]);
    // Written as the reference writes it (average of the two chords) so that
    // the normals agree to the last bit.
    let nx = 0.5 * ((my - ly) + (ry - my));
    let ny = 0.5 * ((mx - lx) + (rx - mx));
    let det = nx.hypot(ny);
    Some((-nx / det, ny / det))
}

/// Normals of every point: from the boundary neighbours at wall and outer
/// points (pointing into the fluid at a wall, outwards at the far field for
/// the usual orientation of the boundary curves), `(0, 1)` at interior
/// points. A boundary point without valid neighbours gets NaN, which
/// [`crate::check`] reports and the solver refuses.
pub fn boundary_normals(cloud: &Cloud) -> (Vec<f64>, Vec<f64>) {
    let n = cloud.len();
    let mut nx = Vec::with_capacity(n);
    let mut ny = Vec::with_capacity(n);
    for i in 0..n {
        let (a, b) = if cloud.kind[i] == PointKind::Interior {
            (0.0, 1.0)
        } else {
            boundary_normal(cloud, i).unwrap_or((f64::NAN, f64::NAN))
        };
        nx.push(a);
        ny.push(b);
    }
    (nx, ny)
}

/// The split stencils of every point for the given normals.
pub fn split_stencils(cloud: &Cloud, nx: &[f64], ny: &[f64]) -> SplitStencils {
    let n = cloud.len();
    let e = cloud.nbr.len();
    let mut s = SplitStencils {
        xpos: Csr::with_capacity(n, e),
        xneg: Csr::with_capacity(n, e),
        ypos: Csr::with_capacity(n, e),
        yneg: Csr::with_capacity(n, e),
    };
    for i in 0..n {
        let (xi, yi) = (cloud.x[i], cloud.y[i]);
        let (tx, ty) = (ny[i], -nx[i]);
        for &k in cloud.neighbours(i) {
            let dx = cloud.x[k as usize] - xi;
            let dy = cloud.y[k as usize] - yi;
            let ds = dx * tx + dy * ty;
            let dn = dx * nx[i] + dy * ny[i];
            if ds <= 0.0 {
                s.xpos.idx.push(k);
            }
            if ds >= 0.0 {
                s.xneg.idx.push(k);
            }
            match cloud.kind[i] {
                PointKind::Interior => {
                    if dn <= 0.0 {
                        s.ypos.idx.push(k);
                    }
                    if dn >= 0.0 {
                        s.yneg.idx.push(k);
                    }
                }
                PointKind::Wall => s.yneg.idx.push(k),
                PointKind::Outer => s.ypos.idx.push(k),
            }
        }
        s.xpos.close_row();
        s.xneg.close_row();
        s.ypos.close_row();
        s.yneg.close_row();
    }
    s
}

/// The smallest distance from each point to any of its neighbours
/// (infinity for a point without neighbours).
pub fn min_neighbour_distance(cloud: &Cloud) -> Vec<f64> {
    (0..cloud.len())
        .map(|i| {
            cloud
                .neighbours(i)
                .iter()
                .map(|&k| {
                    (cloud.x[k as usize] - cloud.x[i]).hypot(cloud.y[k as usize] - cloud.y[i])
                })
                .fold(f64::INFINITY, f64::min)
        })
        .collect()
}

/// The least-squares moments of a stencil in a frame: sums of `w a^2`,
/// `w b^2`, `w a b` over the stencil's offsets `(a, b)` and their determinant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Moments {
    /// Sum of `w a^2`.
    pub saa: f64,
    /// Sum of `w b^2`.
    pub sbb: f64,
    /// Sum of `w a b`.
    pub sab: f64,
}

impl Moments {
    /// `saa sbb - sab^2`.
    pub fn det(&self) -> f64 {
        self.saa * self.sbb - self.sab * self.sab
    }

    /// Whether the least-squares system is singular to working precision:
    /// the determinant is not positive or is below `1e-12` of `saa sbb` (the
    /// offsets are collinear, or there are fewer than two).
    pub fn is_singular(&self) -> bool {
        let d = self.det();
        !d.is_finite() || d <= 1e-12 * self.saa * self.sbb
    }

    /// The condition number of the 2 x 2 least-squares matrix (the ratio
    /// of its eigenvalues): large when the neighbours spread far more in
    /// one direction than the other, or nearly lie on a line. Infinite
    /// when singular.
    pub fn condition(&self) -> f64 {
        let tr = self.saa + self.sbb;
        let disc = ((self.saa - self.sbb).powi(2) + 4.0 * self.sab * self.sab).sqrt();
        // The small eigenvalue as det / large one (no cancellation).
        let hi = 0.5 * (tr + disc);
        let lo = self.det() / hi;
        if lo > 0.0 {
            hi / lo
        } else {
            f64::INFINITY
        }
    }
}

/// Least-squares moments of `stencil` around point `i`, in the point's s-n
/// frame when `frame` is `Some((nx, ny))`, in global x-y otherwise, with unit
/// weights (power 0).
pub fn moments(cloud: &Cloud, i: usize, stencil: &[u32], frame: Option<(f64, f64)>) -> Moments {
    let mut m = Moments {
        saa: 0.0,
        sbb: 0.0,
        sab: 0.0,
    };
    for &k in stencil {
        let dx = cloud.x[k as usize] - cloud.x[i];
        let dy = cloud.y[k as usize] - cloud.y[i];
        let (a, b) = match frame {
            Some((nx, ny)) => (dx * ny - dy * nx, dx * nx + dy * ny),
            None => (dx, dy),
        };
        m.saa += a * a;
        m.sbb += b * b;
        m.sab += a * b;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit circle of 8 wall points around an interior centre point.
    fn ring() -> Cloud {
        let m = 8;
        let mut c = Cloud::default();
        for j in 0..m {
            let t = std::f64::consts::TAU * j as f64 / m as f64;
            c.x.push(t.cos());
            c.y.push(t.sin()); // counter-clockwise: the normals point to the centre, where the fluid is
            c.kind.push(PointKind::Wall);
            c.left.push(((j + m - 1) % m) as u32);
            c.right.push(((j + 1) % m) as u32);
            c.shape.push(1);
        }
        c.x.push(0.0);
        c.y.push(0.0);
        c.kind.push(PointKind::Interior);
        c.left.push(NO_POINT);
        c.right.push(NO_POINT);
        c.shape.push(0);
        c.nbr_start.push(0);
        for j in 0..m {
            c.nbr
                .extend([((j + m - 1) % m) as u32, ((j + 1) % m) as u32, m as u32]);
            c.nbr_start.push(c.nbr.len() as u32);
        }
        c.nbr.extend(0..m as u32);
        c.nbr_start.push(c.nbr.len() as u32);
        c.min_dist = min_neighbour_distance(&c);
        c.validate_structure().unwrap();
        c
    }

    #[test]
    fn normals_are_unit_and_point_to_the_centre() {
        let c = ring();
        let (nx, ny) = boundary_normals(&c);
        for j in 0..8 {
            assert!((nx[j].hypot(ny[j]) - 1.0).abs() < 1e-15);
            // inward: n . (centre - p) > 0
            assert!(nx[j] * -c.x[j] + ny[j] * -c.y[j] > 0.99);
        }
        assert_eq!((nx[8], ny[8]), (0.0, 1.0));
    }

    #[test]
    fn split_stencils_follow_the_sign_rules() {
        let c = ring();
        let (nx, ny) = boundary_normals(&c);
        let s = split_stencils(&c, &nx, &ny);
        for j in 0..8 {
            // wall: yneg is the whole stencil, ypos empty
            assert_eq!(s.yneg.row(j), c.neighbours(j));
            assert!(s.ypos.row(j).is_empty());
            // the two ring neighbours lie on opposite sides along the tangent;
            // the centre has ds == 0 up to round-off and lands in one or both
            assert!(s.xpos.row(j).contains(&(((j + 7) % 8) as u32)));
            assert!(s.xneg.row(j).contains(&(((j + 1) % 8) as u32)));
            assert!(s.xpos.row(j).len() + s.xneg.row(j).len() >= 3);
        }
        // interior centre: every neighbour is in exactly one of xpos/xneg
        // unless ds == 0 (two of the eight have dx == 0 ... up to round-off)
        let centre = 8;
        let total = s.xpos.row(centre).len() + s.xneg.row(centre).len();
        assert!(total >= 8);
        for &k in s.ypos.row(centre) {
            assert!(c.y[k as usize] <= 0.0);
        }
        for &k in s.yneg.row(centre) {
            assert!(c.y[k as usize] >= 0.0);
        }
    }

    #[test]
    fn collinear_stencils_are_singular() {
        let c = ring();
        let m = moments(&c, 0, &[8], None);
        assert!(m.is_singular());
        let m = moments(&c, 8, c.neighbours(8), None);
        assert!(!m.is_singular());
    }
}
