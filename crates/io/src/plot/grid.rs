//! Filled contours of a scalar field on a structured grid.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{check_size, finite_range, invalid, number_label, padded, tick_label};
use super::{Image, PlotError, Ticked, FONT};

mod bands;
mod layout;

use bands::{paint, GridFrame};
use layout::{GridLayout, Pads};

/// A scalar field on an `nx` x `ny` structured grid of equal cells covering
/// a rectangle, one value per cell (at its centre).
#[derive(Clone, Copy, Debug)]
pub struct GridField<'a> {
    /// Cells along x.
    pub nx: usize,
    /// Cells along y.
    pub ny: usize,
    /// Left and right edges of the rectangle.
    pub x: (f64, f64),
    /// Bottom and top edges of the rectangle.
    pub y: (f64, f64),
    /// The value of cell `(i, j)` at `values[j * nx + i]`, `i` fastest and
    /// `j = 0` at the bottom.
    pub values: &'a [f64],
    /// What the values are (`"density"`): the title and the colour bar's
    /// label.
    pub name: &'a str,
    /// The names of the coordinates across and up (`["x", "y"]`).
    pub axes: [&'a str; 2],
}

/// The most bands [`plot_grid_field`] draws.
const MAX_LEVELS: usize = 256;

/// The colour of the iso-lines between bands.
const ISO_LINE: [u8; 3] = [30, 30, 30];

/// Paints `field` as filled contours, `size` pixels wide and high including
/// the axes, the title and the colour bar.
///
/// The range of the finite values (padded as the axes of the other plots
/// are when it is a single value) is split into `levels` equal bands, each
/// coloured on the viridis scale; each pixel takes the band of the field at
/// its centre, interpolated bilinearly between cell centres (the nearest
/// cell's value where a neighbour is not finite; a pixel whose value is not
/// finite stays white). Thin dark iso-lines are drawn at the band edges,
/// where neighbouring pixels fall in different bands. The plot keeps the
/// rectangle's aspect ratio; the colour bar shows the band edges.
///
/// An error, and nothing written, for `values` not of `nx * ny` values, no
/// cell, no finite value, an empty or non-finite rectangle, `levels` 0 or
/// above 256, or a size below [`MIN_SIZE`](super::MIN_SIZE) or above
/// [`MAX_PIXELS`](super::MAX_PIXELS).
pub fn plot_grid_field(
    path: &Path,
    field: &GridField,
    levels: usize,
    size: (u32, u32),
) -> Result<(), PlotError> {
    render_grid_field(path, field, levels, size)?.0.write_png()
}

