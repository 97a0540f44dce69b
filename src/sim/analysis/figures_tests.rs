//! The study's paired statistics on a hand-made result set, every answer worked out here.
//!
//! Five runs: a1 and a2 of team A (the only team held out), b1, c1, and d1 (never held out).
//! One measure; two seeds, each with a control and a trial holding A out:
//!
//! | run | official | control s1 | A out s1 | control s2 | A out s2 |
//! |---|---|---|---|---|---|
//! | a1 | .7 (1) | .7 (1) | .25 (3) | .8 (1) | .25 (4) |
//! | a2 | .5 (2) | .5 (2) | .45 (1) | .5 (2) | .45 (1) |
//! | b1 | .4 (3) | .2 (4) | .2 (4) | .4 (3) | .4 (2) |
//! | c1 | .3 (4) | .3 (3) | .3 (2) | .3 (4) | .3 (3) |
//! | d1 | .1 (5) | .1 (5) | .1 (5) | .1 (5) | .1 (5) |
//!
//! Kendall's tau over 5 runs without ties is (10 - 2 x discordant pairs) / 10.

use approx::assert_abs_diff_eq;

use super::*;
use crate::collection::Collection;
use crate::io::fixture::hand_task;
use crate::sim::agreement::Agreement;
use crate::sim::analysis::significance::SignificanceBasis;
use crate::sim::scoring::ScoreTable;
use crate::sim::trials::{Trial, TrialOutcome};

/// A table of one measure from per-topic values (`None`: the run has no ranking for the
/// topic); the summary is the mean over the topics a run has.
fn table(per_topic: &[&[Option<f64>]]) -> ScoreTable {
    let summary = per_topic
        .iter()
        .map(|topics| {
            let present: Vec<f64> = topics.iter().flatten().copied().collect();
            vec![present.iter().sum::<f64>() / present.len() as f64]
        })
        .collect();
    let per_topic = per_topic
        .iter()
        .map(|topics| topics.iter().map(|value| value.map(|v| vec![v])).collect())
        .collect();
    ScoreTable { summary, per_topic }
}

/// A table with one topic per run: its summary.
fn summaries(scores: [f64; 5]) -> ScoreTable {
    table(&scores.map(|score| [Some(score)]).each_ref().map(|s| &s[..]))
}

fn trial(seed: u64, held_out: Option<&str>, scores: [f64; 5]) -> TrialOutcome {
    TrialOutcome {
        trial: Trial {
            seed,
            held_out: held_out.map(str::to_string),
            excluded_runs: vec![held_out.is_some(), held_out.is_some(), false, false, false],
        },
        scores: summaries(scores),
        judgings: None,
        agreement: Agreement {
            carried: 0,
            overlap: 1.0,
            recall: 1.0,
            overlap_found: 1.0,
            recall_found: 1.0,
        },
        withheld: 0,
        assessor_recall: None,
    }
}

/// The official table: three topics, a2 unranked on the second, so a pair of runs shares
/// only the first and the third.
fn official() -> ScoreTable {
    table(&[
        &[Some(0.9), Some(0.5), Some(0.7)],
        &[Some(0.7), None, Some(0.3)],
        &[Some(0.4), Some(0.4), Some(0.4)],
        &[Some(0.3), Some(0.3), Some(0.3)],
        &[Some(0.1), Some(0.1), Some(0.1)],
    ])
}

fn outcome(collection: &Collection) -> StudyOutcome<'_> {
    let tags: Vec<&str> = collection.runs.iter().map(|r| r.tag.as_str()).collect();
    assert_eq!(tags, ["a1", "a2", "b1", "c1", "d1"]);
    StudyOutcome {
        collection,
        held_out_teams: vec!["A".to_string()],
        official: official(),
        truth: None,
        classic_lou: official(),
        trials: vec![
            trial(1, None, [0.7, 0.5, 0.2, 0.3, 0.1]),
            trial(1, Some("A"), [0.25, 0.45, 0.2, 0.3, 0.1]),
            trial(2, None, [0.8, 0.5, 0.4, 0.3, 0.1]),
            trial(2, Some("A"), [0.25, 0.45, 0.4, 0.3, 0.1]),
        ],
        units: 0,
        distinct_units: 0,
        retrains: 0,
        pools_over_budget: 0,
        budget: Vec::new(),
        unofficial_judgments: 0,
        sources: Default::default(),
        assessor: None,
        strategies: Vec::new(),
    }
}

