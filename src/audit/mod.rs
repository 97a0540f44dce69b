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
pub mod label_sheet;
pub mod labels;
pub mod markdown;
pub mod merged;
pub mod others;
pub mod page;
pub mod report;
pub mod risk;
mod run_steps;
mod scenarios;
pub mod settings;
pub mod sheet;
pub mod study;
pub mod team;
pub mod topic;

pub use basis::{AuditBasis, RunAudit};
pub use changes::JudgedComparison;
pub use judged::{audit_with_judgments, read_judged, ReturnedJudgments};
pub use label_sheet::{write_label_sheet, LabelReason, LabelRequest, CALIBRATION_LABELS};
pub use labels::LabelsSummary;
pub use merged::{write_pool, MergedEntry};
pub use page::{audit_document, write_html, write_markdown};
pub use report::{AuditReport, AuditSettingsSummary, MeasureAudit, PoolEntry};
pub use run_steps::verdict;
pub use scenarios::measure_depth;
pub use settings::{
    AuditRules, AuditSettings, StudySource, AUDITED_TEAM, AUDIT_DEPTH, AUDIT_SEED,
    DEFAULT_AUDIT_MEASURES, LIST_PER_TOPIC, MAX_SPOT_STUDY_UNITS, RANK_MARGIN, RISK_THRESHOLD,
    SAMPLES, SETTLE_THRESHOLD, SPOT_STUDY_ITERATIONS, SPOT_STUDY_SEEDS,
};
pub use sheet::{write_sheet, DocumentTexts};
pub use study::{LouDrop, StudyComparison};
pub use team::{audit_runs, TeamAuditReport};
pub use topic::{Coverage, ScoreInterval, TopicAudit, UnjudgedDoc};
