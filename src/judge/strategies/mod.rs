//! Judging strategies: the ways a study may spend a topic's judgment budget (see
//! docs/strategies.md). `hical` is the CAL loop ([`crate::judge::cal`]); the others order the
//! documents of the trial's pooled runs without learning, one run at a time:
//!
//! - `depth` ([`depth`]): a depth-k pool deepened until the budget is met, depth by depth;
//! - `mtf` ([`mtf`]): move-to-front pooling (Cormack, Palmer & Clarke, SIGIR 1998);
//! - `bandit` ([`bandit`]): non-stationary MaxMean bandits, MM-NS (Losada, Parapar & Barreiro,
//!   IP&M 2017).
//!
//! Every strategy judges with the same simulated assessor as the CAL loop
//! ([`crate::judge::assessor`]), never judges a document the trial withholds, and carries
//! the same officially judged documents that no run retrieved. This module owns the choice of a
//! run and the judging order; the study decides which trials and topics are judged.

pub mod bandit;
pub mod depth;
pub mod mtf;
pub mod run_chooser;

pub use run_chooser::{judging_order, OpenRun, RunChooser};

use crate::base::choice::choice_enum;
use crate::base::error::Result;
use crate::base::{is_relevant, DocId};
use crate::collection::{CandidateSource, Collection};
use crate::judge::assessor::{assess_in_pool, Assessor};
use crate::judge::cal::{
    carried_judgments, judge_trial_topic, pool_of, TopicJudging, TraceStep, TrialTopic,
};
use crate::judge::settings::JudgeSettings;

choice_enum! {
    /// How a topic's judgment budget is spent.
    pub enum Strategy {
        /// HiCAL's continuous active learning: the depth-k pool, then the model's picks.
        Hical = "hical",
        /// The pooled runs' documents depth by depth, each depth in run order.
        Depth = "depth",
        /// Move-to-front pooling: a run keeps being judged while its documents are relevant.
        Mtf = "mtf",
        /// MM-NS bandits: the run with the highest discounted mean relevance is judged next.
        Bandit = "bandit",
    }
}

impl Strategy {
    /// Whether the strategy learns a model (and so uses the trial's seed).
    pub fn is_learning(self) -> bool {
        self == Self::Hical
    }
}

/// The chooser of a strategy without learning.
///
/// # Panics
/// For [`Strategy::Hical`], which judges with the CAL loop instead.
fn chooser(strategy: Strategy, arms: usize) -> Box<dyn RunChooser> {
    match strategy {
        Strategy::Hical => unreachable!("hical judges with the CAL loop"),
        Strategy::Depth => Box::new(depth::DepthFirst),
        Strategy::Mtf => Box::new(mtf::MoveToFront::new(arms)),
        Strategy::Bandit => Box::new(bandit::MaxMeanNonStationary::new(arms)),
    }
}

/// Judges one topic for one trial with `strategy`: as [`judge_trial_topic`] for `hical`;
/// otherwise the carried judgments, then the documents of the pooled runs not excluded (each in
/// NIST's pooling order) in the strategy's order, never a withheld one, until the carried
/// judgments and those judged reach `budget` or no document is left. Such a judging has no pool
/// batch and no retrain.
///
/// # Errors
/// As [`judge_trial_topic`].
pub fn judge_topic_with(
    strategy: Strategy,
    collection: &Collection,
    trial_topic: TrialTopic,
    budget: usize,
    settings: &JudgeSettings,
    assessor: &dyn Assessor,
) -> Result<TopicJudging> {
    if strategy == Strategy::Hical {
        return judge_trial_topic(collection, trial_topic, budget, settings, assessor);
    }
    let TrialTopic {
        topic: topic_index,
        excluded_runs,
        withheld,
    } = trial_topic;
    let topic = &collection.topics[topic_index];
    let carried = match settings.candidates {
        CandidateSource::Retrieved => carried_judgments(
            collection,
            topic_index,
            &topic.retrieved,
            withheld,
            assessor,
        ),
        CandidateSource::Corpus => Vec::new(),
    };
    // The depth pool, which a hybrid assessor grades by the official grades.
    let pool = pool_of(
        collection,
        topic,
        excluded_runs,
        withheld,
        settings.pool_depth,
    );
    let assess = |doc| assess_in_pool(assessor, topic_index, doc, &pool);
    let rankings: Vec<&[DocId]> = topic
        .pool_rankings
        .iter()
        .enumerate()
        .filter(|&(run, _)| collection.runs[run].is_pooled && !excluded_runs[run])
        .map(|(_, ranking)| ranking.as_slice())
        .collect();
    let order = judging_order(
        &rankings,
        |doc| withheld.binary_search(&doc).is_err(),
        |doc| is_relevant(assess(doc).grade, settings.train_level),
        budget.saturating_sub(carried.len()),
        &mut *chooser(strategy, rankings.len()),
    );
    let trace: Vec<TraceStep> = order
        .iter()
        .enumerate()
        .map(|(pos, &doc)| {
            let assessment = assess(doc);
            TraceStep {
                step: u32::try_from(pos + 1).expect("fewer than 2^32 judgments"),
                batch: 0,
                doc,
                score: f32::NAN,
                grade: assessment.grade,
                source: assessment.source,
            }
        })
        .collect();
    let mut judgments = carried.clone();
    judgments.extend(trace.iter().map(|step| (step.doc, step.grade)));
    Ok(TopicJudging {
        topic: topic_index,
        judgments,
        trace,
        carried: carried.len(),
        pool_size: 0,
        is_pool_over_budget: carried.len() > budget,
        retrains: 0,
        withheld: withheld.len(),
    })
}

/// The pooled runs a strategy without learning draws from in a trial, by tag: the task's
/// pooled runs less the excluded ones (what, with the withheld documents, its judging depends
/// on).
pub fn drawn_runs<'c>(collection: &'c Collection, excluded_runs: &[bool]) -> Vec<&'c str> {
    collection
        .runs
        .iter()
        .zip(excluded_runs)
        .filter(|(run, &excluded)| run.is_pooled && !excluded)
        .map(|(run, _)| run.tag.as_str())
        .collect()
}

#[cfg(test)]
mod tests;
