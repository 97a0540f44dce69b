//! Paired significance tests between two runs scored on the same topics: Student's paired t-test
//! and the paired randomization (sign-flip) test that Smucker, Allan and Carterette (2007)
//! recommend for IR evaluation.
//!
//! Student's t distribution comes from `statrs`'s regularized incomplete beta function (built
//! without default features, it brings only `approx` and `num-traits`).

use rand::Rng;
use serde::Serialize;

use super::paired::{paired_differences, resampled_differences};
use super::sign_flips::SignFlipSums;
use crate::base::error::StatsError;

/// Number of random sign flips [`randomization_test`] callers use unless told otherwise. With
/// 10,000 samples the standard error of a p-value near 0.05 is about 0.002. Smucker et al. (2007)
/// used 100,000; the cost grows with samples × topics per pair of runs, and with the square of
/// the number of runs when every pair is tested (`benches/stats.rs` measures it).
pub const DEFAULT_RANDOMIZATION_PERMUTATIONS: usize = 10_000;

/// Relative tolerance when comparing a permuted statistic with the observed one: sums that are
/// equal in exact arithmetic can differ by a few ulps after reordering, and must still count as
/// "at least as extreme". Scaled by Σ|dᵢ| (the largest any sign-flipped sum can be).
const RANDOMIZATION_TOLERANCE: f64 = 1e-9;

/// The result of a paired t-test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TTest {
    /// Mean of the paired differences a − b.
    pub mean_difference: f64,
    /// The t statistic: mean difference / (standard deviation of differences / √n). Positive
    /// when `a` scores higher on average; ±∞ when every difference is the same non-zero value.
    pub t_statistic: f64,
    /// The sample standard deviation of the differences (divisor n − 1); 0 when every
    /// difference is the same.
    pub standard_deviation: f64,
    /// n − 1 for n topics.
    pub degrees_of_freedom: usize,
    /// Two-sided p-value: P(|T| ≥ |t|) under Student's t with `degrees_of_freedom`.
    pub p_value: f64,
}

/// Student's paired t-test of the mean of the differences `a[i] − b[i]` against 0, two-sided; the
/// same as `scipy.stats.ttest_rel(a, b)`.
///
/// t = d̄ / (s_d / √n), with s_d the sample standard deviation (divisor n − 1), and
/// p = I_{ν/(ν+t²)}(ν/2, 1/2) for ν = n − 1 degrees of freedom (Numerical Recipes §6.14).
///
/// Zero variance of the differences, where t is 0/0 or d̄/0 (scipy returns `NaN` for both): when
/// every difference is 0 there is no evidence of a difference, so t = 0 and p = 1; when every
/// difference is the same non-zero value, t = ±∞ and p = 0.
///
/// # Errors
/// - [`StatsError::LengthMismatch`] when `a` and `b` differ in length;
/// - [`StatsError::TooFewValues`] with fewer than 2 pairs (no variance estimate);
/// - [`StatsError::NonFinite`] when a score is `NaN` or infinite.
pub fn paired_t_test(a: &[f64], b: &[f64]) -> Result<TTest, StatsError> {
    let differences = paired_differences(a, b, 2)?;
    let count = differences.len();
    let degrees_of_freedom = count - 1;
    let mean_difference = differences.iter().sum::<f64>() / count as f64;

    // Checked on the differences themselves: the mean of n equal values can be off by an ulp,
    // which would give a tiny non-zero variance instead of exactly 0.
    if differences
        .iter()
        .all(|&difference| difference == differences[0])
    {
        let (t_statistic, p_value) = if differences[0] == 0.0 {
            (0.0, 1.0)
        } else {
            (f64::INFINITY.copysign(differences[0]), 0.0)
        };
        return Ok(TTest {
            mean_difference: differences[0],
            t_statistic,
            standard_deviation: 0.0,
            degrees_of_freedom,
            p_value,
        });
    }

    // Two passes (mean, then squared deviations) for accuracy.
    let sum_of_squares: f64 = differences
        .iter()
        .map(|difference| (difference - mean_difference).powi(2))
        .sum();
    let standard_error = (sum_of_squares / degrees_of_freedom as f64 / count as f64).sqrt();
    let t_statistic = mean_difference / standard_error;
    let standard_deviation = (sum_of_squares / degrees_of_freedom as f64).sqrt();
    Ok(TTest {
        mean_difference,
        t_statistic,
        standard_deviation,
        degrees_of_freedom,
        p_value: student_t_two_sided_p(t_statistic, degrees_of_freedom as f64),
    })
}

