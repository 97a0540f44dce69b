//! The calibration sample: the rows the calibration learns from, taken from the collection
//! itself by leaving each pooled team out ([`TeamAbsence`]): one row per run of a pooled team
//! (the audited teams' runs aside) and document of its top [`super::model::MODEL_DEPTH`] that the
//! team's absence leaves unjudged, labelled by its grade where known, with its topic, run and
//! rank; and the teams of the rows, the clusters of the calibration's bootstrap.

use std::collections::BTreeSet;

use rustc_hash::FxHashSet;

use super::below_level::BelowLevelRow;
use super::calibration_features::{judged_precision, DocumentFeatures};
use super::effects::EffectRow;
use super::labels::{LabelCalibration, LabelRow};
use super::model::TopicModel;
use super::reach::{BestPooledRanks, BeyondPool};
use super::trials::TrialJudgments;
use crate::base::sparse::SparseVec;
use crate::base::{is_relevant, DocId, DocumentGrades, Grade};
use crate::collection::{Collection, TopicData, UniqueRule};
use crate::judge::logistic::LogisticModel;

/// The documents of `topic` in the top `pool_depth` (NIST's pooling order) of a pooled run
/// whose team is not one of `excluded_teams`.
pub fn pooled_tops(
    collection: &Collection,
    topic: &TopicData,
    pool_depth: usize,
    excluded_teams: &[String],
) -> FxHashSet<DocId> {
    collection
        .runs
        .iter()
        .zip(&topic.pool_rankings)
        .filter(|(run, _)| run.is_pooled && !excluded_teams.contains(&run.team))
        .flat_map(|(_, ranking)| ranking.iter().take(pool_depth).copied())
        .collect()
}

/// What a team's absence leaves unjudged, as the calibration reads it: the choice of
/// [`super::trials::AbsenceSource`] with what it reads from.
#[derive(Debug, Clone, Copy)]
pub enum TeamAbsence<'a> {
    /// Each pooled team taken out: its unique documents under the rule become unjudged. With
    /// [`UniqueRule::classic`] (the audit's), the judged documents that only the team put in
    /// the pool, as in classic leave-out-uniques: what a pooled collection loses without a
    /// team. A backtest whose world removes another set takes that world's rule, so that the
    /// calibration learns the loss it is tested on.
    Pool(UniqueRule),
    /// Each team's leave-out trial judgments (team name to judgments per topic, collection
    /// topic order): what re-running the judging without the team left unjudged. This is what
    /// a collection judged by active learning loses without a team, where a document that only
    /// one team pooled may still be found, and a document no pool reached may be lost.
    ///
    /// The rows are labelled by the collection's own grades, the trials' simulated assessor: a
    /// trial's loss is what it missed of them, whatever the judgments the audit scores against
    /// (in the backtest's simulated world, the audited team's own trial) found.
    Trials(&'a TrialJudgments),
}

/// The calibration's inputs besides the sample's source.
pub struct CalibrationInput<'a> {
    /// The collection.
    pub collection: &'a Collection,
    /// The judgments the audit is made against (collection topic order).
    pub grades: &'a [DocumentGrades],
    /// One judge model per topic.
    pub models: &'a [TopicModel],
    /// The depth the judgments' pool was taken to.
    pub pool_depth: usize,
    /// The teams whose runs stay out of the sample.
    pub audited_teams: &'a [String],
    /// How documents beyond the pool's reach are treated.
    pub beyond_pool: BeyondPool,
    /// Each topic's best pooled ranks (collection order).
    pub best_ranks: &'a [BestPooledRanks<'a>],
    /// A secondary assessor's labels of documents (collection topic order), learnt from as
    /// evidence beside the features ([`super::labels`]), if given.
    pub labels: Option<&'a [DocumentGrades]>,
}

/// A calibration row's topic, document, run and ln(rank) in that run, whether the document is
/// in the pool's reach, and its secondary label, if the labels grade it.
#[derive(Debug, Clone, Copy)]
struct RowOrigin {
    topic: usize,
    doc: DocId,
    run: usize,
    log_rank: f64,
    is_in_pool: bool,
    label: Option<Grade>,
}

