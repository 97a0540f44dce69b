//! The backtest's files: `backtest.tsv` (one row per audited run and measure, written as the
//! study's tables are),
//! `backtest.json` (the summary) and two figures per measure (each estimator's score against
//! the true score, and the verdict's P(rank moves) against the truth's rank move), all written
//! atomically; and the summary table printed at the end.

use std::path::{Path, PathBuf};

use super::claims_summary::{AuditClaims, MeasureClaims};
use super::outcome::{BacktestOutcome, BacktestRow};
use super::summary::BacktestSummary;
use crate::base::error::Result;
use crate::io::atomic::write_atomically;
use crate::report::document::{Align, Block, Document, Table};
use crate::report::html::document_page;
use crate::report::plots::estimates::{EstimateRanges, EstimateSeries, EstimatesFigure};
use crate::report::plots::verdict::VerdictFigure;
use crate::report::plots::{measure_in_file_name, write_standalone_figure, FigureFormat};
use crate::sim::analysis::files::{write_table, TableRow};

/// The summary.
pub const SUMMARY_FILE: &str = "backtest.json";

/// The summary as a self-contained page, in the template of the study's and the audit's.
pub const PAGE_FILE: &str = "backtest.html";

/// Writes the table, the summary and the figures into `out`. Returns the files written.
///
/// # Errors
/// When a file cannot be written or a figure drawn.
pub fn write_outputs(
    out: &Path,
    outcome: &BacktestOutcome,
    summary: &BacktestSummary,
    format: FigureFormat,
) -> Result<Vec<PathBuf>> {
    write_table(out, &outcome.rows)?;
    let summary_path = out.join(SUMMARY_FILE);
    write_atomically(&summary_path, |file| {
        serde_json::to_writer_pretty(&mut *file, summary)?;
        writeln!(file)
    })?;
    let page_path = out.join(PAGE_FILE);
    write_atomically(&page_path, |file| {
        file.write_all(document_page(&backtest_document(summary)).as_bytes())
    })?;
    let mut written = vec![out.join(BacktestRow::FILE), summary_path, page_path];
    for measure in &summary.measures {
        let figure = estimates_figure(outcome, &measure.measure);
        let name = measure_in_file_name(&measure.measure);
        written.extend(write_standalone_figure(
            &figure,
            out,
            &format!("backtest_{name}"),
            format,
        )?);
        written.extend(write_standalone_figure(
            &verdict_figure(outcome, summary, &measure.measure),
            out,
            &format!("backtest_verdict_{name}"),
            format,
        )?);
    }
    Ok(written)
}

/// The rows of one measure.
fn measure_rows<'o>(outcome: &'o BacktestOutcome, measure: &str) -> Vec<&'o BacktestRow> {
    outcome
        .rows
        .iter()
        .filter(|r| r.measure == measure)
        .collect()
}

/// A figure's series: (truth, estimate) of each row that has the estimate.
fn series_of(
    rows: &[&BacktestRow],
    name: &str,
    truth: &dyn Fn(&BacktestRow) -> f64,
    estimate: &dyn Fn(&BacktestRow) -> Option<f64>,
) -> EstimateSeries {
    EstimateSeries {
        name: name.to_string(),
        points: rows
            .iter()
            .filter_map(|r| estimate(r).map(|e| (truth(r), e)))
            .collect(),
    }
}

/// The verdict figure of one measure: each run's P(rank moves) against the truth's rank move,
/// with the restricted audit's beside it in the deeper world.
fn verdict_figure(
    outcome: &BacktestOutcome,
    summary: &BacktestSummary,
    measure: &str,
) -> VerdictFigure {
    let rows = measure_rows(outcome, measure);
    let series = |name: &str, probability: &dyn Fn(&BacktestRow) -> Option<f64>| {
        series_of(
            &rows,
            name,
            &|r| (r.true_rank - r.collection_rank).abs(),
            probability,
        )
    };
    // The restricted audit lets only what the truth grades be relevant (deeper world).
    let mut all = vec![series("audit", &|r| Some(r.probability_rank_moves))];
    let restricted = series("restricted audit", &|r| {
        r.truth_judged_probability_rank_moves
    });
    if !restricted.points.is_empty() {
        all.push(restricted);
    }
    VerdictFigure {
        caption: format!(
            "{} · {measure} · the audit's verdict against the truth, {} world · {} runs",
            outcome.task,
            outcome.world,
            rows.len()
        ),
        x_title: format!("places the run's {measure} rank moves on completion"),
        series: all,
        risk_threshold: summary.risk_threshold,
        rank_margin: summary.rank_margin,
    }
}

