//! What the tests hold the solvers to: the plain formula computed eagerly, random documents,
//! and the comparisons of a fitted model with the formula's.

use rand::Rng;

use super::*;
use crate::base::sparse::SparseVec;
use crate::judge::learner::{Scorer, TrainingSet};

/// The plain formula, eagerly: a dense `f64` vector, the shrink applied to every weight and
/// the norm recomputed at every step.
pub(super) fn reference_fit(
    lambda: f64,
    iterations: usize,
    training: &TrainingSet,
    rng: &mut impl Rng,
) -> (Vec<f64>, usize) {
    let mut weights = vec![0.0_f64; training.dimension];
    let mut projections = 0;
    for step in 1..=iterations {
        let a = training.positives[rng.random_range(0..training.positives.len())];
        let b = training.negatives[rng.random_range(0..training.negatives.len())];
        let learning_rate = 1.0 / (lambda * step as f64);
        let margin = a.dot_dense_f64(&weights) - b.dot_dense_f64(&weights);
        let loss = 1.0 / (1.0 + margin.exp());
        let shrink = (1.0 - learning_rate * lambda).max(1e-7);
        for weight in &mut weights {
            *weight *= shrink;
        }
        for (feature, value) in a.iter() {
            weights[feature as usize] += learning_rate * loss * f64::from(value);
        }
        for (feature, value) in b.iter() {
            weights[feature as usize] -= learning_rate * loss * f64::from(value);
        }
        let squared_norm: f64 = weights.iter().map(|w| w * w).sum();
        if squared_norm > 1.0 / lambda {
            let factor = 1.0 / (lambda * squared_norm).sqrt();
            for weight in &mut weights {
                *weight *= factor;
            }
            projections += 1;
        }
    }
    (weights, projections)
}

/// `count` random L2-normalised documents with about `nnz` positive values each; documents
/// of the positive class put extra weight on the first `dimension / 8` features so that the
/// classes are learnable but overlap.
pub(super) fn random_documents(
    count: usize,
    nnz: usize,
    dimension: usize,
    is_positive: bool,
    rng: &mut impl Rng,
) -> Vec<SparseVec> {
    let favoured = (dimension / 8, 0.3);
    (0..count)
        .map(|_| random_document(nnz, dimension, favoured, is_positive, rng))
        .collect()
}

/// A random L2-normalised document of about `nnz` positive values; in a positive one each
/// value falls with probability `favoured.1` among the first `favoured.0` features.
pub(super) fn random_document(
    nnz: usize,
    dimension: usize,
    favoured: (usize, f64),
    is_positive: bool,
    rng: &mut impl Rng,
) -> SparseVec {
    let pairs = (0..nnz)
        .map(|_| {
            let feature = if is_positive && rng.random_bool(favoured.1) {
                rng.random_range(0..favoured.0)
            } else {
                rng.random_range(0..dimension)
            };
            (feature as u32, rng.random_range(0.01_f32..1.0))
        })
        .collect();
    SparseVec::from_pairs(pairs)
        .expect("finite values")
        .l2_normalized()
}

pub(super) fn relative_distance(fast: &[f32], reference: &[f64]) -> f64 {
    let difference: f64 = fast
        .iter()
        .zip(reference)
        .map(|(&f, &r)| (f64::from(f) - r).powi(2))
        .sum();
    let norm: f64 = reference.iter().map(|r| r * r).sum();
    (difference / norm.max(f64::MIN_POSITIVE)).sqrt()
}

/// Positions of the `count` highest scores, best first (ties: lower position first).
pub(super) fn top(scores: &[f64], count: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&x, &y| scores[y].total_cmp(&scores[x]).then(x.cmp(&y)));
    order.truncate(count);
    order
}

/// Asserts the fast model ranks the top `count` candidates as the reference does, allowing
/// swaps only between candidates whose reference scores are within `tolerance`.
pub(super) fn assert_same_top(
    fast: &LinearModel,
    reference: &[f64],
    candidates: &[SparseVec],
    count: usize,
    tolerance: f64,
) {
    let reference_scores: Vec<f64> = candidates
        .iter()
        .map(|c| c.dot_dense_f64(reference))
        .collect();
    let mut fast_scores = vec![0.0_f32; candidates.len()];
    fast.score_into(&pairs_of(candidates), &mut fast_scores);
    let fast_scores: Vec<f64> = fast_scores.iter().map(|&s| f64::from(s)).collect();
    let (expected, actual) = (top(&reference_scores, count), top(&fast_scores, count));
    for (&e, &a) in expected.iter().zip(&actual) {
        assert!(
            e == a || (reference_scores[e] - reference_scores[a]).abs() <= tolerance,
            "top-{count} differs: {e} (reference {}) vs {a} (reference {})",
            reference_scores[e],
            reference_scores[a]
        );
    }
}

/// Settings for the tests that hold the `f64` path to the exact iterates.
pub(super) fn params(lambda: f64, iterations: usize, solver: Solver) -> PegasosValidParams {
    PegasosParams::new()
        .lambda(lambda)
        .iterations(iterations)
        .solver(solver)
        .precision(GramPrecision::F64)
        .check()
        .expect("valid params")
}

/// The documents' `(feature, value)` pairs, for [`Scorer::score_into`].
pub(super) fn pairs_of(documents: &[SparseVec]) -> Vec<&[(u32, f32)]> {
    documents.iter().map(SparseVec::as_pairs).collect()
}
