//! The official and LOU rankings against the ranking under the complete truth (synthetic
//! tasks only): x is each run's rank on the truth qrels, y its official rank (black cross) and
//! its mean LOU rank (dot, with the range over seeds as a bar). On the diagonal a collection
//! ranks runs as the truth does; the legend gives each ranking's tau_b against the truth, so
//! the bias of the official collection itself is visible beside that of the LOU collections.

use plotters::prelude::*;

use super::chart::{chart, draw_guide, Axis, TickLabels};
use super::drawing::{Canvas, DrawingResult, RunSpot, SpotArea};
use super::legend::{Legend, LegendEntry, Mark};
use super::style::PALETTE;
use crate::stats::{official_ranks, tau_b};

pub(super) fn draw<DB: DrawingBackend>(
    canvas: &Canvas<'_, DB>,
    spots: &mut Vec<RunSpot>,
) -> DrawingResult<DB, Legend> {
    let measure = canvas.measure;
    let runs: Vec<_> = (canvas.results)
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
    let ticks = run_count.min(15.0) as usize;
    let mut chart = chart(
        canvas.plot,
        Axis::new(
            format!("rank under the complete truth ({measure})"),
            0.5..(run_count + 0.5),
        )
        .ticks(ticks, TickLabels::Decimals(0)),
        Axis::new(
            "rank on the collection (1 = best)",
            -(run_count + 0.5)..-0.5,
        )
        .ticks(ticks, TickLabels::Ranks)
        .room(70),
    )?;
    draw_guide(
        &mut chart,
        (0.5, -0.5),
        (run_count + 0.5, -(run_count + 0.5)),
        BLACK.mix(0.5).stroke_width(2),
    )?;
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
    Ok(Legend::untitled(entries))
}
