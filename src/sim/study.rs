//! The leave-team-out study (DESIGN section 4): per seed, a control trial (nothing held out) and
//! one trial per team with a pooled run; the judging of each (trial, topic) is a work unit, and
//! units whose inputs are identical (same topic, pool, features and seed) are computed once.
//! Every run is then scored on every trial's simulated qrels, on the official qrels, on the
//! classic leave-out-uniques qrels, and on the truth when the task has one.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::base::error::Result;
use crate::base::DocId;
use crate::collection::Collection;
use crate::eval::Measure;
use crate::io::task::Task;
use crate::judge::cal::{judge_topic, pool_of, JudgeSettings, TopicJudging};
use crate::sim::scoring::{qrels_grades, QrelsGrades, RunScorer, ScoreTable, TopicGrades};

/// What the study does.
#[derive(Debug, Clone, PartialEq)]
pub struct StudySettings {
    /// Seeds 1..=seeds.
    pub seeds: u64,
    /// The measures to compare rankings on.
    pub measures: Vec<Measure>,
    /// The teams to hold out (default: every team with a pooled run).
    pub teams: Option<Vec<String>>,
    /// The judge (its seed is replaced by each trial's).
    pub judge: JudgeSettings,
    /// A fixed number of judgments per topic instead of the official count.
    pub budget: Option<usize>,
    /// Keep every trial's simulated qrels and trace in the outcome.
    pub keep_qrels: bool,
}

/// One trial: a seed and the team held out (none for the control).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trial {
    /// The trial seed.
    pub seed: u64,
    /// The held-out team; `None` for the control trial.
    pub held_out: Option<String>,
    /// excluded_runs[run]: whether the run belongs to the held-out team.
    pub excluded_runs: Vec<bool>,
}

/// A trial's simulated qrels.
#[derive(Debug, Clone)]
pub struct TrialOutcome {
    /// The trial.
    pub trial: Trial,
    /// Every run scored on the trial's qrels.
    pub scores: ScoreTable,
    /// Per topic: the simulated judgments (kept only with `keep_qrels`).
    pub judgings: Option<Vec<TopicJudging>>,
    /// Overlap with the official qrels: the fraction of official judgments (topic, document)
    /// present in the simulated qrels.
    pub overlap: f64,
    /// The fraction of officially relevant documents that the simulated qrels judge relevant.
    pub recall: f64,
}

/// Everything the study computed, before statistics.
#[derive(Debug)]
pub struct StudyOutcome<'c> {
    /// The collection (runs, topics, documents).
    pub collection: &'c Collection,
    /// The teams held out, in order.
    pub held_out_teams: Vec<String>,
    /// Every run scored on the official qrels.
    pub official: ScoreTable,
    /// Every run scored on the truth, when the task has one.
    pub truth: Option<ScoreTable>,
    /// Each run scored on the official qrels less the documents only its own team contributed
    /// to the pool (classic leave-out-uniques); runs of teams without pooled runs keep their
    /// official scores.
    pub classic_lou: ScoreTable,
    /// Every trial, seed by seed, the control first.
    pub trials: Vec<TrialOutcome>,
    /// Work units (trial, topic) and how many distinct ones were judged.
    pub units: usize,
    /// Distinct units judged.
    pub distinct_units: usize,
    /// Retrains over all distinct units.
    pub retrains: usize,
    /// (trial, topic) units whose pool alone exceeded the budget.
    pub pools_over_budget: usize,
}

/// The teams a study holds out: the requested ones (checked), or every team with a pooled run.
///
/// # Errors
/// [`crate::Error::Invalid`] when the task has no pooled run, or for a requested team that is
/// unknown or has no pooled run.
pub fn held_out_teams(task: &Task, requested: Option<&[String]>) -> Result<Vec<String>> {
    let pooled: BTreeSet<&str> = task
        .pooled_runs()
        .map(|run| task.team_of(&run.tag))
        .collect();
    if pooled.is_empty() {
        return Err(crate::Error::Invalid(format!(
            "task {}: no run is pooled, so there is no team to hold out",
            task.manifest.name
        )));
    }
    match requested {
        None => Ok(pooled.into_iter().map(str::to_string).collect()),
        Some(teams) => {
            for team in teams {
                if !pooled.contains(team.as_str()) {
                    return Err(crate::Error::Invalid(format!(
                        "team {team:?} has no pooled run in task {}; teams with one: {}",
                        task.manifest.name,
                        pooled.iter().copied().collect::<Vec<_>>().join(", ")
                    )));
                }
            }
            Ok(teams.to_vec())
        }
    }
}

