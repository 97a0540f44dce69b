//! A claim, "the audited run is significantly better (or worse) than the baseline by a
//! measure", and how it fares once the run's unjudged documents are judged: the collection's
//! difference and p-value, and over the Monte-Carlo samples the expected difference, its 90%
//! range and the shares of samples where the difference is significant as the collection says,
//! significant the other way, or not significant. Given per-sample per-topic scores, it needs
//! nothing of the audit, so the backtest can summarise any run against any baseline alike.

use rayon::prelude::*;
use serde::Serialize;

use crate::base::error::StatsError;
use crate::stats::comparison::{MeasureScores, PairComparison, PairTest, TestSettings};
use crate::stats::pair_changes::{directions, Direction};
use crate::stats::rank::quantile;

/// A claim's outcome is unsettled when the probability that judging changes it (makes a
/// significant difference lose its significance or reverse, or a difference the collection
/// does not find significant significant) exceeds this: a claim is safe when the difference
/// stays significant as claimed with a probability of at least 0.9.
pub const CHANGE_LIMIT: f64 = 0.1;

/// What the samples say of a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimVerdict {
    /// Significant on the collection, and as claimed in at least 0.9 of the samples.
    Safe,
    /// Significant on the collection, but as claimed in fewer than 0.9 of the samples.
    AtRisk,
    /// Not significant on the collection, nor in more than 0.1 of the samples.
    NoClaim,
    /// Not significant on the collection, but significant in more than 0.1 of the samples.
    CouldBecomeSignificant,
}

impl ClaimVerdict {
    /// The verdict of a claim significant on the collection or not (`is_significant`) whose
    /// outcome judging changes with probability `change`.
    pub fn of(is_significant: bool, change: f64) -> Self {
        match (is_significant, change > CHANGE_LIMIT) {
            (true, false) => Self::Safe,
            (true, true) => Self::AtRisk,
            (false, false) => Self::NoClaim,
            (false, true) => Self::CouldBecomeSignificant,
        }
    }

    /// Whether judging may change the claim's outcome: the claims the list serves.
    pub fn is_unsettled(self) -> bool {
        matches!(self, Self::AtRisk | Self::CouldBecomeSignificant)
    }
}

impl std::fmt::Display for ClaimVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Safe => "safe",
            Self::AtRisk => "at risk",
            Self::NoClaim => "no claim",
            Self::CouldBecomeSignificant => "judging could make it significant",
        })
    }
}

impl Serialize for ClaimVerdict {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// One measure's per-topic scores of an audited run and its baselines, on the collection and
/// in each Monte-Carlo sample, over the same topics everywhere.
#[derive(Debug, Clone, Copy)]
pub struct ClaimScores<'a> {
    /// The measure's name.
    pub measure: &'a str,
    /// The audited run's tag first, then its baselines'.
    pub runs: &'a [String],
    /// `collection[run][topic]`, the runs in the order of `runs`.
    pub collection: &'a [Vec<f64>],
    /// `samples[sample][run][topic]`.
    pub samples: &'a [Vec<Vec<f64>>],
}

/// One claim: the audited run against one baseline by one measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimSummary {
    /// The audited run's tag.
    pub run: String,
    /// The baseline's tag.
    pub baseline: String,
    /// How the baseline was named: `run` (a task run's tag), `file` (a run file) or `best`
    /// (the task's best run by a measure).
    pub chosen_as: String,
    /// The measure.
    pub measure: String,
    /// The topics compared: the audited run's.
    pub topics: usize,
    /// The collection's difference, the audited run's score less the baseline's (mean over
    /// the topics).
    pub difference: f64,
    /// Its p-value by the test, corrected over the audited run's claims of the measure.
    pub p_value: f64,
    /// Whether the corrected p-value is below the significance level.
    pub is_significant: bool,
    /// The mean difference over the samples.
    pub expected_difference: f64,
    /// The 5% quantile of the sampled differences.
    pub difference_low: f64,
    /// The 95% quantile.
    pub difference_high: f64,
    /// The share of samples where the difference is significant in the direction of the
    /// collection's difference (the audited run better when it is 0).
    pub probability_significant_as_claimed: f64,
    /// The share of samples where it is significant the other way.
    pub probability_reversed: f64,
    /// The share of samples where it is not significant.
    pub probability_not_significant: f64,
    /// The probability that judging changes the claim's outcome: the share of samples whose
    /// outcome (significant either way, or not) differs from the collection's.
    pub probability_outcome_changes: f64,
    /// What remains of that probability once the merged list is judged (before any list, the
    /// same).
    pub remaining_after_list: f64,
    /// The documents of the merged list that serve this claim.
    pub listed_documents: usize,
    /// The verdict.
    pub verdict: ClaimVerdict,
    /// Whether judging cannot settle it: unsettled, and judging the list that would serve it
    /// alone, within the cap per topic, would still leave `probability_outcome_changes` above
    /// the settle threshold. The list then does not serve it.
    pub cannot_settle: bool,
}

