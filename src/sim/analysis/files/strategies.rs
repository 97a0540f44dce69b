//! `strategies.tsv` ([`StrategyRow`]): with a comparison of judging strategies, each strategy's
//! figures at each budget fraction for each measure.

use super::domains;
use super::wide::wide_row;

wide_row! {
    /// One judging strategy's figures for one measure at one budget fraction, over the study's
    /// seeds (`strategies.tsv`).
    #[derive(Debug, Clone, PartialEq)]
    pub struct StrategyRow as StrategyRecord in "strategies.tsv" {
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
    }
    counts of f64 with "domains::optional_mean_count" {
        /// The significant pairs, mean over seeds, of the controls against the official qrels.
        pub official: official_kept official_lost official_reversed official_new,
        /// The controls against the same seed's hical control at the whole budget.
        pub hical: hical_kept hical_lost hical_reversed hical_new,
        /// The controls against the truth (`NA` without one).
        pub truth: truth_kept truth_lost truth_reversed truth_new,
    }
    optional {
        /// With an assessor other than the official one: the control rankings' mean tau_b
        /// against the assessor's ranking of their seed (the column is absent otherwise).
        #[serde(with = "domains::assessor_tau")]
        pub control_assessor_tau_b: Option<Option<f64>>,
        /// The controls' mean recall of the assessor's relevant documents within reach.
        #[serde(with = "domains::assessor_fraction")]
        pub control_assessor_recall: Option<f64>,
        /// The share of judged documents that only the fuller assessor file graded.
        #[serde(with = "domains::assessor_fraction")]
        pub file_share: Option<f64>,
        /// The share of judged documents whose grade was drawn from the relevance model.
        #[serde(with = "domains::assessor_fraction")]
        pub drawn_share: Option<f64>,
    }
    optional counts with "domains::assessor_mean_count" {
        /// The controls against the assessor's qrels of their seed, mean over seeds (`None`:
        /// the official assessor, and the columns are absent).
        pub assessor: assessor_kept assessor_lost assessor_reversed assessor_new,
    }
}
