//! The audit's backtest: how far can the audit be trusted on a collection?
//!
//! Each team G with a pooled run is taken out of the collection in one of two worlds:
//! - **classic**: the official qrels less G's unique documents (judged documents that a run of
//!   G retrieved, at any depth, and no other team's run retrieved: [`UniqueRule::any_run_any_depth`]);
//! - **simulated**: the qrels of G's leave-out trial (`simulate --withhold uniques`), read from
//!   a results folder kept with `--keep-qrels` or judged here.
//!
//! Each run of G is then audited against that world as a new run, and compared with the
//! **truth**: the world's judgments completed for that run with the official grade of every
//! document of its top [`AUDIT_DEPTH`] (0 for a document the official qrels lack), every run
//! scored on those completed judgments. Beside the audit's expected score stand the collection's
//! own score and the published corrections of [`corrections`]; and the run is scored again after
//! "judging" the audit's list with the official qrels as the assessor.
//!
//! The rules are in `docs/backtest.md`.

pub mod corrections;
pub mod files;
pub mod summary;

use std::path::PathBuf;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::audit::trials::{read_kept_trials, trial_path, TrialJudgments};
use crate::audit::{rank_among, AuditBasis, AuditRules, Judgments, RunAudit, AUDIT_DEPTH};
use crate::audit::{Evidence, LeaveOutEvidence};
use crate::base::choice::choice_enum;
use crate::base::error::{Error, Result};
use crate::base::{DocId, Grade};
use crate::collection::{CandidateSource, Collection, FeatureChoice, UniqueRule};
use crate::eval::{Family, Measure};
use crate::io::task::Task;
use crate::judge::settings::{JudgeSettings, Withhold};
use crate::sim::analysis::files::TableRow;
use crate::sim::scoring::RunScorer;
use crate::sim::study::{held_out_teams, run_study, StudySettings};

pub use summary::{BacktestSummary, MeasureSummary};

choice_enum! {
    /// How the collection without a team is built.
    pub enum World {
        /// The official qrels less the team's unique documents.
        Classic = "classic",
        /// The qrels of the team's leave-out trial.
        Simulated = "simulated",
    }
}

impl World {
    /// The calibration's evidence that mirrors how the world was judged: the pool in the
    /// classic world, the other teams' trials in the simulated one.
    pub fn default_evidence(self) -> Evidence {
        match self {
            World::Classic => Evidence::Pool,
            World::Simulated => Evidence::Trials,
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
    pub evidence: Evidence,
}

impl BacktestSettings {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`Error::Invalid`] for trials as evidence in the classic world, which has none.
    pub fn check(self) -> Result<Self> {
        if self.world == World::Classic && self.evidence == Evidence::Trials {
            return Err(Error::Invalid(
                "expected the simulated world for a calibration on trials: the classic world \
                 has no trials"
                    .into(),
            ));
        }
        Ok(self)
    }
}

/// One audited run and measure: a row of `backtest.tsv`, its fields the columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BacktestRow {
    /// The team left out.
    pub team: String,
    /// The audited run.
    pub run: String,
    /// The measure.
    pub measure: String,
    /// Topics audited.
    pub topics: usize,
    /// The run's score on the world completed for it with the official grades.
    pub true_score: f64,
    /// Its rank among all runs scored on those completed judgments.
    pub true_rank: f64,
    /// Its score on the world (what the collection says).
    pub collection_score: f64,
    /// Its rank among all runs on the world.
    pub collection_rank: f64,
    /// The audit's expected score.
    pub expected_score: f64,
    /// The upper end of the audit's interval.
    pub upper: f64,
    /// The median of the audit's sampled scores.
    pub median_score: f64,
    /// The 5% quantile of the audit's sampled scores.
    pub sample_low: f64,
    /// The 95% quantile.
    pub sample_high: f64,
    /// Webber & Park's score adjustment.
    pub webber_park_score: f64,
    /// The anti-precision correction (precision measures only).
    pub anti_precision_score: Option<f64>,
    /// The audit's probability that the run's rank moves.
    pub probability_rank_moves: f64,
    /// Whether the audit put this measure at risk.
    pub is_at_risk: bool,
    /// Whether the audit's verdict asks for judgments (any measure at risk).
    pub needs_judging: bool,
    /// The length of the audit's list.
    pub list_size: usize,
    /// The run's score after judging the list with the official grades.
    pub judged_score: f64,
    /// Its rank among all runs scored on the world plus the judged list.
    pub judged_rank: f64,
}

impl TableRow for BacktestRow {
    const FILE: &'static str = "backtest.tsv";
}

