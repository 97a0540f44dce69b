//! What a backtest finds: a row per audited run and measure, and the probabilities of the
//! unjudged documents beside their true grades.

use serde::{Deserialize, Serialize};

use super::settings::World;
use crate::audit::claims::ClaimVerdict;
use crate::relevance_model::trials::AbsenceSource;
use crate::sim::analysis::files::TableRow;
use crate::stats::pair_changes::Direction;

/// One audited run and measure: a row of `backtest.tsv`, its fields the columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(Default))]
pub struct BacktestRow {
    /// The team left out.
    pub team: String,
    /// The audited run.
    pub run: String,
    /// The measure.
    pub measure: String,
    /// Topics audited.
    pub topics: usize,
    /// The run's score on the world completed for it with the official grades.
    pub true_score: f64,
    /// Its rank among all runs scored on those completed judgments.
    pub true_rank: f64,
    /// Its score on the world (what the collection says).
    pub collection_score: f64,
    /// Its rank among all runs on the world.
    pub collection_rank: f64,
    /// The audit's expected score.
    pub expected_score: f64,
    /// The upper end of the audit's interval.
    pub upper: f64,
    /// The median of the audit's sampled scores.
    pub median_score: f64,
    /// The 5% quantile of the audit's sampled scores.
    pub sample_low: f64,
    /// The 95% quantile.
    pub sample_high: f64,
    /// Webber & Park's score adjustment.
    pub webber_park_score: f64,
    /// The anti-precision correction (precision measures only).
    pub anti_precision_score: Option<f64>,
    /// Condensed-list scoring: the run's score on the world with its unjudged documents
    /// dropped (measures with a condensed variant, not condensed already).
    pub condensed_score: Option<f64>,
    /// The upper end of RBP's residual interval: RBP plus its residual on the world, whose
    /// lower end is the collection's score (RBP only).
    pub rbp_residual_upper: Option<f64>,
    /// The audit's probability that the run's rank moves.
    pub probability_rank_moves: f64,
    /// Whether the audit put this measure at risk.
    pub is_at_risk: bool,
    /// Whether the audit's verdict asks for judgments (any measure at risk).
    pub needs_judging: bool,
    /// The length of the audit's list.
    pub list_size: usize,
    /// The listed documents the truth's grades judge relevant.
    pub list_relevant: usize,
    /// The documents of the run's unjudged top [`AUDIT_DEPTH`] that the truth's grades judge
    /// relevant: what a list would have to find to settle a deep measure.
    pub unjudged_relevant: usize,
    /// The run's score after judging the list with the official grades.
    pub judged_score: f64,
    /// Its rank among all runs scored on the world plus the judged list.
    pub judged_rank: f64,
    /// Its rank after judging only the first `k` documents of the list (in the list's order,
    /// across topics), for `k` from 0 (the collection's rank) to `list_size` (`judged_rank`):
    /// the list's curve ([`super::summary::ListCurvePoint`]). Not a column of the table.
    #[serde(skip)]
    pub ranks_after_list_prefixes: Vec<f64>,
    /// The run's score after judging the oracle's list: as many documents per topic as the
    /// audit's list, chosen knowing the truth ([`oracle_list`]): how far judging that many
    /// documents can raise the run's own score. No ceiling on its rank, since the other runs
    /// rise with the same documents.
    pub oracle_judged_score: f64,
    /// Its rank among all runs scored on the world plus the oracle's list.
    pub oracle_judged_rank: f64,
    /// The share of the run's unjudged top [`AUDIT_DEPTH`] (over its topics) that the truth's
    /// grades cover; the rest count as non-relevant in the truth.
    pub truth_coverage: f64,
    /// The part of the expected score that documents beyond the pool's reach bring: what rests
    /// on extrapolation.
    pub expected_extrapolated: f64,
    /// In the deeper world, the audit's expected score with only the unjudged documents that
    /// the truth's grades cover allowed to be relevant: its estimate of the true score, which
    /// counts the others non-relevant.
    pub truth_judged_expected: Option<f64>,
    /// The 5% quantile of the audit's sampled scores so restricted.
    pub truth_judged_sample_low: Option<f64>,
    /// The 95% quantile.
    pub truth_judged_sample_high: Option<f64>,
    /// The restricted audit's probability that the run's rank moves: its verdict on the
    /// quantity a lower-bound truth measures.
    pub truth_judged_probability_rank_moves: Option<f64>,
    /// Whether the restricted audit put this measure at risk.
    pub truth_judged_is_at_risk: Option<bool>,
    /// With labels: the run's score on the world with each labelled unjudged document of its
    /// top taking its label as its grade (naive filling).
    pub labels_filled_score: Option<f64>,
    /// With labels: its mean score with each such document's grade drawn from the world's
    /// table of grade against label ([`super::label_fill`]).
    pub labels_table_score: Option<f64>,
}

