use super::*;
use crate::base::error::StatsError;
use crate::stats::comparison::{compare_pairs, MeasureScores, SignificanceTest, TestSettings};
use crate::stats::correction::Correction;
use proptest::prelude::*;

use Direction::{First, Neither, Second};

fn t_test(correction: Correction) -> TestSettings {
    TestSettings {
        test: SignificanceTest::Student,
        correction,
        alpha: 0.05,
        permutations: 1_000,
        seed: 1,
    }
}

/// The direction of every pair of runs of `scores`.
fn significant_directions(
    scores: MeasureScores,
    settings: &TestSettings,
) -> Result<Vec<Direction>, StatsError> {
    let pairs = all_pairs(scores.scores.len());
    Ok(directions(&compare_pairs(scores, &pairs, settings)?))
}

#[test]
fn pairs_are_listed_first_run_first() {
    assert_eq!(
        all_pairs(4),
        [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    );
    assert!(all_pairs(1).is_empty());
    for (index, (first, second)) in all_pairs(7).into_iter().enumerate() {
        assert_eq!(pair_index(7, first, second), index);
    }
}

#[test]
fn each_kind_of_change_is_counted_once() {
    let reference = [First, Second, Neither, First, Neither, Second];
    let other = [First, First, Second, Neither, Neither, Second];
    let changes = PairChanges::classify(&reference, &other, |_| true);
    assert_eq!(
        changes,
        PairChanges {
            kept: 2,
            lost: 1,
            reversed: 1,
            new: 1
        }
    );
    assert_eq!(changes.reference_significant(), 4);
    assert_eq!(changes.kept_share(), Some(0.5));
    assert_eq!(changes.reversed_share(), Some(0.25));
    // Only the pairs asked for: the reversal (index 1) and the new one (index 2).
    let some = PairChanges::classify(&reference, &other, |pair| pair == 1 || pair == 2);
    assert_eq!((some.kept, some.reversed, some.new), (0, 1, 1));
    assert_eq!(PairChanges::default().kept_share(), None);
}

/// Ten topics where run a beats run b by 0.1 or 0.2 (never by the same amount), and c is
/// far below both.
fn scores(a_better: bool) -> Vec<Vec<f64>> {
    let base: Vec<f64> = (0..10)
        .map(|topic| 0.3 + 0.05 * f64::from(topic % 4))
        .collect();
    let ahead: Vec<f64> = (0..10)
        .map(|topic| base[topic] + if topic % 2 == 0 { 0.1 } else { 0.2 })
        .collect();
    let (a, b) = if a_better {
        (ahead, base.clone())
    } else {
        (base.clone(), ahead)
    };
    let c = base.iter().map(|score| score - 0.25).collect();
    vec![a, b, c]
}

#[test]
fn a_significant_pair_whose_order_flips_is_reversed() {
    let runs: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    let directions = |a_better| {
        let scores = scores(a_better);
        let measure = MeasureScores {
            measure: "map",
            runs: &runs,
            scores: &scores,
        };
        significant_directions(measure, &t_test(Correction::Holm)).unwrap()
    };
    let (reference, trial) = (directions(true), directions(false));
    // Pairs (a, b), (a, c), (b, c): every one significant on both sides.
    assert_eq!(reference, [First, First, First]);
    assert_eq!(trial, [Second, First, First]);
    let changes = PairChanges::classify(&reference, &trial, |_| true);
    assert_eq!((changes.kept, changes.reversed), (2, 1));
}

#[test]
fn identical_runs_are_never_significant() {
    let runs: Vec<String> = ["a", "b"].map(String::from).to_vec();
    let scores = vec![vec![0.2, 0.4, 0.6], vec![0.2, 0.4, 0.6]];
    let measure = MeasureScores {
        measure: "map",
        runs: &runs,
        scores: &scores,
    };
    let directions = significant_directions(measure, &t_test(Correction::None)).unwrap();
    assert_eq!(directions, [Neither]);
}

fn direction() -> impl Strategy<Value = Direction> {
    prop_oneof![Just(Neither), Just(First), Just(Second)]
}

proptest! {
    #![proptest_config(crate::base::fuzz::property_config(256))]
    #[test]
    fn the_four_counts_are_the_pairs_significant_on_either_side(
        sides in prop::collection::vec((direction(), direction()), 0..60),
    ) {
        let (reference, other): (Vec<Direction>, Vec<Direction>) = sides.into_iter().unzip();
        let changes = PairChanges::classify(&reference, &other, |_| true);
        let union = reference
            .iter()
            .zip(&other)
            .filter(|(a, b)| a.is_significant() || b.is_significant())
            .count();
        prop_assert_eq!(changes.kept + changes.lost + changes.reversed + changes.new, union);
        let reference_count = reference.iter().filter(|d| d.is_significant()).count();
        prop_assert_eq!(changes.reference_significant(), reference_count);
        let other_count = other.iter().filter(|d| d.is_significant()).count();
        prop_assert_eq!(changes.kept + changes.reversed + changes.new, other_count);
    }
}
