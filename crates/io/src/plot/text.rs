//! Text: the embedded font, and the backend that draws text with it.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, PxScaleFont, ScaleFont};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::FontStyle;
use plotters_backend::{BackendColor, BackendCoord, BackendTextStyle, DrawingErrorKind};

/// The font, embedded so that no system font is needed.
static FONT_FILE: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// The family name the font is registered under with `plotters`.
pub(super) const FONT: &str = "sans-serif";

/// The embedded font, parsed once per process and registered with
/// `plotters` (whose text layout, such as the legend's, measures text with
/// it); `None` if it cannot be parsed.
pub(super) fn font() -> Option<&'static FontRef<'static>> {
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
pub(super) struct PlotBackend<'a> {
    pub(super) bitmap: BitMapBackend<'a>,
    pub(super) font: &'static FontRef<'static>,
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
