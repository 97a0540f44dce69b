//! The leave-team-out study (see docs/experiment.md): per seed, a control trial (nothing held
//! out) and one trial per team with a pooled run; the judging of each (trial, topic) is a work unit, and
//! units whose inputs are identical (same topic, pool, features and seed) are computed once.
//! Every run is then scored on every trial's simulated qrels, on the official qrels, on the
//! classic leave-out-uniques qrels, and on the truth when the task has one. A study that
//! compares judging strategies also judges each trial's topics with every strategy it names
//! besides `hical`, as units of their own, and scores the trials each strategy's qrels give.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::base::choice::Choice;
use crate::base::error::Result;
use crate::base::DocId;
use crate::collection::{Collection, UniqueRule};
use crate::io::task::Task;
use crate::judge::cal::{pool_of, withheld_documents, TopicJudging};
use crate::judge::settings::JudgeSettings;
use crate::judge::strategies::{drawn_runs, judge_topic_with, Strategy};
use crate::sim::agreement::agreement;
pub use crate::sim::agreement::Agreement;
use crate::sim::budget::{
    budget_cuts, fraction_of_budget, judged_share, pools_over_budget, topic_budget, within_budget,
};
use crate::sim::scoring::{qrels_grades, QrelsGrades, RunScorer, ScoreTable, TopicGrades};
pub use crate::sim::settings::StudySettings;
use crate::sim::unit::UnitId;

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
    /// How the trial's qrels agree with the official ones.
    pub agreement: Agreement,
    /// Documents withheld from the simulated assessor, over all topics.
    pub withheld: usize,
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
    /// The trials at each budget fraction, ascending (none without a budget curve).
    pub budget: Vec<BudgetOutcome>,
    /// Judgments of documents the official qrels never judged (graded 0 by the simulated
    /// assessor), over every (trial, topic) unit.
    pub unofficial_judgments: usize,
    /// The judging strategies compared, in the order asked (none without a comparison).
    pub strategies: Vec<StrategyOutcome>,
}

/// One judging strategy's trials at each budget fraction.
#[derive(Debug)]
pub struct StrategyOutcome {
    /// The strategy.
    pub strategy: Strategy,
    /// At each budget fraction of the study, ascending (the whole budget alone without a
    /// budget curve).
    pub points: Vec<StrategyPoint>,
}

/// One strategy's trials at one budget fraction.
#[derive(Debug)]
pub struct StrategyPoint {
    /// The fraction of each topic's budget.
    pub fraction: f64,
    /// Every trial, in the study's order, scored on the strategy's cut qrels.
    pub trials: Vec<TrialOutcome>,
    /// Judgments (carried ones included) per (trial, topic) unit.
    pub judgments_per_topic: f64,
    /// The share of the judged (not carried) documents that the official qrels never judged
    /// (0 when nothing was judged).
    pub unofficial_share: f64,
}

/// Every trial scored on its simulated qrels cut to a fraction of each topic's budget.
#[derive(Debug)]
pub struct BudgetOutcome {
    /// The fraction of each topic's budget.
    pub fraction: f64,
    /// Every trial, in the study's order, without kept qrels.
    pub trials: Vec<TrialOutcome>,
    /// (trial, topic) units whose pool alone exceeded the fraction's budget.
    pub pools_over_budget: usize,
    /// The judgments kept over all (trial, topic) units, as a share of the whole budget's.
    pub judged_share: f64,
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
    /// unit_of[trial][topic]: the distinct unit that judges the trial's topic this way.
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
    /// unit_of[trial][topic]: the distinct `hical` unit that trial's topic shares.
    pub unit_of: Vec<Vec<usize>>,
    /// The strategies compared, in the order asked, with their units (`hical`'s are
    /// `unit_of`).
    pub compared: Vec<StrategyUnits>,
}

impl StudyPlan {
    /// The trials of `task` and their distinct units: identical (topic, seed, pool, withheld
    /// documents, features) judgings, those of one [`UnitId`], are planned once.
    pub fn new(
        task: &Task,
        collection: &Collection,
        settings: &StudySettings,
        held_out_teams: &[String],
    ) -> Self {
        let trials = plan_trials(task, settings.seeds, held_out_teams);
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
                let withheld =
                    withheld_documents(collection, topic, &trial.excluded_runs, &settings.judge);
                let pool = pool_of(
                    collection,
                    topic,
                    &trial.excluded_runs,
                    &withheld,
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
                    &withheld,
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
                    strategy_units(collection, settings, &trials, strategy, &mut add_unit)
                },
            })
            .collect();
        Self {
            trials,
            units,
            ids,
            unit_of,
            compared,
        }
    }
}

