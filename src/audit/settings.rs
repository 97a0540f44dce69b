//! What an audit does: its fixed constants, the verdict's rules with their defaults, and the
//! settings of one audit (measures, features, rules, study, evidence, claims).

use std::path::PathBuf;

use super::claims::baselines::ClaimSettings;
use crate::base::error::{Error, Result};
use crate::collection::FeatureChoice;
use crate::eval::Measure;
use crate::relevance_model::model::MODEL_DEPTH;
use crate::relevance_model::reach::BeyondPool;
use crate::relevance_model::trials::AbsenceSource;

/// How deep the audit looks into the run: unjudged documents beyond it count as non-relevant.
pub const AUDIT_DEPTH: usize = MODEL_DEPTH;

/// The measures audited when none is named.
pub const DEFAULT_AUDIT_MEASURES: &str = "map,P_10,ndcg_cut_10";

/// Monte-Carlo samples per topic.
pub const SAMPLES: usize = 200;

/// The seed of the Monte-Carlo streams (mixed with the topic id).
pub const AUDIT_SEED: u64 = 8;

/// A measure is at risk when the probability that the run's rank moves exceeds this; the list
/// stops once the remaining probability is at most this. Chosen by the backtest on
/// TREC-COVID round 1 (`docs/audit.md`).
pub const RISK_THRESHOLD: f64 = 0.2;

/// The list of documents to judge stops once every at-risk measure's remaining probability of
/// a rank move is at most this: lower than the verdict's threshold, so that a judged list
/// settles the rank rather than only tipping it below the verdict. Chosen by the backtest on
/// TREC-COVID round 1 (`docs/audit.md`).
pub const SETTLE_THRESHOLD: f64 = 0.1;

/// A rank moves when it changes by at least this many places: a change of one place is within
/// the noise of near-tied runs, and "within one place of the truth" is what the backtest
/// checks a settled rank by.
pub const RANK_MARGIN: f64 = 2.0;

/// At most this many documents of one topic in the list to judge: an assessor's share per
/// topic. Beyond the pool's reach a run's unjudged documents are many and each is rarely
/// relevant, so settling a deep measure such as MAP could take the whole top; the list then
/// stops at the documents that settle most per topic, and the verdict gives the probability
/// that remains.
pub const LIST_PER_TOPIC: usize = 5;

/// Seeds of a study run on the spot.
pub const SPOT_STUDY_SEEDS: u64 = 2;

/// Pegasos iterations per retrain in a study run on the spot (HiCAL: 200,000).
pub const SPOT_STUDY_ITERATIONS: usize = 20_000;

/// The largest study (seeds × (held-out teams + 1) × topics units) run on the spot.
pub const MAX_SPOT_STUDY_UNITS: usize = 1_000;

/// The team name given to the audited run when it is added to the task.
pub const AUDITED_TEAM: &str = "(audited)";

/// The verdict's rules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AuditRules {
    /// A measure is at risk when P(rank moves) exceeds this.
    pub risk_threshold: f64,
    /// The list stops once the remaining P(rank moves) is at most this.
    pub settle_threshold: f64,
    /// A rank moves when it changes by at least this.
    pub rank_margin: f64,
    /// At most this many documents to judge.
    pub budget: Option<usize>,
    /// How documents beyond the pool's reach are treated.
    pub beyond_pool: BeyondPool,
    /// At most this many documents of one topic in the list (None: no cap).
    pub list_per_topic: Option<usize>,
}

impl Default for AuditRules {
    fn default() -> Self {
        Self {
            risk_threshold: RISK_THRESHOLD,
            settle_threshold: SETTLE_THRESHOLD,
            rank_margin: RANK_MARGIN,
            budget: None,
            beyond_pool: BeyondPool::Extrapolated,
            list_per_topic: Some(LIST_PER_TOPIC),
        }
    }
}

impl AuditRules {
    /// Checks the rules.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a threshold outside [0, 1), a settle threshold above the risk
    /// threshold, or a margin that is not positive.
    pub fn check(self) -> Result<Self> {
        for (name, value) in [
            ("risk", self.risk_threshold),
            ("settle", self.settle_threshold),
        ] {
            if !(0.0..1.0).contains(&value) {
                return Err(Error::Invalid(format!(
                    "expected a {name} threshold in [0, 1), found {value}"
                )));
            }
        }
        if self.settle_threshold > self.risk_threshold {
            return Err(Error::Invalid(format!(
                "expected a settle threshold at most the risk threshold ({}), found {}",
                self.risk_threshold, self.settle_threshold
            )));
        }
        if !(self.rank_margin.is_finite() && self.rank_margin > 0.0) {
            return Err(Error::Invalid(format!(
                "expected a positive rank margin, found {}",
                self.rank_margin
            )));
        }
        Ok(self)
    }
}

/// Where the leave-team-out comparison comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum StudySource {
    /// `runs.tsv` in this folder (written by `reusesim simulate --out`).
    Results(PathBuf),
    /// A short study now, with this many seeds (skipped when too large).
    OnTheSpot {
        /// The number of seeds.
        seeds: u64,
    },
    /// No comparison.
    Skip,
}

/// What to audit and how.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditSettings {
    /// The measures to give intervals for.
    pub measures: Vec<Measure>,
    /// Text or run features (auto: text when the task has a corpus and topic texts).
    pub features: FeatureChoice,
    /// The verdict's rules and the budget.
    pub rules: AuditRules,
    /// The leave-team-out comparison.
    pub study: StudySource,
    /// Where the calibration learns what a team's absence leaves unjudged: the pool, or the
    /// trials the study of `study` kept.
    pub evidence: AbsenceSource,
    /// The claims against baselines, and their test.
    pub claims: ClaimSettings,
    /// A secondary assessor's labels (qrels form), weighed as evidence by the calibration.
    pub labels: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_outside_their_ranges_are_refused() {
        let good = AuditRules::default();
        assert_eq!(good.check().unwrap(), good);
        for threshold in [-0.1, 1.0, f64::NAN] {
            let rules = AuditRules {
                risk_threshold: threshold,
                ..good
            };
            let error = rules.check().unwrap_err().to_string();
            assert!(
                error.contains("expected a risk threshold in [0, 1)"),
                "{error}"
            );
        }
        let rules = AuditRules {
            settle_threshold: 0.9,
            ..good
        };
        let error = rules.check().unwrap_err().to_string();
        assert!(
            error.contains("expected a settle threshold at most"),
            "{error}"
        );
        let rules = AuditRules {
            rank_margin: 0.0,
            ..good
        };
        let error = rules.check().unwrap_err().to_string();
        assert!(error.contains("expected a positive rank margin"), "{error}");
    }
}
