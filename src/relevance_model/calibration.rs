//! Calibration of the judge model against the collection itself, by leaving each pooled team
//! out of the pool (classic leave-out-uniques).
//!
//! What the audit needs is the probability that an unjudged document of a new run's top is
//! relevant. A new run contributed nothing to the pool; the collection holds examples of that
//! situation, once per run of a pooled team: take run r's team out of the pool, and the documents of r's
//! top [`super::MODEL_DEPTH`] that are then unjudged are the collection's unjudged documents
//! (presumed non-relevant, as the collection's scores presume them) and the judged documents
//! that only r's team put in the pool ([`UniqueRule::classic`]: its pooled runs' top
//! `pool_depth`; a backtest passes the rule of its world), whose grades are known.
//!
//! So the calibration sample has one row per run of a pooled team (the audited team's runs
//! aside) and such document, with four features: the model's out-of-fold log-odds
//! ([`super::model`]); the log of the document's rank in the run; the log-odds of the run's
//! *judged precision* (the relevant share, smoothed by half a document, of the judged
//! documents of its top that its team did not alone contribute: how good the run is where the
//! collection can tell); and whether the document is in the pool's reach (in the top
//! `pool_depth` of a pooled run: judging would have reached it), also as a second depth term
//! for such documents. A logistic regression on that sample (Platt scaling with depth,
//! run-quality and pool terms) maps them to a calibrated probability. The audited run's documents are in the pool's reach when the collection's
//! pooled runs, or the audited run itself, put them in their top `pool_depth`: a run counts as
//! pooled when the task pools it, and a run new to the task counts as pooled, since the audit
//! asks what the collection would say had it taken part. A collection whose teams' sole pool contributions are rarely
//! relevant gets probabilities near 0 for its unjudged documents; one where leaving a team out
//! of the pool loses many relevant documents gets high ones, highest in the tops of good runs.
//! A per-topic correction of the log-odds ([`topic_offset`]) then moves each topic toward the
//! rate its own rows showed. The relevant rows' grades give the grade mix of a relevant
//! document beyond the other teams' reach ([`grade_factors`]), against the judgments' own.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashSet;
use serde::Serialize;

use super::bootstrap::{replicate_fits, ClusteredRows};
use super::effects::{sample_effects, sigmoid, EffectRow, TOPIC_PRIOR_RELEVANT};
use super::model::TopicModel;
use super::reach::{BestPooledRanks, BeyondPool, BEST_RANK_CAP};
use super::trials::TrialJudgments;
use crate::base::error::{Error, Result};
use crate::base::sparse::SparseVec;
use crate::base::{is_relevant, DocId, DocumentGrades, Grade};
use crate::collection::{Collection, TopicData, UniqueRule};
use crate::judge::logistic::{fit_logistic, LogisticModel};
use crate::judge::TrainingSet;

/// The L2 penalty of the calibration fit: two features and thousands of rows, so it only
/// keeps the fit finite when the sample separates perfectly.
pub const CALIBRATION_ALPHA: f64 = 1e-3;

/// The raw probabilities are clamped to [`RAW_PROBABILITY_FLOOR`], 1 − that, before their
/// log-odds are taken.
pub const RAW_PROBABILITY_FLOOR: f64 = 1e-6;

