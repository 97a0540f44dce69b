//! `budget.tsv` ([`BudgetRow`]): every trial's figures at every budget fraction.

use super::domains;
use super::rows::TrialRow;
use super::wide::{wide_row, Counts};
use crate::stats::pair_changes::PairChanges;

wide_row! {
    /// One trial's figures for one measure with each topic's judgments cut to a fraction of its
    /// budget (`budget.tsv`).
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct BudgetRow as BudgetRecord in "budget.tsv" {
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
    }
    counts of usize with "domains::optional_count" {
        /// The significant pairs against the official qrels.
        pub official: official_kept official_lost official_reversed official_new,
        /// Against the control of the same seed at the same fraction (`NA` for the control).
        pub paired: paired_kept paired_lost paired_reversed paired_new,
        /// The same over the pairs that involve a run of the held-out team.
        pub held_out_pairs: held_out_kept held_out_lost held_out_reversed held_out_new,
        /// Against the control of the same seed at the whole budget.
        pub full: full_kept full_lost full_reversed full_new,
        /// Against the truth (`NA` without one).
        pub truth: truth_kept truth_lost truth_reversed truth_new,
    }
    optional {
        /// With an assessor other than the official one: tau_b against the assessor's ranking
        /// of the seed (the column is absent otherwise).
        #[serde(with = "domains::assessor_tau")]
        pub assessor_tau_b: Option<Option<f64>>,
        /// The fraction of the assessor's relevant documents within reach that the cut qrels
        /// hold.
        #[serde(with = "domains::assessor_fraction")]
        pub assessor_recall: Option<f64>,
    }
    optional counts with "domains::assessor_count" {
        /// Against the assessor's qrels of the seed (`None`: the official assessor, and the
        /// columns are absent).
        pub assessor: assessor_kept assessor_lost assessor_reversed assessor_new,
    }
}

impl BudgetRow {
    /// The row of `trial` (a trial's figures at `fraction`), with `full` its significant pairs
    /// against its seed's control at the whole budget.
    pub fn new(fraction: f64, trial: &TrialRow, full: Option<PairChanges>) -> Self {
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
            official: trial.official,
            paired: trial.paired,
            held_out_pairs: trial.held_out_pairs,
            full: Counts::of(full),
            truth: trial.truth,
            assessor_tau_b: trial.assessor_tau_b,
            assessor_recall: trial.assessor_recall,
            assessor: trial.assessor,
        }
    }
}
