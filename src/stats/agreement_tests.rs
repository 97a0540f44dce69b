use super::*;
use approx::assert_abs_diff_eq;
use proptest::prelude::*;

/// The worked example of the module docs.
fn worked_example() -> Vec<(Grade, Grade)> {
    let mut pairs = vec![(0, 0); 3];
    pairs.extend([(0, 1), (1, 1), (1, 1), (1, 2), (2, 2), (2, 2), (2, 0)]);
    pairs
}

/// Asserts that `value` is defined and equals `expected` but for rounding.
fn assert_close(value: Option<f64>, expected: f64) {
    let value = value.unwrap_or_else(|| panic!("expected {expected}, found undefined"));
    assert_abs_diff_eq!(value, expected, epsilon = 1e-12);
}

#[test]
fn worked_example_matches_the_hand_count_and_the_references() {
    let agreement = grade_agreement(&worked_example(), 1);
    assert_eq!(agreement.pairs, 10);
    assert_eq!(agreement.grades, vec![0, 1, 2]);
    assert_eq!(
        agreement.table,
        vec![vec![3, 1, 0], vec![0, 2, 1], vec![1, 0, 2]]
    );
    // Hand counts in the module docs; scikit-learn 1.9.1 cohen_kappa_score and krippendorff
    // 0.9.0 alpha give the same (values printed by repr).
    assert_close(agreement.kappa, 0.36 / 0.66);
    assert_close(agreement.kappa, 0.5454545454545454);
    assert_close(agreement.kappa_linear, 5.0 / 9.0);
    assert_close(agreement.kappa_quadratic, 1.0 - 6.0 / 13.8);
    assert_close(agreement.kappa_quadratic, 0.5652173913043479);
    assert_close(agreement.binary_kappa, 0.28 / 0.48);
    assert_close(agreement.alpha_ordinal, 0.589625850340136);
    assert_close(agreement.alpha_interval, 0.5869565217391304);
    assert_close(agreement.relevant_share_a, 0.6);
    assert_close(agreement.relevant_share_b, 0.6);
}

#[test]
fn weights_follow_the_grades_positions_and_alpha_their_values() {
    // Grades -1, 0, 1, 3: the weights see positions 0..3, the interval alpha the values.
    // scikit-learn 1.9.1 and krippendorff 0.9.0 on these pairs, level 1.
    let pairs = [
        (0, 0),
        (0, 3),
        (3, 3),
        (1, 1),
        (1, 0),
        (3, 1),
        (-1, 0),
        (-1, -1),
    ];
    let agreement = grade_agreement(&pairs, 1);
    assert_eq!(agreement.grades, vec![-1, 0, 1, 3]);
    assert_close(agreement.kappa, 0.33333333333333337);
    assert_close(agreement.kappa_linear, 0.4736842105263158);
    assert_close(agreement.kappa_quadratic, 0.6111111111111112);
    assert_close(agreement.binary_kappa, 0.5);
    assert_close(agreement.alpha_ordinal, 0.6329599056603774);
    assert_close(agreement.alpha_interval, 0.5664739884393064);
    assert_close(agreement.relevant_share_a, 0.5);
    assert_close(agreement.relevant_share_b, 0.5);
}

#[test]
fn the_relevance_level_decides_the_binary_kappa_and_the_shares() {
    // At level 2 only grade 2 is relevant: binary table [[6,1],[1,2]], po 0.8,
    // pe (7·7 + 3·3)/100 = 0.58, kappa 0.22/0.42.
    let agreement = grade_agreement(&worked_example(), 2);
    assert_close(agreement.binary_kappa, 0.22 / 0.42);
    assert_close(agreement.relevant_share_a, 0.3);
    assert_close(agreement.relevant_share_b, 0.3);
    // The graded statistics do not depend on the level.
    assert_eq!(agreement.kappa, grade_agreement(&worked_example(), 1).kappa);
}

