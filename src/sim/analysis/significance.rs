//! The study's comparisons by significance (see docs/experiment.md#significance): every pair of
//! runs is tested on each trial's qrels and on the qrels the study compares with (the official
//! ones, the truth, each seed's control at the whole budget, the assessor's), with the test and
//! correction of the study's settings, and the pairs significant on either side are classified
//! as kept, lost, reversed or new.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::sim::scoring::ScoreTable;
use crate::sim::study::StudyOutcome;
use crate::stats::comparison::{MeasureScores, PairComparison, PairTest, TestSettings};
use crate::stats::pair_changes::{all_pairs, directions, Direction, PairChanges};
use crate::stats::Spread;

/// The directions of every pair of runs (in [`all_pairs`] order) under one qrels; `None` when
/// the runs cannot be tested (fewer than 2 topics).
pub(super) type Directions = Option<Vec<Direction>>;

/// How a study tests significance, and the runs it tests.
pub(super) struct SignificanceBasis {
    /// The test, correction, level and samples.
    pub(super) settings: TestSettings,
    /// The test over the official qrels' topics, set up once for every comparison (`None`:
    /// fewer than 2 topics).
    test: Option<PairTest>,
    /// Every pair of runs, in [`all_pairs`] order.
    pairs: Vec<(usize, usize)>,
    /// The runs' tags (the keys of the sampled tests' random streams).
    runs: Vec<String>,
    /// Each run's team.
    teams: Vec<String>,
    /// The measures' names (part of the keys).
    measures: Vec<String>,
    /// Per measure (the study's order), the qrels compared with.
    pub(super) references: Vec<References>,
}

/// The directions of every pair under the qrels a study compares with, for one measure.
pub(super) struct References {
    /// Under the official qrels, with every pair's comparison.
    pub(super) official: Option<Vec<PairComparison>>,
    /// Under the official qrels.
    pub(super) official_directions: Directions,
    /// Under the truth, on tasks with one.
    pub(super) truth: Directions,
    /// Under each seed's control at the whole budget.
    pub(super) controls: BTreeMap<u64, Directions>,
    /// Under the assessor's qrels of each seed, when it is not the official one.
    pub(super) assessor: BTreeMap<u64, Directions>,
}

impl SignificanceBasis {
    /// Tests every pair of runs of `outcome` (at its whole budget) under each reference, for
    /// `measures` (the study's, in order).
    pub(super) fn new(outcome: &StudyOutcome, measures: &[String], settings: TestSettings) -> Self {
        let runs: Vec<String> = (outcome.collection.runs.iter())
            .map(|run| run.tag.clone())
            .collect();
        let teams = (outcome.collection.runs.iter())
            .map(|run| run.team.clone())
            .collect();
        let topics = (outcome.official.per_topic.first()).map_or(0, Vec::len);
        let mut basis = Self {
            settings,
            test: PairTest::new(&settings, topics).ok(),
            pairs: all_pairs(runs.len()),
            runs,
            teams,
            measures: measures.to_vec(),
            references: Vec::new(),
        };
        basis.references = (0..measures.len())
            .map(|measure| basis.references_of(outcome, measure))
            .collect();
        basis
    }

    fn references_of(&self, outcome: &StudyOutcome, measure: usize) -> References {
        let official = self.compare_all(&outcome.official, measure);
        let controls = (outcome.trials.iter())
            .filter(|trial| trial.trial.held_out.is_none())
            .map(|trial| {
                let directions = self.directions(&trial.scores, measure);
                (trial.trial.seed, directions)
            })
            .collect();
        let assessor = (outcome.assessor.iter())
            .flat_map(|assessor| &assessor.reference)
            .map(|(&seed, table)| (seed, self.directions(table, measure)))
            .collect();
        References {
            official_directions: official.as_deref().map(directions),
            official,
            truth: (outcome.truth.as_ref()).and_then(|truth| self.directions(truth, measure)),
            controls,
            assessor,
        }
    }

    /// Every pair of runs compared on `table`'s scores of `measure` (`None`: fewer than 2
    /// topics). The test set up once serves every table over the official qrels' topics.
    fn compare_all(&self, table: &ScoreTable, measure: usize) -> Option<Vec<PairComparison>> {
        let scores = topic_scores(table, measure);
        let measure_scores = MeasureScores {
            measure: &self.measures[measure],
            runs: &self.runs,
            scores: &scores,
        };
        let topics = scores.first().map_or(0, Vec::len);
        let test = match self.test {
            Some(test) if test.topics() == topics => test,
            _ => PairTest::new(&self.settings, topics).ok()?,
        };
        test.compare(measure_scores, &self.pairs).ok()
    }

