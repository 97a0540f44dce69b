//! The contract between the CAL loop and its learners: the documents a learner trains on and the
//! scores its model gives.

use crate::base::error::LearnerError;
use crate::base::sparse::SparseVec;

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
