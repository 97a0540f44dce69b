//! The audit's judge model: per topic, a calibrated probability of relevance for every
//! unjudged document of the audited run's top [`super::AUDIT_DEPTH`].
//!
//! Per topic, an L2-regularised logistic regression ([`fit_logistic`], alpha [`AUDIT_ALPHA`])
//! learns from
//! - the topic's official judgments: grade >= relevance_level positive, every other judged
//!   document (negative grades included) negative;
//! - *presumed non-relevant* documents: the documents some run of the task (the audited run
//!   included) retrieved in its top [`super::AUDIT_DEPTH`] for the topic that the qrels do not
//!   judge. HiCAL adds random unjudged documents as negatives for the same reason: without them
//!   the model only sees the judged documents, which pooling and CAL chose because they looked
//!   relevant, so it would over-estimate the relevance of the unjudged ones, which are mostly
//!   not relevant.
//!
//! Cross-fitting keeps a presumed negative from voting against itself: the unjudged documents
//! are split into [`FOLDS`] folds (by a hash of the document id, so the split is fixed), and the
//! documents of fold f get their probability from the model trained with the presumed negatives
//! of the other folds only. Documents without a feature vector (run features: retrieved by no
//! run; text: missing from the corpus) are left out of training; a wanted one gets the
//! probability of the all-zero vector (the model's intercept).
//!
//! Text features are reduced per topic to the [`MAX_TEXT_FEATURES`] most frequent features of
//! the topic's documents (occurring in at least [`MIN_TOPIC_FREQUENCY`] of them) before
//! fitting, because [`fit_logistic`] works on a dense matrix.

use rustc_hash::FxHashMap;

use crate::base::error::Result;
use crate::base::sparse::SparseVec;
use crate::base::DocId;
use crate::collection::{Collection, TopicData, Vectors};
use crate::features::runs::run_feature_vector;
use crate::judge::logistic::{fit_logistic, DEFAULT_MAX_ITERATIONS};
use crate::judge::TrainingSet;

/// The L2 penalty of the audit's logistic regression (linfa-logistic minimises the summed log
/// loss plus alpha/2 ||w||^2). Chosen on the default synthetic task, where it gives
/// calibrated probabilities (the calibration test in `tests/cli/audit.rs`); linfa's default of
/// 1 shrinks the weights of unit-length tf-idf vectors so much that probabilities crowd
/// around the training base rate.
pub const AUDIT_ALPHA: f64 = 0.03;

/// A text feature is kept for a topic's model when at least this many of the topic's documents
/// (judged, presumed non-relevant, audited) have it: a term of one document cannot generalise.
pub const MIN_TOPIC_FREQUENCY: usize = 2;

/// At most this many text features per topic model (the most frequent in the topic's
/// documents): linfa-logistic fits a dense matrix, so this bounds the cost of a fit.
pub const MAX_TEXT_FEATURES: usize = 1_000;

/// The number of cross-fitting folds over the presumed non-relevant documents.
pub const FOLDS: u64 = 2;

/// The L-BFGS iteration cap of the audit's fits.
pub const AUDIT_MAX_ITERATIONS: u64 = DEFAULT_MAX_ITERATIONS;

/// The documents of one topic whose probability is wanted, and the result.
#[derive(Debug, Clone)]
pub struct TopicProbabilities {
    /// The probability of relevance of each requested document, same order.
    pub probabilities: Vec<f64>,
    /// Whether a model could be fitted (false: the topic has no relevant or no non-relevant
    /// judged document, and the probabilities are the judged relevant fraction).
    pub is_fitted: bool,
}

fn fold_of(name: &str) -> u64 {
    crate::base::seed::splitmix64(crate::base::seed::fnv1a(name.as_bytes())) % FOLDS
}

/// The run features of `docs` for `topic`: every run of the collection counts.
fn run_vectors(collection: &Collection, topic: &TopicData, docs: &[DocId]) -> Vec<SparseVec> {
    let run_count = collection.runs.len();
    docs.iter()
        .map(|doc| match topic.retrieved.binary_search(doc) {
            Ok(pos) => run_feature_vector(&topic.hits[pos], |_| true, run_count, run_count),
            Err(_) => SparseVec::empty(),
        })
        .collect()
}

/// The feature vectors of `docs` for `topic` and their dimension: run features, or in text
/// mode the topic's compacted text features.
fn topic_vectors(
    collection: &Collection,
    topic: &TopicData,
    docs: &[DocId],
) -> Result<(Vec<SparseVec>, usize)> {
    let Vectors::Text { vectors, .. } = &collection.vectors else {
        return Ok((
            run_vectors(collection, topic, docs),
            collection.runs.len() + 1,
        ));
    };
    let text: Vec<SparseVec> = docs
        .iter()
        .map(|&doc| {
            vectors
                .get(doc as usize)
                .cloned()
                .unwrap_or_else(SparseVec::empty)
        })
        .collect();
    compact(&text)
}

