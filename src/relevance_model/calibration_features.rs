//! The calibration's features of an unjudged document, and a fit of them.
//!
//! A document of a run's top is read as its judge model's raw probability, its rank, the run's
//! judged precision, whether it is in the pool's reach and its best rank in another team's
//! pooled run ([`DocumentFeatures`]). The calibration's features are, by name
//! ([`PerFeature`]): the raw log-odds, ln(rank), the log-odds of the run's judged precision,
//! and then, when documents beyond the pool count as non-relevant, the in-pool flag and its
//! ln(rank) term, or, when extrapolating, ln(the best pooled rank). The logistic fit sees them
//! as [`FEATURES`] numbers, in the order that [`PerFeature::to_array`] and
//! [`PerFeature::from_array`] alone write.

use serde::{Serialize, Serializer};

use super::reach::{BeyondPool, BEST_RANK_CAP};
use crate::base::sparse::SparseVec;
use crate::base::{is_relevant, DocId, Grade};
use crate::judge::logistic::LogisticModel;
use crate::stats::log_odds::{logit, smoothed_rate};

/// The number of features the calibration fit sees.
pub const FEATURES: usize = 5;

/// The raw probabilities are clamped to [`RAW_PROBABILITY_FLOOR`], 1 − that, before their
/// log-odds are taken.
pub const RAW_PROBABILITY_FLOOR: f64 = 1e-6;

/// The run-level feature of the calibration: the log-odds of a run's judged precision on a
/// topic, from its relevant and judged counts (smoothed by half a document).
pub fn run_precision_log_odds(relevant: usize, judged: usize) -> f64 {
    logit(smoothed_rate(relevant, judged))
}

/// [`run_precision_log_odds`] of the documents of `top` (a run's top of a topic) that
/// `grade_of` finds judged.
pub fn judged_precision(
    top: &[DocId],
    relevance_level: Grade,
    grade_of: impl Fn(DocId) -> Option<Grade>,
) -> f64 {
    let (mut relevant, mut judged) = (0, 0);
    for &doc in top {
        if let Some(grade) = grade_of(doc) {
            judged += 1;
            relevant += usize::from(is_relevant(grade, relevance_level));
        }
    }
    run_precision_log_odds(relevant, judged)
}

/// What the calibration reads of one unjudged document of a run's top.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DocumentFeatures {
    /// The judge model's raw probability.
    pub raw: f64,
    /// Its 1-based rank in the run.
    pub rank: usize,
    /// The log-odds of the run's judged precision on the topic.
    pub run_precision: f64,
    /// Whether it is in the pool's reach.
    pub is_in_pool: bool,
    /// Its best rank in another team's pooled run (capped at [`BEST_RANK_CAP`]).
    pub best_pooled_rank: usize,
    /// A secondary assessor's label of it, if any: not a feature of the fit, but the
    /// evidence of the label stage ([`super::labels`]).
    pub label: Option<Grade>,
}

impl DocumentFeatures {
    /// The document's feature values under `beyond_pool` (0 for a feature it leaves out).
    pub fn values(&self, beyond_pool: BeyondPool) -> PerFeature {
        let log_rank = (self.rank as f64).ln();
        let shared = PerFeature {
            raw_log_odds: raw_log_odds(self.raw),
            log_rank,
            run_precision: self.run_precision,
            ..PerFeature::default()
        };
        match beyond_pool {
            BeyondPool::NonRelevant => {
                let in_pool = f64::from(u8::from(self.is_in_pool));
                PerFeature {
                    in_pool,
                    in_pool_log_rank: in_pool * log_rank,
                    ..shared
                }
            }
            BeyondPool::Extrapolated => PerFeature {
                best_pooled_rank: (self.best_pooled_rank.min(BEST_RANK_CAP) as f64).ln(),
                ..shared
            },
        }
    }

    /// The document's row of the calibration fit under `beyond_pool`.
    pub fn row(&self, beyond_pool: BeyondPool) -> SparseVec {
        let pairs = self
            .values(beyond_pool)
            .to_array(beyond_pool)
            .iter()
            .enumerate()
            .filter(|(_, value)| **value != 0.0)
            .map(|(index, &value)| (index as u32, value as f32))
            .collect();
        SparseVec::from_pairs(pairs).expect("distinct finite features")
    }
}

/// The log-odds of a raw probability, clamped to [`RAW_PROBABILITY_FLOOR`] first.
fn raw_log_odds(raw: f64) -> f64 {
    logit(raw.clamp(RAW_PROBABILITY_FLOOR, 1.0 - RAW_PROBABILITY_FLOOR))
}

