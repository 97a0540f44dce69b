//! Tests of the calibration: its probabilities, topic corrections, run effects and the
//! extrapolating features.

use rustc_hash::FxHashSet;

use super::*;
use crate::base::DocumentGrades;
use crate::collection::Collection;
use crate::relevance_model::calibration_features::{run_precision_log_odds, PerFeature};
use crate::relevance_model::calibration_sample::Sample;
use crate::relevance_model::effects::{
    cell_effect_sd, conditional_log_odds, run_effect_sd, run_slope_sd, topic_offset,
    weighted_log_rank_center, EffectRow, RunCount, RunResiduals, SlopeScore,
};
use crate::relevance_model::model::TopicModel;
use crate::relevance_model::reach::{BestPooledRanks, BeyondPool, BEST_RANK_CAP};
use crate::relevance_model::trials::{Judgments, TrialJudgments};
use proptest::prelude::*;

#[test]
fn calibrated_probabilities_follow_the_fitted_log_odds() {
    let calibration = Calibration {
        fit: Fit {
            beyond_pool: BeyondPool::NonRelevant,
            intercept: -1.0,
            weights: PerFeature {
                raw_log_odds: 0.5,
                log_rank: -1.0,
                run_precision: 1.0,
                in_pool: 2.0,
                ..PerFeature::default()
            },
        },
        topic_offsets: vec![0.0, -1.0],
        topic_sd: vec![0.5, 0.5],
        run_sd: 0.0,
        run_log_rank_sd: 0.0,
        run_topic_sd: 0.0,
        log_rank_center: 0.0,
        replicates: Vec::new(),
        replicate_run_sd: Vec::new(),
        replicate_run_log_rank_sd: Vec::new(),
        grade_factors: Vec::new(),
        below_level_shift: None,
        sample_size: 10,
        sample_relevant: 1,
        unlabelled: 0,
        labels: None,
    };
    let probability = |topic: usize, raw: f64, rank: usize, run_precision: f64, is_in_pool| {
        calibration.probability(
            topic,
            &DocumentFeatures {
                raw,
                rank,
                run_precision,
                is_in_pool,
                best_pooled_rank: BEST_RANK_CAP,
                label: None,
            },
        )
    };
    // raw 0.5 (log-odds 0) at rank 1 (ln 1 = 0), precision 1/2 (log-odds 0), out of the
    // pool: sigmoid(-1).
    let even = run_precision_log_odds(1, 2);
    assert!(even.abs() < 1e-12, "(1 + 0.5) / (2 + 1) is not 1/2: {even}");
    let expected = 1.0 / (1.0 + 1f64.exp());
    assert!((probability(0, 0.5, 1, even, false) - expected).abs() < 1e-12);
    // Deeper is less probable with a negative rank weight, a better run more probable.
    assert!(probability(0, 0.5, 50, 0.0, false) < probability(0, 0.5, 2, 0.0, false));
    assert!(probability(0, 0.5, 2, 1.0, false) > probability(0, 0.5, 2, 0.0, false));
    assert!(probability(0, 0.5, 2, 0.0, true) > probability(0, 0.5, 2, 0.0, false));
    // The second topic's correction takes 1 off the log-odds: sigmoid(-2).
    let corrected = 1.0 / (1.0 + 2f64.exp());
    assert!((probability(1, 0.5, 1, even, false) - corrected).abs() < 1e-12);
    // Raw probabilities of 0 and 1 stay finite.
    assert!(probability(0, 0.0, 1, 0.0, false) > 0.0);
    assert!(probability(0, 1.0, 1, 0.0, true) < 1.0);
}

#[test]
fn a_topic_correction_moves_the_expected_count_toward_the_observed_one() {
    // As many relevant as expected: no correction.
    assert!(topic_offset(3, 3.0).abs() < 1e-12);
    // None found where 4 were expected: (0 + 1) / (4 + 1).
    assert!((topic_offset(0, 4.0) - (0.2f64).ln()).abs() < 1e-12);
    // More found than expected raises the probabilities; few rows change little.
    assert!(topic_offset(9, 4.0) > 0.0);
    assert!(topic_offset(0, 0.1).abs() < 0.1);
}