/// The image of [`plot_grid_field`], and where the field is in it.
fn render_grid_field(
    path: &Path,
    field: &GridField,
    levels: usize,
    size: (u32, u32),
) -> Result<(Image, GridFrame), PlotError> {
    check_size(path, size)?;
    let GridField { nx, ny, x, y, .. } = *field;
    if nx == 0 || ny == 0 || nx.checked_mul(ny) != Some(field.values.len()) {
        return Err(invalid(
            path,
            format!("{} values on a {nx} x {ny} grid", field.values.len()),
        ));
    }
    if ![x.0, x.1, y.0, y.1].iter().all(|v| v.is_finite()) || x.1 <= x.0 || y.1 <= y.0 {
        return Err(invalid(
            path,
            format!(
                "rectangle x in [{}, {}], y in [{}, {}] is empty or not finite",
                x.0, x.1, y.0, y.1
            ),
        ));
    }
    if !(1..=MAX_LEVELS).contains(&levels) {
        return Err(invalid(
            path,
            format!("{levels} levels: must be from 1 to {MAX_LEVELS}"),
        ));
    }
    let Some(data) = finite_range(field.values.iter().copied()) else {
        return Err(invalid(
            path,
            format!("no finite value of {} on the grid", field.name),
        ));
    };
    let range = if data.1 > data.0 { data } else { padded(data) };

    let layout = GridLayout::new(size);
    let mut image = Image::new(path, size)?;
    // The room for the plot area, then margins that shrink it to the
    // rectangle's aspect ratio, the field and colour bar centred.
    let (cols, rows) = image.draw(|root| layout.plot_pixels(root, Pads::default()))?;
    let (pw, ph) = (cols.len() as f64, rows.len() as f64);
    let scale = (pw / (x.1 - x.0)).min(ph / (y.1 - y.0));
    let want = (
        ((scale * (x.1 - x.0)).round() as u32).min(cols.len() as u32),
        ((scale * (y.1 - y.0)).round() as u32).min(rows.len() as u32),
    );
    if want.0 < 1 || want.1 < 1 {
        return Err(invalid(path, "the image leaves no room for the field"));
    }
    let (dx, dy) = (cols.len() as u32 - want.0, rows.len() as u32 - want.1);
    let pads = Pads {
        left: dx / 2,
        right: dx - dx / 2,
        top: dy / 2,
        bottom: dy - dy / 2,
    };
    let (cols, rows) = image.draw(|root| layout.plot_pixels(root, pads))?;
    let frame = GridFrame {
        cols,
        rows,
        range,
        levels,
    };
    paint(&mut image, field, &frame);

    // Axes, title and colour bar on top of the field.
    let step = (frame.range.1 - frame.range.0) / levels as f64;
    let label = |v: f64| number_label(v, 0.1 * step);
    // About one tick label every `spacing` font sizes of `pixels`.
    let ticks = |pixels: usize, spacing: u32| {
        (pixels / (spacing * layout.label_font) as usize).clamp(2, 10)
    };
    image.draw(|root| {
        let (title_area, field_area, bar_area) = layout.split(root, pads);
        let (tw, th) = title_area.dim_in_pixel();
        let title = TextStyle::from((FONT, layout.title).into_font())
            .pos(Pos::new(HPos::Center, VPos::Center));
        let text = format!("{}, {} to {}", field.name, label(data.0), label(data.1));
        title_area.draw_text(&text, &title, (tw as i32 / 2, th as i32 / 2))?;
        let mut chart = layout
            .field_chart(&field_area, pads)
            .build_cartesian_2d(x.0..x.1, y.0..y.1)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(ticks(frame.cols.len(), 5))
            .y_labels(ticks(frame.rows.len(), 2))
            .x_desc(field.axes[0])
            .y_desc(field.axes[1])
            .label_style((FONT, layout.label_font))
            .axis_desc_style((FONT, layout.desc_font))
            .x_label_formatter(&|v| tick_label(*v))
            .y_label_formatter(&|v| tick_label(*v))
            .draw()?;
        // Labels at every k-th band edge, at least 1.5 lines apart.
        let band_px = frame.rows.len() as f64 / levels as f64;
        let every = ((1.5 * layout.label_font as f64 / band_px).ceil() as usize).max(1);
        let edges: Vec<f64> = (0..=levels).step_by(every).map(|k| frame.edge(k)).collect();
        let (lo, hi) = frame.range;
        let mut bar = layout
            .bar_chart(&bar_area, pads)
            .build_cartesian_2d(0.0..1.0, Ticked::new((lo, hi), edges))?;
        let bands = (0..levels).map(|k| {
            let [r, g, b] = frame.colour(k);
            Rectangle::new(
                [(0.0, frame.edge(k)), (1.0, frame.edge(k + 1))],
                RGBColor(r, g, b).filled(),
            )
        });
        bar.draw_series(bands)?;
        let [r, g, b] = ISO_LINE;
        let lines = (1..levels).map(|k| {
            let v = frame.edge(k);
            PathElement::new([(0.0, v), (1.0, v)], RGBColor(r, g, b))
        });
        bar.draw_series(lines)?;
        bar.configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .y_desc(field.name)
            .label_style((FONT, layout.label_font))
            .axis_desc_style((FONT, layout.desc_font))
            .y_label_formatter(&|v| label(*v))
            .draw()?;
        bar.plotting_area().draw(&Rectangle::new(
            [(0.0, lo), (1.0, hi)],
            BLACK.stroke_width(1),
        ))?;
        Ok(())
    })?;
    Ok((image, frame))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::testutil::*;
    use crate::plot::{MAX_PIXELS, MIN_SIZE};
    use crate::test_case;

    /// A field on [0, 4] x [0, 1].
    fn field<'a>(nx: usize, ny: usize, values: &'a [f64]) -> GridField<'a> {
        GridField {
            nx,
            ny,
            x: (0.0, 4.0),
            y: (0.0, 1.0),
            values,
            name: "density",
            axes: ["x", "y"],
        }
    }

    /// The pixel of point `(x, y)` of [0, 4] x [0, 1] in the image.
    fn pixel_of(frame: &GridFrame, x: f64, y: f64) -> (usize, usize) {
        let c = (x / 4.0 * frame.cols.len() as f64) as i32;
        let r = ((1.0 - y) * frame.rows.len() as f64) as i32;
        (
            (frame.cols.start + c) as usize,
            (frame.rows.start + r) as usize,
        )
    }

    /// Two halves, 1 and 2, in four bands: the outer bands fill the halves,
    /// the inner ones the strip between the cell centres either side of
    /// x = 2, with dark lines between; the plot keeps the aspect ratio 4.
    #[test]
    fn halves_give_two_bands_with_iso_lines_between() {
        let dir = test_case::temp_dir("plot-grid");
        let path = dir.join("density.png");
        let values: Vec<f64> = (0..16).map(|k| if k % 8 < 4 { 1.0 } else { 2.0 }).collect();
        let size = (1000, 500);
        let (image, frame) = render_grid_field(&path, &field(8, 2, &values), 4, size).unwrap();
        image.write_png().unwrap();
        let png = Png::read(&path);
        assert_eq!((png.width as u32, png.height as u32), size);
        let (w, h) = (frame.cols.len(), frame.rows.len());
        assert!(w.abs_diff(4 * h) <= 4, "aspect ratio of {w} x {h}");
        assert!(w > 400, "the plot fills the image: {w} x {h}");
        assert_eq!(png.pixel(pixel_of(&frame, 0.5, 0.5)), frame.colour(0));
        assert_eq!(png.pixel(pixel_of(&frame, 3.5, 0.2)), frame.colour(3));
        let inside = |p: &&(usize, usize)| {
            frame.cols.contains(&(p.0 as i32)) && frame.rows.contains(&(p.1 as i32))
        };
        let count = |colour: [u8; 3]| png.find(|p| p == colour).iter().filter(inside).count();
        for k in [0, 3] {
            assert!(count(frame.colour(k)) > w * h * 2 / 5, "band {k}");
        }
        // Bands 1 and 2 between x = 1.75 and 2.25, three lines one pixel
        // wide, as high as the plot.
        for k in [1, 2] {
            let n = count(frame.colour(k));
            assert!(n > w * h / 40 && n < w * h / 8, "band {k}: {n} pixels");
        }
        let lines = count(ISO_LINE);
        assert!(lines >= 3 * h && lines < 4 * h, "{lines} iso-line pixels");
        // The colour bar, right of the plot, has all four bands.
        for k in 0..4 {
            let right = png.find(|p| p == frame.colour(k));
            assert!(
                right
                    .iter()
                    .filter(|p| p.0 > frame.cols.end as usize)
                    .count()
                    > 100
            );
        }
        assert!(png.find(dark).len() > 1000, "labels drawn");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A constant field is one band in a padded range; a cell that is not
    /// finite is white; a tall rectangle keeps its aspect ratio too.
    #[test]
    fn constant_field_and_non_finite_cells() {
        let dir = test_case::temp_dir("plot-grid-constant");
        let path = dir.join("pressure.png");
        let mut values = vec![3.0; 16];
        values[5] = f64::NAN;
        let (image, frame) = render_grid_field(&path, &field(4, 4, &values), 5, MIN_SIZE).unwrap();
        image.write_png().unwrap();
        let png = Png::read(&path);
        assert_eq!((png.width as u32, png.height as u32), MIN_SIZE);
        assert_eq!(frame.range, padded((3.0, 3.0)));
        assert_eq!(png.pixel(pixel_of(&frame, 3.5, 0.1)), frame.colour(2));
        // Cell (1, 1) covers [1, 2] x [0.25, 0.5].
        assert_eq!(png.pixel(pixel_of(&frame, 1.5, 0.375)), [255; 3]);

        let tall = GridField {
            x: (0.0, 1.0),
            y: (0.0, 3.0),
            ..field(4, 4, &values)
        };
        let (_, frame) = render_grid_field(&path, &tall, 20, (1200, 900)).unwrap();
        let (w, h) = (frame.cols.len(), frame.rows.len());
        assert!((3 * w).abs_diff(h) <= 3, "aspect ratio of {w} x {h}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn grid_field_refuses_what_it_cannot_draw() {
        let dir = test_case::temp_dir("plot-grid-errors");
        let path = dir.join("density.png");
        let values = vec![1.0; 16];
        let nan = vec![f64::NAN; 16];
        let good = field(8, 2, &values);
        let fields = [
            field(8, 3, &values),
            field(0, 2, &[]),
            field(8, 0, &[]),
            field(8, 2, &nan),
            GridField {
                x: (1.0, 1.0),
                ..good
            },
            GridField {
                y: (1.0, 0.0),
                ..good
            },
            GridField {
                x: (f64::NAN, 1.0),
                ..good
            },
            GridField {
                y: (0.0, f64::INFINITY),
                ..good
            },
        ];
        for f in &fields {
            let e = plot_grid_field(&path, f, 16, (800, 600)).unwrap_err();
            assert!(matches!(e, PlotError::Invalid { .. }), "{e}");
        }
        for levels in [0, 257] {
            let e = plot_grid_field(&path, &good, levels, (800, 600)).unwrap_err();
            assert!(e.to_string().contains("levels"), "{e}");
        }
        let huge = (1 << 16, (MAX_PIXELS >> 16) as u32 + 1);
        for size in [(0, 0), (MIN_SIZE.0 - 1, 600), (800, MIN_SIZE.1 - 1), huge] {
            let e = plot_grid_field(&path, &good, 16, size).unwrap_err();
            assert!(e.to_string().contains("image size"), "{e}");
        }
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "nothing written"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The time to draw a 6400 x 1600 oblique-shock-like field. Run with
    /// `cargo test -p qflow-io --release -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn grid_field_of_ten_million_cells_timing() {
        let (nx, ny) = (6400, 1600);
        let values: Vec<f64> = (0..nx * ny)
            .map(|k| {
                let (x, y) = (
                    4.0 * (k % nx) as f64 / nx as f64,
                    (k / nx) as f64 / ny as f64,
                );
                let behind = y < 0.5 * (x - 1.0);
                1.0 + 0.7 * f64::from(u8::from(behind)) + 0.01 * (40.0 * x).sin()
            })
            .collect();
        let dir = test_case::temp_dir("plot-grid-timing");
        let path = dir.join("density.png");
        let start = std::time::Instant::now();
        plot_grid_field(&path, &field(nx, ny, &values), 20, (2400, 900)).unwrap();
        println!("{nx} x {ny} cells drawn in {:.2?}", start.elapsed());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
