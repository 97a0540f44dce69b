//! Sparse document vectors: the representation every learner trains on and scores.
//!
//! Modelled on Sofia-ML's `SfSparseVector` (hical/HiCAL `CALEngine/src/sofiaml/sf-sparse-vector.h`):
//! (feature, value) pairs bundled together for memory locality, plus a cached squared norm.
//! Unlike Sofia-ML there is no bias feature: HiCAL's pairwise ROC loop trains on differences of
//! documents, in which a bias cancels (see [`crate::judge::pegasos`]).

use std::ops::AddAssign;

use crate::base::error::LearnerError;

/// A sparse vector of `f32` values indexed by `u32` feature.
///
/// Invariants, established by the constructors and kept by every method:
/// - feature indices are strictly increasing (sorted and unique);
/// - every stored value is finite and non-zero;
/// - the cached squared norm is the sum of the squared values, computed in `f64`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SparseVec {
    /// (feature, value) pairs; pairs rather than two arrays so that a dot product touches one
    /// stream of memory.
    entries: Vec<(u32, f32)>,
    squared_norm: f64,
}

impl SparseVec {
    /// The vector with no non-zero entry.
    pub fn empty() -> Self {
        Self::default()
    }

    /// A vector from (feature, value) pairs in any order: sorts them by feature, sums the values
    /// of repeated features and drops the entries whose value is (or sums to) zero.
    ///
    /// # Errors
    /// [`LearnerError::NonFiniteValue`] when a value (or a sum of repeated values) is NaN or
    /// infinite.
    pub fn from_pairs(pairs: Vec<(u32, f32)>) -> Result<Self, LearnerError> {
        if let Some(&(feature, value)) = pairs.iter().find(|(_, value)| !value.is_finite()) {
            return Err(LearnerError::NonFiniteValue { feature, value });
        }
        let mut merged = summed_by_key(pairs);
        if let Some(&(feature, value)) = merged.iter().find(|(_, value)| !value.is_finite()) {
            return Err(LearnerError::NonFiniteValue { feature, value });
        }
        merged.retain(|&(_, value)| value != 0.0);
        Ok(Self::from_valid_entries(merged))
    }

    /// Wraps entries that already satisfy the invariants and computes the norm.
    fn from_valid_entries(entries: Vec<(u32, f32)>) -> Self {
        let squared_norm = entries
            .iter()
            .map(|&(_, value)| f64::from(value) * f64::from(value))
            .sum();
        Self {
            entries,
            squared_norm,
        }
    }

    /// This vector divided by its Euclidean norm; the empty vector stays empty.
    pub fn l2_normalized(self) -> Self {
        if self.squared_norm == 0.0 {
            return self;
        }
        let factor = 1.0 / self.squared_norm.sqrt();
        self.scaled_f64(factor)
    }

    /// This vector multiplied by `factor`; entries that underflow to zero are dropped.
    ///
    /// # Panics
    /// When `factor` is not finite, since the result would break the finite-values invariant.
    pub fn scaled(self, factor: f32) -> Self {
        self.scaled_f64(f64::from(factor))
    }

    fn scaled_f64(self, factor: f64) -> Self {
        assert!(factor.is_finite(), "scale factor must be finite");
        let mut entries = self.entries;
        for entry in &mut entries {
            entry.1 = (f64::from(entry.1) * factor) as f32;
        }
        // Overflow cannot be ruled out for huge factors; zero values break the invariant too.
        assert!(
            entries.iter().all(|&(_, value)| value.is_finite()),
            "scaling overflowed f32"
        );
        entries.retain(|&(_, value)| value != 0.0);
        Self::from_valid_entries(entries)
    }

    /// Whether the vector has no non-zero entry.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The sum of the squared values.
    #[inline]
    pub fn squared_norm(&self) -> f64 {
        self.squared_norm
    }

    /// The largest feature index with a non-zero value, if any.
    #[inline]
    pub fn max_feature(&self) -> Option<u32> {
        self.entries.last().map(|&(feature, _)| feature)
    }

