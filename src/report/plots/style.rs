//! The figures' shared style: text sizes in the embedded font, the palette and the teams'
//! colours.

use plotters::prelude::*;

use super::font;

/// Text of the given pixel size in the embedded font.
pub(super) fn text(size: u32) -> TextStyle<'static> {
    (font::FAMILY, size).into_font().color(&BLACK)
}

/// The caption's font size.
pub(super) const CAPTION_SIZE: u32 = 21;
/// Axis titles.
pub(super) const AXIS_TITLE_SIZE: u32 = 18;
/// Tick and run labels.
pub(super) const LABEL_SIZE: u32 = 14;
/// Legend entries.
pub(super) const LEGEND_SIZE: u32 = 15;

/// Categorical colours (Tableau 10, then two darker extras), cycled when there are more teams.
pub(super) const PALETTE: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(57, 59, 121),
    RGBColor(132, 60, 57),
];

/// The colour of the limit a reusable collection keeps (tau_b 0.9, rank change 1).
pub(super) const THRESHOLD_COLOUR: RGBColor = RGBColor(200, 30, 30);

/// The palette's colour at `position`, cycling.
pub(super) fn palette_colour(position: usize) -> RGBColor {
    PALETTE[position % PALETTE.len()]
}

/// The colour of a team: its position in the sorted team list picks a palette entry.
pub(super) fn team_colour(teams: &[String], team: &str) -> RGBColor {
    palette_colour(teams.iter().position(|t| t == team).unwrap_or(0))
}