/// Paired two-sided randomization test of the mean difference by random sign flips (Fisher's
/// randomization test as used for IR by Smucker, Allan and Carterette 2007, "A comparison of
/// statistical significance tests for information retrieval evaluation", CIKM).
///
/// Under the null hypothesis the labels of each topic's pair are exchangeable, so each
/// difference dᵢ = `a[i] − b[i]` is equally likely to have either sign. Each of `permutations`
/// samples flips every sign with probability 1/2; the p-value is
///
/// p = (1 + #{samples with |Σ sᵢdᵢ| ≥ |Σ dᵢ| − ε}) / (1 + permutations)
///
/// (Σ instead of the mean: same test, one division fewer), with ε = 1e-9 · Σ|dᵢ| absorbing
/// rounding between sums equal in exact arithmetic. The +1s count the observed labelling as one
/// of the samples, so p is never 0 and the test is exact at its level (Phipson and Smyth 2010).
///
/// Deterministic given the state of `rng`: pass a `ChaCha8Rng` seeded by the caller. One `u64`
/// is drawn per 64 topics per sample, bit i flipping topic i.
///
/// # Errors
/// - [`StatsError::LengthMismatch`] when `a` and `b` differ in length;
/// - [`StatsError::TooFewValues`] when there is no pair;
/// - [`StatsError::NonFinite`] when a score is `NaN` or infinite;
/// - [`StatsError::NoPermutations`] when `permutations` is 0.
pub fn randomization_test(
    a: &[f64],
    b: &[f64],
    permutations: usize,
    rng: &mut impl Rng,
) -> Result<f64, StatsError> {
    let differences = resampled_differences(a, b, permutations)?;
    let magnitude: f64 = differences.iter().map(|difference| difference.abs()).sum();
    let sums = SignFlipSums::new(&differences);
    let threshold = sums.unflipped().abs() - RANDOMIZATION_TOLERANCE * magnitude;
    let at_least_as_extreme: usize = (0..permutations)
        .map(|_| usize::from(sums.sum(|| rng.next_u64()).abs() >= threshold))
        .sum();
    Ok((at_least_as_extreme + 1) as f64 / (permutations + 1) as f64)
}

/// Two-sided tail probability P(|T| ≥ |t|) of Student's t with `degrees_of_freedom` ν > 0:
/// I_x(ν/2, 1/2) with x = ν/(ν + t²) (Numerical Recipes §6.14.11).
fn student_t_two_sided_p(t_statistic: f64, degrees_of_freedom: f64) -> f64 {
    if t_statistic.is_infinite() {
        return 0.0;
    }
    let squared = t_statistic * t_statistic;
    let denominator = degrees_of_freedom + squared;
    // 1 − x computed directly as t²/(ν + t²): no cancellation when t is small.
    regularized_incomplete_beta(
        degrees_of_freedom / 2.0,
        0.5,
        degrees_of_freedom / denominator,
        squared / denominator,
    )
}

/// The critical value t* of Student's t with `degrees_of_freedom` ν > 0 for which
/// P(|T| ≥ t*) = `tail` (in (0, 1)): a (1 − `tail`) confidence interval spans t* standard
/// errors either side of the mean, as `scipy.stats.t.ppf(1 − tail/2, ν)` gives it.
pub fn student_t_critical_value(tail: f64, degrees_of_freedom: f64) -> f64 {
    // The tail falls as t grows: bracket t*, then halve the bracket until it stops shrinking.
    let (mut low, mut high) = (0.0, 1.0);
    while student_t_two_sided_p(high, degrees_of_freedom) > tail {
        low = high;
        high *= 2.0;
    }
    loop {
        let middle = 0.5 * (low + high);
        if middle <= low || middle >= high {
            return middle;
        }
        if student_t_two_sided_p(middle, degrees_of_freedom) > tail {
            low = middle;
        } else {
            high = middle;
        }
    }
}

