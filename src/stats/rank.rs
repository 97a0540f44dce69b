//! Rankings of runs by score: the official ranking (rank 1 = best, ties share the average rank),
//! the dominant (most frequent) rank of a run across seeds, the rank a score would take among
//! others, and the nearest-rank quantile of sorted values.
//!
//! Only the ordering of scores is handled here; correlations between rankings live in
//! [`super::kendall`].

use std::cmp::Ordering;

use serde::Serialize;

/// Orders two scores from worse to better: `Less` when `left` is the worse score.
///
/// `NaN` is worse than every number and equal to another `NaN`, so a run whose score could not be
/// computed sinks to the bottom instead of breaking the sort; `-0.0` and `0.0` are equal (unlike
/// [`f64::total_cmp`], which would rank them apart).
pub fn compare_scores(left: f64, right: f64) -> Ordering {
    match (left.is_nan(), right.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        // Neither is NaN, so `partial_cmp` is total here.
        (false, false) => left.partial_cmp(&right).unwrap_or(Ordering::Equal),
    }
}

/// The official ranking of runs from their scores: rank 1 is the highest score, and scores that
/// tie share the average of the ranks they span ("fractional" or "mid" ranks, as
/// `scipy.stats.rankdata(method="average")` on the negated scores).
///
/// The result is in input order: `ranks[pos]` is the rank of `scores[pos]`. Ranks always sum to
/// n(n+1)/2. `NaN` scores rank last (see [`compare_scores`]).
///
/// Example: scores `[0.30, 0.25, 0.28, 0.10, 0.22, 0.22]` give ranks
/// `[1, 3, 2, 6, 4.5, 4.5]`: the two 0.22 scores span ranks 4 and 5 and share 4.5.
pub fn official_ranks(scores: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    // Best first; the sort is stable, but tied positions get the same rank anyway.
    order.sort_by(|&left, &right| compare_scores(scores[right], scores[left]));

    let mut ranks = vec![0.0; scores.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len()
            && compare_scores(scores[order[start]], scores[order[end]]) == Ordering::Equal
        {
            end += 1;
        }
        // Positions start..end (0-based) hold ranks start+1..=end; their mean is (start+1+end)/2.
        let shared_rank = (start + 1 + end) as f64 / 2.0;
        for &pos in &order[start..end] {
            ranks[pos] = shared_rank;
        }
        start = end;
    }
    ranks
}

/// The most frequent rank of one run across seeds, and how many seeds gave it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DominantRank {
    /// The most frequent rank (may be fractional when the run tied with another).
    pub rank: f64,
    /// How many of the given ranks equal `rank`.
    pub frequency: usize,
}

/// The dominant (most frequent) rank among one run's ranks across seeds.
///
/// Ranks are compared exactly (`==`): average ranks such as 4.5 are exact in binary, so equal
/// ties produce equal values. **Tie rule:** when several ranks are equally frequent, the better
/// (numerically lower) rank wins, so a run is never reported worse than the evidence requires and
/// the answer does not depend on the order of seeds. `NaN` entries are ignored.
///
/// Returns `None` when there is no (non-`NaN`) rank.
///
/// Example: ranks `[3, 2, 3, 2, 5]` → 2 and 3 both occur twice → `rank 2, frequency 2`.
pub fn dominant_rank(ranks: &[f64]) -> Option<DominantRank> {
    let mut sorted: Vec<f64> = ranks
        .iter()
        .copied()
        .filter(|rank| !rank.is_nan())
        .collect();
    sorted.sort_by(f64::total_cmp);

    let mut best: Option<DominantRank> = None;
    let mut start = 0;
    while start < sorted.len() {
        let mut end = start + 1;
        // `==` rather than `total_cmp` so that -0.0 and 0.0 count as one value.
        while end < sorted.len() && sorted[end] == sorted[start] {
            end += 1;
        }
        let frequency = end - start;
        // Ascending scan + strict `>`: the first (lowest) of equally frequent ranks is kept.
        if best.is_none_or(|current| frequency > current.frequency) {
            best = Some(DominantRank {
                rank: sorted[start],
                frequency,
            });
        }
        start = end;
    }
    best
}

/// The rank a run scoring `score` would have among runs scoring `others` (1 = best; ties
/// share the average rank).
pub fn rank_among(others: &[f64], score: f64) -> f64 {
    let better = others.iter().filter(|&&o| o > score).count();
    let tied = others.iter().filter(|&&o| o == score).count();
    1.0 + better as f64 + tied as f64 / 2.0
}

