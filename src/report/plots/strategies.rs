//! The comparison of judging strategies (studies run with `--strategies`): against the
//! fraction of each topic's budget, the held-out runs' mean paired rank change (left) and the
//! held-out trials' mean paired tau_b (right), one line per strategy, with the limits a
//! reusable collection keeps (rank change below 1, tau_b at least 0.9).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::tau::THRESHOLD_COLOUR;
use super::PALETTE;
use super::{caption, draw_axes, draw_legend, layout, Axes, DrawResult, LegendEntry, Mark};
use crate::sim::analysis::budget::EQUIVALENT_TAU_B;
use crate::sim::analysis::strategies::RANK_CHANGE_LIMIT;
use crate::sim::analysis::{StrategyRow, StudyResults};

/// One strategy's line: its name and (fraction, value) points, fractions ascending.
type Line = (String, Vec<(f64, f64)>);

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &StudyResults,
    measure: &str,
) -> DrawResult<DB> {
    let rows: Vec<&StrategyRow> = (results.strategies.iter())
        .filter(|row| row.measure == measure)
        .collect();
    let rank_changes = lines(&rows, |row| row.rank_change_mean);
    let taus = lines(&rows, |row| row.paired_tau_b);
    let (plot, legend) = layout(
        root,
        &caption(results, measure, "judging strategies against the budget"),
    )?;
    let (left, right) = plot.split_horizontally(plot.dim_in_pixel().0 / 2);
    let highest_change = (rank_changes.iter())
        .flat_map(|(_, points)| points.iter().map(|&(_, y)| y))
        .fold(RANK_CHANGE_LIMIT, f64::max);
    panel(
        &left,
        &rank_changes,
        (lowest(&rank_changes).min(0.0) - 0.05, highest_change * 1.1),
        RANK_CHANGE_LIMIT,
        &format!("held-out runs' mean paired rank change ({measure})"),
    )?;
    let lowest_tau = lowest(&taus).min(EQUIVALENT_TAU_B);
    panel(
        &right,
        &taus,
        (((lowest_tau - 0.02) * 20.0).floor() / 20.0, 1.005),
        EQUIVALENT_TAU_B,
        &format!("paired tau_b ({measure})"),
    )?;
    let mut entries: Vec<LegendEntry> = (rank_changes.iter().enumerate())
        .map(|(pos, (name, _))| LegendEntry::new(name.clone(), colour(pos), Mark::Line))
        .collect();
    entries.push(LegendEntry::new(
        "rank change 1, tau_b 0.9",
        THRESHOLD_COLOUR,
        Mark::Dashed,
    ));
    draw_legend(&legend, "strategy", &entries)
}

/// The colour of the strategy at `pos`.
fn colour(pos: usize) -> RGBColor {
    PALETTE[pos % PALETTE.len()]
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
    y_title: &str,
) -> DrawResult<DB> {
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(60)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..1.05, y_min..y_max)?;
    draw_axes(
        &mut chart,
        &Axes {
            x_title: "fraction of each topic's budget N_t".to_string(),
            y_title: y_title.to_string(),
            x_ticks: 11,
            y_ticks: 10,
            x_format: &|x| format!("{x:.1}"),
            y_format: &|y| format!("{y:.2}"),
        },
    )?;
    chart.draw_series(DashedLineSeries::new(
        [(0.0, limit), (1.05, limit)],
        8,
        5,
        THRESHOLD_COLOUR.stroke_width(2),
    ))?;
    for (pos, (_, points)) in lines.iter().enumerate() {
        let colour = colour(pos);
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
