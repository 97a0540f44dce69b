//! The arithmetic of one pairwise step, shared by the primal and the dual solver so that both
//! compute the same iterates.

use super::exp;
use super::settings::MIN_SCALING_FACTOR;

/// The step size of step `step` (1-based).
#[inline]
pub(super) fn learning_rate(lambda: f64, step: usize) -> f64 {
    1.0 / (lambda * step as f64)
}

/// The L2 shrink factor of a step with learning rate `learning_rate`.
#[inline]
pub(super) fn shrink_factor(learning_rate: f64, lambda: f64) -> f64 {
    (1.0 - learning_rate * lambda).max(MIN_SCALING_FACTOR)
}

/// The logistic loss derivative of a pair whose score difference `w·a − w·b` is `margin`.
///
/// `exp` is this crate's ([`exp::exp`]), in Rust, rather than the platform's maths library: two
/// versions of glibc may round it differently, and a trial must not depend on the node it ran on.
#[inline(always)]
pub(super) fn pair_loss(margin: f64) -> f64 {
    1.0 / (1.0 + exp::exp(margin))
}

/// The factor that projects a vector of squared norm `squared_norm` onto the ball of radius
/// `1 / sqrt(lambda)`, or `None` when it is already inside.
#[inline]
pub(super) fn projection_factor(lambda: f64, squared_norm: f64) -> Option<f64> {
    let scaled_norm = lambda * squared_norm;
    // The factor can only be below 1 when `scaled_norm` is above 1: the square root and the
    // division, slow and on the step's critical chain, are left for the rare steps that project.
    if scaled_norm <= 1.0 {
        return None;
    }
    let factor = 1.0 / scaled_norm.sqrt();
    (factor < 1.0).then_some(factor)
}