/// How the model's raw probabilities map to calibrated ones.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    /// How documents beyond the pool's reach are treated, and so which rows the fit learned
    /// from and which features it has.
    pub beyond_pool: BeyondPool,
    /// The intercept of the calibration fit.
    pub intercept: f64,
    /// The weight of the model's raw log-odds.
    pub log_odds_weight: f64,
    /// The weight of ln(rank).
    pub log_rank_weight: f64,
    /// The weight of the log-odds of the run's judged precision.
    pub run_precision_weight: f64,
    /// The weight of being in the pool's reach: in the top `pool_depth` of a pooled run
    /// (0 when extrapolating, whose rows are all in some team's reach).
    pub in_pool_weight: f64,
    /// The weight of ln(rank) for a document in the pool's reach, beside `log_rank_weight`:
    /// how fast relevance falls with depth differs between what pooling reached and the rest
    /// (0 when extrapolating).
    pub in_pool_log_rank_weight: f64,
    /// The weight of ln(the document's best rank in another team's pooled run), capped at
    /// [`BEST_RANK_CAP`] (0 when beyond the pool counts as non-relevant): how far the other
    /// teams' pool was from reaching it.
    pub best_pooled_rank_weight: f64,
    /// Per topic (collection order), the log-odds added for the topic: how many relevant
    /// documents its own rows held against how many the fit expected there, each with
    /// [`TOPIC_PRIOR_RELEVANT`] added (see [`topic_offset`]).
    pub topic_offsets: Vec<f64>,
    /// Per topic, the standard deviation of its log-odds correction, about 1/sqrt(O + 1) for
    /// O relevant rows: the uncertainty every document of the topic shares.
    pub topic_sd: Vec<f64>,
    /// The standard deviation of a run's own log-odds effect, estimated from how far the
    /// sample's runs' relevant counts stray from the fit beyond counting noise: the
    /// uncertainty every document of a run shares.
    pub run_sd: f64,
    /// The standard deviation of a run's own slope in ln(rank) on the log-odds, estimated
    /// from how the sample's runs' residuals tilt with depth beyond counting noise: how far a
    /// run's relevance may fall faster or slower with depth than the fit says, an
    /// uncertainty that grows with the distance from the ranks the sample shows.
    pub run_log_rank_sd: f64,
    /// The standard deviation of a run's own log-odds effect on one topic, beyond `run_sd`:
    /// the uncertainty the documents of one run and topic share.
    pub run_topic_sd: f64,
    /// The ln(rank) at which the run's slope effect is 0: the sample's mean ln(rank), each
    /// row weighted by its variance p(1 − p), where the run effect `run_sd` is measured.
    pub log_rank_center: f64,
    /// The fit repeated on bootstrap samples of the calibration's teams
    /// ([`super::bootstrap`]): each replicate's intercept, then its five weights in the
    /// order of the features in force (raw log-odds, ln rank, run precision, then the in-pool
    /// flag and its ln rank term, or ln best pooled rank and an unused 0).
    pub replicates: Vec<Vec<f64>>,
    /// Per replicate, the run effect's standard deviation measured on its own rows against its
    /// own fit (as `run_sd` is on the sample): the samples that use a replicate draw their run
    /// shift with it, so that the uncertainty of `run_sd` itself reaches the audit.
    pub replicate_run_sd: Vec<f64>,
    /// Per replicate, the run slope's standard deviation, as `replicate_run_sd` is the shift's.
    pub replicate_run_log_rank_sd: Vec<f64>,
    /// Per relevant grade of the judgments (ascending), its share among the sample's relevant
    /// rows over its share among the judgments' relevant documents, each share with one
    /// relevant row's worth of the judgments' own mix added: how much more or less often a
    /// relevant document beyond the other teams' reach has that grade than a judged one.
    pub grade_factors: Vec<(Grade, f64)>,
    /// Rows in the calibration sample (run, document).
    pub sample_size: usize,
    /// Of which judged relevant (unique relevant documents of the runs' teams).
    pub sample_relevant: usize,
    /// Documents left out of the sample because the collection never judged them, so that
    /// their relevance is unknown (only when extrapolating; otherwise they are rows presumed
    /// non-relevant).
    pub unlabelled: usize,
}

/// The run-level feature of the calibration: the log-odds of a run's judged precision on a
/// topic, from its relevant and judged counts (smoothed by half a document).
pub fn run_precision_log_odds(relevant: usize, judged: usize) -> f64 {
    let precision = (relevant as f64 + 0.5) / (judged as f64 + 1.0);
    (precision / (1.0 - precision)).ln()
}

