//! Resampling tests of paired scores beyond the random sign flips of
//! [`super::significance::randomization_test`]: the exact sign-flip test that enumerates every
//! flip, the paired bootstrap test, and the randomised Tukey HSD test over many runs at once.
//!
//! Every p-value counts the statistics at least as extreme as the observed one up to a relative
//! tolerance (sums equal in exact arithmetic can differ by a few ulps after reordering). The
//! sampled tests count the observed labelling as one of the samples, p = (count + 1) / (N + 1),
//! so that p is never 0; the enumerated test is exact, p = count / 2ⁿ.

use rand::Rng;

use super::paired::{
    check_at_least, check_finite, check_same_length, paired_differences, resampled_differences,
};
use super::sign_flips::SignFlipSums;
use crate::base::error::StatsError;

/// Relative tolerance of "at least as extreme", scaled by the largest value the permuted
/// statistic can take.
const TOLERANCE: f64 = 1e-9;

/// The most topics for which [`exact_randomization_test`] enumerates every sign flip (2¹⁰ =
/// 1,024 flips).
pub const EXACT_RANDOMIZATION_MAX_TOPICS: usize = 10;

/// The exact two-sided p-value of Fisher's randomization test of the differences
/// `a[i] − b[i]`: the share of all 2ⁿ sign flips whose |Σ sᵢdᵢ| reaches the observed |Σ dᵢ|
/// (the observed signs are one of them, so p ≥ 2/2ⁿ unless every flip ties).
///
/// # Errors
/// - [`StatsError::LengthMismatch`] when `a` and `b` differ in length;
/// - [`StatsError::TooFewValues`] when there is no pair, or more than
///   [`EXACT_RANDOMIZATION_MAX_TOPICS`] (reported as the number found);
/// - [`StatsError::NonFinite`] when a score is `NaN` or infinite.
pub fn exact_randomization_test(a: &[f64], b: &[f64]) -> Result<f64, StatsError> {
    let differences = paired_differences(a, b, 1)?;
    if differences.len() > EXACT_RANDOMIZATION_MAX_TOPICS {
        return Err(StatsError::TooFewValues {
            required: 1,
            found: differences.len(),
        });
    }
    let magnitude: f64 = differences.iter().map(|difference| difference.abs()).sum();
    let sums = SignFlipSums::new(&differences);
    let threshold = sums.unflipped().abs() - TOLERANCE * magnitude;
    let flips = 1u64 << differences.len();
    let at_least_as_extreme: u64 = (0..flips)
        .map(|signs| u64::from(sums.sum(|| signs).abs() >= threshold))
        .sum();
    Ok(at_least_as_extreme as f64 / flips as f64)
}

/// The two-sided p-value of the paired bootstrap test of the mean difference (Efron and
/// Tibshirani 1993, §16.4; Sakai 2006 for IR): the differences are shifted to mean 0 (the null
/// hypothesis), `resamples` times n of them are drawn with replacement, and p counts the
/// resampled means at least as far from 0 as the observed mean.
///
/// Deterministic given the state of `rng`: each resample draws n indices in order.
///
/// # Errors
/// - [`StatsError::LengthMismatch`] when `a` and `b` differ in length;
/// - [`StatsError::TooFewValues`] when there is no pair;
/// - [`StatsError::NonFinite`] when a score is `NaN` or infinite;
/// - [`StatsError::NoPermutations`] when `resamples` is 0.
pub fn bootstrap_test(
    a: &[f64],
    b: &[f64],
    resamples: usize,
    rng: &mut impl Rng,
) -> Result<f64, StatsError> {
    let differences = resampled_differences(a, b, resamples)?;
    let count = differences.len();
    let observed = differences.iter().sum::<f64>() / count as f64;
    let centred: Vec<f64> = differences.iter().map(|d| d - observed).collect();
    let largest = centred
        .iter()
        .fold(0.0f64, |largest, d| largest.max(d.abs()));
    let threshold = observed.abs() - TOLERANCE * largest;
    let at_least_as_extreme = (0..resamples)
        .filter(|_| {
            let sum: f64 = (0..count)
                .map(|_| centred[rng.random_range(0..count)])
                .sum();
            (sum / count as f64).abs() >= threshold
        })
        .count();
    Ok((at_least_as_extreme + 1) as f64 / (resamples + 1) as f64)
}

