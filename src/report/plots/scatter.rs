//! Official score against LOU score per run: a dot at the mean LOU score over seeds, a bar
//! over its range, teams coloured, and the diagonal where both scores agree. Points below the
//! diagonal lost score when their team was held out. The runs farthest from the diagonal are
//! labelled.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::{square_chart, NumberChart, TickLabels};
use super::drawing::{Canvas, DrawResult, DrawingResult, RunSpot, SpotArea};
use super::legend::{team_entries, Legend, LegendEntry, Mark};
use super::style::{team_colour, text, LABEL_SIZE};
use crate::sim::analysis::RunRow;

/// How many of the runs farthest from the diagonal get their tag written beside them.
const LABELLED_RUNS: usize = 5;

pub(super) fn draw<DB: DrawingBackend>(
    canvas: &Canvas<'_, DB>,
    spots: &mut Vec<RunSpot>,
) -> DrawingResult<DB, Legend> {
    let (runs, teams) = canvas.runs_and_teams();
    let highest = runs
        .iter()
        .flat_map(|run| [run.official_score, run.lou_score.max])
        .fold(0.0, f64::max);
    let top = if highest > 0.0 { highest * 1.05 } else { 1.0 };
    let titles = (
        format!("official {}", canvas.measure),
        format!("LOU {} (own team held out)", canvas.measure),
    );
    let mut chart = square_chart(canvas.plot, titles, (0.0, top), TickLabels::Decimals(2))?;
    for run in &runs {
        let colour = team_colour(&teams, &run.team);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![
                (run.official_score, run.lou_score.min),
                (run.official_score, run.lou_score.max),
            ],
            colour.mix(0.6).stroke_width(3),
        )))?;
        chart.draw_series(std::iter::once(Circle::new(
            (run.official_score, run.lou_score.mean),
            5,
            colour.filled(),
        )))?;
    }
    label_farthest(canvas.root, &chart, &runs, top)?;
    spots.extend(runs.iter().map(|run| {
        let (x, y) = chart.backend_coord(&(run.official_score, run.lou_score.mean));
        RunSpot {
            run: run.run.clone(),
            area: SpotArea::Point { x, y },
        }
    }));

    let mut entries = vec![
        LegendEntry::new("mean LOU score", BLACK, Mark::Dot),
        LegendEntry::new("range over seeds", BLACK, Mark::Bar),
        LegendEntry::new("LOU = official", BLACK, Mark::Dashed),
    ];
    entries.extend(team_entries(&teams));
    Ok(Legend::untitled(entries))
}

/// How close (pixels) two labels may come before the later one moves down.
const LABEL_CLEARANCE_X: i32 = 120;
const LABEL_CLEARANCE_Y: i32 = 16;

/// Writes the tags of the [`LABELLED_RUNS`] runs farthest from the diagonal beside their points;
/// labels that would overlap stack downwards with a leader line.
fn label_farthest<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &NumberChart<'_, DB>,
    runs: &[&RunRow],
    top: f64,
) -> DrawResult<DB> {
    let mut farthest = runs.to_vec();
    farthest.sort_by(|a, b| {
        let gap = |run: &&RunRow| (run.lou_score.mean - run.official_score).abs();
        gap(b).total_cmp(&gap(a)).then_with(|| a.run.cmp(&b.run))
    });
    // Pixel positions of the labels drawn so far, so that close points get stacked labels
    // instead of overlapping ones.
    let mut placed: Vec<(i32, i32)> = Vec::new();
    for run in farthest.iter().take(LABELLED_RUNS) {
        let (x, point_y) = chart.backend_coord(&(run.official_score, run.lou_score.mean));
        let mut y = point_y;
        while placed.iter().any(|&(px, py)| {
            (px - x).abs() < LABEL_CLEARANCE_X && (py - y).abs() < LABEL_CLEARANCE_Y
        }) {
            y += LABEL_CLEARANCE_Y;
        }
        placed.push((x, y));
        // Labels of points near the right edge go to their left, clear of the legend.
        let (offset, anchor) = if run.official_score > 0.7 * top {
            (-9, HPos::Right)
        } else {
            (9, HPos::Left)
        };
        if y != point_y {
            // A moved label gets a leader line back to its point.
            root.draw(&PathElement::new(
                vec![(x, point_y), (x + offset, y)],
                BLACK.mix(0.5).stroke_width(1),
            ))?;
        }
        root.draw(&Text::new(
            run.run.clone(),
            (x + offset, y),
            text(LABEL_SIZE).pos(Pos::new(anchor, VPos::Center)),
        ))?;
    }

    Ok(())
}
