//! The budget curve's section of a study's report: per measure, the statistics at each budget
//! fraction and the smallest fraction from which on the collection is reusable.

use super::cells::{fmt_spread, heading, table_section};
use crate::report::document::{table, Block};
use crate::sim::analysis::budget::BudgetSummary;

/// The budget curve's section.
pub fn budget_section(budget: &BudgetSummary) -> Vec<Block> {
    let reusable_rows = budget
        .measures
        .iter()
        .map(|(name, curve)| {
            let from = curve.reusable_from.and_then(|from| {
                let at = budget.fractions.iter().find(|f| f.fraction == from)?;
                Some([from.to_string(), format!("{:.3}", at.judged_share)])
            });
            let [from, share] =
                from.unwrap_or_else(|| ["not at the whole budget".into(), "n/a".into()]);
            vec![name.clone(), from, share]
        })
        .collect();
    let mut blocks = table_section(
        "Budget curve: the study at fractions of each topic's budget",
        Some(format!(
            "Each topic's simulated judgments are cut to round(f × N_t), the pool first as it \
             was judged (a pool larger than that is kept whole, so the judged share, the \
             judgments kept over all trials and topics against the whole budget's, can exceed \
             the fraction); the same judging serves every fraction. The collection is reusable \
             from the smallest fraction from which on both the mean paired tau_b and the mean \
             control tau_b reach {}.",
            budget.threshold
        )),
        &["measure", "reusable from", "judged share there"],
        reusable_rows,
    );
    for (name, curve) in &budget.measures {
        let rows = curve
            .points
            .iter()
            .zip(&budget.fractions)
            .map(|(point, fraction)| {
                vec![
                    point.fraction.to_string(),
                    fmt_spread(&point.control.tau_b),
                    fmt_spread(&point.paired.tau_b),
                    fmt_spread(&point.lou.tau_b),
                    fmt_spread(&point.paired.rank_change),
                    fmt_spread(&point.control.recall),
                    fmt_spread(&point.control.overlap),
                    format!("{:.3}", fraction.judged_share),
                    fraction.pools_over_budget.to_string(),
                ]
            })
            .collect();
        blocks.push(heading(3, name.clone()));
        blocks.push(table(
            &[
                "fraction",
                "control tau_b",
                "paired tau_b",
                "LOU tau_b",
                "held-out rank change",
                "control recall",
                "control overlap",
                "judged share",
                "pools over budget",
            ],
            rows,
        ));
    }
    blocks
}
