//! The legend column at the right of each figure: its entries, how each is marked, and how
//! it is drawn so that it never covers data.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::drawing::DrawResult;
use super::style::{team_colour, text, LEGEND_SIZE};

/// How a legend entry is drawn.
#[derive(Debug, Clone, Copy)]
pub(super) enum Mark {
    /// A filled circle.
    Dot,
    /// An open circle.
    Ring,
    /// A filled square.
    Square,
    /// An open square.
    OpenSquare,
    /// A solid line.
    Line,
    /// A vertical bar (a range).
    Bar,
    /// A dashed line.
    Dashed,
    /// A cross.
    Cross,
}

/// One legend line.
pub(super) struct LegendEntry {
    label: String,
    colour: RGBColor,
    mark: Mark,
}

impl LegendEntry {
    pub(super) fn new(label: impl Into<String>, colour: RGBColor, mark: Mark) -> Self {
        Self {
            label: label.into(),
            colour,
            mark,
        }
    }
}

/// What a figure's legend says: a title (empty for none) over its entries.
pub(super) struct Legend {
    pub(super) title: &'static str,
    pub(super) entries: Vec<LegendEntry>,
}

impl Legend {
    /// A legend without a title.
    pub(super) fn untitled(entries: Vec<LegendEntry>) -> Self {
        Self { title: "", entries }
    }
}

/// One legend entry per team, in its colour.
pub(super) fn team_entries(teams: &[String]) -> impl Iterator<Item = LegendEntry> + '_ {
    teams
        .iter()
        .map(|team| LegendEntry::new(team.clone(), team_colour(teams, team), Mark::Square))
}

/// Draws `legend` in its own column `area`, so it never covers data. Entries that do not fit
/// are summarised in a last line.
pub(super) fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    legend: &Legend,
) -> DrawResult<DB> {
    const LINE_HEIGHT: i32 = 22;
    const TOP: i32 = 30;
    let entries = &legend.entries;
    let (_, height) = area.dim_in_pixel();
    if !legend.title.is_empty() {
        area.draw(&Text::new(
            legend.title.to_string(),
            (8, TOP),
            text(LEGEND_SIZE).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    let fitting = ((height as i32 - TOP - 2 * LINE_HEIGHT) / LINE_HEIGHT).max(1) as usize;
    for (index, entry) in entries.iter().take(fitting).enumerate() {
        let y = TOP + LINE_HEIGHT * (index as i32 + 1);
        draw_mark(area, entry.mark, entry.colour, (20, y))?;
        area.draw(&Text::new(
            entry.label.clone(),
            (40, y),
            text(LEGEND_SIZE).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    if entries.len() > fitting {
        let y = TOP + LINE_HEIGHT * (fitting as i32 + 1);
        area.draw(&Text::new(
            format!("… and {} more", entries.len() - fitting),
            (40, y),
            text(LEGEND_SIZE).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// Draws `mark` in `colour` centred at `(x, y)`.
fn draw_mark<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    mark: Mark,
    colour: RGBColor,
    (x, y): (i32, i32),
) -> DrawResult<DB> {
    match mark {
        Mark::Dot => area.draw(&Circle::new((x, y), 5, colour.filled())),
        Mark::Ring => area.draw(&Circle::new((x, y), 5, colour.stroke_width(2))),
        Mark::Square => area.draw(&Rectangle::new(
            [(x - 6, y - 6), (x + 6, y + 6)],
            colour.filled(),
        )),
        Mark::OpenSquare => area.draw(&Rectangle::new(
            [(x - 6, y - 6), (x + 6, y + 6)],
            colour.stroke_width(2),
        )),
        Mark::Line => area.draw(&PathElement::new(
            vec![(x - 10, y), (x + 10, y)],
            colour.stroke_width(3),
        )),
        Mark::Bar => area.draw(&Rectangle::new(
            [(x - 2, y - 9), (x + 2, y + 9)],
            colour.mix(0.45).filled(),
        )),
        Mark::Dashed => {
            for start in [x - 10, x - 1, x + 8] {
                area.draw(&PathElement::new(
                    vec![(start, y), (start + 5, y)],
                    colour.stroke_width(2),
                ))?;
            }
            Ok(())
        }
        Mark::Cross => area.draw(&Cross::new((x, y), 5, colour.stroke_width(2))),
    }
}
