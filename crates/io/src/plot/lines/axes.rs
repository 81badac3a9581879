//! The axes of a line plot, linear or log, and where its legend goes.

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::{LinePlot, Style};
use crate::plot::number_label;

/// One axis: its range in axis space (log10 of the values on a log axis).
pub(super) struct Axis {
    pub(super) range: (f64, f64),
    log: bool,
}

/// An axis's ticks (in axis space) and the digit their labels go to.
pub(super) struct Ticks {
    pub(super) values: Vec<f64>,
    log: bool,
    resolution: f64,
}

impl Ticks {
    /// The label of the tick at `t`.
    pub(super) fn label(&self, t: f64) -> String {
        if self.log {
            let v = 10f64.powf(t);
            number_label(v, 1e-3 * v)
        } else {
            number_label(t, self.resolution)
        }
    }
}

impl Axis {
    pub(super) fn new(range: (f64, f64), log: bool) -> Self {
        Axis { range, log }
    }

    /// At most about `max` ticks (`max` from 2 to 12), at least two, at
    /// round values. On a log axis: 1, 2 and 5 times powers of ten; only
    /// powers of ten (every n-th) when those are too many; 1 to 9 times them
    /// when those are fewer than three; evenly spaced values when the axis
    /// holds fewer than two of those.
    pub(super) fn ticks(&self, max: usize) -> Ticks {
        let max = max.clamp(2, 12);
        let (lo, hi) = self.range;
        let linear = |lo: f64, hi: f64| {
            let ticks = RangedCoordf64::from(lo..hi).key_points(max);
            let step = match ticks.as_slice() {
                [a, b, ..] => b - a,
                _ => hi - lo,
            };
            (ticks, 0.1 * step)
        };
        if !self.log {
            let (values, resolution) = linear(lo, hi);
            return Ticks {
                values,
                log: false,
                resolution,
            };
        }
        let (k0, k1) = (lo.floor() as i32, hi.ceil() as i32);
        let at = |mantissas: &[f64], every: i32| -> Vec<f64> {
            (k0..=k1)
                .filter(|k| k.rem_euclid(every) == 0)
                .flat_map(|k| mantissas.iter().map(move |m| (m * 10f64.powi(k)).log10()))
                .filter(|t| (lo..=hi).contains(t))
                .collect()
        };
        let mut values = at(&[1.0, 2.0, 5.0], 1);
        if values.len() < 3 {
            let all = at(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], 1);
            if all.len() <= max && all.len() > values.len() {
                values = all;
            }
            if values.len() < 2 {
                let (v, _) = linear(10f64.powf(lo), 10f64.powf(hi));
                values = v.into_iter().map(f64::log10).collect();
            }
        } else if values.len() > max {
            let mut every = 1;
            values = at(&[1.0], every);
            while values.len() > max {
                every += 1;
                values = at(&[1.0], every);
            }
        }
        Ticks {
            values,
            log: true,
            resolution: 0.0,
        }
    }
}

/// The corner of the plot for the legend: the one whose legend-sized box
/// holds the fewest points and line pieces (upper right on a tie, then upper
/// left, lower right, lower left).
pub(super) fn legend_corner(
    plot: &LinePlot,
    series: &[Vec<Option<(f64, f64)>>],
    (x, y): (&Axis, &Axis),
    (plot_w, plot_h): (f64, f64),
    font: u32,
) -> SeriesLabelPosition {
    let font = f64::from(font);
    let labelled = plot.series.iter().filter(|s| !s.label.is_empty());
    let chars = labelled.clone().map(|s| s.label.chars().count()).max();
    let rows = labelled.count() as f64;
    let box_w = ((chars.unwrap_or(0) as f64 * 0.6 * font + 4.0 * font) / plot_w).min(1.0);
    let box_h = ((rows * 1.3 * font + font) / plot_h).min(1.0);
    // Each point, and points along each line, as fractions of the axes.
    let unit = |(a, b): (f64, f64)| {
        (
            (a - x.range.0) / (x.range.1 - x.range.0),
            (b - y.range.0) / (y.range.1 - y.range.0),
        )
    };
    let mut samples = Vec::new();
    for (s, points) in plot.series.iter().zip(series) {
        for pair in points.windows(2) {
            match (pair[0], pair[1]) {
                (Some(a), Some(b)) if s.style == Style::Line => {
                    let (a, b) = (unit(a), unit(b));
                    samples.extend((0..8).map(|i| {
                        let f = i as f64 / 8.0;
                        (a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1))
                    }));
                }
                (Some(a), _) => samples.push(unit(a)),
                _ => {}
            }
        }
        if let Some(Some(last)) = points.last() {
            samples.push(unit(*last));
        }
    }
    let corners = [
        (SeriesLabelPosition::UpperRight, true, true),
        (SeriesLabelPosition::UpperLeft, false, true),
        (SeriesLabelPosition::LowerRight, true, false),
        (SeriesLabelPosition::LowerLeft, false, false),
    ];
    let count = |right: bool, upper: bool| {
        let in_x = |u: f64| if right { u > 1.0 - box_w } else { u < box_w };
        let in_y = |v: f64| if upper { v > 1.0 - box_h } else { v < box_h };
        samples.iter().filter(|p| in_x(p.0) && in_y(p.1)).count()
    };
    let best = corners.iter().min_by_key(|c| count(c.1, c.2));
    best.map_or(SeriesLabelPosition::UpperRight, |c| c.0.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::lines::Series;

    #[test]
    fn log_ticks_are_round_and_labels_short() {
        let ticks = |lo: f64, hi: f64, max| Axis::new((lo, hi), true).ticks(max);
        let labels = |t: &Ticks| t.values.iter().map(|&v| t.label(v)).collect::<Vec<_>>();
        assert_eq!(
            labels(&ticks(-3.1, -0.9, 12)),
            ["0.001", "0.002", "0.005", "0.01", "0.02", "0.05", "0.1"]
        );
        assert_eq!(labels(&ticks(-7.5, 0.5, 5)), ["1e-6", "1e-4", "0.01", "1"]);
        assert_eq!(labels(&ticks(2.0, 2.5, 10)), ["100", "200", "300"]);
        assert!(ticks(0.4, 0.5, 10).values.len() >= 2);
        assert_eq!(number_label(1.0 / 3.0, 0.01), "0.33");
        assert_eq!(number_label(-1e-17, 0.01), "0");
        assert_eq!(number_label(123456789.0, 1e6), "1.23e8");
        assert_eq!(number_label(1.5e-5, 1e-7), "1.5e-5");
        assert_eq!(number_label(250.0, 10.0), "250");
    }

    /// The legend goes to the corner the series leave free.
    #[test]
    fn legend_avoids_the_data() {
        let rising = [(0.0, 0.0), (1.0, 1.0)];
        let series = [Series {
            label: "rising",
            points: &rising,
            style: Style::Line,
        }];
        let plot = LinePlot {
            title: "",
            x_label: "x",
            y_label: "y",
            series: &series,
            log_x: false,
            log_y: false,
        };
        let points = vec![rising.iter().map(|&p| Some(p)).collect()];
        let axes = (&Axis::new((0.0, 1.0), false), &Axis::new((0.0, 1.0), false));
        let corner = legend_corner(&plot, &points, axes, (800.0, 600.0), 18);
        assert!(
            matches!(corner, SeriesLabelPosition::UpperLeft),
            "{corner:?}"
        );
    }
}
