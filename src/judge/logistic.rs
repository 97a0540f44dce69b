//! The `logistic` learner: L2-regularised logistic regression on sparse features, the source
//! of calibrated probabilities for the audit and an alternative judge for run features.
//!
//! The objective is linfa-logistic's (the summed log loss plus alpha/2 ||w||^2, the intercept
//! not penalised) and so is the optimiser: argmin's L-BFGS with a More-Thuente line search,
//! memory 10, stopping at a gradient norm of [`GRADIENT_TOLERANCE`]. Only the cost and the
//! gradient are computed here, over the sparse rows: linfa-logistic densifies its input and
//! spends most of its time packing that matrix, which the audit's thousands of fits per
//! backtest cannot afford. A test checks the fits against linfa-logistic's.

use std::cell::RefCell;

use argmin::core::{CostFunction, Executor, Gradient, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;

use crate::base::error::LearnerError;
use crate::base::error::Result;
use crate::base::sparse::SparseVec;
use crate::judge::learner::{Scorer, TrainingSet};
use crate::stats::log_odds::{sigmoid, sigmoid_by_sign};

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

/// L-BFGS stops when the gradient's norm falls below this (linfa-logistic's default).
pub const GRADIENT_TOLERANCE: f64 = 1e-4;

/// The fitting problem: rows with labels +1 (positive) and −1 (negative); the parameters are
/// the weights followed by the intercept.
struct Problem<'t> {
    rows: Vec<(&'t SparseVec, f64)>,
    dimension: usize,
    alpha: f64,
    /// The last point evaluated: the line search asks for the cost and the gradient of each
    /// point it tries, and both need every row's margin.
    last: RefCell<Option<Evaluation>>,
}

/// The cost and gradient at one point.
struct Evaluation {
    params: Vec<f64>,
    cost: f64,
    gradient: Vec<f64>,
}

impl Problem<'_> {
    /// The cost and the gradient at `params`, computed in one pass over the rows.
    fn evaluate(&self, params: &[f64]) -> Evaluation {
        let (weights, intercept) = params.split_at(self.dimension);
        let mut gradient: Vec<f64> = weights
            .iter()
            .map(|w| self.alpha * w)
            .chain(std::iter::once(0.0))
            .collect();
        let mut loss = 0.0;
        for &(row, label) in &self.rows {
            let margin = row.dot_dense_f64(weights) + intercept[0];
            loss += softplus(-label * margin);
            // d/dz softplus(−y z) = −y σ(−y z).
            let coefficient = -label * sigmoid(-label * margin);
            for (feature, value) in row.iter() {
                gradient[feature as usize] += coefficient * f64::from(value);
            }
            gradient[self.dimension] += coefficient;
        }
        let norm: f64 = weights.iter().map(|w| w * w).sum();
        Evaluation {
            params: params.to_vec(),
            cost: loss + 0.5 * self.alpha * norm,
            gradient,
        }
    }

    /// `read` of the evaluation at `params`, computed unless it is the last one.
    fn evaluated<T>(&self, params: &[f64], read: impl Fn(&Evaluation) -> T) -> T {
        let mut last = self.last.borrow_mut();
        match last.as_ref() {
            Some(evaluation) if evaluation.params == params => read(evaluation),
            _ => read(last.insert(self.evaluate(params))),
        }
    }
}

/// ln(1 + e^t), without overflow.
fn softplus(t: f64) -> f64 {
    if t > 0.0 {
        t + (-t).exp().ln_1p()
    } else {
        t.exp().ln_1p()
    }
}

impl CostFunction for Problem<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, params: &Vec<f64>) -> std::result::Result<f64, argmin::core::Error> {
        Ok(self.evaluated(params, |evaluation| evaluation.cost))
    }
}

impl Gradient for Problem<'_> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;

    fn gradient(&self, params: &Vec<f64>) -> std::result::Result<Vec<f64>, argmin::core::Error> {
        Ok(self.evaluated(params, |evaluation| evaluation.gradient.clone()))
    }
}

