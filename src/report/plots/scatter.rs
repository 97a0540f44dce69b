//! Official score against LOU score per run: a dot at the mean LOU score over seeds, a bar
//! over its range, teams coloured, and the diagonal where both scores agree. Points below the
//! diagonal lost score when their team was held out. The runs farthest from the diagonal are
//! labelled.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{
    caption, draw_legend, layout, team_colour, text, DrawResult, LegendEntry, Mark,
    AXIS_TITLE_SIZE, LABEL_SIZE,
};
use crate::sim::analysis::StudyResults;

/// How many of the runs farthest from the diagonal get their tag written beside them.
const LABELLED_RUNS: usize = 5;

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &StudyResults,
    measure: &str,
) -> DrawResult<DB> {
    let runs = results.runs_of(measure);
    let teams = results.teams();
    let highest = runs
        .iter()
        .flat_map(|run| [run.official_score, run.lou_score.max])
        .fold(0.0, f64::max);
    let top = if highest > 0.0 { highest * 1.05 } else { 1.0 };

    let (plot, legend) = layout(
        root,
        &caption(results, measure, "official score vs LOU score"),
    )?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(60)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..top, 0.0..top)?;
    chart
        .configure_mesh()
        .x_labels(10)
        .y_labels(10)
        .x_label_formatter(&|v| format!("{v:.2}"))
        .y_label_formatter(&|v| format!("{v:.2}"))
        .label_style(text(LABEL_SIZE))
        .x_desc(format!("official {measure}"))
        .y_desc(format!("LOU {measure} (own team held out)"))
        .axis_desc_style(text(AXIS_TITLE_SIZE))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .draw()?;

    chart.draw_series(DashedLineSeries::new(
        [(0.0, 0.0), (top, top)],
        8,
        5,
        BLACK.mix(0.6).stroke_width(2),
    ))?;
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
    /// How close (pixels) two labels may come before the later one moves down.
    const LABEL_CLEARANCE_X: i32 = 120;
    const LABEL_CLEARANCE_Y: i32 = 16;
    let mut farthest = runs.clone();
    farthest.sort_by(|a, b| {
        let gap =
            |run: &&crate::sim::analysis::RunRow| (run.lou_score.mean - run.official_score).abs();
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

    let mut entries = vec![
        LegendEntry::new("mean LOU score", BLACK, Mark::Dot),
        LegendEntry::new("range over seeds", BLACK, Mark::Bar),
        LegendEntry::new("LOU = official", BLACK, Mark::Dashed),
    ];
    entries.extend(
        teams
            .iter()
            .map(|team| LegendEntry::new(team.clone(), team_colour(&teams, team), Mark::Square)),
    );
    draw_legend(&legend, "", &entries)
}
