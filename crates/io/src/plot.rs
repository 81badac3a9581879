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

use std::error::Error;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, PxScaleFont, ScaleFont};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontStyle;
use plotters_backend::{BackendColor, BackendCoord, BackendTextStyle, DrawingErrorKind};
use qflow_mesh::{Cloud, CloudError};
use qflow_lskum::gas::{FreeStream, GAMMA};
use qflow_lskum::Vec4;

use crate::history::HistoryRow;
use crate::surface::{body_outlines, surface_rows, SurfaceRow};

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

/// The font, embedded so that no system font is needed.
static FONT_FILE: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// The family name the font is registered under with `plotters`.
const FONT: &str = "sans-serif";

/// An error making a plot.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The image could not be written (or the surface rows not made).
    #[error(transparent)]
    Write(#[from] CloudError),
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

/// The region of the flow shown by [`plot_mach_field`], in the cloud's
/// coordinates (chords).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// Left edge.
    pub x_min: f64,
    /// Right edge.
    pub x_max: f64,
    /// Bottom edge.
    pub y_min: f64,
    /// Top edge.
    pub y_max: f64,
}

impl Default for Window {
    /// Half a chord around a unit-chord section from `(0, 0)` to `(1, 0)`:
    /// x in `[-0.5, 1.5]`, y in `[-0.75, 0.75]`.
    fn default() -> Self {
        Window {
            x_min: -0.5,
            x_max: 1.5,
            y_min: -0.75,
            y_max: 0.75,
        }
    }
}

/// Result of drawing with `plotters` (whose error types are generic over the
/// backend).
type Drawn = Result<(), Box<dyn Error>>;

/// The drawing area of a plot.
type Area<'a> = DrawingArea<PlotBackend<'a>, Shift>;

/// Plots the convergence history: log10 of the residue (relative to
/// iteration 2, as `history.csv` has it) against the iteration in the upper
/// panel, Cl in the lower, [`HISTORY_SIZE`] pixels. Non-finite values are left
/// out (the line breaks there).
pub fn plot_history(path: &Path, rows: &[HistoryRow]) -> Result<(), PlotError> {
    if rows.is_empty() {
        return Err(invalid(path, "the history has no rows"));
    }
    // Iterations are drawn on a real axis: plotters 0.3.7 loops forever
    // computing the light mesh lines of an integer axis when they are turned
    // off.
    let residue: Vec<(f64, f64)> = rows
        .iter()
        .map(|r| (r.report.iteration as f64, r.report.log_residue))
        .collect();
    let cl: Vec<(f64, f64)> = rows
        .iter()
        .map(|r| (r.report.iteration as f64, r.report.coefficients.cl))
        .collect();
    if !residue.iter().chain(&cl).any(|p| p.1.is_finite()) {
        return Err(invalid(path, "no finite residue or Cl in the history"));
    }
    let first = rows.iter().map(|r| r.report.iteration).min().unwrap_or(0);
    let last = rows.iter().map(|r| r.report.iteration).max().unwrap_or(0);
    let iterations = if first == last {
        first.saturating_sub(1)..last + 1
    } else {
        first..last
    };
    let mut image = Image::new(path, HISTORY_SIZE)?;
    image.draw(|root| {
        root.fill(&WHITE)?;
        let root = root.titled("Convergence history", (FONT, 30))?;
        let (top, bottom) = root.split_vertically(root.dim_in_pixel().1 / 2);
        let residue_desc = "log10(residue / residue at iteration 2)";
        history_panel(&top, iterations.clone(), &residue, residue_desc, None, BLUE)?;
        history_panel(&bottom, iterations, &cl, "Cl", Some("iteration"), RED)
    })?;
    image.write_png()
}

/// One panel of [`plot_history`]: `points` against the iteration.
fn history_panel(
    area: &Area,
    iterations: Range<u64>,
    points: &[(f64, f64)],
    y_desc: &str,
    x_desc: Option<&str>,
    colour: RGBColor,
) -> Drawn {
    let range = finite_range(points.iter().map(|p| p.1));
    let (lo, hi) = padded(range.unwrap_or((-1.0, 1.0)));
    let mut chart = ChartBuilder::on(area)
        .margin_top(10)
        .margin_right(30)
        .margin_bottom(5)
        .x_label_area_size(55)
        .y_label_area_size(95)
        .build_cartesian_2d(iterations.start as f64..iterations.end as f64, lo..hi)?;
    let mut mesh = chart.configure_mesh();
    mesh.max_light_lines(0)
        .bold_line_style(BLACK.mix(0.12))
        .y_desc(y_desc)
        .x_label_formatter(&|v| {
            if v.fract() == 0.0 {
                format!("{v:.0}")
            } else {
                String::new()
            }
        })
        .label_style((FONT, 18))
        .axis_desc_style((FONT, 20))
        .y_label_formatter(&|v| tick_label(*v));
    if let Some(x_desc) = x_desc {
        mesh.x_desc(x_desc);
    }
    mesh.draw()?;
    if range.is_none() {
        chart.draw_series(std::iter::once(Text::new(
            "no finite value",
            (chart.x_range().start, 0.0),
            (FONT, 20),
        )))?;
    }
    draw_curve(&mut chart, points.iter().copied(), colour, 4)
}

