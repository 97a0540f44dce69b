//! The report's comparisons by significance: a lead sentence per measure (of the pairs
//! significant in the control trials, how many stay significant without the held-out team, and
//! how many are reversed) and a table of one row per measure.

use super::cells::{fmt_spread, fmt_value, paragraph, table_section};
use crate::report::document::Block;
use crate::sim::analysis::significance::{ChangeSummary, SignificanceSummary};
use crate::sim::analysis::StudySummary;

/// The test, in words, as the lead names it.
fn test_name(summary: &StudySummary) -> Option<String> {
    let settings = summary.settings.significance.as_ref()?;
    Some(format!(
        "{} test, correction {}, alpha {}",
        settings.test, settings.correction, settings.alpha
    ))
}

/// One sentence per measure: the held-out trials against their control, all pairs and the
/// held-out team's.
pub(super) fn significance_lead(summary: &StudySummary) -> Option<Block> {
    let test = test_name(summary)?;
    let sentences: Vec<String> = (summary.measures.iter())
        .filter_map(|(name, measure)| {
            let significance = measure.significance.as_ref()?;
            let paired = significance.paired?;
            let held_out = significance
                .paired_held_out
                .map(|changes| {
                    format!(
                        "; of those involving the held-out team's runs ({}), {} kept and {} \
                         reversed",
                        changes.reference_significant,
                        share(changes.kept_share),
                        changes.reversed
                    )
                })
                .unwrap_or_default();
            Some(format!(
                "by {name}, of {} significant pairs in the control trials, {} stay significant \
                 in the same direction without the held-out team and {} are reversed{held_out}",
                paired.reference_significant,
                share(paired.kept_share),
                paired.reversed
            ))
        })
        .collect();
    (!sentences.is_empty()).then(|| {
        paragraph(format!(
            "Significance ({test}; summed over every held-out trial, against its seed's \
             control): {}.",
            sentences.join("; ")
        ))
    })
}

/// A share as a percentage.
fn share(value: Option<f64>) -> String {
    value.map_or("NA".to_string(), |share| format!("{:.0}%", 100.0 * share))
}

/// `kept / lost / reversed / new`, with the kept share.
fn changes_cell(changes: &Option<ChangeSummary>) -> String {
    changes.map_or("NA".to_string(), |c| {
        format!(
            "{} / {} / {} / {} ({})",
            c.kept,
            c.lost,
            c.reversed,
            c.new,
            share(c.kept_share)
        )
    })
}

/// The table: discriminative power and the four counts against each reference.
pub(super) fn significance_section(summary: &StudySummary) -> Vec<Block> {
    let Some(test) = test_name(summary) else {
        return Vec::new();
    };
    let rows: Vec<Vec<String>> = (summary.measures.iter())
        .filter_map(|(name, measure)| {
            let s: &SignificanceSummary = measure.significance.as_ref()?;
            let power = &s.discriminative_power;
            Some(vec![
                name.clone(),
                s.pairs.to_string(),
                fmt_value(power.official),
                fmt_spread(&power.controls),
                fmt_spread(&power.trials),
                changes_cell(&s.paired),
                changes_cell(&s.paired_held_out),
                changes_cell(&s.control),
                changes_cell(&s.control_truth.or(s.control_assessor)),
            ])
        })
        .collect();
    table_section(
        "Significant pairs: kept, lost, reversed, new",
        Some(format!(
            "Every pair of runs is tested on each qrels ({test}). A pair significant under a \
             reference is kept (significant in the same direction), lost (not significant) or \
             reversed (significant the other way); new pairs are significant only under the \
             trial. Counts are summed over trials, with the kept share of the reference's \
             significant pairs. Discriminative power is the share of pairs significant \
             (Sakai 2006). The last column compares the controls with the truth, or with the \
             assessor's own qrels."
        )),
        &[
            "measure",
            "pairs",
            "significant: official",
            "controls",
            "held-out trials",
            "held-out trials vs control",
            "held-out team's pairs vs control",
            "controls vs official",
            "controls vs truth / assessor",
        ],
        rows,
    )
}