    /// The (feature, value) pairs in increasing feature order.
    #[inline]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (u32, f32)> + '_ {
        self.entries.iter().copied()
    }

    /// The (feature, value) pairs in increasing feature order, as a slice.
    #[inline]
    pub fn as_pairs(&self) -> &[(u32, f32)] {
        &self.entries
    }

    /// The dot product with another sparse vector, accumulated in `f64`.
    pub fn dot(&self, other: &SparseVec) -> f64 {
        let (mut left, mut right) = (self.entries.iter(), other.entries.iter());
        let (mut next_left, mut next_right) = (left.next(), right.next());
        let mut sum = 0.0_f64;
        while let (Some(&(left_feature, left_value)), Some(&(right_feature, right_value))) =
            (next_left, next_right)
        {
            match left_feature.cmp(&right_feature) {
                std::cmp::Ordering::Less => next_left = left.next(),
                std::cmp::Ordering::Greater => next_right = right.next(),
                std::cmp::Ordering::Equal => {
                    sum += f64::from(left_value) * f64::from(right_value);
                    next_left = left.next();
                    next_right = right.next();
                }
            }
        }
        sum
    }

    /// The dot product with a dense vector, accumulated in `f32` (see [`dot_dense`]).
    #[inline]
    pub fn dot_dense(&self, dense: &[f32]) -> f32 {
        dot_dense(&self.entries, dense)
    }

    /// The dot product with a dense `f64` vector, accumulated in `f64` (see
    /// [`dot_dense_f64`]).
    #[inline]
    pub fn dot_dense_f64(&self, dense: &[f64]) -> f64 {
        dot_dense_f64(&self.entries, dense)
    }
}

/// `pairs` sorted by key with the values of a repeated key summed. The sort is stable, so a
/// key's values are summed in their input order and the sum does not depend on the order in
/// which the other keys came.
pub fn summed_by_key<V: AddAssign>(mut pairs: Vec<(u32, V)>) -> Vec<(u32, V)> {
    pairs.sort_by_key(|pair| pair.0);
    let mut summed: Vec<(u32, V)> = Vec::with_capacity(pairs.len());
    for (key, value) in pairs {
        match summed.last_mut() {
            Some(last) if last.0 == key => last.1 += value,
            _ => summed.push((key, value)),
        }
    }
    summed
}

/// The dot product of `(feature, value)` pairs with a dense vector, accumulated in `f32` in
/// the pairs' order. Features at or beyond `dense.len()` count as zero there.
#[inline]
pub fn dot_dense(pairs: &[(u32, f32)], dense: &[f32]) -> f32 {
    let mut sum = 0.0_f32;
    for &pair in pairs {
        add_product(&mut sum, pair, dense);
    }
    sum
}

/// Adds one pair's product with `dense` to `sum` (nothing for a feature beyond `dense`): the
/// step of [`dot_dense`] and [`dot_dense_together`].
#[inline(always)]
fn add_product(sum: &mut f32, (feature, value): (u32, f32), dense: &[f32]) {
    if let Some(weight) = dense.get(feature as usize) {
        *sum += weight * value;
    }
}

/// Documents whose dot products [`dot_dense_together`] computes in one pass.
pub const DOTS_TOGETHER: usize = 4;

/// [`dot_dense`] of each of `documents` with `dense`, bit for bit: the documents' sums are
/// interleaved, each still accumulated in its own pairs' order, so that the processor overlaps
/// their chains of dependent additions, which bound a lone sum.
pub fn dot_dense_together(
    documents: &[&[(u32, f32)]; DOTS_TOGETHER],
    dense: &[f32],
) -> [f32; DOTS_TOGETHER] {
    let mut sums = [0.0_f32; DOTS_TOGETHER];
    let common = documents.iter().map(|pairs| pairs.len()).min().unwrap_or(0);
    for position in 0..common {
        for (sum, pairs) in sums.iter_mut().zip(documents) {
            add_product(sum, pairs[position], dense);
        }
    }
    for (sum, pairs) in sums.iter_mut().zip(documents) {
        for &pair in &pairs[common..] {
            add_product(sum, pair, dense);
        }
    }
    sums
}

