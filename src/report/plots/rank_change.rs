//! The rank-change figure (the paper's Figure 4): runs along x in official order, y the rank
//! (1 = best, at the top). Black: the official rank. Per run in its team's colour: the range
//! of its LOU ranks over seeds (a bar) and each seed's LOU rank (a dot; filled when the run's
//! own team was held out, open when the run was scored on the control qrels because its team
//! was not held out).

use std::collections::BTreeMap;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    caption, draw_legend, draw_x_labels, layout, needs_rotation, spread_offset, team_colour, text,
    widest_label, DrawResult, LegendEntry, Mark, AXIS_TITLE_SIZE, LABEL_SIZE,
};
use crate::sim::analysis::StudyResults;

/// The least horizontal room (pixels) a rotated run label needs.
const MIN_LABEL_SPACING: f64 = 14.0;

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &StudyResults,
    measure: &str,
) -> DrawResult<DB> {
    let runs = results.runs_of(measure);
    let teams = results.teams();
    let run_count = runs.len().max(1);
    let mut seed_ranks: BTreeMap<&str, Vec<(u64, f64)>> = BTreeMap::new();
    for row in results.lou.iter().filter(|row| row.measure == measure) {
        seed_ranks
            .entry(row.run.as_str())
            .or_default()
            .push((row.seed, row.rank));
    }
    seed_ranks
        .values_mut()
        .for_each(|ranks| ranks.sort_by_key(|&(seed, _)| seed));

    let (plot, legend) = layout(
        root,
        &caption(results, measure, "rank change, leave-one-team-out (LOU)"),
    )?;
    let tags: Vec<String> = runs.iter().map(|run| run.run.clone()).collect();
    let widest = widest_label(&plot, &tags)?;
    let (plot_width, _) = plot.dim_in_pixel();
    // An estimate of the spacing before the chart exists: the y label area is 70 pixels.
    let is_rotated = needs_rotation(widest, f64::from(plot_width - 90) / run_count as f64);
    let label_height = if is_rotated { widest + 14 } else { 24 };
    // Rotated labels need a line's height each; with more runs than fit, label every
    // `label_stride`-th run (the faint guides still mark every run).
    let spacing = f64::from(plot_width - 90) / run_count as f64;
    let label_stride = (MIN_LABEL_SPACING / spacing).ceil().max(1.0) as usize;

    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(label_height + 34)
        .y_label_area_size(70)
        .build_cartesian_2d(
            -0.5..(run_count as f64 - 0.5),
            -(run_count as f64 + 0.5)..-0.5,
        )?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(run_count.min(15))
        .y_label_formatter(&|y| format!("{:.0}", -y))
        .y_label_style(text(LABEL_SIZE))
        .x_desc(if label_stride > 1 {
            format!("runs in official order (one label in {label_stride})")
        } else {
            "runs in official order".to_string()
        })
        .y_desc("rank (1 = best)")
        .axis_desc_style(text(AXIS_TITLE_SIZE))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .draw()?;

    // A faint guide per run, so a dot can be traced down to its label.
    for position in 0..runs.len() {
        let x = position as f64;
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(x, -(run_count as f64 + 0.5)), (x, -0.5)],
            BLACK.mix(0.06),
        )))?;
    }
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
    let axis_y = -(run_count as f64 + 0.5);
    let labels: Vec<(String, (i32, i32))> = runs
        .iter()
        .enumerate()
        .step_by(label_stride)
        .map(|(position, run)| {
            (
                run.run.clone(),
                chart.backend_coord(&(position as f64, axis_y)),
            )
        })
        .collect();
    draw_x_labels(root, &labels, is_rotated)?;

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
    entries.extend(
        teams
            .iter()
            .map(|team| LegendEntry::new(team.clone(), team_colour(&teams, team), Mark::Square)),
    );
    draw_legend(&legend, "", &entries)
}
