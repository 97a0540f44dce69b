//! The rows of the study's tables, one struct per file, each with its column list, its writer
//! and its reader: `runs.tsv`, `lou.tsv`, `trials.tsv`, `heldout.tsv` and `ranks.tsv`.

use super::{Fields, TableRow};
use crate::base::error::Result;
use crate::stats::Spread;

/// A number as the tables write it: `NA` when undefined.
pub(super) fn optional(value: Option<f64>) -> String {
    value.map_or_else(|| "NA".to_string(), |v| v.to_string())
}

/// The held-out team of a trial as the tables spell it (`control` for the control trial).
pub(super) fn held_out_name(held_out: Option<&str>) -> String {
    held_out.unwrap_or(CONTROL).to_string()
}

/// The name of the control trial in the tables and in kept qrels' file names.
pub const CONTROL: &str = "control";

/// One run's figures for one measure (`runs.tsv`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
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

impl TableRow for RunRow {
    const FILE: &'static str = "runs.tsv";
    const COLUMNS: &'static [&'static str] = &[
        "run",
        "team",
        "measure",
        "official_score",
        "official_rank",
        "lou_score_mean",
        "lou_score_min",
        "lou_score_max",
        "lou_rank_min",
        "lou_rank_mean",
        "lou_rank_max",
        "dominant_rank",
        "dominant_rank_frequency",
        "trials_dominant_rank",
        "trials_dominant_rank_share",
        "truth_score",
    ];

    fn fields(&self) -> Vec<String> {
        vec![
            self.run.clone(),
            self.team.clone(),
            self.measure.clone(),
            self.official_score.to_string(),
            self.official_rank.to_string(),
            self.lou_score.mean.to_string(),
            self.lou_score.min.to_string(),
            self.lou_score.max.to_string(),
            self.lou_rank.min.to_string(),
            self.lou_rank.mean.to_string(),
            self.lou_rank.max.to_string(),
            self.dominant_rank.to_string(),
            self.dominant_rank_frequency.to_string(),
            self.trials_dominant_rank.to_string(),
            self.trials_dominant_rank_share.to_string(),
            optional(self.truth_score),
        ]
    }

    fn parse(row: &Fields) -> Result<Self> {
        Ok(Self {
            run: row.text(0)?,
            team: row.text(1)?,
            measure: row.text(2)?,
            official_score: row.score(3)?,
            official_rank: row.rank(4)?,
            lou_score: Spread {
                mean: row.score(5)?,
                min: row.score(6)?,
                max: row.score(7)?,
            },
            lou_rank: Spread {
                min: row.rank(8)?,
                mean: row.rank(9)?,
                max: row.rank(10)?,
            },
            dominant_rank: row.rank(11)?,
            dominant_rank_frequency: row.count(12)?,
            trials_dominant_rank: row.rank(13)?,
            trials_dominant_rank_share: row.fraction(14)?,
            truth_score: row
                .optional_number(15)?
                .map(|_| row.score(15))
                .transpose()?,
        })
    }
}

/// One seed's LOU score and rank of one run (`lou.tsv`).
#[derive(Debug, Clone, PartialEq)]
pub struct LouRow {
    /// Seed.
    pub seed: u64,
    /// Run tag.
    pub run: String,
    /// Team.
    pub team: String,
    /// Measure name.
    pub measure: String,
    /// The run's score on its own team's held-out qrels.
    pub score: f64,
    /// The run's rank in that seed's LOU ranking.
    pub rank: f64,
}

impl TableRow for LouRow {
    const FILE: &'static str = "lou.tsv";
    const COLUMNS: &'static [&'static str] = &["seed", "run", "team", "measure", "score", "rank"];

    fn fields(&self) -> Vec<String> {
        vec![
            self.seed.to_string(),
            self.run.clone(),
            self.team.clone(),
            self.measure.clone(),
            self.score.to_string(),
            self.rank.to_string(),
        ]
    }

    fn parse(row: &Fields) -> Result<Self> {
        Ok(Self {
            seed: row.seed(0)?,
            run: row.text(1)?,
            team: row.text(2)?,
            measure: row.text(3)?,
            score: row.score(4)?,
            rank: row.rank(5)?,
        })
    }
}

