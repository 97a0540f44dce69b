//! A yes/no prediction's counts against what happened.

use serde::Serialize;

/// Counts of a yes/no prediction against what happened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Confusion {
    /// Predicted and happened.
    pub true_positives: usize,
    /// Predicted, did not happen.
    pub false_positives: usize,
    /// Not predicted, happened.
    pub false_negatives: usize,
    /// Neither.
    pub true_negatives: usize,
    /// true positives / predicted (None when nothing was predicted).
    pub precision: Option<f64>,
    /// true positives / happened (None when nothing happened).
    pub recall: Option<f64>,
}

impl Confusion {
    /// The counts of `(predicted, happened)` pairs.
    pub(super) fn of(pairs: impl Iterator<Item = (bool, bool)>) -> Self {
        let mut c = Self::default();
        for (predicted, happened) in pairs {
            match (predicted, happened) {
                (true, true) => c.true_positives += 1,
                (true, false) => c.false_positives += 1,
                (false, true) => c.false_negatives += 1,
                (false, false) => c.true_negatives += 1,
            }
        }
        let ratio = |part: usize, whole: usize| (whole > 0).then(|| part as f64 / whole as f64);
        c.precision = ratio(c.true_positives, c.true_positives + c.false_positives);
        c.recall = ratio(c.true_positives, c.true_positives + c.false_negatives);
        c
    }
}