/// The ranges of the randomised Tukey HSD test (Carterette 2012, "Multiple testing in
/// statistical analysis of systems-based information retrieval experiments", TOIS): in each of
/// `permutations` samples, every topic's scores are shuffled among the runs, and the sample's
/// statistic is the largest run mean minus the smallest. `scores[run][topic]`; returns the
/// ranges in sample order.
///
/// Deterministic given the state of `rng`: each sample shuffles the topics in order
/// (Fisher–Yates).
///
/// # Errors
/// - [`StatsError::TooFewValues`] with fewer than 2 runs or no topic;
/// - [`StatsError::LengthMismatch`] when the runs have different numbers of topics;
/// - [`StatsError::NonFinite`] when a score is `NaN` or infinite.
pub fn tukey_ranges(
    scores: &[Vec<f64>],
    permutations: usize,
    rng: &mut impl Rng,
) -> Result<Vec<f64>, StatsError> {
    check_score_table(scores)?;
    let (runs, topics) = (scores.len(), scores[0].len());
    let by_topic: Vec<Vec<f64>> = (0..topics)
        .map(|topic| scores.iter().map(|run| run[topic]).collect())
        .collect();
    let mut row = vec![0.0; runs];
    let mut sums = vec![0.0; runs];
    let ranges = (0..permutations)
        .map(|_| {
            sums.iter_mut().for_each(|sum| *sum = 0.0);
            for topic_scores in &by_topic {
                row.copy_from_slice(topic_scores);
                for last in (1..runs).rev() {
                    row.swap(last, rng.random_range(0..=last));
                }
                for (sum, value) in sums.iter_mut().zip(&row) {
                    *sum += value;
                }
            }
            let (low, high) = (sums.iter())
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), &sum| {
                    (low.min(sum), high.max(sum))
                });
            (high - low) / topics as f64
        })
        .collect();
    Ok(ranges)
}

/// The p-value of the randomised Tukey HSD test for two runs whose means differ by
/// `mean_difference`, given the sampled ranges sorted ascending and the largest score
/// magnitude (for the tolerance): (count of ranges ≥ |difference| + 1) / (samples + 1).
pub fn tukey_p_value(sorted_ranges: &[f64], mean_difference: f64, largest_score: f64) -> f64 {
    let threshold = mean_difference.abs() - TOLERANCE * largest_score;
    let below = sorted_ranges.partition_point(|&range| range < threshold);
    (sorted_ranges.len() - below + 1) as f64 / (sorted_ranges.len() + 1) as f64
}

/// Checks a table of scores `[run][topic]`: at least 2 runs, equally long, finite, not empty.
fn check_score_table(scores: &[Vec<f64>]) -> Result<(), StatsError> {
    check_at_least(2, scores.len())?;
    for run in scores {
        check_same_length(&scores[0], run)?;
        check_finite(run)?;
    }
    check_at_least(1, scores[0].len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn exact_randomization_counts_every_sign_flip() {
        // Five topics, differences d = 0.4, 0.2, −0.1, 0.3, 0.5; observed Σd = 1.3. Flipping
        // the signs of a set S gives Σ = 1.3 − 2·Σ_S d, as extreme as observed when Σ_S d ≤ 0
        // or Σ_S d ≥ 1.3. Of the 32 sets: Σ_S d ≤ 0 for {} and {−0.1}; Σ_S d ≥ 1.3 for all
        // five (1.3) and all but −0.1 (1.4); all but 0.2 gives 1.1, every other set less.
        // So 4 of 32 flips: p = 0.125 exactly.
        let a = [0.9, 0.7, 0.4, 0.8, 1.0];
        let b = [0.5, 0.5, 0.5, 0.5, 0.5];
        assert_eq!(exact_randomization_test(&a, &b).unwrap(), 4.0 / 32.0);
        // Identical scores: every flip ties the observed 0.
        assert_eq!(exact_randomization_test(&b, &b).unwrap(), 1.0);
        assert!(exact_randomization_test(&[0.0; 11], &[0.0; 11]).is_err());
    }

    #[test]
    fn bootstrap_is_seeded_and_finds_a_clear_difference() {
        let a: Vec<f64> = (0..30)
            .map(|topic| 0.5 + f64::from(topic % 5) / 10.0)
            .collect();
        let b: Vec<f64> = a.iter().map(|score| score - 0.1).collect();
        let p = bootstrap_test(&a, &b, 1000, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        // Every centred difference is 0 (up to rounding), so no resample reaches 0.1.
        assert_eq!(p, 1.0 / 1001.0);
        let same = bootstrap_test(&a, &a, 100, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        assert_eq!(same, 1.0);
        let mixed: Vec<f64> = (0..30).map(|topic| f64::from(topic % 3) / 4.0).collect();
        let first = bootstrap_test(&mixed, &b, 500, &mut ChaCha8Rng::seed_from_u64(9)).unwrap();
        let again = bootstrap_test(&mixed, &b, 500, &mut ChaCha8Rng::seed_from_u64(9)).unwrap();
        assert_eq!(first, again);
        assert!(bootstrap_test(&a, &b, 0, &mut ChaCha8Rng::seed_from_u64(1)).is_err());
    }

    #[test]
    fn tukey_counts_ranges_at_least_the_difference() {
        let sorted = [0.01, 0.02, 0.05, 0.05, 0.2];
        // Ranges ≥ 0.05: 3 of 5, so (3 + 1) / 6.
        assert_eq!(tukey_p_value(&sorted, -0.05, 1.0), 4.0 / 6.0);
        assert_eq!(tukey_p_value(&sorted, 0.0, 1.0), 1.0);
        assert_eq!(tukey_p_value(&sorted, 0.3, 1.0), 1.0 / 6.0);
        // Runs that score the same on every topic: every shuffle keeps every mean.
        let scores = vec![vec![0.2, 0.4, 0.6]; 3];
        let ranges = tukey_ranges(&scores, 10, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        assert!(ranges.iter().all(|&range| range == 0.0));
        assert!(tukey_ranges(&scores[..1], 10, &mut ChaCha8Rng::seed_from_u64(1)).is_err());
    }
}