/// The calibration sample: rows with their label, topic, run and rank.
#[derive(Default)]
pub(super) struct Sample {
    /// The relevant rows.
    pub(super) positives: Vec<SparseVec>,
    /// The rows not relevant, or presumed not.
    pub(super) negatives: Vec<SparseVec>,
    /// The grade of each row of `positives`.
    pub(super) positive_grades: Vec<Grade>,
    /// The grade of each row of `negatives` (0 for a document presumed non-relevant).
    negative_grades: Vec<Grade>,
    /// Where each row of `positives`, then of `negatives`, comes from.
    positive_groups: Vec<RowOrigin>,
    negative_groups: Vec<RowOrigin>,
    /// Documents left out because their relevance is unknown (only when extrapolating).
    pub(super) unlabelled: usize,
}

/// The rows of `sample` as the effects see them, under `model`, each counted as often as its
/// team was drawn in `times` (a bootstrap replicate's draw), or once.
pub(super) fn effect_rows(
    model: &LogisticModel,
    sample: &Sample,
    clusters: &TeamClusters,
    times: Option<&[usize]>,
) -> Vec<EffectRow> {
    let rows = (sample
        .positives
        .iter()
        .zip(&sample.positive_groups)
        .map(|r| (r, true)))
    .chain((sample.negatives.iter().zip(&sample.negative_groups)).map(|r| (r, false)));
    let row_clusters = clusters.positive.iter().chain(&clusters.negative);
    rows.zip(row_clusters)
        .map(|(((row, origin), is_relevant), &cluster)| EffectRow {
            topic: origin.topic,
            run: origin.run,
            log_rank: origin.log_rank,
            log_odds: model.log_odds(row),
            probability: model.probability(row),
            is_relevant,
            copies: times.map_or(1, |times| times[cluster]),
        })
        .collect()
}

/// The rows of `sample` that the secondary labels grade, with their log-odds under `model`
/// and the topics' corrections `topic_offsets`: what the label stage learns from.
pub(super) fn label_rows(
    model: &LogisticModel,
    topic_offsets: &[f64],
    sample: &Sample,
) -> Vec<LabelRow> {
    let positives = (sample.positives.iter().zip(&sample.positive_groups)).map(|r| (r, true));
    let negatives = (sample.negatives.iter().zip(&sample.negative_groups)).map(|r| (r, false));
    positives
        .chain(negatives)
        .filter_map(|((row, origin), is_relevant)| {
            Some(LabelRow {
                topic: origin.topic,
                document: origin.doc,
                base_log_odds: topic_offsets[origin.topic] + model.log_odds(row),
                label: origin.label?,
                is_in_pool: origin.is_in_pool,
                is_relevant,
            })
        })
        .collect()
}

/// The rows of `sample` that are not relevant, each with its calibrated log-odds of relevance
/// under `model`, the topics' `topic_offsets` and the label stage `labels` (as the audit
/// computes a document's), and whether its grade lies above 0 and below `relevance_level`.
pub(super) fn below_level_rows(
    (model, topic_offsets): (&LogisticModel, &[f64]),
    labels: Option<&LabelCalibration>,
    sample: &Sample,
    relevance_level: Grade,
) -> Vec<BelowLevelRow> {
    (sample.negatives.iter())
        .zip(&sample.negative_groups)
        .zip(&sample.negative_grades)
        .map(|((row, origin), &grade)| {
            let calibrated = topic_offsets[origin.topic] + model.log_odds(row);
            let label = (origin.label, origin.is_in_pool);
            let log_odds = LabelCalibration::labelled(labels, origin.topic, calibrated, label);
            BelowLevelRow {
                log_odds,
                is_graded: grade > 0 && grade < relevance_level,
                is_in_pool: origin.is_in_pool,
            }
        })
        .collect()
}

/// The team of each row of a sample, as an index into the collection's sorted teams: the
/// clusters of the calibration's bootstrap.
pub(super) struct TeamClusters {
    /// The team of each relevant row.
    pub(super) positive: Vec<usize>,
    /// The team of each row not relevant.
    pub(super) negative: Vec<usize>,
    /// The number of teams.
    pub(super) count: usize,
}

