//! `strategies.tsv` ([`StrategyRow`]): with a comparison of judging strategies, each strategy's
//! figures at each budget fraction for each measure.

use serde::{Deserialize, Serialize};

use super::domains;
use super::table::TableRow;

/// One judging strategy's figures for one measure at one budget fraction, over the study's
/// seeds (`strategies.tsv`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StrategyRow {
    /// The strategy's name.
    #[serde(deserialize_with = "domains::non_empty")]
    pub strategy: String,
    /// The fraction of each topic's budget.
    #[serde(with = "domains::fraction")]
    pub fraction: f64,
    /// Measure name.
    #[serde(deserialize_with = "domains::non_empty")]
    pub measure: String,
    /// The control rankings' mean tau_b against the official ranking.
    #[serde(with = "domains::tau")]
    pub control_tau_b: Option<f64>,
    /// The control rankings' mean tau_b against the truth ranking (`NA` without a truth).
    #[serde(with = "domains::tau")]
    pub control_truth_tau_b: Option<f64>,
    /// The held-out trials' mean tau_b against their seed's control.
    #[serde(with = "domains::tau")]
    pub paired_tau_b: Option<f64>,
    /// The held-out runs' mean rank in their team's trial less their rank in the control
    /// (positive = dropped; `NA` without a held-out run).
    #[serde(with = "domains::optional_change")]
    pub rank_change_mean: Option<f64>,
    /// The largest such rank change.
    #[serde(with = "domains::optional_change")]
    pub rank_change_max: Option<f64>,
    /// The controls' mean recall of the officially relevant documents.
    #[serde(with = "domains::fraction")]
    pub control_recall: f64,
    /// The controls' mean recall of the officially relevant documents the strategy could
    /// judge, carried ones aside.
    #[serde(with = "domains::fraction")]
    pub control_recall_found: f64,
    /// The share of judged documents the official qrels never judged (graded 0).
    #[serde(with = "domains::fraction")]
    pub unofficial_share: f64,
    /// Judgments, carried ones included, per (trial, topic).
    #[serde(with = "domains::score")]
    pub judgments_per_topic: f64,
    /// Pairs of runs significant under both, in the same direction: the controls against the official qrels, mean over seeds.
    #[serde(with = "domains::optional_mean_count")]
    pub official_kept: Option<f64>,
    /// Pairs of runs significant under the reference only: the controls against the official qrels, mean over seeds.
    #[serde(with = "domains::optional_mean_count")]
    pub official_lost: Option<f64>,
    /// Pairs of runs significant under both, in opposite directions: the controls against the official qrels, mean over seeds.
    #[serde(with = "domains::optional_mean_count")]
    pub official_reversed: Option<f64>,
    /// Pairs of runs significant under the control only: the controls against the official qrels, mean over seeds.
    #[serde(with = "domains::optional_mean_count")]
    pub official_new: Option<f64>,
    /// Pairs of runs significant under both, in the same direction: the controls against the same seed's hical control at the whole budget, mean over seeds.
    #[serde(with = "domains::optional_mean_count")]
    pub hical_kept: Option<f64>,
    /// Pairs of runs significant under the reference only: the controls against the same seed's hical control at the whole budget, mean over seeds.
    #[serde(with = "domains::optional_mean_count")]
    pub hical_lost: Option<f64>,
    /// Pairs of runs significant under both, in opposite directions: the controls against the same seed's hical control at the whole budget, mean over seeds.
    #[serde(with = "domains::optional_mean_count")]
    pub hical_reversed: Option<f64>,
    /// Pairs of runs significant under the control only: the controls against the same seed's hical control at the whole budget, mean over seeds.
    #[serde(with = "domains::optional_mean_count")]
    pub hical_new: Option<f64>,
    /// Pairs of runs significant under both, in the same direction: the controls against the truth, mean over seeds (`NA` without one).
    #[serde(with = "domains::optional_mean_count")]
    pub truth_kept: Option<f64>,
    /// Pairs of runs significant under the reference only: the controls against the truth, mean over seeds (`NA` without one).
    #[serde(with = "domains::optional_mean_count")]
    pub truth_lost: Option<f64>,
    /// Pairs of runs significant under both, in opposite directions: the controls against the truth, mean over seeds (`NA` without one).
    #[serde(with = "domains::optional_mean_count")]
    pub truth_reversed: Option<f64>,
    /// Pairs of runs significant under the control only: the controls against the truth, mean over seeds (`NA` without one).
    #[serde(with = "domains::optional_mean_count")]
    pub truth_new: Option<f64>,
    /// With an assessor other than the official one: the control rankings' mean tau_b against
    /// the assessor's ranking of their seed (the column is absent otherwise).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "domains::assessor_tau"
    )]
    pub control_assessor_tau_b: Option<Option<f64>>,
    /// The controls' mean recall of the assessor's relevant documents within reach.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "domains::assessor_fraction"
    )]
    pub control_assessor_recall: Option<f64>,
    /// The share of judged documents that only the fuller assessor file graded.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "domains::assessor_fraction"
    )]
    pub file_share: Option<f64>,
    /// The share of judged documents whose grade was drawn from the relevance model.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "domains::assessor_fraction"
    )]
    pub drawn_share: Option<f64>,
    /// Pairs of runs significant under both, in the same direction: the controls against the assessor's qrels of their seed, mean over seeds.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "domains::assessor_mean_count"
    )]
    pub assessor_kept: Option<Option<f64>>,
    /// Pairs of runs significant under the reference only: the controls against the assessor's qrels of their seed, mean over seeds.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "domains::assessor_mean_count"
    )]
    pub assessor_lost: Option<Option<f64>>,
    /// Pairs of runs significant under both, in opposite directions: the controls against the assessor's qrels of their seed, mean over seeds.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "domains::assessor_mean_count"
    )]
    pub assessor_reversed: Option<Option<f64>>,
    /// Pairs of runs significant under the control only: the controls against the assessor's qrels of their seed, mean over seeds.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "domains::assessor_mean_count"
    )]
    pub assessor_new: Option<Option<f64>>,
}

impl TableRow for StrategyRow {
    const FILE: &'static str = "strategies.tsv";
    const ASSESSOR_COLUMNS: &'static [&'static str] = &[
        "control_assessor_tau_b",
        "control_assessor_recall",
        "file_share",
        "drawn_share",
        "assessor_kept",
        "assessor_lost",
        "assessor_reversed",
        "assessor_new",
    ];
}
