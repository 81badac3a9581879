//! A picture of the Mach number field near the body.

use std::ops::Range;
use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use qflow_mesh::Cloud;

use super::nearest::NearestPoints;
use super::text::PlotBackend;
use super::{check_size, invalid, text_scale, tick_label, Area, Image, PlotError, FONT};
use crate::surface::body_outlines;

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

/// Paints a picture of the Mach number field of `cloud` (`mach[i]` that of
/// point `i`) in `window` (default
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
    mach: &[f64],
    window: Option<Window>,
    size: (u32, u32),
) -> Result<(), PlotError> {
    render_mach_field(path, cloud, mach, window, size)?
        .0
        .write_png()
}

/// Points carrying a Mach number (a cloud's points, a mesh's cell
/// centres), with the outlines of the bodies among them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MachPoints {
    /// x of each point.
    pub x: Vec<f64>,
    /// y of each point.
    pub y: Vec<f64>,
    /// Mach number at each point.
    pub mach: Vec<f64>,
    /// Each body's outline, a closed polygon (the last vertex joins the
    /// first).
    pub bodies: Vec<Vec<(f64, f64)>>,
}

impl MachPoints {
    /// The points of `cloud` with the Mach numbers `mach` (one per point)
    /// and its bodies' outlines.
    pub fn of_cloud(cloud: &Cloud, mach: &[f64]) -> Self {
        MachPoints {
            x: cloud.x.clone(),
            y: cloud.y.clone(),
            mach: mach.to_vec(),
            bodies: body_outlines(cloud)
                .into_iter()
                .map(|b| b.points.iter().map(|&i| (cloud.x[i], cloud.y[i])).collect())
                .collect(),
        }
    }
}

/// [`plot_mach_field`] of any points: each pixel takes the Mach number of
/// the point nearest its centre (a mesh's cell centres give each pixel
/// about its cell's value), pixels inside a body grey.
pub fn plot_mach_points(
    path: &Path,
    points: &MachPoints,
    window: Option<Window>,
    size: (u32, u32),
) -> Result<(), PlotError> {
    if points.x.len() != points.y.len() || points.x.len() != points.mach.len() {
        return Err(invalid(
            path,
            format!(
                "{} x, {} y and {} Mach values",
                points.x.len(),
                points.y.len(),
                points.mach.len()
            ),
        ));
    }
    render_points(path, points, window, size)?.0.write_png()
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
    mach: &[f64],
    window: Option<Window>,
    size: (u32, u32),
) -> Result<(Image, FieldFrame), PlotError> {
    if mach.len() != cloud.len() {
        return Err(invalid(
            path,
            format!("{} Mach values for {} points", mach.len(), cloud.len()),
        ));
    }
    render_points(path, &MachPoints::of_cloud(cloud, mach), window, size)
}

