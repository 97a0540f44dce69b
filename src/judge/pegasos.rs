//! The default learner: HiCAL's Sofia-ML logistic Pegasos in a pairwise ROC loop, producing a
//! dense linear model over sparse documents.
//!
//! Source: hical/HiCAL `CALEngine/src/sofiaml/sofia-ml-methods.cc` (`StochasticRocLoop` with
//! `LOGREG_PEGASOS` and `PEGASOS_ETA`, called by HiCAL's BMI with lambda 1e-4 and 200,000
//! iterations) and `sf-weight-vector.cc` (the lazily scaled weight vector). For `i` in
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
//! model is the same without it. Scalars are `f64` here where Sofia-ML uses `f32`; weights are
//! stored as `f32` as in Sofia-ML.
//!
//! Two implementations compute the same iterates, chosen by the size of the training set (see
//! [`DUAL_MAX_DOCUMENTS`]): a primal one over a lazily scaled dense weight vector (an iteration
//! costs `O(nnz(a) + nnz(b))` random accesses) and a dual one over one coefficient per training
//! document and a Gram matrix (an iteration costs one contiguous pass over two Gram rows).

use rand::Rng;

use super::{Scorer, TrainingSet};
use crate::base::error::LearnerError;
use crate::base::sparse::SparseVec;
use crate::Result;

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

/// Unchecked Pegasos settings; [`PegasosParams::check`] validates them.
#[derive(Debug, Clone, PartialEq)]
pub struct PegasosParams(PegasosValidParams);

/// Validated Pegasos settings, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct PegasosValidParams {
    lambda: f64,
    iterations: usize,
    solver: Solver,
}

impl Default for PegasosParams {
    fn default() -> Self {
        Self::new()
    }
}