/// Plots the surface pressure coefficient of every body against x/c, with the
/// Cp axis pointing down (suction, negative Cp, up: the aerodynamicist's
/// convention), the upper and lower surfaces in different colours, and the
/// sonic value Cp* as a dashed line when it falls within the plot;
/// [`SURFACE_CP_SIZE`] pixels. The surfaces are split at each body's point of
/// least x; the one with the larger mean y is the upper surface.
pub fn plot_surface_cp(
    path: &Path,
    cloud: &Cloud,
    prim: &[Vec4],
    fs: &FreeStream,
) -> Result<(), PlotError> {
    let rows = surface_rows(cloud, prim, fs)?;
    let Some((lo, hi)) = finite_range(rows.iter().map(|r| r.cp)) else {
        return Err(invalid(
            path,
            if rows.is_empty() {
                "the cloud has no body (no point with a shape id)"
            } else {
                "no finite Cp on the surface"
            },
        ));
    };
    let (lo, hi) = padded((lo, hi));
    let bodies: Vec<&[SurfaceRow]> = rows.chunk_by(|a, b| a.shape == b.shape).collect();
    let cp_star = sonic_cp(fs.mach);
    let mut image = Image::new(path, SURFACE_CP_SIZE)?;
    image.draw(|root| {
        root.fill(&WHITE)?;
        let title = format!(
            "Surface pressure, M = {:.3}, \u{3b1} = {:.2}\u{b0}",
            fs.mach,
            fs.theta.to_degrees()
        );
        let mut chart = ChartBuilder::on(root)
            .caption(title, (FONT, 28))
            .margin(15)
            .margin_right(30)
            .x_label_area_size(55)
            .y_label_area_size(75)
            // Cp from `hi` at the bottom to `lo` at the top.
            .build_cartesian_2d(-0.02..1.02, hi..lo)?;
        chart
            .configure_mesh()
            .max_light_lines(0)
            .bold_line_style(BLACK.mix(0.12))
            .x_desc("x/c")
            .y_desc("Cp")
            .label_style((FONT, 18))
            .axis_desc_style((FONT, 22))
            .x_label_formatter(&|v| tick_label(*v))
            .y_label_formatter(&|v| tick_label(*v))
            .draw()?;
        chart.draw_series(LineSeries::new([(-0.02, 0.0), (1.02, 0.0)], BLACK.mix(0.6)))?;
        if let Some(c) = cp_star.filter(|c| (lo..=hi).contains(c)) {
            let dashes = (0..52).map(|k| {
                let x = -0.02 + 0.02 * k as f64;
                PathElement::new([(x, c), (x + 0.012, c)], BLACK)
            });
            chart
                .draw_series(dashes)?
                .label(format!("sonic Cp* = {c:.3}"))
                .legend(|(x, y)| {
                    EmptyElement::at((x + 11, y))
                        + PathElement::new([(-11, 0), (-3, 0)], BLACK)
                        + PathElement::new([(3, 0), (11, 0)], BLACK)
                });
        }
        let several = bodies.len() > 1;
        for body in &bodies {
            let (upper, lower) = split_surfaces(body);
            let name = |side: &str| {
                if several {
                    format!("body {}, {side} surface", body[0].shape)
                } else {
                    format!("{side} surface")
                }
            };
            for (side, points, colour) in [("upper", upper, BLUE), ("lower", lower, RED)] {
                if points.is_empty() {
                    continue;
                }
                let points = points.iter().map(|r| (r.x_over_c, r.cp));
                draw_curve(&mut chart, points, colour, 3)?;
                chart
                    .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
                    .label(name(side))
                    .legend(move |(x, y)| {
                        EmptyElement::at((x + 11, y))
                            + PathElement::new([(-11, 0), (11, 0)], colour.stroke_width(2))
                            + Circle::new((0, 0), 3, colour.filled())
                    });
            }
        }
        chart
            .configure_series_labels()
            // Where aerofoil Cp curves rarely are: behind a suction peak.
            .position(SeriesLabelPosition::UpperRight)
            .label_font((FONT, 18))
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK.mix(0.5))
            .draw()?;
        Ok(())
    })?;
    image.write_png()
}

/// The rows of one body split at its point of least x into (upper, lower)
/// surface, each in surface order and both with the leading and trailing
/// edge points, so each curve runs from edge to edge.
fn split_surfaces(body: &[SurfaceRow]) -> (Vec<SurfaceRow>, Vec<SurfaceRow>) {
    let Some(le) = (0..body.len()).min_by(|&a, &b| body[a].x.total_cmp(&body[b].x)) else {
        return (Vec::new(), Vec::new());
    };
    let first: Vec<SurfaceRow> = body[..=le].to_vec();
    let mut second: Vec<SurfaceRow> = body[le..].to_vec();
    if le > 0 {
        second.push(body[0]);
    }
    let mean_y = |rows: &[SurfaceRow]| rows.iter().map(|r| r.y).sum::<f64>() / rows.len() as f64;
    if mean_y(&first) > mean_y(&second) {
        (first, second)
    } else {
        (second, first)
    }
}

/// The pressure coefficient at which the flow is sonic (isentropic), for a
/// free-stream Mach number `mach > 0`.
fn sonic_cp(mach: f64) -> Option<f64> {
    if !(mach > 0.0 && mach.is_finite()) {
        return None;
    }
    let m2 = mach * mach;
    let ratio = (2.0 + (GAMMA - 1.0) * m2) / (GAMMA + 1.0);
    Some(2.0 / (GAMMA * m2) * (ratio.powf(GAMMA / (GAMMA - 1.0)) - 1.0))
}

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

