//! The dual solver: one coefficient per training document and the Gram matrix of their pairwise
//! dot products, so that a step is one contiguous pass over two Gram rows.
//!
//! The Gram entries are stored as `f32` ([`GramPrecision::F32`], the default) or `f64`; they are
//! computed in `f64` either way, and coefficients and scores are `f64`, with the last few
//! steps' updates of the scores kept apart in the entries' type ([`DualWeights`]). With `f32`
//! entries the step loop moves half the bytes and does twice the lanes per instruction, and the
//! iterates stay as close to the exact ones as HiCAL's own `f32` arithmetic is (the tests
//! measure both).
//!
//! (Drawing the next pair one step ahead and computing its two scores in registers, so that the
//! step's scalar chain need not wait for the row pass, was tried three times and measured slower,
//! probably because a 450-document row pass is longer than the processor's reorder window.)

use rand::Rng;

use super::draw::draw_pair;
use super::kernels::{update_rows, GramEntry, VectorLevel};
use super::memory::{flat, flat_mut, Block, DualBuffers, DualBuffersOf, FitMemory, LANES};
use super::model::LinearModel;
use super::settings::{FitReport, GramPrecision, PegasosValidParams, Solver, SCALE_FOLD_THRESHOLD};
use super::step::{learning_rate, pair_loss, projection_factor, shrink_factor};
use crate::base::recycle_refs;
use crate::base::sparse::SparseVec;
use crate::judge::learner::TrainingSet;

/// Steps between two folds of the recent updates into the scores.
const RECENT_STEPS: usize = 8;

/// The symmetric matrix of pairwise dot products of the training documents (positives first),
/// row-major, each row padded with zeros to whole [`Block`]s; and, in `f64` whatever the
/// precision of the rows, `||a − b||²` for every pair of a positive `a` and a negative `b`.
struct Gram<T> {
    row_blocks: usize,
    blocks: Vec<Block<T>>,
    positive_count: usize,
    negative_count: usize,
    /// `||a − b||²` at `a * negative_count + (b − positive_count)`. Kept in `f64`: from `f32`
    /// entries, `aa + bb − 2ab` cancels badly for similar documents, and the error reached the
    /// projections (a 2.3 times larger distance to the exact iterates than HiCAL's on a small
    /// overlapping set, found by the tests).
    pair_squared_norms: Vec<f64>,
}

impl<T: GramEntry> Gram<T> {
    /// The Gram matrix of `size` documents from their dot products (`size × size`, row-major,
    /// in `f64`; see [`FitMemory::dot_products`]), each entry rounded to `T`.
    /// `blocks` and `pair_squared_norms` are buffers to fill (emptied first).
    fn from_dots(
        dots: &[f64],
        size: usize,
        positive_count: usize,
        mut blocks: Vec<Block<T>>,
        mut pair_squared_norms: Vec<f64>,
    ) -> Self {
        let row_blocks = size.div_ceil(LANES);
        let negative_count = size - positive_count;
        blocks.clear();
        blocks.resize(size * row_blocks, Block::default());
        pair_squared_norms.clear();
        let mut gram = Self {
            row_blocks,
            blocks,
            positive_count,
            negative_count,
            pair_squared_norms,
        };
        let diagonal = |document: usize| dots[document * size + document];
        for (row, sums) in dots.chunks_exact(size).enumerate() {
            let row_values = flat_mut(&mut gram.blocks[row * row_blocks..][..row_blocks]);
            for (entry, &sum) in row_values.iter_mut().zip(sums) {
                *entry = T::from_f64(sum);
            }
            if row < positive_count {
                let negatives = (positive_count..size).map(|negative| (sums[negative], negative));
                gram.pair_squared_norms.extend(
                    negatives.map(|(ab, negative)| diagonal(row) + diagonal(negative) - 2.0 * ab),
                );
            }
        }
        gram
    }

    /// `||a − b||²` for a positive `a` and the negative `b` (both numbered as rows).
    #[inline]
    fn pair_squared_norm(&self, a: usize, b: usize) -> f64 {
        self.pair_squared_norms[a * self.negative_count + b - self.positive_count]
    }

    #[inline]
    fn row(&self, row: usize) -> &[T] {
        flat(&self.blocks[row * self.row_blocks..(row + 1) * self.row_blocks])
    }
}

