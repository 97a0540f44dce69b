//! A study's trials scored: every run on each trial's simulated qrels, with the trial's
//! agreement with the official qrels and, with an assessor other than the official one, its
//! recall of the assessor's relevant documents; the same for each budget fraction and each
//! compared strategy, with where the judged documents' grades came from.

use std::collections::BTreeMap;

use rayon::prelude::*;

use crate::base::is_relevant;
use crate::base::DocId;
use crate::collection::Collection;
use crate::judge::assessor::GradeSource;
use crate::judge::cal::{TopicJudging, TraceStep};
use crate::judge::strategies::Strategy;
use crate::sim::agreement::{agreement, Agreement};
use crate::sim::assessor::{assessed_relevant, StudyAssessor};
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
    /// `excluded_runs[run]`: whether the run belongs to the held-out team.
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
    /// Per seed, how the assessor's qrels of that seed agree with the official grades.
    pub grades: BTreeMap<u64, crate::sim::agreement::AssessorGrades>,
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

    /// These counts and `other`'s together.
    pub fn plus(self, other: Self) -> Self {
        Self {
            official: self.official + other.official,
            file: self.file + other.file,
            drawn: self.drawn + other.drawn,
            presumed: self.presumed + other.presumed,
        }
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
    pub(crate) settings: &'a StudySettings,
    pub(crate) scorer: &'a RunScorer,
    pub(crate) trials: &'a [Trial],
    /// `withheld[trial][topic]`: the documents each trial withholds on each topic, sorted.
    pub(crate) withheld: &'a [Vec<Vec<DocId>>],
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
                        .filter(|&doc| {
                            assessed_relevant(&seed_assessor, assessor, (index, doc), level)
                        })
                        .count()
                })
                .sum();
            (seed, relevant)
        })
        .collect()
}

/// The judgings a study's trials are scored on: one strategy's units, whole or cut to a
/// fraction of each topic's budget.
#[derive(Debug, Clone, Copy)]
struct QrelsSource<'p> {
    /// `unit_of[trial][topic]`: the distinct unit that judged each trial's topic.
    unit_of: &'p [Vec<usize>],
    /// The fraction of each topic's budget the judgings are cut to; `None`: whole, each trial's
    /// judgings kept in its outcome when the study keeps qrels.
    fraction: Option<f64>,
}

/// Counts over the (trial, topic) units of one [`QrelsSource`], each unit as often as trials
/// share it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct JudgingCounts {
    /// (trial, topic) units.
    pub(crate) units: usize,
    /// Judgments, carried ones included.
    pub(crate) judgments: usize,
    /// Units whose carried judgments and pool alone exceeded the budget.
    pub(crate) pools_over_budget: usize,
    /// The sources of the judged (not carried) documents' grades.
    pub(crate) sources: SourceCounts,
}

impl JudgingCounts {
    /// The counts of `judgings`, one per (trial, topic) unit.
    pub(crate) fn of<'j>(judgings: impl IntoIterator<Item = &'j TopicJudging>) -> Self {
        let mut counts = Self::default();
        for judging in judgings {
            counts.units += 1;
            counts.judgments += judging.judgments.len();
            counts.pools_over_budget += usize::from(judging.is_pool_over_budget);
            counts.sources = counts.sources.plus(SourceCounts::of(&judging.trace));
        }
        counts
    }

    fn plus(self, other: Self) -> Self {
        Self {
            units: self.units + other.units,
            judgments: self.judgments + other.judgments,
            pools_over_budget: self.pools_over_budget + other.pools_over_budget,
            sources: self.sources.plus(other.sources),
        }
    }

    /// These judgments as a share of `whole`'s (1 when it has none).
    pub(crate) fn judged_share(&self, whole: &Self) -> f64 {
        match whole.judgments {
            0 => 1.0,
            total => self.judgments as f64 / total as f64,
        }
    }

    /// Judgments per (trial, topic) unit (0 without units).
    fn judgments_per_topic(&self) -> f64 {
        self.judgments as f64 / self.units.max(1) as f64
    }
}

