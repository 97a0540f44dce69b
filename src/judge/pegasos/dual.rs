//! The dual solver: one coefficient per training document and the Gram matrix of their pairwise
//! dot products, so that a step is one contiguous pass over two Gram rows.

use rand::Rng;

use super::kernels::row_kernel;
use super::{draw_pair, learning_rate, pair_loss, projection_factor, shrink_factor};
use super::{FitReport, PegasosValidParams, Solver, SCALE_FOLD_THRESHOLD};
use crate::judge::sparse::SparseVec;
use crate::judge::TrainingSet;

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
    fn row(&self, row: usize) -> &[f64] {
        flat(&self.blocks[row * self.row_blocks..(row + 1) * self.row_blocks])
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

/// The dual iterate `w = scale * Σ_j coefficients[j] x_j`, with `scores[i] = u · x_i` for the
/// unscaled `u = w / scale` kept up to date, so that a step reads its pair's scores directly.
struct DualWeights {
    coefficients: Vec<f64>,
    /// Whole blocks, so that the scores are 64-byte aligned like the Gram rows: the kernel's
    /// vector loads and stores then never straddle two cache lines.
    score_blocks: Vec<Block>,
    scale: f64,
    /// `||w||²`, maintained incrementally from the Gram entries.
    squared_norm: f64,
    folds: usize,
}

impl DualWeights {
    fn zeros(gram: &Gram, documents: usize) -> Self {
        Self {
            coefficients: vec![0.0; documents],
            score_blocks: vec![Block::default(); gram.row_blocks],
            scale: 1.0,
            squared_norm: 0.0,
            folds: 0,
        }
    }

    /// Folds the scale into the coefficients and scores; `w` is unchanged.
    #[inline(never)]
    fn fold_scale(&mut self) {
        let scale = self.scale;
        for coefficient in &mut self.coefficients {
            *coefficient *= scale;
        }
        for score in flat_mut(&mut self.score_blocks) {
            *score *= scale;
        }
        self.scale = 1.0;
        self.folds += 1;
    }

    /// The primal weights `Σ_j scale * coefficients[j] x_j`, summed in `f64` in document order.
    fn into_weights(self, documents: &[&SparseVec], dimension: usize) -> Vec<f32> {
        let mut weights = vec![0.0_f64; dimension];
        for (document, &coefficient) in documents.iter().zip(&self.coefficients) {
            let coefficient = self.scale * coefficient;
            for &(feature, value) in document.as_pairs() {
                weights[feature as usize] += coefficient * f64::from(value);
            }
        }
        weights.into_iter().map(|w| w as f32).collect()
    }
}

pub(super) fn fit_dual(
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
    let mut w = DualWeights::zeros(&gram, documents.len());
    let mut projections = 0;
    let kernel = row_kernel();
    for step in 1..=params.iterations {
        let (positive, negative) = draw_pair(positive_count, training.negatives.len(), rng);
        let (a, b) = (positive, positive_count + negative);
        let learning_rate = learning_rate(lambda, step);
        let scores = flat_mut(&mut w.score_blocks);
        let score_difference = scores[a] - scores[b];
        let coefficient = learning_rate * pair_loss(w.scale * score_difference);

        let shrink = shrink_factor(learning_rate, lambda);
        w.scale *= shrink;
        w.squared_norm *= shrink * shrink;

        // ||w + c(a − b)||² = ||w||² + 2c w·(a − b) + c² ||a − b||².
        let difference_squared_norm = gram.get(a, a) + gram.get(b, b) - 2.0 * gram.get(a, b);
        w.squared_norm += 2.0 * coefficient * w.scale * score_difference
            + coefficient * coefficient * difference_squared_norm;
        let unscaled_step = coefficient / w.scale;
        w.coefficients[a] += unscaled_step;
        w.coefficients[b] -= unscaled_step;
        kernel(scores, gram.row(a), gram.row(b), unscaled_step);

        if let Some(factor) = projection_factor(lambda, w.squared_norm) {
            w.scale *= factor;
            w.squared_norm *= factor * factor;
            projections += 1;
        }
        if w.scale < SCALE_FOLD_THRESHOLD {
            w.fold_scale();
        }
    }
    let report = FitReport {
        solver: Solver::Dual,
        iterations: params.iterations,
        projections,
        scale_folds: w.folds,
    };
    (w.into_weights(&documents, training.dimension), report)
}
