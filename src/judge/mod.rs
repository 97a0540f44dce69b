//! The judge: a simulated HiCAL-like continuous-active-learning assessor, its learners and the
//! judging strategies without learning.
//!
//! The learners are the default ([`pegasos`], HiCAL's Sofia-ML logistic Pegasos in a pairwise
//! ROC loop) and the dense alternative ([`logistic`], L2-regularised logistic regression fitted
//! by argmin's L-BFGS on linfa-logistic's objective; linfa-logistic itself is the tests'
//! oracle). Both train on a [`TrainingSet`] of documents owned elsewhere and produce a model
//! that implements [`Scorer`]; that contract is [`learner`]'s.
//!
//! It also holds the CAL loop ([`cal`]), what it may propose ([`candidates`]), the batch
//! schedules ([`schedule`]), the strategies without learning ([`strategies`]), the simulated
//! assessor's trait with the official and fuller-file assessors ([`assessor`]) and the judge's
//! settings ([`settings`]). The task as the judge sees it is [`crate::collection`]'s; the
//! document vectors are [`crate::base::sparse`]'s and feature extraction lives in
//! [`crate::features`].

pub mod assessor;
pub mod cal;
pub mod candidates;
pub mod learner;
pub mod logistic;
pub mod pegasos;
pub mod schedule;
pub mod settings;
pub mod strategies;

pub use learner::{Scorer, TrainingSet};

use crate::base::error::Error;
use crate::collection::{CandidateSource, FeatureChoice};
use crate::io::task::Task;

/// Whether the judge uses text features, given the task and the choices made.
///
/// # Errors
/// [`Error::Invalid`] when text features are asked for without a corpus or topics, or corpus
/// candidates without text features.
pub fn resolve_features(
    task: &Task,
    features: FeatureChoice,
    candidates: CandidateSource,
) -> crate::base::error::Result<bool> {
    let has_corpus = task.manifest.corpus.is_some() || task.manifest.feature_store.is_some();
    let has_text = has_corpus && task.topics.is_some();
    let use_text = match features {
        FeatureChoice::Auto => has_text,
        FeatureChoice::Text if !has_text => {
            return Err(Error::Invalid(format!(
            "task {}: text features need a corpus (or its feature store) and topic texts in the \
                 manifest",
            task.manifest.name
        )))
        }
        FeatureChoice::Text => true,
        FeatureChoice::Runs => false,
    };
    if candidates == CandidateSource::Corpus && !use_text {
        return Err(Error::Invalid(
            "corpus candidates need text features (a corpus to draw candidates from)".into(),
        ));
    }
    Ok(use_text)
}

/// Marks the runs of the named teams as excluded (held out), in task run order.
///
/// # Errors
/// [`Error::Invalid`] naming a team that does not exist, with the teams that do.
pub fn excluded_runs(task: &Task, teams: &[String]) -> crate::base::error::Result<Vec<bool>> {
    let known = task.teams.team_names();
    if let Some(unknown) = teams.iter().find(|team| !known.contains(&team.as_str())) {
        return Err(Error::Invalid(format!(
            "no team {unknown:?} in task {}; teams: {}",
            task.manifest.name,
            known.join(", ")
        )));
    }
    Ok(task
        .runs
        .iter()
        .map(|run| teams.iter().any(|team| team == task.team_of(&run.tag)))
        .collect())
}