/// One unjudged document of an audited run's top, with its probability and true grade: the
/// reliability table's raw material.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbabilityOutcome {
    /// The calibrated probability of relevance.
    pub probability: f64,
    /// Its rank in the run.
    pub rank: usize,
    /// Whether the official qrels judge it relevant.
    pub is_relevant: bool,
}

/// Everything the backtest found.
#[derive(Debug, Clone)]
pub struct BacktestOutcome {
    /// The task.
    pub task: String,
    /// The world.
    pub world: World,
    /// The calibration's evidence.
    pub evidence: Evidence,
    /// The teams left out.
    pub teams: Vec<String>,
    /// One row per audited run and measure.
    pub rows: Vec<BacktestRow>,
    /// The unjudged documents of every audited run's top.
    pub probabilities: Vec<ProbabilityOutcome>,
}

/// Runs the backtest of `task`. `progress(done, total)` is called as teams finish (and, in the
/// simulated world without results, as the study's units finish first).
///
/// # Errors
/// Unknown teams, corpus, study and learner errors, and unreadable or foreign trial qrels.
pub fn run_backtest(
    task: &Task,
    settings: &BacktestSettings,
    progress: &(dyn Fn(&str, usize, usize) + Sync),
) -> Result<BacktestOutcome> {
    let use_text =
        crate::judge::resolve_features(task, settings.features, CandidateSource::Retrieved)?;
    let collection = Collection::prepare(task, &task.qrels, use_text)?;
    let teams = held_out_teams(task, settings.teams.as_deref())?;
    let official: Judgments = collection.topics.iter().map(|t| t.grades.clone()).collect();
    let (trials, worlds) = match settings.world {
        World::Classic => (
            TrialJudgments::new(),
            classic_worlds(&collection, &official, &teams),
        ),
        World::Simulated => {
            let trials = simulated_trials(task, &collection, settings, &teams, progress)?;
            let worlds = simulated_worlds(&trials, &teams);
            (trials, worlds)
        }
    };
    let evidence = match settings.evidence {
        Evidence::Pool => LeaveOutEvidence::Pool(CLASSIC_WORLD_RULE),
        Evidence::Trials => LeaveOutEvidence::Trials(&trials),
    };
    let mut rows = Vec::new();
    let mut probabilities = Vec::new();
    for (done, (team, world)) in teams.iter().zip(worlds).enumerate() {
        let basis = AuditBasis::new(
            &collection,
            world,
            &settings.measures,
            task.pool_depth,
            team,
            evidence,
        )?;
        let (team_rows, team_probabilities) = backtest_team(&basis, &official, team, settings);
        rows.extend(team_rows);
        probabilities.extend(team_probabilities);
        progress("teams", done + 1, teams.len());
    }
    Ok(BacktestOutcome {
        task: task.manifest.name.clone(),
        world: settings.world,
        evidence: settings.evidence,
        teams,
        rows,
        probabilities,
    })
}

/// What the classic world removes of a team: its judged documents that a run of the team
/// retrieved at any depth and no other team's run retrieved. A calibration on the pool learns
/// from the same rule.
const CLASSIC_WORLD_RULE: UniqueRule = UniqueRule::any_run_any_depth();

