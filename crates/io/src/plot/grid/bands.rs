//! The pixels of a grid field's picture: bands of the field bilinear between
//! cell centres, and iso-lines where neighbouring pixels differ.

use std::ops::Range;

use super::{GridField, ISO_LINE};
use crate::plot::field::viridis;
use crate::plot::Image;

/// Where `render_grid_field` put the field: its pixels, and the values at
/// the ends of the colour scale split into `levels` bands.
pub(super) struct GridFrame {
    pub(super) cols: Range<i32>,
    pub(super) rows: Range<i32>,
    pub(super) range: (f64, f64),
    pub(super) levels: usize,
}

impl GridFrame {
    /// The band of value `v` (which must be finite).
    pub(super) fn band(&self, v: f64) -> usize {
        let (lo, hi) = self.range;
        let k = ((v - lo) / (hi - lo) * self.levels as f64).floor();
        k.clamp(0.0, (self.levels - 1) as f64) as usize
    }

    /// The colour of band `k`: viridis at the band's middle.
    pub(super) fn colour(&self, k: usize) -> [u8; 3] {
        viridis((k as f64 + 0.5) / self.levels as f64)
    }

    /// The value at the lower edge of band `k` (`k = levels` for the top).
    pub(super) fn edge(&self, k: usize) -> f64 {
        let (lo, hi) = self.range;
        lo + (hi - lo) * k as f64 / self.levels as f64
    }
}

/// Colours the plot area of `image`: each pixel the band of the field at its
/// centre, dark where its right or lower neighbour is in another band.
pub(super) fn paint(image: &mut Image, field: &GridField, frame: &GridFrame) {
    let (ncols, nrows) = (frame.cols.len(), frame.rows.len());
    // Where each column and row falls between cell centres.
    let columns: Vec<Between> = (0..ncols)
        .map(|c| Between::new(field.nx, (c as f64 + 0.5) / ncols as f64))
        .collect();
    let rows: Vec<Between> = (0..nrows)
        .map(|r| Between::new(field.ny, 1.0 - (r as f64 + 0.5) / nrows as f64))
        .collect();
    const NONE: u16 = u16::MAX;
    let bands: Vec<u16> = rows
        .iter()
        .flat_map(|j| columns.iter().map(move |i| (i, j)))
        .map(|(i, j)| match sample(field, i, j) {
            v if v.is_finite() => frame.band(v) as u16,
            _ => NONE,
        })
        .collect();
    let colours: Vec<[u8; 3]> = (0..frame.levels).map(|k| frame.colour(k)).collect();
    let (width, x0) = (image.size.0 as usize, frame.cols.start as usize);
    for (r, py) in frame.rows.clone().enumerate() {
        let line = &mut image.buffer[3 * (py as usize * width + x0)..][..3 * ncols];
        for (c, pixel) in line.chunks_exact_mut(3).enumerate() {
            let k = bands[r * ncols + c];
            let differs = |n: u16| n != NONE && n != k;
            let edge = (c + 1 < ncols && differs(bands[r * ncols + c + 1]))
                || (r + 1 < nrows && differs(bands[(r + 1) * ncols + c]));
            let colour = match k {
                NONE => [255, 255, 255],
                _ if edge => ISO_LINE,
                _ => colours[k as usize],
            };
            pixel.copy_from_slice(&colour);
        }
    }
}

/// A point between the centres of cells `i0` and `i1` of a row of cells,
/// at fraction `t` of the way from `i0`'s to `i1`'s (clamped to the
/// outermost centres).
struct Between {
    i0: usize,
    i1: usize,
    t: f64,
}

impl Between {
    /// The point at fraction `f` of the length of a row of `n` cells.
    fn new(n: usize, f: f64) -> Self {
        let u = (f * n as f64 - 0.5).clamp(0.0, (n - 1) as f64);
        let i0 = (u.floor() as usize).min(n - 1);
        Between {
            i0,
            i1: (i0 + 1).min(n - 1),
            t: u - i0 as f64,
        }
    }

    /// The nearer cell.
    fn nearest(&self) -> usize {
        if self.t < 0.5 {
            self.i0
        } else {
            self.i1
        }
    }
}

/// The field at the point `(i, j)`: bilinear between the four cell centres
/// around it if they are all finite, else the nearest cell's value.
fn sample(field: &GridField, i: &Between, j: &Between) -> f64 {
    let v = |a: usize, b: usize| field.values[b * field.nx + a];
    let corners = [v(i.i0, j.i0), v(i.i1, j.i0), v(i.i0, j.i1), v(i.i1, j.i1)];
    if corners.iter().all(|c| c.is_finite()) {
        let bottom = corners[0] + i.t * (corners[1] - corners[0]);
        let top = corners[2] + i.t * (corners[3] - corners[2]);
        bottom + j.t * (top - bottom)
    } else {
        v(i.nearest(), j.nearest())
    }
}