/// The figure of one measure: each estimator's score against the true score.
fn estimates_figure(outcome: &BacktestOutcome, measure: &str) -> EstimatesFigure {
    let rows = measure_rows(outcome, measure);
    let series = |name: &str, estimate: &dyn Fn(&BacktestRow) -> Option<f64>| {
        series_of(&rows, name, &|r| r.true_score, estimate)
    };
    let mut all = vec![
        series("collection's score", &|r| Some(r.collection_score)),
        series("audit's expected score", &|r| Some(r.expected_score)),
        series("Webber & Park", &|r| Some(r.webber_park_score)),
    ];
    let optional = [
        series("anti-precision", &|r| r.anti_precision_score),
        series("condensed list", &|r| r.condensed_score),
    ];
    all.extend(optional.into_iter().filter(|s| !s.points.is_empty()));
    EstimatesFigure {
        caption: format!(
            "{} · {measure} · backtest of the audit, {} world · {} runs of {} teams",
            outcome.task,
            outcome.world,
            rows.len(),
            outcome.teams.len()
        ),
        x_title: format!("true {measure} (the collection completed for the run)"),
        y_title: format!("estimated {measure}"),
        series: all,
        ranges: Some(audit_ranges(&rows)),
    }
}

/// The audit's 90% sample ranges, in the colour of its expected score: in the deeper world the
/// ranges of what the truth file grades (the quantity its lower-bound truth measures, drawn
/// against it), else the audit's own.
fn audit_ranges(rows: &[&BacktestRow]) -> EstimateRanges {
    let restricted = |r: &BacktestRow| r.truth_judged_sample_low.zip(r.truth_judged_sample_high);
    EstimateRanges {
        name: "audit's 90% range".to_string(),
        // The audit's expected score, second in `estimates_figure`'s series.
        series: 1,
        bars: rows
            .iter()
            .map(|r| {
                let (low, high) = restricted(r).unwrap_or((r.sample_low, r.sample_high));
                (r.true_score, low, high)
            })
            .collect(),
    }
}

