//! The bars of the significance figure computed from hand-made rows of `budget.tsv` and
//! `strategies.tsv`: shares checked against hand-computed numbers.

use super::*;
use crate::sim::analysis::files::Counts;

fn pairs(kept: f64, lost: f64, reversed: f64, new: f64) -> Pairs {
    Pairs {
        kept,
        lost,
        reversed,
        new,
    }
}

fn assert_near(got: Pairs, expected: Pairs) {
    for (got, expected) in [
        (got.kept, expected.kept),
        (got.lost, expected.lost),
        (got.reversed, expected.reversed),
        (got.new, expected.new),
    ] {
        assert!((got - expected).abs() < 1e-12, "{got:?} != {expected:?}");
    }
}

/// A control's row of `budget.tsv` with the official counts `official` (kept, lost,
/// reversed, new; `None`: not tested) and the truth's `truth`.
fn control(
    fraction: f64,
    seed: u64,
    official: Option<[usize; 4]>,
    truth: Option<[usize; 4]>,
) -> BudgetRow {
    let counts = |counts: Option<[usize; 4]>| {
        Counts::from_array(counts.map_or([None; 4], |counts| counts.map(Some)))
    };
    BudgetRow {
        fraction,
        seed,
        measure: "map".into(),
        official: counts(official),
        truth: counts(truth),
        ..BudgetRow::default()
    }
}

/// A row of `strategies.tsv` with the official counts `official` and, with an assessor,
/// the assessor's `assessor` (`None` inside: not tested).
fn strategy(
    strategy: &str,
    fraction: f64,
    official: [f64; 4],
    assessor: Option<Option<[f64; 4]>>,
) -> StrategyRow {
    StrategyRow {
        strategy: strategy.into(),
        fraction,
        measure: "map".into(),
        control_tau_b: None,
        control_truth_tau_b: None,
        paired_tau_b: None,
        rank_change_mean: None,
        rank_change_max: None,
        control_recall: 0.5,
        control_recall_found: 0.5,
        unofficial_share: 0.0,
        judgments_per_topic: 10.0,
        official: Counts::from_array(official.map(Some)),
        hical: Counts::default(),
        truth: Counts::default(),
        control_assessor_tau_b: assessor.map(|_| None),
        control_assessor_recall: None,
        file_share: None,
        drawn_share: None,
        assessor: assessor
            .map(|counts| Counts::from_array(counts.map_or([None; 4], |counts| counts.map(Some)))),
    }
}

#[test]
fn shares_are_of_the_references_significant_pairs_kept_lost_and_reversed() {
    // 6 + 3 + 1 = 10 pairs significant under the reference; 2 under the control only.
    let shares = pairs(6.0, 3.0, 1.0, 2.0).shares().unwrap();
    assert_near(shares, pairs(0.6, 0.3, 0.1, 0.2));
    assert_eq!(pairs(6.0, 3.0, 1.0, 2.0).reference_pairs(), 10.0);
    // Without a significant pair under the reference there is no share, new pairs or not.
    assert_eq!(pairs(0.0, 0.0, 0.0, 4.0).shares(), None);
}

#[test]
fn the_budget_curves_bars_are_its_controls_counts_averaged_over_the_seeds_tested() {
    let mut held_out = control(0.5, 1, Some([100, 0, 0, 0]), None);
    held_out.held_out = Some("x".into());
    let mut other_measure = control(0.5, 1, Some([100, 0, 0, 0]), None);
    other_measure.measure = "P_10".into();
    let rows = [
        control(1.0, 1, Some([6, 0, 0, 0]), None),
        control(1.0, 2, None, None),
        control(0.5, 1, Some([4, 2, 0, 1]), None),
        control(0.5, 2, Some([2, 3, 1, 0]), None),
        held_out,
        other_measure,
    ];
    let bars = Bars::of(&[], &rows, "map");
    assert_eq!(bars.reference, Reference::Official, "no truth, no assessor");
    assert_eq!(bars.strategies, ["hical"]);
    assert_eq!(bars.fractions, [0.5, 1.0]);
    // At 0.5 the means are 3 kept, 2.5 lost, 0.5 reversed and 0.5 new, of 6 pairs.
    let half = bars.pairs[0][0].unwrap();
    assert_near(half, pairs(3.0, 2.5, 0.5, 0.5));
    assert_near(
        half.shares().unwrap(),
        pairs(0.5, 2.5 / 6.0, 0.5 / 6.0, 0.5 / 6.0),
    );
    // At 1 only seed 1 was tested.
    assert_near(bars.pairs[1][0].unwrap(), pairs(6.0, 0.0, 0.0, 0.0));
    assert_eq!(bars.reference_pairs(), Some((6.0, 6.0)));
}

