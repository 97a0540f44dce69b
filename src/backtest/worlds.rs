//! The collection without a team, world by world, the runs each world audits, and the
//! deeper world's truth file.

use rustc_hash::FxHashMap;

use super::settings::{BacktestSettings, TrialSource, World};
use crate::base::error::{Error, Result};
use crate::base::progress::{stage, StagedProgress, JUDGING_UNITS};
use crate::collection::{Collection, UniqueRule};
use crate::io::task::Task;
use crate::judge::settings::{JudgeSettings, Withhold};
use crate::relevance_model::trials::{read_kept_trials, trial_path, Judgments, TrialJudgments};
use crate::sim::settings::AssessorChoice;
use crate::sim::study::{held_out_teams, run_study, StudySettings};

/// The teams the backtest takes out and, for each, the runs it audits (collection indices):
/// in the classic and simulated worlds every run of each team left out; in the deeper world
/// the named runs, or the task's runs that were not pooled, grouped by team.
pub(super) fn audited_runs(
    task: &Task,
    collection: &Collection,
    settings: &BacktestSettings,
) -> Result<(Vec<String>, Vec<Vec<usize>>)> {
    let runs_of = |team: &str| -> Vec<usize> {
        (0..collection.runs.len())
            .filter(|&run| collection.runs[run].team == team)
            .collect()
    };
    if settings.world != World::Deeper {
        let teams = held_out_teams(task, settings.teams.as_deref())?;
        let audited = teams.iter().map(|team| runs_of(team)).collect();
        return Ok((teams, audited));
    }
    let chosen: Vec<usize> = match &settings.runs {
        Some(tags) => tags
            .iter()
            .map(|tag| {
                collection
                    .runs
                    .iter()
                    .position(|run| &run.tag == tag)
                    .ok_or_else(|| {
                        Error::Invalid(format!(
                            "expected a run of task {}, found {tag:?}",
                            task.manifest.name
                        ))
                    })
            })
            .collect::<Result<_>>()?,
        None => (0..collection.runs.len())
            .filter(|&run| !collection.runs[run].is_pooled)
            .collect(),
    };
    let mut teams: Vec<String> = Vec::new();
    let mut audited: Vec<Vec<usize>> = Vec::new();
    for run in chosen {
        let team = &collection.runs[run].team;
        match teams.iter().position(|t| t == team) {
            Some(index) => audited[index].push(run),
            None => {
                teams.push(team.clone());
                audited.push(vec![run]);
            }
        }
    }
    if teams.is_empty() {
        return Err(Error::Invalid(format!(
            "expected runs to audit in the deeper world: task {} has no run that was not pooled \
             (name some with --runs)",
            task.manifest.name
        )));
    }
    Ok((teams, audited))
}

/// The deeper truth's grades of the collection's documents (collection topic order): the
/// judgments of `path` for the collection's topics, of documents some run retrieved or the
/// collection judged (no other document can be in a run's top).
///
/// # Errors
/// An unreadable or malformed file, or one with no topic of the collection.
pub(super) fn read_truth(collection: &Collection, path: &std::path::Path) -> Result<Judgments> {
    let qrels = crate::io::qrels::read_qrels(path)?;
    let mut truth: Judgments = vec![FxHashMap::default(); collection.topics.len()];
    let mut shared = false;
    for (topic_id, judged) in &qrels.topics {
        let Some(topic) = collection.topic_index(topic_id) else {
            continue;
        };
        shared = true;
        for (docid, grade) in judged.judgments() {
            if let Some(doc) = collection.doc_id(docid) {
                truth[topic].insert(doc, grade);
            }
        }
    }
    if !shared {
        return Err(Error::Invalid(format!(
            "{}: expected judgments of the task's topics, found none of them",
            path.display()
        )));
    }
    Ok(truth)
}

/// What the classic world removes of a team: its judged documents that a run of the team
/// retrieved at any depth and no other team's run retrieved. A calibration on the pool learns
/// from the same rule.
pub(super) const CLASSIC_WORLD_RULE: UniqueRule = UniqueRule::any_run_any_depth();

/// The classic world of each team: the official judgments less its unique documents.
pub(super) fn classic_worlds(
    collection: &Collection,
    official: &Judgments,
    teams: &[String],
) -> Vec<Judgments> {
    let rule = CLASSIC_WORLD_RULE;
    let owners: Vec<_> = collection
        .topics
        .iter()
        .map(|topic| collection.sole_teams(topic, &rule))
        .collect();
    teams
        .iter()
        .map(|team| {
            official
                .iter()
                .zip(&owners)
                .map(|(grades, owners)| {
                    let mut world = grades.clone();
                    for doc in owners.unique_documents(team, grades) {
                        world.remove(&doc);
                    }
                    world
                })
                .collect()
        })
        .collect()
}

/// The simulated world of each team: its leave-out trial's qrels.
pub(super) fn simulated_worlds(trials: &TrialJudgments, teams: &[String]) -> Vec<Judgments> {
    teams.iter().map(|team| trials[team][0].clone()).collect()
}

/// The leave-out trials of the simulated world: the kept trials of one seed in a results
/// folder (every team's, the calibration's evidence included), or a 1-seed study of `teams`
/// judged here.
pub(super) fn simulated_trials(
    task: &Task,
    collection: &Collection,
    settings: &BacktestSettings,
    teams: &[String],
    progress: StagedProgress<'_>,
) -> Result<TrialJudgments> {
    match &settings.trials {
        TrialSource::Results { dir, seed } => {
            if let Some(missing) = teams
                .iter()
                .map(|team| trial_path(dir, team, *seed))
                .find(|path| !path.is_file())
            {
                return Err(Error::Invalid(format!(
                    "{}: expected the kept qrels of a leave-out trial (`reusesim simulate \
                     --withhold uniques --keep-qrels --out {}`), found none",
                    missing.display(),
                    dir.display()
                )));
            }
            read_kept_trials(collection, dir, Some(*seed))
        }
        TrialSource::Study(judge) => {
            let study_settings = StudySettings {
                seeds: 1,
                measures: settings.measures.clone(),
                teams: Some(teams.to_vec()),
                judge: JudgeSettings {
                    withhold: Withhold::Uniques,
                    ..judge.clone()
                }
                .check()?,
                budget: None,
                keep_qrels: true,
                budget_fractions: crate::sim::settings::OFFICIAL_BUDGET_ONLY.to_vec(),
                strategies: Vec::new(),
                assessor: AssessorChoice::Official,
                significance: crate::sim::settings::default_significance(),
            };
            let outcome = run_study(
                task,
                collection,
                &study_settings,
                teams.to_vec(),
                &stage(progress, JUDGING_UNITS),
            )?;
            Ok(teams
                .iter()
                .map(|team| {
                    let trial = outcome.trial(1, Some(team));
                    let mut world: Judgments = vec![FxHashMap::default(); collection.topics.len()];
                    for judging in trial.judgings.as_ref().expect("the study keeps its qrels") {
                        world[judging.topic].extend(judging.judgments.iter().copied());
                    }
                    (team.clone(), vec![world])
                })
                .collect())
        }
    }
}
