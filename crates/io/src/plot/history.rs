//! The convergence history: a method's values against the iteration.

use std::ops::Range;
use std::path::Path;

use plotters::prelude::*;

use super::{draw_curve, finite_range, invalid, padded, tick_label, Area, Drawn, Image, PlotError};
use super::{FONT, HISTORY_SIZE};

/// The column of q-LSKUM's history drawn in the upper panel: log10 of the
/// residue relative to iteration 2.
const LOG_RESIDUE: &str = "log10_residue";

/// The column of q-LSKUM's history drawn in the lower panel: the lift
/// coefficient.
const LIFT: &str = "cl";

/// The ratio of the largest to the smallest value of a column beyond which
/// the generic plot draws it on a log scale: two decades.
const LOG_SPAN: f64 = 100.0;

/// One iteration of a history as the plot needs it: its number and its
/// values, one per column.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryRow {
    /// The iteration.
    pub iteration: u64,
    /// Its values, in the columns' order.
    pub values: Vec<f64>,
}

/// Plots a run's history, [`HISTORY_SIZE`] pixels; `columns` names the
/// values of every row, in order (as the run driver's `history.csv` has
/// them).
///
/// - With the columns `log10_residue` and `cl` (q-LSKUM's history): log10 of
///   the residue (relative to iteration 2, as `history.csv` has it) against
///   the iteration in the upper panel, Cl in the lower.
/// - With any other columns: the first column against the iteration, on a
///   log scale (log10 of the value) when every finite value is positive and
///   they span more than two decades, else on a linear scale.
///
/// Non-finite values are left out (the line breaks there). An error, and
/// nothing written, for a history without rows or columns, a row with more
/// or fewer values than there are columns, or nothing finite to draw.
pub fn plot_history(path: &Path, columns: &[&str], rows: &[HistoryRow]) -> Result<(), PlotError> {
    if columns.is_empty() {
        return Err(invalid(path, "the history has no columns"));
    }
    if rows.is_empty() {
        return Err(invalid(path, "the history has no rows"));
    }
    if let Some((k, r)) = rows
        .iter()
        .enumerate()
        .find(|(_, r)| r.values.len() != columns.len())
    {
        return Err(invalid(
            path,
            format!(
                "row {} (iteration {}) has {} values for the {} columns {columns:?}",
                k + 1,
                r.iteration,
                r.values.len(),
                columns.len()
            ),
        ));
    }
    // Iterations are drawn on a real axis: plotters 0.3.7 loops forever
    // computing the light mesh lines of an integer axis when they are turned
    // off.
    let series = |k: usize| -> Vec<(f64, f64)> {
        rows.iter()
            .map(|r| (r.iteration as f64, r.values[k]))
            .collect()
    };
    let column = |name: &str| columns.iter().position(|c| *c == name);
    let iterations = iteration_range(rows);
    if let (Some(residue), Some(cl)) = (column(LOG_RESIDUE), column(LIFT)) {
        let (residue, cl) = (series(residue), series(cl));
        if !residue.iter().chain(&cl).any(|p| p.1.is_finite()) {
            return Err(invalid(path, "no finite residue or Cl in the history"));
        }
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
    } else {
        let name = columns[0];
        let mut points = series(0);
        let Some(range) = finite_range(points.iter().map(|p| p.1)) else {
            return Err(invalid(
                path,
                format!("no finite value of {name} in the history"),
            ));
        };
        let desc = if log_scale(range) {
            for p in &mut points {
                p.1 = p.1.log10();
            }
            format!("log10({name})")
        } else {
            name.to_string()
        };
        let mut image = Image::new(path, HISTORY_SIZE)?;
        image.draw(|root| {
            root.fill(&WHITE)?;
            let root = root.titled("Convergence history", (FONT, 30))?;
            history_panel(&root, iterations, &points, &desc, Some("iteration"), BLUE)
        })?;
        image.write_png()
    }
}

/// Whether values from `lo` to `hi` (finite) are drawn on a log scale: all
/// positive, spanning more than [`LOG_SPAN`].
fn log_scale((lo, hi): (f64, f64)) -> bool {
    lo > 0.0 && hi / lo > LOG_SPAN
}

