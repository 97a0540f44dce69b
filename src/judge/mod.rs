//! The judge's learners: sparse document vectors and the models that rank candidates for a
//! simulated HiCAL-like continuous-active-learning assessor.
//!
//! This module owns the vector type ([`sparse::SparseVec`]), the default learner
//! ([`pegasos`], HiCAL's Sofia-ML logistic Pegasos in a pairwise ROC loop) and the dense
//! alternative ([`logistic`], L2-regularised logistic regression on linfa-logistic). Both
//! learners train on a [`TrainingSet`] of documents owned elsewhere and produce a model that
//! implements [`Scorer`].
//!
//! It does not own feature extraction, the CAL loop or the batch schedule.

pub mod logistic;
pub mod pegasos;
pub mod sparse;

use sparse::SparseVec;

/// Why a learner could not be configured or trained.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LearnerError {
    /// The regularisation parameter is zero, negative or not finite.
    #[error("lambda must be a positive, finite number, found {0}")]
    InvalidLambda(f64),
    /// The logistic regularisation parameter is zero, negative or not finite.
    #[error("alpha must be a positive, finite number, found {0}")]
    InvalidAlpha(f64),
    /// The number of iterations is zero.
    #[error("iterations must be at least 1, found 0")]
    ZeroIterations,
    /// The training set has no positive document.
    #[error("the training set must hold at least one positive document, found none")]
    NoPositives,
    /// The training set has no negative document.
    #[error("the training set must hold at least one negative document, found none")]
    NoNegatives,
    /// A sparse vector was given a NaN or infinite value.
    #[error("feature {feature} has value {value}; values must be finite")]
    NonFiniteValue {
        /// The feature index.
        feature: u32,
        /// The value given.
        value: f32,
    },
    /// A training document uses a feature outside the declared dimension.
    #[error("feature {feature} is outside the training set's dimension {dimension}")]
    FeatureOutOfRange {
        /// The offending feature index.
        feature: u32,
        /// The declared number of features.
        dimension: usize,
    },
    /// linfa-logistic refused the problem; the message is its own.
    #[error("logistic regression failed: {0}")]
    Logistic(String),
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
    /// The score of one document.
    fn score(&self, document: &SparseVec) -> f32;

    /// Scores every document of `documents` into the matching slot of `out`, without allocating.
    ///
    /// # Panics
    /// When `documents` does not yield exactly `out.len()` documents.
    fn score_into<'d, I>(&self, documents: I, out: &mut [f32])
    where
        Self: Sized,
        I: IntoIterator<Item = &'d SparseVec>,
    {
        let mut documents = documents.into_iter();
        for slot in out.iter_mut() {
            let document = documents
                .next()
                .expect("score_into: fewer documents than output slots");
            *slot = self.score(document);
        }
        assert!(
            documents.next().is_none(),
            "score_into: more documents than output slots"
        );
    }
}
