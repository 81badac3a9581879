//! A batch of neighbours: arrays of structs and a two-dimensional array of
//! reconstructed values, filled and reduced with nested loops.

use qflow_par_macros::device;

use super::Vec4;

/// Neighbours in a batch.
pub const BATCH: usize = 16;
/// Both sides of every neighbour.
const SIDES: usize = 2 * BATCH;

/// A neighbour's frame and state.
#[device]
#[derive(Clone, Copy, Debug, Default)]
pub struct Frame {
    pub nx: f64,
    pub ny: f64,
    pub w: Vec4,
}

#[device]
impl Frame {
    /// A frame of normal `(nx, ny)` and state `w`.
    pub fn new(nx: f64, ny: f64, w: Vec4) -> Frame {
        Frame { nx, ny, w }
    }

    /// Kinetic energy along the normal, weighted by component `j`.
    pub fn kinetic(&self, j: usize) -> f64 {
        let un = self.w[1] * self.nx + self.w[2] * self.ny;
        0.5 * self.w[j % 4] * un * un
    }

    /// The frame turned by a right angle.
    pub fn turned(self) -> Frame {
        Frame {
            nx: -self.ny,
            ny: self.nx,
            ..self
        }
    }
}

/// A batch: a frame per component and the reconstructed values `qt[c][m]`
/// of component `c` at neighbour `m`.
#[device]
#[derive(Clone, Copy, Debug, Default)]
pub struct Batch {
    pub frames: [Frame; 4],
    pub qt: [[f64; BATCH]; 4],
    pub sides: [f64; SIDES],
    pub n: usize,
}

#[device]
impl Batch {
    /// Sets neighbour `m`'s values from `x`.
    pub fn fill(&mut self, m: usize, x: f64) {
        for c in 0..4 {
            self.qt[c][m] = x * (c as f64 + 1.0) - m as f64;
            self.sides[2 * m + c % 2] += self.qt[c][m];
        }
        self.n = self.n.max(m + 1);
    }

    /// A weighted total over the batch.
    pub fn total(&self) -> f64 {
        let mut s = 0.0;
        for c in 0..4 {
            let fr = self.frames[c];
            for m in 0..self.n {
                s += self.qt[c][m] * fr.kinetic(m) + self.frames[c].turned().kinetic(c);
            }
        }
        let mut t = 0.0;
        for k in (0..SIDES).step_by(3) {
            t += self.sides[k];
        }
        s + t
    }
}

/// Fills a batch from `x` (as many neighbours as `count`, at most 16) and
/// reduces it.
#[device]
pub fn batch_run(x: &[f64; BATCH], count: u32, nx: f64, ny: f64) -> f64 {
    let mut bt = Batch::default();
    for c in 0..4 {
        let w = [x[c], x[c + 4], x[c + 8], x[c + 12]];
        bt.frames[c] = Frame::new(nx, ny, w);
        if c == 3 {
            bt.frames[c] = bt.frames[c].turned();
        }
    }
    let mut m = 0;
    while m < count as usize && m < BATCH {
        bt.fill(m, x[m]);
        m += 1;
    }
    bt.total()
}
