//! The leave-team-out study (see docs/experiment.md): per seed, a control trial (nothing held
//! out) and one trial per team with a pooled run; the judging of each (trial, topic) is a work unit, and
//! units whose inputs are identical (same topic, pool, features and seed) are computed once.
//! Every run is then scored on every trial's simulated qrels, on the official qrels, on the
//! classic leave-out-uniques qrels, on the truth when the task has one, and on the simulated
//! assessor's own qrels when it is not the official one (see docs/assessor.md). A study that
//! compares judging strategies also judges each trial's topics with every strategy it names
//! besides `hical`, as units of their own, and scores the trials each strategy's qrels give.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::base::choice::Choice;
use crate::base::error::Result;
use crate::base::progress::Progress;
use crate::base::DocId;
use crate::collection::{Collection, UniqueRule};
use crate::io::task::Task;
use crate::judge::cal::{pool_of, withheld_documents, TopicJudging, TrialTopic};
use crate::judge::settings::JudgeSettings;
use crate::judge::strategies::{drawn_runs, judge_topic_with, Strategy};
use crate::sim::agreement::assessor_grades;
use crate::sim::assessor::StudyAssessor;
use crate::sim::budget::topic_budget;
use crate::sim::scoring::{qrels_grades, QrelsGrades, RunScorer, ScoreTable, TopicGrades};
pub use crate::sim::settings::StudySettings;
use crate::sim::trials::{
    reachable_relevant, AssessorOutcome, BudgetOutcome, SourceCounts, StrategyOutcome, Trial,
    TrialOutcome, TrialScoring,
};
use crate::sim::unit::UnitId;

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
    /// The trials at each budget fraction, ascending (none without a budget curve).
    pub budget: Vec<BudgetOutcome>,
    /// Judgments of documents the official qrels never judged, over every (trial, topic) unit.
    pub unofficial_judgments: usize,
    /// The sources of every judgment of every (trial, topic) unit, carried ones aside.
    pub sources: SourceCounts,
    /// The assessor's ranking and what it graded, when it is not the official one.
    pub assessor: Option<AssessorOutcome>,
    /// The judging strategies compared, in the order asked (none without a comparison).
    pub strategies: Vec<StrategyOutcome>,
}

impl StudyOutcome<'_> {
    /// The trial of `seed` that held `held_out` out (`None`: the control).
    ///
    /// # Panics
    /// When the study has no such trial (every seed has a control and a trial per held-out
    /// team).
    pub fn trial(&self, seed: u64, held_out: Option<&str>) -> &TrialOutcome {
        self.trials
            .iter()
            .find(|t| t.trial.seed == seed && t.trial.held_out.as_deref() == held_out)
            .expect("every seed has a control and a trial per held-out team")
    }
}

