//! Wilcoxon's signed-rank test of paired scores, two-sided, computed the way
//! `scipy.stats.wilcoxon(a, b)` computes it with its defaults (`zero_method="wilcox"`,
//! `correction=False`, `method="auto"`):
//!
//! - zero differences are dropped before ranking (Wilcoxon's own rule), and tied absolute
//!   differences share the average of their ranks; the statistic is R⁺, the rank sum of the
//!   positive differences;
//! - with at most 50 pairs and neither zeros nor ties, the p-value is exact: twice the smaller
//!   tail of R⁺'s distribution under the null, where each rank is positive with probability ½;
//! - with zeros or ties and at most 13 pairs, it is exact by enumerating all 2ⁿ sign flips of
//!   the differences;
//! - otherwise the normal approximation, with the variance corrected for ties and no
//!   continuity correction.
//!
//! Where scipy returns NaN (every difference is zero) the p-value is 1: no evidence of a
//! difference.

use super::paired::paired_differences;
use crate::base::error::StatsError;

/// The most pairs with which the exact distribution is used (scipy's `method="auto"`).
const EXACT_MAX_PAIRS: usize = 50;
/// The most pairs for which zeros or ties are handled by enumerating every sign flip.
const ENUMERATED_MAX_PAIRS: usize = 13;

/// The two-sided p-value of Wilcoxon's signed-rank test of the differences `a[i] − b[i]`.
///
/// # Errors
/// - [`StatsError::LengthMismatch`] when `a` and `b` differ in length;
/// - [`StatsError::TooFewValues`] when there is no pair;
/// - [`StatsError::NonFinite`] when a score is `NaN` or infinite.
pub fn wilcoxon_test(a: &[f64], b: &[f64]) -> Result<f64, StatsError> {
    let differences = paired_differences(a, b, 1)?;
    let nonzero: Vec<f64> = differences.into_iter().filter(|&d| d != 0.0).collect();
    let zeros = a.len() - nonzero.len();
    if nonzero.is_empty() {
        return Ok(1.0);
    }
    let (ranks, tie_sizes) = absolute_ranks(&nonzero);
    let positive_rank_sum: f64 = (nonzero.iter().zip(&ranks))
        .filter(|(&difference, _)| difference > 0.0)
        .map(|(_, rank)| rank)
        .sum();
    let has_ties = tie_sizes.iter().any(|&size| size > 1);
    let p_value = if a.len() <= EXACT_MAX_PAIRS && !has_ties && zeros == 0 {
        exact_p(positive_rank_sum, nonzero.len())
    } else if a.len() <= ENUMERATED_MAX_PAIRS {
        enumerated_p(positive_rank_sum, &ranks)
    } else {
        normal_p(positive_rank_sum, nonzero.len(), &tie_sizes)
    };
    Ok(p_value.min(1.0))
}

/// The average ranks (from 1) of `|values|`, and the size of each group of tied values.
fn absolute_ranks(values: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&left, &right| values[left].abs().total_cmp(&values[right].abs()));
    let mut ranks = vec![0.0; values.len()];
    let mut tie_sizes = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let magnitude = values[order[start]].abs();
        let end = (start..order.len())
            .find(|&position| values[order[position]].abs() != magnitude)
            .unwrap_or(order.len());
        let average_rank = (start + 1 + end) as f64 / 2.0;
        for &index in &order[start..end] {
            ranks[index] = average_rank;
        }
        tie_sizes.push(end - start);
        start = end;
    }
    (ranks, tie_sizes)
}

/// Twice the smaller tail of R⁺ under the null with `count` untied ranks 1..=count: the
/// number of subsets of the ranks with each sum, over 2^count.
fn exact_p(positive_rank_sum: f64, count: usize) -> f64 {
    let total = count * (count + 1) / 2;
    let mut subsets = vec![0u64; total + 1];
    subsets[0] = 1;
    for rank in 1..=count {
        for sum in (rank..=total).rev() {
            subsets[sum] += subsets[sum - rank];
        }
    }
    let observed = positive_rank_sum.round() as usize;
    let all = 2f64.powi(count as i32);
    let lower: u64 = subsets[..=observed].iter().sum();
    let upper: u64 = subsets[observed..].iter().sum();
    2.0 * lower.min(upper) as f64 / all
}

