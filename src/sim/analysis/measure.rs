//! The statistics of one measure, as `summary.json` reports them: the LOU and trial rankings,
//! the control, classic leave-out-uniques, the truth, the held-out trials paired with their
//! control, the swapped pairs, and the rankings against the simulated assessor's own.

use serde::{Deserialize, Serialize};

use super::significance::SignificanceSummary;
use crate::stats::Spread;

/// The LOU ranking (each run on its own team's held-out qrels) against the official one.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LouSummary {
    /// Kendall's tau_b over seeds.
    pub tau_b: Option<Spread>,
    /// tau_ap over seeds.
    pub tau_ap: Option<Spread>,
    /// The largest rank drop over seeds.
    pub max_drop: Option<Spread>,
    /// Runs whose rank changed, over seeds.
    pub runs_changed: Option<Spread>,
}

/// Every trial's ranking of all runs against the official one.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrialsSummary {
    /// tau_b over all leave-team-out trials.
    pub tau_b: Option<Spread>,
    /// tau_ap over all leave-team-out trials.
    pub tau_ap: Option<Spread>,
}

/// The control trials (nothing held out) against the official qrels (see
/// [`crate::sim::agreement::Agreement`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ControlSummary {
    /// The fraction of official judgments the control qrels hold, carried ones included.
    pub overlap: Option<Spread>,
    /// The fraction of officially relevant documents the control qrels hold, carried ones
    /// included.
    pub recall: Option<Spread>,
    /// Official judgments carried into the control qrels unchanged.
    pub carried: Option<Spread>,
    /// The fraction of official judgments of candidate documents the pool or CAL judged.
    pub overlap_found: Option<Spread>,
    /// The fraction of officially relevant candidate documents the pool or CAL judged.
    pub recall_found: Option<Spread>,
    /// tau_b of the run ranking on the control qrels against the official ranking.
    pub tau_b: Option<Spread>,
}

/// Classic leave-out-uniques on the official qrels.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClassicSummary {
    /// tau_b against the official ranking.
    pub tau_b: Option<f64>,
    /// tau_ap against the official ranking.
    pub tau_ap: Option<f64>,
    /// The largest rank drop.
    pub max_drop: f64,
    /// Runs whose rank changed.
    pub runs_changed: usize,
}

/// Rankings against the complete truth (synthetic tasks).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TruthSummary {
    /// The official ranking's tau_b against the truth ranking.
    pub official_tau_b: Option<f64>,
    /// The official ranking's tau_ap against the truth ranking.
    pub official_tau_ap: Option<f64>,
    /// The LOU rankings' tau_b against the truth, over seeds.
    pub lou_tau_b: Option<Spread>,
    /// The control rankings' tau_b against the truth, over seeds.
    pub control_tau_b: Option<Spread>,
    /// Every held-out trial's ranking of all runs against the truth.
    pub trials_tau_b: Option<Spread>,
    /// Classic LOU's tau_b against the truth.
    pub classic_lou_tau_b: Option<f64>,
}

/// Two runs whose order under the mean LOU scores differs from the official order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SwappedPair {
    /// The officially better run.
    pub better: String,
    /// The officially worse run.
    pub worse: String,
    /// Official scores.
    pub official: [f64; 2],
    /// Mean LOU scores over seeds.
    pub lou_mean: [f64; 2],
    /// The p-value of the official per-topic difference by the study's test (over the qrels'
    /// topics, a topic a run lacks scoring 0; `None` with fewer than 2 topics).
    pub p_value: Option<f64>,
    /// The p-value corrected over every pair of runs of the measure.
    pub adjusted_p_value: Option<f64>,
    /// Whether the pair differs significantly under the official qrels.
    pub significant: bool,
}

/// Held-out trials against the control trial of their seed: the leave-out effect with the
/// simulation's own noise paired away.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PairedSummary {
    /// tau_b of each held-out trial's ranking against its seed's control ranking.
    pub tau_b: Option<Spread>,
    /// tau_ap of each held-out trial's ranking against its seed's control ranking.
    pub tau_ap: Option<Spread>,
    /// Each held-out run's score in its team's trial less its score in the control.
    pub score_change: Option<Spread>,
    /// Each held-out run's rank in its team's trial less its rank in the control (positive =
    /// dropped).
    pub rank_change: Option<Spread>,
}

/// All statistics for one measure.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MeasureSummary {
    /// LOU ranking figures.
    pub lou: LouSummary,
    /// Per-trial ranking figures.
    pub trials: TrialsSummary,
    /// Control figures.
    pub control: ControlSummary,
    /// Held-out trials paired with their seed's control.
    pub paired: PairedSummary,
    /// Classic leave-out-uniques figures.
    pub classic_lou: ClassicSummary,
    /// Truth figures, on tasks with a truth file.
    pub truth: Option<TruthSummary>,
    /// The rankings against the simulated assessor's own, when it is not the official one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assessor: Option<AssessorSummary>,
    /// Every pair of runs compared by significance (`None` in summaries written before it).
    #[serde(default)]
    pub significance: Option<SignificanceSummary>,
    /// Swapped pairs with significance tests.
    pub swapped_pairs: Vec<SwappedPair>,
}

/// Rankings against the assessor's own ranking, for one measure.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AssessorSummary {
    /// The official ranking's tau_b against the assessor's ranking, over seeds.
    pub official_tau_b: Option<Spread>,
    /// The official ranking's tau_ap against the assessor's ranking, over seeds.
    pub official_tau_ap: Option<Spread>,
    /// The LOU rankings' tau_b against the assessor's ranking of their seed.
    pub lou_tau_b: Option<Spread>,
    /// The control rankings' tau_b against the assessor's ranking of their seed.
    pub control_tau_b: Option<Spread>,
    /// Every held-out trial's ranking against the assessor's ranking of its seed.
    pub trials_tau_b: Option<Spread>,
    /// Classic LOU's tau_b against the assessor's ranking, over seeds.
    pub classic_lou_tau_b: Option<Spread>,
    /// The controls' recall of the assessor's relevant documents within the judging's reach.
    pub control_recall: Option<Spread>,
}