/// One number per calibration feature, by name: a document's feature values, or a fit's
/// weights (serialized as such: `log_odds_weight`, …). A feature that the treatment of
/// documents beyond the pool leaves out is 0.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct PerFeature {
    /// The judge model's raw log-odds.
    #[serde(rename = "log_odds_weight")]
    pub raw_log_odds: f64,
    /// ln(rank).
    #[serde(rename = "log_rank_weight")]
    pub log_rank: f64,
    /// The log-odds of the run's judged precision.
    #[serde(rename = "run_precision_weight")]
    pub run_precision: f64,
    /// Being in the pool's reach: in the top `pool_depth` of a pooled run (beyond the pool
    /// non-relevant only).
    #[serde(rename = "in_pool_weight")]
    pub in_pool: f64,
    /// ln(rank) for a document in the pool's reach, beside `log_rank`: how fast relevance
    /// falls with depth differs between what pooling reached and the rest (beyond the pool
    /// non-relevant only).
    #[serde(rename = "in_pool_log_rank_weight")]
    pub in_pool_log_rank: f64,
    /// ln(the document's best rank in another team's pooled run), capped at
    /// [`BEST_RANK_CAP`]: how far the other teams' pool was from reaching it (extrapolating
    /// only).
    #[serde(rename = "best_pooled_rank_weight")]
    pub best_pooled_rank: f64,
}

impl PerFeature {
    /// The numbers in the order the fit sees them under `beyond_pool`: the raw log-odds, ln
    /// rank, run precision, then the in-pool flag and its ln rank term, or ln best pooled rank
    /// and an unused 0.
    pub fn to_array(&self, beyond_pool: BeyondPool) -> [f64; FEATURES] {
        match beyond_pool {
            BeyondPool::NonRelevant => [
                self.raw_log_odds,
                self.log_rank,
                self.run_precision,
                self.in_pool,
                self.in_pool_log_rank,
            ],
            BeyondPool::Extrapolated => [
                self.raw_log_odds,
                self.log_rank,
                self.run_precision,
                self.best_pooled_rank,
                0.0,
            ],
        }
    }

    /// The numbers of `values`, in the order of [`Self::to_array`] under `beyond_pool`.
    pub fn from_array(beyond_pool: BeyondPool, values: &[f64]) -> Self {
        let shared = Self {
            raw_log_odds: values[0],
            log_rank: values[1],
            run_precision: values[2],
            ..Self::default()
        };
        match beyond_pool {
            BeyondPool::NonRelevant => Self {
                in_pool: values[3],
                in_pool_log_rank: values[4],
                ..shared
            },
            BeyondPool::Extrapolated => Self {
                best_pooled_rank: values[3],
                ..shared
            },
        }
    }
}

/// A fit of the calibration: its intercept and its weights, whose features the treatment of
/// documents beyond the pool sets.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Fit {
    /// How documents beyond the pool's reach are treated, and so which rows the fit learned
    /// from and which features it has.
    pub beyond_pool: BeyondPool,
    /// The intercept.
    pub intercept: f64,
    /// The weights (0 for a feature that `beyond_pool` leaves out).
    #[serde(flatten)]
    pub weights: PerFeature,
}

impl Fit {
    /// The fit of a logistic `model` of the features of `beyond_pool`.
    pub fn from_model(beyond_pool: BeyondPool, model: &LogisticModel) -> Self {
        Self {
            beyond_pool,
            intercept: model.intercept,
            weights: PerFeature::from_array(beyond_pool, &model.weights),
        }
    }

    /// The weights times the document's feature values, without the intercept.
    pub fn weighted(&self, document: &DocumentFeatures) -> f64 {
        let values = document.values(self.beyond_pool).to_array(self.beyond_pool);
        let weights = self.weights.to_array(self.beyond_pool);
        values.iter().zip(weights).map(|(x, w)| x * w).sum::<f64>()
    }

    /// The intercept, then the weights in the order the fit sees them.
    pub fn coefficients(&self) -> Vec<f64> {
        std::iter::once(self.intercept)
            .chain(self.weights.to_array(self.beyond_pool))
            .collect()
    }
}

/// Serializes `fits` as one array of [`Fit::coefficients`] each.
pub(super) fn serialize_coefficients<S: Serializer>(
    fits: &[Fit],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(fits.iter().map(Fit::coefficients))
}
