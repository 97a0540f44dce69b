//! What a backtest does: its world, where the simulated world's trials come from, and the
//! settings checked once.

use std::path::PathBuf;

use crate::audit::AuditRules;
use crate::base::choice::choice_enum;
use crate::base::error::{Error, Result};
use crate::collection::FeatureChoice;
use crate::eval::Measure;
use crate::judge::settings::JudgeSettings;
use crate::relevance_model::reach::BeyondPool;
use crate::relevance_model::trials::AbsenceSource;
use crate::stats::comparison::TestSettings;

choice_enum! {
    /// How the collection without a team is built.
    pub enum World {
        /// The official qrels less the team's unique documents.
        Classic = "classic",
        /// The qrels of the team's leave-out trial.
        Simulated = "simulated",
        /// The official qrels as they are; the truth of each run is completed from a deeper
        /// qrels file (later rounds' judgments of the same topics).
        Deeper = "deeper",
    }
}

impl World {
    /// The calibration's evidence that mirrors how the world was judged: the pool in the
    /// classic world, the other teams' trials in the simulated one.
    pub fn default_evidence(self) -> AbsenceSource {
        match self {
            World::Classic | World::Deeper => AbsenceSource::Pool,
            World::Simulated => AbsenceSource::Trials,
        }
    }

    /// How the audit treats documents beyond the pool's reach to match the world's truth: the
    /// classic and simulated worlds' truths presume non-relevant whatever the official judging
    /// never judged, so the audit is asked what the collection would have said; the deeper
    /// world's truth reaches beyond the pool, so the audit extrapolates there.
    pub fn beyond_pool(self) -> BeyondPool {
        match self {
            World::Classic | World::Simulated => BeyondPool::NonRelevant,
            World::Deeper => BeyondPool::Extrapolated,
        }
    }
}

/// Where the simulated world's trial qrels come from.
#[derive(Debug, Clone, PartialEq)]
pub enum TrialSource {
    /// `DIR/qrels/{team}-s{seed}.qrels`, written by `simulate --keep-qrels --out DIR`.
    Results {
        /// The results folder.
        dir: PathBuf,
        /// The seed whose trials are used.
        seed: u64,
    },
    /// A study judged here: `--withhold uniques`, seed 1, with this judge.
    Study(JudgeSettings),
}

/// What the backtest does.
#[derive(Debug, Clone, PartialEq)]
pub struct BacktestSettings {
    /// The world.
    pub world: World,
    /// The measures.
    pub measures: Vec<Measure>,
    /// The audit's features.
    pub features: FeatureChoice,
    /// The audit's verdict rules.
    pub rules: AuditRules,
    /// The teams to leave out (default: every team with a pooled run).
    pub teams: Option<Vec<String>>,
    /// With the simulated world: where its qrels come from.
    pub trials: TrialSource,
    /// Where the audit's calibration learns what a team's absence loses: the pool, or (in the
    /// simulated world) the other teams' trials.
    pub evidence: AbsenceSource,
    /// With the deeper world: the qrels file whose grades complete each run's truth.
    pub truth_qrels: Option<PathBuf>,
    /// With the deeper world: the runs to audit (default: the task's runs that were not
    /// pooled).
    pub runs: Option<Vec<String>>,
    /// The test of each audited run's claims against its baselines, corrected over the run's
    /// claims of one measure.
    pub significance: TestSettings,
    /// A secondary assessor's labels (qrels form), weighed by every audit's calibration; in
    /// the simulated world the labels of documents the collection never judged come from the
    /// file too.
    pub labels: Option<PathBuf>,
}

impl BacktestSettings {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`Error::Invalid`] for trials as evidence outside the simulated world, which alone has
    /// them; for the deeper world without a truth qrels file; for a truth file or a run list
    /// in another world.
    pub fn check(self) -> Result<Self> {
        if self.world != World::Simulated && self.evidence == AbsenceSource::Trials {
            return Err(Error::Invalid(format!(
                "expected the simulated world for a calibration on trials: the {} world has no \
                 trials",
                self.world
            )));
        }
        match (self.world, &self.truth_qrels, &self.runs) {
            (World::Deeper, None, _) => Err(Error::Invalid(
                "expected --truth-qrels FILE with the deeper world: the qrels whose grades \
                 complete each run's truth"
                    .into(),
            )),
            (World::Classic | World::Simulated, Some(_), _) => Err(Error::Invalid(format!(
                "expected the deeper world for a truth qrels file: the {} world's truth is the \
                 official qrels",
                self.world
            ))),
            (World::Classic | World::Simulated, _, Some(_)) => Err(Error::Invalid(format!(
                "expected the deeper world for a list of runs: the {} world audits every run \
                 of each team left out",
                self.world
            ))),
            _ => Ok(self),
        }
    }
}
