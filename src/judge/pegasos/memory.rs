//! What the fits of one judging unit keep from one retrain to the next: the pairwise dot products
//! of the last training set, by document key, and scratch arrays sized by the dimension.
//!
//! Between two retrains of a topic the judged documents stay in the training set; only the newly
//! judged ones and the fresh random negatives are new. Their dot products with every document are
//! computed; the others are copied from the last fit. An entry is the sum over the two documents'
//! common features, in increasing feature order, of the exact `f64` products of their `f32`
//! values, whichever document is the row, so a copied entry is bit-identical to a recomputed one
//! and the model does not depend on what was remembered.

use rustc_hash::FxHashMap;

use super::model::LinearModel;
use crate::base::sparse::SparseVec;

/// Dot products and scratch space kept across the fits of one judging unit (see
/// [`PegasosValidParams::fit_reusing`](super::PegasosValidParams::fit_reusing)).
///
/// A memory may serve any number of units in turn; [`forget`](Self::forget) between units keeps
/// its scratch arrays and drops what it knew about documents. Once its buffers have grown to a
/// unit's sizes, a fit allocates nothing.
#[derive(Debug, Default)]
pub struct FitMemory {
    /// The last training set's keys, by position.
    keys: Vec<u64>,
    /// The last training set's dot products, row-major.
    dots: Vec<f64>,
    /// The buffer of the coming dot products (the one before the last, reused).
    next_dots: Vec<f64>,
    /// The last keys' positions, by key (scratch of matching a training set with the last).
    position_of: FxHashMap<u64, usize>,
    /// The coming training set's documents that were in the last one, as (position, position
    /// in the last).
    staying: Vec<(usize, usize)>,
    /// The positions of the coming training set's new documents.
    new_documents: Vec<usize>,
    /// Per feature, the span of its postings among the new documents (see [`NewDocumentIndex`]);
    /// `(0, 0)` outside a computation.
    spans: Vec<(u32, u32)>,
    /// One bit per feature, set when a new document has it; all clear outside a computation.
    /// It fits in L1 where `spans` does not, and most features of a document are in no new one.
    has_postings: Vec<u64>,
    /// The buffers of [`NewDocumentIndex`].
    postings: Vec<(u32, f32)>,
    touched: Vec<u32>,
    /// One document's dot products with the new documents.
    sums: Vec<f64>,
    /// Per feature, an accumulator of the primal weights; zero outside a computation.
    weight_sums: Vec<f64>,
    /// The training documents, positives then negatives (empty outside a fit).
    pub(super) documents: Vec<&'static SparseVec>,
    /// The dual solver's arrays, by precision.
    dual_f32: DualBuffers<f32>,
    dual_f64: DualBuffers<f64>,
    /// The last fit's model.
    pub(super) model: LinearModel,
}

/// Sixteen Gram entries or scores, 64-byte aligned (one cache line of `f32`, two of `f64`): the
/// unit of the dual solver's Gram rows and scores, so that rows start aligned and the step
/// loop compiles to whole-vector operations that never straddle two cache lines.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(64))]
pub(super) struct Block<T>(pub(super) [T; LANES]);

/// The number of values in a [`Block`].
pub(super) const LANES: usize = 16;

const _: () = assert!(std::mem::size_of::<Block<f32>>() == LANES * 4);
const _: () = assert!(std::mem::size_of::<Block<f64>>() == LANES * 8);

/// A row of blocks as one contiguous slice of values.
#[inline]
pub(super) fn flat<T>(blocks: &[Block<T>]) -> &[T] {
    // SAFETY: `Block<T>` is `repr(C)` around `[T; LANES]`, and for the `f32` and `f64` it is
    // used with that array is a multiple of the alignment (asserted above), so there is no
    // padding: a slice of blocks is `LANES` times as many contiguous `T`s.
    unsafe { std::slice::from_raw_parts(blocks.as_ptr().cast::<T>(), blocks.len() * LANES) }
}

/// A row of blocks as one contiguous mutable slice of values.
#[inline]
pub(super) fn flat_mut<T>(blocks: &mut [Block<T>]) -> &mut [T] {
    // SAFETY: as in `flat`; the borrow of `blocks` is exclusive.
    unsafe { std::slice::from_raw_parts_mut(blocks.as_mut_ptr().cast::<T>(), blocks.len() * LANES) }
}