/// The teams of `sample`'s rows (see [`TeamClusters`]).
pub(super) fn team_clusters(input: &CalibrationInput, sample: &Sample) -> TeamClusters {
    let mut teams: Vec<&str> = input
        .collection
        .runs
        .iter()
        .map(|run| run.team.as_str())
        .collect();
    teams.sort_unstable();
    teams.dedup();
    let cluster = |groups: &[RowOrigin]| -> Vec<usize> {
        groups
            .iter()
            .map(|origin| {
                let team = input.collection.runs[origin.run].team.as_str();
                teams.binary_search(&team).expect("a run's team is listed")
            })
            .collect()
    };
    TeamClusters {
        positive: cluster(&sample.positive_groups),
        negative: cluster(&sample.negative_groups),
        count: teams.len(),
    }
}

/// The calibration sample of `input` under `absence`.
pub(super) fn collect_sample(input: &CalibrationInput, absence: TeamAbsence) -> Sample {
    let collection = input.collection;
    let level = collection.relevance_level;
    let pooled_teams: BTreeSet<&str> = collection
        .runs
        .iter()
        .filter(|run| run.is_pooled && !input.audited_teams.contains(&run.team))
        .map(|run| run.team.as_str())
        .collect();
    let mut sample = Sample::default();
    for (index, ((topic, topic_grades), model)) in collection
        .topics
        .iter()
        .zip(input.grades)
        .zip(input.models)
        .enumerate()
    {
        // The rows' grades: the grades the collection is scored with when the pool tells the
        // absence, the trials' assessor's (the collection's own) when the trials do.
        let (owners, row_grades) = match absence {
            TeamAbsence::Pool(rule) => (Some(collection.sole_teams(topic, &rule)), topic_grades),
            TeamAbsence::Trials(_) => (None, &topic.grades),
        };
        let in_pool = pooled_tops(collection, topic, input.pool_depth, input.audited_teams);
        let best_ranks = &input.best_ranks[index];
        // Runs of teams without a pooled run have no contribution to take out: only rows of
        // the collection's own presumption, which would teach nothing about pooling.
        let pooled = collection
            .runs
            .iter()
            .enumerate()
            .zip(&topic.rankings)
            .filter(|((_, run), _)| pooled_teams.contains(run.team.as_str()));
        for ((run_index, run), ranking) in pooled {
            let top = &ranking[..ranking.len().min(super::model::MODEL_DEPTH)];
            let mut add_rows = |grade_without: &dyn Fn(DocId) -> Option<Grade>| {
                let run_precision = judged_precision(top, level, grade_without);
                for (pos, &doc) in top.iter().enumerate() {
                    if grade_without(doc).is_some() {
                        continue;
                    }
                    let grade = row_grades.get(&doc).copied();
                    let relevance = grade.map(|g| is_relevant(g, level));
                    if relevance.is_none() && input.beyond_pool == BeyondPool::Extrapolated {
                        sample.unlabelled += 1;
                        continue;
                    }
                    let label = (input.labels).and_then(|labels| labels[index].get(&doc).copied());
                    let document = DocumentFeatures {
                        raw: model.probabilities.get(&doc).copied().unwrap_or(0.0),
                        rank: pos + 1,
                        run_precision,
                        is_in_pool: in_pool.contains(&doc),
                        best_pooled_rank: best_ranks.without(doc, &run.team),
                        label,
                    };
                    let row = document.row(input.beyond_pool);
                    let origin = RowOrigin {
                        topic: index,
                        doc,
                        run: run_index,
                        log_rank: ((pos + 1) as f64).ln(),
                        is_in_pool: document.is_in_pool,
                        label,
                    };
                    // Ungraded by the labels too: presumed non-relevant, as the collection's
                    // scores presume.
                    if let (Some(true), Some(grade)) = (relevance, grade) {
                        sample.positives.push(row);
                        sample.positive_groups.push(origin);
                        sample.positive_grades.push(grade);
                    } else {
                        sample.negatives.push(row);
                        sample.negative_groups.push(origin);
                        sample.negative_grades.push(grade.unwrap_or(0));
                    }
                }
            };
            // Each situation gives the grade of a document in the collection without the
            // run's team, if judged there.
            match absence {
                TeamAbsence::Pool(_) => add_rows(&|doc| {
                    let owner = owners.as_ref().and_then(|owners| owners.owner(doc));
                    if owner == Some(run.team.as_str()) {
                        None
                    } else {
                        topic_grades.get(&doc).copied()
                    }
                }),
                TeamAbsence::Trials(trials) => {
                    for trial in trials.get(&run.team).into_iter().flatten() {
                        add_rows(&|doc| trial[index].get(&doc).copied());
                    }
                }
            }
        }
    }
    sample
}