/// [`run_precision_log_odds`] of the documents of `top` (a run's top of a topic) that
/// `grade_of` finds judged.
pub fn judged_precision(
    top: &[DocId],
    relevance_level: Grade,
    grade_of: impl Fn(DocId) -> Option<Grade>,
) -> f64 {
    let (mut relevant, mut judged) = (0, 0);
    for &doc in top {
        if let Some(grade) = grade_of(doc) {
            judged += 1;
            relevant += usize::from(is_relevant(grade, relevance_level));
        }
    }
    run_precision_log_odds(relevant, judged)
}

/// What the calibration knows of one unjudged document of a run's top.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DocumentEvidence {
    /// The judge model's raw probability.
    pub raw: f64,
    /// Its 1-based rank in the run.
    pub rank: usize,
    /// The log-odds of the run's judged precision on the topic.
    pub run_precision: f64,
    /// Whether it is in the pool's reach.
    pub is_in_pool: bool,
    /// Its best rank in another team's pooled run (capped at [`BEST_RANK_CAP`]).
    pub best_pooled_rank: usize,
}

impl DocumentEvidence {
    /// The calibration's features of the document under `beyond_pool`.
    fn features(&self, beyond_pool: BeyondPool) -> [f64; FEATURES] {
        let log_rank = (self.rank as f64).ln();
        match beyond_pool {
            BeyondPool::NonRelevant => {
                let in_pool = f64::from(u8::from(self.is_in_pool));
                [
                    raw_log_odds(self.raw),
                    log_rank,
                    self.run_precision,
                    in_pool,
                    in_pool * log_rank,
                ]
            }
            BeyondPool::Extrapolated => [
                raw_log_odds(self.raw),
                log_rank,
                self.run_precision,
                (self.best_pooled_rank.min(BEST_RANK_CAP) as f64).ln(),
                0.0,
            ],
        }
    }

    fn row(&self, beyond_pool: BeyondPool) -> SparseVec {
        let pairs = self
            .features(beyond_pool)
            .iter()
            .enumerate()
            .filter(|(_, value)| **value != 0.0)
            .map(|(index, &value)| (index as u32, value as f32))
            .collect();
        SparseVec::from_pairs(pairs).expect("distinct finite features")
    }
}

/// The number of calibration features.
const FEATURES: usize = 5;

impl Calibration {
    /// The calibrated log-odds of relevance of a document of topic `topic`.
    pub fn log_odds(&self, topic: usize, evidence: &DocumentEvidence) -> f64 {
        self.topic_offsets[topic] + self.collection_log_odds(evidence)
    }

    /// The calibrated log-odds of a document of topic `topic` under bootstrap replicate
    /// `replicate` of the fit (the point fit when there are none).
    pub fn replicate_log_odds(
        &self,
        topic: usize,
        evidence: &DocumentEvidence,
        replicate: usize,
    ) -> f64 {
        let Some(fit) = self.replicates.get(replicate) else {
            return self.log_odds(topic, evidence);
        };
        self.topic_offsets[topic] + fit[0] + weighted(&fit[1..], evidence, self.beyond_pool)
    }

    /// The standard deviations of a run's shift and slope in Monte-Carlo sample `sample`, which
    /// uses replicate `sample` mod their number (the point estimates when there are none).
    pub fn run_effect_sds(&self, sample: usize) -> (f64, f64) {
        match self.replicate_run_sd.len() {
            0 => (self.run_sd, self.run_log_rank_sd),
            count => (
                self.replicate_run_sd[sample % count],
                self.replicate_run_log_rank_sd[sample % count],
            ),
        }
    }

    /// The calibrated probability of relevance of a document of topic `topic`.
    pub fn probability(&self, topic: usize, evidence: &DocumentEvidence) -> f64 {
        sigmoid(self.log_odds(topic, evidence))
    }

    /// The weights in the order of [`DocumentEvidence::features`].
    fn weights(&self) -> [f64; FEATURES] {
        match self.beyond_pool {
            BeyondPool::NonRelevant => [
                self.log_odds_weight,
                self.log_rank_weight,
                self.run_precision_weight,
                self.in_pool_weight,
                self.in_pool_log_rank_weight,
            ],
            BeyondPool::Extrapolated => [
                self.log_odds_weight,
                self.log_rank_weight,
                self.run_precision_weight,
                self.best_pooled_rank_weight,
                0.0,
            ],
        }
    }

