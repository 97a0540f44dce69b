//! The budget curve (see docs/budget.md): at each budget fraction, the same
//! statistics as the study's at its whole budget (the control against the official ranking,
//! the LOU and trial rankings, the held-out trials paired with their control, the held-out
//! runs' rank changes, the control's recall and overlap), computed from the trials scored on
//! the cut qrels; and the smallest fraction from which on the collection is reusable.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::figures::MeasureFigures;
use super::files::BudgetRow;
use super::measure::{ControlSummary, LouSummary, PairedSummary, TrialsSummary};
use super::significance::{SignificanceBasis, SignificanceSummary};
use crate::sim::study::StudyOutcome;
use crate::sim::trials::{BudgetOutcome, TrialOutcome};

/// The tau_b two rankings must reach to be called equivalent (Voorhees 2000).
pub const EQUIVALENT_TAU_B: f64 = 0.9;

/// The budget curve of a study: its fractions and, per measure, the statistics at each.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BudgetSummary {
    /// The tau_b a reusable collection reaches.
    pub threshold: f64,
    /// The fractions, ascending, with the units whose pool alone exceeded each one's budget.
    pub fractions: Vec<BudgetFraction>,
    /// Per measure (canonical name).
    pub measures: BTreeMap<String, BudgetCurve>,
}

/// One budget fraction.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BudgetFraction {
    /// The fraction of each topic's budget.
    pub fraction: f64,
    /// (trial, topic) units whose pool alone exceeded round(fraction × N_t): their whole pool
    /// was kept.
    pub pools_over_budget: usize,
    /// The judgments kept over all (trial, topic) units, as a share of the whole budget's: the
    /// fraction itself unless pools were kept whole (or a topic ran out of candidates).
    pub judged_share: f64,
}

/// One measure's budget curve.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BudgetCurve {
    /// The smallest fraction from which on (at it and at every larger fraction of the study)
    /// both the mean paired tau_b and the mean control tau_b reach the threshold; `None` when
    /// the whole budget does not.
    pub reusable_from: Option<f64>,
    /// The statistics at each fraction, ascending.
    pub points: Vec<BudgetPoint>,
}

/// The statistics of one measure at one budget fraction, over seeds and trials as at the
/// whole budget.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BudgetPoint {
    /// The fraction of each topic's budget.
    pub fraction: f64,
    /// The control trials against the official qrels and ranking.
    pub control: ControlSummary,
    /// Held-out trials against their seed's control at the same fraction.
    pub paired: PairedSummary,
    /// The LOU rankings against the official ranking.
    pub lou: LouSummary,
    /// Every held-out trial's ranking against the official ranking.
    pub trials: TrialsSummary,
    /// The comparisons by significance at this fraction (`None` in summaries written before
    /// them).
    #[serde(default)]
    pub significance: Option<SignificanceSummary>,
}

/// The budget curve of `outcome` for `measures` (in the study's order) and the rows of
/// `budget.tsv` (fraction, then measure, then trial order); `None` and no rows without a
/// budget curve.
pub(super) fn budget_curve(
    outcome: &StudyOutcome,
    measures: &[String],
    basis: &SignificanceBasis,
) -> (Option<BudgetSummary>, Vec<BudgetRow>) {
    if outcome.budget.is_empty() {
        return (None, Vec::new());
    }
    let mut rows = Vec::new();
    let mut curves: BTreeMap<String, Vec<BudgetPoint>> = BTreeMap::new();
    for budget in &outcome.budget {
        let at_fraction = outcome_at(outcome, budget);
        for (index, name) in measures.iter().enumerate() {
            let figures = MeasureFigures::new(&at_fraction, index, name, basis);
            let trial_rows = figures.trial_rows();
            let held_out_rows = figures.held_out_rows();
            curves.entry(name.clone()).or_default().push(BudgetPoint {
                fraction: budget.fraction,
                control: figures.control_summary(),
                paired: figures.paired_summary(&trial_rows, &held_out_rows),
                lou: figures.lou_summary(),
                trials: figures.trials_summary(),
                significance: Some(figures.significance_summary()),
            });
            rows.extend(trial_rows.iter().enumerate().map(|(index, trial)| {
                let full = figures.trial_changes(index).full;
                BudgetRow::new(budget.fraction, trial, full)
            }));
        }
    }
    let summary = BudgetSummary {
        threshold: EQUIVALENT_TAU_B,
        fractions: outcome
            .budget
            .iter()
            .map(|budget| BudgetFraction {
                fraction: budget.fraction,
                pools_over_budget: budget.pools_over_budget,
                judged_share: budget.judged_share,
            })
            .collect(),
        measures: curves
            .into_iter()
            .map(|(name, points)| {
                let curve = BudgetCurve {
                    reusable_from: reusable_from(&points),
                    points,
                };
                (name, curve)
            })
            .collect(),
    };
    (Some(summary), rows)
}

