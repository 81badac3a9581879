//! The surface pressure coefficient against x/c.

use std::path::Path;

use plotters::prelude::*;
use qflow_mesh::Cloud;

use super::SURFACE_CP_SIZE;
use super::{draw_curve, finite_range, invalid, padded, tick_label, Image, PlotError, FONT};
use crate::surface::{surface_rows, SurfaceRow};

/// Plots the surface pressure coefficient of every body of `cloud` (`cp[i]`
/// that of point `i`, see [`surface_rows`]) against x/c, with the Cp axis
/// pointing down (suction, negative Cp, up: the aerodynamicist's
/// convention), the upper and lower surfaces in different colours, and the
/// sonic value `cp_star` (the method's, for its gas) as a dashed line when
/// it falls within the plot; the title gives the free stream's Mach number
/// `mach` and angle of attack `alpha_degrees`; [`SURFACE_CP_SIZE`] pixels.
/// The surfaces are split at each body's point of least x; the one with the
/// larger mean y is the upper surface.
pub fn plot_surface_cp(
    path: &Path,
    cloud: &Cloud,
    cp: &[f64],
    mach: f64,
    alpha_degrees: f64,
    cp_star: Option<f64>,
) -> Result<(), PlotError> {
    let rows = surface_rows(cloud, cp).map_err(|e| invalid(path, e.to_string()))?;
    if rows.is_empty() {
        return Err(invalid(
            path,
            "the cloud has no body (no point with a shape id)",
        ));
    }
    plot_cp_rows(path, &rows, mach, alpha_degrees, cp_star)
}

/// [`plot_surface_cp`] of any surface: `rows` body by body (consecutive
/// rows of one `shape`), each body's rows in order along its surface, for
/// a free stream of Mach number `mach` at `alpha_degrees`, with the sonic
/// line at `cp_star`.
pub fn plot_cp_rows(
    path: &Path,
    rows: &[SurfaceRow],
    mach: f64,
    alpha_degrees: f64,
    cp_star: Option<f64>,
) -> Result<(), PlotError> {
    let Some((lo, hi)) = finite_range(rows.iter().map(|r| r.cp)) else {
        return Err(invalid(
            path,
            if rows.is_empty() {
                "no surface to plot"
            } else {
                "no finite Cp on the surface"
            },
        ));
    };
    let (lo, hi) = padded((lo, hi));
    let bodies: Vec<&[SurfaceRow]> = rows.chunk_by(|a, b| a.shape == b.shape).collect();
    let mut image = Image::new(path, SURFACE_CP_SIZE)?;
    image.draw(|root| {
        root.fill(&WHITE)?;
        let title = format!(
            "Surface pressure, M = {:.3}, \u{3b1} = {:.2}\u{b0}",
            mach, alpha_degrees
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::testutil::*;
    use crate::test_case;
    use qflow_mesh::{PointKind, NO_POINT};

    #[test]
    fn surface_cp_plot_has_suction_up() {
        let (cloud, flow) = test_case::naca0012();
        let dir = test_case::temp_dir("plot-cp");
        let path = dir.join("cp.png");
        let (mach, star) = (test_case::FREE_MACH, Some(-1.0));
        plot_surface_cp(&path, &cloud, &flow.cp, mach, 2.0, star).unwrap();
        let png = Png::read(&path);
        assert_eq!((png.width as u32, png.height as u32), SURFACE_CP_SIZE);
        let (upper, lower) = (png.find(blue), png.find(red));
        assert!(upper.len() > 1000 && lower.len() > 1000);
        // The upper surface, with the stronger suction (more negative Cp),
        // is drawn higher in the image: the Cp axis points down.
        let mean_row = |p: &[(usize, usize)]| p.iter().map(|q| q.1).sum::<usize>() / p.len();
        assert!(mean_row(&upper) + 50 < mean_row(&lower));
        assert!(png.find(dark).len() > 2000, "labels drawn");
        // The sonic line: dashes across the plot, more dark pixels than
        // without it (or with it outside the plot).
        let without = dir.join("cp-no-star.png");
        plot_surface_cp(&without, &cloud, &flow.cp, mach, 2.0, None).unwrap();
        let outside = dir.join("cp-star-outside.png");
        plot_surface_cp(&outside, &cloud, &flow.cp, mach, 2.0, Some(-5.0)).unwrap();
        let dark_count = |p: &std::path::Path| Png::read(p).find(dark).len();
        assert_eq!(dark_count(&without), dark_count(&outside));
        assert!(dark_count(&path) > dark_count(&without) + 500);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn surface_cp_plot_edge_cases() {
        let (mut cloud, flow) = test_case::naca0012();
        let mut cp = flow.cp;
        let dir = test_case::temp_dir("plot-cp-edges");
        let path = dir.join("cp.png");
        let plot = |cloud: &Cloud, cp: &[f64]| plot_surface_cp(&path, cloud, cp, 0.63, 2.0, None);
        // Some non-finite values on the surface: the curves break there.
        for k in [3, 17, 40] {
            cp[k] = f64::NAN;
        }
        plot(&cloud, &cp).unwrap();
        // None finite.
        cp.iter_mut().for_each(|c| *c = f64::NAN);
        let e = plot(&cloud, &cp).unwrap_err();
        assert!(e.to_string().contains("no finite Cp"), "{e}");
        // No body.
        cloud.shape.iter_mut().for_each(|s| *s = 0);
        let e = plot(&cloud, &cp).unwrap_err();
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
        plot(&one, &[0.0]).unwrap();
        assert!(!Png::read(&path).find(blue).is_empty());
        // Wrong number of values.
        let e = plot(&one, &[]).unwrap_err();
        assert!(matches!(e, PlotError::Invalid { .. }), "{e}");
        assert!(
            e.to_string().contains("`cp` has 0 values for 1 points"),
            "{e}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
