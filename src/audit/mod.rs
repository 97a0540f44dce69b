//! The audit of a new run: does an existing collection score it fairly, and if not, which
//! documents should be judged? The rules are in `docs/audit.md`; in short:
//!
//! - **Topics**: the run is audited on the topics in both the run and the task's qrels (as
//!   `eval` scores it). No common topic is an error naming the run file; qrels topics the run
//!   lacks give a [`Warning::TopicsMissing`]. A run whose tag is a task run's gives a
//!   [`Warning::RunInTask`] saying whether it was pooled; it then replaces that run.
//! - **Unjudged documents**: documents of the run's top [`AUDIT_DEPTH`] that the qrels do not
//!   judge (a negative grade counts as judged, as in `judged_k`). Deeper documents count as
//!   non-relevant in every figure.
//! - **Probability of relevance**: the judge model of [`crate::relevance_model::model`] (out-of-fold logistic
//!   regression per topic on the judgments plus presumed non-relevant unjudged documents),
//!   calibrated by [`crate::relevance_model::calibration`] on the collection's own leave-team-out evidence: the
//!   documents a single team brought, whose grades are known, and the unjudged ones.
//! - **Score interval** per measure: `lower` = every unjudged document non-relevant (the
//!   collection's score); `upper` = every unjudged document of the measure's depth relevant at
//!   the topic's highest grade (information only).
//! - **Expected score**: per topic, the exact first-order effect of each unjudged document
//!   (its probability times its score change alone) plus a Monte-Carlo estimate of what they do
//!   together ([`SAMPLES`] samples from a ChaCha8 stream seeded by ([`AUDIT_SEED`], topic)); a
//!   relevant document's grade is drawn from the topic's relevant grades scaled by the
//!   calibration's grade factors, and R (MAP) and the ideal ranking (nDCG) grow with every
//!   document found in the top [`AUDIT_DEPTH`], whatever the measure's cutoff.
//! - **Verdict**: a measure is at risk when the probability that the run's rank among the
//!   task's other runs moves by at least the rank margin exceeds the risk threshold ([`risk`]);
//!   the other runs' scores move with the audited run's documents too ([`others`]).
//!   The documents to judge are the shortest prefix of the unjudged documents, ordered by their
//!   share of the at-risk measures' expected squared movement relative to the runs within the
//!   run's reach, after which the remaining probability is at most the threshold; `--budget`
//!   caps it. An at-risk measure whose own whole list, within the cap per topic, would leave
//!   it above the threshold *cannot settle*: the verdict says so and the list serves the
//!   others.
//! - **Study**: the leave-team-out comparison from `--results DIR` or a short study on the spot,
//!   kept as information beside the verdict.
//!
//! How far these figures can be trusted on a collection is measured by `reusesim backtest`.

pub mod basis;
pub mod changes;
pub mod claims;
mod figure;
pub mod judged;
pub mod markdown;
pub mod merged;
pub mod others;
pub mod page;
pub mod report;
pub mod risk;
mod scenarios;
pub mod sheet;
pub mod study;
pub mod team;
pub mod topic;

use std::collections::BTreeSet;

use crate::base::error::{Error, Result, Warning};
use crate::collection::FeatureChoice;
use crate::eval::Measure;
use crate::io::run::Run;
use crate::io::task::Task;
use crate::io::teams::TeamEntry;
use crate::relevance_model::model;
use crate::relevance_model::reach::BeyondPool;
use crate::relevance_model::trials::AbsenceSource;

use claims::ClaimSettings;

pub use basis::{AuditBasis, RunAudit};
pub use changes::JudgedComparison;
pub use judged::{audit_with_judgments, read_judged, ReturnedJudgments};
pub use merged::{write_pool, MergedEntry};
pub use page::{audit_document, write_html, write_markdown};
pub use report::{AuditReport, AuditSettingsSummary, MeasureAudit, PoolEntry};
pub use scenarios::measure_depth;
pub use sheet::{write_sheet, DocumentTexts};
pub use study::{LouDrop, StudyComparison, StudySource};
pub use team::{audit_runs, TeamAuditReport};
pub use topic::{Coverage, ScoreInterval, TopicAudit, UnjudgedDoc};

/// How deep the audit looks into the run: unjudged documents beyond it count as non-relevant.
pub const AUDIT_DEPTH: usize = crate::relevance_model::MODEL_DEPTH;

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
}

/// The topic and run checks: the topics to audit, and warnings.
fn check_topics(task: &Task, run: &Run, warnings: &mut Vec<Warning>) -> Result<()> {
    let judged: BTreeSet<&str> = task.qrels.topics.keys().map(|t| &**t).collect();
    let ranked: BTreeSet<&str> = run.topics.iter().map(|t| &*t.topic).collect();
    if judged.is_disjoint(&ranked) {
        return Err(Error::Invalid(format!(
            "{}: run {:?} has no topic in common with the qrels of task {} (run topics: {}; \
             qrels topics: {})",
            run.path.display(),
            run.tag,
            task.manifest.name,
            abbreviated(&ranked),
            abbreviated(&judged)
        )));
    }
    let missing: Vec<String> = judged.difference(&ranked).map(|t| t.to_string()).collect();
    if !missing.is_empty() {
        warnings.push(Warning::TopicsMissing {
            run: run.tag.clone(),
            topics: missing,
        });
    }
    for topic in ranked.difference(&judged) {
        warnings.push(Warning::TopicNotJudged {
            run: run.tag.clone(),
            topic: topic.to_string(),
        });
    }
    Ok(())
}