/// The arrays of a dual fit with Gram entries of type `T`, kept between fits so that a fit
/// allocates none (each fit sizes and fills them afresh).
#[derive(Debug, Default)]
pub(super) struct DualBuffers<T> {
    pub(super) gram: Vec<Block<T>>,
    pub(super) pair_squared_norms: Vec<f64>,
    pub(super) coefficients: Vec<f64>,
    pub(super) scores: Vec<Block<f64>>,
    pub(super) recent: Vec<Block<T>>,
}

/// The dual buffers of one precision.
pub(super) trait DualBuffersOf<T> {
    /// This precision's buffers.
    fn dual_buffers(&mut self) -> &mut DualBuffers<T>;
}

impl DualBuffersOf<f32> for FitMemory {
    fn dual_buffers(&mut self) -> &mut DualBuffers<f32> {
        &mut self.dual_f32
    }
}

impl DualBuffersOf<f64> for FitMemory {
    fn dual_buffers(&mut self) -> &mut DualBuffers<f64> {
        &mut self.dual_f64
    }
}

impl FitMemory {
    /// An empty memory.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets the documents of the last fit (the next unit's keys may name other vectors) and
    /// keeps the scratch arrays.
    pub fn forget(&mut self) {
        self.keys.clear();
    }

    /// The accumulator of the primal weights, `dimension` long and all zero (the caller leaves
    /// it all zero), and the model the fit leaves.
    pub(super) fn accumulator_and_model(
        &mut self,
        dimension: usize,
    ) -> (&mut [f64], &mut LinearModel) {
        self.reserve_dimension(dimension);
        (&mut self.weight_sums[..dimension], &mut self.model)
    }

    /// Grows the arrays sized by the dimension to `dimension`.
    fn reserve_dimension(&mut self, dimension: usize) {
        if self.spans.len() < dimension {
            self.spans.resize(dimension, (0, 0));
            self.has_postings.resize(dimension.div_ceil(64), 0);
            self.weight_sums.resize(dimension, 0.0);
        }
    }

    /// The `n × n` matrix of dot products of `documents` (row-major), with `keys[i]` naming
    /// `documents[i]` (equal keys, equal vectors), reusing the last call's entries for documents
    /// it had, and remembering these for the next call. Without keys nothing is reused, and the
    /// next call reuses nothing either.
    pub(super) fn dot_products(
        &mut self,
        documents: &[&SparseVec],
        keys: Option<&[u64]>,
        dimension: usize,
    ) -> &[f64] {
        let size = documents.len();
        self.match_previous(keys, size);
        let mut dots = std::mem::take(&mut self.next_dots);
        dots.clear();
        dots.resize(size * size, 0.0);
        let old_size = self.keys.len();
        for &(row, old_row) in &self.staying {
            let old_values = &self.dots[old_row * old_size..][..old_size];
            let values = &mut dots[row * size..][..size];
            for &(column, old_column) in &self.staying {
                values[column] = old_values[old_column];
            }
        }
        let new_documents = std::mem::take(&mut self.new_documents);
        self.add_new_documents(documents, &new_documents, &mut dots, dimension);
        self.new_documents = new_documents;
        self.keys.clear();
        self.keys.extend_from_slice(keys.unwrap_or_default());
        self.next_dots = std::mem::replace(&mut self.dots, dots);
        &self.dots
    }

    /// Sets `staying` to the documents of the coming training set (of `size`) that were in the
    /// last one, as (position, position in the last), and `new_documents` to the positions of
    /// the others, the new ones.
    fn match_previous(&mut self, keys: Option<&[u64]>, size: usize) {
        self.staying.clear();
        self.new_documents.clear();
        let Some(keys) = keys else {
            self.new_documents.extend(0..size);
            return;
        };
        self.position_of.clear();
        for (position, &key) in self.keys.iter().enumerate() {
            self.position_of.entry(key).or_insert(position);
        }
        for (position, key) in keys.iter().enumerate() {
            match self.position_of.get(key) {
                Some(&old) => self.staying.push((position, old)),
                None => self.new_documents.push(position),
            }
        }
    }

