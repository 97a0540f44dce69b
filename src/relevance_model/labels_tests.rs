use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// Rows of two topics whose relevance follows `logit p = b + weight[label]` in the pool's
/// reach, with calibrated log-odds `b` spread over [-4, 1] and labels 0..=3 equally often.
fn rows_with(weight: [f64; 4], count: usize, seed: u64) -> Vec<LabelRow> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|index| {
            let base_log_odds = rng.random_range(-4.0..1.0);
            let label = rng.random_range(0..4);
            let p = sigmoid(base_log_odds + weight[label as usize]);
            LabelRow {
                topic: index % 2,
                document: index as DocId,
                base_log_odds,
                label,
                is_in_pool: true,
                is_relevant: rng.random::<f64>() < p,
            }
        })
        .collect()
}

#[test]
fn the_stage_recovers_the_weight_of_each_label_grade_within_its_sampling_error() {
    let weight = [0.0, 1.0, 2.0, 3.0];
    let stage =
        LabelCalibration::fit(&rows_with(weight, 20_000, 7), 2, BeyondPool::NonRelevant).unwrap();
    assert_eq!(stage.grades, vec![0, 1, 2, 3]);
    // About 5,000 rows a grade, a few hundred relevant among the lowest: a weight's standard
    // error is near 0.07, so 0.25 is more than three of them.
    for (grade, stated) in weight.iter().enumerate().skip(1) {
        let learnt = stage.in_pool_weights[grade] + stage.intercept;
        assert!(
            (learnt - stated).abs() < 0.25,
            "grade {grade}: learnt {learnt}, stated {stated}"
        );
    }
    assert!((stage.calibrated_weight - 1.0).abs() < 0.1);
    assert!(stage.intercept.abs() < 0.25);
    // Each grade's mean probability follows the relevant share of its rows.
    for summary in &stage.by_grade {
        let share = summary.relevant as f64 / summary.rows as f64;
        assert!((summary.probability - share).abs() < 0.02, "{summary:?}");
    }
}

#[test]
fn labels_that_carry_no_information_leave_the_calibrated_probability_as_it_was() {
    // Relevance follows the calibrated log-odds alone; the labels are drawn apart from it. At
    // level 0.01 the test finds such labels informative about once in a hundred draws: of 60
    // draws, at most 3 (a binomial tail of 0.003).
    let stages: Vec<LabelCalibration> = (0..60)
        .map(|seed| {
            let rows = rows_with([0.0; 4], 5_000, 100 + seed);
            LabelCalibration::fit(&rows, 2, BeyondPool::NonRelevant).unwrap()
        })
        .collect();
    let informative = (stages.iter()).filter(|stage| stage.information.is_informative);
    assert!(informative.count() <= 3);
    for stage in stages
        .iter()
        .filter(|stage| !stage.information.is_informative)
    {
        // Three label weights: every row is in the pool's reach.
        assert_eq!(stage.information.degrees_of_freedom, 3);
        for &label in &stage.grades {
            for base in [-4.0, -2.0, 0.0] {
                assert_eq!(stage.log_odds(0, base, label, true), base);
                assert_eq!(stage.log_odds(1, base, label, false), base);
            }
        }
        for summary in &stage.by_grade {
            assert_eq!(summary.probability, summary.probability_without_label);
        }
    }
}

#[test]
fn labels_that_follow_only_their_topics_relevant_share_carry_no_information() {
    // Twenty topics whose relevant shares differ by an effect the calibrated log-odds do not
    // know; each topic's labels are drawn apart from relevance, higher where the topic has
    // more relevant documents (labels shuffled within topics). Across topics the labels
    // predict relevance; within a topic they do not, and the test asks within topics.
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let rows: Vec<LabelRow> = (0..20_000)
        .map(|index| {
            let topic = index % 20;
            let effect = topic as f64 / 19.0 * 3.0 - 1.5;
            let base_log_odds = rng.random_range(-3.0..0.0);
            let label = (rng.random_range(0.0..1.5) + (effect + 1.5))
                .floor()
                .min(3.0) as Grade;
            LabelRow {
                topic,
                document: index as DocId,
                base_log_odds,
                label,
                is_in_pool: true,
                is_relevant: rng.random::<f64>() < sigmoid(base_log_odds + effect),
            }
        })
        .collect();
    let stage = LabelCalibration::fit(&rows, 20, BeyondPool::Extrapolated).unwrap();
    assert!(!stage.information.is_informative, "{:?}", stage.information);
    // The same labels, one topic's grade each, drawn from the document's relevance: informative.
    let informative: Vec<LabelRow> = (rows.iter())
        .map(|row| LabelRow {
            label: if row.is_relevant { 2 } else { row.label.min(1) },
            ..*row
        })
        .collect();
    let stage = LabelCalibration::fit(&informative, 20, BeyondPool::Extrapolated).unwrap();
    assert!(stage.information.is_informative, "{:?}", stage.information);
    assert!(stage.information.p_value < 1e-12);
}