/// The dual iterate `w = scale * Σ_j coefficients[j] x_j`, with `u · x_i` for the unscaled
/// `u = w / scale` kept up to date as `scores[i] + recent[i]`, so that a step reads its pair's
/// scores directly.
///
/// A step adds its update to `recent`, in the Gram entries' type (eight `f32` lanes per AVX2
/// instruction, where `f64` scores took four); every [`RECENT_STEPS`] steps the row pass also
/// folds `recent` into the `f64` scores. The `f32` rounding is then relative to a few steps'
/// updates rather than to the whole score, which accumulates 200,000 updates of both signs (as
/// a whole `f32` score, its rounding moved the bench set's iterates 2.7 times as far from the
/// exact ones as HiCAL's own arithmetic does).
struct DualWeights<T> {
    coefficients: Vec<f64>,
    score_blocks: Vec<Block<f64>>,
    recent_blocks: Vec<Block<T>>,
    scale: f64,
    /// `||w||²`, maintained incrementally from the Gram entries.
    squared_norm: f64,
    folds: usize,
}

impl<T: GramEntry> DualWeights<T> {
    /// The zero iterate over `documents` documents, in the buffers of `buffers` (emptied
    /// first).
    fn zeros(documents: usize, row_blocks: usize, buffers: &mut DualBuffers<T>) -> Self {
        Self {
            coefficients: zeroed(&mut buffers.coefficients, documents),
            score_blocks: zeroed(&mut buffers.scores, row_blocks),
            recent_blocks: zeroed(&mut buffers.recent, row_blocks),
            scale: 1.0,
            squared_norm: 0.0,
            folds: 0,
        }
    }

    /// `u · x_document`.
    #[inline(always)]
    fn score(&self, document: usize) -> f64 {
        flat(&self.score_blocks)[document] + flat(&self.recent_blocks)[document].widen()
    }

    /// Adds `step * (x_a − x_b)` to `u`, by the row kernel (folding the recent updates into the
    /// scores or not).
    #[inline(always)]
    fn add_step<const FOLD: bool>(&mut self, (a, b): (usize, usize), step: T, gram: &Gram<T>) {
        let unscaled_step = step.widen();
        self.coefficients[a] += unscaled_step;
        self.coefficients[b] -= unscaled_step;
        update_rows::<T, FOLD>(
            flat_mut(&mut self.score_blocks),
            flat_mut(&mut self.recent_blocks),
            gram.row(a),
            gram.row(b),
            step,
        );
    }

    /// Folds the recent updates into the scores, and the scale into the coefficients and
    /// scores; `w` is unchanged.
    #[inline(never)]
    fn fold_scale(&mut self) {
        let scale = self.scale;
        for coefficient in &mut self.coefficients {
            *coefficient *= scale;
        }
        let recent = flat_mut(&mut self.recent_blocks);
        for (score, recent) in flat_mut(&mut self.score_blocks).iter_mut().zip(recent) {
            *score = (*score + std::mem::take(recent).widen()) * scale;
        }
        self.scale = 1.0;
        self.folds += 1;
    }

    /// Sets `model`'s weights to the primal `Σ_j scale * coefficients[j] x_j`, one per
    /// feature, summed in `f64` in document order into `weight_sums` (all zero, one per
    /// feature; left all zero), and gives back its buffers to `buffers`.
    fn into_model(
        self,
        documents: &[&SparseVec],
        weight_sums: &mut [f64],
        model: &mut LinearModel,
        buffers: &mut DualBuffers<T>,
    ) {
        for (document, &coefficient) in documents.iter().zip(&self.coefficients) {
            let coefficient = self.scale * coefficient;
            for &(feature, value) in document.as_pairs() {
                weight_sums[feature as usize] += coefficient * f64::from(value);
            }
        }
        model.weights.clear();
        (model.weights).extend(weight_sums.iter_mut().map(|sum| std::mem::take(sum) as f32));
        buffers.coefficients = self.coefficients;
        buffers.scores = self.score_blocks;
        buffers.recent = self.recent_blocks;
    }
}

/// The buffer `buffer` takes out, holding `length` zeros.
fn zeroed<V: Clone + Default>(buffer: &mut Vec<V>, length: usize) -> Vec<V> {
    let mut zeros = std::mem::take(buffer);
    zeros.clear();
    zeros.resize(length, V::default());
    zeros
}

