//! PNG plots: the convergence history, the surface pressure and a picture of
//! the Mach number field near the body.
//!
//! Plots are drawn with `plotters` into an RGB buffer in memory and encoded
//! as PNG into the final file atomically, like every other output. Text uses
//! DejaVu Sans, embedded in the binary (`assets/DejaVuSans.ttf`, Bitstream
//! Vera licence, in `assets/DejaVuSans-LICENSE.txt`), so plots need no system
//! fonts and look the same on every machine.
//!
//! Every function returns an error, and writes nothing, for data it cannot
//! plot: an empty history, a cloud without a body, no finite value, an empty
//! or non-finite window, an image too small for its labels or too large.

mod field;
mod history;
mod nearest;
mod surface;
#[cfg(test)]
mod testutil;
mod text;

use std::error::Error;
use std::path::{Path, PathBuf};

use ab_glyph::FontRef;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::OutputError;
use text::{font, PlotBackend, FONT};

pub use field::{plot_mach_field, plot_mach_points, MachPoints, Window};
pub use history::{plot_history, HistoryRow};
pub use surface::{plot_cp_rows, plot_surface_cp};

/// Size in pixels of [`plot_history`]'s image.
pub const HISTORY_SIZE: (u32, u32) = (1000, 800);

/// Size in pixels of [`plot_surface_cp`]'s image.
pub const SURFACE_CP_SIZE: (u32, u32) = (1000, 700);

/// The smallest image [`plot_mach_field`] draws: below it the labels do not
/// fit.
pub const MIN_SIZE: (u32, u32) = (320, 240);

/// The most pixels [`plot_mach_field`] draws (a 16k x 8k image; 400 MB of
/// RGB buffer).
pub const MAX_PIXELS: u64 = 1 << 27;

/// An error making a plot.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The image could not be written.
    #[error(transparent)]
    Write(#[from] OutputError),
    /// The data or the request cannot make a plot.
    #[error("{}: cannot plot: {message}", path.display())]
    Invalid {
        /// The plot's file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The drawing library failed.
    #[error("{}: drawing failed: {message}", path.display())]
    Draw {
        /// The plot's file.
        path: PathBuf,
        /// What the library said.
        message: String,
    },
}

/// Result of drawing with `plotters` (whose error types are generic over the
/// backend).
type Drawn = Result<(), Box<dyn Error>>;

/// The drawing area of a plot.
type Area<'a> = DrawingArea<PlotBackend<'a>, Shift>;

/// Draws the finite points of `points` joined by lines (a point next to no
/// other finite point as a dot), in `colour` with dots of radius `dot`.
fn draw_curve<X: Ranged<ValueType = XV>, XV: Clone + 'static>(
    chart: &mut ChartContext<PlotBackend, Cartesian2d<X, RangedCoordf64>>,
    points: impl Iterator<Item = (XV, f64)>,
    colour: RGBColor,
    dot: i32,
) -> Drawn {
    let points: Vec<(XV, f64)> = points.collect();
    for run in points.split(|p| !p.1.is_finite()) {
        if run.len() > 1 {
            chart.draw_series(LineSeries::new(run.iter().cloned(), colour.stroke_width(2)))?;
        }
        if run.len() == 1 || run.len() <= 200 {
            let dots = run
                .iter()
                .map(|p| Circle::new(p.clone(), dot, colour.filled()));
            chart.draw_series(dots)?;
        }
    }
    Ok(())
}

/// A plot being drawn: its file and its RGB pixels, white to start with.
struct Image {
    font: &'static FontRef<'static>,
    path: PathBuf,
    size: (u32, u32),
    buffer: Vec<u8>,
}

impl Image {
    fn new(path: &Path, size: (u32, u32)) -> Result<Self, PlotError> {
        let Some(font) = font() else {
            return Err(PlotError::Draw {
                path: path.to_path_buf(),
                message: "the embedded font could not be loaded".to_string(),
            });
        };
        Ok(Image {
            font,
            path: path.to_path_buf(),
            size,
            buffer: vec![255; 3 * size.0 as usize * size.1 as usize],
        })
    }

    /// Runs `f` on a drawing area over the whole image (what it draws goes
    /// straight into the buffer).
    fn draw<T>(
        &mut self,
        f: impl FnOnce(&Area) -> Result<T, Box<dyn Error>>,
    ) -> Result<T, PlotError> {
        let backend = PlotBackend {
            bitmap: BitMapBackend::with_buffer(&mut self.buffer, self.size),
            font: self.font,
        };
        let result = f(&backend.into_drawing_area());
        result.map_err(|e| PlotError::Draw {
            path: self.path.clone(),
            message: e.to_string(),
        })
    }

    /// Encodes the image as an 8-bit RGB PNG into its file, atomically.
    fn write_png(&self) -> Result<(), PlotError> {
        qflow_mesh::fsutil::write_atomically(&self.path, |w| {
            let mut encoder = png::Encoder::new(w, self.size.0, self.size.1);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header().map_err(std::io::Error::other)?;
            writer
                .write_image_data(&self.buffer)
                .map_err(std::io::Error::other)?;
            writer.finish().map_err(std::io::Error::other)
        })
        .map_err(OutputError::from)?;
        Ok(())
    }
}

/// The error for data or a request that cannot make a plot.
fn invalid(path: &Path, message: impl Into<String>) -> PlotError {
    PlotError::Invalid {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// The least and greatest finite value, if any.
fn finite_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.filter(|v| v.is_finite()).fold(None, |r, v| match r {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// `(lo, hi)` widened by 5% on each side, or by 0.5 (or 5% of the value)
/// each side when `lo == hi`, so that every value lies inside an axis of
/// non-zero length.
fn padded((lo, hi): (f64, f64)) -> (f64, f64) {
    let pad = if hi > lo {
        0.05 * (hi - lo)
    } else {
        (0.05 * lo.abs()).max(0.5)
    };
    (lo - pad, hi + pad)
}

/// A tick label: at most four decimals, without trailing zeros, and no
/// negative zero.
fn tick_label(v: f64) -> String {
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}