#[test]
fn a_label_between_the_learnt_grades_takes_the_weights_of_the_grade_below() {
    let stage = LabelCalibration {
        grades: vec![0, 2],
        intercept: 0.0,
        calibrated_weight: 1.0,
        in_pool_weights: vec![0.0, 2.0],
        beyond_pool_weights: vec![0.0, -1.0],
        beyond_pool_shift: 0.0,
        is_split_by_reach: true,
        topic_offsets: vec![0.5],
        information: LabelInformation {
            likelihood_ratio: 10.0,
            documents: 100,
            degrees_of_freedom: 1,
            p_value: 0.0016,
            is_informative: true,
        },
        by_grade: Vec::new(),
        rows: 0,
        relevant_rows: 0,
    };
    assert_eq!(stage.log_odds(0, 1.0, 0, true), 1.5);
    assert_eq!(stage.log_odds(0, 1.0, 1, true), 1.5);
    assert_eq!(stage.log_odds(0, 1.0, 2, true), 3.5);
    assert_eq!(stage.log_odds(0, 1.0, 3, true), 3.5);
    assert_eq!(stage.log_odds(0, 1.0, -1, true), 1.5);
    assert_eq!(stage.log_odds(0, 1.0, 2, false), 0.5);
}

#[test]
fn labels_of_no_relevant_calibration_document_cannot_be_calibrated() {
    let rows: Vec<LabelRow> = rows_with([0.0; 4], 100, 3)
        .into_iter()
        .map(|row| LabelRow {
            is_relevant: false,
            ..row
        })
        .collect();
    let error = LabelCalibration::fit(&rows, 2, BeyondPool::NonRelevant)
        .unwrap_err()
        .to_string();
    assert!(error.contains("cannot be calibrated"), "{error}");
    assert!(LabelCalibration::fit(&[], 2, BeyondPool::Extrapolated).is_err());
}

#[test]
fn a_document_repeated_in_several_runs_rows_counts_once_in_the_test() {
    let once = rows_with([0.0, 0.1, 0.2, 0.3], 4_000, 17);
    let repeated: Vec<LabelRow> = (once.iter())
        .flat_map(|row| std::iter::repeat_n(*row, 5))
        .collect();
    let single = LabelCalibration::fit(&once, 2, BeyondPool::NonRelevant).unwrap();
    let five = LabelCalibration::fit(&repeated, 2, BeyondPool::NonRelevant).unwrap();
    assert_eq!(five.information.documents, 4_000);
    // The same evidence: the same ratio, up to the penalty weighing less against five times
    // the rows.
    let (a, b) = (single.information, five.information);
    assert!(
        (a.likelihood_ratio - b.likelihood_ratio).abs() < 0.05 * a.likelihood_ratio.max(1.0),
        "{a:?} against {b:?}"
    );
    assert_eq!(a.is_informative, b.is_informative);
}

#[test]
fn documents_beyond_the_reach_being_non_relevant_is_the_reachs_shift_not_the_labels_information() {
    // Half the rows beyond the pool's reach, never relevant there, whatever their (random)
    // label: the reach's own shift says so, and the labels carry nothing.
    let rows: Vec<LabelRow> = (rows_with([0.0; 4], 20_000, 23).into_iter())
        .enumerate()
        .map(|(index, row)| LabelRow {
            // Both topics (index % 2) have rows on both sides of the reach.
            is_in_pool: (index / 2) % 2 == 0,
            is_relevant: row.is_relevant && (index / 2) % 2 == 0,
            ..row
        })
        .collect();
    let stage = LabelCalibration::fit(&rows, 2, BeyondPool::NonRelevant).unwrap();
    assert!(!stage.information.is_informative, "{:?}", stage.information);
    assert_eq!(stage.information.degrees_of_freedom, 6);
    assert!(
        stage.beyond_pool_shift < -3.0,
        "{}",
        stage.beyond_pool_shift
    );
}
