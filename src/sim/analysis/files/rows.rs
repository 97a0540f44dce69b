//! The rows of the study's tables, one struct per file: `runs.tsv`, `lou.tsv`, `trials.tsv`,
//! `heldout.tsv` and `ranks.tsv`. A struct's fields, in order, are the file's columns (for
//! `trials.tsv`, its columns and groups of columns, [`super::wide`]); its serde attributes say
//! what each column may hold ([`super::domains`]).

use serde::{Deserialize, Serialize};

use super::domains;
use super::table::TableRow;
use super::wide::wide_row;
use crate::stats::Spread;

/// One run's figures for one measure (`runs.tsv`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "RunRecord", into = "RunRecord")]
pub struct RunRow {
    /// Run tag.
    pub run: String,
    /// Team.
    pub team: String,
    /// Measure name.
    pub measure: String,
    /// Official score.
    pub official_score: f64,
    /// Official rank (1 = best, average for ties).
    pub official_rank: f64,
    /// LOU score over seeds.
    pub lou_score: Spread,
    /// LOU rank over seeds.
    pub lou_rank: Spread,
    /// The most frequent LOU rank over seeds (the better one on a tie).
    pub dominant_rank: f64,
    /// How many seeds gave the dominant rank.
    pub dominant_rank_frequency: usize,
    /// The most frequent rank of the run over every trial (control and held-out trials of every
    /// seed; the better one on a tie).
    pub trials_dominant_rank: f64,
    /// The share of trials that gave it.
    pub trials_dominant_rank_share: f64,
    /// Score under the complete truth, on tasks with a truth file.
    pub truth_score: Option<f64>,
}

/// A line of `runs.tsv`: a [`RunRow`] with its spreads spelled out column by column.
#[derive(Serialize, Deserialize)]
pub struct RunRecord {
    #[serde(deserialize_with = "domains::non_empty")]
    run: String,
    #[serde(deserialize_with = "domains::non_empty")]
    team: String,
    #[serde(deserialize_with = "domains::non_empty")]
    measure: String,
    #[serde(with = "domains::score")]
    official_score: f64,
    #[serde(with = "domains::rank")]
    official_rank: f64,
    #[serde(with = "domains::score")]
    lou_score_mean: f64,
    #[serde(with = "domains::score")]
    lou_score_min: f64,
    #[serde(with = "domains::score")]
    lou_score_max: f64,
    #[serde(with = "domains::rank")]
    lou_rank_min: f64,
    #[serde(with = "domains::rank")]
    lou_rank_mean: f64,
    #[serde(with = "domains::rank")]
    lou_rank_max: f64,
    #[serde(with = "domains::rank")]
    dominant_rank: f64,
    #[serde(deserialize_with = "domains::whole")]
    dominant_rank_frequency: usize,
    #[serde(with = "domains::rank")]
    trials_dominant_rank: f64,
    #[serde(with = "domains::fraction")]
    trials_dominant_rank_share: f64,
    #[serde(with = "domains::optional_score")]
    truth_score: Option<f64>,
}

impl TableRow for RunRow {
    const FILE: &'static str = "runs.tsv";
}

impl From<RunRow> for RunRecord {
    fn from(row: RunRow) -> Self {
        Self {
            run: row.run,
            team: row.team,
            measure: row.measure,
            official_score: row.official_score,
            official_rank: row.official_rank,
            lou_score_mean: row.lou_score.mean,
            lou_score_min: row.lou_score.min,
            lou_score_max: row.lou_score.max,
            lou_rank_min: row.lou_rank.min,
            lou_rank_mean: row.lou_rank.mean,
            lou_rank_max: row.lou_rank.max,
            dominant_rank: row.dominant_rank,
            dominant_rank_frequency: row.dominant_rank_frequency,
            trials_dominant_rank: row.trials_dominant_rank,
            trials_dominant_rank_share: row.trials_dominant_rank_share,
            truth_score: row.truth_score,
        }
    }
}

impl From<RunRecord> for RunRow {
    fn from(record: RunRecord) -> Self {
        Self {
            run: record.run,
            team: record.team,
            measure: record.measure,
            official_score: record.official_score,
            official_rank: record.official_rank,
            lou_score: Spread {
                mean: record.lou_score_mean,
                min: record.lou_score_min,
                max: record.lou_score_max,
            },
            lou_rank: Spread {
                min: record.lou_rank_min,
                mean: record.lou_rank_mean,
                max: record.lou_rank_max,
            },
            dominant_rank: record.dominant_rank,
            dominant_rank_frequency: record.dominant_rank_frequency,
            trials_dominant_rank: record.trials_dominant_rank,
            trials_dominant_rank_share: record.trials_dominant_rank_share,
            truth_score: record.truth_score,
        }
    }
}

