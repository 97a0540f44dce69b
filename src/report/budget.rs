//! The budget curve's section of `report.md`: per measure, the statistics at each budget
//! fraction and the smallest fraction from which on the collection is reusable.

use std::io::{self, Write};

use crate::sim::analysis::budget::BudgetSummary;
use crate::stats::Spread;

fn fmt_spread(spread: &Option<Spread>) -> String {
    spread.map_or_else(
        || "n/a".into(),
        |s| format!("{:.3} ({:.3}–{:.3})", s.mean, s.min, s.max),
    )
}

/// Writes the budget curve's section.
///
/// # Errors
/// When writing fails.
pub fn write_budget_section(out: &mut dyn Write, budget: &BudgetSummary) -> io::Result<()> {
    writeln!(
        out,
        "\n## Budget curve: the study at fractions of each topic's budget\n\nEach topic's \
         simulated judgments are cut to round(f × N_t), the pool first as it was judged (a pool \
         larger than that is kept whole, so the judged share, the judgments kept over all \
         trials and topics against the whole budget's, can exceed the fraction); the same \
         judging serves every fraction. The \
         collection is reusable from the smallest fraction from which on both the mean paired \
         tau_b and the mean control tau_b reach {}.\n",
        budget.threshold
    )?;
    writeln!(out, "| measure | reusable from | judged share there |")?;
    writeln!(out, "|---|---|---|")?;
    for (name, curve) in &budget.measures {
        let from = curve.reusable_from.and_then(|from| {
            let at = budget.fractions.iter().find(|f| f.fraction == from)?;
            Some(format!("{from} | {:.3}", at.judged_share))
        });
        let from = from.unwrap_or_else(|| "not at the whole budget | n/a".to_string());
        writeln!(out, "| {name} | {from} |")?;
    }
    for (name, curve) in &budget.measures {
        writeln!(out, "\n### {name}\n")?;
        writeln!(
            out,
            "| fraction | control tau_b | paired tau_b | LOU tau_b | held-out rank change | \
             control recall | control overlap | judged share | pools over budget |"
        )?;
        writeln!(out, "|---|---|---|---|---|---|---|---|---|")?;
        for (point, fraction) in curve.points.iter().zip(&budget.fractions) {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {:.3} | {} |",
                point.fraction,
                fmt_spread(&point.control.tau_b),
                fmt_spread(&point.paired.tau_b),
                fmt_spread(&point.lou.tau_b),
                fmt_spread(&point.paired.rank_change),
                fmt_spread(&point.control.recall),
                fmt_spread(&point.control.overlap),
                fraction.judged_share,
                fraction.pools_over_budget
            )?;
        }
    }
    Ok(())
}
