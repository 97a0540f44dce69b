//! How far two leaderboards of the same runs agree: the mean scores of the runs under two sets
//! of judgments A and B compared by Kendall's tau_b and tau_ap (A the reference), tau_b among
//! A's top runs, the run that falls furthest under B, and the mean and root-mean-square
//! difference of the scores. The significance of pairs of runs is [`super::pair_changes`]'
//! business.

use serde::Serialize;

use super::kendall::tau_b;
use super::paired::check_same_length;
use super::rank::compare_scores;
use super::summary::RankComparison;
use crate::base::error::StatsError;

/// Kendall's tau_b among the best runs under A.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TopTau {
    /// How many of A's best runs were asked for.
    pub top: usize,
    /// How many there were (fewer when there are fewer runs).
    pub runs: usize,
    /// tau_b between their scores under A and under B; `None` when undefined.
    pub tau_b: Option<f64>,
}

/// The run that falls furthest from A's ranking to B's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RankDrop {
    /// Its position among the runs.
    pub run: usize,
    /// Its rank under A (1 = best; ties share the average rank).
    pub rank_a: f64,
    /// Its rank under B.
    pub rank_b: f64,
    /// `rank_b − rank_a`, positive.
    pub drop: f64,
}

/// Two leaderboards of the same runs compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeaderboardAgreement {
    /// Kendall's tau_b between the scores under A and under B; `None` when undefined.
    pub tau_b: Option<f64>,
    /// AP correlation of B's ranking against A's; `None` when undefined.
    pub tau_ap: Option<f64>,
    /// tau_b among A's best runs, one entry per size asked for.
    pub top: Vec<TopTau>,
    /// The run that falls furthest under B (the first in run order among equals); `None` when
    /// no run falls.
    pub largest_drop: Option<RankDrop>,
    /// The mean over the runs of B's score − A's score.
    pub mean_difference: f64,
    /// The root mean square of B's score − A's score.
    pub rmse: f64,
}

/// Compares the runs' scores under A (`scores_a`, the reference) and under B (`scores_b`,
/// same positions), with tau_b among the best `tops` runs of A (the order of A's scores, the
/// earlier run first among ties).
///
/// # Errors
/// [`StatsError::LengthMismatch`] when the two slices differ in length, and
/// [`StatsError::TooFewValues`] with fewer than 2 runs.
pub fn leaderboard_agreement(
    scores_a: &[f64],
    scores_b: &[f64],
    tops: &[usize],
) -> Result<LeaderboardAgreement, StatsError> {
    check_same_length(scores_a, scores_b)?;
    let count = scores_a.len();
    if count < 2 {
        return Err(StatsError::TooFewValues {
            required: 2,
            found: count,
        });
    }
    let ranks = RankComparison::new(scores_a, scores_b)?;
    let mut order: Vec<usize> = (0..count).collect();
    // Best first under A; the stable sort keeps the earlier run first among ties.
    order.sort_by(|&left, &right| compare_scores(scores_a[right], scores_a[left]));
    let top = (tops.iter())
        .map(|&top| {
            let best = &order[..top.min(count)];
            let pick = |scores: &[f64]| best.iter().map(|&run| scores[run]).collect::<Vec<_>>();
            TopTau {
                top,
                runs: best.len(),
                tau_b: tau_b(&pick(scores_a), &pick(scores_b)).ok(),
            }
        })
        .collect();
    let mut largest_drop: Option<RankDrop> = None;
    for (run, change) in ranks.runs.iter().enumerate() {
        let is_larger = largest_drop.is_none_or(|drop| change.rank_change > drop.drop);
        if change.rank_change > 0.0 && is_larger {
            largest_drop = Some(RankDrop {
                run,
                rank_a: change.official_rank,
                rank_b: change.rank,
                drop: change.rank_change,
            });
        }
    }
    let differences: Vec<f64> = (scores_a.iter().zip(scores_b))
        .map(|(a, b)| b - a)
        .collect();
    let mean_difference = differences.iter().sum::<f64>() / count as f64;
    let mean_square = differences.iter().map(|d| d * d).sum::<f64>() / count as f64;
    Ok(LeaderboardAgreement {
        tau_b: ranks.tau_b,
        tau_ap: ranks.tau_ap,
        top,
        largest_drop,
        mean_difference,
        rmse: mean_square.sqrt(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    // The worked example of `kendall.rs`: A = [.30, .25, .28, .10, .22, .22] ranks
    // [1, 3, 2, 6, 4.5, 4.5]; B = [.29, .27, .26, .12, .20, .23] ranks [1, 2, 3, 6, 5, 4].
    const A: [f64; 6] = [0.30, 0.25, 0.28, 0.10, 0.22, 0.22];
    const B: [f64; 6] = [0.29, 0.27, 0.26, 0.12, 0.20, 0.23];

    #[test]
    fn the_worked_example() {
        let agreement = leaderboard_agreement(&A, &B, &[3, 10]).unwrap();
        assert_abs_diff_eq!(
            agreement.tau_b.unwrap(),
            12.0 / 210f64.sqrt(),
            epsilon = 1e-12
        );
        assert_abs_diff_eq!(agreement.tau_ap.unwrap(), 0.7, epsilon = 1e-12);
        // A's top 3: runs 0, 2, 1 with B scores .29, .26, .27: one discordant pair of 3,
        // tau_b = (2 − 1)/3.
        assert_eq!(agreement.top[0].runs, 3);
        assert_abs_diff_eq!(agreement.top[0].tau_b.unwrap(), 1.0 / 3.0, epsilon = 1e-12);
        // More than the runs: all 6.
        assert_eq!(agreement.top[1].runs, 6);
        assert_eq!(agreement.top[1].tau_b, agreement.tau_b);
        // Rank changes [0, −1, +1, 0, +0.5, −0.5]: run 2 falls furthest, from 2 to 3.
        let drop = agreement.largest_drop.unwrap();
        assert_eq!(
            (drop.run, drop.rank_a, drop.rank_b, drop.drop),
            (2, 2.0, 3.0, 1.0)
        );
        // Differences B − A: −.01, .02, −.02, .02, −.02, .01: mean 0, squares 0.0018/6.
        assert_abs_diff_eq!(agreement.mean_difference, 0.0, epsilon = 1e-15);
        assert_abs_diff_eq!(agreement.rmse, (0.0018f64 / 6.0).sqrt(), epsilon = 1e-12);
    }

    #[test]
    fn ties_in_a_keep_the_earlier_run_in_the_top() {
        // A ties runs 1 and 2 for second place; the top 2 are runs 0 and 1.
        let agreement = leaderboard_agreement(&[3.0, 2.0, 2.0], &[1.0, 2.0, 3.0], &[2]).unwrap();
        // Runs 0, 1: A 3 > 2, B 1 < 2: discordant, tau_b −1.
        assert_eq!(agreement.top[0].tau_b, Some(-1.0));
    }

    #[test]
    fn no_drop_when_the_rankings_agree() {
        let agreement = leaderboard_agreement(&A, &A, &[]).unwrap();
        assert_eq!(agreement.largest_drop, None);
        assert_eq!(agreement.rmse, 0.0);
    }

    #[test]
    fn too_few_runs_are_an_error() {
        assert_eq!(
            leaderboard_agreement(&[1.0], &[1.0], &[10]),
            Err(StatsError::TooFewValues {
                required: 2,
                found: 1
            })
        );
    }
}