/// The dot product of `(feature, value)` pairs with a dense `f64` vector, accumulated in `f64`
/// in the pairs' order. Features at or beyond `dense.len()` count as zero there.
#[inline]
pub fn dot_dense_f64(pairs: &[(u32, f32)], dense: &[f64]) -> f64 {
    let mut sum = 0.0_f64;
    for &(feature, value) in pairs {
        if let Some(weight) = dense.get(feature as usize) {
            sum += weight * f64::from(value);
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;
    use proptest::prelude::*;

    fn dense_dot(left: &[f32], right: &[f32]) -> f64 {
        left.iter()
            .zip(right)
            .map(|(&l, &r)| f64::from(l) * f64::from(r))
            .sum()
    }

    #[test]
    fn from_pairs_sorts_merges_and_drops_zeros() {
        let vector = SparseVec::from_pairs(vec![
            (5, 1.0),
            (2, 3.0),
            (5, 2.0),
            (7, 0.0),
            (3, 1.5),
            (3, -1.5),
        ])
        .expect("finite values");
        assert_eq!(vector.as_pairs(), &[(2, 3.0), (5, 3.0)]);
        assert_eq!(vector.iter().len(), 2);
        assert_abs_diff_eq!(vector.squared_norm(), 18.0);
        assert_eq!(vector.max_feature(), Some(5));
    }

    #[test]
    fn from_pairs_rejects_non_finite_values() {
        assert_eq!(
            SparseVec::from_pairs(vec![(1, 1.0), (4, f32::NAN)]).map_err(|e| e.to_string()),
            Err("feature 4 has value NaN; values must be finite".to_string())
        );
        assert!(SparseVec::from_pairs(vec![(1, f32::MAX), (1, f32::MAX)]).is_err());
    }

    #[test]
    fn l2_normalized_has_unit_norm_and_empty_stays_empty() {
        let vector = SparseVec::from_pairs(vec![(0, 3.0), (9, 4.0)])
            .expect("finite values")
            .l2_normalized();
        assert_abs_diff_eq!(vector.squared_norm(), 1.0, epsilon = 1e-7);
        assert_eq!(vector.as_pairs(), &[(0, 0.6), (9, 0.8)]);
        assert!(SparseVec::empty().l2_normalized().is_empty());
    }

    #[test]
    fn scaled_multiplies_values_and_norm() {
        let vector = SparseVec::from_pairs(vec![(1, 1.0), (2, -2.0)])
            .expect("finite values")
            .scaled(3.0);
        assert_eq!(vector.as_pairs(), &[(1, 3.0), (2, -6.0)]);
        assert_abs_diff_eq!(vector.squared_norm(), 45.0);
        assert!(vector.scaled(0.0).is_empty());
    }

    #[test]
    fn dot_dense_ignores_features_beyond_the_slice() {
        let vector = SparseVec::from_pairs(vec![(0, 1.0), (10, 5.0)]).expect("finite values");
        assert_eq!(vector.dot_dense(&[2.0, 3.0]), 2.0);
    }

    fn sparse_and_dense(dimension: usize) -> impl Strategy<Value = (SparseVec, Vec<f32>)> {
        proptest::collection::vec((0..dimension as u32, -10.0_f32..10.0), 0..40).prop_map(
            move |pairs| {
                let vector = SparseVec::from_pairs(pairs).expect("finite values");
                let mut dense = vec![0.0; dimension];
                for (feature, value) in vector.iter() {
                    dense[feature as usize] = value;
                }
                (vector, dense)
            },
        )
    }

    proptest! {
        #![proptest_config(crate::base::fuzz::property_config(256))]
        #[test]
        fn dots_together_equal_lone_dots_bit_for_bit(
            documents in proptest::collection::vec(
                proptest::collection::vec((0u32..40, -1e3f32..1e3), 0..30),
                DOTS_TOGETHER,
            ),
            dense in proptest::collection::vec(-1e3f32..1e3, 0..36),
        ) {
            // Values over six binades, features past the dense end, lengths that differ: a sum
            // taken in another order, or fused, would differ in its last bits.
            let pairs: Vec<&[(u32, f32)]> = documents.iter().map(Vec::as_slice).collect();
            let group: &[&[(u32, f32)]; DOTS_TOGETHER] = pairs.as_slice().try_into().unwrap();
            let together = dot_dense_together(group, &dense);
            for (sum, pairs) in together.iter().zip(&pairs) {
                prop_assert_eq!(sum.to_bits(), dot_dense(pairs, &dense).to_bits());
            }
        }

        #[test]
        fn sparse_dot_dense_equals_dense_dot_dense(
            (vector, dense_vector) in sparse_and_dense(64),
            dense in proptest::collection::vec(-10.0_f32..10.0, 64),
        ) {
            let expected = dense_dot(&dense_vector, &dense);
            let tolerance = 1e-4 * (1.0 + expected.abs() + vector.iter().len() as f64 * 100.0 * 1e-3);
            prop_assert!((f64::from(vector.dot_dense(&dense)) - expected).abs() <= tolerance);
            let dense_f64: Vec<f64> = dense.iter().map(|&v| f64::from(v)).collect();
            prop_assert!((vector.dot_dense_f64(&dense_f64) - expected).abs() <= 1e-9 * (1.0 + expected.abs()));
        }

        #[test]
        fn sparse_dot_sparse_equals_dense_dot_dense(
            (left, left_dense) in sparse_and_dense(64),
            (right, right_dense) in sparse_and_dense(64),
        ) {
            let expected = dense_dot(&left_dense, &right_dense);
            prop_assert!((left.dot(&right) - expected).abs() <= 1e-9 * (1.0 + expected.abs()));
            prop_assert!((left.dot(&right) - right.dot(&left)).abs() <= 1e-12);
            prop_assert!((left.dot(&left) - left.squared_norm()).abs() <= 1e-9 * (1.0 + left.squared_norm()));
        }

        #[test]
        fn invariants_hold_after_construction((vector, _dense) in sparse_and_dense(64)) {
            let pairs = vector.as_pairs();
            prop_assert!(pairs.windows(2).all(|pair| pair[0].0 < pair[1].0));
            prop_assert!(pairs.iter().all(|&(_, value)| value != 0.0 && value.is_finite()));
        }
    }
}
