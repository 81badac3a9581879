//! PNG plots: the convergence history, the surface pressure, a picture of
//! the Mach number field near the body, filled contours of a field on a
//! structured grid and line plots of several series.
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
mod grid;
mod history;
mod lines;
mod nearest;
mod surface;
#[cfg(test)]
mod testutil;
mod text;

use std::error::Error;
use std::path::{Path, PathBuf};

use ab_glyph::FontRef;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::OutputError;
use text::{font, PlotBackend, FONT};

pub use field::{plot_mach_field, plot_mach_points, MachPoints, Window};
pub use grid::{plot_grid_field, GridField};
pub use history::{plot_history, HistoryRow};
pub use lines::{plot_lines, LinePlot, Series, Style};
pub use surface::{plot_cp_rows, plot_surface_cp};

/// Size in pixels of [`plot_history`]'s image.
pub const HISTORY_SIZE: (u32, u32) = (1000, 800);

/// Size in pixels of [`plot_surface_cp`]'s image.
pub const SURFACE_CP_SIZE: (u32, u32) = (1000, 700);

/// The smallest image [`plot_mach_field`], [`plot_grid_field`] and
/// [`plot_lines`] draw: below it the labels do not fit.
pub const MIN_SIZE: (u32, u32) = (320, 240);

/// The most pixels [`plot_mach_field`], [`plot_grid_field`] and
/// [`plot_lines`] draw (a 16k x 8k image; 400 MB of RGB buffer).
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

/// A linear axis with its ticks at given values. (Plotters' own
/// `with_key_points` gives an f64 axis that `configure_mesh` refuses.)
struct Ticked {
    axis: RangedCoordf64,
    ticks: Vec<f64>,
}

impl Ticked {
    /// The axis from `lo` to `hi` with ticks at `ticks`.
    fn new((lo, hi): (f64, f64), ticks: Vec<f64>) -> Self {
        Ticked {
            axis: (lo..hi).into(),
            ticks,
        }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.axis.map(value, limit)
    }

    /// The ticks, and no light mesh lines.
    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.axis.range()
    }
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

/// The error for an image smaller than [`MIN_SIZE`] or larger than
/// [`MAX_PIXELS`].
fn check_size(path: &Path, (w, h): (u32, u32)) -> Result<(), PlotError> {
    if w < MIN_SIZE.0 || h < MIN_SIZE.1 || u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(invalid(
            path,
            format!(
                "image size {w} x {h}: must be at least {} x {} and at most {MAX_PIXELS} pixels",
                MIN_SIZE.0, MIN_SIZE.1
            ),
        ));
    }
    Ok(())
}

/// How much text grows with an image of `size` pixels: 1 at 1000 x 750,
/// between 0.5 and 4, so labels stay readable on large images.
fn text_scale((w, h): (u32, u32)) -> f64 {
    (f64::from(w) / 1000.0)
        .min(f64::from(h) / 750.0)
        .clamp(0.5, 4.0)
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

/// `v` to the digit of `resolution` (the smallest difference the label must
/// show), without trailing zeros and with no negative zero; in scientific
/// notation (`1.5e-5`) when `|v|` is at least a million or below 0.001.
fn number_label(v: f64, resolution: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    let digit = |x: f64| x.abs().log10().floor() as i32;
    let unit = if resolution.is_finite() && resolution > 0.0 {
        digit(resolution)
    } else if v != 0.0 {
        digit(v) - 3
    } else {
        0
    };
    if v.abs() < 0.5 * 10f64.powi(unit) {
        return "0".to_string();
    }
    let trim = |s: &str| s.trim_end_matches('0').trim_end_matches('.').to_string();
    let magnitude = digit(v);
    if !(-3..6).contains(&magnitude) {
        let precision = (magnitude - unit).clamp(0, 15) as usize;
        let s = format!("{v:.precision$e}");
        let (mantissa, exponent) = s.split_once('e').unwrap_or((&s, "0"));
        let mantissa = if precision > 0 {
            trim(mantissa)
        } else {
            mantissa.to_string()
        };
        return format!("{mantissa}e{exponent}");
    }
    let decimals = (-unit).clamp(0, 15) as usize;
    let s = format!("{v:.decimals$}");
    let s = if decimals > 0 { trim(&s) } else { s };
    if s == "-0" {
        "0".to_string()
    } else {
        s
    }
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