/// The key that makes two (trial, topic) judgings identical: with text features only the pool
/// and the seed matter; with run features the held-out team changes the features too.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct UnitKey {
    topic: usize,
    seed: u64,
    pool: Vec<DocId>,
    feature_variant: Option<String>,
}

/// Runs the study. `progress(done, total)` is called as distinct units finish (from worker
/// threads).
///
/// # Errors
/// Judge errors (a learner that cannot train).
pub fn run_study<'c>(
    task: &Task,
    collection: &'c Collection,
    settings: &StudySettings,
    held_out_teams: Vec<String>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<StudyOutcome<'c>> {
    let trials = plan_trials(task, settings.seeds, &held_out_teams);
    let topic_count = collection.topics.len();
    let mut keys: BTreeMap<UnitKey, usize> = BTreeMap::new();
    let mut distinct: Vec<(usize, usize)> = Vec::new(); // (trial, topic) of each distinct unit
    let mut unit_of: Vec<Vec<usize>> = Vec::with_capacity(trials.len());
    for (trial_index, trial) in trials.iter().enumerate() {
        let mut row = Vec::with_capacity(topic_count);
        for (topic_index, topic) in collection.topics.iter().enumerate() {
            let key = UnitKey {
                topic: topic_index,
                seed: trial.seed,
                pool: pool_of(
                    collection,
                    topic,
                    &trial.excluded_runs,
                    settings.judge.pool_depth,
                ),
                feature_variant: (!collection.uses_text())
                    .then(|| trial.held_out.clone())
                    .flatten(),
            };
            let next = distinct.len();
            let unit = *keys.entry(key).or_insert(next);
            if unit == next {
                distinct.push((trial_index, topic_index));
            }
            row.push(unit);
        }
        unit_of.push(row);
    }
    let done = AtomicUsize::new(0);
    let judgings: Vec<TopicJudging> = distinct
        .par_iter()
        .map(|&(trial_index, topic_index)| {
            let trial = &trials[trial_index];
            let judge = JudgeSettings {
                seed: trial.seed,
                ..settings.judge.clone()
            };
            let budget = settings
                .budget
                .unwrap_or(collection.topics[topic_index].grades.len());
            let judging = judge_topic(
                collection,
                topic_index,
                &trial.excluded_runs,
                budget,
                &judge,
            );
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, distinct.len());
            judging
        })
        .collect::<Result<_>>()?;

    let scorer = RunScorer::new(collection, settings.measures.clone());
    let official_grades = qrels_grades(collection, &task.qrels);
    let official = scorer.score(&official_grades, |_| true);
    let truth = task
        .truth
        .as_ref()
        .map(|truth| scorer.score(&qrels_grades(collection, truth), |_| true));
    let classic_lou =
        classic_lou_scores(collection, &scorer, &official_grades, &official, settings);
    let pools_over_budget = unit_of
        .iter()
        .flatten()
        .filter(|&&unit| judgings[unit].is_pool_over_budget)
        .count();
    let trials: Vec<TrialOutcome> = trials
        .into_par_iter()
        .zip(unit_of)
        .map(|(trial, units)| {
            let topic_judgings: Vec<&TopicJudging> = units.iter().map(|&u| &judgings[u]).collect();
            let grades: QrelsGrades = topic_judgings
                .iter()
                .zip(&collection.topics)
                .map(|(judging, topic)| {
                    TopicGrades::new(
                        &topic.retrieved,
                        judging
                            .judgments
                            .iter()
                            .map(|&(doc, grade)| (Some(doc), grade)),
                    )
                })
                .collect();
            let (overlap, recall) = agreement(collection, &topic_judgings);
            TrialOutcome {
                scores: scorer.score(&grades, |_| true),
                judgings: settings
                    .keep_qrels
                    .then(|| topic_judgings.iter().map(|&j| j.clone()).collect()),
                overlap,
                recall,
                trial,
            }
        })
        .collect();
    Ok(StudyOutcome {
        units: trials.len() * topic_count,
        distinct_units: judgings.len(),
        retrains: judgings.iter().map(|j| j.retrains).sum(),
        pools_over_budget,
        collection,
        held_out_teams,
        official,
        truth,
        classic_lou,
        trials,
    })
}

