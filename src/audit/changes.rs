//! What returned judgments changed: each audited run's figures before and after them, and the
//! documents they left out or held beyond the list.

use serde::Serialize;

use super::claims::summary::ClaimChange;
use super::report::MeasureAudit;

/// A document of a topic.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct DocRef {
    /// The topic id.
    pub topic: String,
    /// The document id.
    pub docid: String,
}

impl DocRef {
    /// Document `docid` of topic `topic`.
    pub fn new(topic: &str, docid: &str) -> Self {
        Self {
            topic: topic.to_string(),
            docid: docid.to_string(),
        }
    }
}

/// A run's figures of one measure before or after the returned judgments.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Standing {
    /// The collection's score.
    pub score: f64,
    /// The expected score.
    pub expected: f64,
    /// The 5% and 95% quantiles of the sampled scores.
    pub sample_low: f64,
    /// See `sample_low`.
    pub sample_high: f64,
    /// The rank among the task's runs on the collection.
    pub rank: f64,
    /// The rank among the other audited runs on the collection.
    pub audited_rank: f64,
    /// The probability that the rank moves.
    pub probability_rank_moves: f64,
    /// Whether the measure is at risk.
    pub is_at_risk: bool,
}

impl Standing {
    /// The figures of `measure`.
    pub(super) fn of(measure: &MeasureAudit) -> Self {
        Self {
            score: measure.score.lower,
            expected: measure.score.expected,
            sample_low: measure.score.sample_low,
            sample_high: measure.score.sample_high,
            rank: measure.rank,
            audited_rank: measure.audited_rank,
            probability_rank_moves: measure.probability_rank_moves,
            is_at_risk: measure.is_at_risk,
        }
    }
}

/// One measure of a run, before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasureChange {
    /// The measure.
    pub measure: String,
    /// On the task's qrels.
    pub before: Standing,
    /// On the task's qrels and the returned judgments.
    pub after: Standing,
}

/// One run, before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunChange {
    /// The run's tag.
    pub run: String,
    /// Its verdict on the task's qrels.
    pub verdict_before: String,
    /// Its verdict with the returned judgments.
    pub verdict_after: String,
    /// Per measure.
    pub measures: Vec<MeasureChange>,
}

/// What the returned judgments changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgedComparison {
    /// The file they were read from.
    pub file: String,
    /// The returned grades used (official ones restated with the same grade excepted).
    pub judgments_added: usize,
    /// Official grades the returned ones replaced (`--override-official`).
    pub overridden: Vec<DocRef>,
    /// The merged list's documents without a returned grade.
    pub listed_unjudged: Vec<DocRef>,
    /// Returned grades of documents that were not on the merged list: used all the same.
    pub judged_unlisted: Vec<DocRef>,
    /// The verdict over every run before the returned judgments.
    pub verdict_before: String,
    /// Per audited run.
    pub runs: Vec<RunChange>,
    /// Every claim before and after, run by run and measure by measure.
    pub claims: Vec<ClaimChange>,
}
