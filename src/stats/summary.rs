//! Summaries the reports print: the spread (mean, min, max) of a figure across seeds, the
//! comparison of one ranking of runs with the official ranking (tau_b, tau_ap, per run rank and
//! score changes, maximum drop, runs changed), and the run pairs whose order swapped.
//!
//! Which scores are compared (LOU, per trial, control) is decided by the simulation; this module
//! only compares two score vectors over the same runs.

use serde::{Deserialize, Serialize};

use super::kendall::{tau_ap, tau_b};
use super::paired::check_same_length;
use super::rank::official_ranks;
use crate::base::error::StatsError;

/// Mean, minimum and maximum of a figure across seeds (or trials).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Arithmetic mean, summed in slice order (so the result is reproducible).
    pub mean: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Spread {
    /// The spread of `values`, or `None` when there are no values or any value is `NaN` (a
    /// spread that silently skipped an undefined figure would misreport it; filter first).
    pub fn of(values: &[f64]) -> Option<Spread> {
        if values.is_empty() || values.iter().any(|value| value.is_nan()) {
            return None;
        }
        let mut min = f64::INFINITY;
        let mut max = f64::NEG_INFINITY;
        let mut sum = 0.0;
        for &value in values {
            min = min.min(value);
            max = max.max(value);
            sum += value;
        }
        Some(Spread {
            mean: sum / values.len() as f64,
            min,
            max,
        })
    }
}

/// How one run moved between the official scoring and another scoring.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RunChange {
    /// Rank under the official scores (1 = best, ties share the average rank).
    pub official_rank: f64,
    /// Rank under the other scores.
    pub rank: f64,
    /// `rank − official_rank`: positive when the run dropped (ranked worse), negative when it rose.
    pub rank_change: f64,
    /// `score − official score`.
    pub score_change: f64,
    /// `100 · score_change / |official score|`; `None` when the official score is 0, where a
    /// relative change is undefined.
    pub score_change_pct: Option<f64>,
}

/// The comparison of a ranking of runs with the official ranking (see
/// docs/experiment.md#statistics).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankComparison {
    /// Kendall's tau_b between the official and the other scores; `None` when undefined (fewer
    /// than 2 runs, or one side ties every run; see [`tau_b`]).
    pub tau_b: Option<f64>,
    /// AP correlation of the other ranking against the official one (the reference); `None` when
    /// undefined (see [`tau_ap`]).
    pub tau_ap: Option<f64>,
    /// One entry per run, in input order.
    pub runs: Vec<RunChange>,
    /// The largest drop, `max(rank_change)` over runs that dropped; 0 when no run dropped.
    pub max_drop: f64,
    /// Number of runs whose (average) rank differs from the official one.
    pub runs_changed: usize,
}

impl RankComparison {
    /// Compares `other` scores with `official` scores over the same runs (same positions).
    ///
    /// Ranks are [`official_ranks`] of each score vector, so a run that merely ties with one
    /// more or one fewer run counts as changed (its average rank moves by 0.5).
    ///
    /// # Errors
    /// [`StatsError::LengthMismatch`] when the two slices differ in length. Empty slices give an
    /// empty comparison with undefined correlations.
    pub fn new(official: &[f64], other: &[f64]) -> Result<RankComparison, StatsError> {
        check_same_length(official, other)?;
        let official_ranking = official_ranks(official);
        let other_ranking = official_ranks(other);
        let runs: Vec<RunChange> = (0..official.len())
            .map(|pos| {
                let score_change = other[pos] - official[pos];
                RunChange {
                    official_rank: official_ranking[pos],
                    rank: other_ranking[pos],
                    rank_change: other_ranking[pos] - official_ranking[pos],
                    score_change,
                    // |official| keeps the sign of the change for (unusual) negative scores.
                    score_change_pct: (official[pos] != 0.0)
                        .then(|| 100.0 * score_change / official[pos].abs()),
                }
            })
            .collect();
        let max_drop = runs.iter().map(|run| run.rank_change).fold(0.0, f64::max);
        let runs_changed = runs.iter().filter(|run| run.rank_change != 0.0).count();
        Ok(RankComparison {
            // Lengths are equal, so the only errors left mean "undefined".
            tau_b: tau_b(official, other).ok(),
            tau_ap: tau_ap(official, other).ok(),
            runs,
            max_drop,
            runs_changed,
        })
    }
}

