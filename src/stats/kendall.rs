//! Rank correlation between two scorings of the same runs: Kendall's tau_b (ties handled as in
//! `scipy.stats.kendalltau`) and Yilmaz, Aslam and Robertson's AP correlation tau_ap, which
//! weighs disagreements near the top of the ranking more.
//!
//! Both are O(n²) pair counts: the collections compared here have a few hundred runs at most,
//! where the quadratic loop is a small share of a study (`benches/stats.rs` measures it), so the
//! O(n log n) Knight algorithm is not worth its complexity.
//!
//! Worked example used by the tests. Reference (official) scores
//! `a = [.30, .25, .28, .10, .22, .22]`, scores under test `b = [.29, .27, .26, .12, .20, .23]`.
//!
//! tau_b: of the 15 pairs, (1, 2) is discordant (a: .25 < .28, b: .27 > .26), (4, 5) is tied
//! only in `a` (.22 = .22), and the other 13 are concordant. So C = 13, D = 1, Tx = 1, Ty = 0 and
//! tau_b = (13 − 1) / √((13 + 1 + 1)(13 + 1 + 0)) = 12 / √210 = 0.828078…, which is what
//! `scipy.stats.kendalltau(a, b)` returns (scipy 1.17.1: 0.8280786712108251).
//!
//! tau_ap with `a` as reference: `b` orders the items 0, 1, 2, 5, 4, 3. Walking down that order,
//! the items above each one that `a` also puts strictly above it are
//! item 1: {0} → 1/1; item 2: {0} of {0, 1} → 1/2; item 5: {0, 1, 2} → 3/3;
//! item 4: {0, 1, 2} of {0, 1, 2, 5} (5 ties 4 in `a`, so it does not count) → 3/4;
//! item 3: all five → 5/5. tau_ap = 2/5 · (1 + 1/2 + 1 + 3/4 + 1) − 1 = 2/5 · 4.25 − 1 = 0.7.

use std::cmp::Ordering;

use super::paired::check_same_length;
use super::rank::compare_scores;
use crate::base::error::StatsError;

/// Kendall's tau_b between two scorings of the same items:
///
/// tau_b = (C − D) / √((C + D + Tx)(C + D + Ty))
///
/// where C and D count concordant and discordant pairs, Tx counts pairs tied only in `x` and Ty
/// pairs tied only in `y`; pairs tied in both are ignored. This is Kendall (1945), "The treatment
/// of ties in ranking problems", Biometrika 33(3), and equals `scipy.stats.kendalltau` (variant
/// "b"). Scores are compared with [`compare_scores`] (higher is better, `NaN` lowest), so the
/// result is the same whether given scores or ranks of either direction consistently.
///
/// # Errors
/// - [`StatsError::LengthMismatch`] when `x` and `y` differ in length;
/// - [`StatsError::TooFewValues`] with fewer than 2 items;
/// - [`StatsError::AllTied`] when either side ties every item, so the denominator is 0 (scipy
///   returns `NaN` there; an error makes the caller decide how to report it).
pub fn tau_b(x: &[f64], y: &[f64]) -> Result<f64, StatsError> {
    check_same_length(x, y)?;
    if x.len() < 2 {
        return Err(StatsError::TooFewValues {
            required: 2,
            found: x.len(),
        });
    }
    let mut concordant: u64 = 0;
    let mut discordant: u64 = 0;
    let mut tied_only_x: u64 = 0;
    let mut tied_only_y: u64 = 0;
    for first in 0..x.len() {
        for second in first + 1..x.len() {
            let order_x = compare_scores(x[first], x[second]);
            let order_y = compare_scores(y[first], y[second]);
            match (order_x, order_y) {
                (Ordering::Equal, Ordering::Equal) => {}
                (Ordering::Equal, _) => tied_only_x += 1,
                (_, Ordering::Equal) => tied_only_y += 1,
                _ if order_x == order_y => concordant += 1,
                _ => discordant += 1,
            }
        }
    }
    let untied = concordant + discordant;
    let denominator = ((untied + tied_only_x) as f64 * (untied + tied_only_y) as f64).sqrt();
    if denominator == 0.0 {
        return Err(StatsError::AllTied);
    }
    Ok((concordant as f64 - discordant as f64) / denominator)
}