/// The dual solver, with Gram entries of the requested precision and its steps compiled for
/// `level`.
pub(super) fn fit_dual(
    params: &PegasosValidParams,
    training: &TrainingSet,
    keys: Option<&[u64]>,
    memory: &mut FitMemory,
    rng: &mut impl Rng,
    level: VectorLevel,
) -> FitReport {
    match params.precision() {
        GramPrecision::F32 => fit_dual_with::<f32>(params, training, keys, memory, rng, level),
        GramPrecision::F64 => fit_dual_with::<f64>(params, training, keys, memory, rng, level),
    }
}

fn fit_dual_with<T: GramEntry>(
    params: &PegasosValidParams,
    training: &TrainingSet,
    keys: Option<&[u64]>,
    memory: &mut FitMemory,
    rng: &mut impl Rng,
    level: VectorLevel,
) -> FitReport
where
    FitMemory: DualBuffersOf<T>,
{
    // Training documents are numbered positives first, then negatives.
    let mut documents = recycle_refs(std::mem::take(&mut memory.documents));
    documents.extend(training.positives.iter().chain(&training.negatives));
    let positive_count = training.positives.len();
    let mut buffers = std::mem::take(memory.dual_buffers());
    let dots = memory.dot_products(&documents, keys, training.dimension);
    let gram = Gram::<T>::from_dots(
        dots,
        documents.len(),
        positive_count,
        std::mem::take(&mut buffers.gram),
        std::mem::take(&mut buffers.pair_squared_norms),
    );
    let mut w = DualWeights::<T>::zeros(documents.len(), gram.row_blocks, &mut buffers);
    // The closure inlines into the level's function, with the loop it calls.
    let projections = level.run(
        #[inline(always)]
        || take_steps(params, &gram, &mut w, rng),
    );
    let report = FitReport {
        solver: Solver::Dual,
        iterations: params.iterations(),
        projections,
        scale_folds: w.folds,
    };
    let (weight_sums, model) = memory.accumulator_and_model(training.dimension);
    w.into_model(&documents, weight_sums, model, &mut buffers);
    (buffers.gram, buffers.pair_squared_norms) = (gram.blocks, gram.pair_squared_norms);
    *memory.dual_buffers() = buffers;
    memory.documents = recycle_refs(documents);
    report
}

/// Takes the fit's steps from the zero iterate `w`, giving the number of projections.
#[inline(always)]
fn take_steps<T: GramEntry>(
    params: &PegasosValidParams,
    gram: &Gram<T>,
    w: &mut DualWeights<T>,
    rng: &mut impl Rng,
) -> usize {
    let lambda = params.lambda();
    let mut projections = 0;
    for step in 1..=params.iterations() {
        let (positive, negative) = draw_pair(gram.positive_count, gram.negative_count, rng);
        let (a, b) = (positive, gram.positive_count + negative);
        let learning_rate = learning_rate(lambda, step);
        let score_difference = w.score(a) - w.score(b);
        let loss = pair_loss(w.scale * score_difference);

        let shrink = shrink_factor(learning_rate, lambda);
        w.scale *= shrink;
        w.squared_norm *= shrink * shrink;

        // `learning_rate / scale` does not depend on the loss, so its division is off the
        // step's critical chain. The step is rounded to the Gram entries' type once, and the
        // coefficients, the scores and the norm all take the rounded step, so that they agree.
        let unscaled_step = T::from_f64(loss * (learning_rate / w.scale));
        let coefficient = unscaled_step.widen() * w.scale;
        // ||w + c(a − b)||² = ||w||² + 2c w·(a − b) + c² ||a − b||².
        w.squared_norm += 2.0 * coefficient * w.scale * score_difference
            + coefficient * coefficient * gram.pair_squared_norm(a, b);
        if step % RECENT_STEPS == 0 {
            w.add_step::<true>((a, b), unscaled_step, gram);
        } else {
            w.add_step::<false>((a, b), unscaled_step, gram);
        }

        if let Some(factor) = projection_factor(lambda, w.squared_norm) {
            w.scale *= factor;
            w.squared_norm *= factor * factor;
            projections += 1;
        }
        if w.scale < SCALE_FOLD_THRESHOLD {
            w.fold_scale();
        }
    }
    projections
}

#[cfg(test)]
#[path = "dual_tests.rs"]
mod tests;