#[test]
fn extrapolation_weighs_the_best_pooled_rank_and_not_the_pool_flag() {
    let calibration = Calibration {
        fit: Fit {
            beyond_pool: BeyondPool::Extrapolated,
            intercept: 0.0,
            weights: PerFeature {
                best_pooled_rank: -1.0,
                ..PerFeature::default()
            },
        },
        topic_offsets: vec![0.0],
        topic_sd: vec![0.0],
        run_sd: 0.0,
        run_log_rank_sd: 0.0,
        run_topic_sd: 0.0,
        log_rank_center: 0.0,
        replicates: vec![Fit {
            beyond_pool: BeyondPool::Extrapolated,
            intercept: 1.0,
            weights: PerFeature {
                best_pooled_rank: -1.0,
                ..PerFeature::default()
            },
        }],
        replicate_run_sd: vec![0.5],
        replicate_run_log_rank_sd: vec![0.25],
        grade_factors: Vec::new(),
        below_level_shift: None,
        sample_size: 0,
        sample_relevant: 0,
        unlabelled: 0,
        labels: None,
    };
    let at = |best_pooled_rank: usize, is_in_pool: bool| {
        calibration.log_odds(
            0,
            &DocumentFeatures {
                raw: 0.5,
                rank: 3,
                run_precision: 0.0,
                is_in_pool,
                best_pooled_rank,
                label: None,
            },
        )
    };
    assert!((at(20, false) + 20f64.ln()).abs() < 1e-12);
    assert_eq!(at(20, false), at(20, true));
    // Capped: a document no other pooled run retrieved counts as at the cap.
    assert_eq!(at(BEST_RANK_CAP * 5, false), at(BEST_RANK_CAP, false));
    // A bootstrap replicate carries its own intercept and weights; past the last replicate
    // the point fit answers.
    let document = DocumentFeatures {
        raw: 0.5,
        rank: 3,
        run_precision: 0.0,
        is_in_pool: false,
        best_pooled_rank: 20,
        label: None,
    };
    assert_eq!(calibration.run_effect_sds(0), (0.5, 0.25));
    assert_eq!(calibration.run_effect_sds(7), (0.5, 0.25));
    let replicate = calibration.replicate_log_odds(0, &document, 0);
    assert!((replicate - (1.0 - 20f64.ln())).abs() < 1e-12);
    assert_eq!(
        calibration.replicate_log_odds(0, &document, 1),
        at(20, false)
    );
}

fn counts(rows: &[(usize, f64, f64)]) -> Vec<RunCount> {
    rows.iter()
        .map(|&(observed, expected, variance)| RunCount {
            observed,
            expected,
            variance,
        })
        .collect()
}

#[test]
fn run_effects_count_only_the_spread_beyond_counting_noise() {
    // Every run as expected: no run effect.
    assert_eq!(
        run_effect_sd(&counts(&[(4, 4.0, 3.0), (9, 9.0, 8.0), (0, 0.0, 0.0)])),
        0.0
    );
    // Runs far from their expectation in both directions: a clear effect.
    let sd = run_effect_sd(&counts(&[
        (0, 20.0, 16.0),
        (40, 20.0, 16.0),
        (1, 20.0, 16.0),
        (39, 20.0, 16.0),
    ]));
    assert!(sd > 1.0, "{sd}");
    assert_eq!(run_effect_sd(&[]), 0.0);
}

#[test]
fn run_effects_subtract_the_binomial_noise_not_the_poisson_one() {
    // Two runs of 50 rows at p = 0.8 (expected 40, variance 8) that stray by 6 each way: a
    // spread that binomial noise (8 / 41²) does not explain, but a Poisson count's (40 / 41²)
    // would.
    let strays = counts(&[(46, 40.0, 8.0), (34, 40.0, 8.0)]);
    let spread = strays
        .iter()
        .map(|c| topic_offset(c.observed, c.expected).powi(2))
        .sum::<f64>()
        / 2.0;
    let binomial = (spread - 8.0 / 41f64.powi(2)).sqrt();
    assert!((run_effect_sd(&strays) - binomial).abs() < 1e-12);
    assert!(
        spread < 40.0 / 41f64.powi(2),
        "a Poisson count would hide it"
    );
    assert!(run_effect_sd(&strays) > 0.1);
}

/// Residuals of `runs` runs of 60 rows at ranks 1 to 60, drawn relevant with log-odds
/// −1 + slope · (ln rank − ln 8), each run's slope `slope` or `−slope` in turn, against a fit
/// that knows no slope (log-odds −1 everywhere).
fn tilted_runs(runs: usize, slope: f64) -> Vec<RunResiduals> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    (0..runs)
        .map(|run| {
            let own = if run % 2 == 0 { slope } else { -slope };
            let mut residuals = RunResiduals::default();
            for rank in 1..=60 {
                let log_rank = f64::from(rank).ln();
                residuals.add(sigmoid(-1.0), log_rank);
                if rng.random::<f64>() < sigmoid(-1.0 + own * (log_rank - 8f64.ln())) {
                    residuals.observe(log_rank);
                }
            }
            residuals
        })
        .collect()
}

