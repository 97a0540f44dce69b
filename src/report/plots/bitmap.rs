//! The PNG drawing backend: plotters' `BitMapBackend` with its own text rendering.
//!
//! Why: plotters 0.3.7's `ab_glyph` renderer draws each glyph at the pen position without
//! its left side bearing, so letters drift apart or collide ("baselin e", "team 01"). Here each
//! glyph is placed by `ab_glyph` at its proper position (advance, kerning and bearing), then
//! anchored and rotated as plotters would. Everything else is delegated unchanged. SVG files
//! are not affected: they hold text, laid out by the viewer.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, ScaleFont};
use plotters::backend::BitMapBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

use super::font::DEJAVU_SANS;

/// The embedded font, parsed once.
fn font() -> Option<&'static FontRef<'static>> {
    static FONT: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(DEJAVU_SANS).ok())
        .as_ref()
}

/// A `BitMapBackend` whose text is laid out glyph by glyph with correct spacing.
pub(super) struct Bitmap<'a>(pub(super) BitMapBackend<'a>);

type BitmapError = <BitMapBackend<'static> as DrawingBackend>::ErrorType;

impl DrawingBackend for Bitmap<'_> {
    type ErrorType = BitmapError;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vertices: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.fill_polygon(vertices, style)
    }

    fn blit_bitmap(
        &mut self,
        position: BackendCoord,
        (width, height): (u32, u32),
        source: &[u8],
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.blit_bitmap(position, (width, height), source)
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        position: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let Some(font) = font() else {
            // Unreachable once `font::register` succeeded; plotters' own renderer is the
            // fallback rather than an error.
            return self.0.draw_text(text, style, position);
        };
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        // The same scale plotters uses, so its size estimates (label areas) stay valid.
        let scaled = font.as_scaled(style.size() as f32);
        let mut glyphs = Vec::with_capacity(text.len());
        let mut caret = 0.0f32;
        let mut previous = None;
        for character in text.chars() {
            let id = scaled.glyph_id(character);
            if let Some(previous) = previous {
                caret += scaled.kern(previous, id);
            }
            glyphs.push(id.with_scale_and_position(scaled.scale(), point(caret, scaled.ascent())));
            caret += scaled.h_advance(id);
            previous = Some(id);
        }
        let width = caret.round() as i32;
        let height = (scaled.ascent() - scaled.descent()).round() as i32;
        let anchor = style.anchor();
        let dx = match anchor.h_pos {
            HPos::Left => 0,
            HPos::Center => -width / 2,
            HPos::Right => -width,
        };
        let dy = match anchor.v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let transform = style.transform();
        let (canvas_width, canvas_height) = self.get_size();
        let mut result = Ok(());
        for glyph in glyphs {
            let Some(outline) = font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outline.px_bounds();
            outline.draw(|x, y, coverage| {
                if result.is_err() || coverage <= 0.0 {
                    return;
                }
                let local_x = bounds.min.x as i32 + x as i32 + dx;
                let local_y = bounds.min.y as i32 + y as i32 + dy;
                let (turned_x, turned_y) = transform.transform(local_x, local_y);
                let (pixel_x, pixel_y) = (position.0 + turned_x, position.1 + turned_y);
                if pixel_x >= 0
                    && pixel_y >= 0
                    && pixel_x < canvas_width as i32
                    && pixel_y < canvas_height as i32
                {
                    let shade = BackendColor {
                        alpha: color.alpha * f64::from(coverage.min(1.0)),
                        rgb: color.rgb,
                    };
                    result = self.0.draw_pixel((pixel_x, pixel_y), shade);
                }
            });
        }
        result
    }
}