/// Fits a logistic regression separating `training.positives` from `training.negatives`,
/// with L2 penalty `alpha` and at most `max_iterations` L-BFGS iterations.
///
/// # Errors
/// When the training set has no positive or no negative document or a feature beyond its
/// dimension, when `alpha` is not a positive finite number, or when the optimiser fails.
pub fn fit_logistic(
    training: &TrainingSet,
    alpha: f64,
    max_iterations: u64,
) -> Result<LogisticModel> {
    training.check()?;
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(LearnerError::InvalidAlpha(alpha).into());
    }
    let problem = Problem {
        rows: training
            .positives
            .iter()
            .map(|&row| (row, 1.0))
            .chain(training.negatives.iter().map(|&row| (row, -1.0)))
            .collect(),
        dimension: training.dimension,
        alpha,
        last: RefCell::new(None),
    };
    let failed = |error: argmin::core::Error| LearnerError::Logistic(error.to_string());
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 10)
        .with_tolerance_grad(GRADIENT_TOLERANCE)
        .map_err(failed)?;
    let start = vec![0.0; training.dimension + 1];
    let result = Executor::new(problem, solver)
        .configure(|state| state.param(start).max_iters(max_iterations))
        .run()
        .map_err(failed)?;
    let mut params = result
        .state()
        .get_best_param()
        .cloned()
        .ok_or_else(|| LearnerError::Logistic("L-BFGS returned no parameters".into()))?;
    let intercept = params.pop().expect("the intercept is the last parameter");
    Ok(LogisticModel {
        weights: params,
        intercept,
    })
}

impl LogisticModel {
    /// `w·x + intercept`, the log-odds that `document` is like the positives. Features beyond
    /// the model's dimension weigh 0.
    pub fn log_odds(&self, document: &SparseVec) -> f64 {
        self.intercept + crate::base::sparse::dot_dense_f64(document.as_pairs(), &self.weights)
    }

    /// The probability that `document` is like the positives.
    pub fn probability(&self, document: &SparseVec) -> f64 {
        sigmoid_by_sign(self.log_odds(document))
    }
}

impl Scorer for LogisticModel {
    /// The log-odds, which ranks as the probability does without saturating at 1.
    fn score_pairs(&self, pairs: &[(u32, f32)]) -> f32 {
        (self.intercept + crate::base::sparse::dot_dense_f64(pairs, &self.weights)) as f32
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
        model.score_into(&[document(vec![(0, 0.5)]).as_pairs()], &mut out);
        assert_eq!(out, [500.0]);
    }

    /// linfa-logistic's fit of the same objective, the oracle.
    fn linfa_fit(training: &TrainingSet, alpha: f64) -> (Vec<f64>, f64) {
        use linfa::prelude::*;
        use ndarray::{Array1, Array2};
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
        let fitted = linfa_logistic::LogisticRegression::default()
            .alpha(alpha)
            .max_iterations(500)
            .fit(&Dataset::new(records, targets))
            .unwrap();
        // linfa's probabilities are those of `labels().pos`, its majority class.
        let sign = if fitted.labels().pos.class { 1.0 } else { -1.0 };
        (
            fitted.params().iter().map(|w| sign * w).collect(),
            sign * fitted.intercept(),
        )
    }

    #[test]
    fn fits_agree_with_linfa_logistic() {
        for (positive_count, negative_count, alpha) in [(5, 20, 0.1), (20, 5, 1.0), (12, 12, 0.03)]
        {
            let (positives, negatives) =
                (class(positive_count, true), class(negative_count, false));
            let training =
                TrainingSet::new(positives.iter().collect(), negatives.iter().collect(), 3);
            let model = fit_logistic(&training, alpha, 500).unwrap();
            let (weights, intercept) = linfa_fit(&training, alpha);
            for (ours, theirs) in model.weights.iter().zip(&weights) {
                assert!(
                    (ours - theirs).abs() < 1e-3 * (1.0 + theirs.abs()),
                    "{model:?} vs {weights:?}"
                );
            }
            assert!((model.intercept - intercept).abs() < 1e-3 * (1.0 + intercept.abs()));
        }
    }

    #[test]
    fn autotraits() {
        fn is_send_sync<T: Send + Sync>() {}
        is_send_sync::<LogisticModel>();
    }
}
