//! The cloud points near a window, bucketed for nearest-point look-ups.

use std::ops::Range;

use super::field::MachPoints;
use super::finite_range;

/// The cloud points in and near a window, in a uniform grid of buckets, for
/// nearest-point look-ups.
pub(super) struct NearestPoints {
    x0: f64,
    y0: f64,
    cell: f64,
    nx: usize,
    ny: usize,
    /// The points of bucket `k` are `points[start[k]..start[k + 1]]`;
    /// buckets go row by row from `(x0, y0)`.
    start: Vec<usize>,
    /// `(x, y, Mach)` of each point.
    points: Vec<(f64, f64, f64)>,
}

impl NearestPoints {
    /// The points of `field` within `margin` of the window `xs` x `ys`.
    /// Only those are stored, so a picture of a small window of a huge cloud
    /// costs one pass over the cloud and memory for the window's points.
    pub(super) fn new(field: &MachPoints, xs: &Range<f64>, ys: &Range<f64>, margin: f64) -> Self {
        let (x0, x1) = (xs.start - margin, xs.end + margin);
        let (y0, y1) = (ys.start - margin, ys.end + margin);
        let near = |i: usize| (x0..=x1).contains(&field.x[i]) && (y0..=y1).contains(&field.y[i]);
        let selected: Vec<usize> = (0..field.x.len()).filter(|&i| near(i)).collect();
        // About two points a bucket, were they spread evenly.
        let buckets = (selected.len() / 2).max(1) as f64;
        let cell = ((x1 - x0) * (y1 - y0) / buckets).sqrt();
        let nx = (((x1 - x0) / cell).ceil() as usize).max(1);
        let ny = (((y1 - y0) / cell).ceil() as usize).max(1);
        let mut grid = NearestPoints {
            x0,
            y0,
            cell,
            nx,
            ny,
            start: vec![0; nx * ny + 1],
            points: Vec::new(),
        };
        // Counting sort of the points into their buckets.
        let bucket_of: Vec<usize> = selected
            .iter()
            .map(|&i| {
                let (cx, cy) = grid.cell_of(field.x[i], field.y[i]);
                cy * nx + cx
            })
            .collect();
        for &b in &bucket_of {
            grid.start[b + 1] += 1;
        }
        for k in 0..nx * ny {
            grid.start[k + 1] += grid.start[k];
        }
        let mut next = grid.start.clone();
        grid.points = vec![(0.0, 0.0, 0.0); selected.len()];
        for (&i, &b) in selected.iter().zip(&bucket_of) {
            grid.points[next[b]] = (field.x[i], field.y[i], field.mach[i]);
            next[b] += 1;
        }
        grid
    }

    /// The bucket holding `(x, y)`, clamped to the grid.
    fn cell_of(&self, x: f64, y: f64) -> (usize, usize) {
        let cx = ((x - self.x0) / self.cell).max(0.0) as usize;
        let cy = ((y - self.y0) / self.cell).max(0.0) as usize;
        (cx.min(self.nx - 1), cy.min(self.ny - 1))
    }

    /// The least and greatest finite Mach number of the points in the window.
    pub(super) fn mach_range_within(&self, xs: &Range<f64>, ys: &Range<f64>) -> Option<(f64, f64)> {
        let inside = self
            .points
            .iter()
            .filter(|p| xs.contains(&p.0) && ys.contains(&p.1));
        finite_range(inside.map(|p| p.2))
    }

    /// The Mach number of the stored point nearest to `(x, y)`, if any.
    ///
    /// Searches square rings of buckets around the point's own, outwards,
    /// until the nearest point found is nearer than anything in the next ring
    /// can be, or the rings cover the grid.
    pub(super) fn nearest(&self, x: f64, y: f64) -> Option<f64> {
        let (cx, cy) = self.cell_of(x, y);
        let (cx, cy) = (cx as isize, cy as isize);
        let (nx, ny) = (self.nx as isize, self.ny as isize);
        let mut best = (f64::INFINITY, None);
        for r in 0isize.. {
            // Every point in ring r or beyond is at least (r - 1) cells away.
            let reach = (r - 1).max(0) as f64 * self.cell;
            if reach * reach >= best.0 {
                break;
            }
            for j in (cy - r).max(0)..=(cy + r).min(ny - 1) {
                let edge_row = (j - cy).abs() == r;
                let step = if edge_row { 1 } else { (2 * r).max(1) };
                let mut i = cx - r;
                while i <= cx + r {
                    if (0..nx).contains(&i) {
                        let k = (j * nx + i) as usize;
                        for &(px, py, m) in &self.points[self.start[k]..self.start[k + 1]] {
                            let d = (px - x) * (px - x) + (py - y) * (py - y);
                            if d < best.0 {
                                best = (d, Some(m));
                            }
                        }
                    }
                    i += step;
                }
            }
            if cx - r <= 0 && cy - r <= 0 && cx + r >= nx - 1 && cy + r >= ny - 1 {
                break;
            }
        }
        best.1
    }
}
