//! A secondary assessor's labels (typically an LLM's grades) as evidence in the calibration.
//!
//! The labels are calibrated on the collection itself, on the rows the calibration already
//! learns from ([`super::calibration_sample`]): the documents that leaving a pooled team out
//! leaves unjudged, whose grades the collection knows. Those are the kind of documents a new
//! run brings (documents only one team pooled), so what a label grade is worth there carries
//! over to a new run's unjudged documents; a table of label grade against grade learnt on all
//! judged pairs would not (it overstates them, `docs/labels.md`).
//!
//! The label stage is a second logistic fit over the calibrated log-odds `b` of a labelled row
//! (the point fit with its topic's correction): `logit p = a + c b + w[g, in pool]`, with one
//! weight per label grade above the lowest (and, when split by reach, a shift for every
//! labelled document beyond the reach). When documents beyond the pool's reach count as
//! non-relevant (the audit asks how the run would be scored had it been pooled), a label
//! weighs apart for documents in the pool's reach and beyond it, since beyond it a document is
//! non-relevant whatever its label; when extrapolating, one weight serves both. A topic's own
//! correction ([`super::effects::topic_offset`]) then moves each topic toward the relevant
//! count its labelled rows showed, so that a labeller more lenient on one topic than another
//! is corrected where the topic has the rows for it. A document without a label keeps the
//! calibration's probability: the stage applies to labelled documents only.
//!
//! A labeller that carries no information does no harm: the stage is used only when a
//! likelihood-ratio test finds, within topics, that the labels say something of relevance
//! beyond the calibrated log-odds ([`LabelInformation`]). Within topics, since labels shuffled
//! inside each topic keep each topic's label mix, which follows its relevant share, and would
//! otherwise pass a test pooled over topics.

use std::path::Path;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use super::effects::topic_offset;
use super::reach::BeyondPool;
use super::trials::Judgments;
use crate::base::error::{Error, Result};
use crate::base::sparse::SparseVec;
use crate::base::{DocId, Grade};
use crate::collection::Collection;
use crate::io::qrels::read_qrels_of;
use crate::judge::logistic::{fit_logistic, LogisticModel};
use crate::judge::TrainingSet;
use crate::stats::log_odds::sigmoid;

/// Reads a secondary assessor's labels, in qrels form, as grades of `collection`'s documents
/// (collection topic order). A label of a document that no run of the collection retrieves
/// and its judgments do not hold is of no use to the audit, and is passed over.
///
/// # Errors
/// A [`crate::base::error::ParseError`] naming the file and line of a topic the collection
/// lacks, a malformed line, a grade that is not an integer, a pair graded twice, or an empty
/// file.
pub fn read_labels(collection: &Collection, path: &Path) -> Result<Judgments> {
    let check_topic = |topic: &str| match collection.topic_index(topic) {
        Some(_) => Ok(()),
        None => Err(format!(
            "topic {topic:?} is not a topic of the task; expected labels of its topics"
        )),
    };
    let qrels = read_qrels_of(path, &check_topic)?;
    let mut labels: Judgments = vec![FxHashMap::default(); collection.topics.len()];
    for (topic_id, graded) in &qrels.topics {
        let topic = collection
            .topic_index(topic_id)
            .expect("checked on reading");
        for (docid, grade) in graded.judgments() {
            if let Some(doc) = collection.doc_id(docid) {
                labels[topic].insert(doc, grade);
            }
        }
    }
    Ok(labels)
}

/// One calibration row the labels grade: its topic and document, its calibrated log-odds, its
/// label, whether it is in the pool's reach, and whether the collection finds it relevant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabelRow {
    /// The row's topic (collection order).
    pub topic: usize,
    /// The row's document: the rows are (run, document) pairs, so a document several runs
    /// retrieve is several rows.
    pub document: DocId,
    /// The calibration's log-odds of the row (point fit and topic correction).
    pub base_log_odds: f64,
    /// The secondary assessor's grade.
    pub label: Grade,
    /// Whether the document is in the pool's reach.
    pub is_in_pool: bool,
    /// Whether the collection grades it relevant.
    pub is_relevant: bool,
}

/// Whether the labels say something of relevance that the calibrated log-odds and the topic do
/// not: the likelihood-ratio test of the logistic fit of the rows' relevance on the calibrated
/// log-odds, one indicator per topic and the stage's label weights, against the same fit
/// without the label weights. The rows are (run, document) pairs, and a document's label and
/// relevance repeat in each of its rows: the ratio is scaled by the share of distinct documents
/// among the rows, so that each document counts once (the design effect of repeated rows).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LabelInformation {
    /// Twice the gain in log-likelihood the label weights bring, times `documents / rows`.
    pub likelihood_ratio: f64,
    /// The distinct (topic, document) pairs among the rows.
    pub documents: usize,
    /// The label weights some row has.
    pub degrees_of_freedom: usize,
    /// The chi-squared tail probability of the ratio: the chance of a gain as large from
    /// labels that carry no information.
    pub p_value: f64,
    /// Whether the stage is used: `p_value` below [`LABEL_TEST_LEVEL`].
    pub is_informative: bool,
}

