//! A plain `f32` port of HiCAL's classifier, step for step, for the tests only: the yardstick of
//! how far from exact arithmetic HiCAL itself computes, against which the `f32` Gram path is
//! held (the fidelity criterion: at most 1.5 times this port's distance to an all-`f64` reference).
//!
//! Source: hical/HiCAL `CALEngine/src/classifier.cc` (`LRPegasosClassifier::train`: the step
//! size `1/(lambda*i)`, the logistic rank step, the L2 scaling with its `1e-7` floor, the
//! Pegasos projection) and `CALEngine/src/sofiaml/sf-weight-vector.cc` (`InnerProduct`, `AddVector`, `ScaleBy`, `ScaleToOne`). The C++ types
//! are kept: `f32` weights, dot products, step sizes and losses; an `f64` scale and squared norm.
//! Expressions that mix `float` and `double` are evaluated in `f64`, as C++ does. Sofia-ML's
//! first step pushes the scale to `1e-7` even though `w` is zero, and so does this port.

use rand::Rng;

use crate::base::sparse::SparseVec;
use crate::judge::learner::TrainingSet;

/// Sofia-ML's `MIN_SCALING_FACTOR`.
const MIN_SCALING_FACTOR: f64 = 1e-7;

/// `SfWeightVector`: `w = scale * weights`.
struct SofiaWeights {
    weights: Vec<f32>,
    scale: f64,
    squared_norm: f64,
}

impl SofiaWeights {
    /// `InnerProduct(x, x_scale)`.
    fn inner_product(&self, x: &SparseVec, x_scale: f32) -> f32 {
        let mut inner_product = 0.0_f32;
        for &(feature, value) in x.as_pairs() {
            inner_product += self.weights[feature as usize] * value;
        }
        inner_product *= x_scale;
        (f64::from(inner_product) * self.scale) as f32
    }

    /// `AddVector(x, x_scale)`.
    fn add_vector(&mut self, x: &SparseVec, x_scale: f32) {
        let mut inner_product = 0.0_f32;
        let mut x_squared_norm = 0.0_f32;
        for &(feature, value) in x.as_pairs() {
            let this_x_value = value * x_scale;
            let weight = &mut self.weights[feature as usize];
            inner_product += *weight * this_x_value;
            *weight = (f64::from(*weight) + f64::from(this_x_value) / self.scale) as f32;
            x_squared_norm += value * value;
        }
        self.squared_norm += f64::from(x_squared_norm) * f64::from(x_scale) * f64::from(x_scale)
            + 2.0 * self.scale * f64::from(inner_product);
    }

    /// `ScaleBy(scaling_factor)`.
    fn scale_by(&mut self, scaling_factor: f64) {
        if self.scale < 1e-11 {
            for weight in &mut self.weights {
                *weight = (f64::from(*weight) * self.scale) as f32;
            }
            self.scale = 1.0;
        }
        self.squared_norm *= scaling_factor * scaling_factor;
        self.scale *= scaling_factor;
    }
}

/// The order of a step's two `AddVector` calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AddOrder {
    /// The positive document first, as HiCAL does.
    PositiveFirst,
    /// The negative document first: as exact as HiCAL's order, rounded differently, to measure
    /// how much HiCAL's own `f32` arithmetic moves with an equally valid ordering.
    NegativeFirst,
}

/// HiCAL's `StochasticRocLoop` with logistic Pegasos steps and Pegasos projection: the weights
/// (scale folded in) and the number of projections. Draws pairs from `rng` as the fast solvers do.
pub(super) fn hical_fit(
    lambda: f64,
    iterations: usize,
    training: &TrainingSet,
    order: AddOrder,
    rng: &mut impl Rng,
) -> (Vec<f32>, usize) {
    let lambda = lambda as f32;
    let mut w = SofiaWeights {
        weights: vec![0.0; training.dimension],
        scale: 1.0,
        squared_norm: 0.0,
    };
    let mut projections = 0;
    for step in 1..=iterations {
        let eta = (1.0 / f64::from(lambda * step as f32)) as f32;
        let a = training.positives[rng.random_range(0..training.positives.len())];
        let b = training.negatives[rng.random_range(0..training.negatives.len())];
        let margin = w.inner_product(a, 1.0) + w.inner_product(b, -1.0);
        let loss = 1.0 / (1.0 + margin.exp());
        let scaling_factor = 1.0 - f64::from(eta * lambda);
        w.scale_by(scaling_factor.max(MIN_SCALING_FACTOR));
        match order {
            AddOrder::PositiveFirst => {
                w.add_vector(a, eta * loss);
                w.add_vector(b, -eta * loss);
            }
            AddOrder::NegativeFirst => {
                w.add_vector(b, -eta * loss);
                w.add_vector(a, eta * loss);
            }
        }
        let projection = (1.0 / (f64::from(lambda) * w.squared_norm).sqrt()) as f32;
        if projection < 1.0 {
            w.scale_by(f64::from(projection));
            projections += 1;
        }
    }
    let scale = w.scale;
    let weights = w
        .weights
        .into_iter()
        .map(|weight| (f64::from(weight) * scale) as f32)
        .collect();
    (weights, projections)
}
