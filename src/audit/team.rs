//! The audit of one or several runs together: the task with every audited run in it, one
//! calibration for them all, each run's own audit, their ranks among one another, and one
//! merged list to judge ([`super::merged`]).

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::basis::AuditBasis;
use super::basis::RunOutcomes;
use super::changes::JudgedComparison;
use super::claims::list::mark_unsettleable;
use super::claims::render::claims_verdict;
use super::claims::sampled::{run_claims, RunClaims};
use super::label_sheet::{label_requests, LabelRequest};
use super::labels::{labels_summary, LabelsSummary};
use super::merged::{merged_list, ListedRun, MergedEntry};
use super::report::{AuditReport, AuditSettingsSummary};
use super::run_steps::{
    cannot_settle_note, check_topics, settings_summary, verdict, with_audited_run,
};
use super::settings::{AuditSettings, StudySource};
use super::study;
use crate::base::error::{Error, Result, Warning};
use crate::collection::{CandidateSource, Collection, UniqueRule};
use crate::io::run::Run;
use crate::io::task::Task;
use crate::relevance_model::calibration_sample::TeamAbsence;
use crate::relevance_model::labels::read_labels;
use crate::relevance_model::trials::{self, AbsenceSource, Judgments, TrialJudgments};
use crate::stats::rank::rank_among;

/// At most this many measures that judging cannot settle are named in the verdict of several
/// runs.
const NAMED_UNSETTLEABLE: usize = 3;

/// The audit of several runs (one report per run) and the merged list to judge.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TeamAuditReport {
    /// The one-line verdict over every audited run.
    pub verdict: String,
    /// The task's name.
    pub task: String,
    /// The settings (one calibration for the whole audit).
    pub settings: AuditSettingsSummary,
    /// Each audited run's own audit, in the order given.
    pub runs: Vec<AuditReport>,
    /// The merged list's length before the budget cap.
    pub candidates: usize,
    /// The merged list to judge, in order of combined value (budget applied).
    pub to_judge: Vec<MergedEntry>,
    /// The length of the runs' own lists added up (each document counted once per run).
    pub single_run_documents: usize,
    /// With returned judgments: the audit before them, against this one after them.
    pub judged: Option<JudgedComparison>,
    /// With a secondary assessor's labels: what they grade of the audited runs' tops.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<LabelsSummary>,
    /// The documents a secondary assessor should label (`--label-sheet`).
    #[serde(skip)]
    pub label_requests: Vec<LabelRequest>,
    /// Wall time.
    pub elapsed_seconds: f64,
}