    /// The log-odds of the collection-wide fit, before the topic's correction.
    fn collection_log_odds(&self, evidence: &DocumentEvidence) -> f64 {
        self.intercept + weighted(&self.weights(), evidence, self.beyond_pool)
    }

    /// A calibration from a fitted model's weights (in feature order).
    fn from_fit(beyond_pool: BeyondPool, model: &LogisticModel) -> Self {
        let w = &model.weights;
        let (in_pool, in_pool_log_rank, best) = match beyond_pool {
            BeyondPool::NonRelevant => (w[3], w[4], 0.0),
            BeyondPool::Extrapolated => (0.0, 0.0, w[3]),
        };
        Self {
            beyond_pool,
            intercept: model.intercept,
            log_odds_weight: w[0],
            log_rank_weight: w[1],
            run_precision_weight: w[2],
            in_pool_weight: in_pool,
            in_pool_log_rank_weight: in_pool_log_rank,
            best_pooled_rank_weight: best,
            topic_offsets: Vec::new(),
            topic_sd: Vec::new(),
            run_sd: 0.0,
            run_log_rank_sd: 0.0,
            run_topic_sd: 0.0,
            log_rank_center: 0.0,
            replicates: Vec::new(),
            replicate_run_sd: Vec::new(),
            replicate_run_log_rank_sd: Vec::new(),
            grade_factors: Vec::new(),
            sample_size: 0,
            sample_relevant: 0,
            unlabelled: 0,
        }
    }
}

/// `weights` (in feature order) times the document's features under `beyond_pool`.
fn weighted(weights: &[f64], evidence: &DocumentEvidence, beyond_pool: BeyondPool) -> f64 {
    evidence
        .features(beyond_pool)
        .iter()
        .zip(weights)
        .map(|(x, w)| x * w)
        .sum::<f64>()
}

fn raw_log_odds(raw: f64) -> f64 {
    let p = raw.clamp(RAW_PROBABILITY_FLOOR, 1.0 - RAW_PROBABILITY_FLOOR);
    (p / (1.0 - p)).ln()
}

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

/// Where the calibration learns what a team's absence leaves unjudged.
#[derive(Debug, Clone, Copy)]
pub enum LeaveOutEvidence<'a> {
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

/// A calibration row's topic, run and ln(rank) in that run.
#[derive(Debug, Clone, Copy)]
struct RowOrigin {
    topic: usize,
    run: usize,
    log_rank: f64,
}

/// The calibration sample: rows with their label, topic, run and rank.
#[derive(Default)]
struct Sample {
    positives: Vec<SparseVec>,
    negatives: Vec<SparseVec>,
    /// The grade of each row of `positives`.
    positive_grades: Vec<Grade>,
    /// Where each row of `positives`, then of `negatives`, comes from.
    positive_groups: Vec<RowOrigin>,
    negative_groups: Vec<RowOrigin>,
    unlabelled: usize,
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
}

/// Refuses judgments without a single non-relevant one (qrels that list only relevant
/// documents): the model learns what is not relevant from them, and with none every
/// probability would be a certainty.
///
/// # Errors
/// [`Error::Invalid`] when no grade in `grades` is below `relevance_level`.
pub fn require_non_relevant(
    grades: impl IntoIterator<Item = Grade>,
    relevance_level: Grade,
) -> Result<()> {
    let any_non_relevant = (grades.into_iter()).any(|grade| !is_relevant(grade, relevance_level));
    if any_non_relevant {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "the qrels hold no non-relevant judgment (no grade below the relevance level \
             {relevance_level}), and the relevance model learns what is not relevant from them: \
             qrels that list only relevant documents can be neither completed nor \
             extrapolated; give qrels with their judged non-relevant documents"
        )))
    }
}

