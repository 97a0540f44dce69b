//! The audit page's rank figure: per measure, every audited run on the axis of ranks among the
//! task's runs, its rank on the collection (a dot), at the expected score (a ring) and its
//! extreme interval (a bar); with returned judgments, its rank before them (a cross).

use std::fmt::Write;

use super::team::TeamAuditReport;
use crate::report::document::Block;

/// The figure's width, a row's height and the margins, in pixels.
const WIDTH: f64 = 720.0;
const ROW: f64 = 22.0;
const LEFT: f64 = 170.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 26.0;

/// The rank figure of `report` as a drawing block.
pub(super) fn rank_figure(report: &TeamAuditReport) -> Block {
    let measures = report.runs.first().map_or(0, |r| r.measures.len());
    let rows_per_panel = report.runs.len() as f64;
    let panel = TOP + ROW * rows_per_panel + 10.0;
    let height = panel * measures as f64 + 10.0;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" font-family=\"sans-serif\" \
         font-size=\"12\">"
    );
    for m in 0..measures {
        let top = panel * m as f64;
        let runs_ranked = report.runs[0].measures[m].runs_ranked.max(1) as f64;
        let x =
            |rank: f64| LEFT + (rank - 1.0) / (runs_ranked - 1.0).max(1.0) * (WIDTH - LEFT - RIGHT);
        let name = &report.runs[0].measures[m].score.measure;
        let axis = top + TOP - 8.0;
        let _ = write!(
            svg,
            "<text x=\"4\" y=\"{}\" font-weight=\"bold\">{} (rank 1 to {runs_ranked})</text>\
             <line x1=\"{LEFT}\" y1=\"{axis}\" x2=\"{}\" y2=\"{axis}\" stroke=\"#999\"/>",
            top + 14.0,
            escape(name),
            WIDTH - RIGHT
        );
        for (row, run) in report.runs.iter().enumerate() {
            let measure = &run.measures[m];
            let y = top + TOP + ROW * row as f64 + ROW / 2.0;
            let before = report.judged.as_ref().and_then(|j| {
                let change = j.runs.iter().find(|c| c.run == run.run)?;
                Some(change.measures.get(m)?.before.rank)
            });
            let _ = write!(
                svg,
                "<g><title>{run_name} · {name}: rank {rank} (expected {expected}, extremes \
                 {best}–{worst}) of {runs_ranked}</title>\
                 <text x=\"4\" y=\"{text_y}\">{run_name}</text>\
                 <line x1=\"{x_best}\" y1=\"{y}\" x2=\"{x_worst}\" y2=\"{y}\" stroke=\"#8aa\" \
                 stroke-width=\"4\"/>\
                 <circle cx=\"{x_rank}\" cy=\"{y}\" r=\"4\" fill=\"#236\"/>\
                 <circle cx=\"{x_expected}\" cy=\"{y}\" r=\"6\" fill=\"none\" stroke=\"#c50\" \
                 stroke-width=\"2\"/>",
                run_name = escape(&run.run),
                name = escape(name),
                rank = measure.rank,
                expected = measure.rank_expected,
                best = measure.rank_best,
                worst = measure.rank_worst,
                text_y = y + 4.0,
                x_best = x(measure.rank_best),
                x_worst = x(measure.rank_worst),
                x_rank = x(measure.rank),
                x_expected = x(measure.rank_expected),
            );
            if let Some(before) = before {
                let (cx, size) = (x(before), 4.0);
                let _ = write!(
                    svg,
                    "<path d=\"M{} {} L{} {} M{} {} L{} {}\" stroke=\"#777\" stroke-width=\"2\"/>",
                    cx - size,
                    y - size,
                    cx + size,
                    y + size,
                    cx - size,
                    y + size,
                    cx + size,
                    y - size
                );
            }
            svg.push_str("</g>");
        }
    }
    svg.push_str("</svg>");
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
        svg,
    }
}

/// `text` with the characters XML reserves escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
