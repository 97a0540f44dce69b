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

use crate::base::sparse::SparseVec;

/// Dot products and scratch space kept across the fits of one judging unit (see
/// [`PegasosValidParams::fit_reusing`](super::PegasosValidParams::fit_reusing)).
///
/// A memory may serve any number of units in turn; [`forget`](Self::forget) between units keeps
/// its scratch arrays and drops what it knew about documents.
#[derive(Debug, Default)]
pub struct FitMemory {
    /// The last training set's keys, by position.
    keys: Vec<u64>,
    /// The last training set's dot products, row-major.
    dots: Vec<f64>,
    /// The buffer of the coming dot products (the one before the last, reused).
    next_dots: Vec<f64>,
    /// Per feature, the span of its postings among the new documents (see [`NewDocumentIndex`]);
    /// `(0, 0)` outside a computation.
    spans: Vec<(u32, u32)>,
    /// One bit per feature, set when a new document has it; all clear outside a computation.
    /// It fits in L1 where `spans` does not, and most features of a document are in no new one.
    has_postings: Vec<u64>,
    /// Per feature, an accumulator of the primal weights; zero outside a computation.
    weight_sums: Vec<f64>,
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
    /// it all zero).
    pub(super) fn weight_sums(&mut self, dimension: usize) -> &mut [f64] {
        self.reserve_dimension(dimension);
        &mut self.weight_sums[..dimension]
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
        let (staying, new_documents) = self.match_previous(keys, size);
        let mut dots = std::mem::take(&mut self.next_dots);
        dots.clear();
        dots.resize(size * size, 0.0);
        let old_size = self.keys.len();
        for &(row, old_row) in &staying {
            let old_values = &self.dots[old_row * old_size..][..old_size];
            let values = &mut dots[row * size..][..size];
            for &(column, old_column) in &staying {
                values[column] = old_values[old_column];
            }
        }
        self.add_new_documents(documents, &new_documents, &mut dots, dimension);
        self.keys.clear();
        self.keys.extend_from_slice(keys.unwrap_or_default());
        self.next_dots = std::mem::replace(&mut self.dots, dots);
        &self.dots
    }

    /// The documents of the coming training set (of `size`) that were in the last one, as
    /// (position, position in the last), and the positions of the others, the new ones.
    fn match_previous(
        &self,
        keys: Option<&[u64]>,
        size: usize,
    ) -> (Vec<(usize, usize)>, Vec<usize>) {
        let Some(keys) = keys else {
            return (Vec::new(), (0..size).collect());
        };
        let mut position_of: FxHashMap<u64, usize> = FxHashMap::default();
        position_of.reserve(self.keys.len());
        for (position, &key) in self.keys.iter().enumerate() {
            position_of.entry(key).or_insert(position);
        }
        let (mut staying, mut new_documents) = (Vec::new(), Vec::new());
        for (position, key) in keys.iter().enumerate() {
            match position_of.get(key) {
                Some(&old) => staying.push((position, old)),
                None => new_documents.push(position),
            }
        }
        (staying, new_documents)
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
        );
        let mut sums = vec![0.0_f64; new_documents.len()];
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
            for (&column, &sum) in new_documents.iter().zip(&sums) {
                values[column] = sum;
            }
        }
        index.clear(&mut self.spans, &mut self.has_postings);
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
    /// `has_postings` (all clear).
    fn new(
        documents: &[&SparseVec],
        new_documents: &[usize],
        spans: &mut [(u32, u32)],
        has_postings: &mut [u64],
    ) -> Self {
        let mut touched = Vec::new();
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
        let mut postings = vec![(0_u32, 0.0_f32); start as usize];
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

    /// Resets the spans it used to `(0, 0)` and their bits to clear.
    fn clear(self, spans: &mut [(u32, u32)], has_postings: &mut [u64]) {
        for feature in self.touched {
            spans[feature as usize] = (0, 0);
            has_postings[feature as usize / 64] = 0;
        }
    }
}