impl PegasosParams {
    /// HiCAL's settings: lambda 1e-4, 200,000 iterations, solver chosen by size.
    pub fn new() -> Self {
        Self(PegasosValidParams {
            lambda: DEFAULT_LAMBDA,
            iterations: DEFAULT_ITERATIONS,
            solver: Solver::Auto,
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
        training.check()?;
        let solver = match self.solver {
            Solver::Auto if training.len() <= DUAL_MAX_DOCUMENTS => Solver::Dual,
            Solver::Auto => Solver::Primal,
            chosen => chosen,
        };
        let (weights, report) = match solver {
            Solver::Dual => fit_dual(self, training, rng),
            _ => fit_primal(self, training, rng),
        };
        Ok((LinearModel { weights }, report))
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
#[inline]
fn pair_loss(margin: f64) -> f64 {
    1.0 / (1.0 + margin.exp())
}

/// The factor that projects a vector of squared norm `squared_norm` onto the ball of radius
/// `1 / sqrt(lambda)`, or `None` when it is already inside.
#[inline]
fn projection_factor(lambda: f64, squared_norm: f64) -> Option<f64> {
    let factor = 1.0 / (lambda * squared_norm).sqrt();
    (factor < 1.0).then_some(factor)
}

/// Draws the pair of step `i`: a positive position, then a negative position.
#[inline]
fn draw_pair(positives: usize, negatives: usize, rng: &mut impl Rng) -> (usize, usize) {
    let positive = rng.random_range(0..positives);
    let negative = rng.random_range(0..negatives);
    (positive, negative)
}

/// A dense weight vector `w = scale * values`, so that the L2 shrink is O(1); after Sofia-ML's
/// `SfWeightVector`.
///
/// Values are `f64`, unlike Sofia-ML's `f32`: a weight that early steps made large and later
/// steps bring back down by updates of opposite sign keeps the rounding error of its largest
/// value, and in `f32` that drifted up to ~1e-5 (relative) from the exact iterates on small
/// problems (found by the reference comparison in the tests). The dual solver keeps its
/// coefficients in `f64` for the same reason.
#[derive(Debug, Clone)]
struct DenseWeights {
    values: Vec<f64>,
    scale: f64,
    /// `||w||²`, maintained incrementally so that projection needs no pass over `values`.
    squared_norm: f64,
    /// Whether `w` is still exactly zero, in which case shrinking it is a no-op and the scale
    /// is left alone (Sofia-ML's first step would otherwise push the scale to 1e-7 at once).
    is_zero: bool,
    folds: usize,
}

impl DenseWeights {
    fn zeros(dimension: usize) -> Self {
        Self {
            values: vec![0.0; dimension],
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
        for value in &mut self.values {
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
        let values = &mut self.values;
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

    fn into_weights(self) -> Vec<f32> {
        let scale = self.scale;
        self.values
            .into_iter()
            .map(|value| (value * scale) as f32)
            .collect()
    }
}

fn fit_primal(
    params: &PegasosValidParams,
    training: &TrainingSet,
    rng: &mut impl Rng,
) -> (Vec<f32>, FitReport) {
    let lambda = params.lambda;
    let mut weights = DenseWeights::zeros(training.dimension);
    let mut projections = 0;
    for step in 1..=params.iterations {
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
        iterations: params.iterations,
        projections,
        scale_folds: weights.folds,
    };
    (weights.into_weights(), report)
}

/// Gram matrix entries are `f64`: with `f32` entries, the rounding of scores that are
/// differences of much larger entries moved the iterates by up to ~5e-4 (relative) on small,
/// heavily overlapping sets, since early Pegasos steps (`eta = 1 / (lambda * i)`) amplify any
/// error in the margin; and the conversion made the step loop slower, not faster.
///
/// One 64-byte cache line of Gram entries: the unit of the Gram rows, so that rows start
/// aligned and the step loop compiles to whole-vector operations.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(64))]
struct Block([f64; Block::LANES]);

const _: () = assert!(std::mem::size_of::<Block>() == Block::LANES * std::mem::size_of::<f64>());

impl Block {
    const LANES: usize = 64 / std::mem::size_of::<f64>();
}

/// The symmetric matrix of pairwise dot products of the training documents, `f64` row-major,
/// each row padded with zeros to whole [`Block`]s.
struct Gram {
    row_blocks: usize,
    blocks: Vec<Block>,
}

impl Gram {
    /// Computes every pairwise dot product from an inverted index: the training documents'
    /// entries are grouped by feature (a counting sort), and each row is the sum, over its
    /// document's features in increasing order, of the products with every document holding
    /// that feature. The cost is the sum over features of the squared number of documents
    /// holding it, at most `documents² · nnz` and far less for sparse text, with no branchy
    /// sparse merges, and each row is written while it sits in L1. Entry `(i, j)` adds the same
    /// products in the same order as entry `(j, i)`, so the matrix is exactly symmetric.
    fn new(documents: &[&SparseVec], dimension: usize) -> Self {
        let size = documents.len();
        let row_blocks = size.div_ceil(Block::LANES);
        // starts[f]..starts[f + 1] will be the postings of feature f.
        let mut starts = vec![0_u32; dimension + 1];
        for document in documents {
            for &(feature, _) in document.as_pairs() {
                starts[feature as usize + 1] += 1;
            }
        }
        for feature in 0..dimension {
            starts[feature + 1] += starts[feature];
        }
        let total = starts[dimension] as usize;
        let mut postings = vec![(0_u32, 0.0_f32); total];
        let mut next = starts.clone();
        for (pos, document) in documents.iter().enumerate() {
            for &(feature, value) in document.as_pairs() {
                let slot = &mut next[feature as usize];
                postings[*slot as usize] = (pos as u32, value);
                *slot += 1;
            }
        }
        let mut gram = Self {
            row_blocks,
            blocks: vec![Block::default(); size * row_blocks],
        };
        for (row, document) in documents.iter().enumerate() {
            let row_values =
                &mut flat_mut(&mut gram.blocks[row * row_blocks..][..row_blocks])[..size];
            for &(feature, value) in document.as_pairs() {
                let feature = feature as usize;
                let list = &postings[starts[feature] as usize..starts[feature + 1] as usize];
                for &(column, column_value) in list {
                    row_values[column as usize] += f64::from(value) * f64::from(column_value);
                }
            }
        }
        gram
    }

    #[inline]
    fn get(&self, row: usize, column: usize) -> f64 {
        self.blocks[row * self.row_blocks + column / Block::LANES].0[column % Block::LANES]
    }

    #[inline]
    fn row(&self, row: usize) -> &[Block] {
        &self.blocks[row * self.row_blocks..(row + 1) * self.row_blocks]
    }
}

/// `scores += step * (row_a − row_b)`, lane by lane; written over fixed-size chunks so that it
/// vectorises without bounds checks.
///
/// Scores are `f64`: they accumulate updates of both signs, and in `f32` their rounding moved
/// the iterates by up to ~2e-5 (relative) on small problems.
#[inline]
fn add_row_difference(scores: &mut [f64], row_a: &[Block], row_b: &[Block], step: f64) {
    // One flat pass (not block by block) so the compiler vectorises along the row instead of
    // gathering across blocks.
    for ((score, &a), &b) in scores.iter_mut().zip(flat(row_a)).zip(flat(row_b)) {
        *score += step * (a - b);
    }
}

/// A row of blocks as one contiguous slice of values.
#[inline]
fn flat(blocks: &[Block]) -> &[f64] {
    // SAFETY: `Block` is `repr(C)` around `[f64; LANES]` and exactly `LANES` values long
    // (64 bytes, its alignment), so a slice of blocks is that many contiguous `f64`s.
    unsafe {
        std::slice::from_raw_parts(blocks.as_ptr().cast::<f64>(), blocks.len() * Block::LANES)
    }
}

/// A row of blocks as one contiguous mutable slice of values.
#[inline]
fn flat_mut(blocks: &mut [Block]) -> &mut [f64] {
    // SAFETY: as in `flat`; the borrow of `blocks` is exclusive.
    unsafe {
        std::slice::from_raw_parts_mut(
            blocks.as_mut_ptr().cast::<f64>(),
            blocks.len() * Block::LANES,
        )
    }
}

/// The step loop's kernel, compiled for wider vectors. The arithmetic is the same separate
/// multiply and add (no fused multiply-add), so every path gives bit-identical scores and the
/// simulated qrels do not depend on the processor.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn add_row_difference_avx512(scores: &mut [f64], row_a: &[Block], row_b: &[Block], step: f64) {
    add_row_difference(scores, row_a, row_b, step);
}

/// As [`add_row_difference_avx512`], for processors with AVX2 but not AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn add_row_difference_avx2(scores: &mut [f64], row_a: &[Block], row_b: &[Block], step: f64) {
    add_row_difference(scores, row_a, row_b, step);
}

type RowKernel = fn(&mut [f64], &[Block], &[Block], f64);

/// The widest kernel this processor runs, detected at run time so that a portable build still
/// uses AVX2 or AVX-512 where they exist.
fn row_kernel() -> RowKernel {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the feature was detected on this processor just above.
            return |scores, a, b, step| unsafe { add_row_difference_avx512(scores, a, b, step) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the feature was detected on this processor just above.
            return |scores, a, b, step| unsafe { add_row_difference_avx2(scores, a, b, step) };
        }
    }
    add_row_difference
}

fn fit_dual(
    params: &PegasosValidParams,
    training: &TrainingSet,
    rng: &mut impl Rng,
) -> (Vec<f32>, FitReport) {
    let lambda = params.lambda;
    // Training documents are numbered positives first, then negatives.
    let documents: Vec<&SparseVec> = training
        .positives
        .iter()
        .chain(&training.negatives)
        .copied()
        .collect();
    let positive_count = training.positives.len();
    let gram = Gram::new(&documents, training.dimension);
    // w = scale * u with u = Σ_j coefficients[j] x_j; scores[i] = u · x_i.
    let mut coefficients = vec![0.0_f64; documents.len()];
    // Whole blocks, so that the scores are 64-byte aligned like the Gram rows: the kernel's
    // vector loads and stores then never straddle two cache lines.
    let mut score_blocks = vec![Block::default(); gram.row_blocks];
    let scores = flat_mut(&mut score_blocks);
    let mut scale = 1.0_f64;
    let mut squared_norm = 0.0_f64;
    let mut projections = 0;
    let mut folds = 0;
    let kernel = row_kernel();
    for step in 1..=params.iterations {
        let (positive, negative) = draw_pair(positive_count, training.negatives.len(), rng);
        let (a, b) = (positive, positive_count + negative);
        let learning_rate = learning_rate(lambda, step);
        let score_difference = scores[a] - scores[b];
        let coefficient = learning_rate * pair_loss(scale * score_difference);

        let shrink = shrink_factor(learning_rate, lambda);
        scale *= shrink;
        squared_norm *= shrink * shrink;

        // ||w + c(a − b)||² = ||w||² + 2c w·(a − b) + c² ||a − b||².
        let difference_squared_norm = gram.get(a, a) + gram.get(b, b) - 2.0 * gram.get(a, b);
        squared_norm += 2.0 * coefficient * scale * score_difference
            + coefficient * coefficient * difference_squared_norm;
        let unscaled_step = coefficient / scale;
        coefficients[a] += unscaled_step;
        coefficients[b] -= unscaled_step;
        kernel(scores, gram.row(a), gram.row(b), unscaled_step);

        if let Some(factor) = projection_factor(lambda, squared_norm) {
            scale *= factor;
            squared_norm *= factor * factor;
            projections += 1;
        }
        if scale < SCALE_FOLD_THRESHOLD {
            for coefficient in &mut coefficients {
                *coefficient *= scale;
            }
            for score in scores.iter_mut() {
                *score *= scale;
            }
            scale = 1.0;
            folds += 1;
        }
    }
    let mut weights = vec![0.0_f64; training.dimension];
    for (document, &coefficient) in documents.iter().zip(&coefficients) {
        let coefficient = scale * coefficient;
        for &(feature, value) in document.as_pairs() {
            weights[feature as usize] += coefficient * f64::from(value);
        }
    }
    let report = FitReport {
        solver: Solver::Dual,
        iterations: params.iterations,
        projections,
        scale_folds: folds,
    };
    (weights.into_iter().map(|w| w as f32).collect(), report)
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
    fn score(&self, document: &SparseVec) -> f32 {
        document.dot_dense(&self.weights)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{any, prop, prop_assert, prop_assert_eq, proptest, ProptestConfig};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// The plain formula, eagerly: a dense `f64` vector, the shrink applied to every weight and
    /// the norm recomputed at every step.
    fn reference_fit(
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
    fn random_documents(
        count: usize,
        nnz: usize,
        dimension: usize,
        is_positive: bool,
        rng: &mut impl Rng,
    ) -> Vec<SparseVec> {
        (0..count)
            .map(|_| {
                let pairs = (0..nnz)
                    .map(|_| {
                        let feature = if is_positive && rng.random_bool(0.3) {
                            rng.random_range(0..dimension / 8)
                        } else {
                            rng.random_range(0..dimension)
                        };
                        (feature as u32, rng.random_range(0.01_f32..1.0))
                    })
                    .collect();
                SparseVec::from_pairs(pairs)
                    .expect("finite values")
                    .l2_normalized()
            })
            .collect()
    }

    fn relative_distance(fast: &[f32], reference: &[f64]) -> f64 {
        let difference: f64 = fast
            .iter()
            .zip(reference)
            .map(|(&f, &r)| (f64::from(f) - r).powi(2))
            .sum();
        let norm: f64 = reference.iter().map(|r| r * r).sum();
        (difference / norm.max(f64::MIN_POSITIVE)).sqrt()
    }

    /// Positions of the `count` highest scores, best first (ties: lower position first).
    fn top(scores: &[f64], count: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&x, &y| scores[y].total_cmp(&scores[x]).then(x.cmp(&y)));
        order.truncate(count);
        order
    }

    /// Asserts the fast model ranks the top `count` candidates as the reference does, allowing
    /// swaps only between candidates whose reference scores are within `tolerance`.
    fn assert_same_top(
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
        fast.score_into(candidates, &mut fast_scores);
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

    fn params(lambda: f64, iterations: usize, solver: Solver) -> PegasosValidParams {
        PegasosParams::new()
            .lambda(lambda)
            .iterations(iterations)
            .solver(solver)
            .check()
            .expect("valid params")
    }

    #[test]
    fn check_rejects_invalid_settings() {
        for lambda in [0.0, -1e-4, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                PegasosParams::new().lambda(lambda).check(),
                Err(LearnerError::InvalidLambda(_))
            ));
        }
        assert_eq!(
            PegasosParams::new().iterations(0).check(),
            Err(LearnerError::ZeroIterations)
        );
        let valid = PegasosParams::default()
            .check()
            .expect("defaults are valid");
        assert_eq!(valid.lambda(), DEFAULT_LAMBDA);
        assert_eq!(valid.iterations(), DEFAULT_ITERATIONS);
        assert_eq!(valid.solver(), Solver::Auto);
    }

    #[test]
    fn fit_rejects_one_class_and_out_of_range_features() {
        let document = SparseVec::from_pairs(vec![(3, 1.0)]).expect("finite values");
        let params = params(1e-4, 10, Solver::Auto);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let no_positives = TrainingSet::new(vec![], vec![&document], 4);
        assert!(matches!(
            params.fit(&no_positives, &mut rng),
            Err(crate::Error::Learner(LearnerError::NoPositives))
        ));
        let no_negatives = TrainingSet::new(vec![&document], vec![], 4);
        assert!(matches!(
            params.fit(&no_negatives, &mut rng),
            Err(crate::Error::Learner(LearnerError::NoNegatives))
        ));
        let too_small = TrainingSet::new(vec![&document], vec![&document], 3);
        assert!(matches!(
            params.fit(&too_small, &mut rng),
            Err(crate::Error::Learner(LearnerError::FeatureOutOfRange {
                feature: 3,
                dimension: 3
            }))
        ));
    }

    #[test]
    fn primal_and_dual_equal_the_reference() {
        let dimension = 2048;
        let mut data_rng = ChaCha8Rng::seed_from_u64(7);
        let positives = random_documents(30, 50, dimension, true, &mut data_rng);
        let negatives = random_documents(60, 50, dimension, false, &mut data_rng);
        let mut candidates = random_documents(150, 50, dimension, true, &mut data_rng);
        candidates.extend(random_documents(150, 50, dimension, false, &mut data_rng));
        let training = TrainingSet::new(
            positives.iter().collect(),
            negatives.iter().collect(),
            dimension,
        );
        let (lambda, iterations) = (1e-4, 20_000);
        let (reference, reference_projections) = reference_fit(
            lambda,
            iterations,
            &training,
            &mut ChaCha8Rng::seed_from_u64(11),
        );
        let reference_norm = reference.iter().map(|w| w * w).sum::<f64>().sqrt();
        for solver in [Solver::Primal, Solver::Dual] {
            let (model, report) = params(lambda, iterations, solver)
                .fit_with_report(&training, &mut ChaCha8Rng::seed_from_u64(11))
                .expect("valid training set");
            assert_eq!(report.solver, solver);
            assert_eq!(report.iterations, iterations);
            assert_eq!(report.projections, reference_projections, "{solver:?}");
            let distance = relative_distance(&model.weights, &reference);
            assert!(distance <= 1e-5, "{solver:?}: relative distance {distance}");
            assert_same_top(&model, &reference, &candidates, 100, 1e-5 * reference_norm);
        }
    }

    #[test]
    fn auto_chooses_by_size_and_is_deterministic() {
        let dimension = 256;
        let mut data_rng = ChaCha8Rng::seed_from_u64(3);
        let positives = random_documents(5, 10, dimension, true, &mut data_rng);
        let negatives = random_documents(10, 10, dimension, false, &mut data_rng);
        let training = TrainingSet::new(
            positives.iter().collect(),
            negatives.iter().collect(),
            dimension,
        );
        let params = params(1e-4, 1_000, Solver::Auto);
        let fit = |seed| {
            params
                .fit_with_report(&training, &mut ChaCha8Rng::seed_from_u64(seed))
                .expect("valid training set")
        };
        let (first, report) = fit(5);
        assert_eq!(report.solver, Solver::Dual);
        assert_eq!(fit(5).0, first);
        assert_ne!(fit(6).0, first);
    }

    #[test]
    fn separates_a_linearly_separable_set() {
        // Positives use features 0..100, negatives 100..200: w = Σ positives − Σ negatives
        // separates them, and Pegasos must find such a w.
        let mut data_rng = ChaCha8Rng::seed_from_u64(17);
        let mut class = |offset: u32| -> Vec<SparseVec> {
            (0..40)
                .map(|_| {
                    let pairs = (0..20)
                        .map(|_| {
                            (
                                offset + data_rng.random_range(0..100),
                                data_rng.random_range(0.1_f32..1.0),
                            )
                        })
                        .collect();
                    SparseVec::from_pairs(pairs)
                        .expect("finite values")
                        .l2_normalized()
                })
                .collect()
        };
        let (positives, negatives) = (class(0), class(100));
        let training =
            TrainingSet::new(positives.iter().collect(), negatives.iter().collect(), 200);
        for solver in [Solver::Primal, Solver::Dual] {
            let model = params(DEFAULT_LAMBDA, 20_000, solver)
                .fit(&training, &mut ChaCha8Rng::seed_from_u64(2))
                .expect("valid training set");
            let lowest_positive = positives
                .iter()
                .map(|d| model.score(d))
                .fold(f32::INFINITY, f32::min);
            let highest_negative = negatives
                .iter()
                .map(|d| model.score(d))
                .fold(f32::NEG_INFINITY, f32::max);
            assert!(
                lowest_positive > highest_negative,
                "{solver:?}: {lowest_positive} <= {highest_negative}"
            );
        }
    }

    #[test]
    fn score_into_matches_score() {
        let model = LinearModel::new(vec![1.0, -2.0, 0.5]);
        let documents = [
            SparseVec::from_pairs(vec![(0, 1.0), (2, 2.0)]).expect("finite values"),
            SparseVec::from_pairs(vec![(1, 1.0), (7, 3.0)]).expect("finite values"),
            SparseVec::empty(),
        ];
        let mut out = [f32::NAN; 3];
        model.score_into(&documents, &mut out);
        assert_eq!(out, [2.0, -2.0, 0.0]);
    }

    #[test]
    #[should_panic(expected = "more documents than output slots")]
    fn score_into_panics_on_length_mismatch() {
        let documents = [SparseVec::empty(), SparseVec::empty()];
        LinearModel::default().score_into(&documents, &mut [0.0_f32; 1]);
    }

    #[test]
    fn autotraits() {
        fn is_send_sync<T: Send + Sync>() {}
        is_send_sync::<PegasosParams>();
        is_send_sync::<PegasosValidParams>();
        is_send_sync::<LinearModel>();
        is_send_sync::<FitReport>();
        is_send_sync::<TrainingSet>();
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn fast_solvers_equal_the_reference_on_small_sets(
            positive_count in 1_usize..8,
            negative_count in 1_usize..12,
            nnz in 1_usize..12,
            iterations in 1_usize..3_000,
            lambda in prop::sample::select(vec![1e-4, 1e-3, 1e-2, 0.3]),
            seed in any::<u64>(),
        ) {
            let dimension = 64;
            let mut data_rng = ChaCha8Rng::seed_from_u64(seed);
            let positives = random_documents(positive_count, nnz, dimension, true, &mut data_rng);
            let negatives = random_documents(negative_count, nnz, dimension, false, &mut data_rng);
            let training = TrainingSet::new(
                positives.iter().collect(),
                negatives.iter().collect(),
                dimension,
            );
            let (reference, reference_projections) =
                reference_fit(lambda, iterations, &training, &mut ChaCha8Rng::seed_from_u64(seed ^ 1));
            for solver in [Solver::Primal, Solver::Dual] {
                let (model, report) = params(lambda, iterations, solver)
                    .fit_with_report(&training, &mut ChaCha8Rng::seed_from_u64(seed ^ 1))
                    .expect("valid training set");
                prop_assert_eq!(report.projections, reference_projections, "{:?}", solver);
                let distance = relative_distance(&model.weights, &reference);
                prop_assert!(distance <= 1e-5, "{:?}: relative distance {}", solver, distance);
            }
        }
    }
}
