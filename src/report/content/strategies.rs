//! The comparison of judging strategies' section of a study's report: per measure, which
//! strategy makes the collection reusable at the smallest budget fraction, then each
//! strategy's figures at each fraction.

use super::cells::{fmt_value, heading, table_section};
use crate::report::document::{table, Block};
use crate::sim::analysis::strategies::StrategiesSummary;
use crate::sim::analysis::StrategyRow;

/// The strategies' section.
pub fn strategies_section(summary: &StrategiesSummary, rows: &[StrategyRow]) -> Vec<Block> {
    let verdicts = summary
        .measures
        .iter()
        .map(|(name, verdict)| match verdict.best_fraction {
            Some(fraction) => vec![
                name.clone(),
                fraction.to_string(),
                verdict.best_strategies.join(", "),
            ],
            None => vec![
                name.clone(),
                "none".into(),
                "no strategy at any fraction".into(),
            ],
        })
        .collect();
    let is_assessed = rows.iter().any(|row| row.control_assessor_tau_b.is_some());
    let (assessor, reference) = if is_assessed {
        (
            "the study's assessor: the *unofficial* share is what the official qrels never \
             judged, split into what the fuller file graded (*from file*) and what was drawn \
             from the relevance model (*drawn*); the rest was presumed non-relevant",
            "the assessor's",
        )
    } else {
        (
            "the official qrels: a document the official qrels never judged gets grade 0 and \
             counts as *unofficial*; a high unofficial share biases the comparison against the \
             strategy",
            "the official",
        )
    };
    let mut blocks = table_section(
        "Judging strategies: how the budget is spent",
        Some(format!(
            "Every trial is also judged by each strategy ({}) with the same seeds, held-out \
             teams and budgets, and cut to each budget fraction. Each judges with {assessor}. \
             A strategy makes the collection reusable at a fraction when the mean paired tau_b \
             and the control's mean tau_b against {reference} ranking reach {} and the \
             held-out runs' mean paired rank change is below {}.",
            summary.strategies.join(", "),
            summary.paired_tau_b_threshold,
            summary.rank_change_limit
        )),
        &["measure", "smallest reusable fraction", "strategies there"],
        verdicts,
    );
    for name in summary.measures.keys() {
        blocks.push(heading(3, name.clone()));
        let measure_rows = rows
            .iter()
            .filter(|row| &row.measure == name)
            .map(|row| {
                let mut cells = vec![
                    row.strategy.clone(),
                    row.fraction.to_string(),
                    fmt_value(row.control_tau_b),
                    fmt_value(row.control_truth_tau_b),
                    fmt_value(row.paired_tau_b),
                    fmt_value(row.rank_change_mean),
                    fmt_value(row.rank_change_max),
                    format!("{:.3}", row.control_recall),
                    format!("{:.3}", row.control_recall_found),
                    format!("{:.3}", row.unofficial_share),
                    format!("{:.1}", row.judgments_per_topic),
                ];
                if is_assessed {
                    cells.extend([
                        fmt_value(row.control_assessor_tau_b.flatten()),
                        fmt_value(row.control_assessor_recall),
                        fmt_value(row.file_share),
                        fmt_value(row.drawn_share),
                    ]);
                }
                cells
            })
            .collect();
        let mut header = vec![
            "strategy",
            "fraction",
            "control tau_b",
            "control tau_b vs truth",
            "paired tau_b",
            "held-out rank change mean",
            "max",
            "control recall",
            "recall found",
            "unofficial share",
            "judgments per topic",
        ];
        if is_assessed {
            header.extend([
                "control tau_b vs assessor",
                "control recall (assessor)",
                "from file",
                "drawn",
            ]);
        }
        blocks.push(table(&header, measure_rows));
    }
    blocks
}