/// The run pairs whose order swapped: `(i, j)` with `official[i] > official[j]` and
/// `other[i] < other[j]`, both strict (so pairs tied on either side are not swaps). The first
/// element of each pair is the run that was officially better.
///
/// Pairs are listed in lexicographic order of `(i, j)` by position, which is deterministic and
/// independent of the scores' values. `NaN` compares as lower than every number (see
/// [`super::rank::compare_scores`]).
///
/// Example: official `[.30, .25, .28]`, other `[.29, .27, .26]`: only run 2 (officially above run
/// 1) now falls below it, so the result is `[(2, 1)]`.
///
/// # Errors
/// [`StatsError::LengthMismatch`] when the two slices differ in length.
pub fn swapped_pairs(official: &[f64], other: &[f64]) -> Result<Vec<(usize, usize)>, StatsError> {
    use super::rank::compare_scores;
    use std::cmp::Ordering;

    check_same_length(official, other)?;
    let mut pairs = Vec::new();
    for better in 0..official.len() {
        for worse in 0..official.len() {
            if compare_scores(official[better], official[worse]) == Ordering::Greater
                && compare_scores(other[better], other[worse]) == Ordering::Less
            {
                pairs.push((better, worse));
            }
        }
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;
    use proptest::prelude::*;

    #[test]
    fn spread_of_values() {
        let spread = Spread::of(&[0.5, 0.25, 1.0, 0.25]).unwrap();
        assert_eq!(
            spread,
            Spread {
                mean: 0.5,
                min: 0.25,
                max: 1.0
            }
        );
        assert_eq!(
            Spread::of(&[-2.0]),
            Some(Spread {
                mean: -2.0,
                min: -2.0,
                max: -2.0
            })
        );
        assert_eq!(Spread::of(&[]), None);
        assert_eq!(Spread::of(&[1.0, f64::NAN]), None);
        let json = serde_json::to_string(&spread).unwrap();
        assert_eq!(json, r#"{"mean":0.5,"min":0.25,"max":1.0}"#);
    }

    #[test]
    fn rank_comparison_of_the_worked_example() {
        // Official a = [.30, .25, .28, .10, .22, .22] → ranks [1, 3, 2, 6, 4.5, 4.5].
        // Other    b = [.29, .27, .26, .12, .20, .23] → ranks [1, 2, 3, 6, 5, 4].
        // Rank changes [0, −1, +1, 0, +0.5, −0.5]: max drop 1 (run 2), 4 runs changed.
        let official = [0.30, 0.25, 0.28, 0.10, 0.22, 0.22];
        let other = [0.29, 0.27, 0.26, 0.12, 0.20, 0.23];
        let comparison = RankComparison::new(&official, &other).unwrap();
        assert_abs_diff_eq!(
            comparison.tau_b.unwrap(),
            0.8280786712108251,
            epsilon = 1e-12
        );
        assert_abs_diff_eq!(comparison.tau_ap.unwrap(), 0.7, epsilon = 1e-12);
        let rank_changes: Vec<f64> = comparison.runs.iter().map(|run| run.rank_change).collect();
        assert_eq!(rank_changes, vec![0.0, -1.0, 1.0, 0.0, 0.5, -0.5]);
        assert_eq!(comparison.max_drop, 1.0);
        assert_eq!(comparison.runs_changed, 4);
        // Run 0: .29 − .30 = −.01, −3.33 %; run 3: +.02 on .10 = +20 %.
        assert_abs_diff_eq!(comparison.runs[0].score_change, -0.01, epsilon = 1e-12);
        assert_abs_diff_eq!(
            comparison.runs[0].score_change_pct.unwrap(),
            -100.0 / 30.0,
            epsilon = 1e-9
        );
        assert_abs_diff_eq!(
            comparison.runs[3].score_change_pct.unwrap(),
            20.0,
            epsilon = 1e-9
        );
        assert_eq!(comparison.runs[4].official_rank, 4.5);
        assert_eq!(comparison.runs[4].rank, 5.0);
    }

    #[test]
    fn rank_comparison_edge_cases() {
        // Nothing moved: no drop, nothing changed, both taus 1.
        let same = RankComparison::new(&[0.3, 0.1, 0.2], &[0.3, 0.1, 0.2]).unwrap();
        assert_eq!((same.max_drop, same.runs_changed), (0.0, 0));
        assert_eq!((same.tau_b, same.tau_ap), (Some(1.0), Some(1.0)));
        // A zero official score has no percent change, and a constant other scoring leaves
        // both taus undefined.
        let flat = RankComparison::new(&[0.0, 0.5], &[0.2, 0.2]).unwrap();
        assert_eq!(flat.runs[0].score_change_pct, None);
        assert_abs_diff_eq!(
            flat.runs[1].score_change_pct.unwrap(),
            -60.0,
            epsilon = 1e-9
        );
        assert_eq!((flat.tau_b, flat.tau_ap), (None, None));
        // Ranks [2, 1] → [1.5, 1.5]: run 0 rises 0.5, run 1 drops 0.5.
        assert_eq!(flat.max_drop, 0.5);
        assert_eq!(flat.runs_changed, 2);

        let empty = RankComparison::new(&[], &[]).unwrap();
        assert!(empty.runs.is_empty());
        assert_eq!(
            (empty.tau_b, empty.max_drop, empty.runs_changed),
            (None, 0.0, 0)
        );
        assert_eq!(
            RankComparison::new(&[1.0], &[]),
            Err(StatsError::LengthMismatch { left: 1, right: 0 })
        );
    }

    #[test]
    fn swapped_pairs_are_strict_discordant_pairs() {
        // Worked example: only runs 1 and 2 swap (official .28 > .25, other .26 < .27); runs 4
        // and 5 are tied officially, so their reordering is not a swap.
        let official = [0.30, 0.25, 0.28, 0.10, 0.22, 0.22];
        let other = [0.29, 0.27, 0.26, 0.12, 0.20, 0.23];
        assert_eq!(swapped_pairs(&official, &other).unwrap(), vec![(2, 1)]);
        // A full reversal of 3 runs swaps all 3 pairs, listed by position.
        assert_eq!(
            swapped_pairs(&[3.0, 1.0, 2.0], &[1.0, 3.0, 2.0]).unwrap(),
            vec![(0, 1), (0, 2), (2, 1)]
        );
        // Becoming tied is not a swap.
        assert!(swapped_pairs(&[2.0, 1.0], &[1.0, 1.0]).unwrap().is_empty());
        assert_eq!(
            swapped_pairs(&[1.0], &[1.0, 2.0]),
            Err(StatsError::LengthMismatch { left: 1, right: 2 })
        );
    }

    /// Small whole-number scores, which tie often, as two scorings of the same runs.
    fn two_scorings(scores: Vec<(u8, u8)>) -> (Vec<f64>, Vec<f64>) {
        scores
            .into_iter()
            .map(|(left, right)| (f64::from(left), f64::from(right)))
            .unzip()
    }

    proptest! {
        #![proptest_config(crate::base::fuzz::property_config(256))]
        #[test]
        fn swapped_pairs_count_the_discordant_pairs_of_tau_b(
            scores in prop::collection::vec((0u8..6, 0u8..6), 2..30),
        ) {
            // Against a naive count of the pairs that are strictly discordant, the D of tau_b.
            let (official, other) = two_scorings(scores);
            let pairs = swapped_pairs(&official, &other).unwrap();
            let mut expected = 0;
            for first in 0..official.len() {
                for second in first + 1..official.len() {
                    let official_order = official[first].partial_cmp(&official[second]);
                    let other_order = other[first].partial_cmp(&other[second]);
                    if official_order != Some(std::cmp::Ordering::Equal)
                        && other_order != Some(std::cmp::Ordering::Equal)
                        && official_order != other_order
                    {
                        expected += 1;
                    }
                }
            }
            prop_assert_eq!(pairs.len(), expected);
            for &(better, worse) in &pairs {
                prop_assert!(official[better] > official[worse] && other[better] < other[worse]);
            }
            let mut sorted = pairs.clone();
            sorted.sort_unstable();
            prop_assert_eq!(sorted, pairs);
        }

        #[test]
        fn rank_changes_sum_to_zero(
            scores in prop::collection::vec((0u8..6, 0u8..6), 0..30),
        ) {
            // Both rankings use ranks 1..=n (averaged), so the changes cancel out.
            let (official, other) = two_scorings(scores);
            let comparison = RankComparison::new(&official, &other).unwrap();
            let total: f64 = comparison.runs.iter().map(|run| run.rank_change).sum();
            prop_assert_eq!(total, 0.0);
            let dropped_or_rose = comparison.runs.iter().filter(|run| run.rank_change != 0.0).count();
            prop_assert_eq!(comparison.runs_changed, dropped_or_rose);
        }
    }
}