/// Audits `runs` together against `task`.
///
/// # Errors
/// [`Error::Invalid`] when no run is given, two runs carry the same tag, a run shares no topic
/// with the qrels, the runs belong to every pooled team, or features cannot be built; corpus,
/// study and learner errors.
pub fn audit_runs(
    task: Task,
    runs: Vec<Run>,
    settings: &AuditSettings,
) -> Result<(TeamAuditReport, Vec<Warning>)> {
    let started = std::time::Instant::now();
    crate::eval::check_auditable(&settings.measures, "the audit")?;
    let mut warnings = Vec::new();
    check_runs(&task, &runs, &mut warnings)?;
    let mut task = task;
    let mut audited = Vec::with_capacity(runs.len());
    for run in runs {
        let in_task = task.teams.get(&run.tag).map(|entry| entry.is_pooled);
        let (tag, file) = (run.tag.clone(), run.path.display().to_string());
        let (with_run, index) = with_audited_run(task, run);
        task = with_run;
        audited.push((tag, file, in_task, index));
    }
    let use_text =
        crate::judge::resolve_features(&task, settings.features, CandidateSource::Retrieved)?;
    let collection = Collection::prepare(&task, &task.qrels, use_text)?;
    let labels = (settings.labels.as_deref())
        .map(|path| read_labels(&collection, path))
        .transpose()?;
    let tags: Vec<String> = audited.iter().map(|(tag, ..)| tag.clone()).collect();
    let study = study::compare_with_study(&task, &collection, settings, &tags)?;
    let teams: Vec<String> = audited
        .iter()
        .map(|&(.., index)| collection.runs[index].team.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let trials = kept_trials(&collection, settings)?;
    let evidence = match settings.evidence {
        AbsenceSource::Pool => TeamAbsence::Pool(UniqueRule::classic(task.pool_depth)),
        AbsenceSource::Trials => TeamAbsence::Trials(&trials),
    };
    let judgments: Judgments = collection.topics.iter().map(|t| t.grades.clone()).collect();
    let basis = AuditBasis::new(
        &collection,
        (judgments, labels),
        &settings.measures,
        (task.pool_depth, settings.rules.beyond_pool),
        &teams,
        evidence,
    )?;
    let rules = &settings.rules;
    let outcomes: Vec<RunOutcomes> = audited
        .iter()
        .map(|&(.., index)| basis.outcomes(index, rules, None))
        .collect();
    let topic_index: FxHashMap<&str, usize> = collection
        .topics
        .iter()
        .enumerate()
        .map(|(index, topic)| (topic.id.as_str(), index))
        .collect();
    let indices: Vec<usize> = audited.iter().map(|&(.., index)| index).collect();
    let settle = (rules.settle_threshold, rules.list_per_topic);
    let claims: Vec<RunClaims> = (indices.iter().zip(&outcomes))
        .map(|(&index, outcomes)| {
            let mut claims = run_claims(&basis, (index, outcomes), &settings.claims, &indices)?;
            mark_unsettleable(outcomes, &mut claims, settings.claims.test, settle);
            Ok(claims)
        })
        .collect::<Result<_>>()?;
    let named: Vec<ListedRun> = (tags.iter().zip(&outcomes).zip(&claims))
        .map(|((tag, outcomes), claims)| (tag.as_str(), outcomes, claims))
        .collect();
    let merged = merged_list(&named, (rules, &settings.claims.test), &topic_index);
    let summary = settings_summary(use_text, task.manifest.relevance_level, settings, &basis);
    let label_requests = label_requests(&basis, &indices, &teams);
    let labels = (settings.labels.as_deref()).map(|file| {
        labels_summary(
            &basis,
            &indices,
            &file.display().to_string(),
            &label_requests,
        )
    });
    let mut reports: Vec<AuditReport> = audited
        .iter()
        .zip(&outcomes)
        .zip(&merged.remaining)
        .zip(
            claims
                .iter()
                .zip(&merged.claims_remaining)
                .zip(&merged.claims_listed),
        )
        .map(
            |((((tag, file, in_task, _), outcomes), remaining), run_claims)| {
                let mut audit = basis.finish(outcomes, rules);
                for (measure, &after) in audit.measures.iter_mut().zip(remaining) {
                    measure.remaining_after_merged_list = after;
                    measure.lou_max_score_drop = study
                        .measures
                        .iter()
                        .find(|drop| drop.measure == measure.score.measure)
                        .map(|drop| drop.max_score_drop);
                }
                AuditReport {
                    verdict: verdict(&audit, task.pool_depth),
                    task: task.manifest.name.clone(),
                    run: tag.clone(),
                    run_file: file.clone(),
                    in_task: *in_task,
                    settings: summary.clone(),
                    topics_audited: audit.topics.len(),
                    coverage: audit.coverage,
                    measures: audit.measures,
                    claims: run_claims.0 .0.reported(run_claims.0 .1, run_claims.1),
                    study: study.clone(),
                    candidates: audit.candidates,
                    to_judge: audit.to_judge,
                    topics: audit.topics,
                    elapsed_seconds: 0.0,
                }
            },
        )
        .collect();
    rank_among_audited(&mut reports);
    let elapsed = started.elapsed().as_secs_f64();
    reports.iter_mut().for_each(|r| r.elapsed_seconds = elapsed);
    let single_run_documents = reports.iter().map(|r| r.to_judge.len()).sum();
    let ranks = team_verdict(&reports, &merged.entries, single_run_documents);
    let report = TeamAuditReport {
        verdict: match claims_verdict(&reports, merged.entries.len()) {
            Some(claims) => format!("{claims}; ranks: {ranks}"),
            None => ranks,
        },
        task: task.manifest.name.clone(),
        settings: summary,
        runs: reports,
        candidates: merged.candidates,
        to_judge: merged.entries,
        single_run_documents,
        judged: None,
        labels,
        label_requests,
        elapsed_seconds: elapsed,
    };
    Ok((report, warnings))
}

/// Checks the runs: at least one, distinct tags, topics in common with the qrels; warns of
/// missing topics and of runs already in the task.
fn check_runs(task: &Task, runs: &[Run], warnings: &mut Vec<Warning>) -> Result<()> {
    if runs.is_empty() {
        return Err(Error::Invalid("expected a run to audit, found none".into()));
    }
    let mut seen: FxHashMap<&str, &Run> = FxHashMap::default();
    for run in runs {
        if let Some(first) = seen.insert(&run.tag, run) {
            return Err(Error::Invalid(format!(
                "{}: run tag {:?} is already the tag of audited run {}; expected every audited \
                 run to carry its own tag",
                run.path.display(),
                run.tag,
                first.path.display()
            )));
        }
        check_topics(task, run, warnings)?;
        if let Some(entry) = task.teams.get(&run.tag) {
            warnings.push(Warning::RunInTask {
                run: run.tag.clone(),
                is_pooled: entry.is_pooled,
            });
        }
    }
    check_calibration_teams(task, runs)
}

/// Refuses an audit whose runs belong to every pooled team: every audited run's team is left
/// out of the calibration sample, which would then hold nothing to learn from.
fn check_calibration_teams(task: &Task, runs: &[Run]) -> Result<()> {
    let entries = task.teams.runs.values();
    let pooled: BTreeSet<&str> = (entries.filter(|entry| entry.is_pooled))
        .map(|entry| entry.team.as_str())
        .collect();
    let audited: BTreeSet<&str> = (runs.iter())
        .filter_map(|run| task.teams.get(&run.tag))
        .map(|entry| entry.team.as_str())
        .collect();
    if pooled.is_empty() || !pooled.is_subset(&audited) {
        return Ok(());
    }
    Err(Error::Invalid(format!(
        "the audited runs belong to every pooled team ({}), and an audited run's team is left \
         out of the calibration, which then has no run to learn from; expected at least one \
         pooled team's runs outside the audit: audit the teams in turn, or run `reusesim \
         backtest`, which audits each team against the others",
        pooled.into_iter().collect::<Vec<_>>().join(", ")
    )))
}

/// The trials the calibration learns from under trial evidence (none under pool evidence).
fn kept_trials(collection: &Collection, settings: &AuditSettings) -> Result<TrialJudgments> {
    match (settings.evidence, &settings.study) {
        (AbsenceSource::Pool, _) => Ok(TrialJudgments::new()),
        (AbsenceSource::Trials, StudySource::Results(dir)) => {
            trials::read_kept_trials(collection, dir, None)
        }
        (AbsenceSource::Trials, _) => Err(Error::Invalid(
            "calibrating on trials needs the results folder of a study that kept its trials' \
             qrels (`reusesim simulate --keep-qrels --out DIR`, then --results DIR)"
                .into(),
        )),
    }
}

/// Each run's rank among the other audited runs, by its collection score and by its expected
/// score, per measure.
fn rank_among_audited(reports: &mut [AuditReport]) {
    let measures = reports.first().map_or(0, |r| r.measures.len());
    for m in 0..measures {
        let scores = |value: fn(&super::MeasureAudit) -> f64| -> Vec<f64> {
            reports.iter().map(|r| value(&r.measures[m])).collect()
        };
        let lower = scores(|measure| measure.score.lower);
        let expected = scores(|measure| measure.score.expected);
        for (run, report) in reports.iter_mut().enumerate() {
            let others = |scores: &[f64]| -> Vec<f64> {
                let mut others = scores.to_vec();
                others.remove(run);
                others
            };
            let measure = &mut report.measures[m];
            measure.audited_rank = rank_among(&others(&lower), lower[run]);
            measure.audited_rank_expected = rank_among(&others(&expected), expected[run]);
            measure.audited_runs = lower.len();
        }
    }
}

/// One run's own verdict when it is audited alone. Else "no extra judgments needed" when no run
/// has a measure at risk; for the runs with a measure the list serves (at risk, and judging can
/// settle it), how many documents the merged list holds, for how many runs, against the runs'
/// own lists, and the largest probability of a rank move of such a measure before and after it;
/// then each at-risk measure that judging cannot settle, by run ([`cannot_settle_note`]), at
/// most [`NAMED_UNSETTLEABLE`] of them.
fn team_verdict(reports: &[AuditReport], list: &[MergedEntry], single_run: usize) -> String {
    if let [report] = reports {
        return report.verdict.clone();
    }
    let measures = || {
        reports
            .iter()
            .flat_map(|r| r.measures.iter().map(move |m| (r, m)))
    };
    let served = |m: &super::MeasureAudit| m.is_at_risk && !m.cannot_settle;
    let mut parts = Vec::new();
    let served_runs = (reports.iter())
        .filter(|r| r.measures.iter().any(served))
        .count();
    if served_runs > 0 {
        let largest = |value: fn(&super::MeasureAudit) -> f64| {
            (measures().filter(|(_, m)| served(m)))
                .map(|(_, m)| value(m))
                .fold(0.0, f64::max)
        };
        let before = largest(|m| m.probability_rank_moves);
        let after = largest(|m| m.remaining_after_merged_list);
        let documents = match list.len() {
            1 => "1 document".to_string(),
            count => format!("{count} documents"),
        };
        parts.push(format!(
            "judge {documents} for {served_runs} of {} runs (their own lists: {single_run}); \
             largest P(rank moves) {before:.2} → {after:.2}",
            reports.len()
        ));
    }
    let unsettleable: Vec<String> = (measures().filter(|(_, m)| m.cannot_settle))
        .map(|(r, m)| format!("{}: {}", r.run, cannot_settle_note(m)))
        .collect();
    if unsettleable.len() > NAMED_UNSETTLEABLE {
        let more = unsettleable.len() - NAMED_UNSETTLEABLE;
        parts.extend(unsettleable.into_iter().take(NAMED_UNSETTLEABLE));
        parts.push(format!("{more} more measures judging cannot settle"));
    } else {
        parts.extend(unsettleable);
    }
    if parts.is_empty() {
        return "no extra judgments needed".to_string();
    }
    parts.join("; ")
}