/// Fits the calibration of `input.models` on the leave-team-out sample of the judgments, with
/// the team's absence read from `evidence`. The runs of the audited team stay out of the
/// sample: their documents are what the audit asks about. When extrapolating beyond the pool,
/// a document the collection never judged has no known label and stays out of the fit; when
/// not, it is a row presumed non-relevant, as the collection presumes it.
///
/// # Errors
/// When the judgments hold no non-relevant one ([`require_non_relevant`]); when the logistic
/// fit fails.
pub fn calibrate(input: &CalibrationInput, evidence: LeaveOutEvidence) -> Result<Calibration> {
    require_non_relevant(
        input
            .grades
            .iter()
            .flat_map(|topic| topic.values().copied()),
        input.collection.relevance_level,
    )?;
    let sample = collect_sample(input, evidence);
    let beyond_pool = input.beyond_pool;
    let sample_size = sample.positives.len() + sample.negatives.len();
    let sample_relevant = sample.positives.len();
    let model = if sample.positives.is_empty() || sample.negatives.is_empty() {
        // Nothing to separate: every document gets the sample's smoothed base rate.
        let rate = (sample_relevant as f64 + 0.5) / (sample_size as f64 + 1.0);
        LogisticModel {
            weights: vec![0.0; FEATURES],
            intercept: (rate / (1.0 - rate)).ln(),
        }
    } else {
        let training = TrainingSet::new(
            sample.positives.iter().collect(),
            sample.negatives.iter().collect(),
            FEATURES,
        );
        fit_logistic(
            &training,
            CALIBRATION_ALPHA,
            super::model::AUDIT_MAX_ITERATIONS,
        )?
    };
    let clusters = team_clusters(input, &sample);
    let (topic_count, run_count) = (input.collection.topics.len(), input.collection.runs.len());
    let effects = |model: &LogisticModel, times: Option<&[usize]>| {
        sample_effects(
            &effect_rows(model, &sample, &clusters, times),
            topic_count,
            run_count,
        )
    };
    let point = effects(&model, None);
    let mut calibration = Calibration::from_fit(beyond_pool, &model);
    calibration.topic_sd = (point.topic_relevant.iter())
        .map(|&o| (1.0 / (o as f64 + TOPIC_PRIOR_RELEVANT)).sqrt())
        .collect();
    calibration.topic_offsets = point.topic_offsets;
    calibration.run_sd = point.run_sd;
    calibration.run_log_rank_sd = point.run_log_rank_sd;
    calibration.run_topic_sd = point.run_topic_sd;
    calibration.log_rank_center = point.log_rank_center;
    let replicates = replicate_fits(
        &ClusteredRows {
            positives: &sample.positives,
            positive_clusters: &clusters.positive,
            negatives: &sample.negatives,
            negative_clusters: &clusters.negative,
            clusters: clusters.count,
            dimension: FEATURES,
        },
        CALIBRATION_ALPHA,
        super::model::AUDIT_MAX_ITERATIONS,
    )?;
    for replicate in &replicates {
        let own = effects(&replicate.model, Some(&replicate.times));
        calibration.replicate_run_sd.push(own.run_sd);
        calibration
            .replicate_run_log_rank_sd
            .push(own.run_log_rank_sd);
        calibration.replicates.push(
            std::iter::once(replicate.model.intercept)
                .chain(replicate.model.weights.iter().copied())
                .collect(),
        );
    }
    calibration.grade_factors = grade_factors(
        input
            .grades
            .iter()
            .flat_map(|grades| grades.values().copied()),
        &sample.positive_grades,
        input.collection.relevance_level,
    );
    calibration.sample_size = sample_size;
    calibration.sample_relevant = sample_relevant;
    calibration.unlabelled = sample.unlabelled;
    Ok(calibration)
}