    /// Fills the rows and columns of `new_documents` (positions in `documents`): for every
    /// document, its dot products with all new ones at once, through an index of the new ones.
    fn add_new_documents(
        &mut self,
        documents: &[&SparseVec],
        new_documents: &[usize],
        dots: &mut [f64],
        dimension: usize,
    ) {
        if new_documents.is_empty() {
            return;
        }
        self.reserve_dimension(dimension);
        let size = documents.len();
        let index = NewDocumentIndex::new(
            documents,
            new_documents,
            &mut self.spans,
            &mut self.has_postings,
            std::mem::take(&mut self.postings),
            std::mem::take(&mut self.touched),
        );
        let sums = &mut self.sums;
        sums.clear();
        sums.resize(new_documents.len(), 0.0);
        for (row, document) in documents.iter().enumerate() {
            sums.fill(0.0);
            for &(feature, value) in document.as_pairs() {
                if self.has_postings[feature as usize / 64] & (1 << (feature % 64)) == 0 {
                    continue;
                }
                for &(new, new_value) in index.postings(&self.spans, feature) {
                    sums[new as usize] += f64::from(value) * f64::from(new_value);
                }
            }
            let values = &mut dots[row * size..][..size];
            for (&column, &sum) in new_documents.iter().zip(sums.iter()) {
                values[column] = sum;
            }
        }
        (self.postings, self.touched) = index.clear(&mut self.spans, &mut self.has_postings);
        // A new document's row: its column, by symmetry (complete already when all are new).
        if new_documents.len() < size {
            for &new in new_documents {
                for other in 0..size {
                    dots[new * size + other] = dots[other * size + new];
                }
            }
        }
    }
}

/// The new documents' entries grouped by feature (a counting sort over the features they use):
/// the postings of feature `f` are `postings[spans[f].0..spans[f].1]`, as (new document number,
/// value), in new-document order.
struct NewDocumentIndex {
    postings: Vec<(u32, f32)>,
    touched: Vec<u32>,
}

impl NewDocumentIndex {
    /// Indexes `documents[new_documents[k]]` as new document `k`, using `spans` (all `(0, 0)`,
    /// at least as long as the dimension) for the features' spans and setting their bits in
    /// `has_postings` (all clear), in the buffers `postings` and `touched`.
    fn new(
        documents: &[&SparseVec],
        new_documents: &[usize],
        spans: &mut [(u32, u32)],
        has_postings: &mut [u64],
        mut postings: Vec<(u32, f32)>,
        mut touched: Vec<u32>,
    ) -> Self {
        touched.clear();
        // Count each feature's postings in `.1`.
        for &position in new_documents {
            for &(feature, _) in documents[position].as_pairs() {
                let span = &mut spans[feature as usize];
                if span.1 == 0 {
                    touched.push(feature);
                    has_postings[feature as usize / 64] |= 1 << (feature % 64);
                }
                span.1 += 1;
            }
        }
        // Give each feature its start; `.1` becomes the fill cursor, then the end.
        let mut start = 0_u32;
        for &feature in &touched {
            let span = &mut spans[feature as usize];
            let count = span.1;
            *span = (start, start);
            start += count;
        }
        postings.clear();
        postings.resize(start as usize, (0, 0.0));
        for (new, &position) in new_documents.iter().enumerate() {
            for &(feature, value) in documents[position].as_pairs() {
                let span = &mut spans[feature as usize];
                postings[span.1 as usize] = (new as u32, value);
                span.1 += 1;
            }
        }
        Self { postings, touched }
    }

    #[inline]
    fn postings(&self, spans: &[(u32, u32)], feature: u32) -> &[(u32, f32)] {
        let (start, end) = spans[feature as usize];
        &self.postings[start as usize..end as usize]
    }

    /// Resets the spans it used to `(0, 0)` and their bits to clear, and gives back its
    /// buffers.
    fn clear(
        self,
        spans: &mut [(u32, u32)],
        has_postings: &mut [u64],
    ) -> (Vec<(u32, f32)>, Vec<u32>) {
        for &feature in &self.touched {
            spans[feature as usize] = (0, 0);
            has_postings[feature as usize / 64] = 0;
        }
        (self.postings, self.touched)
    }
}