/// The image of [`plot_mach_points`], and where the field is in it.
fn render_points(
    path: &Path,
    points: &MachPoints,
    window: Option<Window>,
    size: (u32, u32),
) -> Result<(Image, FieldFrame), PlotError> {
    let window = window.unwrap_or_default();
    check_size(path, size)?;
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
    // Sizes scale with the image, so labels stay readable on large images.
    let s = text_scale(size);
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
    let field = NearestPoints::new(points, &xs, &ys, margin);
    let Some((lo, hi)) = field.mach_range_within(&xs, &ys) else {
        return Err(invalid(
            path,
            "no point with a finite Mach number lies in the window",
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
    let inside = body_mask(&points.bodies, &frame);
    let (width, x0, ncols) = (size.0 as usize, frame.cols.start as usize, frame.cols.len());
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

/// The viridis colour map (matplotlib's default; public domain) at `t` in
/// `[0, 1]`, interpolated linearly between its colours at steps of 0.1.
pub(super) fn viridis(t: f64) -> [u8; 3] {
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

/// Which pixels of the field (row by row from the top) lie inside a body:
/// each body's ordered surface points as a polygon, filled by scan lines
/// through the pixel centres with the even-odd rule.
fn body_mask(bodies: &[Vec<(f64, f64)>], frame: &FieldFrame) -> Vec<bool> {
    let (cols, rows) = (frame.cols.len(), frame.rows.len());
    let mut inside = vec![false; cols * rows];
    let mut crossings = Vec::new();
    for body in bodies {
        let n = body.len();
        if n < 3 {
            continue;
        }
        let vertex = |k: usize| body[k % n];
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
    use crate::plot::testutil::*;
    use crate::plot::MIN_SIZE;
    use crate::test_case;

    /// Points of a mesh's cells: a 4 x 4 grid of centres, Mach = x, with
    /// a square body in the middle; pixels take their nearest centre's
    /// value, the body is grey; lengths that disagree are refused.
    #[test]
    fn mach_points_paint_nearest_values_and_bodies() {
        let dir = test_case::temp_dir("plot-points");
        let path = dir.join("mach.png");
        let mut p = MachPoints::default();
        for j in 0..4 {
            for i in 0..4 {
                p.x.push(i as f64 * 0.5 - 0.25);
                p.y.push(j as f64 * 0.5 - 0.75);
                p.mach.push(i as f64);
            }
        }
        p.bodies = vec![vec![(0.4, -0.1), (0.6, -0.1), (0.6, 0.1), (0.4, 0.1)]];
        let (image, frame) = render_points(&path, &p, None, (900, 600)).unwrap();
        image.write_png().unwrap();
        let png = Png::read(&path);
        assert_eq!(png.pixel(frame.pixel_of(0.5, 0.0)), BODY_GREY);
        assert_eq!(png.pixel(frame.pixel_of(-0.3, 0.3)), frame.colour(0.0));
        assert_eq!(png.pixel(frame.pixel_of(1.3, -0.6)), frame.colour(3.0));
        p.mach.pop();
        let e = plot_mach_points(&path, &p, None, (900, 600)).unwrap_err();
        assert!(e.to_string().contains("15 Mach values"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn mach_field_shows_free_stream_body_and_colour_bar() {
        let (cloud, flow) = test_case::naca0012();
        let dir = test_case::temp_dir("plot-mach");
        let path = dir.join("mach.png");
        let size = (900, 600);
        let (image, frame) = render_mach_field(&path, &cloud, &flow.mach, None, size).unwrap();
        image.write_png().unwrap();
        let png = Png::read(&path);
        assert_eq!((png.width as u32, png.height as u32), size);
        // The requested window is inside the (widened) one.
        let w = Window::default();
        assert!(frame.xs.start <= w.x_min && frame.xs.end >= w.x_max);
        assert!(frame.ys.start <= w.y_min && frame.ys.end >= w.y_max);
        // Far from the body (the synthetic flow is the free stream there
        // to round-off), the free-stream colour.
        let free = frame.colour(test_case::FREE_MACH);
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
        let (cloud, flow) = test_case::naca0012();
        let mut mach = flow.mach;
        let dir = test_case::temp_dir("plot-mach-window");
        let path = dir.join("mach.png");
        // The trailing edge, close up, in a small image.
        let window = Window {
            x_min: 0.9,
            x_max: 1.1,
            y_min: -0.05,
            y_max: 0.05,
        };
        plot_mach_field(&path, &cloud, &mach, Some(window), MIN_SIZE).unwrap();
        let png = Png::read(&path);
        assert_eq!((png.width as u32, png.height as u32), MIN_SIZE);
        assert!(png.find(|p| p == BODY_GREY).len() > 100);
        // Non-finite values: white where they are nearest.
        for m in mach.iter_mut().step_by(3) {
            *m = f64::NAN;
        }
        plot_mach_field(&path, &cloud, &mach, None, (1000, 1000)).unwrap();
        let png = Png::read(&path);
        assert_eq!((png.width, png.height), (1000, 1000));
        assert!(png.find(|p| p == [255, 255, 255]).len() > 10_000);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn mach_field_refuses_what_it_cannot_draw() {
        let (cloud, flow) = test_case::naca0012();
        let mach = flow.mach;
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
            let e = plot_mach_field(&path, &cloud, &mach, Some(window), (800, 600)).unwrap_err();
            assert!(matches!(e, PlotError::Invalid { .. }), "{e}");
        }
        for size in [(0, 0), (100, 600), (800, 10), (100_000, 100_000)] {
            let e = plot_mach_field(&path, &cloud, &mach, None, size).unwrap_err();
            assert!(e.to_string().contains("image size"), "{e}");
        }
        let e = plot_mach_field(&path, &cloud, &mach[1..], None, (800, 600)).unwrap_err();
        assert!(
            e.to_string().contains("1535 Mach values for 1536 points"),
            "{e}"
        );
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
        let mach = test_case::flow_of(&cloud).mach;
        println!(
            "{} points generated in {:.2?}",
            cloud.len(),
            start.elapsed()
        );
        let dir = test_case::temp_dir("plot-mach-timing");
        for size in [(1200, 800), (2400, 1600)] {
            let path = dir.join(format!("mach-{}x{}.png", size.0, size.1));
            let start = std::time::Instant::now();
            let (image, _) = render_mach_field(&path, &cloud, &mach, None, size).unwrap();
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