/// The level of the test of [`LabelInformation`]: strict, since labels found informative move
/// every labelled document's probability.
pub const LABEL_TEST_LEVEL: f64 = 0.01;

/// What the calibration learnt of one label grade, over the labelled calibration rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelGrade {
    /// The label grade.
    pub grade: Grade,
    /// Labelled calibration rows with this grade.
    pub rows: usize,
    /// Of which the collection grades relevant.
    pub relevant: usize,
    /// Of those, the rows in the pool's reach.
    pub in_pool_rows: usize,
    /// Of which relevant.
    pub in_pool_relevant: usize,
    /// The mean calibrated probability of relevance of the rows without their labels.
    pub probability_without_label: f64,
    /// The mean calibrated probability of relevance of the rows with their labels: what a
    /// label of this grade is worth on the documents a team's absence loses.
    pub probability: f64,
}

/// The label stage of the calibration: see the module's documentation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelCalibration {
    /// The label grades the rows hold, ascending; a label between two of them takes the
    /// weights of the lower (of the lowest, below them all).
    pub grades: Vec<Grade>,
    /// The stage's intercept.
    pub intercept: f64,
    /// The weight of the calibrated log-odds.
    pub calibrated_weight: f64,
    /// Per label grade (as `grades`), its weight for a document in the pool's reach (0 for the
    /// lowest grade).
    pub in_pool_weights: Vec<f64>,
    /// The same for a document beyond the pool's reach (the same weights when extrapolating).
    pub beyond_pool_weights: Vec<f64>,
    /// The log-odds added for every labelled document beyond the pool's reach, whatever its
    /// label (0 when extrapolating): the reach's own effect, so that the label weights beyond
    /// it say what a label adds there.
    pub beyond_pool_shift: f64,
    /// Whether documents in the pool's reach and beyond it have weights apart: when documents
    /// beyond the pool count as non-relevant.
    pub is_split_by_reach: bool,
    /// Per topic (collection order), the log-odds added for its labelled documents.
    pub topic_offsets: Vec<f64>,
    /// Whether the labels carry information, and so whether the stage is used.
    pub information: LabelInformation,
    /// Per label grade, what the rows showed and the stage learnt.
    pub by_grade: Vec<LabelGrade>,
    /// Labelled calibration rows.
    pub rows: usize,
    /// Of which relevant.
    pub relevant_rows: usize,
}

/// The L2 penalty of the label stage: a handful of weights and usually thousands of rows, so
/// it only keeps the fit finite when a grade separates perfectly.
const LABEL_ALPHA: f64 = 1e-3;

/// Iterations of the label stage's L-BFGS fit.
const LABEL_MAX_ITERATIONS: u64 = 200;

impl LabelCalibration {
    /// Fits the label stage on `rows`, for `topic_count` topics, documents beyond the pool's
    /// reach treated as `beyond_pool` says.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the rows hold no relevant or no non-relevant document: the
    /// labels then grade too few of the documents the collection knows to say what a label is
    /// worth; a learner error when the fit fails.
    pub fn fit(rows: &[LabelRow], topic_count: usize, beyond_pool: BeyondPool) -> Result<Self> {
        let relevant_rows = rows.iter().filter(|row| row.is_relevant).count();
        if relevant_rows == 0 || relevant_rows == rows.len() {
            return Err(Error::Invalid(format!(
                "the labels grade {} of the calibration's documents (those that leaving a team \
                 out leaves unjudged), {relevant_rows} of them relevant: a label cannot be \
                 calibrated without relevant and non-relevant ones among them; label judged \
                 documents of the collection too (--label-sheet lists them)",
                rows.len()
            )));
        }
        let mut grades: Vec<Grade> = rows.iter().map(|row| row.label).collect();
        grades.sort_unstable();
        grades.dedup();
        let mut stage = Self {
            intercept: 0.0,
            calibrated_weight: 1.0,
            in_pool_weights: vec![0.0; grades.len()],
            beyond_pool_weights: vec![0.0; grades.len()],
            beyond_pool_shift: 0.0,
            is_split_by_reach: beyond_pool == BeyondPool::NonRelevant,
            topic_offsets: vec![0.0; topic_count],
            information: LabelInformation {
                likelihood_ratio: 0.0,
                documents: 0,
                degrees_of_freedom: 0,
                p_value: 1.0,
                is_informative: true,
            },
            by_grade: Vec::new(),
            rows: rows.len(),
            relevant_rows,
            grades,
        };
        let vectors: Vec<SparseVec> = rows.iter().map(|row| stage.row(row)).collect();
        let (_, model) = fit_rows(rows, &vectors, stage.dimension())?;
        stage.set_weights(&model);
        stage.topic_offsets = stage.topic_corrections(rows, topic_count);
        stage.information = stage.information(rows, &vectors, topic_count)?;
        stage.by_grade = stage.grade_summaries(rows);
        Ok(stage)
    }