/// Paints a picture of the Mach number field in `window` (default
/// [`Window::default`]), `size` pixels wide and high including the axes, the
/// title and the colour bar. The window is widened in x or y so that both
/// axes have the same scale (the requested window is always shown whole).
///
/// Each pixel takes the Mach number of the cloud point nearest to its centre
/// (only points within a margin of a tenth of the window around it are
/// searched; a pixel with none, or with a non-finite value, stays white),
/// coloured on the viridis scale from the least to the greatest Mach number
/// of the points in the window; pixels inside a body (the polygon of its
/// ordered surface points, see [`body_outlines`]) are grey.
pub fn plot_mach_field(
    path: &Path,
    cloud: &Cloud,
    prim: &[Vec4],
    window: Option<Window>,
    size: (u32, u32),
) -> Result<(), PlotError> {
    render_mach_field(path, cloud, prim, window, size)?
        .0
        .write_png()
}

/// Where [`render_mach_field`] put the field: its pixels, the (widened)
/// window they show, the size of a pixel, and the Mach numbers at the ends
/// of the colour scale.
struct FieldFrame {
    cols: Range<i32>,
    rows: Range<i32>,
    xs: Range<f64>,
    ys: Range<f64>,
    scale: f64,
    mach: (f64, f64),
}

impl FieldFrame {
    /// The centre of pixel `c` of row `r` of the field (rows from the top).
    fn centre(&self, c: usize, r: usize) -> (f64, f64) {
        (
            self.xs.start + (c as f64 + 0.5) * self.scale,
            self.ys.end - (r as f64 + 0.5) * self.scale,
        )
    }

    /// The pixel (in the whole image) whose square holds `(x, y)`.
    #[cfg(test)]
    fn pixel_of(&self, x: f64, y: f64) -> (usize, usize) {
        let c = ((x - self.xs.start) / self.scale).floor() as usize;
        let r = ((self.ys.end - y) / self.scale).floor() as usize;
        (self.cols.start as usize + c, self.rows.start as usize + r)
    }

    /// The colour of Mach number `m`.
    fn colour(&self, m: f64) -> [u8; 3] {
        viridis((m - self.mach.0) / (self.mach.1 - self.mach.0))
    }
}