/// The summary as a document: the page `backtest.html` and the Markdown printed on the
/// terminal render it alike.
pub fn backtest_document(summary: &BacktestSummary) -> Document {
    let option = |value: Option<f64>| value.map_or("–".to_string(), |v| format!("{v:.2}"));
    let rows = summary
        .measures
        .iter()
        .map(|m| {
            let mae = |name: &str| {
                m.errors
                    .iter()
                    .find(|e| e.estimator == name)
                    .map_or("–".to_string(), |e| format!("{:.4}", e.mae))
            };
            let signed = m
                .errors
                .iter()
                .find(|e| e.estimator == "expected")
                .map_or(0.0, |e| e.mean_signed_error);
            vec![
                m.measure.clone(),
                mae("collection"),
                mae("expected"),
                mae("webber_park"),
                mae("anti_precision"),
                mae("condensed"),
                format!("{signed:+.4}"),
                m.runs_rank_moves_2.to_string(),
                format!(
                    "{} / {}",
                    option(m.verdict_moves_2.precision),
                    option(m.verdict_moves_2.recall)
                ),
                option(m.no_judgments_when_rank_stays),
                format!(
                    "{:.2} / {:.2} / {:.2}",
                    m.within_one_rank_before,
                    m.within_one_rank_after,
                    m.within_one_rank_after_oracle_list
                ),
                format!("{:.2}", m.sample_coverage),
            ]
        })
        .collect();
    let header = [
        "measure",
        "MAE collection",
        "MAE expected",
        "MAE Webber & Park",
        "MAE anti-precision",
        "MAE condensed list",
        "signed error expected",
        "runs moving >= 2",
        "verdict precision / recall (>= 2)",
        "no judgments when rank stays",
        "within 1 rank before / after list / after oracle's list",
        "90% range holds truth",
    ];
    let bands = summary
        .truth_judged_by_rank
        .iter()
        .map(|bin| {
            format!(
                "{} {} documents, predicted {:.3}, relevant {:.3}",
                bin.bin, bin.documents, bin.predicted, bin.observed
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let restricted: Vec<String> = summary
        .measures
        .iter()
        .filter_map(|m| {
            let verdict = m.truth_judged_verdict_moves_2.as_ref()?;
            Some(format!(
                "{} range holds truth {}, verdict precision / recall (>= 2) {} / {}",
                m.measure,
                option(m.truth_judged_sample_coverage),
                option(verdict.precision),
                option(verdict.recall)
            ))
        })
        .collect();
    let mut blocks = vec![
        Block::Heading {
            level: 1,
            text: format!(
                "Backtest of the audit on {} ({} world)",
                summary.task, summary.world
            ),
        },
        Block::Paragraph(format!(
            "{} runs of {} teams; risk threshold {}, rank margin {}.",
            summary.runs, summary.teams, summary.risk_threshold, summary.rank_margin
        )),
        labelled_table(&header, rows),
        Block::Paragraph(format!(
            "List: {:.2} documents per topic per run ({:.1} per run; {} runs given one), {} of \
             them relevant by the truth, holding {} of the runs' relevant unjudged documents. \
             No judgments needed for {} of the runs whose ranks all stay.",
            summary.list.mean_per_topic,
            summary.list.mean_per_run,
            summary.list.runs_with_list,
            option(summary.list.relevant_share),
            option(summary.list.relevant_found),
            option(summary.no_judgments_when_ranks_stay)
        )),
        Block::Paragraph(format!(
            "The truth's grades cover {:.0}% of the audited runs' unjudged tops. Of the \
             unjudged documents it judged, by rank: {bands}.",
            100.0 * summary.truth_coverage
        )),
    ];
    let residual: Vec<String> = summary
        .measures
        .iter()
        .filter_map(|m| {
            Some(format!(
                "{} residual interval holds truth {:.2}, mean width {:.4}, against the \
                 audit's 90% range {:.2}, mean width {:.4}",
                m.measure,
                m.residual_interval_coverage?,
                m.residual_interval_width?,
                m.sample_coverage,
                m.sample_range_width
            ))
        })
        .collect();
    if !residual.is_empty() {
        blocks.push(Block::Paragraph(format!(
            "RBP's residual interval (from the collection's RBP to RBP plus the residual): {}.",
            residual.join("; ")
        )));
    }
    if !restricted.is_empty() {
        blocks.push(Block::Paragraph(format!(
            "The audit restricted to the documents the truth grades (the others non-relevant, \
             as the lower-bound truth counts them): {}.",
            restricted.join("; ")
        )));
    }
    blocks.extend(claims_blocks(&summary.claims));
    Document { blocks }
}

/// The claims' table: per measure, each predictor's Brier score and its confirmed, lost and
/// reversed claims, the verdict against the claims whose truth differs, and the agreement
/// after judging the list.
fn claims_blocks(claims: &[MeasureClaims]) -> Vec<Block> {
    let predictors = ["collection", "condensed", "audit"];
    let rows = (claims.iter())
        .map(|m| {
            let of = |name: &str| m.predictors.iter().find(|p| p.predictor == name);
            let mut row = vec![
                m.measure.clone(),
                m.claims.to_string(),
                m.significant.to_string(),
                m.truth_differs.to_string(),
            ];
            row.extend(
                predictors
                    .map(|name| of(name).map_or("–".to_string(), |p| format!("{:.4}", p.brier))),
            );
            row.extend(predictors.map(|name| {
                of(name).map_or("–".to_string(), |p| {
                    format!("{} / {} / {}", p.confirmed, p.lost, p.reversed)
                })
            }));
            row.extend(audit_cells(&m.audit));
            row
        })
        .collect();
    let header = [
        "measure",
        "claims",
        "significant",
        "truth differs",
        "Brier collection",
        "Brier condensed",
        "Brier audit",
        "confirmed / lost / reversed: collection",
        "condensed",
        "audit",
        "at risk precision / recall",
        AGREE_HEADER,
    ];
    let list = claims.first().map_or(0.0, |m| m.audit.list_per_run);
    let mut blocks = vec![
        Block::Paragraph(format!(
            "Claims: each run against the best pooled run and the pooled runs directly above \
             and below it; the truth's outcome against each predictor's, and after judging \
             the list that serves the run's ranks and claims ({list:.1} documents per run)."
        )),
        labelled_table(&header, rows),
    ];
    blocks.extend(restricted_claims_blocks(claims));
    blocks
}

/// The header of the agreement after the list.
const AGREE_HEADER: &str = "agree after list: all / where it can settle (claims it cannot)";

/// An audit's verdict (precision / recall of "at risk") and its agreement after the list.
fn audit_cells(audit: &AuditClaims) -> [String; 2] {
    let option = |value: Option<f64>| value.map_or("–".to_string(), |v| format!("{v:.2}"));
    [
        format!(
            "{} / {}",
            option(audit.verdict.precision),
            option(audit.verdict.recall)
        ),
        format!(
            "{} / {} ({})",
            option(audit.agree_after_list),
            option(audit.agree_after_list_where_settleable),
            audit.cannot_settle
        ),
    ]
}

/// The claims as the audit restricted to the documents the truth grades predicts them (deeper
/// world; nothing elsewhere).
fn restricted_claims_blocks(claims: &[MeasureClaims]) -> Vec<Block> {
    let rows: Vec<Vec<String>> = (claims.iter())
        .filter_map(|m| {
            let of = |name: &str| m.predictors.iter().find(|p| p.predictor == name);
            let (restricted, audit) = (of("restricted audit")?, m.restricted.as_ref()?);
            let collection = of("collection")?.brier;
            let mut row = vec![
                m.measure.clone(),
                format!("{:.4}", restricted.brier),
                if collection > 0.0 {
                    format!("{:.2}×", restricted.brier / collection)
                } else {
                    "–".to_string()
                },
                format!(
                    "{} / {} / {}",
                    restricted.confirmed, restricted.lost, restricted.reversed
                ),
            ];
            row.extend(audit_cells(audit));
            Some(row)
        })
        .collect();
    if rows.is_empty() {
        return Vec::new();
    }
    let header = [
        "measure",
        "Brier restricted audit",
        "× collection",
        "confirmed / lost / reversed",
        "at risk precision / recall",
        AGREE_HEADER,
    ];
    let list = claims
        .first()
        .and_then(|m| m.restricted.map(|r| r.list_per_run));
    vec![
        Block::Paragraph(format!(
            "Claims as the audit restricted to the documents the truth grades predicts them \
             (the others non-relevant, as the lower-bound truth counts them), and after \
             judging its own list ({:.1} documents per run).",
            list.unwrap_or(0.0)
        )),
        labelled_table(&header, rows),
    ]
}

/// A table whose first column labels the rows and whose other columns hold figures.
fn labelled_table(header: &[&str], rows: Vec<Vec<String>>) -> Block {
    Block::Table(Table {
        header: header.iter().map(ToString::to_string).collect(),
        align: std::iter::once(Align::Left)
            .chain(std::iter::repeat_n(Align::Right, header.len() - 1))
            .collect(),
        rows,
    })
}

/// The summary as Markdown, for the terminal and the docs.
pub fn summary_table(summary: &BacktestSummary) -> String {
    let mut text = Vec::new();
    backtest_document(summary)
        .write_markdown(&mut text)
        .expect("writing to memory");
    String::from_utf8(text).expect("the document is UTF-8")
}