    /// `calibrated`, the calibrated log-odds of a document of topic `topic`, through `stage`
    /// when the document has a `label` and the calibration learnt from labels (which leaves it
    /// as it is when the labels carry no information).
    pub fn labelled(
        stage: Option<&Self>,
        topic: usize,
        calibrated: f64,
        (label, is_in_pool): (Option<Grade>, bool),
    ) -> f64 {
        match (stage, label) {
            (Some(stage), Some(label)) => stage.log_odds(topic, calibrated, label, is_in_pool),
            _ => calibrated,
        }
    }

    /// The log-odds of relevance of a document of topic `topic` whose calibrated log-odds
    /// are `calibrated`, labelled `label`: `calibrated` itself when the labels carry no
    /// information.
    pub fn log_odds(&self, topic: usize, calibrated: f64, label: Grade, is_in_pool: bool) -> f64 {
        if !self.information.is_informative {
            return calibrated;
        }
        let grade = self.grade_index(label);
        let (weights, shift) = if is_in_pool {
            (&self.in_pool_weights, 0.0)
        } else {
            (&self.beyond_pool_weights, self.beyond_pool_shift)
        };
        self.topic_offsets[topic]
            + self.intercept
            + self.calibrated_weight * calibrated
            + shift
            + weights[grade]
    }

    /// The index in `grades` whose weights a label takes.
    fn grade_index(&self, label: Grade) -> usize {
        self.grades
            .partition_point(|&grade| grade <= label)
            .saturating_sub(1)
    }

    /// The number of features: the calibrated log-odds, the label weights
    /// ([`Self::label_features`]), then when split the indicator of a document beyond the
    /// pool's reach.
    fn dimension(&self) -> usize {
        self.label_features().end + usize::from(self.is_split_by_reach)
    }

    /// The features of the label weights: one per grade above the lowest (in the pool's reach
    /// when split), then as many beyond it when split.
    fn label_features(&self) -> std::ops::Range<usize> {
        let groups = if self.is_split_by_reach { 2 } else { 1 };
        1..1 + groups * (self.grades.len() - 1)
    }

    /// The fit's row of `row`.
    fn row(&self, row: &LabelRow) -> SparseVec {
        let mut pairs = vec![(0, row.base_log_odds as f32)];
        let grade = self.grade_index(row.label);
        if grade > 0 {
            let above = self.grades.len() - 1;
            let offset = if row.is_in_pool || !self.is_split_by_reach {
                0
            } else {
                above
            };
            pairs.push(((offset + grade) as u32, 1.0));
        }
        if self.is_split_by_reach && !row.is_in_pool {
            pairs.push((self.label_features().end as u32, 1.0));
        }
        pairs.retain(|&(_, value)| value != 0.0);
        SparseVec::from_pairs(pairs).expect("distinct finite features")
    }

    /// The likelihood-ratio test of [`LabelInformation`]: both fits add one indicator per
    /// topic after the stage's features; the fit without labels drops the label weights and
    /// keeps the reach's indicator. `vectors` are the stage's own rows of `rows`.
    fn information(
        &self,
        rows: &[LabelRow],
        vectors: &[SparseVec],
        topic_count: usize,
    ) -> Result<LabelInformation> {
        let dimension = self.dimension() + topic_count;
        let labels = self.label_features();
        let with_topic = |mut pairs: Vec<(u32, f32)>, row: &LabelRow| {
            pairs.push(((self.dimension() + row.topic) as u32, 1.0));
            SparseVec::from_pairs(pairs).expect("distinct finite features")
        };
        let (with_labels, without_labels): (Vec<SparseVec>, Vec<SparseVec>) = (rows.iter())
            .zip(vectors)
            .map(|(row, stage_row)| {
                let calibrated_only = (stage_row.iter())
                    .filter(|&(feature, _)| !labels.contains(&(feature as usize)))
                    .collect();
                (
                    with_topic(stage_row.as_pairs().to_vec(), row),
                    with_topic(calibrated_only, row),
                )
            })
            .unzip();
        let (full, _) = fit_rows(rows, &with_labels, dimension)?;
        let (restricted, _) = fit_rows(rows, &without_labels, dimension)?;
        let documents = (rows.iter())
            .map(|row| (row.topic, row.document))
            .collect::<FxHashSet<_>>()
            .len();
        let design = documents as f64 / rows.len() as f64;
        let likelihood_ratio = (2.0 * (full - restricted) * design).max(0.0);
        let weighted: FxHashSet<u32> = (with_labels.iter())
            .flat_map(|vector| vector.iter().map(|(feature, _)| feature))
            .filter(|&feature| labels.contains(&(feature as usize)))
            .collect();
        let degrees_of_freedom = weighted.len();
        let p_value = match degrees_of_freedom {
            0 => 1.0,
            df => {
                statrs::function::gamma::checked_gamma_ur(df as f64 / 2.0, likelihood_ratio / 2.0)
                    .unwrap_or(0.0)
            }
        };
        Ok(LabelInformation {
            likelihood_ratio,
            documents,
            degrees_of_freedom,
            p_value,
            is_informative: p_value < LABEL_TEST_LEVEL,
        })
    }

