//! Calibration of the judge model against the collection itself, by leaving each pooled team
//! out of the pool (classic leave-out-uniques).
//!
//! What the audit needs is the probability that an unjudged document of a new run's top is
//! relevant. A new run contributed nothing to the pool; the collection holds examples of that
//! situation, once per run of a pooled team: take run r's team out of the pool, and the documents of r's
//! top [`super::AUDIT_DEPTH`] that are then unjudged are the collection's unjudged documents
//! (presumed non-relevant, as the collection's scores presume them) and the judged documents
//! that only r's team put in the pool ([`UniqueRule::classic`]: its pooled runs' top
//! `pool_depth`; a backtest passes the rule of its world), whose grades are known.
//!
//! So the calibration sample has one row per run of a pooled team (the audited team's runs
//! aside) and such document, with four features: the model's out-of-fold log-odds
//! ([`super::model`]); the log of the document's rank in the run; the log-odds of the run's
//! *judged precision* (the relevant share, smoothed by half a document, of the judged
//! documents of its top that its team did not alone contribute: how good the run is where the
//! collection can tell); and whether the document is in the pool's reach (in the top
//! `pool_depth` of a pooled run: judging would have reached it), also as a second depth term
//! for such documents. A logistic regression on that sample (Platt scaling with depth,
//! run-quality and pool terms) maps them to a calibrated probability. The audited run's documents are in the pool's reach when the collection's
//! pooled runs, or the audited run itself, put them in their top `pool_depth`: a run counts as
//! pooled when the task pools it, and a run new to the task counts as pooled, since the audit
//! asks what the collection would say had it taken part. A collection whose teams' sole pool contributions are rarely
//! relevant gets probabilities near 0 for its unjudged documents; one where leaving a team out
//! of the pool loses many relevant documents gets high ones, highest in the tops of good runs.
//! A per-topic correction of the log-odds ([`topic_offset`]) then moves each topic toward the
//! rate its own rows showed.

use std::collections::BTreeSet;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use super::model::TopicModel;
use super::trials::TrialJudgments;
use crate::base::error::Result;
use crate::base::sparse::SparseVec;
use crate::base::{is_relevant, DocId, Grade};
use crate::collection::{Collection, TopicData, UniqueRule};
use crate::judge::logistic::{fit_logistic, LogisticModel};
use crate::judge::TrainingSet;

/// The L2 penalty of the calibration fit: two features and thousands of rows, so it only
/// keeps the fit finite when the sample separates perfectly.
pub const CALIBRATION_ALPHA: f64 = 1e-3;

/// The pseudo-count of a topic's correction: the relevant documents (observed and expected
/// alike) added to a topic's calibration rows before their ratio is taken, so that a topic with
/// few rows keeps nearly the collection-wide fit and one with many follows its own rate.
pub const TOPIC_PRIOR_RELEVANT: f64 = 1.0;

/// The raw probabilities are clamped to [`RAW_PROBABILITY_FLOOR`], 1 − that, before their
/// log-odds are taken.
pub const RAW_PROBABILITY_FLOOR: f64 = 1e-6;

/// How the model's raw probabilities map to calibrated ones.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    /// The intercept of the calibration fit.
    pub intercept: f64,
    /// The weight of the model's raw log-odds.
    pub log_odds_weight: f64,
    /// The weight of ln(rank).
    pub log_rank_weight: f64,
    /// The weight of the log-odds of the run's judged precision.
    pub run_precision_weight: f64,
    /// The weight of being in the pool's reach: in the top `pool_depth` of a pooled run.
    pub in_pool_weight: f64,
    /// The weight of ln(rank) for a document in the pool's reach, beside `log_rank_weight`:
    /// how fast relevance falls with depth differs between what pooling reached and the rest.
    pub in_pool_log_rank_weight: f64,
    /// Per topic (collection order), the log-odds added for the topic: how many relevant
    /// documents its own rows held against how many the fit expected there, each with
    /// [`TOPIC_PRIOR_RELEVANT`] added (see [`topic_offset`]).
    pub topic_offsets: Vec<f64>,
    /// Rows in the calibration sample (run, document).
    pub sample_size: usize,
    /// Of which judged relevant (unique relevant documents of the runs' teams).
    pub sample_relevant: usize,
}

