//! The primal solver: a lazily scaled dense weight vector, after Sofia-ML's `SfWeightVector`.

use rand::Rng;

use super::draw::draw_pair;
use super::memory::FitMemory;
use super::model::LinearModel;
use super::settings::{FitReport, PegasosValidParams, Solver, SCALE_FOLD_THRESHOLD};
use super::step::{learning_rate, pair_loss, projection_factor, shrink_factor};
use crate::base::sparse::SparseVec;
use crate::judge::learner::TrainingSet;

/// A dense weight vector `w = scale * values`, so that the L2 shrink is O(1); after Sofia-ML's
/// `SfWeightVector`.
///
/// Values are `f64`, unlike Sofia-ML's `f32`: a weight that early steps made large and later
/// steps bring back down by updates of opposite sign keeps the rounding error of its largest
/// value, and in `f32` that drifted up to ~1e-5 (relative) from the exact iterates on small
/// problems (found by the reference comparison in the tests). The dual solver keeps its
/// coefficients in `f64` for the same reason.
#[derive(Debug)]
struct DenseWeights<'m> {
    values: &'m mut [f64],
    scale: f64,
    /// `||w||²`, maintained incrementally so that projection needs no pass over `values`.
    squared_norm: f64,
    /// Whether `w` is still exactly zero, in which case shrinking it is a no-op and the scale
    /// is left alone (Sofia-ML's first step would otherwise push the scale to 1e-7 at once).
    is_zero: bool,
    folds: usize,
}

impl<'m> DenseWeights<'m> {
    /// The zero vector in `values` (all zero, one per feature).
    fn zeros(values: &'m mut [f64]) -> Self {
        Self {
            values,
            scale: 1.0,
            squared_norm: 0.0,
            is_zero: true,
            folds: 0,
        }
    }

    /// `values · x`, without the scale.
    #[inline]
    fn unscaled_dot(&self, document: &SparseVec) -> f64 {
        document
            .as_pairs()
            .iter()
            .map(|&(feature, value)| self.values[feature as usize] * f64::from(value))
            .sum()
    }

    #[inline]
    fn scale_by(&mut self, factor: f64) {
        if self.is_zero {
            return;
        }
        self.scale *= factor;
        self.squared_norm *= factor * factor;
        if self.scale < SCALE_FOLD_THRESHOLD {
            self.fold_scale();
        }
    }

    #[inline(never)]
    fn fold_scale(&mut self) {
        let scale = self.scale;
        for value in self.values.iter_mut() {
            *value *= scale;
        }
        self.scale = 1.0;
        self.folds += 1;
    }

    /// `w += coefficient * (a − b)`, given `margin = w·a − w·b` for the current `w` (taken
    /// after the shrink: a scale fold may have changed the stored values since the scores were
    /// computed, but not `w`).
    ///
    /// `a` and `b` are merged so that a feature they share gets one update by the difference:
    /// Sofia-ML's two `AddVector` calls would add and then subtract `coefficient / scale` times
    /// the value, and in `f32` that round trip loses the low bits of the stored weight whenever
    /// the step dwarfs it (early steps, or after a large projection).
    #[inline]
    fn add_difference(&mut self, a: &SparseVec, b: &SparseVec, coefficient: f64, margin: f64) {
        let step = coefficient / self.scale;
        let values = &mut *self.values;
        let mut difference_squared_norm = 0.0_f64;
        let mut update = |feature: u32, delta: f64| {
            let slot = &mut values[feature as usize];
            *slot += step * delta;
            difference_squared_norm += delta * delta;
        };
        let (a, b) = (a.as_pairs(), b.as_pairs());
        let (mut a_pos, mut b_pos) = (0, 0);
        while a_pos < a.len() && b_pos < b.len() {
            let ((a_feature, a_value), (b_feature, b_value)) = (a[a_pos], b[b_pos]);
            match a_feature.cmp(&b_feature) {
                std::cmp::Ordering::Less => {
                    update(a_feature, f64::from(a_value));
                    a_pos += 1;
                }
                std::cmp::Ordering::Greater => {
                    update(b_feature, -f64::from(b_value));
                    b_pos += 1;
                }
                std::cmp::Ordering::Equal => {
                    update(a_feature, f64::from(a_value) - f64::from(b_value));
                    a_pos += 1;
                    b_pos += 1;
                }
            }
        }
        for &(feature, value) in &a[a_pos..] {
            update(feature, f64::from(value));
        }
        for &(feature, value) in &b[b_pos..] {
            update(feature, -f64::from(value));
        }
        // ||w + c d||² = ||w||² + 2c w·d + c² ||d||², with w already shrunk.
        self.squared_norm +=
            2.0 * coefficient * margin + coefficient * coefficient * difference_squared_norm;
        self.is_zero = false;
    }

    /// Sets `model`'s weights to `w`, leaving the stored values all zero.
    fn into_model(self, model: &mut LinearModel) {
        let scale = self.scale;
        model.weights.clear();
        (model.weights)
            .extend((self.values.iter_mut()).map(|value| (std::mem::take(value) * scale) as f32));
    }
}

pub(super) fn fit_primal(
    params: &PegasosValidParams,
    training: &TrainingSet,
    memory: &mut FitMemory,
    rng: &mut impl Rng,
) -> FitReport {
    let lambda = params.lambda();
    let (values, model) = memory.accumulator_and_model(training.dimension);
    let mut weights = DenseWeights::zeros(values);
    let mut projections = 0;
    for step in 1..=params.iterations() {
        let (positive, negative) =
            draw_pair(training.positives.len(), training.negatives.len(), rng);
        let (a, b) = (training.positives[positive], training.negatives[negative]);
        let learning_rate = learning_rate(lambda, step);
        let margin = weights.scale * (weights.unscaled_dot(a) - weights.unscaled_dot(b));
        let coefficient = learning_rate * pair_loss(margin);
        let shrink = shrink_factor(learning_rate, lambda);
        weights.scale_by(shrink);
        // While w is zero the shrink is skipped, and the margin is zero either way.
        weights.add_difference(a, b, coefficient, shrink * margin);
        if let Some(factor) = projection_factor(lambda, weights.squared_norm) {
            weights.scale_by(factor);
            projections += 1;
        }
    }
    let report = FitReport {
        solver: Solver::Primal,
        iterations: params.iterations(),
        projections,
        scale_folds: weights.folds,
    };
    weights.into_model(model);
    report
}