/// Per seed 1..=seeds: the control trial, then one trial per held-out team.
fn plan_trials(task: &Task, seeds: u64, held_out_teams: &[String]) -> Vec<Trial> {
    let mut trials = Vec::new();
    for seed in 1..=seeds {
        trials.push(Trial {
            seed,
            held_out: None,
            excluded_runs: vec![false; task.runs.len()],
        });
        for team in held_out_teams {
            trials.push(Trial {
                seed,
                held_out: Some(team.clone()),
                excluded_runs: task
                    .runs
                    .iter()
                    .map(|run| task.team_of(&run.tag) == team)
                    .collect(),
            });
        }
    }
    trials
}

/// Overlap with the official qrels (the fraction of official judgments the simulated qrels
/// also hold) and recall of officially relevant documents (judged relevant by the simulation;
/// its grades come from the official qrels, so judged means found).
fn agreement(collection: &Collection, judgings: &[&TopicJudging]) -> (f64, f64) {
    let level = collection.relevance_level;
    let (mut official_total, mut overlap, mut relevant_total, mut found) = (0usize, 0, 0, 0);
    for judging in judgings {
        let official = &collection.topics[judging.topic].grades;
        let simulated: BTreeSet<DocId> = judging.judgments.iter().map(|&(doc, _)| doc).collect();
        for (doc, &grade) in official {
            official_total += 1;
            let is_relevant = crate::base::is_relevant(grade, level);
            relevant_total += usize::from(is_relevant);
            if simulated.contains(doc) {
                overlap += 1;
                found += usize::from(is_relevant);
            }
        }
    }
    let ratio = |part: usize, whole: usize| {
        if whole == 0 {
            0.0
        } else {
            part as f64 / whole as f64
        }
    };
    (ratio(overlap, official_total), ratio(found, relevant_total))
}

/// Classic leave-out-uniques: for each held-out team, the official qrels less the documents
/// whose only top-`pool_depth` contributors (among pooled runs) are that team's runs; the
/// team's runs are scored on them. Other runs keep their official scores.
fn classic_lou_scores(
    collection: &Collection,
    scorer: &RunScorer,
    official_grades: &[TopicGrades],
    official: &ScoreTable,
    settings: &StudySettings,
) -> ScoreTable {
    let mut table = official.clone();
    let teams: BTreeSet<&str> = collection
        .runs
        .iter()
        .filter(|run| run.is_pooled)
        .map(|run| run.team.as_str())
        .collect();
    for team in teams {
        let reduced: QrelsGrades = collection
            .topics
            .iter()
            .zip(official_grades)
            .map(|(topic, grades)| {
                let mut contributors: BTreeMap<DocId, BTreeSet<&str>> = BTreeMap::new();
                for (run, ranking) in topic.rankings.iter().enumerate() {
                    if collection.runs[run].is_pooled {
                        for &doc in ranking.iter().take(settings.judge.pool_depth) {
                            contributors
                                .entry(doc)
                                .or_default()
                                .insert(collection.runs[run].team.as_str());
                        }
                    }
                }
                let unique: BTreeSet<DocId> = contributors
                    .into_iter()
                    .filter(|(_, teams)| teams.len() == 1 && teams.contains(team))
                    .map(|(doc, _)| doc)
                    .collect();
                grades.without(&topic.retrieved, &unique)
            })
            .collect();
        let is_team_run = |run: usize| collection.runs[run].team == team;
        let rescored = scorer.score(&reduced, is_team_run);
        for run in (0..collection.runs.len()).filter(|&run| is_team_run(run)) {
            table.summary[run] = rescored.summary[run].clone();
            table.per_topic[run] = rescored.per_topic[run].clone();
        }
    }
    table
}
