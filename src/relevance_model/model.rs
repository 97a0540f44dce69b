//! The audit's judge model: per topic, an out-of-fold probability of relevance for every
//! document some run ranks in its top [`MODEL_DEPTH`], judged or not. The raw
//! probabilities are calibrated by [`super::calibration`] before any figure uses them.
//!
//! Per topic, an L2-regularised logistic regression ([`fit_logistic`], alpha [`AUDIT_ALPHA`])
//! learns from
//! - the topic's judgments: grade >= relevance_level positive, every other judged document
//!   (negative grades included) negative;
//! - *presumed non-relevant* documents: the unjudged documents of the runs' tops. HiCAL adds
//!   random unjudged documents as negatives for the same reason: without them the model only
//!   sees the judged documents, which pooling and CAL chose because they looked relevant.
//!
//! Cross-fitting keeps every document out of the model that scores it: documents are split
//! into [`FOLDS`] folds by a hash of their id (a fixed split), and the documents of fold f get
//! their probability from the model trained on the other folds only, judged documents
//! included. So the probability of a judged document is as honest as that of an unjudged one,
//! which is what lets [`super::calibration`] check the model against known outcomes.
//! Documents without a feature vector (run features: retrieved by no run; text: missing from
//! the corpus) are left out of training and scored as the all-zero vector (the intercept).
//!
//! Text features are reduced per topic to the [`MAX_TEXT_FEATURES`] most frequent features of
//! the topic's documents (occurring in at least [`MIN_TOPIC_FREQUENCY`] of them) before
//! fitting: a term of one document cannot generalise, and the weight vector stays small.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::base::error::Result;
use crate::base::sparse::SparseVec;
use crate::base::{is_relevant, DocId, DocumentGrades};
use crate::collection::{Collection, TopicData, Vectors};
use crate::features::runs::run_feature_vector;
use crate::judge::logistic::{fit_logistic, DEFAULT_MAX_ITERATIONS};
use crate::judge::TrainingSet;
use crate::stats::log_odds::smoothed_rate;

/// How deep into each run the model looks: every document some run ranks in its top
/// `MODEL_DEPTH` gets a probability, and the calibration's rows are the runs' tops to this
/// depth.
pub const MODEL_DEPTH: usize = 100;

/// The L2 penalty of the audit's logistic regression (the fit minimises the summed log loss
/// plus alpha/2 ||w||^2); the judge's default of 1 shrinks the weights of unit-length vectors
/// so much that probabilities crowd around the training base rate.
pub const AUDIT_ALPHA: f64 = 0.03;

/// A text feature is kept for a topic's model when at least this many of the topic's documents
/// have it: a term of one document cannot generalise.
pub const MIN_TOPIC_FREQUENCY: usize = 2;

/// At most this many text features per topic model (the most frequent in the topic's
/// documents): the cost of a fit grows with the features its documents have.
pub const MAX_TEXT_FEATURES: usize = 1_000;

/// The number of cross-fitting folds.
pub const FOLDS: u64 = 2;

/// The L-BFGS iteration cap of the audit's fits.
pub const AUDIT_MAX_ITERATIONS: u64 = DEFAULT_MAX_ITERATIONS;

/// One topic's model: the out-of-fold probability of each document of the runs' tops.
#[derive(Debug, Clone, Default)]
pub struct TopicModel {
    /// Out-of-fold probability by document (every document of some run's top
    /// [`MODEL_DEPTH`]).
    pub probabilities: FxHashMap<DocId, f64>,
    /// Whether a model could be fitted (false: the topic has no relevant or no non-relevant
    /// judged document, and every probability is [`unseparated_rate`]).
    pub is_fitted: bool,
}

fn fold_of(name: &str) -> u64 {
    crate::base::seed::splitmix64(crate::base::seed::fnv1a(name.as_bytes())) % FOLDS
}

