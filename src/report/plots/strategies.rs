//! The comparison of judging strategies (studies run with `--strategies`): against the
//! fraction of each topic's budget, the held-out runs' mean paired rank change (left) and the
//! held-out trials' mean paired tau_b (right), one line per strategy, with the limits a
//! reusable collection keeps (rank change below 1, tau_b at least 0.9).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::chart::fraction_chart;
use super::drawing::{Canvas, DrawResult, DrawingResult};
use super::legend::{Legend, LegendEntry, Mark};
use super::style::{palette_colour, THRESHOLD_COLOUR};
use crate::sim::analysis::budget::EQUIVALENT_TAU_B;
use crate::sim::analysis::strategies::RANK_CHANGE_LIMIT;
use crate::sim::analysis::StrategyRow;

/// One strategy's line: its name and (fraction, value) points, fractions ascending.
type Line = (String, Vec<(f64, f64)>);

pub(super) fn draw<DB: DrawingBackend>(canvas: &Canvas<'_, DB>) -> DrawingResult<DB, Legend> {
    let (results, measure) = (canvas.results, canvas.measure);
    let rows: Vec<&StrategyRow> = (results.strategies.iter())
        .filter(|row| row.measure == measure)
        .collect();
    let rank_changes = lines(&rows, |row| row.rank_change_mean);
    let taus = lines(&rows, |row| row.paired_tau_b);
    let plot = canvas.plot;
    let (left, right) = plot.split_horizontally(plot.dim_in_pixel().0 / 2);
    let highest_change = (rank_changes.iter())
        .flat_map(|(_, points)| points.iter().map(|&(_, y)| y))
        .fold(RANK_CHANGE_LIMIT, f64::max);
    panel(
        &left,
        &rank_changes,
        (lowest(&rank_changes).min(0.0) - 0.05, highest_change * 1.1),
        RANK_CHANGE_LIMIT,
        format!("held-out runs' mean paired rank change ({measure})"),
    )?;
    let lowest_tau = lowest(&taus).min(EQUIVALENT_TAU_B);
    panel(
        &right,
        &taus,
        (((lowest_tau - 0.02) * 20.0).floor() / 20.0, 1.005),
        EQUIVALENT_TAU_B,
        format!("paired tau_b ({measure})"),
    )?;
    let mut entries: Vec<LegendEntry> = (rank_changes.iter().enumerate())
        .map(|(pos, (name, _))| LegendEntry::new(name.clone(), palette_colour(pos), Mark::Line))
        .collect();
    entries.push(LegendEntry::new(
        "rank change 1, tau_b 0.9",
        THRESHOLD_COLOUR,
        Mark::Dashed,
    ));
    Ok(Legend {
        title: "strategy",
        entries,
    })
}

/// The smallest value of any line (infinity when there is none).
fn lowest(lines: &[Line]) -> f64 {
    (lines.iter())
        .flat_map(|(_, points)| points.iter().map(|&(_, y)| y))
        .fold(f64::INFINITY, f64::min)
}

/// One panel: every line against the fraction over `y_range`, with a dashed `limit`.
fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &[Line],
    (y_min, y_max): (f64, f64),
    limit: f64,
    y_title: String,
) -> DrawResult<DB> {
    let mut chart = fraction_chart(area, y_title, y_min..y_max, limit)?;
    for (pos, (_, points)) in lines.iter().enumerate() {
        let colour = palette_colour(pos);
        chart.draw_series(LineSeries::new(points.clone(), colour.stroke_width(3)))?;
        chart.draw_series((points.iter()).map(|&point| Circle::new(point, 5, colour.filled())))?;
    }
    Ok(())
}

/// Per strategy (in the rows' order), the points of `value` over the fractions, rows whose
/// value is undefined left out.
fn lines(rows: &[&StrategyRow], value: impl Fn(&StrategyRow) -> Option<f64>) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    for row in rows {
        if lines.last().is_none_or(|(name, _)| name != &row.strategy) {
            lines.push((row.strategy.clone(), Vec::new()));
        }
        if let Some(value) = value(row) {
            let (_, points) = lines.last_mut().expect("a line was just pushed");
            points.push((row.fraction, value));
        }
    }
    lines
}