/// The iterations the x axis spans: from the first row's to the last's, or
/// one either side of a single iteration (one row, or one iteration repeated
/// by a resumed run).
fn iteration_range(rows: &[HistoryRow]) -> Range<u64> {
    let first = rows.iter().map(|r| r.iteration).min().unwrap_or(0);
    let last = rows.iter().map(|r| r.iteration).max().unwrap_or(0);
    if first == last {
        first.saturating_sub(1)..last + 1
    } else {
        first..last
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::testutil::*;
    use crate::test_case;

    /// The columns of q-LSKUM's history.
    const LSKUM: [&str; 5] = ["log10_residue", "residue", "cl", "cd", "cm"];

    /// A q-LSKUM history of `n` iterations: the residue falls six orders, Cl
    /// rises to 0.33, both with damped oscillations.
    fn history(n: u64) -> Vec<HistoryRow> {
        (1..=n)
            .map(|i| {
                let t = i as f64;
                let wave = |period: f64, decay: f64| (t / period).sin() * (-t / decay).exp();
                let log_residue = if i <= 2 {
                    0.0
                } else {
                    -6.0 * (1.0 - (-t / 400.0).exp()) + 0.2 * wave(15.0, 300.0)
                };
                let cl = 0.33 * (1.0 - (-t / 150.0).exp()) + 0.05 * wave(20.0, 200.0);
                HistoryRow {
                    iteration: i,
                    values: vec![log_residue, 1e-3, cl, 1e-3, -0.01],
                }
            })
            .collect()
    }

    /// A history of one column whose values are `value(i)` at iterations
    /// `1..=n`.
    fn one_column(n: u64, value: impl Fn(f64) -> f64) -> Vec<HistoryRow> {
        (1..=n)
            .map(|i| HistoryRow {
                iteration: i,
                values: vec![value(i as f64)],
            })
            .collect()
    }

    #[test]
    fn history_plot_has_both_curves_and_text() {
        let dir = test_case::temp_dir("plot-history");
        let path = dir.join("history.png");
        plot_history(&path, &LSKUM, &history(2000)).unwrap();
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
        let e = plot_history(&path, &LSKUM, &[]).unwrap_err();
        assert!(matches!(e, PlotError::Invalid { .. }), "{e}");
        assert!(e.to_string().contains("history.png"), "{e}");
        assert!(!path.exists());

        // One iteration: dots.
        plot_history(&path, &LSKUM, &history(1)).unwrap();
        let png = Png::read(&path);
        assert!(!png.find(blue).is_empty() && !png.find(red).is_empty());

        // Non-finite values break the curves; a panel without a finite
        // value says so.
        let mut rows = history(50);
        rows[10].values[0] = f64::NAN;
        rows[20].values[0] = f64::INFINITY;
        for r in &mut rows {
            r.values[2] = f64::NAN;
        }
        plot_history(&path, &LSKUM, &rows).unwrap();
        let png = Png::read(&path);
        assert!(!png.find(blue).is_empty() && png.find(red).is_empty());

        for r in &mut rows {
            r.values[0] = f64::NEG_INFINITY;
        }
        let e = plot_history(&path, &LSKUM, &rows).unwrap_err();
        assert!(e.to_string().contains("no finite"), "{e}");

        // The same iteration repeated (a resumed run): a zero-width range.
        let mut rows = history(3);
        for r in &mut rows {
            r.iteration = 7;
        }
        plot_history(&path, &LSKUM, &rows).unwrap();

        // The columns are found by name, in any order.
        let rows: Vec<HistoryRow> = history(300)
            .into_iter()
            .map(|mut r| {
                r.values.swap(0, 2);
                r
            })
            .collect();
        let swapped = ["cl", "residue", "log10_residue", "cd", "cm"];
        plot_history(&path, &swapped, &rows).unwrap();
        let png = Png::read(&path);
        assert!(png.find(blue).iter().all(|p| p.1 < png.height / 2));
        assert!(png.find(red).iter().all(|p| p.1 > png.height / 2));

        // Rows that do not match the columns, and no columns.
        let mut rows = history(5);
        rows[3].values.pop();
        let e = plot_history(&path, &LSKUM, &rows).unwrap_err();
        assert!(
            e.to_string()
                .contains("row 4 (iteration 4) has 4 values for the 5 columns"),
            "{e}"
        );
        let e = plot_history(&path, &[], &one_column(3, |_| 1.0)).unwrap_err();
        assert!(e.to_string().contains("no columns"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The mean row of the blue pixels in the columns around each of the
    /// fractions `at` of the curve's width.
    fn curve_rows(png: &Png, at: &[f64]) -> Vec<f64> {
        let curve = png.find(blue);
        let (x0, x1) = curve
            .iter()
            .fold((usize::MAX, 0), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
        at.iter()
            .map(|f| {
                let x = x0 as f64 + f * (x1 - x0) as f64;
                let near: Vec<f64> = curve
                    .iter()
                    .filter(|p| (p.0 as f64 - x).abs() <= 3.0)
                    .map(|p| p.1 as f64)
                    .collect();
                assert!(!near.is_empty(), "no curve at {f}");
                near.iter().sum::<f64>() / near.len() as f64
            })
            .collect()
    }

    #[test]
    fn other_columns_plot_the_first_on_a_log_or_linear_scale() {
        let dir = test_case::temp_dir("plot-history-generic");
        let path = dir.join("history.png");
        let n = 1000;
        // A finite-volume method's residue falling six decades at a steady
        // rate, then a column that is not drawn: a log scale, on which the
        // fall is a straight line from the top to the bottom of one panel.
        let rows: Vec<HistoryRow> = one_column(n, |t| 10f64.powf(-6.0 * t / n as f64))
            .into_iter()
            .map(|mut r| {
                r.values.push(f64::NAN);
                r
            })
            .collect();
        plot_history(&path, &["rms", "other"], &rows).unwrap();
        let png = Png::read(&path);
        assert_eq!((png.width as u32, png.height as u32), HISTORY_SIZE);
        assert!(png.find(red).is_empty());
        let curve = png.find(blue);
        assert!(curve.len() > 500);
        let top = curve.iter().map(|p| p.1).min().unwrap();
        let bottom = curve.iter().map(|p| p.1).max().unwrap();
        assert!(
            top < png.height / 4 && bottom > 3 * png.height / 4,
            "one panel: rows {top} to {bottom}"
        );
        let r = curve_rows(&png, &[0.1, 0.5, 0.9]);
        let (first, second) = (r[1] - r[0], r[2] - r[1]);
        assert!(
            first > 100.0 && (first - second).abs() < 0.1 * first,
            "a straight fall: {r:?}"
        );
        assert!(png.find(dark).len() > 1500, "labels drawn");

        // One decade: a linear scale, on which the fall flattens out.
        plot_history(
            &path,
            &["rms"],
            &one_column(n, |t| 10f64.powf(-t / n as f64)),
        )
        .unwrap();
        let r = curve_rows(&Png::read(&path), &[0.1, 0.5, 0.9]);
        let (first, second) = (r[1] - r[0], r[2] - r[1]);
        assert!(
            first > 2.0 * second && second > 0.0,
            "a flattening fall: {r:?}"
        );

        // Values of both signs: linear.
        plot_history(&path, &["x"], &one_column(n, |t| 0.5 - t / n as f64)).unwrap();
        let r = curve_rows(&Png::read(&path), &[0.1, 0.5, 0.9]);
        let (first, second) = (r[1] - r[0], r[2] - r[1]);
        assert!(
            first > 100.0 && (first - second).abs() < 0.1 * first,
            "a straight fall: {r:?}"
        );

        // Nothing finite to draw, only the other columns.
        let rows = one_column(5, |_| f64::NAN);
        let e = plot_history(&path, &["rms"], &rows).unwrap_err();
        assert!(
            matches!(e, PlotError::Invalid { .. })
                && e.to_string().contains("no finite value of rms"),
            "{e}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn log_scale_needs_positive_values_over_two_decades() {
        assert!(log_scale((1e-6, 1.0)));
        assert!(log_scale((1e-300, 1e300)));
        assert!(!log_scale((0.01, 1.0)));
        assert!(!log_scale((0.0, 1.0)));
        assert!(!log_scale((-1.0, 1e6)));
        assert!(!log_scale((3.0, 3.0)));
    }
}