/// One seed's LOU score and rank of one run (`lou.tsv`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LouRow {
    /// Seed.
    #[serde(deserialize_with = "domains::whole")]
    pub seed: u64,
    /// Run tag.
    #[serde(deserialize_with = "domains::non_empty")]
    pub run: String,
    /// Team.
    #[serde(deserialize_with = "domains::non_empty")]
    pub team: String,
    /// Measure name.
    #[serde(deserialize_with = "domains::non_empty")]
    pub measure: String,
    /// The run's score on its own team's held-out qrels.
    #[serde(with = "domains::score")]
    pub score: f64,
    /// The run's rank in that seed's LOU ranking.
    #[serde(with = "domains::rank")]
    pub rank: f64,
}

impl TableRow for LouRow {
    const FILE: &'static str = "lou.tsv";
}

wide_row! {
    /// One trial's figures for one measure (`trials.tsv`).
    #[derive(Debug, Clone, PartialEq)]
    pub struct TrialRow as TrialRecord in "trials.tsv" {
        /// Seed.
        #[serde(deserialize_with = "domains::whole")]
        pub seed: u64,
        /// The held-out team, `None` for the control trial.
        #[serde(with = "domains::trial")]
        pub held_out: Option<String>,
        /// Measure name.
        #[serde(deserialize_with = "domains::non_empty")]
        pub measure: String,
        /// tau_b of the trial's ranking of all runs against the official one (`None`: undefined).
        #[serde(with = "domains::tau")]
        pub tau_b: Option<f64>,
        /// tau_ap against the official ranking.
        #[serde(with = "domains::tau")]
        pub tau_ap: Option<f64>,
        /// tau_b of the trial's ranking against the control trial's of the same seed (`None` for
        /// the control itself): the leave-out effect without the simulation's own noise.
        #[serde(with = "domains::tau")]
        pub paired_tau_b: Option<f64>,
        /// tau_ap of the trial's ranking against the control trial's of the same seed.
        #[serde(with = "domains::tau")]
        pub paired_tau_ap: Option<f64>,
        /// The fraction of official judgments the trial's qrels hold, carried ones included.
        #[serde(with = "domains::fraction")]
        pub overlap: f64,
        /// The fraction of officially relevant documents the trial's qrels hold, carried ones
        /// included.
        #[serde(with = "domains::fraction")]
        pub recall: f64,
        /// Official judgments carried into the trial's qrels unchanged, over all topics.
        #[serde(deserialize_with = "domains::whole")]
        pub carried: usize,
        /// The fraction of official judgments of candidate documents that the pool or CAL judged.
        #[serde(with = "domains::fraction")]
        pub overlap_found: f64,
        /// The fraction of officially relevant candidate documents that the pool or CAL judged.
        #[serde(with = "domains::fraction")]
        pub recall_found: f64,
        /// Documents withheld from the simulated assessor, over all topics.
        #[serde(deserialize_with = "domains::whole")]
        pub withheld: usize,
        /// Pairs of runs significantly different on the trial's qrels (`NA`: fewer than 2 topics).
        #[serde(with = "domains::optional_count")]
        pub significant: Option<usize>,
    }
    counts of usize with "domains::optional_count" {
        /// The significant pairs of the trial against the official qrels.
        pub official: official_kept official_lost official_reversed official_new,
        /// The trial against its seed's control (`NA` for the control).
        pub paired: paired_kept paired_lost paired_reversed paired_new,
        /// The same over the pairs that involve a run of the held-out team.
        pub held_out_pairs: held_out_kept held_out_lost held_out_reversed held_out_new,
        /// The trial against the truth (`NA` without one).
        pub truth: truth_kept truth_lost truth_reversed truth_new,
    }
    optional {
        /// With an assessor other than the official one: tau_b of the trial's ranking against
        /// the assessor's ranking of its seed (the column is absent otherwise).
        #[serde(with = "domains::assessor_tau")]
        pub assessor_tau_b: Option<Option<f64>>,
        /// tau_ap against the assessor's ranking of the seed.
        #[serde(with = "domains::assessor_tau")]
        pub assessor_tau_ap: Option<Option<f64>>,
        /// The fraction of the assessor's relevant documents within the judging's reach
        /// (retrieved by a run, or officially judged) that the trial's qrels hold.
        #[serde(with = "domains::assessor_fraction")]
        pub assessor_recall: Option<f64>,
    }
    optional counts with "domains::assessor_count" {
        /// The trial against the assessor's qrels of its seed (`None`: the official assessor,
        /// and the columns are absent).
        pub assessor: assessor_kept assessor_lost assessor_reversed assessor_new,
    }
}

