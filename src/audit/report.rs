//! What the audit reports: its overall figures per measure, the documents to judge, and the
//! report as a whole (rendered by serde and [`super::markdown`]).

use serde::Serialize;

use super::claims::ClaimSummary;
use super::study::StudyComparison;
use super::topic::{Coverage, ScoreInterval, TopicAudit};
use crate::base::Grade;

/// The overall figures of one measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasureAudit {
    /// Score interval and expectation (means over topics).
    #[serde(flatten)]
    pub score: ScoreInterval,
    /// Rank among the task's other runs on the collection (the lower end).
    pub rank: f64,
    /// Rank among the task's other runs at the upper end of the interval.
    pub rank_best: f64,
    /// Rank at the lower end.
    pub rank_worst: f64,
    /// Rank at the expected score.
    pub rank_expected: f64,
    /// The number of runs ranked (the task's runs other than the audited one, plus it).
    pub runs_ranked: usize,
    /// The study's largest score drop of a pooled run for this measure, if known.
    pub lou_max_score_drop: Option<f64>,
    /// The probability, under the judge model, that judging the unjudged documents moves the
    /// run's rank by at least the rank margin.
    pub probability_rank_moves: f64,
    /// The same probability once the documents to judge are judged (unchanged for a measure
    /// that is not at risk).
    pub remaining_probability_rank_moves: f64,
    /// Whether the measure is at risk: `probability_rank_moves` above the risk threshold.
    pub is_at_risk: bool,
    /// Whether judging cannot settle it: at risk, and judging the list that would serve it
    /// alone, within the cap per topic, would still leave `probability_rank_moves` above the
    /// settle threshold. The lists then do not serve it.
    pub cannot_settle: bool,
    /// For an at-risk measure, the unjudged documents that can move its rank (those its own
    /// list gives a priority), per topic; 0 for the others.
    pub risk_documents_per_topic: f64,
    /// Those of them beyond the pool's reach, per topic.
    pub risk_documents_beyond_pool_per_topic: f64,
    /// The same probability once the merged list of every audited run is judged (the run's
    /// own list when it is audited alone).
    pub remaining_after_merged_list: f64,
    /// Rank among the other audited runs on the collection (1 when audited alone).
    pub audited_rank: f64,
    /// Rank among the other audited runs at the expected scores.
    pub audited_rank_expected: f64,
    /// The number of audited runs.
    pub audited_runs: usize,
}

/// One document to judge.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolEntry {
    /// The topic id.
    pub topic: String,
    /// The document id.
    pub docid: String,
    /// Its rank in the run.
    pub rank: usize,
    /// Its probability of relevance.
    pub probability: f64,
    /// Its share of the at-risk measures' expected squared score movement relative to the runs
    /// within the run's reach (summed over them).
    pub priority: f64,
    /// The largest probability, over the at-risk measures, that the rank still moves once this
    /// document and every one before it are judged.
    pub remaining_risk: f64,
    /// Whether it lies beyond the pool's reach, its probability extrapolated.
    pub is_beyond_pool: bool,
    /// The secondary assessor's label of it, with `--labels`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<Grade>,
}

/// The settings in force, for the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditSettingsSummary {
    /// `text` or `runs`.
    pub features: String,
    /// A grade >= this is relevant.
    pub relevance_level: Grade,
    /// [`super::AUDIT_DEPTH`].
    pub depth: usize,
    /// [`crate::relevance_model::model::AUDIT_ALPHA`].
    pub alpha: f64,
    /// [`crate::relevance_model::model::FOLDS`].
    pub folds: u64,
    /// [`super::SAMPLES`].
    pub samples: usize,
    /// [`super::AUDIT_SEED`].
    pub seed: u64,
    /// The risk threshold: a measure is at risk above it.
    pub risk_threshold: f64,
    /// The settle threshold: the list stops once the remaining risk is at most it.
    pub settle_threshold: f64,
    /// The rank margin: a rank moves when it changes by at least this much.
    pub rank_margin: f64,
    /// Where the calibration learned what a team's absence leaves unjudged: `pool` or
    /// `trials`.
    pub evidence: String,
    /// How documents beyond the pool's reach are treated: `extrapolate` or `non-relevant`.
    pub beyond_pool: String,
    /// The calibration of the judge model.
    pub calibration: crate::relevance_model::calibration::Calibration,
    /// The budget, if any.
    pub budget: Option<usize>,
    /// At most this many documents of one topic in a list (None: no cap).
    pub list_per_topic: Option<usize>,
}

/// Everything the audit found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    /// The one-line verdict.
    pub verdict: String,
    /// The task's name.
    pub task: String,
    /// The audited run's tag.
    pub run: String,
    /// The run file.
    pub run_file: String,
    /// Whether a task run carries the same tag, and whether it was pooled.
    pub in_task: Option<bool>,
    /// The settings.
    pub settings: AuditSettingsSummary,
    /// The topics audited.
    pub topics_audited: usize,
    /// Coverage over all audited topics (means; counts summed).
    pub coverage: Coverage,
    /// Per measure.
    pub measures: Vec<MeasureAudit>,
    /// Its claims against the baselines, measure by measure.
    pub claims: Vec<ClaimSummary>,
    /// The leave-team-out comparison.
    pub study: StudyComparison,
    /// The documents to judge before the budget cap.
    pub candidates: usize,
    /// The documents to judge, in priority order (budget applied).
    pub to_judge: Vec<PoolEntry>,
    /// Per topic.
    pub topics: Vec<TopicAudit>,
    /// Wall time.
    pub elapsed_seconds: f64,
}
