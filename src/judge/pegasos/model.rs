//! The model a fit produces: one weight per feature.

use crate::base::sparse::{dot_dense_together, DOTS_TOGETHER};
use crate::judge::learner::Scorer;

/// A linear scoring model: the score of a document is its dot product with `weights`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LinearModel {
    /// One weight per feature; features beyond its length weigh 0.
    pub weights: Vec<f32>,
}

impl LinearModel {
    /// A model with the given weights.
    pub fn new(weights: Vec<f32>) -> Self {
        Self { weights }
    }

    /// The Euclidean norm of the weights.
    pub fn norm(&self) -> f64 {
        self.weights
            .iter()
            .map(|&w| f64::from(w) * f64::from(w))
            .sum::<f64>()
            .sqrt()
    }
}

impl Scorer for LinearModel {
    #[inline]
    fn score_pairs(&self, pairs: &[(u32, f32)]) -> f32 {
        crate::base::sparse::dot_dense(pairs, &self.weights)
    }

    /// Scores [`DOTS_TOGETHER`] documents at a time, interleaved (see [`dot_dense_together`]).
    fn score_into(&self, documents: &[&[(u32, f32)]], out: &mut [f32]) {
        assert_eq!(
            documents.len(),
            out.len(),
            "score_into: one slot per document"
        );
        let mut groups = documents.chunks_exact(DOTS_TOGETHER);
        let mut slots = out.chunks_exact_mut(DOTS_TOGETHER);
        for (group, slots) in (&mut groups).zip(&mut slots) {
            let group: &[&[(u32, f32)]; DOTS_TOGETHER] = group.try_into().expect("a whole group");
            slots.copy_from_slice(&dot_dense_together(group, &self.weights));
        }
        for (slot, pairs) in slots.into_remainder().iter_mut().zip(groups.remainder()) {
            *slot = self.score_pairs(pairs);
        }
    }
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