/// The `q` quantile of sorted values (nearest rank); 0 when empty.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ranks_share_ties_and_count_better_runs() {
        let others = [0.5, 0.3, 0.3, 0.1];
        assert_eq!(rank_among(&others, 0.6), 1.0);
        assert_eq!(rank_among(&others, 0.3), 3.0);
        assert_eq!(rank_among(&others, 0.2), 4.0);
        assert_eq!(rank_among(&others, 0.0), 5.0);
    }

    #[test]
    fn quantiles_use_the_nearest_rank() {
        let sorted: Vec<f64> = (1..=200).map(f64::from).collect();
        assert_eq!(quantile(&sorted, 0.05), 10.0);
        assert_eq!(quantile(&sorted, 0.95), 190.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
    }

    #[test]
    fn official_ranks_average_ties() {
        // 0.30 > 0.28 > 0.25 > 0.22 = 0.22 > 0.10: ranks 1, 2, 3, then 4 and 5 shared as 4.5, 6.
        let ranks = official_ranks(&[0.30, 0.25, 0.28, 0.10, 0.22, 0.22]);
        assert_eq!(ranks, vec![1.0, 3.0, 2.0, 6.0, 4.5, 4.5]);
    }

    #[test]
    fn official_ranks_three_way_tie_and_all_tied() {
        // Three scores of 0.5 span ranks 2, 3, 4 → 3 each.
        assert_eq!(
            official_ranks(&[0.5, 0.9, 0.5, 0.5, 0.1]),
            vec![3.0, 1.0, 3.0, 3.0, 5.0]
        );
        // Four identical scores span ranks 1..=4 → 2.5 each.
        assert_eq!(official_ranks(&[0.2; 4]), vec![2.5; 4]);
        assert!(official_ranks(&[]).is_empty());
        assert_eq!(official_ranks(&[7.0]), vec![1.0]);
    }

    #[test]
    fn official_ranks_nan_last_and_signed_zero_ties() {
        // NaN sinks below -1; the two NaNs tie for ranks 4 and 5 → 4.5; -0.0 and 0.0 tie → 1.5.
        let ranks = official_ranks(&[f64::NAN, 0.0, -1.0, -0.0, f64::NAN]);
        assert_eq!(ranks, vec![4.5, 1.5, 3.0, 1.5, 4.5]);
    }

    #[test]
    fn dominant_rank_prefers_the_better_of_equally_frequent_ranks() {
        let dominant = dominant_rank(&[3.0, 2.0, 3.0, 2.0, 5.0]).unwrap();
        assert_eq!(
            dominant,
            DominantRank {
                rank: 2.0,
                frequency: 2
            }
        );
        // Same ranks, another seed order: same answer.
        let dominant = dominant_rank(&[5.0, 3.0, 3.0, 2.0, 2.0]).unwrap();
        assert_eq!(dominant.rank, 2.0);
        // A clear winner beats a better but rarer rank.
        let dominant = dominant_rank(&[1.0, 4.5, 4.5, 4.5, 2.0, 2.0]).unwrap();
        assert_eq!(
            dominant,
            DominantRank {
                rank: 4.5,
                frequency: 3
            }
        );
    }

    #[test]
    fn dominant_rank_of_nothing_is_none() {
        assert_eq!(dominant_rank(&[]), None);
        assert_eq!(dominant_rank(&[f64::NAN]), None);
        assert_eq!(
            dominant_rank(&[f64::NAN, 7.0]),
            Some(DominantRank {
                rank: 7.0,
                frequency: 1
            })
        );
    }

    proptest! {
        #![proptest_config(crate::base::fuzz::property_config(256))]
        #[test]
        fn ranks_sum_to_triangular_number(scores in prop::collection::vec(0u8..6, 0..40)) {
            // Small integer scores force many ties.
            let scores: Vec<f64> = scores.into_iter().map(f64::from).collect();
            let ranks = official_ranks(&scores);
            let count = scores.len() as f64;
            let total: f64 = ranks.iter().sum();
            prop_assert_eq!(total, count * (count + 1.0) / 2.0);
            for (left, right) in scores.iter().zip(&ranks) {
                for (other_score, other_rank) in scores.iter().zip(&ranks) {
                    // A higher score always has a strictly better (lower) rank.
                    if left > other_score {
                        prop_assert!(right < other_rank);
                    }
                    if left == other_score {
                        prop_assert_eq!(right, other_rank);
                    }
                }
            }
        }

        #[test]
        fn dominant_rank_is_a_most_frequent_value(ranks in prop::collection::vec(1u8..6, 1..30)) {
            let ranks: Vec<f64> = ranks.into_iter().map(f64::from).collect();
            let dominant = dominant_rank(&ranks).unwrap();
            let count_of = |value: f64| ranks.iter().filter(|&&rank| rank == value).count();
            prop_assert_eq!(dominant.frequency, count_of(dominant.rank));
            for &rank in &ranks {
                let frequency = count_of(rank);
                prop_assert!(frequency <= dominant.frequency);
                if frequency == dominant.frequency {
                    prop_assert!(dominant.rank <= rank);
                }
            }
        }
    }
}
