//! Line plots: several series of points on shared axes, linear or log.

use std::path::Path;

use plotters::prelude::*;

use super::{check_size, finite_range, invalid, padded, text_scale};
use super::{Image, PlotError, Ticked, FONT};

mod axes;

use axes::{legend_corner, Axis};

/// How a [`Series`] is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Its points joined by lines (broken where a point is skipped; a point
    /// with no drawn neighbour is a dot).
    Line,
    /// A dot at each point.
    Points,
}

/// One series of a [`LinePlot`].
#[derive(Clone, Copy, Debug)]
pub struct Series<'a> {
    /// Its name in the legend; an empty label leaves it out of the legend.
    pub label: &'a str,
    /// Its points `(x, y)`, in the order they are joined.
    pub points: &'a [(f64, f64)],
    /// How it is drawn.
    pub style: Style,
}

/// What [`plot_lines`] draws.
#[derive(Clone, Copy, Debug)]
pub struct LinePlot<'a> {
    /// The title above the plot.
    pub title: &'a str,
    /// The x axis's label.
    pub x_label: &'a str,
    /// The y axis's label.
    pub y_label: &'a str,
    /// The series, each in its own colour.
    pub series: &'a [Series<'a>],
    /// Whether the x axis is logarithmic (base 10).
    pub log_x: bool,
    /// Whether the y axis is logarithmic (base 10).
    pub log_y: bool,
}

/// The colours of the first series: those of the other plots' curves (blue,
/// red), then others far from them and from each other.
const PALETTE: [RGBColor; 8] = [
    BLUE,
    RED,
    RGBColor(0, 150, 0),
    RGBColor(230, 120, 0),
    RGBColor(130, 0, 200),
    RGBColor(0, 160, 170),
    RGBColor(200, 0, 140),
    RGBColor(120, 80, 30),
];