/// A study's trials scored on every qrels it compares.
#[derive(Debug)]
pub(crate) struct ScoredStudy {
    /// Every trial on its whole judgings.
    pub(crate) trials: Vec<TrialOutcome>,
    /// The counts of the whole judgings.
    pub(crate) whole: JudgingCounts,
    /// The trials at each budget fraction (none without a budget curve).
    pub(crate) budget: Vec<BudgetOutcome>,
    /// Each compared strategy's trials at each budget fraction.
    pub(crate) strategies: Vec<StrategyOutcome>,
}

impl TrialScoring<'_> {
    /// Every trial scored on its `hical` judgings (`unit_of[trial][topic]` naming each one's
    /// distinct unit in `judgings`, made at each topic's whole budget), whole and at each budget
    /// fraction, and on each compared strategy's (with its `unit_of`) at each fraction (the
    /// whole budget alone without a budget curve). Every (qrels, trial) pair is scored in one
    /// parallel pass, and its results are put back in order, so they do not depend on the
    /// threads; `hical`'s judgings at a fraction are scored once, for the budget curve and for
    /// the strategy alike.
    pub(crate) fn score_study(
        &self,
        unit_of: &[Vec<usize>],
        compared: &[(Strategy, &[Vec<usize>])],
        judgings: &[TopicJudging],
    ) -> ScoredStudy {
        let settings = self.settings;
        let curve: &[f64] = if settings.has_budget_curve() {
            &settings.budget_fractions
        } else {
            &[]
        };
        let strategy_fractions: &[f64] = if settings.has_budget_curve() {
            &settings.budget_fractions
        } else {
            &crate::sim::settings::OFFICIAL_BUDGET_ONLY
        };
        let hical_at = |fraction| QrelsSource {
            unit_of,
            fraction: Some(fraction),
        };
        let mut sources = vec![QrelsSource {
            unit_of,
            fraction: None,
        }];
        sources.extend(curve.iter().map(|&fraction| hical_at(fraction)));
        // source_of[strategy][fraction]: the strategy's qrels at the fraction among `sources`.
        let source_of: Vec<Vec<usize>> = (compared.iter())
            .map(|&(strategy, unit_of)| {
                (strategy_fractions.iter().enumerate())
                    .map(|(index, &fraction)| {
                        if strategy.is_learning() && !curve.is_empty() {
                            1 + index
                        } else {
                            sources.push(QrelsSource {
                                unit_of,
                                fraction: Some(fraction),
                            });
                            sources.len() - 1
                        }
                    })
                    .collect()
            })
            .collect();
        let mut scored = self.score_sources(&sources, judgings);
        let whole = scored[0].1;
        let budget = (curve.iter().enumerate())
            .map(|(index, &fraction)| {
                let (trials, counts) = &scored[1 + index];
                BudgetOutcome {
                    fraction,
                    trials: trials.clone(),
                    pools_over_budget: counts.pools_over_budget,
                    judged_share: counts.judged_share(&whole),
                }
            })
            .collect();
        let strategies = (compared.iter().zip(&source_of))
            .map(|(&(strategy, _), sources)| StrategyOutcome {
                strategy,
                points: (strategy_fractions.iter().zip(sources))
                    .map(|(&fraction, &source)| {
                        let (trials, counts) = &scored[source];
                        StrategyPoint {
                            fraction,
                            trials: trials.clone(),
                            judgments_per_topic: counts.judgments_per_topic(),
                            unofficial_share: counts.sources.share(counts.sources.unofficial()),
                            sources: counts.sources,
                        }
                    })
                    .collect(),
            })
            .collect();
        ScoredStudy {
            trials: std::mem::take(&mut scored[0].0),
            whole,
            budget,
            strategies,
        }
    }

    /// Every trial scored on each of `sources`, with each source's counts: the (source, trial)
    /// pairs in one parallel pass, the results in `sources`' and the trials' order.
    fn score_sources(
        &self,
        sources: &[QrelsSource],
        judgings: &[TopicJudging],
    ) -> Vec<(Vec<TrialOutcome>, JudgingCounts)> {
        let pairs: Vec<(usize, usize)> = (0..sources.len())
            .flat_map(|source| (0..self.trials.len()).map(move |trial| (source, trial)))
            .collect();
        let mut scored = pairs
            .par_iter()
            .with_max_len(1)
            .map(|&(source, trial)| self.score_trial(sources[source], trial, judgings))
            .collect::<Vec<_>>()
            .into_iter();
        (sources.iter())
            .map(|_| {
                let trials = scored.by_ref().take(self.trials.len());
                trials.fold(
                    (Vec::new(), JudgingCounts::default()),
                    |(mut all, sum), one| {
                        all.push(one.0);
                        (all, sum.plus(one.1))
                    },
                )
            })
            .collect()
    }

    /// Every run scored on trial `trial_index`'s qrels from `source`, with the trial's agreement
    /// with the official qrels and the counts of its judgings.
    fn score_trial(
        &self,
        source: QrelsSource,
        trial_index: usize,
        judgings: &[TopicJudging],
    ) -> (TrialOutcome, JudgingCounts) {
        let (collection, scorer) = (self.collection, self.scorer);
        let level = collection.relevance_level;
        let trial = &self.trials[trial_index];
        let units = &source.unit_of[trial_index];
        let cut: Vec<TopicJudging> = match source.fraction {
            None => Vec::new(),
            Some(fraction) => (units.iter())
                .map(|&unit| {
                    let judging = &judgings[unit];
                    let budget = topic_budget(collection, self.settings.budget, judging.topic);
                    within_budget(judging, fraction_of_budget(budget, fraction))
                })
                .collect(),
        };
        let topic_judgings: Vec<&TopicJudging> = match source.fraction {
            None => units.iter().map(|&unit| &judgings[unit]).collect(),
            Some(_) => cut.iter().collect(),
        };
        let grades: QrelsGrades = (topic_judgings.iter().zip(&collection.topics))
            .map(|(judging, topic)| {
                let judgments = judging.judgments.iter();
                TopicGrades::new(
                    &topic.retrieved,
                    judgments.map(|&(doc, grade)| (Some(doc), grade)),
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
        let keep_qrels = source.fraction.is_none() && self.settings.keep_qrels;
        let withheld = &self.withheld[trial_index];
        let outcome = TrialOutcome {
            scores: scorer.score(&grades, |_| true),
            judgings: keep_qrels.then(|| topic_judgings.iter().map(|&j| j.clone()).collect()),
            agreement: agreement(collection, &self.settings.judge, withheld, &topic_judgings),
            withheld: topic_judgings.iter().map(|j| j.withheld).sum(),
            assessor_recall,
            trial: trial.clone(),
        };
        (outcome, JudgingCounts::of(topic_judgings))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fixture::cut_judging;

    #[test]
    fn counts_add_up_over_the_units_trials_share() {
        let whole = cut_judging();
        // Trial 0 judges with units 0 and 1, trial 1 with unit 1 twice.
        let cuts = [within_budget(&whole, 3), within_budget(&whole, 5)];
        let trials = [[&cuts[0], &cuts[1]], [&cuts[1], &cuts[1]]];
        let counts = trials
            .iter()
            .map(|units| JudgingCounts::of(units.iter().copied()))
            .fold(JudgingCounts::default(), JudgingCounts::plus);
        assert_eq!(counts, JudgingCounts::of(trials.iter().flatten().copied()));
        assert_eq!((counts.units, counts.pools_over_budget), (4, 1));
        // Judgments kept: 4 + 3 × 5 of 4 × 10; the carried judgment is no source.
        assert_eq!(counts.judgments, 19);
        let wholes = JudgingCounts::of([&whole, &whole, &whole, &whole]);
        assert_eq!(counts.judged_share(&wholes), 19.0 / 40.0);
        assert_eq!(counts.judgments_per_topic(), 19.0 / 4.0);
        assert_eq!(counts.sources.official, 19 - 4);
        assert_eq!(
            JudgingCounts::default().judged_share(&JudgingCounts::default()),
            1.0
        );
    }
}