/// Twice the smaller tail of R⁺ over every sign flip of the ranked differences (scipy's
/// exact permutation test, used with zeros or ties). Zero differences have no rank and no
/// sign, so they double every count and cancel.
fn enumerated_p(positive_rank_sum: f64, ranks: &[f64]) -> f64 {
    let flips = 1usize << ranks.len();
    let (mut at_most, mut at_least) = (0usize, 0usize);
    for signs in 0..flips {
        // Ranks are multiples of ½ and sum exactly in floating point.
        let sum: f64 = (ranks.iter().enumerate())
            .filter(|(bit, _)| signs >> bit & 1 == 1)
            .map(|(_, rank)| rank)
            .sum();
        at_most += usize::from(sum <= positive_rank_sum);
        at_least += usize::from(sum >= positive_rank_sum);
    }
    2.0 * at_most.min(at_least) as f64 / flips as f64
}

/// The normal approximation's two-sided p-value of R⁺ over `count` non-zero differences, the
/// variance lowered by Σ(t³ − t)/48 over groups of t tied values.
fn normal_p(positive_rank_sum: f64, count: usize, tie_sizes: &[usize]) -> f64 {
    let count = count as f64;
    let mean = count * (count + 1.0) * 0.25;
    let tie_correction: f64 = (tie_sizes.iter())
        .map(|&size| (size as f64).powi(3) - size as f64)
        .sum();
    let variance = (count * (count + 1.0) * (2.0 * count + 1.0) - tie_correction / 2.0) / 24.0;
    let z = (positive_rank_sum - mean) / variance.sqrt();
    normal_two_sided_p(z)
}

/// P(|Z| ≥ |z|) for a standard normal Z.
fn normal_two_sided_p(z: f64) -> f64 {
    statrs::function::erf::erfc(z.abs() / std::f64::consts::SQRT_2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn exact_when_small_without_ties() {
        // scipy 1.17.1: wilcoxon([0.9, 0.8, 0.75, 0.3, 0.6], [0.5, 0.6, 0.7, 0.2, 0.1]).pvalue
        // = 0.0625: differences 0.4, 0.2, 0.05, 0.1, 0.5 all positive, R⁺ = 15, and only
        // the all-positive and all-negative of the 32 sign patterns are as extreme: 2/32.
        let p = wilcoxon_test(&[0.9, 0.8, 0.75, 0.3, 0.6], &[0.5, 0.6, 0.7, 0.2, 0.1]).unwrap();
        assert_relative_eq!(p, 0.0625, max_relative = 1e-15);
    }

    #[test]
    fn ties_and_zeros_are_enumerated_when_small() {
        // Differences 1, 1, −2, 3, 0: the zero is dropped, ranks 1.5, 1.5, 3, 4, R⁺ = 7. The
        // 16 subsets of the ranks sum to 0, 1.5, 1.5, 3, 3, 4, 4.5, 4.5, 5.5, 5.5, 6, 7, 7,
        // 8.5, 8.5, 10: 5 reach 7 or more, 13 stay at 7 or less, so p = 2 · 5/16 = 0.625
        // (scipy 1.17.1 gives the same).
        let p = wilcoxon_test(&[1.0, 1.0, 0.0, 3.0, 5.0], &[0.0, 0.0, 2.0, 0.0, 5.0]).unwrap();
        assert_relative_eq!(p, 0.625, max_relative = 1e-15);
        // Every difference zero: no evidence, p = 1 (scipy: NaN).
        assert_eq!(wilcoxon_test(&[0.5; 20], &[0.5; 20]).unwrap(), 1.0);
    }

    #[test]
    fn normal_approximation_with_ties_matches_scipy() {
        // 60 pairs with differences (i mod 7) − 2: zeros and ties, so the normal
        // approximation with the tie correction. scipy 1.17.1 wilcoxon(d).pvalue.
        let a: Vec<f64> = (0..60).map(|i| f64::from(i % 7) - 2.0).collect();
        let p = wilcoxon_test(&a, &[0.0; 60]).unwrap();
        assert_relative_eq!(p, 0.0015264799104482217, max_relative = 1e-9);
        let a: Vec<f64> = (0..60).map(|i| f64::from(i % 7) - 3.0).collect();
        let p = wilcoxon_test(&a, &[0.0; 60]).unwrap();
        assert_relative_eq!(p, 0.7109497709402921, max_relative = 1e-9);
    }
}