    /// The direction of every pair of runs on `table`'s scores of `measure`.
    pub(super) fn directions(&self, table: &ScoreTable, measure: usize) -> Directions {
        self.compare_all(table, measure).as_deref().map(directions)
    }

    /// Whether the pair of [`all_pairs`] index `pair` involves a run of `team`.
    pub(super) fn held_out_pairs(&self, team: &str) -> Vec<bool> {
        (self.pairs.iter())
            .map(|&(first, second)| self.teams[first] == team || self.teams[second] == team)
            .collect()
    }

    /// The number of pairs of runs.
    pub(super) fn pairs(&self) -> usize {
        self.pairs.len()
    }
}

/// `other` against `reference` over every pair; `None` when either side is untested.
pub(super) fn changes(reference: &Directions, other: &Directions) -> Option<PairChanges> {
    changes_where(reference, other, |_| true)
}

/// `other` against `reference` over the pairs `included` marks.
pub(super) fn changes_among(
    reference: &Directions,
    other: &Directions,
    included: &[bool],
) -> Option<PairChanges> {
    changes_where(reference, other, |pair| included[pair])
}

fn changes_where(
    reference: &Directions,
    other: &Directions,
    include: impl Fn(usize) -> bool,
) -> Option<PairChanges> {
    Some(PairChanges::classify(
        reference.as_ref()?,
        other.as_ref()?,
        include,
    ))
}

/// The number of significant pairs.
pub(super) fn significant(directions: &Directions) -> Option<usize> {
    Some(
        (directions.as_ref()?.iter())
            .filter(|direction| direction.is_significant())
            .count(),
    )
}

/// Per run, per topic: the scores of `measure`, 0 where the run has no ranking for the topic
/// (trec_eval's `-c` rule), over the collection's topics.
fn topic_scores(table: &ScoreTable, measure: usize) -> Vec<Vec<f64>> {
    (table.per_topic.iter())
        .map(|topics| {
            (topics.iter())
                .map(|values| values.as_ref().map_or(0.0, |values| values[measure]))
                .collect()
        })
        .collect()
}

/// Pairs significant under a reference and how they fare, summed over trials.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ChangeSummary {
    /// Pairs significant under the reference.
    pub reference_significant: usize,
    /// Significant under both, in the same direction.
    pub kept: usize,
    /// Significant under the reference only.
    pub lost: usize,
    /// Significant under both, in opposite directions.
    pub reversed: usize,
    /// Significant under the trials only.
    pub new: usize,
    /// kept / reference_significant (`None` when the reference has none).
    pub kept_share: Option<f64>,
}

impl ChangeSummary {
    /// The sum of `changes` (`None` when none is defined).
    pub(super) fn of(changes: impl IntoIterator<Item = Option<PairChanges>>) -> Option<Self> {
        let changes: Vec<PairChanges> = changes.into_iter().flatten().collect();
        if changes.is_empty() {
            return None;
        }
        let total: PairChanges = changes.into_iter().sum();
        Some(Self {
            reference_significant: total.reference_significant(),
            kept: total.kept,
            lost: total.lost,
            reversed: total.reversed,
            new: total.new,
            kept_share: total.kept_share(),
        })
    }
}

/// Discriminative power (Sakai 2006): the share of pairs of runs a test finds significant.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DiscriminativePower {
    /// Under the official qrels.
    pub official: Option<f64>,
    /// Under each control trial, over seeds.
    pub controls: Option<Spread>,
    /// Under each held-out trial.
    pub trials: Option<Spread>,
}

/// One measure's comparisons by significance.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SignificanceSummary {
    /// Pairs of runs.
    pub pairs: usize,
    /// The share of pairs significant.
    pub discriminative_power: DiscriminativePower,
    /// Every held-out trial against the official qrels.
    pub trials: Option<ChangeSummary>,
    /// Every held-out trial against its seed's control (the paired view).
    pub paired: Option<ChangeSummary>,
    /// The same, over the pairs that involve a run of the held-out team.
    pub paired_held_out: Option<ChangeSummary>,
    /// The controls against the official qrels.
    pub control: Option<ChangeSummary>,
    /// Against the truth, on tasks with one: the official qrels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub official_truth: Option<ChangeSummary>,
    /// Against the truth: the controls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_truth: Option<ChangeSummary>,
    /// Against the assessor's qrels of their seed, when it is not the official one: the
    /// controls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_assessor: Option<ChangeSummary>,
}