/// The run-level feature of the calibration: the log-odds of a run's judged precision on a
/// topic, from its relevant and judged counts (smoothed by half a document).
pub fn run_precision_log_odds(relevant: usize, judged: usize) -> f64 {
    let precision = (relevant as f64 + 0.5) / (judged as f64 + 1.0);
    (precision / (1.0 - precision)).ln()
}

/// [`run_precision_log_odds`] of the documents of `top` (a run's top of a topic) that
/// `grade_of` finds judged.
pub fn judged_precision(
    top: &[DocId],
    relevance_level: Grade,
    grade_of: impl Fn(DocId) -> Option<Grade>,
) -> f64 {
    let (mut relevant, mut judged) = (0, 0);
    for &doc in top {
        if let Some(grade) = grade_of(doc) {
            judged += 1;
            relevant += usize::from(is_relevant(grade, relevance_level));
        }
    }
    run_precision_log_odds(relevant, judged)
}

impl Calibration {
    /// The calibrated probability of a document with raw model probability `raw` at 1-based
    /// `rank` in a run whose judged precision has log-odds `run_precision`; `is_in_pool` when
    /// the document is in the top `pool_depth` of a pooled run (the audited one included when
    /// it counts as pooled).
    pub fn probability(
        &self,
        topic: usize,
        raw: f64,
        rank: usize,
        run_precision: f64,
        is_in_pool: bool,
    ) -> f64 {
        let log_odds = self.topic_offsets[topic]
            + self.collection_log_odds(raw, rank, run_precision, is_in_pool);
        1.0 / (1.0 + (-log_odds).exp())
    }

    /// The log-odds of the collection-wide fit, before the topic's correction.
    fn collection_log_odds(
        &self,
        raw: f64,
        rank: usize,
        run_precision: f64,
        is_in_pool: bool,
    ) -> f64 {
        self.intercept
            + self.log_odds_weight * raw_log_odds(raw)
            + self.log_rank_weight * (rank as f64).ln()
            + self.run_precision_weight * run_precision
            + f64::from(u8::from(is_in_pool))
                * (self.in_pool_weight + self.in_pool_log_rank_weight * (rank as f64).ln())
    }
}

/// The log-odds correction of a topic whose calibration rows held `observed` relevant
/// documents where the collection-wide fit expected `expected`: the log of their ratio, each
/// with [`TOPIC_PRIOR_RELEVANT`] added. For the small probabilities of unjudged documents a
/// shift of the log-odds scales the probabilities by about that ratio, so the topic's expected
/// count moves toward its observed one; a topic where leaving a team out lost nothing gets
/// lower probabilities than the collection's average, one that lost much higher ones.
pub fn topic_offset(observed: usize, expected: f64) -> f64 {
    ((observed as f64 + TOPIC_PRIOR_RELEVANT) / (expected + TOPIC_PRIOR_RELEVANT)).ln()
}

fn raw_log_odds(raw: f64) -> f64 {
    let p = raw.clamp(RAW_PROBABILITY_FLOOR, 1.0 - RAW_PROBABILITY_FLOOR);
    (p / (1.0 - p)).ln()
}

/// The calibration features of a document.
fn features(raw: f64, rank: usize, run_precision: f64, is_in_pool: bool) -> SparseVec {
    let in_pool = f32::from(u8::from(is_in_pool));
    let log_rank = (rank as f64).ln() as f32;
    SparseVec::from_pairs(vec![
        (0, raw_log_odds(raw) as f32),
        (1, log_rank),
        (2, run_precision as f32),
        (3, in_pool),
        (4, in_pool * log_rank),
    ])
    .expect("distinct finite features")
}

