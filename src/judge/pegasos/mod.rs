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
mod primal;

pub use memory::FitMemory;

use draw::draw_pair;
use kernels::VectorLevel;

use crate::base::choice::choice_enum;
use crate::base::sparse::{dot_dense_together, DOTS_TOGETHER};
use rand::Rng;

use super::{Scorer, TrainingSet};
use crate::base::error::LearnerError;
use crate::base::error::Result;

/// The default regularisation parameter (HiCAL's).
pub const DEFAULT_LAMBDA: f64 = 1e-4;

/// The default number of pairwise steps (HiCAL's).
pub const DEFAULT_ITERATIONS: usize = 200_000;

/// Sofia-ML's floor on the per-step shrink factor, which protects the lazy scale when
/// `eta * lambda >= 1` (always the case at the first step).
pub const MIN_SCALING_FACTOR: f64 = 1e-7;

/// When the lazy scale falls below this value, it is folded into the stored weights (or dual
/// coefficients). The scale only decreases, and stored values grow as `||w|| / scale`; folding
/// well before `f32` overflow, and rarely, keeps precision and speed.
pub const SCALE_FOLD_THRESHOLD: f64 = 1e-9;

/// Training sets of up to this many documents (positives plus negatives) use the dual solver;
/// larger ones use the primal one. Measured with `benches/pegasos.rs` on ~200 non-zeros per
/// document and 200,000 iterations: the dual Gram matrix costs `O(documents² · nnz)` and each
/// step `O(documents)`, the primal step `O(nnz)` random accesses.
pub const DUAL_MAX_DOCUMENTS: usize = 2_000;

/// Which implementation computes the iterates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Solver {
    /// Dual when the training set has at most [`DUAL_MAX_DOCUMENTS`] documents, else primal.
    #[default]
    Auto,
    /// A lazily scaled dense weight vector.
    Primal,
    /// One coefficient per training document, with a Gram matrix.
    Dual,
}

choice_enum! {
    /// The precision of the dual solver's Gram matrix (the primal solver always computes in
    /// `f64`).
    pub enum GramPrecision {
        /// `f32` entries, computed in `f64` and rounded, and `f32` steps and recent score
        /// updates: half the memory traffic of the step loop and twice its vector lanes, with
        /// iterates as close to the exact ones as HiCAL's own `f32` classifier is.
        F32 = "f32",
        /// `f64` entries: the iterates agree with exact arithmetic to about 1e-5 (relative).
        F64 = "f64",
    }
}

/// Unchecked Pegasos settings; [`PegasosParams::check`] validates them.
#[derive(Debug, Clone, PartialEq)]
pub struct PegasosParams(PegasosValidParams);

/// Validated Pegasos settings, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct PegasosValidParams {
    lambda: f64,
    iterations: usize,
    solver: Solver,
    precision: GramPrecision,
}

impl Default for PegasosParams {
    fn default() -> Self {
        Self::new()
    }
}

impl PegasosParams {
    /// HiCAL's settings: lambda 1e-4, 200,000 iterations, solver chosen by size, `f32` Gram
    /// matrix.
    pub fn new() -> Self {
        Self(PegasosValidParams {
            lambda: DEFAULT_LAMBDA,
            iterations: DEFAULT_ITERATIONS,
            solver: Solver::Auto,
            precision: GramPrecision::F32,
        })
    }

    /// Sets the L2 regularisation parameter; defaults to 1e-4.
    pub fn lambda(mut self, lambda: f64) -> Self {
        self.0.lambda = lambda;
        self
    }

    /// Sets the number of pairwise steps; defaults to 200,000.
    pub fn iterations(mut self, iterations: usize) -> Self {
        self.0.iterations = iterations;
        self
    }

    /// Forces an implementation; defaults to [`Solver::Auto`]. All give the same model up to
    /// rounding.
    pub fn solver(mut self, solver: Solver) -> Self {
        self.0.solver = solver;
        self
    }

    /// Sets the precision of the dual solver's Gram matrix; defaults to [`GramPrecision::F32`].
    pub fn precision(mut self, precision: GramPrecision) -> Self {
        self.0.precision = precision;
        self
    }

    /// Validates the settings.
    ///
    /// # Errors
    /// [`LearnerError::InvalidLambda`] when lambda is not a positive finite number,
    /// [`LearnerError::ZeroIterations`] when iterations is 0.
    pub fn check(self) -> Result<PegasosValidParams, LearnerError> {
        let params = self.0;
        if !(params.lambda.is_finite() && params.lambda > 0.0) {
            return Err(LearnerError::InvalidLambda(params.lambda));
        }
        if params.iterations == 0 {
            return Err(LearnerError::ZeroIterations);
        }
        Ok(params)
    }
}

/// What happened during one fit, for tests and diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FitReport {
    /// The implementation that ran ([`Solver::Primal`] or [`Solver::Dual`], never `Auto`).
    pub solver: Solver,
    /// The number of pairwise steps taken.
    pub iterations: usize,
    /// How many steps ended with a projection onto the ball of radius `1 / sqrt(lambda)`.
    pub projections: usize,
    /// How many times the lazy scale was folded back into the stored values.
    pub scale_folds: usize,
}

impl PegasosValidParams {
    /// The L2 regularisation parameter.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// The number of pairwise steps.
    pub fn iterations(&self) -> usize {
        self.iterations
    }

    /// The requested implementation.
    pub fn solver(&self) -> Solver {
        self.solver
    }

    /// The precision of the dual solver's Gram matrix.
    pub fn precision(&self) -> GramPrecision {
        self.precision
    }

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
        let solver = match self.solver {
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

/// The step size of step `step` (1-based).
#[inline]
fn learning_rate(lambda: f64, step: usize) -> f64 {
    1.0 / (lambda * step as f64)
}

/// The L2 shrink factor of a step with learning rate `learning_rate`.
#[inline]
fn shrink_factor(learning_rate: f64, lambda: f64) -> f64 {
    (1.0 - learning_rate * lambda).max(MIN_SCALING_FACTOR)
}

/// The logistic loss derivative of a pair whose score difference `w·a − w·b` is `margin`.
///
/// `exp` is this crate's ([`exp::exp`]), in Rust, rather than the platform's maths library: two
/// versions of glibc may round it differently, and a trial must not depend on the node it ran on.
#[inline(always)]
fn pair_loss(margin: f64) -> f64 {
    1.0 / (1.0 + exp::exp(margin))
}

/// The factor that projects a vector of squared norm `squared_norm` onto the ball of radius
/// `1 / sqrt(lambda)`, or `None` when it is already inside.
#[inline]
fn projection_factor(lambda: f64, squared_norm: f64) -> Option<f64> {
    let scaled_norm = lambda * squared_norm;
    // The factor can only be below 1 when `scaled_norm` is above 1: the square root and the
    // division, slow and on the step's critical chain, are left for the rare steps that project.
    if scaled_norm <= 1.0 {
        return None;
    }
    let factor = 1.0 / scaled_norm.sqrt();
    (factor < 1.0).then_some(factor)
}

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
mod hical_port;
#[cfg(test)]
mod tests;