    /// Reads the stage's weights from `model`, in the order of [`Self::row`].
    fn set_weights(&mut self, model: &LogisticModel) {
        let above = self.grades.len() - 1;
        self.intercept = model.intercept;
        self.calibrated_weight = model.weights[0];
        for grade in 1..self.grades.len() {
            self.in_pool_weights[grade] = model.weights[grade];
            self.beyond_pool_weights[grade] = match self.is_split_by_reach {
                true => model.weights[above + grade],
                false => model.weights[grade],
            };
        }
        if self.is_split_by_reach {
            self.beyond_pool_shift = model.weights[self.label_features().end];
        }
    }

    /// Per topic, the correction toward the relevant count of its labelled rows.
    fn topic_corrections(&self, rows: &[LabelRow], topic_count: usize) -> Vec<f64> {
        let mut observed = vec![0usize; topic_count];
        let mut expected = vec![0.0f64; topic_count];
        for row in rows {
            observed[row.topic] += usize::from(row.is_relevant);
            expected[row.topic] += sigmoid(self.uncorrected(row));
        }
        (observed.iter().zip(&expected))
            .map(|(&o, &e)| topic_offset(o, e))
            .collect()
    }

    /// The stage's log-odds of `row` before its topic's correction.
    fn uncorrected(&self, row: &LabelRow) -> f64 {
        self.log_odds(row.topic, row.base_log_odds, row.label, row.is_in_pool)
            - self.topic_offsets[row.topic]
    }

    /// What the rows of each grade showed, and the stage's mean probability of them.
    fn grade_summaries(&self, rows: &[LabelRow]) -> Vec<LabelGrade> {
        (self.grades.iter())
            .map(|&grade| {
                let of_grade: Vec<&LabelRow> = rows.iter().filter(|r| r.label == grade).collect();
                let in_pool = || of_grade.iter().filter(|r| r.is_in_pool);
                let mean = |value: &dyn Fn(&LabelRow) -> f64| {
                    of_grade.iter().map(|r| value(r)).sum::<f64>() / of_grade.len() as f64
                };
                LabelGrade {
                    grade,
                    rows: of_grade.len(),
                    relevant: of_grade.iter().filter(|r| r.is_relevant).count(),
                    in_pool_rows: in_pool().count(),
                    in_pool_relevant: in_pool().filter(|r| r.is_relevant).count(),
                    probability_without_label: mean(&|r| sigmoid(r.base_log_odds)),
                    probability: mean(&|r| {
                        sigmoid(self.log_odds(r.topic, r.base_log_odds, r.label, r.is_in_pool))
                    }),
                }
            })
            .collect()
    }
}

/// The label stage's logistic fit of `rows`' relevance on `vectors` (one per row) of
/// `dimension` features: its log-likelihood over the rows, and the model.
fn fit_rows(
    rows: &[LabelRow],
    vectors: &[SparseVec],
    dimension: usize,
) -> Result<(f64, LogisticModel)> {
    let (positives, negatives) =
        (rows.iter().zip(vectors)).partition::<Vec<_>, _>(|(row, _)| row.is_relevant);
    let training = TrainingSet::new(
        positives.into_iter().map(|(_, vector)| vector).collect(),
        negatives.into_iter().map(|(_, vector)| vector).collect(),
        dimension,
    );
    let model = fit_logistic(&training, LABEL_ALPHA, LABEL_MAX_ITERATIONS)?;
    let log_likelihood = (rows.iter().zip(vectors))
        .map(|(row, vector)| {
            let log_odds = model.log_odds(vector);
            let signed = if row.is_relevant { log_odds } else { -log_odds };
            // log sigmoid(signed), without overflow far on the wrong side.
            signed.min(0.0) - (-signed.abs()).exp().ln_1p()
        })
        .sum();
    Ok((log_likelihood, model))
}

#[cfg(test)]
#[path = "labels_tests.rs"]
mod tests;
