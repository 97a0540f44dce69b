//! The comparison of judging strategies (see docs/strategies.md): for each strategy, budget
//! fraction and measure, the control's tau_b against the official (and true) ranking, the
//! held-out trials paired with their control, the held-out runs' rank changes, the control's
//! recall, the share of unofficial judgments and the judgments per topic; and per measure, the
//! strategies that make the collection reusable at the smallest fraction.

use std::collections::BTreeMap;

use serde::Serialize;

use super::budget::{with_trials, EQUIVALENT_TAU_B};
use super::figures::MeasureFigures;
use crate::base::choice::Choice;
use crate::sim::analysis::files::StrategyRow;
use crate::sim::study::{StrategyPoint, StudyOutcome};

/// The mean paired rank change of the held-out runs a reusable collection stays below.
pub const RANK_CHANGE_LIMIT: f64 = 1.0;

/// The comparison of judging strategies.
#[derive(Debug, Clone, Serialize)]
pub struct StrategiesSummary {
    /// The mean paired tau_b a reusable collection reaches.
    pub paired_tau_b_threshold: f64,
    /// The mean paired rank change of the held-out runs a reusable collection stays below.
    pub rank_change_limit: f64,
    /// The strategies, in the order compared.
    pub strategies: Vec<String>,
    /// The budget fractions, ascending.
    pub fractions: Vec<f64>,
    /// Per measure (canonical name).
    pub measures: BTreeMap<String, StrategyVerdict>,
}

/// Which strategies make the collection reusable on one measure, and from how small a budget.
#[derive(Debug, Clone, Serialize)]
pub struct StrategyVerdict {
    /// Per strategy, the smallest fraction at which the mean paired tau_b reaches the threshold
    /// and the held-out runs' mean paired rank change is below the limit (`None`: at none).
    pub reusable_at: BTreeMap<String, Option<f64>>,
    /// The smallest of those fractions (`None`: no strategy is reusable at any).
    pub best_fraction: Option<f64>,
    /// The strategies reusable at that fraction, in the order compared.
    pub best_strategies: Vec<String>,
}

/// The comparison of the strategies of `outcome` for `measures` (in the study's order) and the
/// rows of `strategies.tsv` (strategy, then fraction, then measure); `None` and no rows when
/// the study compares none.
pub(super) fn compare_strategies(
    outcome: &StudyOutcome,
    measures: &[String],
) -> (Option<StrategiesSummary>, Vec<StrategyRow>) {
    let Some(first) = outcome.strategies.first() else {
        return (None, Vec::new());
    };
    let mut rows = Vec::new();
    for compared in &outcome.strategies {
        for point in &compared.points {
            rows.extend(point_rows(
                outcome,
                compared.strategy.name(),
                point,
                measures,
            ));
        }
    }
    let strategies: Vec<String> = (outcome.strategies.iter())
        .map(|compared| compared.strategy.name().to_string())
        .collect();
    let measures = measures
        .iter()
        .map(|measure| (measure.clone(), verdict(&rows, &strategies, measure)))
        .collect();
    let summary = StrategiesSummary {
        paired_tau_b_threshold: EQUIVALENT_TAU_B,
        rank_change_limit: RANK_CHANGE_LIMIT,
        fractions: first.points.iter().map(|point| point.fraction).collect(),
        strategies,
        measures,
    };
    (Some(summary), rows)
}

/// The rows of one strategy at one fraction, one per measure.
fn point_rows(
    outcome: &StudyOutcome,
    strategy: &str,
    point: &StrategyPoint,
    measures: &[String],
) -> Vec<StrategyRow> {
    let at_point = with_trials(outcome, point.trials.clone(), 0);
    let mean = |spread: Option<crate::stats::Spread>| spread.map(|spread| spread.mean);
    measures
        .iter()
        .enumerate()
        .map(|(index, name)| {
            let figures = MeasureFigures::new(&at_point, index, name);
            let trial_rows = figures.trial_rows();
            let paired = figures.paired_summary(&trial_rows, &figures.held_out_rows());
            let control = figures.control_summary();
            StrategyRow {
                strategy: strategy.to_string(),
                fraction: point.fraction,
                measure: name.clone(),
                control_tau_b: mean(control.tau_b),
                control_truth_tau_b: control_truth_tau_b(&at_point, index),
                paired_tau_b: mean(paired.tau_b),
                rank_change_mean: mean(paired.rank_change),
                rank_change_max: paired.rank_change.map(|spread| spread.max),
                control_recall: mean(control.recall).unwrap_or(0.0),
                control_recall_found: mean(control.recall_found).unwrap_or(0.0),
                unofficial_share: point.unofficial_share,
                judgments_per_topic: point.judgments_per_topic,
            }
        })
        .collect()
}

/// The control rankings' mean tau_b against the truth ranking on measure `index`; `None`
/// without a truth or when a tau_b is undefined.
fn control_truth_tau_b(outcome: &StudyOutcome, index: usize) -> Option<f64> {
    let truth = outcome.truth.as_ref()?.measure(index);
    let taus: Option<Vec<f64>> = (outcome.trials.iter())
        .filter(|trial| trial.trial.held_out.is_none())
        .map(|trial| crate::stats::tau_b(&truth, &trial.scores.measure(index)).ok())
        .collect();
    crate::stats::Spread::of(&taus?).map(|spread| spread.mean)
}

/// Whether a row shows a reusable collection: a mean paired tau_b of at least the threshold
/// and a held-out mean rank change below the limit.
fn is_reusable(row: &StrategyRow) -> bool {
    row.paired_tau_b.is_some_and(|tau| tau >= EQUIVALENT_TAU_B)
        && row
            .rank_change_mean
            .is_some_and(|change| change < RANK_CHANGE_LIMIT)
}

/// The verdict on `measure` from the rows of every strategy (fractions ascending).
fn verdict(rows: &[StrategyRow], strategies: &[String], measure: &str) -> StrategyVerdict {
    let reusable_at: BTreeMap<String, Option<f64>> = strategies
        .iter()
        .map(|strategy| {
            let smallest = rows
                .iter()
                .filter(|row| &row.strategy == strategy && row.measure == measure)
                .find(|row| is_reusable(row))
                .map(|row| row.fraction);
            (strategy.clone(), smallest)
        })
        .collect();
    let best_fraction = reusable_at
        .values()
        .flatten()
        .copied()
        .min_by(f64::total_cmp);
    let best_strategies = strategies
        .iter()
        .filter(|strategy| best_fraction.is_some() && reusable_at[*strategy] == best_fraction)
        .cloned()
        .collect();
    StrategyVerdict {
        reusable_at,
        best_fraction,
        best_strategies,
    }
}
