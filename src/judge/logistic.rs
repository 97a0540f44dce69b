//! The `logistic` learner: L2-regularised logistic regression (linfa-logistic) on dense
//! features of small dimension, such as run features, and the source of calibrated
//! probabilities for the audit.
//!
//! Sparse training documents are densified into an `ndarray` matrix, so the cost grows with
//! `documents × dimension`; use [`crate::judge::pegasos`] for text features.
//!
//! linfa-logistic 0.8.1 names the *majority* class of the targets its positive class
//! (`labels().pos`), whatever the labels are; [`fit_logistic`] orients the fitted model by that
//! field so that a higher probability always means "more like the positives".

use linfa::prelude::*;
use linfa_logistic::LogisticRegression;
use ndarray::{Array1, Array2};

use super::{Scorer, TrainingSet};
use crate::base::error::LearnerError;
use crate::base::error::Result;
use crate::base::sparse::SparseVec;

/// A fitted logistic regression: `P(relevant | x) = 1 / (1 + exp(−(w·x + intercept)))`.
#[derive(Debug, Clone, PartialEq)]
pub struct LogisticModel {
    /// One weight per feature, oriented so that positive weights favour the positives.
    pub weights: Vec<f64>,
    /// The intercept, with the same orientation.
    pub intercept: f64,
}

/// The L2 penalty the judge uses (linfa-logistic's default).
pub const DEFAULT_ALPHA: f64 = 1.0;

/// The L-BFGS iteration cap the judge uses (linfa-logistic's default).
pub const DEFAULT_MAX_ITERATIONS: u64 = 100;

/// Fits a logistic regression separating `training.positives` from `training.negatives`,
/// with L2 penalty `alpha` and at most `max_iterations` L-BFGS iterations.
///
/// # Errors
/// When the training set has no positive or no negative document or a feature beyond its
/// dimension, when `alpha` is not a positive finite number, or when linfa-logistic fails.
pub fn fit_logistic(
    training: &TrainingSet,
    alpha: f64,
    max_iterations: u64,
) -> Result<LogisticModel> {
    training.check()?;
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(LearnerError::InvalidAlpha(alpha).into());
    }
    let rows = training.len();
    let mut records = Array2::<f64>::zeros((rows, training.dimension));
    let documents = training.positives.iter().chain(&training.negatives);
    for (mut row, document) in records.rows_mut().into_iter().zip(documents) {
        for (feature, value) in document.iter() {
            row[feature as usize] = f64::from(value);
        }
    }
    let targets: Array1<bool> = (0..rows)
        .map(|pos| pos < training.positives.len())
        .collect();
    let dataset = Dataset::new(records, targets);
    let fitted = LogisticRegression::default()
        .alpha(alpha)
        .max_iterations(max_iterations)
        .fit(&dataset)
        .map_err(|error| LearnerError::Logistic(error.to_string()))?;
    // linfa's probabilities are those of `labels().pos`, its majority class.
    let orientation = if fitted.labels().pos.class { 1.0 } else { -1.0 };
    Ok(LogisticModel {
        weights: fitted.params().iter().map(|w| orientation * w).collect(),
        intercept: orientation * fitted.intercept(),
    })
}

impl LogisticModel {
    /// `w·x + intercept`, the log-odds that `document` is like the positives. Features beyond
    /// the model's dimension weigh 0.
    pub fn log_odds(&self, document: &SparseVec) -> f64 {
        self.intercept + document.dot_dense_f64(&self.weights)
    }

    /// The probability that `document` is like the positives.
    pub fn probability(&self, document: &SparseVec) -> f64 {
        let log_odds = self.log_odds(document);
        // Branch on the sign so that exp never overflows.
        if log_odds >= 0.0 {
            1.0 / (1.0 + (-log_odds).exp())
        } else {
            let odds = log_odds.exp();
            odds / (1.0 + odds)
        }
    }
}

impl Scorer for LogisticModel {
    /// The log-odds, which ranks as the probability does without saturating at 1.
    fn score(&self, document: &SparseVec) -> f32 {
        self.log_odds(document) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(pairs: Vec<(u32, f32)>) -> SparseVec {
        SparseVec::from_pairs(pairs).expect("finite values")
    }

    /// Positives have a high feature 0, negatives a high feature 1; a little of the other
    /// feature keeps the problem non-degenerate.
    fn class(count: usize, is_positive: bool) -> Vec<SparseVec> {
        (0..count)
            .map(|pos| {
                let jitter = 0.1 + 0.05 * (pos % 4) as f32;
                if is_positive {
                    document(vec![(0, 1.0 - jitter), (1, jitter), (2, 0.5)])
                } else {
                    document(vec![(0, jitter), (1, 1.0 - jitter), (2, 0.5)])
                }
            })
            .collect()
    }

    /// Fails unless the model is oriented by linfa's `labels().pos`: linfa's own probabilities
    /// favour whichever class is the majority.
    fn assert_oriented(positive_count: usize, negative_count: usize) {
        let (positives, negatives) = (class(positive_count, true), class(negative_count, false));
        let training = TrainingSet::new(positives.iter().collect(), negatives.iter().collect(), 3);
        let model = fit_logistic(&training, 0.1, 200).expect("valid training set");
        let positive_like = document(vec![(0, 0.9), (1, 0.1), (2, 0.5)]);
        let negative_like = document(vec![(0, 0.1), (1, 0.9), (2, 0.5)]);
        let (high, low) = (
            model.probability(&positive_like),
            model.probability(&negative_like),
        );
        assert!(
            high > 0.5 && low < 0.5 && high > low,
            "{positive_count} positives, {negative_count} negatives: {high} vs {low}"
        );
        assert!(model.score(&positive_like) > model.score(&negative_like));
    }

    #[test]
    fn higher_probability_for_positive_like_documents_with_more_negatives() {
        assert_oriented(5, 20);
    }

    #[test]
    fn higher_probability_for_positive_like_documents_with_more_positives() {
        assert_oriented(20, 5);
    }

    #[test]
    fn rejects_invalid_alpha_and_one_class_sets() {
        let (positives, negatives) = (class(3, true), class(3, false));
        let training = TrainingSet::new(positives.iter().collect(), negatives.iter().collect(), 3);
        for alpha in [0.0, -1.0, f64::NAN] {
            assert!(matches!(
                fit_logistic(&training, alpha, 10),
                Err(crate::base::error::Error::Learner(
                    LearnerError::InvalidAlpha(_)
                ))
            ));
        }
        let one_class = TrainingSet::new(positives.iter().collect(), vec![], 3);
        assert!(matches!(
            fit_logistic(&one_class, 1.0, 10),
            Err(crate::base::error::Error::Learner(
                LearnerError::NoNegatives
            ))
        ));
    }

    #[test]
    fn probability_is_stable_for_extreme_log_odds() {
        let model = LogisticModel {
            weights: vec![1000.0],
            intercept: 0.0,
        };
        assert_eq!(model.probability(&document(vec![(0, 1.0)])), 1.0);
        assert_eq!(model.probability(&document(vec![(0, -1.0)])), 0.0);
        let mut out = [0.0_f32; 1];
        model.score_into([&document(vec![(0, 0.5)])], &mut out);
        assert_eq!(out, [500.0]);
    }

    #[test]
    fn autotraits() {
        fn is_send_sync<T: Send + Sync>() {}
        is_send_sync::<LogisticModel>();
    }
}
