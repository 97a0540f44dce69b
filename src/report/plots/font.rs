//! The one font every figure uses: DejaVu Sans, embedded in the binary (its licence is
//! `DejaVuSans-LICENSE.txt` beside it) and registered with plotters' `ab_glyph` renderer, so
//! drawing needs no system font or font library.

use std::sync::OnceLock;

/// The family name figures ask for; the embedded font is registered under it. SVG files name
/// it too, so viewers fall back to their own sans-serif font.
pub const FAMILY: &str = "sans-serif";

/// DejaVu Sans (Bitstream Vera licence, see `DejaVuSans-LICENSE.txt`).
pub(super) static DEJAVU_SANS: &[u8] = include_bytes!("DejaVuSans.ttf");

/// Registers the embedded font once per process; later calls return the first outcome.
///
/// # Errors
/// [`crate::base::error::Error::Plot`] when the embedded bytes are not a usable font (a broken build).
pub fn register() -> crate::base::error::Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let is_registered = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(FAMILY, plotters::style::FontStyle::Normal, DEJAVU_SANS)
            .is_ok()
    });
    if is_registered {
        Ok(())
    } else {
        Err(crate::base::error::Error::Plot {
            figure: "every figure".into(),
            message: "the embedded DejaVu Sans font could not be read".into(),
        })
    }
}