/// The documents of `topic` in the top `pool_depth` (NIST's pooling order) of a pooled run
/// whose team is not `excluded_team`.
pub fn pooled_tops(
    collection: &Collection,
    topic: &TopicData,
    pool_depth: usize,
    excluded_team: &str,
) -> FxHashSet<DocId> {
    collection
        .runs
        .iter()
        .zip(&topic.pool_rankings)
        .filter(|(run, _)| run.is_pooled && run.team != excluded_team)
        .flat_map(|(_, ranking)| ranking.iter().take(pool_depth).copied())
        .collect()
}

/// Where the calibration learns what a team's absence leaves unjudged.
#[derive(Debug, Clone, Copy)]
pub enum LeaveOutEvidence<'a> {
    /// Each pooled team taken out: its unique documents under the rule become unjudged. With
    /// [`UniqueRule::classic`] (the audit's), the judged documents that only the team put in
    /// the pool, as in classic leave-out-uniques: what a pooled collection loses without a
    /// team. A backtest whose world removes another set takes that world's rule, so that the
    /// calibration learns the loss it is tested on.
    Pool(UniqueRule),
    /// Each team's leave-out trial judgments (team name to judgments per topic, collection
    /// topic order): what re-running the judging without the team left unjudged. This is what
    /// a collection judged by active learning loses without a team, where a document that only
    /// one team pooled may still be found, and a document no pool reached may be lost.
    Trials(&'a TrialJudgments),
}