/// The study as it would have been at `budget`'s fraction: its trials in place of the
/// whole budget's.
fn outcome_at<'c>(outcome: &StudyOutcome<'c>, budget: &BudgetOutcome) -> StudyOutcome<'c> {
    with_trials(outcome, budget.trials.clone(), budget.pools_over_budget)
}

/// The study with `trials` in place of its own (and `pools_over_budget` units whose pool
/// exceeded their budget), for statistics of other judgings of the same trials.
pub(super) fn with_trials<'c>(
    outcome: &StudyOutcome<'c>,
    trials: Vec<TrialOutcome>,
    pools_over_budget: usize,
) -> StudyOutcome<'c> {
    StudyOutcome {
        collection: outcome.collection,
        held_out_teams: outcome.held_out_teams.clone(),
        official: outcome.official.clone(),
        truth: outcome.truth.clone(),
        classic_lou: outcome.classic_lou.clone(),
        trials,
        units: outcome.units,
        distinct_units: outcome.distinct_units,
        retrains: outcome.retrains,
        pools_over_budget,
        budget: Vec::new(),
        // The deviations are the whole study's: no statistic of other trials reads them.
        unofficial_judgments: outcome.unofficial_judgments,
        sources: outcome.sources,
        assessor: outcome.assessor.clone(),
        strategies: Vec::new(),
    }
}