/// AP correlation tau_ap of the ranking under `test` against the `reference` ranking (Yilmaz,
/// Aslam and Robertson 2008, "A new rank correlation coefficient for information retrieval",
/// SIGIR, eq. 2):
///
/// tau_ap = 2/(n − 1) · Σ_{i=2..n} C(i)/(i − 1) − 1
///
/// where items are taken in the order of `test` (best first) and C(i) is the number of the i − 1
/// items above item i in that order that `reference` ranks strictly above item i. It is 1 when
/// the orders agree, −1 when reversed, and penalises swaps near the top more than Kendall's tau.
/// It is not symmetric: `reference` is the official ranking.
///
/// Ties (the 2008 definition has none; these rules are ours):
/// - a pair tied in `reference` is **not** concordant, so it counts against tau_ap;
/// - items tied in `test` are not above one another: for each item, C(i) is taken over the
///   A(i) items strictly above it in `test`, and tau_ap = 2 · mean(C(i)/A(i)) − 1 over the
///   items with A(i) > 0. Without ties in `test`, A(i) = i − 1 and this is the formula above;
///   with them, `tau_ap(x, x) = 1` still holds. (Ordering test ties by position instead would
///   give, for a measure as coarse as P@10, a tau_ap near 0 for two identical rankings.)
///
/// # Errors
/// - [`StatsError::LengthMismatch`] when the slices differ in length;
/// - [`StatsError::TooFewValues`] with fewer than 2 items;
/// - [`StatsError::AllTied`] when either ranking ties every item (every C(i) would be 0, or the
///   test order would be the index order: neither says anything about agreement).
pub fn tau_ap(reference: &[f64], test: &[f64]) -> Result<f64, StatsError> {
    check_same_length(reference, test)?;
    let count = reference.len();
    if count < 2 {
        return Err(StatsError::TooFewValues {
            required: 2,
            found: count,
        });
    }
    if is_constant(reference) || is_constant(test) {
        return Err(StatsError::AllTied);
    }
    let mut order: Vec<usize> = (0..count).collect();
    // Best first under `test` (the stable sort keeps the result independent of tie order).
    order.sort_by(|&left, &right| compare_scores(test[right], test[left]));

    let mut sum = 0.0;
    let mut items_with_items_above = 0usize;
    let mut group_start = 0;
    for (pos, &item) in order.iter().enumerate() {
        if compare_scores(test[order[group_start]], test[item]) != Ordering::Equal {
            group_start = pos;
        }
        // The items strictly above `item` in `test`: those of the earlier tie groups.
        let above = &order[..group_start];
        if above.is_empty() {
            continue;
        }
        let agreeing = above
            .iter()
            .filter(|&&above| {
                compare_scores(reference[above], reference[item]) == Ordering::Greater
            })
            .count();
        sum += agreeing as f64 / above.len() as f64;
        items_with_items_above += 1;
    }
    // `2 * sum / m` rather than `2 / m * sum`: exact 2 when every ratio is 1.
    Ok(2.0 * sum / items_with_items_above as f64 - 1.0)
}

