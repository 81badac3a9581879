//! Where the parts of a grid field's picture go.

use std::ops::Range;

use plotters::prelude::*;

use crate::plot::text::PlotBackend;
use crate::plot::{text_scale, Area};

/// Extra margins (pixels) that shrink the plot area to the rectangle's
/// aspect ratio.
#[derive(Clone, Copy, Default)]
pub(super) struct Pads {
    pub(super) left: u32,
    pub(super) right: u32,
    pub(super) top: u32,
    pub(super) bottom: u32,
}

/// Sizes (pixels) of the parts of [`plot_grid_field`](super::plot_grid_field)'s image.
pub(super) struct GridLayout {
    pub(super) title: u32,
    pub(super) margin: u32,
    pub(super) x_labels: u32,
    pub(super) y_labels: u32,
    pub(super) bar_width: u32,
    pub(super) bar_labels: u32,
    pub(super) label_font: u32,
    pub(super) desc_font: u32,
}

impl GridLayout {
    /// The sizes for an image of `size` pixels.
    pub(super) fn new(size: (u32, u32)) -> Self {
        let s = text_scale(size);
        let px = |v: f64| (v * s).round() as u32;
        GridLayout {
            title: px(30.0),
            margin: px(12.0),
            x_labels: px(55.0),
            y_labels: px(70.0),
            bar_width: px(180.0),
            bar_labels: px(115.0),
            label_font: px(18.0),
            desc_font: px(22.0),
        }
    }

    /// The title's area, the field's and the colour bar's, `pads.top` below
    /// the top of the image. The field's area ends `pads.right` before the
    /// colour bar's room, so title, field and bar stay together in the
    /// middle of the image. Splitting draws nothing.
    pub(super) fn split<'a>(&self, root: &Area<'a>, pads: Pads) -> (Area<'a>, Area<'a>, Area<'a>) {
        let (_, below) = root.split_vertically(pads.top);
        let (title, body) = below.split_vertically(2 * self.title);
        let width = body.dim_in_pixel().0;
        let (field, rest) =
            body.split_horizontally(width.saturating_sub(self.bar_width + pads.right));
        let (bar, _) = rest.split_horizontally(self.bar_width);
        (title, field, bar)
    }

    /// The chart builder of the field, on its area.
    pub(super) fn field_chart<'a, 'b>(
        &self,
        area: &'a Area<'b>,
        pads: Pads,
    ) -> ChartBuilder<'a, 'static, PlotBackend<'b>> {
        let mut b = ChartBuilder::on(area);
        b.margin(self.margin)
            .margin_left(self.margin + pads.left)
            .margin_bottom(self.margin + pads.bottom)
            .x_label_area_size(self.x_labels)
            .y_label_area_size(self.y_labels);
        b
    }

    /// The chart builder of the colour bar, on its area: as high as the
    /// field's plot area, with the labels on the right.
    pub(super) fn bar_chart<'a, 'b>(
        &self,
        area: &'a Area<'b>,
        pads: Pads,
    ) -> ChartBuilder<'a, 'static, PlotBackend<'b>> {
        let mut b = ChartBuilder::on(area);
        b.margin_top(self.margin)
            .margin_bottom(self.margin + pads.bottom)
            .margin_left(self.margin)
            .x_label_area_size(self.x_labels)
            .right_y_label_area_size(self.bar_labels);
        b
    }

    /// The pixels (columns, rows) of the plot area with margins `pads`.
    pub(super) fn plot_pixels(
        &self,
        root: &Area,
        pads: Pads,
    ) -> Result<(Range<i32>, Range<i32>), Box<dyn std::error::Error>> {
        let (_, field_area, _) = self.split(root, pads);
        let chart = self
            .field_chart(&field_area, pads)
            .build_cartesian_2d(0.0..1.0, 0.0..1.0)?;
        Ok(chart.plotting_area().get_pixel_range())
    }
}
