//! The dual solver's row kernel, `scores += step * (row_a − row_b)`, and its run-time dispatch
//! to the widest vector instructions the processor has. This is the only place in the learner
//! that calls `unsafe` code for speed; every kernel performs the same operations lane by lane,
//! so the result does not depend on the processor.

/// `scores += step * (row_a − row_b)`, lane by lane, over the shortest of the three slices.
///
/// Scores are `f64`: they accumulate updates of both signs, and in `f32` their rounding moved
/// the iterates by up to ~2e-5 (relative) on small problems.
#[inline]
pub(super) fn add_row_difference(scores: &mut [f64], row_a: &[f64], row_b: &[f64], step: f64) {
    // One flat pass, so the compiler vectorises along the row.
    for ((score, &a), &b) in scores.iter_mut().zip(row_a).zip(row_b) {
        *score += step * (a - b);
    }
}

/// [`add_row_difference`] compiled for AVX-512. The arithmetic is the same separate multiply
/// and add (no fused multiply-add), so every kernel gives bit-identical scores and the simulated
/// qrels do not depend on the processor.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn add_row_difference_avx512(scores: &mut [f64], row_a: &[f64], row_b: &[f64], step: f64) {
    add_row_difference(scores, row_a, row_b, step);
}

/// [`add_row_difference`] compiled for AVX2, for processors without AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn add_row_difference_avx2(scores: &mut [f64], row_a: &[f64], row_b: &[f64], step: f64) {
    add_row_difference(scores, row_a, row_b, step);
}

/// A row kernel: `(scores, row_a, row_b, step)`.
pub(super) type RowKernel = fn(&mut [f64], &[f64], &[f64], f64);

/// The widest kernel this processor runs, detected at run time so that a portable build still
/// uses AVX2 or AVX-512 where they exist.
pub(super) fn row_kernel() -> RowKernel {
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
