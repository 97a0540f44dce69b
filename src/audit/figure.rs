//! The audit page's rank figure: per measure, every audited run on the axis of ranks among the
//! task's runs, its rank on the collection (a dot), at the expected score (a ring) and its
//! extreme interval (a bar); with returned judgments, its rank before them (a cross). Drawn as
//! inline SVG with maud, which escapes the run and measure names; each run's marks carry a
//! tooltip with its figures.

use maud::{html, Markup};

use super::team::TeamAuditReport;
use crate::report::document::Block;

/// The figure's width, a row's height and the margins, in pixels.
const WIDTH: f64 = 720.0;
const ROW: f64 = 22.0;
const LEFT: f64 = 170.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 26.0;
/// Half the width of the cross marking the rank before the returned judgments.
const CROSS: f64 = 4.0;

/// The rank figure of `report` as a drawing block.
pub(super) fn rank_figure(report: &TeamAuditReport) -> Block {
    let measures = report.runs.first().map_or(0, |r| r.measures.len());
    let panel = TOP + ROW * report.runs.len() as f64 + 10.0;
    let height = panel * measures as f64 + 10.0;
    let svg = html! {
        svg xmlns="http://www.w3.org/2000/svg" width=(WIDTH) height=(height)
            viewBox={ "0 0 " (WIDTH) " " (height) } role="img" font-family="sans-serif"
            font-size="12" {
            @for m in 0..measures {
                (measure_panel(report, m, panel * m as f64))
            }
        }
    };
    let judged = if report.judged.is_some() {
        "; a grey cross, the rank before the returned judgments"
    } else {
        ""
    };
    Block::Drawing {
        caption: format!(
            "Ranks among the task's runs, per measure: a dot, the rank on the collection; a \
             ring, the rank at the expected score; a bar, the ranks at the extreme interval's \
             ends{judged}."
        ),
        svg: svg.into_string(),
    }
}

/// The panel of the `m`-th measure, its top at `top`: its title and axis, then a row per run.
fn measure_panel(report: &TeamAuditReport, m: usize, top: f64) -> Markup {
    let runs_ranked = report.runs[0].measures[m].runs_ranked.max(1) as f64;
    let x = |rank: f64| LEFT + (rank - 1.0) / (runs_ranked - 1.0).max(1.0) * (WIDTH - LEFT - RIGHT);
    let name = &report.runs[0].measures[m].score.measure;
    let axis = top + TOP - 8.0;
    html! {
        text x="4" y=(top + 14.0) font-weight="bold" { (name) " (rank 1 to " (runs_ranked) ")" }
        line x1=(LEFT) y1=(axis) x2=(WIDTH - RIGHT) y2=(axis) stroke="#999" {}
        @for (row, run) in report.runs.iter().enumerate() {
            @let measure = &run.measures[m];
            @let y = top + TOP + ROW * row as f64 + ROW / 2.0;
            @let before = report.judged.as_ref().and_then(|judged| {
                let change = judged.runs.iter().find(|c| c.run == run.run)?;
                Some(change.measures.get(m)?.before.rank)
            });
            g {
                title {
                    (run.run) " · " (name) ": rank " (measure.rank) " (expected "
                    (measure.rank_expected) ", extremes " (measure.rank_best) "–"
                    (measure.rank_worst) ") of " (runs_ranked)
                }
                text x="4" y=(y + 4.0) { (run.run) }
                line x1=(x(measure.rank_best)) y1=(y) x2=(x(measure.rank_worst)) y2=(y)
                    stroke="#8aa" stroke-width="4" {}
                circle cx=(x(measure.rank)) cy=(y) r="4" fill="#236" {}
                circle cx=(x(measure.rank_expected)) cy=(y) r="6" fill="none" stroke="#c50"
                    stroke-width="2" {}
                @if let Some(before) = before {
                    path d=(cross(x(before), y)) stroke="#777" stroke-width="2" {}
                }
            }
        }
    }
}

/// The path of a cross centred at `(x, y)`.
fn cross(x: f64, y: f64) -> String {
    format!(
        "M{} {} L{} {} M{} {} L{} {}",
        x - CROSS,
        y - CROSS,
        x + CROSS,
        y + CROSS,
        x - CROSS,
        y + CROSS,
        x + CROSS,
        y - CROSS
    )
}