/// Plots the series of `plot` on shared axes, `size` pixels wide and high,
/// with a legend of the labelled series in the corner of the plot with the
/// fewest points.
///
/// Each axis spans its finite points' values, widened by 5% each side (on a
/// log axis, 5% of the decades spanned). Points with a non-finite
/// coordinate, or one not positive on a log axis, are skipped (a line
/// breaks there). The series are blue, red, green, orange, purple, teal,
/// magenta and brown in turn, or of evenly spaced hues when there are more
/// than eight.
///
/// An error, and nothing written, when no series has a point to draw, or for
/// a size below [`MIN_SIZE`](super::MIN_SIZE) or above [`MAX_PIXELS`](super::MAX_PIXELS).
pub fn plot_lines(path: &Path, plot: &LinePlot, size: (u32, u32)) -> Result<(), PlotError> {
    check_size(path, size)?;
    // The points in axis space (log10 of the value on a log axis), None
    // where skipped.
    let axis_value = |v: f64, log: bool| match (v.is_finite(), log) {
        (true, false) => Some(v),
        (true, true) if v > 0.0 => Some(v.log10()),
        _ => None,
    };
    let series: Vec<Vec<Option<(f64, f64)>>> = plot
        .series
        .iter()
        .map(|s| {
            let point = |&(x, y): &(f64, f64)| {
                Some((axis_value(x, plot.log_x)?, axis_value(y, plot.log_y)?))
            };
            s.points.iter().map(point).collect()
        })
        .collect();
    let drawn = || series.iter().flatten().flatten();
    let (Some(xs), Some(ys)) = (
        finite_range(drawn().map(|p| p.0)),
        finite_range(drawn().map(|p| p.1)),
    ) else {
        let which = if plot.log_x || plot.log_y {
            "finite point (positive on the log axes)"
        } else {
            "finite point"
        };
        return Err(invalid(path, format!("no series has a {which}")));
    };
    let x_axis = Axis::new(padded(xs), plot.log_x);
    let y_axis = Axis::new(padded(ys), plot.log_y);

    let s = text_scale(size);
    let px = |v: f64| (v * s).round().max(1.0) as u32;
    let (label_font, y_labels, margin) = (px(18.0), px(95.0), px(15.0));
    // About the plot area's size, to space the ticks and place the legend.
    let plot_w = f64::from(size.0.saturating_sub(y_labels + 3 * margin).max(1));
    let plot_h = f64::from(size.1.saturating_sub(px(55.0) + px(70.0) + margin).max(1));
    let x_ticks = x_axis.ticks((plot_w / f64::from(6 * label_font)) as usize);
    let y_ticks = y_axis.ticks((plot_h / f64::from(3 * label_font)) as usize);
    let legend = legend_corner(
        plot,
        &series,
        (&x_axis, &y_axis),
        (plot_w, plot_h),
        label_font,
    );
    let n = plot.series.len();
    let colour = |k: usize| {
        if n <= PALETTE.len() {
            PALETTE[k]
        } else {
            let (r, g, b) = HSLColor(k as f64 / n as f64, 0.9, 0.4).rgb();
            RGBColor(r, g, b)
        }
    };
    let (width, dot) = (px(2.0), px(3.0) as i32);

    let mut image = Image::new(path, size)?;
    image.draw(|root| {
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(root)
            .caption(plot.title, (FONT, px(28.0)))
            .margin(margin)
            .margin_right(2 * margin)
            .x_label_area_size(px(55.0))
            .y_label_area_size(y_labels)
            .build_cartesian_2d(
                Ticked::new(x_axis.range, x_ticks.values.clone()),
                Ticked::new(y_axis.range, y_ticks.values.clone()),
            )?;
        chart
            .configure_mesh()
            .bold_line_style(BLACK.mix(0.12))
            .x_desc(plot.x_label)
            .y_desc(plot.y_label)
            .label_style((FONT, label_font))
            .axis_desc_style((FONT, px(22.0)))
            .x_label_formatter(&|v| x_ticks.label(*v))
            .y_label_formatter(&|v| y_ticks.label(*v))
            .draw()?;
        for (k, (s, points)) in plot.series.iter().zip(&series).enumerate() {
            let c = colour(k);
            for run in points.split(Option::is_none) {
                let run: Vec<(f64, f64)> = run.iter().flatten().copied().collect();
                if s.style == Style::Line && run.len() > 1 {
                    chart.draw_series(LineSeries::new(run, c.stroke_width(width)))?;
                } else {
                    chart.draw_series(run.into_iter().map(|p| Circle::new(p, dot, c.filled())))?;
                }
            }
            if s.label.is_empty() {
                continue;
            }
            // A line for a line, a dot for points.
            let (line, radius) = match s.style {
                Style::Line => (vec![(-11, 0), (11, 0)], 0),
                Style::Points => (Vec::new(), dot),
            };
            chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
                .label(s.label)
                .legend(move |(x, y)| {
                    EmptyElement::at((x + 11, y))
                        + PathElement::new(line.clone(), c.stroke_width(width))
                        + Circle::new((0, 0), radius, c.filled())
                });
        }
        if plot.series.iter().any(|s| !s.label.is_empty()) {
            chart
                .configure_series_labels()
                .position(legend)
                .label_font((FONT, label_font))
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK.mix(0.5))
                .draw()?;
        }
        Ok(())
    })?;
    image.write_png()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::testutil::*;
    use crate::plot::{MAX_PIXELS, MIN_SIZE};
    use crate::test_case;

    /// A plot of `series` on linear axes.
    fn linear<'a>(series: &'a [Series<'a>]) -> LinePlot<'a> {
        LinePlot {
            title: "Density along y = 0.5",
            x_label: "x",
            y_label: "density",
            series,
            log_x: false,
            log_y: false,
        }
    }

    /// A computed profile (a line, blue) and the exact one (points, red),
    /// with points that are not finite: both drawn, with a legend.
    #[test]
    fn series_are_drawn_in_their_colours() {
        let dir = test_case::temp_dir("plot-lines");
        let path = dir.join("profile.png");
        let mut computed: Vec<(f64, f64)> = (0..400)
            .map(|i| {
                let x = 0.01 * i as f64;
                (x, 1.35 + 0.35 * (10.0 * (x - 1.8)).tanh())
            })
            .collect();
        computed[100].1 = f64::NAN;
        computed[200].0 = f64::INFINITY;
        let exact: Vec<(f64, f64)> = (0..41)
            .map(|i| (0.1 * i as f64, if i < 18 { 1.0 } else { 1.7 }))
            .chain([(f64::NAN, 1.0)])
            .collect();
        let series = [
            Series {
                label: "computed",
                points: &computed,
                style: Style::Line,
            },
            Series {
                label: "exact",
                points: &exact,
                style: Style::Points,
            },
        ];
        plot_lines(&path, &linear(&series), (1000, 700)).unwrap();
        let png = Png::read(&path);
        assert_eq!((png.width, png.height), (1000, 700));
        assert!(png.find(blue).len() > 1000, "the line");
        assert!(png.find(red).len() > 41 * 20, "the points");
        assert!(png.find(dark).len() > 1500, "labels drawn");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file"
        );

        // More series than colours: evenly spaced hues, all distinct.
        let many: Vec<Series> = (0..12)
            .map(|_| Series {
                label: "",
                points: &exact,
                style: Style::Line,
            })
            .collect();
        plot_lines(&path, &linear(&many), MIN_SIZE).unwrap();
        assert_eq!(Png::read(&path).width as u32, MIN_SIZE.0);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// An error falling as the square of the grid size is a straight line
    /// on log axes; values that are not positive are skipped there.
    #[test]
    fn power_law_is_straight_on_log_axes() {
        let dir = test_case::temp_dir("plot-lines-log");
        let path = dir.join("error.png");
        let error: Vec<(f64, f64)> = [0.0, 100.0, 200.0, 400.0, 800.0, 1600.0, 3200.0, 6400.0]
            .iter()
            .map(|&n| (n, 3.0 / (n * n)))
            .chain([(10.0, -1.0), (10.0, 0.0)])
            .collect();
        let series = [Series {
            label: "",
            points: &error,
            style: Style::Line,
        }];
        let plot = LinePlot {
            log_x: true,
            log_y: true,
            ..linear(&series)
        };
        plot_lines(&path, &plot, (1000, 700)).unwrap();
        let line = Png::read(&path).find(blue);
        assert!(line.len() > 500);
        // Columns and rows of the line are related linearly.
        let (c0, c1) = line
            .iter()
            .fold((usize::MAX, 0), |(a, b), p| (a.min(p.0), b.max(p.0)));
        let row_at = |f: f64| {
            let c = c0 as f64 + f * (c1 - c0) as f64;
            let near: Vec<f64> = line
                .iter()
                .filter(|p| (p.0 as f64 - c).abs() <= 2.0)
                .map(|p| p.1 as f64)
                .collect();
            near.iter().sum::<f64>() / near.len() as f64
        };
        let r = [0.1, 0.5, 0.9].map(row_at);
        let (first, second) = (r[1] - r[0], r[2] - r[1]);
        assert!(
            first > 100.0 && (first - second).abs() < 0.05 * first,
            "{r:?}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn line_plot_refuses_what_it_cannot_draw() {
        let dir = test_case::temp_dir("plot-lines-errors");
        let path = dir.join("lines.png");
        let nan = [(f64::NAN, 1.0), (1.0, f64::INFINITY)];
        let negative = [(1.0, -1.0), (2.0, 0.0)];
        let good = [(1.0, 1.0), (2.0, 3.0)];
        let one = |points| {
            [Series {
                label: "a",
                points,
                style: Style::Points,
            }]
        };
        let (nan, negative, good) = (one(&nan), one(&negative), one(&good));
        for plot in [
            linear(&[]),
            linear(&nan),
            LinePlot {
                log_y: true,
                ..linear(&negative)
            },
        ] {
            let e = plot_lines(&path, &plot, (800, 600)).unwrap_err();
            assert!(
                e.to_string().contains("no series has a finite point"),
                "{e}"
            );
        }
        let huge = (1 << 16, (MAX_PIXELS >> 16) as u32 + 1);
        for size in [(0, 0), (MIN_SIZE.0 - 1, 600), (800, MIN_SIZE.1 - 1), huge] {
            let e = plot_lines(&path, &linear(&good), size).unwrap_err();
            assert!(e.to_string().contains("image size"), "{e}");
        }
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "nothing written"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