/// The image of [`plot_mach_field`], and where the field is in it.
fn render_mach_field(
    path: &Path,
    cloud: &Cloud,
    prim: &[Vec4],
    window: Option<Window>,
    size: (u32, u32),
) -> Result<(Image, FieldFrame), PlotError> {
    let window = window.unwrap_or_default();
    let (w, h) = size;
    if w < MIN_SIZE.0 || h < MIN_SIZE.1 || u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(invalid(
            path,
            format!(
                "image size {w} x {h}: must be at least {} x {} and at most {MAX_PIXELS} pixels",
                MIN_SIZE.0, MIN_SIZE.1
            ),
        ));
    }
    let Window {
        x_min,
        x_max,
        y_min,
        y_max,
    } = window;
    if ![x_min, x_max, y_min, y_max].iter().all(|v| v.is_finite())
        || x_max <= x_min
        || y_max <= y_min
    {
        return Err(invalid(
            path,
            format!(
                "window x in [{x_min}, {x_max}], y in [{y_min}, {y_max}] is empty or not finite"
            ),
        ));
    }
    if prim.len() != cloud.len() {
        return Err(invalid(
            path,
            format!("{} states for {} points", prim.len(), cloud.len()),
        ));
    }

    // Sizes scale with the image, so labels stay readable on large images.
    let s = (f64::from(w) / 1000.0)
        .min(f64::from(h) / 750.0)
        .clamp(0.5, 4.0);
    let px = |v: f64| (v * s).round() as u32;
    let layout = MachLayout {
        title: px(34.0),
        margin: px(12.0),
        x_labels: px(55.0),
        y_labels: px(70.0),
        bar_width: px(150.0),
        label_font: px(18.0),
        desc_font: px(22.0),
    };
    let mut image = Image::new(path, size)?;
    // The pixels of the field: the layout does not depend on the ranges.
    let (cols, rows) = image.draw(|root| {
        let (_, field_area, _) = layout.split(root);
        let chart = layout
            .field_chart(&field_area)
            .build_cartesian_2d(0.0..1.0, 0.0..1.0)?;
        Ok(chart.plotting_area().get_pixel_range())
    })?;
    let (pw, ph) = (cols.len() as f64, rows.len() as f64);
    if pw < 1.0 || ph < 1.0 {
        return Err(invalid(path, "the image leaves no room for the field"));
    }
    // Widen the window to the field's aspect ratio.
    let (cx, cy) = (0.5 * (x_min + x_max), 0.5 * (y_min + y_max));
    let scale = ((x_max - x_min) / pw).max((y_max - y_min) / ph);
    let xs = (cx - 0.5 * scale * pw)..(cx + 0.5 * scale * pw);
    let ys = (cy - 0.5 * scale * ph)..(cy + 0.5 * scale * ph);

    let margin = 0.1 * (xs.end - xs.start).max(ys.end - ys.start);
    let field = NearestPoints::new(cloud, prim, &xs, &ys, margin);
    let Some((lo, hi)) = field.mach_range_within(&xs, &ys) else {
        return Err(invalid(
            path,
            "no point of the cloud with a finite Mach number lies in the window",
        ));
    };
    let frame = FieldFrame {
        cols,
        rows,
        xs,
        ys,
        scale,
        mach: if hi > lo {
            (lo, hi)
        } else {
            (lo - 0.05, hi + 0.05)
        },
    };

    // The field, row by row from the top, at the pixel centres.
    let inside = body_mask(cloud, &frame);
    let (width, x0, ncols) = (w as usize, frame.cols.start as usize, frame.cols.len());
    for (r, py) in frame.rows.clone().enumerate() {
        let line = &mut image.buffer[3 * (py as usize * width + x0)..][..3 * ncols];
        for (c, pixel) in line.chunks_exact_mut(3).enumerate() {
            let colour = if inside[r * ncols + c] {
                BODY_GREY
            } else {
                let (x, y) = frame.centre(c, r);
                match field.nearest(x, y) {
                    Some(m) if m.is_finite() => frame.colour(m),
                    _ => [255, 255, 255],
                }
            };
            pixel.copy_from_slice(&colour);
        }
    }

    // Axes, title and colour bar on top of the field.
    image.draw(|root| {
        let (title_area, field_area, bar_area) = layout.split(root);
        let (tw, th) = title_area.dim_in_pixel();
        let title = TextStyle::from((FONT, layout.title).into_font())
            .pos(Pos::new(HPos::Center, VPos::Center));
        title_area.draw_text("Mach number", &title, (tw as i32 / 2, th as i32 / 2))?;
        let mut chart = layout
            .field_chart(&field_area)
            .build_cartesian_2d(frame.xs.clone(), frame.ys.clone())?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("x")
            .y_desc("y")
            .label_style((FONT, layout.label_font))
            .axis_desc_style((FONT, layout.desc_font))
            .x_label_formatter(&|v| tick_label(*v))
            .y_label_formatter(&|v| tick_label(*v))
            .draw()?;
        let mut bar = ChartBuilder::on(&bar_area)
            .margin_top(layout.margin)
            .margin_bottom(layout.margin)
            .margin_left(layout.margin * 2)
            .x_label_area_size(layout.x_labels)
            .right_y_label_area_size(layout.bar_width / 2)
            .build_cartesian_2d(0.0..1.0, frame.mach.0..frame.mach.1)?;
        let (lo, hi) = frame.mach;
        let steps = 256;
        let band = (0..steps).map(|k| {
            let v0 = lo + (hi - lo) * k as f64 / steps as f64;
            let v1 = lo + (hi - lo) * (k + 1) as f64 / steps as f64;
            let [r, g, b] = viridis((k as f64 + 0.5) / steps as f64);
            Rectangle::new([(0.0, v0), (1.0, v1)], RGBColor(r, g, b).filled())
        });
        bar.draw_series(band)?;
        bar.configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .label_style((FONT, layout.label_font))
            .y_label_formatter(&|v| tick_label(*v))
            .draw()?;
        bar.plotting_area().draw(&Rectangle::new(
            [(0.0, lo), (1.0, hi)],
            BLACK.stroke_width(1),
        ))?;
        Ok(())
    })?;
    Ok((image, frame))
}

/// The colour of pixels inside a body.
const BODY_GREY: [u8; 3] = [150, 150, 150];

/// Sizes (pixels) of the parts of [`plot_mach_field`]'s image.
struct MachLayout {
    title: u32,
    margin: u32,
    x_labels: u32,
    y_labels: u32,
    bar_width: u32,
    label_font: u32,
    desc_font: u32,
}

impl MachLayout {
    /// The title's area, the field's and the colour bar's. Splitting draws
    /// nothing, so the layout can be measured before anything is drawn.
    fn split<'a>(&self, root: &Area<'a>) -> (Area<'a>, Area<'a>, Area<'a>) {
        let (title, body) = root.split_vertically(2 * self.title);
        let width = body.dim_in_pixel().0;
        let (field, bar) = body.split_horizontally(width.saturating_sub(self.bar_width));
        (title, field, bar)
    }

    /// The chart builder of the field, on its area.
    fn field_chart<'a, 'b>(
        &self,
        area: &'a Area<'b>,
    ) -> ChartBuilder<'a, 'static, PlotBackend<'b>> {
        let mut b = ChartBuilder::on(area);
        b.margin(self.margin)
            .x_label_area_size(self.x_labels)
            .y_label_area_size(self.y_labels);
        b
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
        })?;
        Ok(())
    }
}

/// The embedded font, parsed once per process and registered with
/// `plotters` (whose text layout, such as the legend's, measures text with
/// it); `None` if it cannot be parsed.
fn font() -> Option<&'static FontRef<'static>> {
    static FONT_REF: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FONT_REF
        .get_or_init(|| {
            plotters::style::register_font(FONT, FontStyle::Normal, FONT_FILE).ok()?;
            FontRef::try_from_slice(FONT_FILE).ok()
        })
        .as_ref()
}

/// `plotters`' bitmap backend, with text drawn here with `ab_glyph`.
///
/// The text drawing of plotters 0.3.7's `ab_glyph` feature drops each
/// glyph's side bearing (uneven letter spacing: "Con vergence") and draws
/// text about a quarter of its size above and left of where it is placed
/// (rotated axis titles at the image edge are cut off). Here text is laid out
/// in a box as wide as its advances and as high as the font size (the
/// font's ascent plus descent), baseline at the ascent; the box is placed by
/// the style's anchor and then rotated by its transform, as plotters' own
/// default does.
struct PlotBackend<'a> {
    bitmap: BitMapBackend<'a>,
    font: &'static FontRef<'static>,
}