/// Per relevant grade of `judged` (ascending), its share among `rows` (the sample's relevant
/// rows' grades) over its share among the relevant grades of `judged`, with one relevant row
/// in the judgments' own mix added to the rows so that a small sample stays near 1.
pub(super) fn grade_factors(
    judged: impl Iterator<Item = Grade>,
    rows: &[Grade],
    relevance_level: Grade,
) -> Vec<(Grade, f64)> {
    let mut counts: BTreeMap<Grade, usize> = BTreeMap::new();
    for grade in judged.filter(|&g| is_relevant(g, relevance_level)) {
        *counts.entry(grade).or_default() += 1;
    }
    let judged_total = counts.values().sum::<usize>() as f64;
    counts
        .iter()
        .map(|(&grade, &count)| {
            let judged_share = count as f64 / judged_total;
            let in_rows = rows.iter().filter(|&&g| g == grade).count() as f64;
            let row_share = (in_rows + judged_share) / (rows.len() as f64 + 1.0);
            (grade, row_share / judged_share)
        })
        .collect()
}

/// The rows of `sample` as the effects see them, under `model`, each counted as often as its
/// team was drawn in `times` (a bootstrap replicate's draw), or once.
fn effect_rows(
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

/// The team of each row of a sample, as an index into the collection's sorted teams: the
/// clusters of the calibration's bootstrap.
struct TeamClusters {
    positive: Vec<usize>,
    negative: Vec<usize>,
    count: usize,
}

/// The teams of `sample`'s rows (see [`TeamClusters`]).
fn team_clusters(input: &CalibrationInput, sample: &Sample) -> TeamClusters {
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

/// The calibration sample of `input` under `evidence`.
fn collect_sample(input: &CalibrationInput, evidence: LeaveOutEvidence) -> Sample {
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
        // The rows' labels: the grades the collection is scored with under pool evidence, the
        // trials' assessor's (the collection's own) under trial evidence.
        let (owners, labels) = match evidence {
            LeaveOutEvidence::Pool(rule) => {
                (Some(collection.sole_teams(topic, &rule)), topic_grades)
            }
            LeaveOutEvidence::Trials(_) => (None, &topic.grades),
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
            let top = &ranking[..ranking.len().min(super::MODEL_DEPTH)];
            let mut add_rows = |grade_without: &dyn Fn(DocId) -> Option<Grade>| {
                let run_precision = judged_precision(top, level, grade_without);
                for (pos, &doc) in top.iter().enumerate() {
                    if grade_without(doc).is_some() {
                        continue;
                    }
                    let grade = labels.get(&doc).copied();
                    let label = grade.map(|g| is_relevant(g, level));
                    if label.is_none() && input.beyond_pool == BeyondPool::Extrapolated {
                        sample.unlabelled += 1;
                        continue;
                    }
                    let evidence = DocumentEvidence {
                        raw: model.probabilities.get(&doc).copied().unwrap_or(0.0),
                        rank: pos + 1,
                        run_precision,
                        is_in_pool: in_pool.contains(&doc),
                        best_pooled_rank: best_ranks.without(doc, &run.team),
                    };
                    let row = evidence.row(input.beyond_pool);
                    let origin = RowOrigin {
                        topic: index,
                        run: run_index,
                        log_rank: ((pos + 1) as f64).ln(),
                    };
                    // Ungraded by the labels too: presumed non-relevant, as the collection's
                    // scores presume.
                    if let (Some(true), Some(grade)) = (label, grade) {
                        sample.positives.push(row);
                        sample.positive_groups.push(origin);
                        sample.positive_grades.push(grade);
                    } else {
                        sample.negatives.push(row);
                        sample.negative_groups.push(origin);
                    }
                }
            };
            // Each situation gives the grade of a document in the collection without the
            // run's team, if judged there.
            match evidence {
                LeaveOutEvidence::Pool(_) => add_rows(&|doc| {
                    let owner = owners.as_ref().and_then(|owners| owners.owner(doc));
                    if owner == Some(run.team.as_str()) {
                        None
                    } else {
                        topic_grades.get(&doc).copied()
                    }
                }),
                LeaveOutEvidence::Trials(trials) => {
                    for trial in trials.get(&run.team).into_iter().flatten() {
                        add_rows(&|doc| trial[index].get(&doc).copied());
                    }
                }
            }
        }
    }
    sample
}

#[cfg(test)]
#[path = "calibration_tests.rs"]
mod tests;