/// The classic world of each team: the official judgments less its unique documents.
fn classic_worlds(
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
fn simulated_worlds(trials: &TrialJudgments, teams: &[String]) -> Vec<Judgments> {
    teams.iter().map(|team| trials[team][0].clone()).collect()
}

/// The leave-out trials of the simulated world: the kept trials of one seed in a results
/// folder (every team's, the calibration's evidence included), or a 1-seed study of `teams`
/// judged here.
fn simulated_trials(
    task: &Task,
    collection: &Collection,
    settings: &BacktestSettings,
    teams: &[String],
    progress: &(dyn Fn(&str, usize, usize) + Sync),
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
            };
            let outcome = run_study(
                task,
                collection,
                &study_settings,
                teams.to_vec(),
                &|done, total| {
                    progress("judging units", done, total);
                },
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

/// The judgments `world` plus the official grade of each of `docs` (0 for a document the
/// official qrels lack).
fn with_official(
    world: &[FxHashMap<DocId, Grade>],
    official: &[FxHashMap<DocId, Grade>],
    docs: &[Vec<DocId>],
) -> Judgments {
    world
        .iter()
        .zip(official)
        .zip(docs)
        .map(|((world, official), docs)| {
            let mut completed = world.clone();
            for &doc in docs {
                completed
                    .entry(doc)
                    .or_insert_with(|| official.get(&doc).copied().unwrap_or(0));
            }
            completed
        })
        .collect()
}

/// Audits every run of `team` against its world (`basis`) and compares with the truth.
fn backtest_team(
    basis: &AuditBasis,
    official: &Judgments,
    team: &str,
    settings: &BacktestSettings,
) -> (Vec<BacktestRow>, Vec<ProbabilityOutcome>) {
    let collection = basis.collection;
    let corrections = corrections::Corrections::new(basis, team);
    let scorer = RunScorer::new(collection, settings.measures.clone());
    let team_runs: Vec<usize> = (0..collection.runs.len())
        .filter(|&run| collection.runs[run].team == team)
        .collect();
    let per_run: Vec<(Vec<BacktestRow>, Vec<ProbabilityOutcome>)> = team_runs
        .par_iter()
        .map(|&run| {
            let audit = basis.audit(run, &settings.rules);
            let rows = run_rows(basis, &scorer, official, &corrections, team, run, &audit);
            (rows, probability_outcomes(&audit, official, collection))
        })
        .collect();
    let (rows, probabilities): (Vec<_>, Vec<_>) = per_run.into_iter().unzip();
    (
        rows.into_iter().flatten().collect(),
        probabilities.into_iter().flatten().collect(),
    )
}

/// The rank of run `run` among all other runs of a score table's measure.
fn rank_in(summary: &[Vec<f64>], run: usize, measure: usize) -> f64 {
    let others: Vec<f64> = summary
        .iter()
        .enumerate()
        .filter(|&(other, _)| other != run)
        .map(|(_, values)| values[measure])
        .collect();
    rank_among(&others, summary[run][measure])
}

/// The rows of one audited run.
fn run_rows(
    basis: &AuditBasis,
    scorer: &RunScorer,
    official: &Judgments,
    corrections: &corrections::Corrections,
    team: &str,
    run: usize,
    audit: &RunAudit,
) -> Vec<BacktestRow> {
    let collection = basis.collection;
    let tops: Vec<Vec<DocId>> = collection
        .topics
        .iter()
        .map(|topic| {
            topic.rankings[run]
                .iter()
                .take(AUDIT_DEPTH)
                .copied()
                .collect()
        })
        .collect();
    let truth = scorer.score(
        &crate::audit::basis::judgments_grades(
            collection,
            &with_official(&basis.judgments, official, &tops),
        ),
        |_| true,
    );
    let mut listed: Vec<Vec<DocId>> = vec![Vec::new(); collection.topics.len()];
    for entry in &audit.to_judge {
        let topic = collection
            .topic_index(&entry.topic)
            .expect("a listed topic is the collection's");
        let doc = collection
            .docs
            .get(&entry.docid)
            .expect("a listed document is interned");
        listed[topic].push(doc);
    }
    let judged = scorer.score(
        &crate::audit::basis::judgments_grades(
            collection,
            &with_official(&basis.judgments, official, &listed),
        ),
        |_| true,
    );
    let needs_judging = audit.measures.iter().any(|m| m.is_at_risk);
    basis
        .measures
        .iter()
        .enumerate()
        .map(|(m, measure)| {
            let figures = &audit.measures[m];
            BacktestRow {
                team: team.to_string(),
                run: collection.runs[run].tag.clone(),
                measure: measure.to_string(),
                topics: audit.topics.len(),
                true_score: truth.summary[run][m],
                true_rank: rank_in(&truth.summary, run, m),
                collection_score: basis.scores.summary[run][m],
                collection_rank: rank_in(&basis.scores.summary, run, m),
                expected_score: figures.score.expected,
                upper: figures.score.upper,
                median_score: figures.score.median,
                sample_low: figures.score.sample_low,
                sample_high: figures.score.sample_high,
                webber_park_score: basis.scores.summary[run][m] + corrections.adjustment(m),
                anti_precision_score: (measure.family == Family::Precision)
                    .then(|| corrections.anti_precision(run, m)),
                probability_rank_moves: figures.probability_rank_moves,
                is_at_risk: figures.is_at_risk,
                needs_judging,
                list_size: audit.to_judge.len(),
                judged_score: judged.summary[run][m],
                judged_rank: rank_in(&judged.summary, run, m),
            }
        })
        .collect()
}

/// The unjudged documents of an audited run's top with their probabilities and official
/// relevance.
fn probability_outcomes(
    audit: &RunAudit,
    official: &Judgments,
    collection: &Collection,
) -> Vec<ProbabilityOutcome> {
    audit
        .topics
        .iter()
        .flat_map(|topic| {
            let index = collection
                .topic_index(&topic.topic)
                .expect("an audited topic is the collection's");
            topic.unjudged.iter().map(move |doc| {
                let id = collection
                    .docs
                    .get(&doc.docid)
                    .expect("an audited document is interned");
                ProbabilityOutcome {
                    probability: doc.probability,
                    rank: doc.rank,
                    is_relevant: official[index].get(&id).is_some_and(|&grade| {
                        crate::base::is_relevant(grade, collection.relevance_level)
                    }),
                }
            })
        })
        .collect()
}
