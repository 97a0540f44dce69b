//! A study's trials scored: every run on each trial's simulated qrels, with the trial's
//! agreement with the official qrels and, with an assessor other than the official one, its
//! recall of the assessor's relevant documents; the same for each budget fraction and each
//! compared strategy, with where the judged documents' grades came from.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;

use crate::base::is_relevant;
use crate::base::DocId;
use crate::collection::Collection;
use crate::judge::assessor::{Assessor, GradeSource};
use crate::judge::cal::{TopicJudging, TraceStep};
use crate::judge::settings::JudgeSettings;
use crate::judge::strategies::Strategy;
use crate::sim::agreement::{agreement, Agreement};
use crate::sim::assessor::StudyAssessor;
use crate::sim::budget::{fraction_of_budget, topic_budget, within_budget};
use crate::sim::scoring::{QrelsGrades, RunScorer, ScoreTable, TopicGrades};
use crate::sim::settings::StudySettings;

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
    /// With an assessor other than the official one: the fraction of the assessor's relevant
    /// documents within the judging's reach (retrieved by a run, or officially judged) that
    /// the trial's qrels hold.
    pub assessor_recall: Option<f64>,
}

/// What a study's simulated assessor adds to its outcome, when it is not the official one.
#[derive(Debug, Clone)]
pub struct AssessorOutcome {
    /// The assessor as the settings name it (`completed`, or the fuller file's path).
    pub name: String,
    /// Per seed, every run scored on the assessor's qrels of that seed (the same qrels for
    /// every seed, but for the completed assessor's).
    pub reference: BTreeMap<u64, ScoreTable>,
}

/// How many of a set of judgments each source graded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SourceCounts {
    /// Graded by the official qrels.
    pub official: usize,
    /// Graded by the fuller file alone.
    pub file: usize,
    /// Drawn from the relevance model.
    pub drawn: usize,
    /// Presumed non-relevant.
    pub presumed: usize,
}

impl SourceCounts {
    /// The sources of `steps`.
    pub fn of<'s>(steps: impl IntoIterator<Item = &'s TraceStep>) -> Self {
        let mut counts = Self::default();
        for step in steps {
            *match step.source {
                GradeSource::Official => &mut counts.official,
                GradeSource::File => &mut counts.file,
                GradeSource::Drawn => &mut counts.drawn,
                GradeSource::Presumed => &mut counts.presumed,
            } += 1;
        }
        counts
    }

    /// Every judgment counted.
    pub fn total(&self) -> usize {
        self.official + self.file + self.drawn + self.presumed
    }

    /// The judgments the official qrels did not grade.
    pub fn unofficial(&self) -> usize {
        self.total() - self.official
    }

    /// `count` as a share of every judgment counted (0 when there is none).
    pub fn share(&self, count: usize) -> f64 {
        match self.total() {
            0 => 0.0,
            total => count as f64 / total as f64,
        }
    }
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
    /// The sources of the judged (not carried) documents' grades.
    pub sources: SourceCounts,
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

/// What scoring a study's trials needs.
pub(crate) struct TrialScoring<'a> {
    pub(crate) collection: &'a Collection,
    pub(crate) judge: &'a JudgeSettings,
    pub(crate) scorer: &'a RunScorer,
    pub(crate) trials: &'a [Trial],
    pub(crate) assessor: &'a StudyAssessor,
    /// With an assessor other than the official one: per seed, its relevant documents within
    /// the judging's reach, over all topics.
    pub(crate) reachable_relevant: Option<&'a BTreeMap<u64, usize>>,
}

/// Per seed, the relevant documents by `assessor` within the judging's reach (retrieved by a
/// run, or officially judged), over all topics.
pub(crate) fn reachable_relevant(
    collection: &Collection,
    assessor: &StudyAssessor,
    seeds: &[u64],
) -> BTreeMap<u64, usize> {
    let level = collection.relevance_level;
    (seeds.par_iter())
        .map(|&seed| {
            let seed_assessor = assessor.for_seed(collection, seed);
            let relevant = (collection.topics.iter().enumerate())
                .map(|(index, topic)| {
                    let mut reach: Vec<DocId> = topic.grades.keys().copied().collect();
                    reach.extend(&topic.retrieved);
                    reach.sort_unstable();
                    reach.dedup();
                    (reach.into_iter())
                        .filter(|&doc| is_relevant(seed_assessor.assess(index, doc).grade, level))
                        .count()
                })
                .sum();
            (seed, relevant)
        })
        .collect()
}

/// One compared strategy's trials at each budget fraction of the study (the whole budget
/// alone without a budget curve), its units `unit_of[trial][topic]` among `judgings` (made at
/// each topic's whole budget).
pub(crate) fn strategy_points(
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
            let sources =
                SourceCounts::of((own_unit_of.iter().flatten()).flat_map(|&unit| &cut[unit].trace));
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
                unofficial_share: sources.share(sources.unofficial()),
                sources,
            }
        })
        .collect()
}

impl TrialScoring<'_> {
    /// Every run scored on every trial's simulated qrels (`unit_of[trial][topic]` naming its
    /// judging in `judgings`), with the trial's agreement with the official qrels;
    /// `keep_qrels` keeps each trial's judgings in its outcome.
    pub(crate) fn score(
        &self,
        unit_of: &[Vec<usize>],
        judgings: &[TopicJudging],
        keep_qrels: bool,
    ) -> Vec<TrialOutcome> {
        let (collection, judge, scorer) = (self.collection, self.judge, self.scorer);
        let level = collection.relevance_level;
        self.trials
            .par_iter()
            .zip(unit_of)
            .map(|(trial, units)| {
                let assessor = self.assessor.for_seed(collection, trial.seed);
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
                let assessor_recall = self.reachable_relevant.map(|reachable| {
                    let held: usize = (topic_judgings.iter())
                        .map(|j| (j.judgments.iter()).filter(|(_, g)| is_relevant(*g, level)))
                        .map(Iterator::count)
                        .sum();
                    match reachable[&trial.seed] {
                        0 => 0.0,
                        relevant => held as f64 / relevant as f64,
                    }
                });
                TrialOutcome {
                    scores: scorer.score(&grades, |_| true),
                    judgings: keep_qrels
                        .then(|| topic_judgings.iter().map(|&j| j.clone()).collect()),
                    agreement: agreement(
                        collection,
                        (judge, &assessor),
                        &trial.excluded_runs,
                        &topic_judgings,
                    ),
                    withheld: topic_judgings.iter().map(|j| j.withheld).sum(),
                    assessor_recall,
                    trial: trial.clone(),
                }
            })
            .collect()
    }
}
