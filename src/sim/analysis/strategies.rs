//! The comparison of judging strategies (see docs/strategies.md): for each strategy, budget
//! fraction and measure, the control's tau_b against the official (and true) ranking, the
//! held-out trials paired with their control, the held-out runs' rank changes, the control's
//! recall, the share of unofficial judgments and the judgments per topic; and per measure, the
//! strategies that make the collection reusable at the smallest fraction. Reusable means the
//! held-out trials agree with their control (mean paired tau_b at least 0.9, the held-out runs'
//! mean paired rank change below 1) and the control agrees with the official ranking (mean
//! tau_b at least 0.9; with an assessor other than the official one, with the assessor's own
//! ranking): a strategy that judges too little gives trials that agree with one another about
//! a wrong ranking.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::budget::{with_trials, EQUIVALENT_TAU_B};
use super::figures::{MeasureFigures, TrialChanges};
use super::files::{Counts, StrategyRow};
use super::significance::SignificanceBasis;
use crate::base::choice::Choice;
use crate::sim::study::StudyOutcome;
use crate::sim::trials::StrategyPoint;
use crate::stats::pair_changes::PairChanges;

/// The mean paired rank change of the held-out runs a reusable collection stays below.
pub const RANK_CHANGE_LIMIT: f64 = 1.0;

/// The comparison of judging strategies.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StrategyVerdict {
    /// Per strategy, the smallest fraction at which the mean paired tau_b and the mean control
    /// tau_b reach the threshold and the held-out runs' mean paired rank change is below the
    /// limit (`None`: at none).
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
    basis: &SignificanceBasis,
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
                basis,
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
    basis: &SignificanceBasis,
) -> Vec<StrategyRow> {
    let at_point = with_trials(outcome, point.trials.clone(), 0);
    let mean = |spread: Option<crate::stats::Spread>| spread.map(|spread| spread.mean);
    measures
        .iter()
        .enumerate()
        .map(|(index, name)| {
            let figures = MeasureFigures::new(&at_point, index, name, basis);
            let controls = control_changes(&figures);
            let trial_rows = figures.ranking_rows();
            let paired = figures.paired_summary(&trial_rows, &figures.held_out_rows());
            let control = figures.control_summary();
            let assessor = figures.assessor_summary();
            let sources = outcome.assessor.as_ref().map(|_| &point.sources);
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
                official: mean_counts(controls.iter().map(|c| c.official)),
                hical: mean_counts(controls.iter().map(|c| c.full)),
                truth: mean_counts(controls.iter().map(|c| c.truth)),
                control_assessor_tau_b: assessor.as_ref().map(|a| mean(a.control_tau_b)),
                control_assessor_recall: assessor
                    .as_ref()
                    .map(|a| mean(a.control_recall).unwrap_or(0.0)),
                file_share: sources.map(|s| s.share(s.file)),
                drawn_share: sources.map(|s| s.share(s.drawn)),
                assessor: (outcome.assessor.as_ref())
                    .map(|_| mean_counts(controls.iter().map(|c| c.assessor.flatten()))),
            }
        })
        .collect()
}

/// The significant pairs of each control trial of `figures` against every reference.
fn control_changes(figures: &MeasureFigures) -> Vec<TrialChanges> {
    (figures.outcome.trials.iter().enumerate())
        .filter(|(_, trial)| trial.trial.held_out.is_none())
        .map(|(index, _)| figures.trial_changes(index))
        .collect()
}

/// The mean of each count (kept, lost, reversed, new) over `changes`; `NA` when any is
/// undefined.
fn mean_counts(changes: impl Iterator<Item = Option<PairChanges>>) -> Counts<f64> {
    let changes: Option<Vec<PairChanges>> = changes.collect();
    let Some(changes) = changes.filter(|changes| !changes.is_empty()) else {
        return Counts::default();
    };
    let count = changes.len() as f64;
    let total: PairChanges = changes.into_iter().sum();
    Counts::of(Some(total)).map(|sum| sum as f64 / count)
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

/// Whether a row shows a reusable collection: a mean paired tau_b and a mean control tau_b (against
/// the assessor's ranking when the study has an assessor other than the official one) of at
/// least the threshold, and a held-out mean rank change below the limit.
fn is_reusable(row: &StrategyRow) -> bool {
    let control_tau_b = row.control_assessor_tau_b.unwrap_or(row.control_tau_b);
    [row.paired_tau_b, control_tau_b]
        .iter()
        .all(|tau| tau.is_some_and(|tau| tau >= EQUIVALENT_TAU_B))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn row(strategy: &str, fraction: f64, taus: [f64; 2], rank_change: f64) -> StrategyRow {
        StrategyRow {
            strategy: strategy.into(),
            fraction,
            measure: "map".into(),
            control_tau_b: Some(taus[0]),
            control_truth_tau_b: None,
            paired_tau_b: Some(taus[1]),
            rank_change_mean: Some(rank_change),
            rank_change_max: Some(rank_change),
            control_recall: 0.5,
            control_recall_found: 0.5,
            unofficial_share: 0.0,
            judgments_per_topic: 10.0,
            control_assessor_tau_b: None,
            control_assessor_recall: None,
            file_share: None,
            drawn_share: None,
            official: Counts::default(),
            hical: Counts::default(),
            truth: Counts::default(),
            assessor: None,
        }
    }

    #[test]
    fn the_most_reusable_strategies_are_those_reusable_at_the_smallest_fraction() {
        let rows = [
            // depth: its control ranking disagrees at 0.25, and its held-out runs move by 1
            // at 0.5 (the limit is not reached); reusable at 1.
            row("depth", 0.25, [0.5, 0.95], 0.0),
            row("depth", 0.5, [0.95, 0.95], 1.0),
            row("depth", 1.0, [0.95, 0.95], 0.5),
            // mtf: paired tau_b exactly 0.9 at 0.5 is enough.
            row("mtf", 0.25, [0.95, 0.89], 0.0),
            row("mtf", 0.5, [0.9, 0.9], 0.99),
            row("mtf", 1.0, [0.95, 0.95], 0.0),
            // bandit: reusable at 0.5 too.
            row("bandit", 0.25, [0.95, 0.95], 1.5),
            row("bandit", 0.5, [0.92, 0.97], 0.2),
            row("bandit", 1.0, [0.95, 0.95], 0.0),
            // hical: never.
            row("hical", 1.0, [0.8, 0.95], 0.0),
        ];
        let strategies: Vec<String> = ["hical", "depth", "mtf", "bandit"]
            .map(String::from)
            .to_vec();
        let verdict = verdict(&rows, &strategies, "map");
        let at = |strategy: &str| verdict.reusable_at[strategy];
        assert_eq!(
            [at("hical"), at("depth"), at("mtf"), at("bandit")],
            [None, Some(1.0), Some(0.5), Some(0.5)]
        );
        assert_eq!(verdict.best_fraction, Some(0.5));
        assert_eq!(verdict.best_strategies, ["mtf", "bandit"]);
        let none = super::verdict(&rows[9..], &strategies[..1], "map");
        assert_eq!((none.best_fraction, none.best_strategies.len()), (None, 0));
    }
}
