//! The dual solver's row kernel, `scores += step * (row_a − row_b)`, and its run-time dispatch
//! to the widest vector instructions the processor has. This is the only place in the learner
//! that calls `unsafe` code for speed; every kernel performs the same operations lane by lane
//! ([`updated_score`]), so the result does not depend on the processor.

/// A Gram matrix entry: `f32` (half the memory traffic) or `f64`. Scores are `f64` either way.
pub(super) trait GramEntry: Copy + Default + Send + Sync + 'static {
    /// The entry nearest to `value`.
    fn from_f64(value: f64) -> Self;
    /// The entry as an `f64`, exactly.
    fn widen(self) -> f64;
}

impl GramEntry for f32 {
    #[inline(always)]
    fn from_f64(value: f64) -> Self {
        value as f32
    }

    #[inline(always)]
    fn widen(self) -> f64 {
        f64::from(self)
    }
}

impl GramEntry for f64 {
    #[inline(always)]
    fn from_f64(value: f64) -> Self {
        value
    }

    #[inline(always)]
    fn widen(self) -> f64 {
        self
    }
}

/// One lane of the kernel: `score + step * (a − b)`, a separate multiply and add (Rust never
/// fuses them), so that every kernel gives bit-identical scores.
///
/// Scores are `f64`: they accumulate updates of both signs, and in `f32` their rounding moved
/// the iterates by up to ~2e-5 (relative) on small problems.
#[inline(always)]
fn updated_score<T: GramEntry>(score: f64, a: T, b: T, step: f64) -> f64 {
    score + step * (a.widen() - b.widen())
}

/// `scores += step * (row_a − row_b)`, lane by lane, over the shortest of the three slices.
#[inline]
pub(super) fn add_row_difference<T: GramEntry>(
    scores: &mut [f64],
    row_a: &[T],
    row_b: &[T],
    step: f64,
) {
    // One flat pass, so the compiler vectorises along the row.
    for ((score, &a), &b) in scores.iter_mut().zip(row_a).zip(row_b) {
        *score = updated_score(*score, a, b, step);
    }
}

/// [`add_row_difference`] compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn add_row_difference_avx512<T: GramEntry>(
    scores: &mut [f64],
    row_a: &[T],
    row_b: &[T],
    step: f64,
) {
    add_row_difference(scores, row_a, row_b, step);
}

/// [`add_row_difference`] compiled for AVX2, for processors without AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn add_row_difference_avx2<T: GramEntry>(scores: &mut [f64], row_a: &[T], row_b: &[T], step: f64) {
    add_row_difference(scores, row_a, row_b, step);
}

/// A row kernel: `(scores, row_a, row_b, step)`.
pub(super) type RowKernel<T> = fn(&mut [f64], &[T], &[T], f64);

/// The widest kernel this processor runs, detected at run time so that a portable build still
/// uses AVX2 or AVX-512 where they exist.
pub(super) fn row_kernel<T: GramEntry>() -> RowKernel<T> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Every kernel this processor runs, by name, the portable one first.
    fn kernels<T: GramEntry>() -> Vec<(&'static str, RowKernel<T>)> {
        let mut kernels: Vec<(&'static str, RowKernel<T>)> =
            vec![("portable", add_row_difference::<T>)];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the feature was detected on this processor just above.
                kernels.push(("avx2", |scores, a, b, step| unsafe {
                    add_row_difference_avx2(scores, a, b, step)
                }));
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the feature was detected on this processor just above.
                kernels.push(("avx512", |scores, a, b, step| unsafe {
                    add_row_difference_avx512(scores, a, b, step)
                }));
            }
        }
        kernels
    }

    /// Runs 50 steps of every kernel on the same random rows (values spanning many binades, so
    /// that a fused multiply-add or a reordering would show) and asserts bit-identical scores,
    /// equal to the scalar lane [`updated_score`].
    fn assert_kernels_agree<T: GramEntry>(length: usize, seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut value =
            || T::from_f64(rng.random_range(-1.0..1.0) * 10_f64.powi(rng.random_range(-8..3)));
        let rows: Vec<Vec<T>> = (0..8)
            .map(|_| (0..length).map(|_| value()).collect())
            .collect();
        let steps: Vec<(usize, usize, f64)> = (0..50)
            .map(|step| (step % 8, (step * 3 + 1) % 8, 1e4 / (step as f64 + 1.0)))
            .collect();
        let mut expected = vec![0.0_f64; length];
        for &(a, b, step) in &steps {
            for ((score, &x), &y) in expected.iter_mut().zip(&rows[a]).zip(&rows[b]) {
                *score = updated_score(*score, x, y, step);
            }
        }
        for (name, kernel) in kernels::<T>() {
            let mut scores = vec![0.0_f64; length];
            for &(a, b, step) in &steps {
                kernel(&mut scores, &rows[a], &rows[b], step);
            }
            let bits = |values: &[f64]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&scores), bits(&expected), "{name}, length {length}");
        }
    }

    #[test]
    fn every_kernel_gives_bit_identical_scores() {
        for length in [1, 7, 16, 33, 450, 1000] {
            assert_kernels_agree::<f32>(length, length as u64);
            assert_kernels_agree::<f64>(length, length as u64);
        }
    }
}