fn abbreviated(ids: &BTreeSet<&str>) -> String {
    const SHOWN: usize = 5;
    let mut text: Vec<&str> = ids.iter().copied().take(SHOWN).collect();
    if ids.len() > SHOWN {
        text.push("...");
    }
    text.join(" ")
}

/// The task with the audited run in it (replacing a run of the same tag), and the run's index.
fn with_audited_run(mut task: Task, run: Run) -> (Task, usize) {
    if let Some(pos) = task.runs.iter().position(|r| r.tag == run.tag) {
        task.runs[pos] = run;
        (task, pos)
    } else {
        task.teams.runs.insert(
            run.tag.clone(),
            TeamEntry {
                team: AUDITED_TEAM.to_string(),
                is_pooled: false,
            },
        );
        task.runs.push(run);
        let pos = task.runs.len() - 1;
        (task, pos)
    }
}

/// The settings in force, for the report.
fn settings_summary(
    use_text: bool,
    relevance_level: crate::base::Grade,
    settings: &AuditSettings,
    basis: &AuditBasis,
) -> AuditSettingsSummary {
    AuditSettingsSummary {
        features: if use_text { "text" } else { "runs" }.to_string(),
        relevance_level,
        depth: AUDIT_DEPTH,
        alpha: model::AUDIT_ALPHA,
        folds: model::FOLDS,
        samples: SAMPLES,
        seed: AUDIT_SEED,
        risk_threshold: settings.rules.risk_threshold,
        settle_threshold: settings.rules.settle_threshold,
        rank_margin: settings.rules.rank_margin,
        evidence: settings.evidence.to_string(),
        beyond_pool: settings.rules.beyond_pool.to_string(),
        calibration: basis.calibration.clone(),
        budget: settings.rules.budget,
        list_per_topic: settings.rules.list_per_topic,
    }
}

/// The one-line verdict: "no extra judgments needed" when no measure is at risk; else, for the
/// measures the list serves (at risk, and judging can settle them), how many documents to judge
/// with the evidence: the largest probability of a rank move before and after, each such
/// measure's score on the collection and expected score, and how many of the documents lie
/// beyond the pool's reach (below `pool_depth` in every pooled run), where the collection has
/// no evidence and their probabilities are extrapolated; then, for each at-risk measure that
/// judging cannot settle, [`cannot_settle_note`].
pub fn verdict(audit: &RunAudit, pool_depth: usize) -> String {
    let at_risk: Vec<&MeasureAudit> = audit.measures.iter().filter(|m| m.is_at_risk).collect();
    if at_risk.is_empty() {
        return "no extra judgments needed".to_string();
    }
    let (unsettleable, served): (Vec<&MeasureAudit>, Vec<&MeasureAudit>) =
        at_risk.into_iter().partition(|m| m.cannot_settle);
    let mut parts: Vec<String> = Vec::new();
    if !served.is_empty() {
        parts.push(judging_note(audit, &served, pool_depth));
    }
    parts.extend(unsettleable.into_iter().map(cannot_settle_note));
    parts.join("; ")
}

/// How many documents to judge for the `served` measures, with the evidence (see [`verdict`]).
fn judging_note(audit: &RunAudit, served: &[&MeasureAudit], pool_depth: usize) -> String {
    let before = served
        .iter()
        .map(|m| m.probability_rank_moves)
        .fold(0.0, f64::max);
    let after = served
        .iter()
        .map(|m| m.remaining_probability_rank_moves)
        .fold(0.0, f64::max);
    let documents = match audit.to_judge.len() {
        1 => "1 document".to_string(),
        count => format!("{count} documents"),
    };
    let scores: Vec<String> = served
        .iter()
        .map(|m| {
            format!(
                "{} {:.3} expected {:.3}",
                m.score.measure, m.score.lower, m.score.expected
            )
        })
        .collect();
    let beyond = audit
        .to_judge
        .iter()
        .filter(|entry| entry.is_beyond_pool)
        .count();
    let evidence = if beyond == 0 {
        String::new()
    } else {
        format!(
            "; {beyond} of them beyond depth {pool_depth}, where the collection has no evidence"
        )
    };
    format!(
        "judge {documents} (P(rank moves) {before:.2} → {after:.2}); {}{evidence}",
        scores.join(", ")
    )
}

/// What the verdict says of an at-risk measure that judging cannot settle: how many
/// documents a topic its rank rests on (those beyond the pool's reach when they are at least
/// half a document a topic, else all of them), with its probability of a rank move and its
/// scores, e.g. "map's rank rests on 83 documents a topic beyond the pool's reach; judging
/// cannot settle it (P(rank moves) 1.00; map 0.217 expected 0.289)".
pub fn cannot_settle_note(measure: &MeasureAudit) -> String {
    let name = &measure.score.measure;
    let beyond = measure.risk_documents_beyond_pool_per_topic;
    let documents = if beyond >= 0.5 {
        format!("{} a topic beyond the pool's reach", documents(beyond))
    } else {
        format!("{} a topic", documents(measure.risk_documents_per_topic))
    };
    format!(
        "{name}'s rank rests on {documents}; judging cannot settle it (P(rank moves) {:.2}; \
         {name} {:.3} expected {:.3})",
        measure.probability_rank_moves, measure.score.lower, measure.score.expected
    )
}

/// "83 documents", or with one decimal below 10: "2.5 documents".
fn documents(count: f64) -> String {
    if count >= 10.0 {
        format!("{count:.0} documents")
    } else {
        format!("{count:.1} documents")
    }
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
