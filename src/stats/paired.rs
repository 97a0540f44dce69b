//! What every paired statistic checks first: that its two samples pair up.

use crate::base::error::StatsError;

/// Checks that two paired slices have the same length.
pub(crate) fn check_same_length(left: &[f64], right: &[f64]) -> Result<(), StatsError> {
    if left.len() == right.len() {
        Ok(())
    } else {
        Err(StatsError::LengthMismatch {
            left: left.len(),
            right: right.len(),
        })
    }
}