/// unit_of[trial][topic] for `strategy` (one without learning), each distinct unit added by
/// `add_unit`.
fn strategy_units(
    collection: &Collection,
    settings: &StudySettings,
    trials: &[Trial],
    strategy: Strategy,
    add_unit: &mut impl FnMut(PlannedUnit, UnitId) -> usize,
) -> Vec<Vec<usize>> {
    trials
        .iter()
        .enumerate()
        .map(|(trial_index, trial)| {
            let runs = drawn_runs(collection, &trial.excluded_runs);
            (collection.topics.iter().enumerate())
                .map(|(topic_index, topic)| {
                    let withheld = withheld_documents(
                        collection,
                        topic,
                        &trial.excluded_runs,
                        &settings.judge,
                    );
                    let id = UnitId::for_strategy(
                        collection,
                        topic_index,
                        strategy.name(),
                        &runs,
                        &withheld,
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
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<StudyOutcome<'c>> {
    let plan = StudyPlan::new(task, collection, settings, &held_out_teams);
    let all: Vec<usize> = (0..plan.units.len()).collect();
    let done = AtomicUsize::new(0);
    let starting = || progress(done.load(Ordering::Relaxed), all.len());
    let judgings = judge_units(collection, settings, &plan, &all, &starting, &|_, _| {
        progress(done.fetch_add(1, Ordering::Relaxed) + 1, all.len());
        Ok(())
    })?;
    Ok(study_outcome(
        task,
        collection,
        settings,
        held_out_teams,
        &plan,
        judgings,
    ))
}

/// The study's outcome from the judgings of every distinct unit of `plan` (in unit order):
/// every run scored on every trial's qrels, the official qrels, classic leave-out-uniques and
/// the truth.
///
/// # Panics
/// When `judgings` does not hold one judging per distinct unit.
pub fn study_outcome<'c>(
    task: &Task,
    collection: &'c Collection,
    settings: &StudySettings,
    held_out_teams: Vec<String>,
    plan: &StudyPlan,
    judgings: Vec<TopicJudging>,
) -> StudyOutcome<'c> {
    assert_eq!(
        judgings.len(),
        plan.units.len(),
        "one judging per distinct unit"
    );
    let scorer = RunScorer::new(collection, settings.measures.clone());
    let official_grades = qrels_grades(collection, &task.qrels);
    let official = scorer.score(&official_grades, |_| true);
    let truth = task
        .truth
        .as_ref()
        .map(|truth| scorer.score(&qrels_grades(collection, truth), |_| true));
    let classic_lou =
        classic_lou_scores(collection, &scorer, &official_grades, &official, settings);
    let unofficial_judgments = plan
        .unit_of
        .iter()
        .flatten()
        .flat_map(|&unit| &judgings[unit].trace)
        .filter(|step| !step.is_official)
        .count();
    let units = plan.unit_of.len() * collection.topics.len();
    let scoring = TrialScoring {
        collection,
        judge: &settings.judge,
        scorer: &scorer,
        trials: &plan.trials,
    };
    let trials = scoring.score(&plan.unit_of, &judgings, settings.keep_qrels);
    let budget = budget_cuts(collection, settings, &judgings)
        .map(|(fraction, cut)| BudgetOutcome {
            fraction,
            trials: scoring.score(&plan.unit_of, &cut, false),
            pools_over_budget: pools_over_budget(&plan.unit_of, &cut),
            judged_share: judged_share(&plan.unit_of, &cut, &judgings),
        })
        .collect();
    let strategies = plan
        .compared
        .iter()
        .map(|compared| StrategyOutcome {
            strategy: compared.strategy,
            points: strategy_points(collection, settings, &scoring, &compared.unit_of, &judgings),
        })
        .collect();
    StudyOutcome {
        units,
        distinct_units: plan
            .units
            .iter()
            .filter(|unit| unit.strategy == Strategy::Hical)
            .count(),
        retrains: judgings.iter().map(|j| j.retrains).sum(),
        pools_over_budget: pools_over_budget(&plan.unit_of, &judgings),
        budget,
        unofficial_judgments,
        strategies,
        collection,
        held_out_teams,
        official,
        truth,
        classic_lou,
        trials,
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
    plan: &StudyPlan,
    todo: &[usize],
    starting: &(dyn Fn() + Sync),
    finished: &(dyn Fn(usize, &TopicJudging) -> Result<()> + Sync),
) -> Result<Vec<TopicJudging>> {
    todo.par_iter()
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
                planned.topic,
                &trial.excluded_runs,
                budget,
                &judge,
            )?;
            finished(unit, &judging)?;
            Ok(judging)
        })
        .collect()
}

/// What scoring a study's trials needs.
struct TrialScoring<'a> {
    collection: &'a Collection,
    judge: &'a JudgeSettings,
    scorer: &'a RunScorer,
    trials: &'a [Trial],
}