impl ClaimSummary {
    /// Whether the list serves the claim: unsettled, and judging can settle it.
    pub fn steers_list(&self) -> bool {
        self.verdict.is_unsettled() && !self.cannot_settle
    }
}

/// A claim before and after returned judgments (the baseline `best` may name another run
/// after them).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimChange {
    /// On the task's qrels.
    pub before: ClaimSummary,
    /// On the task's qrels and the returned judgments.
    pub after: ClaimSummary,
}

/// The direction of each claim of `scores.runs[0]` against the other runs of `scores` (one per
/// baseline), tested with `test` and corrected over them, on per-topic scores `per_run`.
///
/// # Errors
/// Runs with another number of topics than the test's, or a score that is not finite.
pub fn claim_directions(
    scores: &ClaimScores,
    per_run: &[Vec<f64>],
    test: &PairTest,
) -> Result<Vec<Direction>, StatsError> {
    Ok(directions(&compare_claims(scores, per_run, test)?))
}

/// The audited run (first of `per_run`) compared with each baseline.
fn compare_claims(
    scores: &ClaimScores,
    per_run: &[Vec<f64>],
    test: &PairTest,
) -> Result<Vec<PairComparison>, StatsError> {
    let pairs: Vec<(usize, usize)> = (1..per_run.len()).map(|b| (0, b)).collect();
    let measure = MeasureScores {
        measure: scores.measure,
        runs: scores.runs,
        scores: per_run,
    };
    test.compare(measure, &pairs)
}

/// Summarises every claim of `scores` (the audited run against each baseline) tested with
/// `test`; each claim's `chosen_as` is left empty for the caller.
///
/// # Errors
/// Fewer than 2 topics, runs with different numbers of topics, or a score that is not finite.
pub fn summarize(
    scores: &ClaimScores,
    test: &TestSettings,
) -> Result<Vec<ClaimSummary>, StatsError> {
    let topics = scores.collection.first().map_or(0, Vec::len);
    let test = PairTest::new(test, topics)?;
    let on_collection = compare_claims(scores, scores.collection, &test)?;
    let claimed = directions(&on_collection);
    let sampled: Vec<(Vec<Direction>, Vec<f64>)> = (scores.samples.par_iter())
        .map(|sample| {
            let compared = compare_claims(scores, sample, &test)?;
            let differences = compared.iter().map(|c| c.mean_difference).collect();
            Ok((directions(&compared), differences))
        })
        .collect::<Result<_, StatsError>>()?;
    let samples = sampled.len().max(1) as f64;
    Ok((on_collection.iter().enumerate())
        .map(|(claim, pair)| {
            let as_claimed = if pair.mean_difference >= 0.0 {
                Direction::First
            } else {
                Direction::Second
            };
            let share = |wanted: &dyn Fn(Direction) -> bool| {
                sampled.iter().filter(|(d, _)| wanted(d[claim])).count() as f64 / samples
            };
            let collection_direction = claimed[claim];
            let mut differences: Vec<f64> = sampled.iter().map(|(_, d)| d[claim]).collect();
            let expected = differences.iter().sum::<f64>() / samples;
            differences.sort_by(f64::total_cmp);
            let change = share(&|d| d != collection_direction);
            ClaimSummary {
                run: scores.runs[0].clone(),
                baseline: scores.runs[pair.second].clone(),
                chosen_as: String::new(),
                measure: scores.measure.to_string(),
                topics: scores.collection[0].len(),
                difference: pair.mean_difference,
                p_value: pair.adjusted_p_value,
                is_significant: collection_direction.is_significant(),
                expected_difference: expected,
                difference_low: quantile(&differences, 0.05),
                difference_high: quantile(&differences, 0.95),
                probability_significant_as_claimed: share(&|d| d == as_claimed),
                probability_reversed: share(&|d| d.is_significant() && d != as_claimed),
                probability_not_significant: share(&|d| d == Direction::Neither),
                probability_outcome_changes: change,
                remaining_after_list: change,
                listed_documents: 0,
                verdict: ClaimVerdict::of(collection_direction.is_significant(), change),
                cannot_settle: false,
            }
        })
        .collect())
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;
