//! The official and LOU rankings against the ranking under the complete truth (synthetic
//! tasks only): x is each run's rank on the truth qrels, y its official rank (black cross) and
//! its mean LOU rank (dot, with the range over seeds as a bar). On the diagonal a collection
//! ranks runs as the truth does; the legend gives each ranking's tau_b against the truth, so
//! the bias of the official collection itself is visible beside that of the LOU collections.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    caption, draw_axes, draw_legend, layout, Axes, DrawResult, LegendEntry, Mark, RunSpot,
    SpotArea, PALETTE,
};
use crate::sim::analysis::StudyResults;
use crate::stats::{official_ranks, tau_b};

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &StudyResults,
    measure: &str,
    spots: &mut Vec<RunSpot>,
) -> DrawResult<DB> {
    let runs: Vec<_> = results
        .runs_of(measure)
        .into_iter()
        .filter(|run| run.truth_score.is_some())
        .collect();
    let truth: Vec<f64> = runs.iter().filter_map(|run| run.truth_score).collect();
    let official: Vec<f64> = runs.iter().map(|run| run.official_score).collect();
    let lou_mean: Vec<f64> = runs.iter().map(|run| run.lou_score.mean).collect();
    let truth_ranks = official_ranks(&truth);
    let describe = |tau: Result<f64, _>| {
        tau.map_or_else(|_| "n/a".to_string(), |tau: f64| format!("{tau:.3}"))
    };
    let official_tau = describe(tau_b(&truth, &official));
    let lou_tau = describe(tau_b(&truth, &lou_mean));
    let run_count = runs.len().max(1) as f64;
    let lou_colour = PALETTE[1];

    let (plot, legend) = layout(
        root,
        &caption(results, measure, "rankings vs the complete truth"),
    )?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(60)
        .y_label_area_size(70)
        .build_cartesian_2d(0.5..(run_count + 0.5), -(run_count + 0.5)..-0.5)?;
    let ticks = run_count.min(15.0) as usize;
    draw_axes(
        &mut chart,
        &Axes {
            x_title: format!("rank under the complete truth ({measure})"),
            y_title: "rank on the collection (1 = best)".to_string(),
            x_ticks: ticks,
            y_ticks: ticks,
            x_format: &|x| format!("{x:.0}"),
            y_format: &|y| format!("{:.0}", -y),
        },
    )?;

    chart.draw_series(DashedLineSeries::new(
        [(0.5, -0.5), (run_count + 0.5, -(run_count + 0.5))],
        8,
        5,
        BLACK.mix(0.5).stroke_width(2),
    ))?;
    for (run, &truth_rank) in runs.iter().zip(&truth_ranks) {
        chart.draw_series(std::iter::once(Rectangle::new(
            [
                (truth_rank - 0.12, -run.lou_rank.min + 0.3),
                (truth_rank + 0.12, -run.lou_rank.max - 0.3),
            ],
            lou_colour.mix(0.35).filled(),
        )))?;
    }
    chart.draw_series(
        runs.iter()
            .zip(&truth_ranks)
            .map(|(run, &x)| Circle::new((x, -run.lou_rank.mean), 5, lou_colour.filled())),
    )?;
    chart.draw_series(
        runs.iter()
            .zip(&truth_ranks)
            .map(|(run, &x)| Cross::new((x, -run.official_rank), 6, BLACK.stroke_width(2))),
    )?;

    spots.extend(runs.iter().zip(&truth_ranks).map(|(run, &x)| {
        let (left, top) = chart.backend_coord(&(x - 0.5, -0.5));
        let (right, bottom) = chart.backend_coord(&(x + 0.5, -(run_count + 0.5)));
        RunSpot {
            run: run.run.clone(),
            area: SpotArea::Column {
                left,
                top,
                right,
                bottom,
            },
        }
    }));

    let entries = vec![
        LegendEntry::new("official rank", BLACK, Mark::Cross),
        LegendEntry::new(
            format!("  tau_b vs truth {official_tau}"),
            WHITE,
            Mark::Line,
        ),
        LegendEntry::new("mean LOU rank", lou_colour, Mark::Dot),
        LegendEntry::new(format!("  tau_b vs truth {lou_tau}"), WHITE, Mark::Line),
        LegendEntry::new("LOU rank range", lou_colour, Mark::Bar),
        LegendEntry::new("same rank as truth", BLACK, Mark::Dashed),
    ];
    draw_legend(&legend, "", &entries)
}
