//! The default learner: HiCAL's Sofia-ML logistic Pegasos in a pairwise ROC loop, producing a
//! dense linear model over sparse documents.
//!
//! Source: hical/HiCAL `CALEngine/src/classifier.cc` (`LRPegasosClassifier::train`, called by
//! HiCAL's BMI with lambda 1e-4 and 200,000 iterations) and
//! `CALEngine/src/sofiaml/sf-weight-vector.cc` (the lazily scaled weight vector). For `i` in
//! `1..=iterations`:
//!
//! 1. draw a positive `a` (uniformly), then a negative `b` (uniformly) — in this order, from the
//!    rng passed in, so that every implementation produces the same iterates;
//! 2. `eta = 1 / (lambda * i)`;
//! 3. `loss = 1 / (1 + exp(w·a − w·b))`, with the weights *before* this step's shrink;
//! 4. `w *= max(1 − eta * lambda, 1e-7)` (Sofia-ML's `L2Regularize` and its
//!    `MIN_SCALING_FACTOR`; at `i = 1` the factor is `0` and the floor applies);
//! 5. `w += eta * loss * (a − b)` (two `AddVector` calls in Sofia-ML, `a` then `−b`; here one
//!    update by the difference, which is the same sum without the `f32` round-off of adding and
//!    then subtracting the same large step on a shared feature);
//! 6. if `||w|| > 1 / sqrt(lambda)`, `w *= 1 / sqrt(lambda * ||w||²)` (`PegasosProjection`),
//!    judged on the cached squared norm rather than a recomputed one, as in Sofia-ML.
//!
//! There is no bias term. HiCAL's documents carry Sofia-ML's bias feature (id 0, value 1), but a
//! pairwise step adds `eta * loss * (a − b)`, in which it cancels, so its weight stays 0 and the
//! model is the same without it. Scalars, stored weights, dual coefficients and scores are `f64`
//! here where Sofia-ML uses `f32`; the dual solver's Gram entries, its step sizes and the last
//! few steps' score updates are `f32` by default ([`GramPrecision`]), and the fitted model's weights
//! are `f32`, as in Sofia-ML.
//!
//! Two implementations compute the same iterates, chosen by the size of the training set (see
//! [`DUAL_MAX_DOCUMENTS`]): a primal one (`primal.rs`) over a lazily scaled dense weight vector
//! (an iteration costs `O(nnz(a) + nnz(b))` random accesses) and a dual one (`dual.rs`) over one
//! coefficient per training document and a Gram matrix (an iteration costs one contiguous pass
//! over two Gram rows, by the vector kernels of `kernels.rs`).

mod draw;
mod dual;
mod exp;
mod kernels;
mod memory;
mod model;
mod primal;
mod settings;
mod step;

pub use memory::FitMemory;
pub use model::LinearModel;
pub use settings::{
    FitReport, GramPrecision, PegasosParams, PegasosValidParams, Solver, DEFAULT_ITERATIONS,
    DEFAULT_LAMBDA, DUAL_MAX_DOCUMENTS, MIN_SCALING_FACTOR, SCALE_FOLD_THRESHOLD,
};

use kernels::VectorLevel;
use rand::Rng;

use crate::base::error::Result;
use crate::judge::learner::TrainingSet;

/// The fit, here rather than beside the settings because it chooses between the solvers below.
impl PegasosValidParams {
    /// Trains a linear model that scores positives above negatives. The result depends only on
    /// the training set and the state of `rng`.
    ///
    /// # Errors
    /// When the training set has no positive or no negative document, or a document has a
    /// feature at or beyond the training set's dimension.
    pub fn fit(&self, training: &TrainingSet, rng: &mut impl Rng) -> Result<LinearModel> {
        self.fit_with_report(training, rng).map(|(model, _)| model)
    }

    /// [`fit`](Self::fit), also returning what happened during the fit.
    ///
    /// # Errors
    /// As [`fit`](Self::fit).
    pub fn fit_with_report(
        &self,
        training: &TrainingSet,
        rng: &mut impl Rng,
    ) -> Result<(LinearModel, FitReport)> {
        let mut memory = FitMemory::new();
        let report = self.fit_inner(training, None, &mut memory, rng)?;
        Ok((std::mem::take(&mut memory.model), report))
    }

    /// [`fit`](Self::fit) for one of a sequence of overlapping training sets (the retrains of one
    /// judging unit): `keys` names each document of `training` (positives, then negatives), equal
    /// keys for equal vectors within the sequence, and `memory` keeps what one fit can give the
    /// next (the dot products of documents that stay) and the model, which is bit-identical to
    /// `fit`'s. Once `memory` has served a fit as large, it allocates nothing.
    ///
    /// # Errors
    /// As [`fit`](Self::fit).
    ///
    /// # Panics
    /// When `keys` does not have one key per document.
    pub fn fit_reusing<'m>(
        &self,
        training: &TrainingSet,
        keys: &[u64],
        memory: &'m mut FitMemory,
        rng: &mut impl Rng,
    ) -> Result<(&'m LinearModel, FitReport)> {
        assert_eq!(keys.len(), training.len(), "one key per training document");
        let report = self.fit_inner(training, Some(keys), memory, rng)?;
        Ok((&memory.model, report))
    }

    /// Fits into `memory`'s model.
    fn fit_inner(
        &self,
        training: &TrainingSet,
        keys: Option<&[u64]>,
        memory: &mut FitMemory,
        rng: &mut impl Rng,
    ) -> Result<FitReport> {
        training.check()?;
        let solver = match self.solver() {
            Solver::Auto if training.len() <= DUAL_MAX_DOCUMENTS => Solver::Dual,
            Solver::Auto => Solver::Primal,
            chosen => chosen,
        };
        Ok(match solver {
            Solver::Dual => {
                dual::fit_dual(self, training, keys, memory, rng, VectorLevel::widest())
            }
            _ => primal::fit_primal(self, training, memory, rng),
        })
    }
}

#[cfg(test)]
mod hical_port;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