/// The documents of the runs' tops for `topic`: every document some run ranks in its top
/// [`MODEL_DEPTH`], sorted.
pub fn top_documents(topic: &TopicData) -> Vec<DocId> {
    let mut docs: Vec<DocId> = topic
        .rankings
        .iter()
        .flat_map(|r| r.iter().take(MODEL_DEPTH).copied())
        .collect();
    docs.sort_unstable();
    docs.dedup();
    docs
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
/// densely (0..kept), so that the fit's weight vector stays small. Returns the new vectors
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

/// The unjudged documents of the tops of `runs` (collection run indices) for `topic`: the
/// documents the audit asks about, which its model must not presume non-relevant.
pub fn questions(topic: &TopicData, grades: &DocumentGrades, runs: &[usize]) -> FxHashSet<DocId> {
    runs.iter()
        .flat_map(|&run| topic.rankings[run].iter().take(MODEL_DEPTH))
        .filter(|doc| !grades.contains_key(doc))
        .copied()
        .collect()
}

/// Fits the model of `topic` on `grades` (the judgments the audit is made against) and gives
/// every document of the runs' tops its out-of-fold probability. The unjudged documents in
/// `questions` are scored but not presumed non-relevant in training: presuming them so would
/// teach the model the answer the audit asks for (a run's own feature, in run features,
/// would learn that what only it retrieved is not relevant).
///
/// # Errors
/// When the logistic fit fails.
pub fn fit_topic(
    collection: &Collection,
    topic: &TopicData,
    grades: &DocumentGrades,
    questions: &FxHashSet<DocId>,
) -> Result<TopicModel> {
    fit_topic_scoring(collection, topic, grades, questions, &[])
}

/// The raw probability of a document of a topic whose judgments cannot be separated (the
/// topic, or one fold of it, lacks relevant or non-relevant training documents): the topic's
/// judged relevant share, smoothed by half a document as a run's judged precision is, so that
/// a topic with no judged relevant document gets a low probability rather than a certainty.
/// When every judged document is relevant it is capped at even odds: the judgments chose
/// their documents because they looked relevant, so their share says how often what the pool
/// chose is relevant, not what it passed over, and nothing in them says that an unjudged
/// document is more likely relevant than not.
pub fn unseparated_rate(relevant: usize, judged: usize) -> f64 {
    let rate = smoothed_rate(relevant, judged);
    if relevant == judged {
        rate.min(0.5)
    } else {
        rate
    }
}

/// As [`fit_topic`], also scoring the documents of `beyond_tops` (sorted) that the runs' tops
/// lack, out of fold like the others; they never train the model.
///
/// # Errors
/// When the logistic fit fails.
pub fn fit_topic_scoring(
    collection: &Collection,
    topic: &TopicData,
    grades: &DocumentGrades,
    questions: &FxHashSet<DocId>,
    beyond_tops: &[DocId],
) -> Result<TopicModel> {
    let level = collection.relevance_level;
    let tops = top_documents(topic);
    // Every judged document, then the unjudged documents of the tops.
    let mut docs: Vec<(DocId, bool)> = grades
        .iter()
        .map(|(&doc, &grade)| (doc, is_relevant(grade, level)))
        .collect();
    docs.sort_unstable();
    let positives = docs.iter().filter(|(_, is_rel)| *is_rel).count();
    let base_rate = unseparated_rate(positives, docs.len());
    docs.extend(
        tops.iter()
            .filter(|doc| !grades.contains_key(doc))
            .map(|&doc| (doc, false)),
    );
    let trained = docs.len();
    let mut scored = tops.clone();
    scored.extend(
        beyond_tops
            .iter()
            .filter(|doc| tops.binary_search(doc).is_err()),
    );
    scored.sort_unstable();
    // The documents scored but never in training (not judged, not in the tops).
    docs.extend(
        beyond_tops
            .iter()
            .filter(|doc| tops.binary_search(doc).is_err() && !grades.contains_key(doc))
            .map(|&doc| (doc, false)),
    );
    if positives == 0 || positives == trained {
        return Ok(TopicModel {
            probabilities: scored.iter().map(|&doc| (doc, base_rate)).collect(),
            is_fitted: false,
        });
    }
    let ids: Vec<DocId> = docs.iter().map(|&(doc, _)| doc).collect();
    let (vectors, dimension) = topic_vectors(collection, topic, &ids)?;
    let folds: Vec<u64> = ids
        .iter()
        .map(|&doc| fold_of(collection.docs.name(doc)))
        .collect();
    let is_scored: Vec<bool> = ids
        .iter()
        .map(|d| scored.binary_search(d).is_ok())
        .collect();
    let mut probabilities = FxHashMap::default();
    for fold in 0..FOLDS {
        let in_training = |pos: usize| {
            pos < trained
                && folds[pos] != fold
                && !vectors[pos].is_empty()
                && !questions.contains(&ids[pos])
        };
        let positives: Vec<&SparseVec> = (0..ids.len())
            .filter(|&pos| docs[pos].1 && in_training(pos))
            .map(|pos| &vectors[pos])
            .collect();
        let negatives: Vec<&SparseVec> = (0..ids.len())
            .filter(|&pos| !docs[pos].1 && in_training(pos))
            .map(|pos| &vectors[pos])
            .collect();
        let in_fold = (0..ids.len()).filter(|&pos| folds[pos] == fold && is_scored[pos]);
        if positives.is_empty() || negatives.is_empty() {
            probabilities.extend(in_fold.map(|pos| (ids[pos], base_rate)));
            continue;
        }
        let training = TrainingSet::new(positives, negatives, dimension);
        let model = fit_logistic(&training, AUDIT_ALPHA, AUDIT_MAX_ITERATIONS)?;
        probabilities.extend(in_fold.map(|pos| (ids[pos], model.probability(&vectors[pos]))));
    }
    Ok(TopicModel {
        probabilities,
        is_fitted: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_topic_whose_every_judged_document_is_relevant_gives_at_most_even_odds() {
        // 40 of 40 judged relevant: the smoothed share, 40.5 / 41, is capped at 1/2.
        assert_eq!(unseparated_rate(40, 40), 0.5);
        assert_eq!(unseparated_rate(1, 1), 0.5);
        // Nothing judged: the smoothed share is already 1/2.
        assert_eq!(unseparated_rate(0, 0), 0.5);
        // Both kinds judged, or none relevant: the smoothed share as it is.
        assert!((unseparated_rate(30, 40) - 30.5 / 41.0).abs() < 1e-12);
        assert!((unseparated_rate(0, 40) - 0.5 / 41.0).abs() < 1e-12);
    }

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
    fn the_audited_teams_unjudged_documents_are_scored_but_not_presumed_non_relevant() {
        let dir = tempfile::tempdir().unwrap();
        let task = crate::io::fixture::hand_task(dir.path(), false);
        let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
        let topic = &collection.topics[collection.topic_index("1").unwrap()];
        let team_a: Vec<usize> = (0..collection.runs.len())
            .filter(|&run| collection.runs[run].team == "A")
            .collect();
        // a1 ranks s1 s2 ua n1 n2 n3 and a2 s1 ua2 sh n4; of those, n2, n3 and n4 are unjudged.
        let asked = questions(topic, &topic.grades, &team_a);
        let mut names: Vec<&str> = asked.iter().map(|&d| collection.docs.name(d)).collect();
        names.sort_unstable();
        assert_eq!(names, ["n2", "n3", "n4"]);
        let presumed = fit_topic(&collection, topic, &topic.grades, &FxHashSet::default()).unwrap();
        let asking = fit_topic(&collection, topic, &topic.grades, &asked).unwrap();
        // Still scored, and no lower once they no longer train as negatives.
        for doc in &asked {
            let (before, after) = (presumed.probabilities[doc], asking.probabilities[doc]);
            let name = collection.docs.name(*doc);
            assert!(after >= before, "{name}: {after} < {before}");
        }
        // The fold that held them trains without them: the documents it scores move.
        let moved = presumed
            .probabilities
            .iter()
            .filter(|(doc, &before)| asking.probabilities[*doc] != before)
            .count();
        assert!(moved > 0);
    }

    #[test]
    fn a_topic_whose_judgments_cannot_be_separated_gets_its_smoothed_share_at_most_even_odds() {
        let dir = tempfile::tempdir().unwrap();
        let task = crate::io::fixture::hand_task(dir.path(), false);
        let collection = Collection::prepare(&task, &task.qrels, false).unwrap();
        let topic = &collection.topics[collection.topic_index("1").unwrap()];
        let level = collection.relevance_level;
        let keep = |relevant: bool| -> DocumentGrades {
            (topic.grades.iter())
                .filter(|(_, &grade)| is_relevant(grade, level) == relevant)
                .map(|(&doc, &grade)| (doc, grade))
                .collect()
        };
        // Every document is asked about, as the completion asks, so only judged ones train.
        for relevant in [true, false] {
            let grades = keep(relevant);
            let never_judged: FxHashSet<DocId> = (topic.retrieved.iter())
                .filter(|doc| !grades.contains_key(doc))
                .copied()
                .collect();
            let judged = grades.len() as f64;
            let model = fit_topic(&collection, topic, &grades, &never_judged).unwrap();
            // Every judged document relevant: even odds, below the smoothed share
            // (judged + 0.5) / (judged + 1); none relevant: the smoothed share.
            assert!(judged > 0.0);
            let share = if relevant { 0.5 } else { 0.5 / (judged + 1.0) };
            for (&doc, &probability) in &model.probabilities {
                let name = collection.docs.name(doc);
                assert!((probability - share).abs() < 1e-12, "{name}: {probability}");
            }
        }
    }

    #[test]
    fn folds_are_fixed_and_both_used() {
        let folds: Vec<u64> = (0..50).map(|i| fold_of(&format!("d{i}"))).collect();
        assert!(folds.contains(&0) && folds.contains(&1));
    }
}
