//! The report's tables of runs: every run's ranks over all trials, the runs whose LOU rank
//! moved most, and the run pairs whose order swapped.

use super::cells::{fmt_value, note_row, table_section};
use super::rows::ReportRows;
use crate::report::document::Block;
use crate::sim::analysis::{RunRow, StudySummary};
use crate::stats::Spread;

/// Every run's ranks over all trials: the runs whose ranks spread widest.
pub(super) fn rank_spread(summary: &StudySummary, report_rows: ReportRows<'_>) -> Vec<Block> {
    let mut rows = Vec::new();
    for name in summary.measures.keys() {
        let mut spreads = rank_spreads(report_rows, name);
        if spreads.is_empty() {
            rows.push(note_row(name, "(every run keeps one rank)", 6));
        }
        spreads.sort_by(|(a, a_ranks), (b, b_ranks)| {
            (b_ranks.max - b_ranks.min)
                .total_cmp(&(a_ranks.max - a_ranks.min))
                .then_with(|| a.run.cmp(&b.run))
        });
        for (run, ranks) in spreads.iter().take(5) {
            rows.push(vec![
                name.clone(),
                run.run.clone(),
                run.team.clone(),
                run.official_rank.to_string(),
                format!("{}–{}", ranks.min, ranks.max),
                format!(
                    "{} ({:.2})",
                    run.trials_dominant_rank, run.trials_dominant_rank_share
                ),
            ]);
        }
    }
    table_section(
        "Every run's rank over all trials",
        Some(
            "The rank of each run in every trial, control and leave-out trials of every seed \
             (`ranks.tsv`, the `rank_spread` figures); up to 5 runs per measure whose ranks \
             spread widest."
                .into(),
        ),
        &[
            "measure",
            "run",
            "team",
            "official rank",
            "ranks over trials (min–max)",
            "dominant rank (share of trials)",
        ],
        rows,
    )
}

/// The runs of `measure` whose rank differs between trials, with their ranks over all trials.
fn rank_spreads<'r>(rows: ReportRows<'r>, measure: &str) -> Vec<(&'r RunRow, Spread)> {
    rows.runs
        .iter()
        .filter(|run| run.measure == measure)
        .filter_map(|run| {
            let ranks: Vec<f64> = rows
                .ranks
                .iter()
                .filter(|rank| rank.measure == measure && rank.run == run.run)
                .map(|rank| rank.rank)
                .collect();
            Some((run, Spread::of(&ranks)?))
        })
        .filter(|(_, ranks)| ranks.max > ranks.min)
        .collect()
}

/// The runs whose LOU rank moved most.
pub(super) fn rank_changes(summary: &StudySummary, report_rows: ReportRows<'_>) -> Vec<Block> {
    let mut rows = Vec::new();
    for name in summary.measures.keys() {
        let mut changed: Vec<_> = report_rows
            .runs
            .iter()
            .filter(|r| &r.measure == name)
            .filter(|r| r.lou_rank.min != r.official_rank || r.lou_rank.max != r.official_rank)
            .collect();
        if changed.is_empty() {
            rows.push(note_row(name, "(no run changed rank)", 6));
        }
        changed.sort_by(|a, b| {
            (b.lou_rank.max - b.official_rank)
                .total_cmp(&(a.lou_rank.max - a.official_rank))
                .then_with(|| a.run.cmp(&b.run))
        });
        for row in changed.iter().take(5) {
            rows.push(vec![
                name.clone(),
                row.run.clone(),
                row.team.clone(),
                row.official_rank.to_string(),
                format!(
                    "{:.1} ({}–{})",
                    row.lou_rank.mean, row.lou_rank.min, row.lou_rank.max
                ),
                format!("{} ({})", row.dominant_rank, row.dominant_rank_frequency),
            ]);
        }
    }
    table_section(
        "Rank changes under the LOU ranking (largest drops first, up to 5 runs per measure)",
        None,
        &[
            "measure",
            "run",
            "team",
            "official rank",
            "LOU rank (mean, min–max)",
            "dominant rank (seeds)",
        ],
        rows,
    )
}

/// Run pairs whose mean LOU order differs from the official order.
pub(super) fn swapped_pairs(summary: &StudySummary) -> Vec<Block> {
    let mut rows = Vec::new();
    for (name, m) in &summary.measures {
        if m.swapped_pairs.is_empty() {
            rows.push(note_row(name, "(none)", 8));
        }
        for pair in &m.swapped_pairs {
            rows.push(vec![
                name.clone(),
                pair.better.clone(),
                pair.worse.clone(),
                format!("{:.4} / {:.4}", pair.official[0], pair.official[1]),
                format!("{:.4} / {:.4}", pair.lou_mean[0], pair.lou_mean[1]),
                fmt_value(pair.p_value),
                fmt_value(pair.adjusted_p_value),
                if pair.significant { "yes" } else { "no" }.to_string(),
            ]);
        }
    }
    table_section(
        "Swapped pairs (mean LOU order differs from the official order)",
        None,
        &[
            "measure",
            "officially better",
            "officially worse",
            "official scores",
            "mean LOU scores",
            "official p",
            "corrected p",
            "significant",
        ],
        rows,
    )
}