/// Keeps the features that occur in at least [`MIN_TOPIC_FREQUENCY`] of `vectors`, at most
/// [`MAX_TEXT_FEATURES`] of them (the most frequent; ties by feature number), renumbered
/// densely (0..kept), so that the dense matrix of the fit stays small. Returns the new vectors
/// and the number of features.
fn compact(vectors: &[SparseVec]) -> Result<(Vec<SparseVec>, usize)> {
    let mut frequency: FxHashMap<u32, usize> = FxHashMap::default();
    for vector in vectors {
        for (feature, _) in vector.iter() {
            *frequency.entry(feature).or_default() += 1;
        }
    }
    let mut kept: Vec<(usize, u32)> = frequency
        .into_iter()
        .filter(|&(_, count)| count >= MIN_TOPIC_FREQUENCY)
        .map(|(feature, count)| (count, feature))
        .collect();
    kept.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    kept.truncate(MAX_TEXT_FEATURES);
    let mut used: Vec<u32> = kept.into_iter().map(|(_, feature)| feature).collect();
    used.sort_unstable();
    let index: FxHashMap<u32, u32> = used
        .iter()
        .enumerate()
        .map(|(new, &old)| (old, u32::try_from(new).expect("fewer than 2^32 features")))
        .collect();
    let compacted = vectors
        .iter()
        .map(|v| {
            SparseVec::from_pairs(
                v.iter()
                    .filter_map(|(f, x)| index.get(&f).map(|&new| (new, x)))
                    .collect(),
            )
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok((compacted, used.len()))
}

/// The probability of relevance of each of `wanted` (documents of `topic` the qrels do not
/// judge), given the topic's judgments and the presumed non-relevant documents `unjudged` (a
/// superset of `wanted`).
///
/// # Errors
/// When linfa-logistic fails.
pub fn topic_probabilities(
    collection: &Collection,
    topic: &TopicData,
    unjudged: &[DocId],
    wanted: &[DocId],
) -> Result<TopicProbabilities> {
    let relevance_level = collection.relevance_level;
    let mut judged: Vec<(DocId, bool)> = topic
        .grades
        .iter()
        .map(|(&doc, &grade)| (doc, crate::base::is_relevant(grade, relevance_level)))
        .collect();
    judged.sort_unstable();
    let positives = judged.iter().filter(|(_, is_rel)| *is_rel).count();
    let base_rate = if judged.is_empty() {
        0.0
    } else {
        positives as f64 / judged.len() as f64
    };
    if positives == 0 || positives == judged.len() && unjudged.is_empty() {
        return Ok(TopicProbabilities {
            probabilities: vec![base_rate; wanted.len()],
            is_fitted: false,
        });
    }
    // One vector table for judged, presumed negatives and wanted documents.
    let mut docs: Vec<DocId> = judged.iter().map(|&(doc, _)| doc).collect();
    let unjudged_start = docs.len();
    docs.extend_from_slice(unjudged);
    let wanted_start = docs.len();
    docs.extend_from_slice(wanted);
    let (vectors, dimension) = topic_vectors(collection, topic, &docs)?;
    let folds: Vec<u64> = docs
        .iter()
        .map(|&doc| fold_of(collection.docs.name(doc)))
        .collect();
    let mut probabilities = vec![f64::NAN; wanted.len()];
    let judged_positives: Vec<&SparseVec> = (0..unjudged_start)
        .filter(|&pos| judged[pos].1 && !vectors[pos].is_empty())
        .map(|pos| &vectors[pos])
        .collect();
    let judged_negatives: Vec<&SparseVec> = (0..unjudged_start)
        .filter(|&pos| !judged[pos].1 && !vectors[pos].is_empty())
        .map(|pos| &vectors[pos])
        .collect();
    for fold in 0..FOLDS {
        let wanted_in_fold: Vec<usize> = (0..wanted.len())
            .filter(|&i| folds[wanted_start + i] == fold)
            .collect();
        if wanted_in_fold.is_empty() {
            continue;
        }
        let mut negatives = judged_negatives.clone();
        negatives.extend(
            (unjudged_start..wanted_start)
                .filter(|&pos| folds[pos] != fold && !vectors[pos].is_empty())
                .map(|pos| &vectors[pos]),
        );
        let training = TrainingSet::new(judged_positives.clone(), negatives, dimension);
        if training.positives.is_empty() || training.negatives.is_empty() {
            for i in wanted_in_fold {
                probabilities[i] = base_rate;
            }
            continue;
        }
        let model = fit_logistic(&training, AUDIT_ALPHA, AUDIT_MAX_ITERATIONS)?;
        for i in wanted_in_fold {
            probabilities[i] = model.probability(&vectors[wanted_start + i]);
        }
    }
    Ok(TopicProbabilities {
        probabilities,
        is_fitted: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compaction_keeps_values_and_renumbers_densely() {
        let a = SparseVec::from_pairs(vec![(7, 0.5), (100, 0.5), (3, 0.5)]).unwrap();
        let b = SparseVec::from_pairs(vec![(100, 1.0), (3, 0.25)]).unwrap();
        let (vectors, dimension) = compact(&[a, b]).unwrap();
        assert_eq!(dimension, 2, "feature 7 occurs once and is dropped");
        assert_eq!(vectors[0].as_pairs(), &[(0, 0.5), (1, 0.5)]);
        assert_eq!(vectors[1].as_pairs(), &[(0, 0.25), (1, 1.0)]);
    }

    #[test]
    fn folds_are_fixed_and_both_used() {
        let folds: Vec<u64> = (0..50).map(|i| fold_of(&format!("d{i}"))).collect();
        assert!(folds.contains(&0) && folds.contains(&1));
    }
}