#[test]
fn run_slopes_are_found_where_runs_tilt_and_not_where_they_do_not() {
    let slope_sd = |runs: &[RunResiduals]| {
        run_slope_sd(
            &runs
                .iter()
                .map(RunResiduals::slope_score)
                .collect::<Vec<_>>(),
        )
    };
    let tilted = slope_sd(&tilted_runs(400, 1.0));
    assert!((tilted - 1.0).abs() < 0.25, "{tilted}");
    let flat = slope_sd(&tilted_runs(400, 0.0));
    assert!(flat < 0.15, "{flat}");
    // A run's slope is measured about its own centre: a run that is more relevant than the
    // fit says at every depth (every other row relevant where 0.2 is expected) has a run
    // effect, and a slope score within one standard deviation of counting noise.
    let mut shifted = RunResiduals::default();
    for rank in 1..=60 {
        shifted.add(0.2, f64::from(rank).ln());
        if rank % 2 == 0 {
            shifted.observe(f64::from(rank).ln());
        }
    }
    let score = shifted.slope_score();
    assert!(score.score.abs() < score.variance.sqrt(), "{score:?}");
    assert_eq!(
        run_slope_sd(&[SlopeScore {
            score: 0.0,
            variance: 0.0
        }]),
        0.0
    );
}

#[test]
fn the_slope_centre_is_the_variance_weighted_mean_log_rank() {
    let mut near = RunResiduals::default();
    near.add(0.5, 1.0);
    let mut far = RunResiduals::default();
    far.add(0.1, 3.0);
    // Weights 0.25 and 0.09.
    let centre = weighted_log_rank_center(&[near, far]);
    assert!((centre - (0.25 + 0.27) / 0.34).abs() < 1e-12);
}

#[test]
fn cells_count_only_the_spread_beyond_the_run_effect() {
    // Every cell as expected: no cell effect.
    let quiet = counts(&[(2, 2.0, 1.5), (5, 5.0, 4.0), (0, 0.0, 0.0)]);
    assert_eq!(cell_effect_sd(&quiet, 0.0), 0.0);
    // Cells that stray by 4 where counting noise gives a variance of 4: (16 − 4) / 16 = 0.75
    // of total variance, of which a run effect of 0.5 takes 0.25.
    let strays = counts(&[(14, 10.0, 4.0), (6, 10.0, 4.0)]);
    assert!((cell_effect_sd(&strays, 0.0) - 0.75f64.sqrt()).abs() < 1e-12);
    assert!((cell_effect_sd(&strays, 0.5) - 0.5f64.sqrt()).abs() < 1e-12);
    assert_eq!(cell_effect_sd(&strays, 1.0), 0.0);
    assert_eq!(cell_effect_sd(&[], 0.0), 0.0);
}

/// Calibration rows of 4 runs on 3 topics, 30 ranks each, relevant by a fixed pattern that
/// differs between runs and topics, against a fit of log-odds −1 − 0.3 ln(rank), each row
/// counted `copies(run)` times.
fn effect_rows(copies: impl Fn(usize) -> usize) -> Vec<EffectRow> {
    let mut rows = Vec::new();
    for run in 0..4 {
        for topic in 0..3 {
            for rank in 1..=30_usize {
                let log_rank = (rank as f64).ln();
                let log_odds = -1.0 - 0.3 * log_rank;
                rows.push(EffectRow {
                    topic,
                    run,
                    log_rank,
                    log_odds,
                    probability: sigmoid(log_odds),
                    is_relevant: rank % [2, 13, 3, 30, 5, 2, 17, 4, 30, 3, 7, 2][run * 3 + topic]
                        == 0,
                    copies: copies(run),
                });
            }
        }
    }
    rows
}

#[test]
fn a_replicate_measures_its_effects_on_the_teams_it_drew() {
    let point = sample_effects(&effect_rows(|_| 1), 3, 4);
    assert!(point.run_sd > 0.0 && point.run_topic_sd > 0.0, "{point:?}");
    // A team drawn twice counts as two copies of its runs.
    let doubled = sample_effects(&effect_rows(|run| 1 + usize::from(run == 0)), 3, 5);
    let mut copied = effect_rows(|_| 1);
    let first_run = effect_rows(|_| 1).into_iter().filter(|row| row.run == 0);
    copied.extend(first_run.map(|row| EffectRow { run: 4, ..row }));
    let copied = sample_effects(&copied, 3, 5);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(
        close(doubled.run_sd, copied.run_sd),
        "{doubled:?} {copied:?}"
    );
    assert!(close(doubled.run_log_rank_sd, copied.run_log_rank_sd));
    assert!(close(doubled.run_topic_sd, copied.run_topic_sd));
    assert!(close(doubled.log_rank_center, copied.log_rank_center));
    assert_eq!(doubled.topic_relevant, copied.topic_relevant);
    assert!((doubled.topic_offsets.iter().zip(&copied.topic_offsets)).all(|(&a, &b)| close(a, b)));
    assert!(!close(doubled.run_sd, point.run_sd));
    // A run whose team was not drawn counts for nothing.
    let without_last = sample_effects(&effect_rows(|run| usize::from(run < 3)), 3, 4);
    let three_runs: Vec<EffectRow> = (effect_rows(|_| 1).into_iter())
        .filter(|row| row.run < 3)
        .collect();
    assert_eq!(without_last, sample_effects(&three_runs, 3, 4));
    assert_ne!(without_last, point);
}

