//! The rank-spread figure: runs along x in official order, y the rank (1 = best, at the top).
//! Per run, every rank it took over all trials (the control and every held-out trial of every
//! seed) as a dot whose size grows with the share of trials that gave it; the dominant
//! (most frequent) rank ringed in black; the official rank as a black dash.

use std::collections::BTreeMap;

use plotters::prelude::*;

use super::drawing::{trial_count, Canvas, DrawingResult, RunSpot};
use super::legend::{team_entries, Legend, LegendEntry, Mark};
use super::run_axis::RunRankAxis;
use super::style::team_colour;

/// The radius (pixels) of a rank that every trial gave.
const MAX_RADIUS: f64 = 9.0;

pub(super) fn draw<DB: DrawingBackend>(
    canvas: &Canvas<'_, DB>,
    spots: &mut Vec<RunSpot>,
) -> DrawingResult<DB, Legend> {
    let (runs, teams) = canvas.runs_and_teams();
    // Per run: rank (as bits, ranks are exact halves) -> trials that gave it.
    let mut counts: BTreeMap<&str, BTreeMap<u64, usize>> = BTreeMap::new();
    for row in canvas
        .results
        .ranks
        .iter()
        .filter(|row| row.measure == canvas.measure)
    {
        *counts
            .entry(row.run.as_str())
            .or_default()
            .entry(row.rank.to_bits())
            .or_default() += 1;
    }
    let (mut chart, axis) = RunRankAxis::chart(canvas.plot, &runs)?;
    for (position, run) in runs.iter().enumerate() {
        let x = position as f64;
        let colour = team_colour(&teams, &run.team);
        let Some(ranks) = counts.get(run.run.as_str()) else {
            continue;
        };
        let trials: usize = ranks.values().sum();
        chart.draw_series(ranks.iter().map(|(&bits, &count)| {
            let share = count as f64 / trials as f64;
            let radius = (MAX_RADIUS * share.sqrt()).max(2.0).round() as i32;
            Circle::new(
                (x, -f64::from_bits(bits)),
                radius,
                colour.mix(0.75).filled(),
            )
        }))?;
        chart.draw_series(std::iter::once(Circle::new(
            (x, -run.trials_dominant_rank),
            MAX_RADIUS as i32 + 2,
            BLACK.stroke_width(2),
        )))?;
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(x - 0.4, -run.official_rank), (x + 0.4, -run.official_rank)],
            BLACK.stroke_width(2),
        )))?;
    }
    axis.draw_labels(canvas.root, &chart)?;
    spots.extend(axis.spots(&chart));
    let trials = trial_count(canvas.results);
    let mut entries = vec![
        LegendEntry::new("official rank", BLACK, Mark::Line),
        LegendEntry::new(
            format!("rank in a trial ({trials} trials)"),
            BLACK,
            Mark::Dot,
        ),
        LegendEntry::new("dominant rank", BLACK, Mark::Ring),
    ];
    entries.extend(team_entries(&teams));
    Ok(Legend {
        title: "dot area: share of trials",
        entries,
    })
}