/// One held-out run in one trial (`heldout.tsv`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "HeldOutRecord", into = "HeldOutRecord")]
pub struct HeldOutRow {
    /// Seed.
    pub seed: u64,
    /// The held-out team.
    pub team: String,
    /// Run tag.
    pub run: String,
    /// Measure name.
    pub measure: String,
    /// Score on the trial's qrels.
    pub score: f64,
    /// Rank among all runs on the trial's qrels.
    pub rank: f64,
    /// Official score.
    pub official_score: f64,
    /// Official rank.
    pub official_rank: f64,
    /// Score on the control trial's qrels of the same seed.
    pub control_score: f64,
    /// Rank among all runs on the control trial's qrels of the same seed.
    pub control_rank: f64,
}

impl HeldOutRow {
    /// The paired score change: the trial's score less the control's.
    pub fn paired_score_change(&self) -> f64 {
        self.score - self.control_score
    }

    /// The paired rank change: the trial's rank less the control's (positive = dropped).
    pub fn paired_rank_change(&self) -> f64 {
        self.rank - self.control_rank
    }
}

/// A line of `heldout.tsv`: a [`HeldOutRow`] and its paired changes, which are written for
/// readers of the file and computed again from the scores and ranks on reading.
#[derive(Serialize, Deserialize)]
pub struct HeldOutRecord {
    #[serde(deserialize_with = "domains::whole")]
    seed: u64,
    #[serde(deserialize_with = "domains::non_empty")]
    team: String,
    #[serde(deserialize_with = "domains::non_empty")]
    run: String,
    #[serde(deserialize_with = "domains::non_empty")]
    measure: String,
    #[serde(with = "domains::score")]
    score: f64,
    #[serde(with = "domains::rank")]
    rank: f64,
    #[serde(with = "domains::score")]
    official_score: f64,
    #[serde(with = "domains::rank")]
    official_rank: f64,
    #[serde(with = "domains::score")]
    control_score: f64,
    #[serde(with = "domains::rank")]
    control_rank: f64,
    #[serde(with = "domains::change")]
    paired_score_change: f64,
    #[serde(with = "domains::change")]
    paired_rank_change: f64,
}

impl TableRow for HeldOutRow {
    const FILE: &'static str = "heldout.tsv";
}

impl From<HeldOutRow> for HeldOutRecord {
    fn from(row: HeldOutRow) -> Self {
        let (paired_score_change, paired_rank_change) =
            (row.paired_score_change(), row.paired_rank_change());
        Self {
            seed: row.seed,
            team: row.team,
            run: row.run,
            measure: row.measure,
            score: row.score,
            rank: row.rank,
            official_score: row.official_score,
            official_rank: row.official_rank,
            control_score: row.control_score,
            control_rank: row.control_rank,
            paired_score_change,
            paired_rank_change,
        }
    }
}

impl From<HeldOutRecord> for HeldOutRow {
    fn from(record: HeldOutRecord) -> Self {
        Self {
            seed: record.seed,
            team: record.team,
            run: record.run,
            measure: record.measure,
            score: record.score,
            rank: record.rank,
            official_score: record.official_score,
            official_rank: record.official_rank,
            control_score: record.control_score,
            control_rank: record.control_rank,
        }
    }
}

/// One run's score and rank in one trial (`ranks.tsv`): the data behind the ranks of every run
/// across all trials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankRow {
    /// Seed.
    #[serde(deserialize_with = "domains::whole")]
    pub seed: u64,
    /// The held-out team, `None` for the control trial.
    #[serde(rename = "trial", with = "domains::trial")]
    pub held_out: Option<String>,
    /// Run tag.
    #[serde(deserialize_with = "domains::non_empty")]
    pub run: String,
    /// Team.
    #[serde(deserialize_with = "domains::non_empty")]
    pub team: String,
    /// Measure name.
    #[serde(deserialize_with = "domains::non_empty")]
    pub measure: String,
    /// The run's score on the trial's qrels.
    #[serde(with = "domains::score")]
    pub score: f64,
    /// Its rank among all runs on the trial's qrels.
    #[serde(with = "domains::rank")]
    pub rank: f64,
}

impl TableRow for RankRow {
    const FILE: &'static str = "ranks.tsv";
}
