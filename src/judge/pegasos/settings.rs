//! The learner's settings, checked once, and what a fit reports.

use crate::base::choice::choice_enum;
use crate::base::error::LearnerError;

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

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