/// The calibration sample of the hand-made task's `collection` when team C is audited against
/// `world` and A's and B's trials judged nothing, so that every document of their runs' tops is
/// a row.
fn sample_on_trials(collection: &Collection, world: &Judgments) -> Sample {
    let models: Vec<TopicModel> = (collection.topics.iter().zip(world))
        .map(|(topic, grades)| {
            crate::relevance_model::model::fit_topic(
                collection,
                topic,
                grades,
                &FxHashSet::default(),
            )
            .unwrap()
        })
        .collect();
    let best_ranks = BestPooledRanks::every_topic(collection);
    let nothing_judged = vec![DocumentGrades::default(); collection.topics.len()];
    let trials: TrialJudgments = ["A", "B"]
        .map(|team| (team.to_string(), vec![nothing_judged.clone()]))
        .into();
    let input = CalibrationInput {
        collection,
        grades: world,
        models: &models,
        pool_depth: 2,
        audited_teams: &["C".to_string()],
        beyond_pool: BeyondPool::NonRelevant,
        best_ranks: &best_ranks,
        labels: None,
    };
    crate::relevance_model::calibration_sample::collect_sample(&input, TeamAbsence::Trials(&trials))
}

#[test]
fn trial_rows_take_the_assessors_grades_whatever_the_scored_world_judged() {
    let dir = tempfile::tempdir().unwrap();
    let task = crate::io::fixture::hand_task(dir.path(), false);
    let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
    let official: Judgments = collection.topics.iter().map(|t| t.grades.clone()).collect();
    // The audited team's world never judged ua (relevant, in a1's top only).
    let topic = collection.topic_index("1").unwrap();
    let ua = collection.docs.get("ua").unwrap();
    let mut world = official.clone();
    world[topic].remove(&ua);
    // The same collection whose own grades, the trials' assessor's, lack ua too.
    let mut blind = Collection::prepare(&task, &task.qrels, false).unwrap();
    blind.topics[topic].grades.remove(&ua);
    let labelled_by_official = sample_on_trials(&collection, &world);
    let labelled_by_world = sample_on_trials(&blind, &world);
    let rows = |sample: &Sample| sample.positives.len() + sample.negatives.len();
    assert_eq!(rows(&labelled_by_official), rows(&labelled_by_world));
    assert_eq!(
        labelled_by_official.positives.len(),
        labelled_by_world.positives.len() + 1,
        "ua is a relevant row only by the assessor's grades"
    );
    assert!(!labelled_by_world.positives.is_empty());
}

/// The mean of sigmoid(log_odds + u) for u normal with variance `variance`, by the trapezoid
/// rule over ±10 standard deviations.
fn mean_over_normal(log_odds: f64, variance: f64) -> f64 {
    let sd = variance.sqrt();
    let steps = 4_000;
    let width = 20.0 * sd / steps as f64;
    (0..=steps)
        .map(|step| {
            let z = -10.0 + 20.0 * step as f64 / steps as f64;
            let weight = if step == 0 || step == steps { 0.5 } else { 1.0 };
            let density = (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
            weight * density * sigmoid(log_odds + sd * z) * width / sd
        })
        .sum()
}

proptest! {
    #![proptest_config(crate::base::fuzz::property_config(256))]
    #[test]
    fn conditional_log_odds_keep_the_mean_probability(
        marginal in -12.0f64..12.0,
        sd in 0.05f64..1.0,
    ) {
        let variance = sd * sd;
        let p = sigmoid(marginal);
        let tail = p.min(1.0 - p);
        let kept = mean_over_normal(conditional_log_odds(marginal, variance), variance);
        prop_assert!((kept - p).abs() <= 0.06 * tail, "{kept} against {p}");
        // Without the correction, the spread moves the mean of a small probability up.
        if marginal < -4.0 && sd > 0.5 {
            prop_assert!(mean_over_normal(marginal, variance) > 1.1 * p);
        }
    }
}
