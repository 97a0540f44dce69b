//! The comparison of judging strategies' section of `report.md`: per measure, which strategy
//! makes the collection reusable at the smallest budget fraction, then each strategy's figures
//! at each fraction.

use std::io::{self, Write};

use crate::sim::analysis::strategies::StrategiesSummary;
use crate::sim::analysis::StrategyRow;

fn fmt_number(value: Option<f64>) -> String {
    value.map_or_else(|| "n/a".into(), |value| format!("{value:.3}"))
}

/// Writes the section.
///
/// # Errors
/// When writing fails.
pub fn write_strategies_section(
    out: &mut dyn Write,
    summary: &StrategiesSummary,
    rows: &[StrategyRow],
) -> io::Result<()> {
    writeln!(
        out,
        "\n## Judging strategies: how the budget is spent\n\nEvery trial is also judged by \
         each strategy ({}) with the same seeds, held-out teams and budgets, and cut to each \
         budget fraction. Each judges with the official qrels: a document the official qrels \
         never judged gets grade 0 and counts as *unofficial*; a high unofficial share biases \
         the comparison against the strategy. A strategy makes the collection reusable at a \
         fraction when the mean paired tau_b and the control's mean tau_b against the \
         official ranking reach {} and the held-out runs' mean paired rank change is below \
         {}.\n",
        summary.strategies.join(", "),
        summary.paired_tau_b_threshold,
        summary.rank_change_limit
    )?;
    writeln!(
        out,
        "| measure | smallest reusable fraction | strategies there |"
    )?;
    writeln!(out, "|---|---|---|")?;
    for (name, verdict) in &summary.measures {
        match verdict.best_fraction {
            Some(fraction) => writeln!(
                out,
                "| {name} | {fraction} | {} |",
                verdict.best_strategies.join(", ")
            )?,
            None => writeln!(out, "| {name} | none | no strategy at any fraction |")?,
        }
    }
    for name in summary.measures.keys() {
        writeln!(out, "\n### {name}\n")?;
        writeln!(
            out,
            "| strategy | fraction | control tau_b | control tau_b vs truth | paired tau_b | \
             held-out rank change mean | max | control recall | recall found | unofficial \
             share | judgments per topic |"
        )?;
        writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|")?;
        for row in rows.iter().filter(|row| &row.measure == name) {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.1} |",
                row.strategy,
                row.fraction,
                fmt_number(row.control_tau_b),
                fmt_number(row.control_truth_tau_b),
                fmt_number(row.paired_tau_b),
                fmt_number(row.rank_change_mean),
                fmt_number(row.rank_change_max),
                row.control_recall,
                row.control_recall_found,
                row.unofficial_share,
                row.judgments_per_topic
            )?;
        }
    }
    Ok(())
}
