//! The steps of auditing one run that the team audit takes for each run: checking its topics,
//! putting it into the task, the settings in force for its report, and its one-line verdict.

use std::collections::BTreeSet;

use super::basis::{AuditBasis, RunAudit};
use super::report::{AuditSettingsSummary, MeasureAudit};
use super::settings::{AuditSettings, AUDITED_TEAM, AUDIT_DEPTH, AUDIT_SEED, SAMPLES};
use crate::base::error::{Error, Result, Warning};
use crate::base::Grade;
use crate::io::run::Run;
use crate::io::task::Task;
use crate::io::teams::TeamEntry;
use crate::relevance_model::model;

/// The topic and run checks: the topics to audit, and warnings.
pub(super) fn check_topics(task: &Task, run: &Run, warnings: &mut Vec<Warning>) -> Result<()> {
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
pub(super) fn with_audited_run(mut task: Task, run: Run) -> (Task, usize) {
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
pub(super) fn settings_summary(
    use_text: bool,
    relevance_level: Grade,
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
    }
}

/// The one-line verdict: "no extra judgments needed", or how many documents to judge with the
/// evidence: the largest probability of a rank move before and after, each at-risk measure's
/// score on the collection and expected score, and how many of the documents lie beyond the
/// pool's reach (below `pool_depth` in every pooled run), where the collection has no evidence
/// and their probabilities are extrapolated.
pub fn verdict(audit: &RunAudit, pool_depth: usize) -> String {
    let at_risk: Vec<&MeasureAudit> = audit.measures.iter().filter(|m| m.is_at_risk).collect();
    if at_risk.is_empty() {
        return "no extra judgments needed".to_string();
    }
    let before = at_risk
        .iter()
        .map(|m| m.probability_rank_moves)
        .fold(0.0, f64::max);
    let after = at_risk
        .iter()
        .map(|m| m.remaining_probability_rank_moves)
        .fold(0.0, f64::max);
    let documents = match audit.to_judge.len() {
        1 => "1 document".to_string(),
        count => format!("{count} documents"),
    };
    let scores: Vec<String> = at_risk
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
