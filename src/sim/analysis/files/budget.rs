//! `budget.tsv` ([`BudgetRow`]): every trial's figures at every budget fraction.

use serde::{Deserialize, Serialize};

use super::domains;
use super::rows::{counts, TrialRow};
use super::table::TableRow;
use crate::stats::pair_changes::PairChanges;

/// One trial's figures for one measure with each topic's judgments cut to a fraction of its
/// budget (`budget.tsv`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
    /// Pairs of runs significantly different on the cut qrels (`NA`: fewer than 2 topics).
    #[serde(with = "domains::optional_count")]
    pub significant: Option<usize>,
    /// Pairs of runs significant under both, in the same direction: against the official qrels.
    #[serde(with = "domains::optional_count")]
    pub official_kept: Option<usize>,
    /// Pairs of runs significant under the reference only: against the official qrels.
    #[serde(with = "domains::optional_count")]
    pub official_lost: Option<usize>,
    /// Pairs of runs significant under both, in opposite directions: against the official qrels.
    #[serde(with = "domains::optional_count")]
    pub official_reversed: Option<usize>,
    /// Pairs of runs significant under this trial only: against the official qrels.
    #[serde(with = "domains::optional_count")]
    pub official_new: Option<usize>,
    /// Pairs of runs significant under both, in the same direction: against the control of the same seed at the same fraction (`NA` for the control).
    #[serde(with = "domains::optional_count")]
    pub paired_kept: Option<usize>,
    /// Pairs of runs significant under the reference only: against the control of the same seed at the same fraction (`NA` for the control).
    #[serde(with = "domains::optional_count")]
    pub paired_lost: Option<usize>,
    /// Pairs of runs significant under both, in opposite directions: against the control of the same seed at the same fraction (`NA` for the control).
    #[serde(with = "domains::optional_count")]
    pub paired_reversed: Option<usize>,
    /// Pairs of runs significant under this trial only: against the control of the same seed at the same fraction (`NA` for the control).
    #[serde(with = "domains::optional_count")]
    pub paired_new: Option<usize>,
    /// Pairs of runs significant under both, in the same direction: the same over the pairs that involve a run of the held-out team.
    #[serde(with = "domains::optional_count")]
    pub held_out_kept: Option<usize>,
    /// Pairs of runs significant under the reference only: the same over the pairs that involve a run of the held-out team.
    #[serde(with = "domains::optional_count")]
    pub held_out_lost: Option<usize>,
    /// Pairs of runs significant under both, in opposite directions: the same over the pairs that involve a run of the held-out team.
    #[serde(with = "domains::optional_count")]
    pub held_out_reversed: Option<usize>,
    /// Pairs of runs significant under this trial only: the same over the pairs that involve a run of the held-out team.
    #[serde(with = "domains::optional_count")]
    pub held_out_new: Option<usize>,
    /// Pairs of runs significant under both, in the same direction: against the control of the same seed at the whole budget.
    #[serde(with = "domains::optional_count")]
    pub full_kept: Option<usize>,
    /// Pairs of runs significant under the reference only: against the control of the same seed at the whole budget.
    #[serde(with = "domains::optional_count")]
    pub full_lost: Option<usize>,
    /// Pairs of runs significant under both, in opposite directions: against the control of the same seed at the whole budget.
    #[serde(with = "domains::optional_count")]
    pub full_reversed: Option<usize>,
    /// Pairs of runs significant under this trial only: against the control of the same seed at the whole budget.
    #[serde(with = "domains::optional_count")]
    pub full_new: Option<usize>,
    /// Pairs of runs significant under both, in the same direction: against the truth (`NA` without one).
    #[serde(with = "domains::optional_count")]
    pub truth_kept: Option<usize>,
    /// Pairs of runs significant under the reference only: against the truth (`NA` without one).
    #[serde(with = "domains::optional_count")]
    pub truth_lost: Option<usize>,
    /// Pairs of runs significant under both, in opposite directions: against the truth (`NA` without one).
    #[serde(with = "domains::optional_count")]
    pub truth_reversed: Option<usize>,
    /// Pairs of runs significant under this trial only: against the truth (`NA` without one).
    #[serde(with = "domains::optional_count")]
    pub truth_new: Option<usize>,
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
    /// Pairs of runs significant under both, in the same direction: against the assessor's qrels of the seed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "domains::assessor_count"
    )]
    pub assessor_kept: Option<Option<usize>>,
    /// Pairs of runs significant under the reference only: against the assessor's qrels of the seed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "domains::assessor_count"
    )]
    pub assessor_lost: Option<Option<usize>>,
    /// Pairs of runs significant under both, in opposite directions: against the assessor's qrels of the seed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "domains::assessor_count"
    )]
    pub assessor_reversed: Option<Option<usize>>,
    /// Pairs of runs significant under this trial only: against the assessor's qrels of the seed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "domains::assessor_count"
    )]
    pub assessor_new: Option<Option<usize>>,
}

impl TableRow for BudgetRow {
    const FILE: &'static str = "budget.tsv";
    const ASSESSOR_COLUMNS: &'static [&'static str] = &[
        "assessor_tau_b",
        "assessor_recall",
        "assessor_kept",
        "assessor_lost",
        "assessor_reversed",
        "assessor_new",
    ];
}

impl BudgetRow {
    /// The row of `trial` (a trial's figures at `fraction`), with `full` its significant pairs
    /// against its seed's control at the whole budget.
    pub fn new(fraction: f64, trial: &TrialRow, full: Option<PairChanges>) -> Self {
        let [full_kept, full_lost, full_reversed, full_new] = counts(full);
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
            significant: trial.significant,
            official_kept: trial.official_kept,
            official_lost: trial.official_lost,
            official_reversed: trial.official_reversed,
            official_new: trial.official_new,
            paired_kept: trial.paired_kept,
            paired_lost: trial.paired_lost,
            paired_reversed: trial.paired_reversed,
            paired_new: trial.paired_new,
            held_out_kept: trial.held_out_kept,
            held_out_lost: trial.held_out_lost,
            held_out_reversed: trial.held_out_reversed,
            held_out_new: trial.held_out_new,
            full_kept,
            full_lost,
            full_reversed,
            full_new,
            truth_kept: trial.truth_kept,
            truth_lost: trial.truth_lost,
            truth_reversed: trial.truth_reversed,
            truth_new: trial.truth_new,
            assessor_tau_b: trial.assessor_tau_b,
            assessor_recall: trial.assessor_recall,
            assessor_kept: trial.assessor_kept,
            assessor_lost: trial.assessor_lost,
            assessor_reversed: trial.assessor_reversed,
            assessor_new: trial.assessor_new,
        }
    }
}
