//! What every paired statistic checks first: that its two samples pair up, are finite and are
//! numerous enough, and that a resampling test draws at least one sample.

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

/// Checks that every value is a number, naming the first that is not.
pub(crate) fn check_finite(values: &[f64]) -> Result<(), StatsError> {
    match values
        .iter()
        .enumerate()
        .find(|(_, value)| !value.is_finite())
    {
        Some((position, &value)) => Err(StatsError::NonFinite { position, value }),
        None => Ok(()),
    }
}

/// Checks that there are at least `required` values.
pub(crate) fn check_at_least(required: usize, found: usize) -> Result<(), StatsError> {
    if found >= required {
        Ok(())
    } else {
        Err(StatsError::TooFewValues { required, found })
    }
}

/// Checks that a resampling test draws at least one sample.
pub(crate) fn check_samples(samples: usize) -> Result<(), StatsError> {
    if samples == 0 {
        Err(StatsError::NoPermutations)
    } else {
        Ok(())
    }
}

/// `a[i] − b[i]`, after checking that `a` and `b` pair up, are finite and hold at least
/// `required` pairs.
pub(crate) fn paired_differences(
    a: &[f64],
    b: &[f64],
    required: usize,
) -> Result<Vec<f64>, StatsError> {
    check_same_length(a, b)?;
    check_finite(a)?;
    check_finite(b)?;
    check_at_least(required, a.len())?;
    Ok(a.iter().zip(b).map(|(left, right)| left - right).collect())
}

/// The differences `a[i] − b[i]` a resampling test with `samples` samples permutes: at least
/// one pair, finite, and at least one sample.
pub(crate) fn resampled_differences(
    a: &[f64],
    b: &[f64],
    samples: usize,
) -> Result<Vec<f64>, StatsError> {
    let differences = paired_differences(a, b, 1)?;
    check_samples(samples)?;
    Ok(differences)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_check_names_what_it_found() {
        assert_eq!(
            paired_differences(&[1.0, 2.0], &[0.5], 1),
            Err(StatsError::LengthMismatch { left: 2, right: 1 })
        );
        assert!(matches!(
            paired_differences(&[1.0, 2.0], &[0.5, f64::NAN], 1),
            Err(StatsError::NonFinite { position: 1, .. })
        ));
        assert_eq!(
            paired_differences(&[1.0], &[0.5], 2),
            Err(StatsError::TooFewValues {
                required: 2,
                found: 1
            })
        );
        assert_eq!(
            resampled_differences(&[], &[], 10),
            Err(StatsError::TooFewValues {
                required: 1,
                found: 0
            })
        );
        assert_eq!(
            resampled_differences(&[1.0], &[0.5], 0),
            Err(StatsError::NoPermutations)
        );
        assert_eq!(resampled_differences(&[1.0], &[0.5], 1), Ok(vec![0.5]));
    }
}
