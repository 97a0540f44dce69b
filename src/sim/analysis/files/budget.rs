//! `budget.tsv` ([`BudgetRow`]): every trial's figures at every budget fraction.

use serde::{Deserialize, Serialize};

use super::domains;
use super::{TableRow, TrialRow};

/// One trial's figures for one measure with each topic's judgments cut to a fraction of its
/// budget (`budget.tsv`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetRow {
    /// The fraction of each topic's budget.
    #[serde(with = "domains::fraction")]
    pub fraction: f64,
    /// Seed.
    #[serde(deserialize_with = "domains::whole")]
    pub seed: u64,
    /// The held-out team, `None` for the control trial.
    #[serde(with = "domains::trial")]
    pub held_out: Option<String>,
    /// Measure name.
    #[serde(deserialize_with = "domains::non_empty")]
    pub measure: String,
    /// tau_b of the trial's ranking of all runs against the official one.
    #[serde(with = "domains::tau")]
    pub tau_b: Option<f64>,
    /// tau_ap against the official ranking.
    #[serde(with = "domains::tau")]
    pub tau_ap: Option<f64>,
    /// tau_b against the control trial of the same seed at the same fraction (`NA` for the
    /// control itself).
    #[serde(with = "domains::tau")]
    pub paired_tau_b: Option<f64>,
    /// The fraction of officially relevant documents the cut qrels found.
    #[serde(with = "domains::fraction")]
    pub recall: f64,
    /// The fraction of official judgments the cut qrels hold.
    #[serde(with = "domains::fraction")]
    pub overlap: f64,
    /// With an assessor other than the official one: tau_b against the assessor's ranking of
    /// the seed (the column is absent otherwise).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "domains::assessor_tau"
    )]
    pub assessor_tau_b: Option<Option<f64>>,
    /// The fraction of the assessor's relevant documents within reach that the cut qrels hold.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "domains::assessor_fraction"
    )]
    pub assessor_recall: Option<f64>,
}

impl TableRow for BudgetRow {
    const FILE: &'static str = "budget.tsv";
    const ASSESSOR_COLUMNS: &'static [&'static str] = &["assessor_tau_b", "assessor_recall"];
}

impl BudgetRow {
    /// The row of `trial` (a trial's figures at `fraction`).
    pub fn new(fraction: f64, trial: &TrialRow) -> Self {
        Self {
            fraction,
            seed: trial.seed,
            held_out: trial.held_out.clone(),
            measure: trial.measure.clone(),
            tau_b: trial.tau_b,
            tau_ap: trial.tau_ap,
            paired_tau_b: trial.paired_tau_b,
            recall: trial.recall,
            overlap: trial.overlap,
            assessor_tau_b: trial.assessor_tau_b,
            assessor_recall: trial.assessor_recall,
        }
    }
}