/// Fits the calibration of `models` (one per topic of `collection`) on the leave-team-out
/// sample of the judgments `grades`, whose pool was taken to `pool_depth`, with the team's
/// absence read from `evidence`. The runs of `audited_team` stay out of the sample: their
/// documents are what the audit asks about.
///
/// # Errors
/// When the logistic fit fails.
pub fn calibrate(
    collection: &Collection,
    grades: &[FxHashMap<DocId, Grade>],
    models: &[TopicModel],
    pool_depth: usize,
    audited_team: &str,
    evidence: LeaveOutEvidence,
) -> Result<Calibration> {
    let level = collection.relevance_level;
    let pooled_teams: BTreeSet<&str> = collection
        .runs
        .iter()
        .filter(|run| run.is_pooled && run.team != audited_team)
        .map(|run| run.team.as_str())
        .collect();
    let mut positives = Vec::new();
    let mut negatives = Vec::new();
    // The topic of each row, in the order of `positives` and of `negatives`.
    let (mut positive_topics, mut negative_topics) = (Vec::new(), Vec::new());
    for (index, ((topic, topic_grades), model)) in
        collection.topics.iter().zip(grades).zip(models).enumerate()
    {
        let owners = match evidence {
            LeaveOutEvidence::Pool(rule) => Some(collection.sole_teams(topic, &rule)),
            LeaveOutEvidence::Trials(_) => None,
        };
        let in_pool = pooled_tops(collection, topic, pool_depth, audited_team);
        // Runs of teams without a pooled run have no contribution to take out: only rows of
        // the collection's own presumption, which would teach nothing about pooling.
        let pooled = collection
            .runs
            .iter()
            .zip(&topic.rankings)
            .filter(|(run, _)| pooled_teams.contains(run.team.as_str()));
        for (run, ranking) in pooled {
            let top = &ranking[..ranking.len().min(super::AUDIT_DEPTH)];
            let mut add_rows = |grade_without: &dyn Fn(DocId) -> Option<Grade>| {
                let run_precision = judged_precision(top, level, grade_without);
                for (pos, &doc) in top.iter().enumerate() {
                    if grade_without(doc).is_some() {
                        continue;
                    }
                    let raw = model.probabilities.get(&doc).copied().unwrap_or(0.0);
                    let row = features(raw, pos + 1, run_precision, in_pool.contains(&doc));
                    // Unjudged by the collection too: presumed non-relevant, as its scores
                    // presume.
                    match topic_grades.get(&doc) {
                        Some(&grade) if is_relevant(grade, level) => {
                            positives.push(row);
                            positive_topics.push(index);
                        }
                        _ => {
                            negatives.push(row);
                            negative_topics.push(index);
                        }
                    }
                }
            };
            // Each situation gives the grade of a document in the collection without the
            // run's team, if judged there.
            match evidence {
                LeaveOutEvidence::Pool(_) => add_rows(&|doc| {
                    let owner = owners.as_ref().and_then(|owners| owners.owner(doc));
                    if owner == Some(run.team.as_str()) {
                        None
                    } else {
                        topic_grades.get(&doc).copied()
                    }
                }),
                LeaveOutEvidence::Trials(trials) => {
                    for trial in trials.get(&run.team).into_iter().flatten() {
                        add_rows(&|doc| trial[index].get(&doc).copied());
                    }
                }
            }
        }
    }
    let sample_size = positives.len() + negatives.len();
    let sample_relevant = positives.len();
    let model = if positives.is_empty() || negatives.is_empty() {
        // Nothing to separate: every document gets the sample's smoothed base rate.
        let rate = (sample_relevant as f64 + 0.5) / (sample_size as f64 + 1.0);
        LogisticModel {
            weights: vec![0.0; 5],
            intercept: (rate / (1.0 - rate)).ln(),
        }
    } else {
        let training = TrainingSet::new(positives.iter().collect(), negatives.iter().collect(), 5);
        fit_logistic(
            &training,
            CALIBRATION_ALPHA,
            super::model::AUDIT_MAX_ITERATIONS,
        )?
    };
    let topic_count = collection.topics.len();
    let mut observed = vec![0usize; topic_count];
    let mut expected = vec![0.0f64; topic_count];
    for &topic in &positive_topics {
        observed[topic] += 1;
    }
    let rows = positives
        .iter()
        .zip(&positive_topics)
        .chain(negatives.iter().zip(&negative_topics));
    for (row, &topic) in rows {
        expected[topic] += model.probability(row);
    }
    let LogisticModel { weights, intercept } = model;
    Ok(Calibration {
        intercept,
        log_odds_weight: weights[0],
        log_rank_weight: weights[1],
        run_precision_weight: weights[2],
        in_pool_weight: weights[3],
        in_pool_log_rank_weight: weights[4],
        topic_offsets: observed
            .iter()
            .zip(&expected)
            .map(|(&o, &e)| topic_offset(o, e))
            .collect(),
        sample_size,
        sample_relevant,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibrated_probabilities_follow_the_fitted_log_odds() {
        let calibration = Calibration {
            intercept: -1.0,
            log_odds_weight: 0.5,
            log_rank_weight: -1.0,
            run_precision_weight: 1.0,
            in_pool_weight: 2.0,
            in_pool_log_rank_weight: 0.0,
            topic_offsets: vec![0.0, -1.0],
            sample_size: 10,
            sample_relevant: 1,
        };
        // raw 0.5 (log-odds 0) at rank 1 (ln 1 = 0), precision 1/2 (log-odds 0), out of the
        // pool: sigmoid(-1).
        let even = run_precision_log_odds(1, 2);
        assert!(even.abs() < 1e-12, "(1 + 0.5) / (2 + 1) is not 1/2: {even}");
        let expected = 1.0 / (1.0 + 1f64.exp());
        assert!((calibration.probability(0, 0.5, 1, even, false) - expected).abs() < 1e-12);
        // Deeper is less probable with a negative rank weight, a better run more probable.
        assert!(
            calibration.probability(0, 0.5, 50, 0.0, false)
                < calibration.probability(0, 0.5, 2, 0.0, false)
        );
        assert!(
            calibration.probability(0, 0.5, 2, 1.0, false)
                > calibration.probability(0, 0.5, 2, 0.0, false)
        );
        assert!(
            calibration.probability(0, 0.5, 2, 0.0, true)
                > calibration.probability(0, 0.5, 2, 0.0, false)
        );
        // The second topic's correction takes 1 off the log-odds: sigmoid(-2).
        let corrected = 1.0 / (1.0 + 2f64.exp());
        assert!((calibration.probability(1, 0.5, 1, even, false) - corrected).abs() < 1e-12);
        // Raw probabilities of 0 and 1 stay finite.
        assert!(calibration.probability(0, 0.0, 1, 0.0, false) > 0.0);
        assert!(calibration.probability(0, 1.0, 1, 0.0, true) < 1.0);
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
}