/// The errors of [`PlotBackend`]: those of the bitmap backend.
type BackendError<'a> = DrawingErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>;

impl<'a> DrawingBackend for PlotBackend<'a> {
    type ErrorType = <BitMapBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.bitmap.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), BackendError<'a>> {
        self.bitmap.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), BackendError<'a>> {
        self.bitmap.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), BackendError<'a>> {
        self.bitmap.draw_pixel(point, color)
    }

    fn draw_line<S: plotters_backend::BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), BackendError<'a>> {
        self.bitmap.draw_line(from, to, style)
    }

    fn draw_rect<S: plotters_backend::BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), BackendError<'a>> {
        self.bitmap.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: plotters_backend::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), BackendError<'a>> {
        self.bitmap.draw_path(path, style)
    }

    fn draw_circle<S: plotters_backend::BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), BackendError<'a>> {
        self.bitmap.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: plotters_backend::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), BackendError<'a>> {
        self.bitmap.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), BackendError<'a>> {
        self.bitmap.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), BackendError<'a>> {
        let font = self.font.as_scaled(style.size() as f32);
        Ok((
            advance(&font, text).ceil() as u32,
            style.size().ceil() as u32,
        ))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), BackendError<'a>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let font = self.font.as_scaled(style.size() as f32);
        let (w, h) = (
            advance(&font, text).ceil() as i32,
            style.size().ceil() as i32,
        );
        let anchor = style.anchor();
        let dx = match anchor.h_pos {
            HPos::Left => 0,
            HPos::Center => -w / 2,
            HPos::Right => -w,
        };
        let dy = match anchor.v_pos {
            VPos::Top => 0,
            VPos::Center => -h / 2,
            VPos::Bottom => -h,
        };
        let transform = style.transform();
        let (width, height) = self.bitmap.get_size();
        let mut caret = 0.0;
        let mut previous = None;
        let mut result = Ok(());
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = previous {
                caret += font.kern(p, id);
            }
            previous = Some(id);
            let glyph = id.with_scale_and_position(font.scale(), point(caret, font.ascent()));
            caret += font.h_advance(id);
            let Some(outline) = font.outline_glyph(glyph) else {
                continue;
            };
            let min = outline.px_bounds().min;
            outline.draw(|gx, gy, coverage| {
                let (x, y) = transform
                    .transform(min.x as i32 + gx as i32 + dx, min.y as i32 + gy as i32 + dy);
                let (x, y) = (pos.0 + x, pos.1 + y);
                let on_image = x >= 0 && y >= 0 && (x as u32) < width && (y as u32) < height;
                if on_image && coverage > 0.0 && result.is_ok() {
                    let shade = BackendColor {
                        alpha: color.alpha * f64::from(coverage.min(1.0)),
                        rgb: color.rgb,
                    };
                    result = self.bitmap.draw_pixel((x, y), shade);
                }
            });
            if result.is_err() {
                break;
            }
        }
        result
    }
}

/// The width of `text` set in `font`: its glyphs' advances and kerning.
fn advance(font: &PxScaleFont<&FontRef<'static>>, text: &str) -> f32 {
    let mut width = 0.0;
    let mut previous = None;
    for c in text.chars() {
        let id = font.glyph_id(c);
        if let Some(p) = previous {
            width += font.kern(p, id);
        }
        width += font.h_advance(id);
        previous = Some(id);
    }
    width
}

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

/// The viridis colour map (matplotlib's default; public domain) at `t` in
/// `[0, 1]`, interpolated linearly between its colours at steps of 0.1.
fn viridis(t: f64) -> [u8; 3] {
    const STOPS: [[f64; 3]; 11] = [
        [68.0, 1.0, 84.0],
        [72.0, 36.0, 117.0],
        [65.0, 68.0, 135.0],
        [53.0, 95.0, 141.0],
        [42.0, 120.0, 142.0],
        [33.0, 145.0, 140.0],
        [34.0, 168.0, 132.0],
        [68.0, 191.0, 112.0],
        [122.0, 209.0, 81.0],
        [189.0, 223.0, 38.0],
        [253.0, 231.0, 37.0],
    ];
    let u = t.clamp(0.0, 1.0) * 10.0;
    // `as` maps NaN to 0, so a NaN gives the first colour rather than a panic.
    let k = (u as usize).min(9);
    let f = u - k as f64;
    let (a, b) = (STOPS[k], STOPS[k + 1]);
    [0, 1, 2].map(|c| (a[c] + f * (b[c] - a[c])).round() as u8)
}