/// The teams a study holds out: the requested ones (checked), or every team with a pooled run.
///
/// # Errors
/// [`crate::base::error::Error::Invalid`] when the task has no pooled run, or for a requested team that is
/// unknown or has no pooled run.
pub fn held_out_teams(task: &Task, requested: Option<&[String]>) -> Result<Vec<String>> {
    let pooled: BTreeSet<&str> = task
        .pooled_runs()
        .map(|run| task.team_of(&run.tag))
        .collect();
    if pooled.is_empty() {
        return Err(crate::base::error::Error::Invalid(format!(
            "task {}: no run is pooled, so there is no team to hold out",
            task.manifest.name
        )));
    }
    match requested {
        None => Ok(pooled.into_iter().map(str::to_string).collect()),
        Some(teams) => {
            for team in teams {
                if !pooled.contains(team.as_str()) {
                    return Err(crate::base::error::Error::Invalid(format!(
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

/// One distinct judging unit: a trial's topic judged with a strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedUnit {
    /// The strategy.
    pub strategy: Strategy,
    /// The first trial that needs the unit.
    pub trial: usize,
    /// The topic.
    pub topic: usize,
}

/// The units of one compared strategy.
#[derive(Debug)]
pub struct StrategyUnits {
    /// The strategy.
    pub strategy: Strategy,
    /// `unit_of[trial][topic]`: the distinct unit that judges the trial's topic this way.
    pub unit_of: Vec<Vec<usize>>,
}

/// The study's work: its trials and its distinct (trial, topic) judging units, those of
/// `hical` first.
#[derive(Debug)]
pub struct StudyPlan {
    /// Every trial, seed by seed, the control first.
    pub trials: Vec<Trial>,
    /// Each distinct unit.
    pub units: Vec<PlannedUnit>,
    /// Each distinct unit's stable id (its home shard's key).
    pub ids: Vec<UnitId>,
    /// `unit_of[trial][topic]`: the distinct `hical` unit that trial's topic shares.
    pub unit_of: Vec<Vec<usize>>,
    /// The strategies compared, in the order asked, with their units (`hical`'s are
    /// `unit_of`).
    pub compared: Vec<StrategyUnits>,
    /// `withheld[trial][topic]`: the documents the trial withholds from the simulated assessor on
    /// the topic, sorted (the same for every strategy, and for the trial's scoring).
    pub withheld: Vec<Vec<Vec<DocId>>>,
}

impl StudyPlan {
    /// The trials of `task` and their distinct units: identical (topic, seed, pool, withheld
    /// documents, features) judgings, those of one [`UnitId`], are planned once. A trial
    /// withholds its team's unique documents by `assessor`'s grades.
    pub fn new(
        task: &Task,
        collection: &Collection,
        settings: &StudySettings,
        held_out_teams: &[String],
        assessor: &StudyAssessor,
    ) -> Self {
        let trials = plan_trials(task, settings.seeds, held_out_teams);
        let withheld = withheld_by_trial(collection, settings, &trials, assessor);
        let mut keys: BTreeMap<UnitId, usize> = BTreeMap::new();
        let mut units = Vec::new();
        let mut ids = Vec::new();
        // The unit of `id`, added when new.
        let mut add_unit = |unit: PlannedUnit, id: UnitId| {
            let next = units.len();
            let found = *keys.entry(id).or_insert(next);
            if found == next {
                units.push(unit);
                ids.push(id);
            }
            found
        };
        let mut unit_of = Vec::with_capacity(trials.len());
        for (trial_index, trial) in trials.iter().enumerate() {
            let mut row = Vec::with_capacity(collection.topics.len());
            for (topic_index, topic) in collection.topics.iter().enumerate() {
                let withheld = &withheld[trial_index][topic_index];
                let pool = pool_of(
                    collection,
                    topic,
                    &trial.excluded_runs,
                    withheld,
                    settings.judge.pool_depth,
                );
                // With run features the held-out team changes the features too.
                let feature_variant = if collection.uses_text() {
                    None
                } else {
                    trial.held_out.as_deref()
                };
                let id = UnitId::new(
                    collection,
                    topic_index,
                    trial.seed,
                    &pool,
                    withheld,
                    feature_variant,
                );
                row.push(add_unit(
                    PlannedUnit {
                        strategy: Strategy::Hical,
                        trial: trial_index,
                        topic: topic_index,
                    },
                    id,
                ));
            }
            unit_of.push(row);
        }
        let compared = (settings.strategies.iter())
            .map(|&strategy| StrategyUnits {
                strategy,
                unit_of: if strategy.is_learning() {
                    unit_of.clone()
                } else {
                    let judging = (strategy, assessor);
                    let trials = (trials.as_slice(), withheld.as_slice());
                    strategy_units(collection, trials, judging, &mut add_unit)
                },
            })
            .collect();
        Self {
            trials,
            units,
            ids,
            unit_of,
            compared,
            withheld,
        }
    }

    /// Topic `topic` of trial `trial`, with the documents the trial withholds there.
    pub fn trial_topic(&self, trial: usize, topic: usize) -> TrialTopic<'_> {
        TrialTopic {
            topic,
            excluded_runs: &self.trials[trial].excluded_runs,
            withheld: &self.withheld[trial][topic],
        }
    }
}

/// `withheld[trial][topic]`: the documents each trial withholds from `assessor` on each topic,
/// found in parallel, trial by trial.
fn withheld_by_trial(
    collection: &Collection,
    settings: &StudySettings,
    trials: &[Trial],
    assessor: &StudyAssessor,
) -> Vec<Vec<Vec<DocId>>> {
    let work: Vec<(usize, usize)> = (0..trials.len())
        .flat_map(|trial| (0..collection.topics.len()).map(move |topic| (trial, topic)))
        .collect();
    let mut found = work
        .par_iter()
        .map(|&(trial, topic)| {
            let trial = &trials[trial];
            let seed_assessor = assessor.for_seed(collection, trial.seed);
            let excluded = &trial.excluded_runs;
            withheld_documents(collection, topic, excluded, &settings.judge, &seed_assessor)
        })
        .collect::<Vec<_>>()
        .into_iter();
    (trials.iter())
        .map(|_| found.by_ref().take(collection.topics.len()).collect())
        .collect()
}

/// unit_of[trial][topic] for `strategy` (one without learning) judging `trials` (each with the
/// documents it withholds, by topic) with `assessor`, each distinct unit added by `add_unit`.
/// Such a unit depends on the seed only through a seeded assessor's grades.
fn strategy_units(
    collection: &Collection,
    (trials, withheld): (&[Trial], &[Vec<Vec<DocId>>]),
    (strategy, assessor): (Strategy, &StudyAssessor),
    add_unit: &mut impl FnMut(PlannedUnit, UnitId) -> usize,
) -> Vec<Vec<usize>> {
    trials
        .iter()
        .zip(withheld)
        .enumerate()
        .map(|(trial_index, (trial, withheld))| {
            let runs = drawn_runs(collection, &trial.excluded_runs);
            let seed = assessor.is_seeded().then_some(trial.seed);
            (withheld.iter().enumerate())
                .map(|(topic_index, withheld)| {
                    let id = UnitId::for_strategy(
                        collection,
                        (topic_index, seed),
                        strategy.name(),
                        &runs,
                        withheld,
                    );
                    let unit = PlannedUnit {
                        strategy,
                        trial: trial_index,
                        topic: topic_index,
                    };
                    add_unit(unit, id)
                })
                .collect()
        })
        .collect()
}

/// Runs the study. `progress(done, total)` is called as each distinct unit starts and as it
/// finishes (from worker threads); a caller that must stop the study (a Python binding on
/// Ctrl-C) can unwind out of it there, before the next unit's work.
///
/// # Errors
/// Judge errors (a learner that cannot train).
pub fn run_study<'c>(
    task: &Task,
    collection: &'c Collection,
    settings: &StudySettings,
    held_out_teams: Vec<String>,
    progress: Progress<'_>,
) -> Result<StudyOutcome<'c>> {
    crate::eval::check_rankable(&settings.measures, "the study")?;
    let assessor = prepare_assessor(collection, settings)?;
    let plan = StudyPlan::new(task, collection, settings, &held_out_teams, &assessor);
    let all: Vec<usize> = (0..plan.units.len()).collect();
    let done = AtomicUsize::new(0);
    let starting = || progress(done.load(Ordering::Relaxed), all.len());
    let judging = (&plan, &assessor);
    let judgings = judge_units(collection, settings, judging, &all, &starting, &|_, _| {
        progress(done.fetch_add(1, Ordering::Relaxed) + 1, all.len());
        Ok(())
    })?;
    let setup = ScoringSetup::new(task, collection, settings);
    Ok(study_outcome(
        collection,
        settings,
        held_out_teams,
        (&plan, &assessor),
        &setup,
        judgings,
    ))
}

/// The study's assessor, prepared for its seeds.
///
/// # Errors
/// As [`StudyAssessor::prepare`].
pub fn prepare_assessor(
    collection: &Collection,
    settings: &StudySettings,
) -> Result<StudyAssessor> {
    let seeds: Vec<u64> = (1..=settings.seeds).collect();
    StudyAssessor::prepare(
        collection,
        &settings.assessor,
        settings.judge.pool_depth,
        &seeds,
    )
}

/// What scoring a study needs besides its judgings, the same whatever its assessor: the runs
/// prepared for scoring, and every run scored on the official qrels, on classic
/// leave-out-uniques and on the truth. The studies of several assessors make it once.
#[derive(Debug)]
pub struct ScoringSetup {
    scorer: RunScorer,
    official: ScoreTable,
    truth: Option<ScoreTable>,
    classic_lou: ScoreTable,
}

impl ScoringSetup {
    /// The setup of a study of `task` with `settings` (its measures and pool depth).
    pub fn new(task: &Task, collection: &Collection, settings: &StudySettings) -> Self {
        let scorer = RunScorer::new(collection, settings.measures.clone());
        let official_grades = qrels_grades(collection, &task.qrels);
        let official = scorer.score(&official_grades, |_| true);
        let truth = task
            .truth
            .as_ref()
            .map(|truth| scorer.score(&qrels_grades(collection, truth), |_| true));
        let classic_lou =
            classic_lou_scores(collection, &scorer, &official_grades, &official, settings);
        Self {
            scorer,
            official,
            truth,
            classic_lou,
        }
    }
}

/// The study's outcome from the judgings of every distinct unit of `plan` (in unit order),
/// graded by `assessor`: every run scored on every trial's qrels and on the assessor's own
/// qrels, beside the scores of `setup` (made for the same collection and settings).
///
/// # Panics
/// When `judgings` does not hold one judging per distinct unit.
pub fn study_outcome<'c>(
    collection: &'c Collection,
    settings: &StudySettings,
    held_out_teams: Vec<String>,
    (plan, assessor): (&StudyPlan, &StudyAssessor),
    setup: &ScoringSetup,
    judgings: Vec<TopicJudging>,
) -> StudyOutcome<'c> {
    assert_eq!(
        judgings.len(),
        plan.units.len(),
        "one judging per distinct unit"
    );
    let scorer = &setup.scorer;
    let units = plan.unit_of.len() * collection.topics.len();
    let seeds: Vec<u64> = (1..=settings.seeds).collect();
    let reference: Option<BTreeMap<u64, ScoreTable>> =
        (!settings.assessor.is_official()).then(|| {
            (seeds.par_iter())
                .map(|&seed| {
                    let grades = assessor
                        .reference_grades(collection, seed)
                        .expect("an assessor other than the official one has its own qrels");
                    (seed, scorer.score(&grades, |_| true))
                })
                .collect()
        });
    let assessor_grades = assessor_grades(collection, assessor, &seeds);
    let reachable_relevant = (!settings.assessor.is_official())
        .then(|| reachable_relevant(collection, assessor, &seeds));
    let scoring = TrialScoring {
        collection,
        settings,
        scorer,
        trials: &plan.trials,
        withheld: &plan.withheld,
        reachable_relevant: reachable_relevant.as_ref(),
    };
    let compared: Vec<(Strategy, &[Vec<usize>])> = (plan.compared.iter())
        .map(|compared| (compared.strategy, compared.unit_of.as_slice()))
        .collect();
    let scored = scoring.score_study(&plan.unit_of, &compared, &judgings);
    StudyOutcome {
        units,
        distinct_units: plan
            .units
            .iter()
            .filter(|unit| unit.strategy == Strategy::Hical)
            .count(),
        retrains: judgings.iter().map(|j| j.retrains).sum(),
        pools_over_budget: scored.whole.pools_over_budget,
        budget: scored.budget,
        unofficial_judgments: scored.whole.sources.unofficial(),
        sources: scored.whole.sources,
        assessor: reference.map(|reference| AssessorOutcome {
            name: settings.assessor.to_string(),
            reference,
            grades: assessor_grades.unwrap_or_default(),
        }),
        strategies: scored.strategies,
        collection,
        held_out_teams,
        official: setup.official.clone(),
        truth: setup.truth.clone(),
        classic_lou: setup.classic_lou.clone(),
        trials: scored.trials,
    }
}

/// Judges the distinct units `todo` (indices into `plan.units`) in parallel, calling
/// `starting()` before each unit and `finished(unit, judging)` as each one finishes (from worker
/// threads); the result is in `todo`'s order. A caller that must stop (a Python binding on
/// Ctrl-C) unwinds out of `starting`, so the units not yet started are never judged: rayon
/// finishes every item of a parallel iterator before it passes a panic on.
///
/// # Errors
/// Judge errors, and the errors `finished` returns.
pub fn judge_units(
    collection: &Collection,
    settings: &StudySettings,
    (plan, assessor): (&StudyPlan, &StudyAssessor),
    todo: &[usize],
    starting: &(dyn Fn() + Sync),
    finished: &(dyn Fn(usize, &TopicJudging) -> Result<()> + Sync),
) -> Result<Vec<TopicJudging>> {
    // One unit per task: units differ in cost by orders of magnitude (a strategy without
    // learning judges in milliseconds, `hical` retrains), and rayon does not split a range
    // once a thread has started on it, so ranges of units would leave a core idle.
    todo.par_iter()
        .with_max_len(1)
        .map(|&unit| {
            starting();
            let planned = plan.units[unit];
            let trial = &plan.trials[planned.trial];
            let judge = JudgeSettings {
                seed: trial.seed,
                ..settings.judge.clone()
            };
            let budget = topic_budget(collection, settings.budget, planned.topic);
            let judging = judge_topic_with(
                planned.strategy,
                collection,
                plan.trial_topic(planned.trial, planned.topic),
                budget,
                &judge,
                &assessor.for_seed(collection, trial.seed),
            )?;
            finished(unit, &judging)?;
            Ok(judging)
        })
        .collect()
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
    let rule = UniqueRule::classic(settings.judge.pool_depth);
    for team in teams {
        let is_team_run = |run: usize| collection.runs[run].team == team;
        let team_runs: Vec<bool> = (0..collection.runs.len()).map(is_team_run).collect();
        let reduced: QrelsGrades = collection
            .topics
            .iter()
            .zip(official_grades)
            .map(|(topic, grades)| {
                let unique: BTreeSet<DocId> = collection
                    .unique_documents(topic, &rule, &team_runs)
                    .into_iter()
                    .collect();
                grades.without(&topic.retrieved, &unique)
            })
            .collect();
        let rescored = scorer.score(&reduced, is_team_run);
        for run in (0..collection.runs.len()).filter(|&run| is_team_run(run)) {
            table.summary[run] = rescored.summary[run].clone();
            table.per_topic[run] = rescored.per_topic[run].clone();
        }
    }
    table
}

#[cfg(test)]
#[path = "study_tests.rs"]
mod tests;