impl TableRow for BacktestRow {
    const FILE: &'static str = "backtest.tsv";
}

/// One unjudged document of an audited run's top, with its probability and true grade: the
/// reliability table's raw material.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbabilityOutcome {
    /// The calibrated probability of relevance.
    pub probability: f64,
    /// Its rank in the run.
    pub rank: usize,
    /// Whether the truth's grades judge it relevant (not judged: not relevant).
    pub is_relevant: bool,
    /// Whether the truth's grades judge it at all.
    pub is_judged: bool,
}

/// One claim of an audited run against a baseline by a measure, each predictor's outcome
/// beside the truth's. A claim's outcome is its direction: which run is significantly better,
/// the audited one ([`Direction::First`]) or the baseline, or neither.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimOutcome {
    /// The audited run.
    pub run: String,
    /// The baseline.
    pub baseline: String,
    /// How the baseline was chosen: `best`, `above` or `below`.
    pub chosen_as: String,
    /// The measure.
    pub measure: String,
    /// The direction the collection's difference points (significant or not): the claim.
    pub claimed: Direction,
    /// The collection's outcome.
    pub collection: Direction,
    /// The outcome on condensed lists (`None` for a measure without a condensed variant).
    pub condensed: Option<Direction>,
    /// The audit's prediction.
    pub audit: ClaimPrediction,
    /// The prediction of the audit restricted to the documents the truth grades (deeper
    /// world).
    pub restricted: Option<ClaimPrediction>,
    /// The outcome on the truth's judgments.
    pub truth: Direction,
}

/// An audit's prediction of a claim's outcome.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClaimPrediction {
    /// The probability that the difference is significant as claimed.
    pub probability: f64,
    /// The most probable outcome (the collection's on a tie).
    pub outcome: Direction,
    /// The verdict on the claim.
    pub verdict: ClaimVerdict,
    /// Whether the audit says judging its list cannot settle the claim.
    pub cannot_settle: bool,
    /// The outcome once the audit's list is judged with the truth's grades.
    pub after_list: Direction,
}

/// Everything the backtest found.
#[derive(Debug, Clone)]
pub struct BacktestOutcome {
    /// The task.
    pub task: String,
    /// The world.
    pub world: World,
    /// The calibration's evidence.
    pub evidence: AbsenceSource,
    /// The teams left out.
    pub teams: Vec<String>,
    /// One row per audited run and measure.
    pub rows: Vec<BacktestRow>,
    /// The unjudged documents of every audited run's top.
    pub probabilities: Vec<ProbabilityOutcome>,
    /// Every audited run's claims against its baselines.
    pub claims: Vec<ClaimOutcome>,
    /// Every audited run's list serving its ranks and claims: its length.
    pub claim_lists: Vec<usize>,
    /// The same of the audit restricted to the documents the truth grades (deeper world;
    /// empty elsewhere).
    pub restricted_claim_lists: Vec<usize>,
}