/// One compared strategy's trials at each budget fraction of the study (the whole budget
/// alone without a budget curve), its units `unit_of[trial][topic]` among `judgings` (made at
/// each topic's whole budget).
fn strategy_points(
    collection: &Collection,
    settings: &StudySettings,
    scoring: &TrialScoring,
    unit_of: &[Vec<usize>],
    judgings: &[TopicJudging],
) -> Vec<StrategyPoint> {
    let fractions: &[f64] = if settings.has_budget_curve() {
        &settings.budget_fractions
    } else {
        &crate::sim::settings::OFFICIAL_BUDGET_ONLY
    };
    // The strategy's own units, renumbered 0.. so that only they are cut.
    let used: Vec<usize> = unit_of
        .iter()
        .flatten()
        .copied()
        .collect::<BTreeSet<usize>>()
        .into_iter()
        .collect();
    let own_unit_of: Vec<Vec<usize>> = unit_of
        .iter()
        .map(|row| {
            row.iter()
                .map(|unit| used.binary_search(unit).expect("a used unit"))
                .collect()
        })
        .collect();
    fractions
        .iter()
        .map(|&fraction| {
            let cut: Vec<TopicJudging> = used
                .iter()
                .map(|&unit| {
                    let budget = topic_budget(collection, settings.budget, judgings[unit].topic);
                    within_budget(&judgings[unit], fraction_of_budget(budget, fraction))
                })
                .collect();
            let steps = || {
                own_unit_of
                    .iter()
                    .flatten()
                    .flat_map(|&unit| &cut[unit].trace)
            };
            let judged = steps().count();
            let unofficial = steps().filter(|step| !step.is_official).count();
            let units = own_unit_of.iter().map(Vec::len).sum::<usize>().max(1);
            let judgments: usize = own_unit_of
                .iter()
                .flatten()
                .map(|&unit| cut[unit].judgments.len())
                .sum();
            StrategyPoint {
                fraction,
                trials: scoring.score(&own_unit_of, &cut, false),
                judgments_per_topic: judgments as f64 / units as f64,
                unofficial_share: if judged == 0 {
                    0.0
                } else {
                    unofficial as f64 / judged as f64
                },
            }
        })
        .collect()
}

impl TrialScoring<'_> {
    /// Every run scored on every trial's simulated qrels (`unit_of[trial][topic]` naming its
    /// judging in `judgings`), with the trial's agreement with the official qrels;
    /// `keep_qrels` keeps each trial's judgings in its outcome.
    fn score(
        &self,
        unit_of: &[Vec<usize>],
        judgings: &[TopicJudging],
        keep_qrels: bool,
    ) -> Vec<TrialOutcome> {
        let (collection, judge, scorer) = (self.collection, self.judge, self.scorer);
        self.trials
            .par_iter()
            .zip(unit_of)
            .map(|(trial, units)| {
                let topic_judgings: Vec<&TopicJudging> =
                    units.iter().map(|&u| &judgings[u]).collect();
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
                TrialOutcome {
                    scores: scorer.score(&grades, |_| true),
                    judgings: keep_qrels
                        .then(|| topic_judgings.iter().map(|&j| j.clone()).collect()),
                    agreement: agreement(collection, judge, &trial.excluded_runs, &topic_judgings),
                    withheld: topic_judgings.iter().map(|j| j.withheld).sum(),
                    trial: trial.clone(),
                }
            })
            .collect()
    }
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