/// The smallest fraction from which on every point (`points` ascending) has a mean paired
/// tau_b and a mean control tau_b of at least [`EQUIVALENT_TAU_B`].
fn reusable_from(points: &[BudgetPoint]) -> Option<f64> {
    let is_reusable = |point: &&BudgetPoint| {
        [point.paired.tau_b, point.control.tau_b]
            .iter()
            .all(|tau| tau.is_some_and(|tau| tau.mean >= EQUIVALENT_TAU_B))
    };
    points
        .iter()
        .rev()
        .take_while(is_reusable)
        .last()
        .map(|point| point.fraction)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::Collection;
    use crate::io::fixture::hand_task;
    use crate::judge::settings::Withhold;
    use crate::sim::analysis::files::to_qrels;
    use crate::sim::analysis::{SettingsSummary, StudySummary};
    use crate::sim::fixture::small_study;
    use crate::sim::study::{held_out_teams, run_study};
    use crate::stats::pair_changes::PairChanges;
    use crate::stats::Spread;

    #[test]
    fn each_fraction_scores_the_runs_on_the_prefix_of_every_trace() {
        let dir = tempfile::tempdir().unwrap();
        let task = hand_task(dir.path(), false);
        let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
        let study = crate::sim::study::StudySettings {
            budget_fractions: vec![0.25, 0.5, 1.0],
            ..small_study(Withhold::None, None)
        };
        let teams = held_out_teams(&task, None).unwrap();
        let outcome = run_study(&task, &collection, &study, teams.clone(), &|_, _| {}).unwrap();
        let fractions: Vec<f64> = outcome.budget.iter().map(|b| b.fraction).collect();
        assert_eq!(fractions, [0.25, 0.5, 1.0]);
        // Topic 1 (10 judgments) keeps 3, then 5; topic 2 (3 judgments) keeps 1, then 2 (half
        // away from zero), unless the trial's pool alone is more.
        for (budget, kept) in outcome.budget.iter().zip([[3, 1], [5, 2], [10, 3]]) {
            for (whole, cut) in outcome.trials.iter().zip(&budget.trials) {
                assert_eq!(whole.trial, cut.trial);
                let prefixes: Vec<_> = whole
                    .judgings
                    .clone()
                    .unwrap()
                    .into_iter()
                    .zip(kept)
                    .map(|(mut judging, kept)| {
                        judging.judgments.truncate(kept.max(judging.pool_size));
                        judging
                    })
                    .collect();
                let qrels = to_qrels(&collection, &prefixes);
                let evaluator = crate::eval::Evaluator::new(
                    &qrels,
                    crate::eval::EvalOptions {
                        measures: study.measures.clone(),
                        relevance_level: 1,
                        complete: false,
                        max_docs: None,
                        relstring: None,
                    },
                );
                for (run, scores) in task.runs.iter().zip(&cut.scores.summary) {
                    let expected = evaluator.evaluate(run).summary;
                    for (a, b) in scores.iter().zip(&expected) {
                        assert!((a - b).abs() < 1e-12, "{} at {}", run.tag, budget.fraction);
                    }
                }
            }
        }
        // Every trial pools t1 and t3 (B's and C's runs) on topic 2: more than the quarter's
        // budget of 1.
        assert!(outcome.budget[0].pools_over_budget >= outcome.trials.len());
        assert_eq!(
            outcome.budget[2].pools_over_budget,
            outcome.pools_over_budget
        );
        // At the whole budget the curve's last point is the study's own figures.
        let summary = StudySummary::new(
            "hand",
            SettingsSummary::new(&task, &study, &outcome),
            &outcome,
            0.0,
        );
        let budget = summary.budget.as_ref().unwrap();
        for (name, measure) in &summary.measures {
            let whole = budget.measures[name].points.last().unwrap();
            assert_eq!(json(&whole.control), json(&measure.control), "{name}");
            assert_eq!(json(&whole.paired), json(&measure.paired), "{name}");
            assert_eq!(json(&whole.lou), json(&measure.lou), "{name}");
            assert_eq!(json(&whole.trials), json(&measure.trials), "{name}");
            assert_eq!(
                json(&whole.significance),
                json(&measure.significance),
                "{name}"
            );
        }
        // At the whole budget a held-out trial's control is the whole budget's, and a control
        // keeps every one of its own significant pairs.
        let whole_rows: Vec<BudgetRow> = summary
            .trials
            .iter()
            .map(|trial| {
                let full = match trial.held_out {
                    Some(_) => PairChanges {
                        kept: trial.paired.kept.unwrap(),
                        lost: trial.paired.lost.unwrap(),
                        reversed: trial.paired.reversed.unwrap(),
                        new: trial.paired.new.unwrap(),
                    },
                    None => PairChanges {
                        kept: trial.significant.unwrap(),
                        ..PairChanges::default()
                    },
                };
                BudgetRow::new(1.0, trial, Some(full))
            })
            .collect();
        let last_rows: Vec<&BudgetRow> = summary
            .budget_rows
            .iter()
            .filter(|row| row.fraction == 1.0)
            .collect();
        assert_eq!(last_rows, whole_rows.iter().collect::<Vec<_>>());
        assert_eq!(summary.budget_rows.len(), 3 * summary.trials.len());
    }

    /// A summary part as JSON, to compare parts that have no `PartialEq`.
    fn json(part: &impl Serialize) -> serde_json::Value {
        serde_json::to_value(part).unwrap()
    }

    fn point(fraction: f64, paired: f64, control: f64) -> BudgetPoint {
        let tau = |value: f64| Spread::of(&[value]);
        BudgetPoint {
            fraction,
            control: ControlSummary {
                overlap: None,
                recall: None,
                carried: None,
                overlap_found: None,
                recall_found: None,
                tau_b: tau(control),
            },
            paired: PairedSummary {
                tau_b: tau(paired),
                tau_ap: None,
                score_change: None,
                rank_change: None,
            },
            lou: LouSummary {
                tau_b: None,
                tau_ap: None,
                max_drop: None,
                runs_changed: None,
            },
            trials: TrialsSummary {
                tau_b: None,
                tau_ap: None,
            },
            significance: None,
        }
    }

    #[test]
    fn a_collection_is_reusable_from_the_fraction_after_which_both_taus_stay_above_the_threshold() {
        let points = [
            point(0.25, 0.95, 0.8),
            point(0.5, 0.92, 0.9),
            point(0.75, 0.95, 0.97),
            point(1.0, 0.97, 1.0),
        ];
        assert_eq!(reusable_from(&points), Some(0.5));
        // A dip at 0.75 moves it past the dip, though 0.5 reaches the threshold.
        let dipping = [
            point(0.5, 0.95, 0.95),
            point(0.75, 0.85, 0.95),
            points[3].clone(),
        ];
        assert_eq!(reusable_from(&dipping), Some(1.0));
        // Not reusable at the whole budget: no fraction.
        assert_eq!(reusable_from(&[point(1.0, 0.89, 1.0)]), None);
        // An undefined tau (a control that ties every run) does not count as reaching it.
        let mut undefined = point(1.0, 0.95, 0.95);
        undefined.control.tau_b = None;
        assert_eq!(reusable_from(&[undefined]), None);
    }
}
