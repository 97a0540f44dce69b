//! Calibration of the judge model against the collection itself, by leaving each pooled team
//! out of the pool (classic leave-out-uniques).
//!
//! What the audit needs is the probability that an unjudged document of a new run's top is
//! relevant. A new run contributed nothing to the pool; the collection holds examples of that
//! situation, once per pooled run: take run r's team out of the pool, and the documents of r's
//! top [`super::AUDIT_DEPTH`] that are then unjudged are the collection's unjudged documents
//! (presumed non-relevant, as the collection's scores presume them) and the judged documents
//! that only r's team put in the pool ([`UniqueRule::classic`]: its pooled runs' top
//! `pool_depth`), whose grades are known.
//!
//! So the calibration sample has one row per pooled run and such document, with three
//! features: the model's out-of-fold log-odds ([`super::model`]), the log of the document's
//! rank in the run, and the log-odds of the run's *judged precision* (the relevant share,
//! smoothed by half a document, of the judged documents of its top that its team did not alone
//! contribute: how good the run is where the collection can tell). A logistic regression on
//! that sample (Platt scaling with a depth and a run-quality term) maps the three to a
//! calibrated probability. A collection whose teams' sole pool contributions are rarely
//! relevant gets probabilities near 0 for its unjudged documents; one where leaving a team out
//! of the pool loses many relevant documents gets high ones, highest in the tops of good runs.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::model::TopicModel;
use crate::base::error::Result;
use crate::base::sparse::SparseVec;
use crate::base::{is_relevant, DocId, Grade};
use crate::collection::{Collection, UniqueRule};
use crate::judge::logistic::{fit_logistic, LogisticModel};
use crate::judge::TrainingSet;

/// The L2 penalty of the calibration fit: two features and thousands of rows, so it only
/// keeps the fit finite when the sample separates perfectly.
pub const CALIBRATION_ALPHA: f64 = 1e-3;

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

impl Calibration {
    /// The calibrated probability of a document with raw model probability `raw` at 1-based
    /// `rank` in a run whose judged precision has log-odds `run_precision`.
    pub fn probability(&self, raw: f64, rank: usize, run_precision: f64) -> f64 {
        let log_odds = self.intercept
            + self.log_odds_weight * raw_log_odds(raw)
            + self.log_rank_weight * (rank as f64).ln()
            + self.run_precision_weight * run_precision;
        1.0 / (1.0 + (-log_odds).exp())
    }
}

fn raw_log_odds(raw: f64) -> f64 {
    let p = raw.clamp(RAW_PROBABILITY_FLOOR, 1.0 - RAW_PROBABILITY_FLOOR);
    (p / (1.0 - p)).ln()
}

/// The three calibration features of a document.
fn features(raw: f64, rank: usize, run_precision: f64) -> SparseVec {
    SparseVec::from_pairs(vec![
        (0, raw_log_odds(raw) as f32),
        (1, (rank as f64).ln() as f32),
        (2, run_precision as f32),
    ])
    .expect("three distinct finite features")
}

/// Fits the calibration of `models` (one per topic of `collection`) on the leave-team-out
/// sample of the judgments `grades`, whose pool was taken to `pool_depth`.
///
/// # Errors
/// When the logistic fit fails.
pub fn calibrate(
    collection: &Collection,
    grades: &[FxHashMap<DocId, Grade>],
    models: &[TopicModel],
    pool_depth: usize,
) -> Result<Calibration> {
    let rule = UniqueRule::classic(pool_depth);
    let level = collection.relevance_level;
    let mut positives = Vec::new();
    let mut negatives = Vec::new();
    for ((topic, topic_grades), model) in collection.topics.iter().zip(grades).zip(models) {
        let owners = collection.sole_teams(topic, &rule);
        let pooled = collection
            .runs
            .iter()
            .zip(&topic.rankings)
            .filter(|(run, _)| run.is_pooled);
        for (run, ranking) in pooled {
            let top = &ranking[..ranking.len().min(super::AUDIT_DEPTH)];
            let is_own = |doc: DocId| owners.owner(doc) == Some(run.team.as_str());
            let (mut relevant, mut judged) = (0, 0);
            for doc in top.iter().filter(|&&doc| !is_own(doc)) {
                if let Some(&grade) = topic_grades.get(doc) {
                    judged += 1;
                    relevant += usize::from(is_relevant(grade, level));
                }
            }
            let run_precision = run_precision_log_odds(relevant, judged);
            for (pos, &doc) in top.iter().enumerate() {
                let raw = model.probabilities.get(&doc).copied().unwrap_or(0.0);
                let row = || features(raw, pos + 1, run_precision);
                match topic_grades.get(&doc) {
                    None => negatives.push(row()),
                    Some(&grade) if is_own(doc) => {
                        if is_relevant(grade, level) {
                            positives.push(row());
                        } else {
                            negatives.push(row());
                        }
                    }
                    Some(_) => {}
                }
            }
        }
    }
    let sample_size = positives.len() + negatives.len();
    let sample_relevant = positives.len();
    if positives.is_empty() || negatives.is_empty() {
        // Nothing to separate: every document gets the sample's smoothed base rate.
        let rate = (sample_relevant as f64 + 0.5) / (sample_size as f64 + 1.0);
        return Ok(Calibration {
            intercept: (rate / (1.0 - rate)).ln(),
            log_odds_weight: 0.0,
            log_rank_weight: 0.0,
            run_precision_weight: 0.0,
            sample_size,
            sample_relevant,
        });
    }
    let training = TrainingSet::new(positives.iter().collect(), negatives.iter().collect(), 3);
    let LogisticModel { weights, intercept } = fit_logistic(
        &training,
        CALIBRATION_ALPHA,
        super::model::AUDIT_MAX_ITERATIONS,
    )?;
    Ok(Calibration {
        intercept,
        log_odds_weight: weights[0],
        log_rank_weight: weights[1],
        run_precision_weight: weights[2],
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
            sample_size: 10,
            sample_relevant: 1,
        };
        // raw 0.5 (log-odds 0) at rank 1 (ln 1 = 0), precision 1/2 (log-odds 0): sigmoid(-1).
        let even = run_precision_log_odds(1, 3);
        assert!(even.abs() < 1e-12, "(1 + 0.5) / (3 + 1) is not 1/2: {even}");
        let expected = 1.0 / (1.0 + 1f64.exp());
        assert!((calibration.probability(0.5, 1, even) - expected).abs() < 1e-12);
        // Deeper is less probable with a negative rank weight, a better run more probable.
        assert!(calibration.probability(0.5, 50, 0.0) < calibration.probability(0.5, 2, 0.0));
        assert!(calibration.probability(0.5, 2, 1.0) > calibration.probability(0.5, 2, 0.0));
        // Raw probabilities of 0 and 1 stay finite.
        assert!(calibration.probability(0.0, 1, 0.0) > 0.0);
        assert!(calibration.probability(1.0, 1, 0.0) < 1.0);
    }
}