/// True when every value ties with the first under [`compare_scores`].
fn is_constant(values: &[f64]) -> bool {
    values
        .iter()
        .all(|&value| compare_scores(value, values[0]) == Ordering::Equal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;
    use proptest::prelude::*;

    /// Asserts that a tau is `expected` but for rounding.
    fn assert_tau(tau: Result<f64, StatsError>, expected: f64) {
        assert_abs_diff_eq!(tau.unwrap(), expected, epsilon = 1e-12);
    }

    const REFERENCE: [f64; 6] = [0.30, 0.25, 0.28, 0.10, 0.22, 0.22];
    const UNDER_TEST: [f64; 6] = [0.29, 0.27, 0.26, 0.12, 0.20, 0.23];

    #[test]
    fn tau_b_worked_example_matches_scipy() {
        // Hand count in the module docs: 12 / √210; scipy 1.17.1 kendalltau: 0.8280786712108251.
        let tau = tau_b(&REFERENCE, &UNDER_TEST).unwrap();
        assert_abs_diff_eq!(tau, 12.0 / 210f64.sqrt(), epsilon = 1e-15);
        assert_abs_diff_eq!(tau, 0.8280786712108251, epsilon = 1e-12);
        assert_abs_diff_eq!(tau, 0.82808, epsilon = 5e-6);
    }

    #[test]
    fn tau_b_with_ties_on_both_sides_matches_scipy() {
        // scipy 1.17.1: kendalltau([1,2,2,3,3,3,4], [2,1,3,3,4,4,4]).statistic = 0.7058823529411764.
        // Hand count over the 21 pairs: D = 1 (0,1); tied only in x = 3 (1,2) (3,4) (3,5);
        // tied only in y = 3 (2,3) (4,6) (5,6); tied in both = 1 (4,5); C = 21 − 8 = 13.
        // tau_b = (13 − 1) / √((14 + 3)(14 + 3)) = 12/17.
        let x = [1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0];
        let y = [2.0, 1.0, 3.0, 3.0, 4.0, 4.0, 4.0];
        let tau = tau_b(&x, &y).unwrap();
        assert_abs_diff_eq!(tau, 12.0 / 17.0, epsilon = 1e-15);
        assert_abs_diff_eq!(tau, 0.7058823529411764, epsilon = 1e-12);
    }

    #[test]
    fn tau_ap_worked_example() {
        // Hand computation in the module docs: 2/5 · 4.25 − 1 = 0.7.
        let tau = tau_ap(&REFERENCE, &UNDER_TEST).unwrap();
        assert_abs_diff_eq!(tau, 0.7, epsilon = 1e-12);
        // Not symmetric: with `b` as reference, `a` orders 0, 2, 1, then 4 and 5 tied, then 3.
        // Items with something strictly above them: 2 → 1/1, 1 → 1/2 (b puts 1 above 2),
        // 4 → 3/3 and 5 → 3/3 (the tied pair is not compared), 3 → 5/5: mean 4.5/5,
        // tau_ap = 2 · 0.9 − 1 = 0.8.
        assert_tau(tau_ap(&UNDER_TEST, &REFERENCE), 0.8);
    }

    #[test]
    fn tau_ap_penalises_top_swaps_more_than_bottom_swaps() {
        // Reference 1 > 2 > 3 > 4 > 5. Swapping the top two: C(2) = 0, rest full:
        // 2/4 · (0 + 2/2 + 3/3 + 4/4) − 1 = 0.5. Swapping the bottom two: C(5) = 3/4:
        // 2/4 · (1 + 1 + 1 + 3/4) − 1 = 0.875. Kendall's tau is 0.8 for both.
        let reference = [5.0, 4.0, 3.0, 2.0, 1.0];
        let top_swapped = [4.0, 5.0, 3.0, 2.0, 1.0];
        let bottom_swapped = [5.0, 4.0, 3.0, 1.0, 2.0];
        assert_tau(tau_ap(&reference, &top_swapped), 0.5);
        assert_tau(tau_ap(&reference, &bottom_swapped), 0.875);
        assert_tau(tau_b(&reference, &top_swapped), 0.8);
        assert_tau(tau_b(&reference, &bottom_swapped), 0.8);
    }

    #[test]
    fn tau_ap_ties_follow_the_documented_rules() {
        // Identical rankings with ties agree perfectly: x = [2, 1, 1] orders 0, then {1, 2}
        // tied. Item 1: above {0}, 1/1; item 2: above {0}, 1/1 (1 is tied, not above). 1.0.
        let tied = [2.0, 1.0, 1.0];
        assert_tau(tau_ap(&tied, &tied), 1.0);
        // A tie in the reference only is not concordant: reference [2, 1, 1], test [3, 2, 1]
        // orders 0, 1, 2. Item 1: 1/1; item 2: above {0, 1}, only 0 strictly above: 1/2.
        // tau_ap = 2 · (1.5 / 2) − 1 = 0.5.
        assert_tau(tau_ap(&tied, &[3.0, 2.0, 1.0]), 0.5);
        // Ties in the test ranking [1, 1, 0] are not compared with each other, whatever the
        // reference says about them: item 2 has {0, 1} above it, both above it in either
        // reference, so tau_ap = 1 against [3, 2, 1] and against [2, 3, 1].
        let test = [1.0, 1.0, 0.0];
        assert_tau(tau_ap(&[3.0, 2.0, 1.0], &test), 1.0);
        assert_tau(tau_ap(&[2.0, 3.0, 1.0], &test), 1.0);
        // A wrong order across tie groups still counts: reference [1, 2, 3] (2 best) against
        // test [1, 1, 0]: item 2 has {0, 1} above, neither above it in the reference: 0/2.
        assert_tau(tau_ap(&[1.0, 2.0, 3.0], &test), -1.0);
    }

    #[test]
    fn undefined_and_mismatched_inputs_are_errors() {
        assert_eq!(
            tau_b(&[1.0, 2.0], &[1.0]),
            Err(StatsError::LengthMismatch { left: 2, right: 1 })
        );
        assert_eq!(
            tau_ap(&[1.0], &[1.0]),
            Err(StatsError::TooFewValues {
                required: 2,
                found: 1
            })
        );
        assert_eq!(
            tau_b(&[], &[]),
            Err(StatsError::TooFewValues {
                required: 2,
                found: 0
            })
        );
        let (tied, ordered) = ([3.0; 4], [1.0, 2.0, 3.0, 4.0]);
        for (x, y) in [(tied, ordered), (ordered, tied)] {
            assert_eq!(tau_b(&x, &y), Err(StatsError::AllTied));
            assert_eq!(tau_ap(&x, &y), Err(StatsError::AllTied));
        }
    }

    /// Scores with few distinct values, so that ties are common.
    fn tied_scores() -> impl Strategy<Value = Vec<f64>> {
        prop::collection::vec((0u8..5).prop_map(f64::from), 2..30)
    }

    /// Distinct scores (a shuffled range scaled into [0, 1)).
    fn distinct_scores() -> impl Strategy<Value = Vec<f64>> {
        (2usize..60)
            .prop_flat_map(|count| Just((0..count).collect::<Vec<_>>()).prop_shuffle())
            .prop_map(|order| order.into_iter().map(|value| value as f64 / 64.0).collect())
    }

    fn not_constant(values: &[f64]) -> bool {
        values.iter().any(|&value| value != values[0])
    }

    proptest! {
        #![proptest_config(crate::base::fuzz::property_config(256))]
        #[test]
        fn tau_b_of_a_ranking_with_itself_is_one(x in tied_scores()) {
            prop_assume!(not_constant(&x));
            prop_assert_eq!(tau_b(&x, &x).unwrap(), 1.0);
        }

        #[test]
        fn tau_b_of_distinct_scores_with_itself_is_one(x in distinct_scores()) {
            prop_assert_eq!(tau_b(&x, &x).unwrap(), 1.0);
        }

        #[test]
        fn tau_b_against_reversed_order_is_minus_one(x in tied_scores()) {
            prop_assume!(not_constant(&x));
            let reversed: Vec<f64> = x.iter().map(|value| -value).collect();
            prop_assert_eq!(tau_b(&x, &reversed).unwrap(), -1.0);
        }

        #[test]
        fn tau_b_is_symmetric_and_bounded(x in tied_scores(), y in tied_scores()) {
            let length = x.len().min(y.len());
            let (x, y) = (&x[..length], &y[..length]);
            match tau_b(x, y) {
                Ok(tau) => {
                    prop_assert!((-1.0..=1.0).contains(&tau), "tau_b = {}", tau);
                    prop_assert_eq!(tau_b(y, x).unwrap(), tau);
                }
                Err(error) => {
                    prop_assert_eq!(error, StatsError::AllTied);
                    prop_assert!(!not_constant(x) || !not_constant(y));
                    prop_assert_eq!(tau_b(y, x), Err(error));
                }
            }
        }

        #[test]
        fn tau_ap_of_distinct_scores_with_itself_is_one(x in distinct_scores()) {
            prop_assert_eq!(tau_ap(&x, &x).unwrap(), 1.0);
            // Ties too: rounding to one decimal makes many.
            let coarse: Vec<f64> = x.iter().map(|v| (v * 10.0).round()).collect();
            if let Ok(tau) = tau_ap(&coarse, &coarse) {
                prop_assert_eq!(tau, 1.0);
            }
            let reversed: Vec<f64> = x.iter().map(|value| -value).collect();
            prop_assert_eq!(tau_ap(&x, &reversed).unwrap(), -1.0);
        }

        #[test]
        fn tau_ap_is_bounded(x in tied_scores(), y in tied_scores()) {
            let length = x.len().min(y.len());
            if let Ok(tau) = tau_ap(&x[..length], &y[..length]) {
                prop_assert!((-1.0..=1.0).contains(&tau), "tau_ap = {}", tau);
            }
        }

        #[test]
        fn tau_ap_and_tau_b_agree_on_one_adjacent_swap_at_the_bottom(x in distinct_scores()) {
            // Swapping the two worst items costs tau_ap 2/(n-1) · 1/(n-1) and tau_b 4/(n(n-1)).
            let mut swapped = x.clone();
            let mut order: Vec<usize> = (0..x.len()).collect();
            order.sort_by(|&left, &right| x[right].total_cmp(&x[left]));
            let (last, second_last) = (order[x.len() - 1], order[x.len() - 2]);
            swapped.swap(last, second_last);
            let count = x.len() as f64;
            let expected_ap = 1.0 - 2.0 / ((count - 1.0) * (count - 1.0));
            let expected_b = 1.0 - 4.0 / (count * (count - 1.0));
            prop_assert!((tau_ap(&x, &swapped).unwrap() - expected_ap).abs() < 1e-12);
            prop_assert!((tau_b(&x, &swapped).unwrap() - expected_b).abs() < 1e-12);
        }
    }
}