/// The cloud points in and near a window, in a uniform grid of buckets, for
/// nearest-point look-ups.
struct NearestPoints {
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
    /// The points of `cloud` within `margin` of the window `xs` x `ys`.
    /// Only those are stored, so a picture of a small window of a huge cloud
    /// costs one pass over the cloud and memory for the window's points.
    fn new(cloud: &Cloud, prim: &[Vec4], xs: &Range<f64>, ys: &Range<f64>, margin: f64) -> Self {
        let (x0, x1) = (xs.start - margin, xs.end + margin);
        let (y0, y1) = (ys.start - margin, ys.end + margin);
        let near = |i: usize| (x0..=x1).contains(&cloud.x[i]) && (y0..=y1).contains(&cloud.y[i]);
        let selected: Vec<usize> = (0..cloud.len()).filter(|&i| near(i)).collect();
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
                let (cx, cy) = grid.cell_of(cloud.x[i], cloud.y[i]);
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
            let s = &prim[i];
            let mach = s[1].hypot(s[2]) / (GAMMA * s[3] / s[0]).sqrt();
            grid.points[next[b]] = (cloud.x[i], cloud.y[i], mach);
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
    fn mach_range_within(&self, xs: &Range<f64>, ys: &Range<f64>) -> Option<(f64, f64)> {
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
    fn nearest(&self, x: f64, y: f64) -> Option<f64> {
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

/// Which pixels of the field (row by row from the top) lie inside a body:
/// each body's ordered surface points as a polygon, filled by scan lines
/// through the pixel centres with the even-odd rule.
fn body_mask(cloud: &Cloud, frame: &FieldFrame) -> Vec<bool> {
    let (cols, rows) = (frame.cols.len(), frame.rows.len());
    let mut inside = vec![false; cols * rows];
    let mut crossings = Vec::new();
    for body in body_outlines(cloud) {
        let n = body.points.len();
        if n < 3 {
            continue;
        }
        let vertex = |k: usize| {
            let i = body.points[k % n];
            (cloud.x[i], cloud.y[i])
        };
        for r in 0..rows {
            let y = frame.centre(0, r).1;
            crossings.clear();
            for k in 0..n {
                let ((xa, ya), (xb, yb)) = (vertex(k), vertex(k + 1));
                if (ya <= y) != (yb <= y) {
                    crossings.push(xa + (y - ya) / (yb - ya) * (xb - xa));
                }
            }
            crossings.sort_by(f64::total_cmp);
            for pair in crossings.chunks_exact(2) {
                // The pixels whose centre lies in [pair[0], pair[1]).
                let column = |x: f64| {
                    ((x - frame.xs.start) / frame.scale - 0.5)
                        .ceil()
                        .clamp(0.0, cols as f64) as usize
                };
                for c in column(pair[0])..column(pair[1]) {
                    inside[r * cols + c] = true;
                }
            }
        }
    }
    inside
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::test_case;
    use qflow_mesh::{PointKind, NO_POINT};
    use qflow_exec::IterationReport;
    use qflow_lskum::forces::Coefficients;

    /// A decoded PNG.
    struct Png {
        width: usize,
        height: usize,
        rgb: Vec<u8>,
    }

    impl Png {
        fn read(path: &Path) -> Png {
            let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
            let mut reader = png::Decoder::new(file).read_info().unwrap();
            let mut rgb = vec![0; reader.output_buffer_size().unwrap()];
            let info = reader.next_frame(&mut rgb).unwrap();
            assert_eq!(
                (info.color_type, info.bit_depth),
                (png::ColorType::Rgb, png::BitDepth::Eight)
            );
            rgb.truncate(info.buffer_size());
            Png {
                width: info.width as usize,
                height: info.height as usize,
                rgb,
            }
        }

        fn pixel(&self, (x, y): (usize, usize)) -> [u8; 3] {
            let k = 3 * (y * self.width + x);
            [self.rgb[k], self.rgb[k + 1], self.rgb[k + 2]]
        }

        /// The pixels for which `f` holds, as (column, row).
        fn find(&self, f: impl Fn([u8; 3]) -> bool) -> Vec<(usize, usize)> {
            (0..self.height)
                .flat_map(|y| (0..self.width).map(move |x| (x, y)))
                .filter(|&p| f(self.pixel(p)))
                .collect()
        }
    }

    fn near(a: [u8; 3], b: [u8; 3], tolerance: u8) -> bool {
        (0..3).all(|c| a[c].abs_diff(b[c]) <= tolerance)
    }

    fn blue(p: [u8; 3]) -> bool {
        p[2] > 200 && p[0] < 60 && p[1] < 60
    }

    fn red(p: [u8; 3]) -> bool {
        p[0] > 200 && p[1] < 60 && p[2] < 60
    }

    fn dark(p: [u8; 3]) -> bool {
        p.iter().all(|&c| c < 80)
    }

    /// A history of `n` iterations: the residue falls six orders, Cl rises
    /// to 0.33, both with damped oscillations.
    fn history(n: u64) -> Vec<HistoryRow> {
        (1..=n)
            .map(|i| {
                let t = i as f64;
                let wave = |period: f64, decay: f64| (t / period).sin() * (-t / decay).exp();
                HistoryRow {
                    report: IterationReport {
                        iteration: i,
                        log_residue: if i <= 2 {
                            0.0
                        } else {
                            -6.0 * (1.0 - (-t / 400.0).exp()) + 0.2 * wave(15.0, 300.0)
                        },
                        residue: 1e-3,
                        coefficients: Coefficients {
                            cl: 0.33 * (1.0 - (-t / 150.0).exp()) + 0.05 * wave(20.0, 200.0),
                            cd: 1e-3,
                            cm: -0.01,
                        },
                        seconds: 0.01,
                    },
                    wall_seconds: 0.01 * t,
                }
            })
            .collect()
    }

    #[test]
    fn history_plot_has_both_curves_and_text() {
        let dir = test_case::temp_dir("plot-history");
        let path = dir.join("history.png");
        plot_history(&path, &history(2000)).unwrap();
        let png = Png::read(&path);
        assert_eq!((png.width as u32, png.height as u32), HISTORY_SIZE);
        let (residue, cl) = (png.find(blue), png.find(red));
        assert!(residue.len() > 1000 && cl.len() > 1000);
        // The residue in the upper half, Cl in the lower.
        assert!(residue.iter().all(|p| p.1 < png.height / 2));
        assert!(cl.iter().all(|p| p.1 > png.height / 2));
        assert!(png.find(dark).len() > 2000, "labels drawn");
        // Only the plot is left in the folder: no temporary file.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn history_plot_edge_cases() {
        let dir = test_case::temp_dir("plot-history-edges");
        let path = dir.join("history.png");
        let e = plot_history(&path, &[]).unwrap_err();
        assert!(matches!(e, PlotError::Invalid { .. }), "{e}");
        assert!(e.to_string().contains("history.png"), "{e}");
        assert!(!path.exists());

        // One iteration: dots.
        plot_history(&path, &history(1)).unwrap();
        let png = Png::read(&path);
        assert!(!png.find(blue).is_empty() && !png.find(red).is_empty());

        // Non-finite values break the curves; a panel without a finite
        // value says so.
        let mut rows = history(50);
        rows[10].report.log_residue = f64::NAN;
        rows[20].report.log_residue = f64::INFINITY;
        for r in &mut rows {
            r.report.coefficients.cl = f64::NAN;
        }
        plot_history(&path, &rows).unwrap();
        let png = Png::read(&path);
        assert!(!png.find(blue).is_empty() && png.find(red).is_empty());

        for r in &mut rows {
            r.report.log_residue = f64::NEG_INFINITY;
        }
        let e = plot_history(&path, &rows).unwrap_err();
        assert!(e.to_string().contains("no finite"), "{e}");

        // The same iteration repeated (a resumed run): a zero-width range.
        let mut rows = history(3);
        for r in &mut rows {
            r.report.iteration = 7;
        }
        plot_history(&path, &rows).unwrap();
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn surface_cp_plot_has_suction_up() {
        let (cloud, prim, fs) = test_case::naca0012();
        let dir = test_case::temp_dir("plot-cp");
        let path = dir.join("cp.png");
        plot_surface_cp(&path, &cloud, &prim, &fs).unwrap();
        let png = Png::read(&path);
        assert_eq!((png.width as u32, png.height as u32), SURFACE_CP_SIZE);
        let (upper, lower) = (png.find(blue), png.find(red));
        assert!(upper.len() > 1000 && lower.len() > 1000);
        // The upper surface, with the stronger suction (more negative Cp),
        // is drawn higher in the image: the Cp axis points down.
        let mean_row = |p: &[(usize, usize)]| p.iter().map(|q| q.1).sum::<usize>() / p.len();
        assert!(mean_row(&upper) + 50 < mean_row(&lower));
        assert!(png.find(dark).len() > 2000, "labels drawn");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn surface_cp_plot_edge_cases() {
        let (mut cloud, mut prim, fs) = test_case::naca0012();
        let dir = test_case::temp_dir("plot-cp-edges");
        let path = dir.join("cp.png");
        // Some non-finite states on the surface: the curves break there.
        for k in [3, 17, 40] {
            prim[k][3] = f64::NAN;
        }
        plot_surface_cp(&path, &cloud, &prim, &fs).unwrap();
        // None finite.
        for s in prim.iter_mut() {
            s[3] = f64::NAN;
        }
        let e = plot_surface_cp(&path, &cloud, &prim, &fs).unwrap_err();
        assert!(e.to_string().contains("no finite Cp"), "{e}");
        // No body.
        cloud.shape.iter_mut().for_each(|s| *s = 0);
        let e = plot_surface_cp(&path, &cloud, &prim, &fs).unwrap_err();
        assert!(e.to_string().contains("no body"), "{e}");
        // A body of one point.
        let one = Cloud {
            x: vec![0.5],
            y: vec![0.0],
            kind: vec![PointKind::Wall],
            left: vec![NO_POINT],
            right: vec![NO_POINT],
            shape: vec![1],
            min_dist: vec![1.0],
            nbr_start: vec![0, 0],
            nbr: vec![],
            quadtree: None,
        };
        std::fs::remove_file(&path).unwrap();
        plot_surface_cp(&path, &one, &[fs.primitive()], &fs).unwrap();
        assert!(!Png::read(&path).find(blue).is_empty());
        // Wrong number of states.
        let e = plot_surface_cp(&path, &one, &[], &fs).unwrap_err();
        assert!(matches!(e, PlotError::Write(_)), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn mach_field_shows_free_stream_body_and_colour_bar() {
        let (cloud, prim, fs) = test_case::naca0012();
        let dir = test_case::temp_dir("plot-mach");
        let path = dir.join("mach.png");
        let size = (900, 600);
        let (image, frame) = render_mach_field(&path, &cloud, &prim, None, size).unwrap();
        image.write_png().unwrap();
        let png = Png::read(&path);
        assert_eq!((png.width as u32, png.height as u32), size);
        // The requested window is inside the (widened) one.
        let w = Window::default();
        assert!(frame.xs.start <= w.x_min && frame.xs.end >= w.x_max);
        assert!(frame.ys.start <= w.y_min && frame.ys.end >= w.y_max);
        // Far from the body (the synthetic state is the free stream there
        // to round-off), the free-stream colour.
        let free = frame.colour(fs.mach);
        for (x, y) in [(-0.45, 0.7), (1.45, -0.7), (-0.45, -0.7), (1.45, 0.1)] {
            assert_eq!(png.pixel(frame.pixel_of(x, y)), free, "at ({x}, {y})");
        }
        // Inside the section, grey; just above the leading edge, fast flow.
        for (x, y) in [(0.3, 0.0), (0.05, 0.0), (0.8, 0.0)] {
            assert_eq!(png.pixel(frame.pixel_of(x, y)), BODY_GREY, "at ({x}, {y})");
        }
        let nose = png.pixel(frame.pixel_of(0.02, 0.04));
        assert!(!near(nose, free, 30) && nose != BODY_GREY, "{nose:?}");
        // The colour bar: both ends of the scale right of the field.
        let right = |p: &(usize, usize)| p.0 > frame.cols.end as usize;
        for end in [viridis(0.0), viridis(1.0)] {
            assert!(
                png.find(|p| near(p, end, 8))
                    .iter()
                    .filter(|p| right(p))
                    .count()
                    > 50
            );
        }
        assert!(png.find(dark).len() > 500, "labels drawn");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn mach_field_window_and_size() {
        let (cloud, mut prim, _) = test_case::naca0012();
        let dir = test_case::temp_dir("plot-mach-window");
        let path = dir.join("mach.png");
        // The trailing edge, close up, in a small image.
        let window = Window {
            x_min: 0.9,
            x_max: 1.1,
            y_min: -0.05,
            y_max: 0.05,
        };
        plot_mach_field(&path, &cloud, &prim, Some(window), MIN_SIZE).unwrap();
        let png = Png::read(&path);
        assert_eq!((png.width as u32, png.height as u32), MIN_SIZE);
        assert!(png.find(|p| p == BODY_GREY).len() > 100);
        // Non-finite states: white where they are nearest.
        for s in prim.iter_mut().step_by(3) {
            s[0] = f64::NAN;
        }
        plot_mach_field(&path, &cloud, &prim, None, (1000, 1000)).unwrap();
        let png = Png::read(&path);
        assert_eq!((png.width, png.height), (1000, 1000));
        assert!(png.find(|p| p == [255, 255, 255]).len() > 10_000);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn mach_field_refuses_what_it_cannot_draw() {
        let (cloud, prim, _) = test_case::naca0012();
        let dir = test_case::temp_dir("plot-mach-errors");
        let path = dir.join("mach.png");
        let w = Window::default();
        let windows = [
            Window {
                x_max: w.x_min,
                ..w
            },
            Window { y_min: 1.0, ..w },
            Window {
                x_min: f64::NAN,
                ..w
            },
            Window {
                y_max: f64::INFINITY,
                ..w
            },
            // No point of the cloud in it.
            Window {
                x_min: 100.0,
                x_max: 101.0,
                ..w
            },
        ];
        for window in windows {
            let e = plot_mach_field(&path, &cloud, &prim, Some(window), (800, 600)).unwrap_err();
            assert!(matches!(e, PlotError::Invalid { .. }), "{e}");
        }
        for size in [(0, 0), (100, 600), (800, 10), (100_000, 100_000)] {
            let e = plot_mach_field(&path, &cloud, &prim, None, size).unwrap_err();
            assert!(e.to_string().contains("image size"), "{e}");
        }
        let e = plot_mach_field(&path, &cloud, &prim[1..], None, (800, 600)).unwrap_err();
        assert!(e.to_string().contains("states for"), "{e}");
        let empty = Cloud {
            nbr_start: vec![0],
            ..Cloud::default()
        };
        let e = plot_mach_field(&path, &empty, &[], None, (800, 600)).unwrap_err();
        assert!(e.to_string().contains("no point"), "{e}");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "nothing written"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The time to paint a 1,000 x 1,000-point cloud (1 million points).
    /// Run with `cargo test -p qflow-io --release -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn mach_field_of_a_million_points_timing() {
        let start = std::time::Instant::now();
        let cloud = qflow_mesh::generate::NacaOGrid {
            section: "naca0012".parse().unwrap(),
            wall_points: 1000,
            rings: 1000,
            far_field: 20.0,
            stretching: None,
        }
        .generate()
        .unwrap();
        let fs = test_case::free_stream();
        let prim: Vec<Vec4> = (0..cloud.len())
            .map(|i| test_case::state_at(cloud.x[i], cloud.y[i], &fs))
            .collect();
        println!(
            "{} points generated in {:.2?}",
            cloud.len(),
            start.elapsed()
        );
        let dir = test_case::temp_dir("plot-mach-timing");
        for size in [(1200, 800), (2400, 1600)] {
            let path = dir.join(format!("mach-{}x{}.png", size.0, size.1));
            let start = std::time::Instant::now();
            let (image, _) = render_mach_field(&path, &cloud, &prim, None, size).unwrap();
            let rendered = start.elapsed();
            image.write_png().unwrap();
            println!(
                "{} x {}: rendered in {rendered:.2?}, written in {:.2?} in all",
                size.0,
                size.1,
                start.elapsed()
            );
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
