//! The judge: a simulated HiCAL-like continuous-active-learning assessor, its learners and the
//! judging strategies without learning.
//!
//! The learners are the default ([`pegasos`], HiCAL's Sofia-ML logistic Pegasos in a pairwise
//! ROC loop) and the dense alternative ([`logistic`], L2-regularised logistic regression fitted
//! by argmin's L-BFGS on linfa-logistic's objective; linfa-logistic itself is the tests'
//! oracle). Both train on a [`TrainingSet`] of documents owned elsewhere and produce a model
//! that implements [`Scorer`].
//!
//! It also holds the CAL loop ([`cal`]), what it may propose ([`candidates`]), the batch
//! schedules ([`schedule`]), the strategies without learning ([`strategies`]), the simulated
//! assessor's trait with the official and fuller-file assessors ([`assessor`]) and the judge's
//! settings ([`settings`]). The task as the judge sees it is [`crate::collection`]'s; the
//! document vectors are [`crate::base::sparse`]'s and feature extraction lives in
//! [`crate::features`].

pub mod assessor;
pub mod cal;
pub mod candidates;
pub mod logistic;
pub mod pegasos;
pub mod schedule;
pub mod settings;
pub mod strategies;

use crate::base::error::LearnerError;
use crate::base::sparse::SparseVec;

use crate::base::error::Error;
use crate::collection::{CandidateSource, FeatureChoice};
use crate::io::task::Task;

/// Whether the judge uses text features, given the task and the choices made.
///
/// # Errors
/// [`Error::Invalid`] when text features are asked for without a corpus or topics, or corpus
/// candidates without text features.
pub fn resolve_features(
    task: &Task,
    features: FeatureChoice,
    candidates: CandidateSource,
) -> crate::base::error::Result<bool> {
    let has_corpus = task.manifest.corpus.is_some() || task.manifest.feature_store.is_some();
    let has_text = has_corpus && task.topics.is_some();
    let use_text = match features {
        FeatureChoice::Auto => has_text,
        FeatureChoice::Text if !has_text => {
            return Err(Error::Invalid(format!(
            "task {}: text features need a corpus (or its feature store) and topic texts in the \
                 manifest",
            task.manifest.name
        )))
        }
        FeatureChoice::Text => true,
        FeatureChoice::Runs => false,
    };
    if candidates == CandidateSource::Corpus && !use_text {
        return Err(Error::Invalid(
            "corpus candidates need text features (a corpus to draw candidates from)".into(),
        ));
    }
    Ok(use_text)
}

/// Marks the runs of the named teams as excluded (held out), in task run order.
///
/// # Errors
/// [`Error::Invalid`] naming a team that does not exist, with the teams that do.
pub fn excluded_runs(task: &Task, teams: &[String]) -> crate::base::error::Result<Vec<bool>> {
    let known = task.teams.team_names();
    if let Some(unknown) = teams.iter().find(|team| !known.contains(&team.as_str())) {
        return Err(Error::Invalid(format!(
            "no team {unknown:?} in task {}; teams: {}",
            task.manifest.name,
            known.join(", ")
        )));
    }
    Ok(task
        .runs
        .iter()
        .map(|run| teams.iter().any(|team| team == task.team_of(&run.tag)))
        .collect())
}

/// The documents one retrain learns from, borrowed from wherever they are owned (the corpus, a
/// feature table), so that building one per retrain costs two vectors of references.
#[derive(Debug, Clone, Default)]
pub struct TrainingSet<'a> {
    /// Documents that should score high (the seed and relevant judged documents).
    pub positives: Vec<&'a SparseVec>,
    /// Documents that should score low (non-relevant judged and presumed non-relevant ones).
    pub negatives: Vec<&'a SparseVec>,
    /// The number of features; every feature index of every document must be below it.
    pub dimension: usize,
}

impl<'a> TrainingSet<'a> {
    /// A training set over `dimension` features.
    pub fn new(
        positives: Vec<&'a SparseVec>,
        negatives: Vec<&'a SparseVec>,
        dimension: usize,
    ) -> Self {
        Self {
            positives,
            negatives,
            dimension,
        }
    }

    /// The number of documents, positives and negatives together.
    pub fn len(&self) -> usize {
        self.positives.len() + self.negatives.len()
    }

    /// Whether there is no document at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checks that both classes are present and every feature is below the dimension.
    ///
    /// # Errors
    /// [`LearnerError::NoPositives`], [`LearnerError::NoNegatives`] or
    /// [`LearnerError::FeatureOutOfRange`].
    pub fn check(&self) -> Result<(), LearnerError> {
        if self.positives.is_empty() {
            return Err(LearnerError::NoPositives);
        }
        if self.negatives.is_empty() {
            return Err(LearnerError::NoNegatives);
        }
        for document in self.positives.iter().chain(&self.negatives) {
            // Indices are sorted, so the last one is the largest.
            if let Some(feature) = document.max_feature() {
                if feature as usize >= self.dimension {
                    return Err(LearnerError::FeatureOutOfRange {
                        feature,
                        dimension: self.dimension,
                    });
                }
            }
        }
        Ok(())
    }
}

/// A trained model that gives every document a score; higher means more likely relevant.
pub trait Scorer {
    /// The score of a document given as its `(feature, value)` pairs in increasing feature
    /// order (a [`SparseVec`]'s, or a feature store's).
    fn score_pairs(&self, pairs: &[(u32, f32)]) -> f32;

    /// The score of one document.
    fn score(&self, document: &SparseVec) -> f32 {
        self.score_pairs(document.as_pairs())
    }

    /// Scores every document of `documents` (as `(feature, value)` pairs) into the matching
    /// slot of `out`, without allocating; each score equals [`score_pairs`](Self::score_pairs)'s
    /// bit for bit.
    ///
    /// # Panics
    /// When `documents` and `out` differ in length.
    fn score_into(&self, documents: &[&[(u32, f32)]], out: &mut [f32]) {
        assert_eq!(
            documents.len(),
            out.len(),
            "score_into: one slot per document"
        );
        for (slot, pairs) in out.iter_mut().zip(documents) {
            *slot = self.score_pairs(pairs);
        }
    }
}
