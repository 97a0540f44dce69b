//! `complete`: one seed's completed qrels, the grades the completed assessor of that seed
//! judges with.

use serde::{Deserialize, Serialize};

use crate::base::error::Result;
use crate::collection::{CandidateSource, Collection, FeatureChoice};
use crate::io::task::Task;
use crate::sim::assessor::CompletedQrels;

use super::task::require_model_qrels;

/// The options of `complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompleteOptions {
    /// The seed whose completion is drawn (a study's seed S draws the same).
    pub seed: u64,
    /// Features of the relevance model: text, runs, or auto, as a study's judge uses.
    pub features: FeatureChoice,
    /// Pool depth of the calibration's leave-team-out evidence (`None`: the task's).
    pub pool_depth: Option<usize>,
}

impl Default for CompleteOptions {
    fn default() -> Self {
        Self {
            seed: 1,
            features: FeatureChoice::Auto,
            pool_depth: None,
        }
    }
}

/// Seed `options.seed`'s completed qrels of `task`: the official qrels, then a grade drawn
/// from the calibrated relevance model for every document a run retrieved that they never
/// judged. Runs on the current rayon pool.
///
/// # Errors
/// Qrels without a non-relevant judgment (before any work), text features without a corpus,
/// and the relevance model's fit.
pub fn complete(task: &Task, options: &CompleteOptions) -> Result<CompletedQrels> {
    let use_text =
        crate::judge::resolve_features(task, options.features, CandidateSource::Retrieved)?;
    let pool_depth = options.pool_depth.unwrap_or(task.pool_depth);
    require_model_qrels(task)?;
    let collection = Collection::prepare(task, &task.qrels, use_text)?;
    crate::sim::assessor::completed_qrels(&collection, pool_depth, options.seed)
}