/// One trial's figures for one measure (`trials.tsv`).
#[derive(Debug, Clone, PartialEq)]
pub struct TrialRow {
    /// Seed.
    pub seed: u64,
    /// The held-out team, `None` for the control trial.
    pub held_out: Option<String>,
    /// Measure name.
    pub measure: String,
    /// tau_b of the trial's ranking of all runs against the official one (`None`: undefined).
    pub tau_b: Option<f64>,
    /// tau_ap against the official ranking.
    pub tau_ap: Option<f64>,
    /// tau_b of the trial's ranking against the control trial's of the same seed (`None` for
    /// the control itself): the leave-out effect without the simulation's own noise.
    pub paired_tau_b: Option<f64>,
    /// tau_ap of the trial's ranking against the control trial's of the same seed.
    pub paired_tau_ap: Option<f64>,
    /// The fraction of official judgments the trial's qrels hold.
    pub overlap: f64,
    /// The fraction of officially relevant documents the trial found.
    pub recall: f64,
    /// Documents withheld from the simulated assessor, over all topics.
    pub withheld: usize,
}

impl TableRow for TrialRow {
    const FILE: &'static str = "trials.tsv";
    const COLUMNS: &'static [&'static str] = &[
        "seed",
        "held_out",
        "measure",
        "tau_b",
        "tau_ap",
        "paired_tau_b",
        "paired_tau_ap",
        "overlap",
        "recall",
        "withheld",
    ];

    fn fields(&self) -> Vec<String> {
        vec![
            self.seed.to_string(),
            held_out_name(self.held_out.as_deref()),
            self.measure.clone(),
            optional(self.tau_b),
            optional(self.tau_ap),
            optional(self.paired_tau_b),
            optional(self.paired_tau_ap),
            self.overlap.to_string(),
            self.recall.to_string(),
            self.withheld.to_string(),
        ]
    }

    fn parse(row: &Fields) -> Result<Self> {
        Ok(Self {
            seed: row.seed(0)?,
            held_out: row.held_out(1)?,
            measure: row.text(2)?,
            tau_b: row.tau(3)?,
            tau_ap: row.tau(4)?,
            paired_tau_b: row.tau(5)?,
            paired_tau_ap: row.tau(6)?,
            overlap: row.fraction(7)?,
            recall: row.fraction(8)?,
            withheld: row.count(9)?,
        })
    }
}

/// One held-out run in one trial (`heldout.tsv`).
#[derive(Debug, Clone, PartialEq)]
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

impl TableRow for HeldOutRow {
    const FILE: &'static str = "heldout.tsv";
    const COLUMNS: &'static [&'static str] = &[
        "seed",
        "team",
        "run",
        "measure",
        "score",
        "rank",
        "official_score",
        "official_rank",
        "control_score",
        "control_rank",
        "paired_score_change",
        "paired_rank_change",
    ];

    fn fields(&self) -> Vec<String> {
        vec![
            self.seed.to_string(),
            self.team.clone(),
            self.run.clone(),
            self.measure.clone(),
            self.score.to_string(),
            self.rank.to_string(),
            self.official_score.to_string(),
            self.official_rank.to_string(),
            self.control_score.to_string(),
            self.control_rank.to_string(),
            self.paired_score_change().to_string(),
            self.paired_rank_change().to_string(),
        ]
    }

    fn parse(row: &Fields) -> Result<Self> {
        Ok(Self {
            seed: row.seed(0)?,
            team: row.text(1)?,
            run: row.text(2)?,
            measure: row.text(3)?,
            score: row.score(4)?,
            rank: row.rank(5)?,
            official_score: row.score(6)?,
            official_rank: row.rank(7)?,
            control_score: row.score(8)?,
            control_rank: row.rank(9)?,
        })
    }
}

/// One run's score and rank in one trial (`ranks.tsv`): the data behind the ranks of every run
/// across all trials.
#[derive(Debug, Clone, PartialEq)]
pub struct RankRow {
    /// Seed.
    pub seed: u64,
    /// The held-out team, `None` for the control trial.
    pub held_out: Option<String>,
    /// Run tag.
    pub run: String,
    /// Team.
    pub team: String,
    /// Measure name.
    pub measure: String,
    /// The run's score on the trial's qrels.
    pub score: f64,
    /// Its rank among all runs on the trial's qrels.
    pub rank: f64,
}

impl TableRow for RankRow {
    const FILE: &'static str = "ranks.tsv";
    const COLUMNS: &'static [&'static str] =
        &["seed", "trial", "run", "team", "measure", "score", "rank"];

    fn fields(&self) -> Vec<String> {
        vec![
            self.seed.to_string(),
            held_out_name(self.held_out.as_deref()),
            self.run.clone(),
            self.team.clone(),
            self.measure.clone(),
            self.score.to_string(),
            self.rank.to_string(),
        ]
    }

    fn parse(row: &Fields) -> Result<Self> {
        Ok(Self {
            seed: row.seed(0)?,
            held_out: row.held_out(1)?,
            run: row.text(2)?,
            team: row.text(3)?,
            measure: row.text(4)?,
            score: row.score(5)?,
            rank: row.rank(6)?,
        })
    }
}