#[test]
fn undefined_statistics_are_none() {
    // One grade on both sides: no expected disagreement.
    let agreement = grade_agreement(&[(1, 1), (1, 1)], 1);
    assert_eq!(agreement.kappa, None);
    assert_eq!(agreement.kappa_linear, None);
    assert_eq!(agreement.binary_kappa, None);
    assert_eq!(agreement.alpha_ordinal, None);
    assert_eq!(agreement.alpha_interval, None);
    assert_eq!(agreement.relevant_share_a, Some(1.0));
    // Graded agreement defined, binary not: every grade relevant on both sides.
    let agreement = grade_agreement(&[(1, 1), (2, 2), (2, 1)], 1);
    assert!(agreement.kappa.is_some());
    assert_eq!(agreement.binary_kappa, None);
    // No pairs at all.
    let agreement = grade_agreement(&[], 1);
    assert_eq!(agreement.pairs, 0);
    assert!(agreement.table.is_empty());
    assert_eq!(agreement.kappa, None);
    assert_eq!(agreement.relevant_share_a, None);
}

#[test]
fn kappa_alone_equals_the_full_agreements_kappa() {
    assert_eq!(
        kappa(&worked_example()),
        grade_agreement(&worked_example(), 1).kappa
    );
}

#[test]
fn the_agreement_serialises_with_its_table() {
    let json = serde_json::to_value(grade_agreement(&[(0, 1), (1, 1)], 1)).unwrap();
    assert_eq!(json["grades"], serde_json::json!([0, 1]));
    assert_eq!(json["table"], serde_json::json!([[0, 1], [0, 1]]));
    // B grades everything 1: the expected disagreement equals the observed one.
    assert_eq!(json["kappa"], serde_json::json!(0.0));
    let json = serde_json::to_value(grade_agreement(&[(1, 1)], 1)).unwrap();
    assert_eq!(json["kappa"], serde_json::Value::Null);
}

/// Grades from a small range, so that pairs often agree.
fn pairs() -> impl Strategy<Value = Vec<(Grade, Grade)>> {
    prop::collection::vec((-1i32..4, -1i32..4), 1..60)
}

proptest! {
    #![proptest_config(crate::base::fuzz::property_config(256))]
    #[test]
    fn an_assessor_agrees_perfectly_with_itself(grades in prop::collection::vec(-1i32..4, 1..60)) {
        let pairs: Vec<(Grade, Grade)> = grades.iter().map(|&grade| (grade, grade)).collect();
        let agreement = grade_agreement(&pairs, 1);
        let distinct = agreement.grades.len();
        for statistic in [
            agreement.kappa,
            agreement.kappa_linear,
            agreement.kappa_quadratic,
            agreement.alpha_ordinal,
            agreement.alpha_interval,
        ] {
            if distinct > 1 {
                prop_assert_eq!(statistic, Some(1.0));
            } else {
                prop_assert_eq!(statistic, None);
            }
        }
    }

    #[test]
    fn statistics_are_symmetric_and_bounded(pairs in pairs()) {
        let swapped: Vec<(Grade, Grade)> = pairs.iter().map(|&(a, b)| (b, a)).collect();
        let (forward, backward) = (grade_agreement(&pairs, 1), grade_agreement(&swapped, 1));
        let close = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (Some(x), Some(y)) => (x - y).abs() < 1e-12,
            (x, y) => x == y,
        };
        prop_assert!(close(forward.kappa, backward.kappa));
        prop_assert!(close(forward.kappa_quadratic, backward.kappa_quadratic));
        prop_assert!(close(forward.alpha_ordinal, backward.alpha_ordinal));
        prop_assert!(close(forward.alpha_interval, backward.alpha_interval));
        prop_assert_eq!(forward.relevant_share_a, backward.relevant_share_b);
        for kappa in [forward.kappa, forward.kappa_linear, forward.kappa_quadratic].into_iter().flatten() {
            prop_assert!((-1.0 - 1e-12..=1.0 + 1e-12).contains(&kappa), "kappa {}", kappa);
        }
        for alpha in [forward.alpha_ordinal, forward.alpha_interval].into_iter().flatten() {
            prop_assert!(alpha <= 1.0 + 1e-12, "alpha {}", alpha);
        }
        let total: usize = forward.table.iter().flatten().sum();
        prop_assert_eq!(total, pairs.len());
    }
}
