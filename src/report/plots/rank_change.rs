//! The rank-change figure (the paper's Figure 4): runs along x in official order, y the rank
//! (1 = best, at the top). Black: the official rank. Per run in its team's colour: the range
//! of its LOU ranks over seeds (a bar) and each seed's LOU rank (a dot; filled when the run's
//! own team was held out, open when the run was scored on the control qrels because its team
//! was not held out).

use std::collections::BTreeMap;

use plotters::prelude::*;

use super::chart::spread_offset;
use super::drawing::{Canvas, DrawingResult, RunSpot};
use super::legend::{team_entries, Legend, LegendEntry, Mark};
use super::run_axis::RunRankAxis;
use super::style::team_colour;
use crate::sim::analysis::{RunRow, StudyResults};

pub(super) fn draw<DB: DrawingBackend>(
    canvas: &Canvas<'_, DB>,
    spots: &mut Vec<RunSpot>,
) -> DrawingResult<DB, Legend> {
    let results = canvas.results;
    let (runs, teams) = canvas.runs_and_teams();
    let mut seed_ranks: BTreeMap<&str, Vec<(u64, f64)>> = BTreeMap::new();
    for row in results
        .lou
        .iter()
        .filter(|row| row.measure == canvas.measure)
    {
        seed_ranks
            .entry(row.run.as_str())
            .or_default()
            .push((row.seed, row.rank));
    }
    seed_ranks
        .values_mut()
        .for_each(|ranks| ranks.sort_by_key(|&(seed, _)| seed));

    let (mut chart, axis) = RunRankAxis::chart(canvas.plot, &runs)?;
    for (position, run) in runs.iter().enumerate() {
        let x = position as f64;
        let colour = team_colour(&teams, &run.team);
        chart.draw_series(std::iter::once(Rectangle::new(
            [
                (x - 0.12, -run.lou_rank.min + 0.3),
                (x + 0.12, -run.lou_rank.max - 0.3),
            ],
            colour.mix(0.35).filled(),
        )))?;
    }
    chart.draw_series(LineSeries::new(
        runs.iter()
            .enumerate()
            .map(|(position, run)| (position as f64, -run.official_rank)),
        BLACK.mix(0.5).stroke_width(1),
    ))?;
    chart.draw_series(runs.iter().enumerate().map(|(position, run)| {
        PathElement::new(
            vec![
                (position as f64 - 0.35, -run.official_rank),
                (position as f64 + 0.35, -run.official_rank),
            ],
            BLACK.stroke_width(2),
        )
    }))?;

    for (position, run) in runs.iter().enumerate() {
        let x = position as f64;
        let colour = team_colour(&teams, &run.team);
        let is_held_out = results.held_out_teams.contains(&run.team);
        let ranks = seed_ranks
            .get(run.run.as_str())
            .map_or(&[][..], Vec::as_slice);
        chart.draw_series(ranks.iter().enumerate().map(|(index, &(_, rank))| {
            let point = (x + spread_offset(index, ranks.len(), 0.22), -rank);
            let style = if is_held_out {
                colour.filled()
            } else {
                colour.stroke_width(2)
            };
            Circle::new(point, 4, style)
        }))?;
    }
    axis.draw_labels(canvas.root, &chart)?;
    spots.extend(axis.spots(&chart));
    Ok(Legend::untitled(legend_entries(results, &runs, &teams)))
}

/// The legend: the marks, then the teams.
fn legend_entries(results: &StudyResults, runs: &[&RunRow], teams: &[String]) -> Vec<LegendEntry> {
    let mut entries = vec![
        LegendEntry::new("official rank", BLACK, Mark::Line),
        LegendEntry::new(
            format!("LOU rank, {} seeds", results.seeds.len()),
            BLACK,
            Mark::Dot,
        ),
        LegendEntry::new("LOU rank range", BLACK, Mark::Bar),
    ];
    let has_control_runs = runs
        .iter()
        .any(|run| !results.held_out_teams.contains(&run.team));
    if has_control_runs {
        entries.push(LegendEntry::new(
            "team not held out (control)",
            BLACK,
            Mark::Ring,
        ));
    }
    entries.extend(team_entries(teams));
    entries
}
