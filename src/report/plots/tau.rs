//! tau_b per held-out team across seeds: one column per trial kind (the control first, then
//! each held-out team), one dot per seed (the tau_b of that trial's ranking of all runs
//! against the official ranking), a bar at the mean, and the 0.9 line below which two
//! rankings are usually called different (Voorhees 2000).

use plotters::prelude::*;

use super::chart::{chart, draw_guide, spread_offset, Axis, ColumnLabels};
use super::drawing::{Canvas, DrawingResult};
use super::legend::{Legend, LegendEntry, Mark};
use super::style::{team_colour, THRESHOLD_COLOUR};
use crate::sim::analysis::StudyResults;

/// The usual threshold for equivalent rankings.
const EQUIVALENCE_THRESHOLD: f64 = 0.9;
/// The control trials' colour.
const CONTROL_COLOUR: RGBColor = RGBColor(90, 90, 90);

pub(super) fn draw<DB: DrawingBackend>(canvas: &Canvas<'_, DB>) -> DrawingResult<DB, Legend> {
    let (results, measure) = (canvas.results, canvas.measure);
    let teams = results.teams();
    let (columns, values) = columns_of(results, measure);
    let lowest = values
        .iter()
        .flatten()
        .copied()
        .fold(EQUIVALENCE_THRESHOLD, f64::min);
    let y_min = ((lowest - 0.02) * 50.0).floor() / 50.0;
    let names: Vec<String> = columns.iter().map(|(name, _)| name.clone()).collect();
    let labels = ColumnLabels::fit(canvas.plot, &names)?;
    let mut chart = chart(
        canvas.plot,
        labels.axis("trial: the team held out from judging"),
        Axis::new(
            format!("Kendall tau_b vs official ranking ({measure})"),
            y_min..1.005,
        )
        .room(70),
    )?;
    draw_guide(
        &mut chart,
        (-0.5, EQUIVALENCE_THRESHOLD),
        (columns.len() as f64 - 0.5, EQUIVALENCE_THRESHOLD),
        THRESHOLD_COLOUR.stroke_width(2),
    )?;
    for (position, ((_, held_out), taus)) in columns.iter().zip(&values).enumerate() {
        let x = position as f64;
        let colour = held_out.map_or(CONTROL_COLOUR, |team| team_colour(&teams, team));
        chart.draw_series(taus.iter().enumerate().map(|(index, &tau)| {
            Circle::new(
                (x + spread_offset(index, taus.len(), 0.25), tau),
                5,
                colour.filled(),
            )
        }))?;
        if !taus.is_empty() {
            let mean = taus.iter().sum::<f64>() / taus.len() as f64;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x - 0.35, mean), (x + 0.35, mean)],
                BLACK.stroke_width(3),
            )))?;
        }
    }
    let positions: Vec<(String, (i32, i32))> = names
        .iter()
        .enumerate()
        .map(|(position, name)| (name.clone(), chart.backend_coord(&(position as f64, y_min))))
        .collect();
    labels.draw(canvas.root, &positions)?;

    let entries = vec![
        LegendEntry::new(
            format!("one trial (of {} seeds)", results.seeds.len()),
            CONTROL_COLOUR,
            Mark::Dot,
        ),
        LegendEntry::new("mean over seeds", BLACK, Mark::Line),
        LegendEntry::new("tau_b = 0.9", THRESHOLD_COLOUR, Mark::Dashed),
    ];
    Ok(Legend::untitled(entries))
}

/// A column of the figure: its label and the team its trials held out (`None`: the control).
type Column<'r> = (String, Option<&'r str>);

/// The columns (name, held-out team; the control first, then the held-out teams in the study's
/// order) and each column's tau_b values in seed order.
fn columns_of<'r>(results: &'r StudyResults, measure: &str) -> (Vec<Column<'r>>, Vec<Vec<f64>>) {
    let mut columns: Vec<Column> = vec![("control".to_string(), None)];
    columns.extend(
        results
            .held_out_teams
            .iter()
            .map(|team| (team.clone(), Some(team.as_str()))),
    );
    let values: Vec<Vec<f64>> = columns
        .iter()
        .map(|(_, held_out)| {
            let mut trials: Vec<_> = results
                .trials
                .iter()
                .filter(|t| t.measure == measure && t.held_out.as_deref() == *held_out)
                .collect();
            trials.sort_by_key(|t| t.seed);
            trials.iter().filter_map(|t| t.tau_b).collect()
        })
        .collect();
    (columns, values)
}