/// The regularized incomplete beta function I_x(a, b) for a, b > 0 and x in [0, 1], given both
/// x and its complement 1 − x, so that a caller's accurate complement is used. `statrs` sums the
/// continued fraction for I_x(a, b) directly when x < (a + 1)/(a + b + 2), where it converges
/// fast, and as 1 − I_{1−x}(b, a) otherwise; it is handed the argument on the direct side, so
/// neither 1 − x near 1 nor 1 − (1 − p) for a tiny p is ever computed.
fn regularized_incomplete_beta(a: f64, b: f64, x: f64, complement: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if complement <= 0.0 {
        return 1.0;
    }
    let direct = |a: f64, b: f64, x: f64| {
        statrs::function::beta::checked_beta_reg(a, b, x)
            .expect("a and b are positive and x lies strictly between 0 and 1")
    };
    if x < (a + 1.0) / (a + b + 2.0) {
        direct(a, b, x)
    } else {
        1.0 - direct(b, a, complement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::{assert_abs_diff_eq, assert_relative_eq};
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
        regularized_incomplete_beta(a, b, x, 1.0 - x)
    }

    #[test]
    fn incomplete_beta_matches_closed_forms_and_scipy() {
        // I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(1/2, 1/2) = (2/π) asin √x.
        assert_abs_diff_eq!(incomplete_beta(1.0, 1.0, 0.37), 0.37, epsilon = 1e-14);
        assert_abs_diff_eq!(
            incomplete_beta(3.5, 1.0, 0.6),
            0.6f64.powf(3.5),
            epsilon = 1e-14
        );
        let expected = 2.0 / std::f64::consts::PI * 0.9f64.sqrt().asin();
        assert_abs_diff_eq!(incomplete_beta(0.5, 0.5, 0.9), expected, epsilon = 1e-14);
        // scipy 1.17.1 scipy.special.betainc(a, b, x).
        assert_abs_diff_eq!(
            incomplete_beta(0.5, 0.5, 0.9),
            0.7951672353008665,
            epsilon = 1e-14
        );
        assert_abs_diff_eq!(
            incomplete_beta(2.5, 0.5, 0.3),
            0.018927124071945658,
            epsilon = 1e-14
        );
        assert_abs_diff_eq!(
            incomplete_beta(21.0, 0.5, 0.999),
            0.838530159386613,
            epsilon = 1e-13
        );
        assert_abs_diff_eq!(incomplete_beta(5.0, 3.0, 0.2), 0.004672, epsilon = 1e-15);
        assert_relative_eq!(
            incomplete_beta(50.0, 0.5, 0.5),
            9.90168898459413e-17,
            max_relative = 1e-10
        );
        assert_eq!(incomplete_beta(2.0, 3.0, 0.0), 0.0);
        assert_eq!(incomplete_beta(2.0, 3.0, 1.0), 1.0);
    }

    #[test]
    fn student_t_tails_match_closed_forms_and_scipy() {
        // ν = 1 is Cauchy: p = 1 − (2/π) atan|t|. ν = 2: p = 1 − |t| / √(2 + t²).
        for t in [0.1, 1.0, 3.0, 25.0] {
            let cauchy = 1.0 - 2.0 / std::f64::consts::PI * f64::atan(t);
            assert_abs_diff_eq!(student_t_two_sided_p(t, 1.0), cauchy, epsilon = 1e-14);
            let two = 1.0 - t / (2.0 + t * t).sqrt();
            assert_abs_diff_eq!(student_t_two_sided_p(-t, 2.0), two, epsilon = 1e-14);
        }
        // scipy 1.17.1: 2 * scipy.stats.t.sf(|t|, df).
        let cases = [
            (2.0, 10.0, 0.07338803477074037),
            (0.5, 3.0, 0.651447964848151),
            (3.5, 42.0, 0.0011158515427998877),
            (10.0, 5.0, 0.00017094757574296363),
            (0.0, 7.0, 1.0),
            (1e-3, 100.0, 0.9992041077601035),
        ];
        for (t, degrees_of_freedom, expected) in cases {
            let p = student_t_two_sided_p(t, degrees_of_freedom);
            assert_relative_eq!(p, expected, max_relative = 1e-12);
        }
        assert_eq!(student_t_two_sided_p(f64::NEG_INFINITY, 4.0), 0.0);
    }

    /// Student (1908), "The probable error of a mean", Biometrika 6(1): hours of extra sleep of
    /// 10 patients under two drugs (the data of R's `sleep`).
    const SLEEP_DRUG_1: [f64; 10] = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
    const SLEEP_DRUG_2: [f64; 10] = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];

    #[test]
    fn student_t_critical_values_match_scipy() {
        // scipy 1.17.1: t.ppf(0.975, df).
        let cases = [
            (1.0, 12.706204736174694),
            (9.0, 2.262157162798205),
            (13.0, 2.1603686564627913),
            (29.0, 2.045229642132703),
            (1000.0, 1.9623390808264083),
        ];
        for (degrees_of_freedom, expected) in cases {
            let critical = student_t_critical_value(0.05, degrees_of_freedom);
            assert_relative_eq!(critical, expected, max_relative = 1e-12);
        }
    }

    #[test]
    fn paired_t_test_matches_scipy_on_student_sleep_data() {
        // scipy 1.17.1: ttest_rel(drug2, drug1) → t = 4.062127683382037, p = 0.002832890197384273,
        // df = 9 (R's t.test(paired = TRUE) prints t = 4.0621, p-value = 0.002833).
        let test = paired_t_test(&SLEEP_DRUG_2, &SLEEP_DRUG_1).unwrap();
        assert_eq!(test.degrees_of_freedom, 9);
        assert_abs_diff_eq!(test.mean_difference, 1.58, epsilon = 1e-12);
        assert_relative_eq!(test.t_statistic, 4.062127683382037, max_relative = 1e-12);
        assert_relative_eq!(test.p_value, 0.002832890197384273, max_relative = 1e-10);
        // s_d = d̄ √n / t (R: sd(drug2 - drug1) = 1.229995).
        let expected_sd = 1.58 * 10f64.sqrt() / 4.062127683382037;
        assert_relative_eq!(test.standard_deviation, expected_sd, max_relative = 1e-12);
        // Swapping the arguments flips the sign of t, not p.
        let swapped = paired_t_test(&SLEEP_DRUG_1, &SLEEP_DRUG_2).unwrap();
        assert_eq!(swapped.t_statistic, -test.t_statistic);
        assert_eq!(swapped.p_value, test.p_value);
    }

    /// Twelve topics of two made-up runs (numpy seed 1, rounded to 3 decimals).
    const RUN_A: [f64; 12] = [
        0.488, 0.984, 0.146, 1.0, 0.366, 0.444, 0.8, 0.433, 0.601, 0.05, 0.933, 0.689,
    ];
    const RUN_B: [f64; 12] = [
        0.512, 0.95, 0.144, 0.949, 0.312, 0.423, 0.828, 0.409, 0.55, 0.028, 0.754, 0.538,
    ];

    #[test]
    fn paired_t_test_matches_scipy_on_run_scores() {
        // scipy 1.17.1: ttest_rel(RUN_A, RUN_B) → t = 2.480830869161881, p = 0.030528633781855184.
        let test = paired_t_test(&RUN_A, &RUN_B).unwrap();
        assert_eq!(test.degrees_of_freedom, 11);
        assert_relative_eq!(test.t_statistic, 2.480830869161881, max_relative = 1e-12);
        assert_relative_eq!(test.p_value, 0.030528633781855184, max_relative = 1e-10);
    }

    #[test]
    fn paired_t_test_zero_variance_and_bad_input() {
        let same = paired_t_test(&[0.2, 0.4, 0.6], &[0.2, 0.4, 0.6]).unwrap();
        assert_eq!((same.t_statistic, same.p_value), (0.0, 1.0));
        // Every difference is exactly 0.25 (binary fractions): t = +∞, p = 0.
        let shifted = paired_t_test(&[0.5, 0.75, 1.0], &[0.25, 0.5, 0.75]).unwrap();
        assert_eq!(shifted.t_statistic, f64::INFINITY);
        assert_eq!(shifted.p_value, 0.0);
        let down = paired_t_test(&[0.25, 0.5], &[0.5, 0.75]).unwrap();
        assert_eq!((down.t_statistic, down.p_value), (f64::NEG_INFINITY, 0.0));

        assert_eq!(
            paired_t_test(&[1.0], &[2.0]),
            Err(StatsError::TooFewValues {
                required: 2,
                found: 1
            })
        );
        assert_eq!(
            paired_t_test(&[1.0, 2.0], &[2.0]),
            Err(StatsError::LengthMismatch { left: 2, right: 1 })
        );
        assert!(matches!(
            paired_t_test(&[1.0, 2.0], &[2.0, f64::NAN]),
            Err(StatsError::NonFinite { position: 1, .. })
        ));
    }

    #[test]
    fn randomization_test_approximates_the_exact_sign_flip_p_value() {
        // Enumerating all 2^12 sign vectors of RUN_A − RUN_B (numpy, tolerance 1e-12): 68 are
        // at least as extreme as the observed sum, so the exact p is 68/4096 = 0.0166.
        // 100,000 samples have standard error √(0.0166 · 0.9834 / 10⁵) ≈ 0.0004; allow 5 of them.
        let permutations = 100_000;
        let mut rng = ChaCha8Rng::seed_from_u64(2007);
        let p = randomization_test(&RUN_A, &RUN_B, permutations, &mut rng).unwrap();
        assert!((p - 68.0 / 4096.0).abs() < 0.002, "p = {p}");
        // The same seed gives the same answer, bit for bit.
        let mut again = ChaCha8Rng::seed_from_u64(2007);
        let repeat = randomization_test(&RUN_A, &RUN_B, permutations, &mut again).unwrap();
        assert_eq!(repeat, p);
        // The paired t-test on the same data agrees that the difference is significant at 0.05
        // (p = 0.0305), as Smucker et al. found the two tests usually do.
    }

    #[test]
    fn randomization_test_edge_cases() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        // No difference at all: every sample ties the observed 0, so p = (100 + 1)/(100 + 1) = 1.
        assert_eq!(
            randomization_test(&[0.3, 0.6], &[0.3, 0.6], 100, &mut rng).unwrap(),
            1.0
        );
        // One topic: ±d always has |d| = observed, so p = 1.
        assert_eq!(
            randomization_test(&[0.9], &[0.1], 50, &mut rng).unwrap(),
            1.0
        );
        // Differences [0.1, 0.2, −0.3, 0.5]: observed |Σ| = 0.5 (in floats, summed in order).
        // Exactly 10 of the 16 sign vectors reach |Σ| ≥ 0.5 in exact decimal arithmetic (e.g.
        // −0.1 −0.2 +0.3 +0.5), but in floats two of them come out 0.49999999999999994.
        // Without the tolerance the estimate would approach 8/16; with it, 10/16.
        let p = randomization_test(&[0.1, 0.2, -0.3, 0.5], &[0.0; 4], 20_000, &mut rng).unwrap();
        assert!((p - 0.625).abs() < 0.02, "p = {p}");
        // Differences over 64 topics use more than one u64 of signs per sample.
        let many: Vec<f64> = (0..130).map(|topic| f64::from(topic % 7) / 10.0).collect();
        let p = randomization_test(&many, &vec![0.0; 130], 200, &mut rng).unwrap();
        assert_eq!(p, 1.0 / 201.0);

        assert_eq!(
            randomization_test(&[], &[], 10, &mut rng),
            Err(StatsError::TooFewValues {
                required: 1,
                found: 0
            })
        );
        assert_eq!(
            randomization_test(&[1.0], &[0.0], 0, &mut rng),
            Err(StatsError::NoPermutations)
        );
        assert_eq!(
            randomization_test(&[1.0], &[0.0, 1.0], 10, &mut rng),
            Err(StatsError::LengthMismatch { left: 1, right: 2 })
        );
        assert!(matches!(
            randomization_test(&[f64::INFINITY], &[0.0], 10, &mut rng),
            Err(StatsError::NonFinite { position: 0, .. })
        ));
    }

    proptest! {
        #![proptest_config(crate::base::fuzz::property_config(256))]
        #[test]
        fn p_values_are_probabilities(
            pairs in prop::collection::vec((0.0f64..1.0, 0.0f64..1.0), 2..40),
            seed in any::<u64>(),
        ) {
            let (a, b): (Vec<f64>, Vec<f64>) = pairs.into_iter().unzip();
            let test = paired_t_test(&a, &b).unwrap();
            prop_assert!((0.0..=1.0).contains(&test.p_value), "t-test p = {}", test.p_value);
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let p = randomization_test(&a, &b, 200, &mut rng).unwrap();
            prop_assert!((1.0 / 201.0..=1.0).contains(&p), "randomization p = {}", p);
        }

        #[test]
        fn student_t_tail_decreases_with_t(degrees_of_freedom in 1u32..200, t in 0.0f64..20.0) {
            let degrees_of_freedom = f64::from(degrees_of_freedom);
            let near = student_t_two_sided_p(t, degrees_of_freedom);
            let far = student_t_two_sided_p(t + 0.5, degrees_of_freedom);
            prop_assert!(far <= near, "p({}) = {} < p({}) = {}", t + 0.5, far, t, near);
        }
    }
}