#[test]
fn the_truth_is_the_reference_when_the_task_has_one() {
    let rows = [
        control(1.0, 1, Some([6, 0, 0, 0]), Some([3, 1, 2, 5])),
        control(1.0, 2, Some([6, 0, 0, 0]), Some([5, 1, 0, 3])),
    ];
    let bars = Bars::of(&[], &rows, "map");
    assert_eq!(bars.reference, Reference::Truth);
    assert_near(bars.pairs[0][0].unwrap(), pairs(4.0, 1.0, 1.0, 4.0));
    assert_near(
        bars.pairs[0][0].unwrap().shares().unwrap(),
        pairs(4.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0, 4.0 / 6.0),
    );
}

#[test]
fn strategies_bars_group_by_fraction_against_the_assessor_without_a_truth() {
    let assessor = |counts| Some(Some(counts));
    let rows = [
        strategy("hical", 1.0, [9.0; 4], assessor([8.0, 1.0, 1.0, 2.0])),
        strategy("hical", 0.5, [9.0; 4], assessor([5.0, 4.5, 0.5, 1.0])),
        strategy("depth", 0.5, [9.0; 4], Some(None)),
        strategy("depth", 1.0, [9.0; 4], assessor([7.0, 3.0, 0.0, 0.0])),
    ];
    let bars = Bars::of(&rows, &[control(1.0, 1, Some([1; 4]), None)], "map");
    assert_eq!(bars.reference, Reference::Assessor);
    assert_eq!(bars.strategies, ["hical", "depth"]);
    assert_eq!(bars.fractions, [0.5, 1.0]);
    let shares: Vec<Vec<Option<Pairs>>> = (bars.pairs.iter())
        .map(|bars| bars.iter().map(|p| p.and_then(|p| p.shares())).collect())
        .collect();
    assert_near(shares[0][0].unwrap(), pairs(0.5, 0.45, 0.05, 0.1));
    assert_eq!(shares[0][1], None, "depth at 0.5 was not tested");
    assert_near(shares[1][0].unwrap(), pairs(0.8, 0.1, 0.1, 0.2));
    assert_near(shares[1][1].unwrap(), pairs(0.7, 0.3, 0.0, 0.0));
    // Bars side by side, an empty slot between fractions.
    assert_eq!(bars.slot_labels(), ["hical", "depth", "", "hical", "depth"]);
    assert_eq!((bars.slot(0, 1), bars.slot(1, 0)), (1.0, 3.0));
}

#[test]
fn without_an_assessor_or_a_truth_the_strategies_are_compared_with_the_official_qrels() {
    let rows = [strategy("mtf", 0.25, [2.0, 1.0, 1.0, 3.0], None)];
    let bars = Bars::of(&rows, &[], "map");
    assert_eq!(bars.reference, Reference::Official);
    assert_near(
        bars.pairs[0][0].unwrap().shares().unwrap(),
        pairs(0.5, 0.25, 0.25, 0.75),
    );
}

#[test]
fn a_mean_count_is_written_whole_or_to_one_decimal() {
    assert_eq!(count_label(3.0), "3");
    assert_eq!(count_label(2.5), "2.5");
    assert_eq!(count_label(1.0 / 3.0), "0.3");
}