/// The study's default significance settings on `outcome`'s one measure.
fn basis(outcome: &StudyOutcome) -> SignificanceBasis {
    let settings = crate::sim::settings::default_significance();
    SignificanceBasis::new(outcome, &["map".to_string()], settings)
}

fn with_figures(check: impl FnOnce(&MeasureFigures<'_>)) {
    let dir = tempfile::tempdir().unwrap();
    let task = hand_task(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let outcome = outcome(&collection);
    let basis = basis(&outcome);
    check(&MeasureFigures::new(&outcome, 0, "map", &basis));
}

#[test]
fn the_paired_tau_compares_a_trial_with_its_own_seeds_control() {
    with_figures(|figures| {
        let rows = figures.trial_rows();
        let held_out: Vec<&TrialRow> = rows.iter().filter(|r| r.held_out.is_some()).collect();
        // Seed 1: against its control (a1 a2 c1 b1 d1) the trial (a2 c1 a1 b1 d1) swaps
        // (a1, a2) and (a1, c1); against the official order it also swaps (b1, c1).
        assert_abs_diff_eq!(held_out[0].paired_tau_b.unwrap(), 0.6, epsilon = 1e-12);
        assert_abs_diff_eq!(held_out[0].tau_b.unwrap(), 0.4, epsilon = 1e-12);
        // Seed 2: its control is in the official order; a1 falls below a2, b1 and c1.
        assert_abs_diff_eq!(held_out[1].paired_tau_b.unwrap(), 0.4, epsilon = 1e-12);
        assert_abs_diff_eq!(held_out[1].tau_b.unwrap(), 0.4, epsilon = 1e-12);
        let controls: Vec<&TrialRow> = rows.iter().filter(|r| r.held_out.is_none()).collect();
        assert!(controls.iter().all(|r| r.paired_tau_b.is_none()));
        // Seed 1's control swaps (b1, c1) against the official order.
        assert_abs_diff_eq!(controls[0].tau_b.unwrap(), 0.8, epsilon = 1e-12);
    });
}

#[test]
fn a_held_out_run_that_drops_has_a_positive_rank_change_and_a_negative_score_change() {
    with_figures(|figures| {
        let rows = figures.held_out_rows();
        let changes: Vec<(u64, &str, f64, f64)> = rows
            .iter()
            .map(|r| {
                (
                    r.seed,
                    r.run.as_str(),
                    r.paired_rank_change(),
                    r.paired_score_change(),
                )
            })
            .collect();
        let expected = [
            (1, "a1", 3.0 - 1.0, 0.25 - 0.7),
            (1, "a2", 1.0 - 2.0, 0.45 - 0.5),
            (2, "a1", 4.0 - 1.0, 0.25 - 0.8),
            (2, "a2", 1.0 - 2.0, 0.45 - 0.5),
        ];
        assert_eq!(changes.len(), expected.len());
        for (got, want) in changes.iter().zip(&expected) {
            assert_eq!((got.0, got.1, got.2), (want.0, want.1, want.2));
            assert_abs_diff_eq!(got.3, want.3, epsilon = 1e-12);
        }
        let summary = figures.summary(&figures.trial_rows(), &rows);
        let rank = summary.paired.rank_change.unwrap();
        assert_eq!((rank.mean, rank.min, rank.max), (0.75, -1.0, 3.0));
        let score = summary.paired.score_change.unwrap();
        assert_abs_diff_eq!(
            score.mean,
            (-0.45 - 0.05 - 0.55 - 0.05) / 4.0,
            epsilon = 1e-12
        );
        assert_abs_diff_eq!(score.min, -0.55, epsilon = 1e-12);
        assert_abs_diff_eq!(score.max, -0.05, epsilon = 1e-12);
        let tau = summary.paired.tau_b.unwrap();
        assert_abs_diff_eq!(tau.mean, 0.5, epsilon = 1e-12);
        assert_abs_diff_eq!(tau.min, 0.4, epsilon = 1e-12);
        assert_abs_diff_eq!(tau.max, 0.6, epsilon = 1e-12);
    });
}

#[test]
fn swapped_pairs_test_the_official_scores_of_every_topic() {
    with_figures(|figures| {
        // LOU means: a1 .25, a2 .45, b1 .3, c1 .3, d1 .1: a1 falls below a2, b1 and c1.
        let pairs = figures.swapped_pairs();
        let names: Vec<(&str, &str)> = pairs
            .iter()
            .map(|p| (p.better.as_str(), p.worse.as_str()))
            .collect();
        assert_eq!(names, [("a1", "a2"), ("a1", "b1"), ("a1", "c1")]);
        let pair = &pairs[0];
        assert_abs_diff_eq!(pair.official[0], 0.7, epsilon = 1e-12);
        assert_abs_diff_eq!(pair.official[1], 0.5, epsilon = 1e-12);
        assert_abs_diff_eq!(pair.lou_mean[0], 0.25, epsilon = 1e-12);
        assert_abs_diff_eq!(pair.lou_mean[1], 0.45, epsilon = 1e-12);
        // a2 lacks topic 2, which scores 0 (trec_eval's -c rule): differences .2, .5 and .4,
        // mean 11/30, sample variance 7/300; t with 2 degrees of freedom has the two-sided
        // tail 1 - |t| / sqrt(2 + t^2).
        let t: f64 = (11.0 / 30.0) / (7.0f64 / 300.0 / 3.0).sqrt();
        let expected_p = 1.0 - t / (2.0 + t * t).sqrt();
        assert_abs_diff_eq!(pair.p_value.unwrap(), expected_p, epsilon = 1e-9);
        // Holm over the 10 pairs of 5 runs: never below the raw p-value.
        assert!(pair.adjusted_p_value.unwrap() >= pair.p_value.unwrap());
        assert!(!pair.significant);
    });
}

#[test]
fn the_trials_significant_pairs_are_classified_against_each_reference() {
    // Two topics a trial could test: every trial of the fixture has one topic, so give the
    // trials three by repeating their summaries with small changes.
    let dir = tempfile::tempdir().unwrap();
    let task = hand_task(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let mut outcome = outcome(&collection);
    for trial in &mut outcome.trials {
        let scores: Vec<f64> = trial.scores.summary.iter().map(|s| s[0]).collect();
        let topics: Vec<Vec<Option<f64>>> = scores
            .iter()
            .enumerate()
            .map(|(run, &score)| {
                let spread = 0.01 * (run as f64 + 1.0);
                vec![
                    Some(score),
                    Some(score + spread),
                    Some(score - spread / 2.0),
                ]
            })
            .collect();
        let slices: Vec<&[Option<f64>]> = topics.iter().map(Vec::as_slice).collect();
        trial.scores = table(&slices);
    }
    let basis = basis(&outcome);
    let figures = MeasureFigures::new(&outcome, 0, "map", &basis);
    let rows = figures.trial_rows();
    for (index, row) in rows.iter().enumerate() {
        let changes = figures.trial_changes(index);
        let official = changes.official.unwrap();
        // The four counts are the pairs significant on either side.
        let reference = crate::sim::analysis::significance::significant(
            &basis.references[0].official_directions,
        );
        assert_eq!(official.reference_significant(), reference.unwrap());
        assert_eq!(row.official.kept, Some(official.kept));
        assert_eq!(row.official.reversed, Some(official.reversed));
        assert_eq!(
            official.kept + official.reversed + official.new,
            row.significant.unwrap()
        );
        // Only the held-out trials are paired with their control.
        assert_eq!(row.paired.kept.is_some(), row.held_out.is_some());
        // No truth and no assessor in this study.
        assert_eq!((row.truth.kept, row.assessor), (None, None));
    }
    // The summary adds up the held-out trials' rows.
    let summary = figures.significance_summary();
    let paired = summary.paired.unwrap();
    let kept: usize = rows.iter().filter_map(|r| r.paired.kept).sum();
    let reversed: usize = rows.iter().filter_map(|r| r.paired.reversed).sum();
    assert_eq!((paired.kept, paired.reversed), (kept, reversed));
    assert_eq!(summary.pairs, 10);
}

#[test]
fn the_dominant_rank_over_trials_reads_each_runs_own_rows() {
    // Three trials of two runs, trial by trial: run 0 ranks 1, 2, 1 and run 1 ranks 2, 1, 2.
    let rows: Vec<RankRow> = [(1.0, 2.0), (2.0, 1.0), (1.0, 2.0)]
        .into_iter()
        .enumerate()
        .flat_map(|(trial, (first, second))| {
            [("r0", first), ("r1", second)].map(|(run, rank)| RankRow {
                seed: trial as u64 + 1,
                held_out: None,
                run: run.to_string(),
                team: run.to_string(),
                measure: "map".to_string(),
                score: 1.0 / rank,
                rank,
            })
        })
        .collect();
    assert_eq!(
        trials_dominant_ranks(&rows, 2),
        [(1.0, 2.0 / 3.0), (2.0, 2.0 / 3.0)]
    );
    with_figures(|figures| {
        // a1 ranks 1, 3, 1, 4 over the four trials; b1 4, 4, 3, 2.
        let over_trials = trials_dominant_ranks(&figures.rank_rows(), 5);
        assert_eq!(over_trials[0], (1.0, 0.5));
        assert_eq!(over_trials[2], (4.0, 0.5));
    });
}

#[test]
fn a_spread_of_figures_is_undefined_when_one_figure_is() {
    assert_eq!(spread_of_options([Some(0.5), None, Some(1.0)]), None);
    assert_eq!(spread_of_options([None]), None);
    let spread = spread_of_options([Some(0.5), Some(1.0)]).unwrap();
    assert_eq!((spread.mean, spread.min, spread.max), (0.75, 0.5, 1.0));
}

/// The hand-made study with an assessor whose rankings differ by seed: seed 1's ranks a1 b1
/// c1 a2 d1, seed 2's a2 b1 c1 d1 a1.
#[test]
fn each_trial_is_compared_with_its_own_seeds_assessor_ranking() {
    let dir = tempfile::tempdir().unwrap();
    let task = hand_task(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let reference = [
        (1, summaries([0.6, 0.2, 0.5, 0.4, 0.1])),
        (2, summaries([0.1, 0.5, 0.4, 0.3, 0.2])),
    ];
    let outcome = StudyOutcome {
        assessor: Some(crate::sim::trials::AssessorOutcome {
            name: "completed".into(),
            reference: reference.into_iter().collect(),
            grades: Default::default(),
        }),
        ..outcome(&collection)
    };
    let basis = basis(&outcome);
    let figures = MeasureFigures::new(&outcome, 0, "map", &basis);
    // Each trial's order written with its seed's assessor ranks; tau_b = (10 - 2 x the pairs
    // out of order) / 10.
    // Seed 1, control a1 a2 c1 b1 d1: 1 4 3 2 5, 3 pairs out of order.
    // Seed 1, A out a2 c1 a1 b1 d1: 4 3 1 2 5, 5 pairs.
    // Seed 2, control a1 a2 b1 c1 d1: 5 1 2 3 4, 4 pairs.
    // Seed 2, A out a2 b1 c1 a1 d1: 1 2 3 5 4, 1 pair.
    let rows = figures.trial_rows();
    let against: Vec<(u64, bool, f64)> = rows
        .iter()
        .map(|r| {
            (
                r.seed,
                r.held_out.is_some(),
                r.assessor_tau_b.unwrap().unwrap(),
            )
        })
        .collect();
    let expected = [
        (1, false, 0.4),
        (1, true, 0.0),
        (2, false, 0.2),
        (2, true, 0.8),
    ];
    assert_eq!(against.len(), expected.len());
    for (got, want) in against.iter().zip(expected) {
        assert_eq!((got.0, got.1), (want.0, want.1));
        assert_abs_diff_eq!(got.2, want.2, epsilon = 1e-12);
    }
    // The official order a1 a2 b1 c1 d1: 1 4 2 3 5 (2 pairs) against seed 1, 5 1 2 3 4
    // (4 pairs) against seed 2.
    let summary = figures.assessor_summary().unwrap();
    let official = summary.official_tau_b.unwrap();
    assert_abs_diff_eq!(official.min, 0.2, epsilon = 1e-12);
    assert_abs_diff_eq!(official.max, 0.6, epsilon = 1e-12);
    assert_abs_diff_eq!(summary.control_tau_b.unwrap().mean, 0.3, epsilon = 1e-12);
    assert_abs_diff_eq!(summary.trials_tau_b.unwrap().mean, 0.4, epsilon = 1e-12);
}
