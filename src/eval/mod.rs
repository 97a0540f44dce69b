//! trec_eval-compatible evaluation (see docs/eval.md).
//!
//! A run is evaluated on the topics present in both the run and the qrels, judged topics
//! without relevant documents included; run topics absent from the qrels are ignored with a
//! warning; with `complete` (trec_eval `-c`) qrels topics absent from the run are evaluated as
//! empty rankings. The summary is the arithmetic mean over topics, a sum for counts.

pub mod format;
pub mod measure;
pub mod measures;
pub mod ranking;
pub mod registry;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_beyond_trec;

use std::collections::BTreeMap;

use crate::base::error::Warning;
use crate::base::Grade;
use crate::io::qrels::Qrels;
use crate::io::run::Run;

pub use measure::Measure;
pub use ranking::{GradeCounts, JudgedRanking};
pub use registry::Family;

use registry::Compute;

/// The measures `reusesim eval` reports when none is named.
pub const DEFAULT_MEASURES: &str = "map,P_10,ndcg_cut_10,recip_rank,ncg_cut_100,judged_10";

/// Parses a comma- or space-separated list of measure specifications. Only a comma or space
/// outside parentheses separates two measures (`RBP(rel=1,p=0.8)` is one), and `map,P.5,10` is
/// read trec_eval's way: a number after a comma continues the cutoff list.
///
/// # Errors
/// As [`Measure::parse_list`], and for an empty list.
pub fn parse_measures<S: AsRef<str>>(specs: &[S]) -> crate::base::error::Result<Vec<Measure>> {
    let mut measures: Vec<Measure> = Vec::new();
    for spec in specs {
        let mut pieces: Vec<String> = Vec::new();
        for piece in split_outside_parentheses(spec.as_ref()) {
            let continues_cutoffs = piece.bytes().all(|byte| byte.is_ascii_digit());
            match pieces.last_mut() {
                Some(last) if continues_cutoffs => {
                    last.push(',');
                    last.push_str(piece);
                }
                _ => pieces.push(piece.to_string()),
            }
        }
        for piece in pieces {
            for measure in Measure::parse_list(&piece)? {
                if !measures.contains(&measure) {
                    measures.push(measure);
                }
            }
        }
    }
    if measures.is_empty() {
        return Err(crate::base::error::Error::Measure(
            "no measure given".into(),
        ));
    }
    Ok(measures)
}

/// The non-empty pieces of `text` between commas and spaces that stand outside parentheses.
fn split_outside_parentheses(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (index, character) in text.char_indices() {
        match character {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' | ' ' if depth == 0 => {
                pieces.push(&text[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    pieces.push(&text[start..]);
    pieces.retain(|piece| !piece.is_empty());
    pieces
}

/// Checks that every measure can rank runs, as `job` (the study, the audit, the backtest) ranks
/// runs by each of them.
///
/// # Errors
/// [`Error::Measure`](crate::base::error::Error::Measure) naming the first measure that cannot,
/// and why.
pub fn check_rankable(measures: &[Measure], job: &str) -> crate::base::error::Result<()> {
    for measure in measures {
        if let Some(reason) = measure.family.unrankable_reason() {
            return Err(crate::base::error::Error::Measure(format!(
                "{measure} cannot rank runs in {job}: {reason}"
            )));
        }
    }
    Ok(())
}

/// How to evaluate.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalOptions {
    /// The measures, in output order.
    pub measures: Vec<Measure>,
    /// A grade >= this is relevant (trec_eval `-l`).
    pub relevance_level: Grade,
    /// Average over every qrels topic, missing ones scoring 0 (trec_eval `-c`).
    pub complete: bool,
    /// Only the top this many documents of each topic count (trec_eval `-M`).
    pub max_docs: Option<usize>,
}

/// The scores of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEvaluation {
    /// The run tag.
    pub tag: String,
    /// Per evaluated topic (topic id order), one value per measure.
    pub topics: Vec<(String, Vec<f64>)>,
    /// One summary value per measure.
    pub summary: Vec<f64>,
    /// Problems that did not stop the evaluation.
    pub warnings: Vec<Warning>,
}

/// Scores runs against one qrels; the qrels are prepared once and reused for every run.
#[derive(Debug)]
pub struct Evaluator<'q> {
    qrels: &'q Qrels,
    counts: BTreeMap<&'q str, GradeCounts>,
    options: EvalOptions,
}

impl<'q> Evaluator<'q> {
    /// Prepares `qrels` for evaluation.
    pub fn new(qrels: &'q Qrels, options: EvalOptions) -> Self {
        let counts = qrels
            .topics
            .iter()
            .map(|(topic, judgments)| (&**topic, GradeCounts::of_topic(judgments)))
            .collect();
        Self {
            qrels,
            counts,
            options,
        }
    }

    /// The options in force.
    pub fn options(&self) -> &EvalOptions {
        &self.options
    }

    /// Scores one run.
    pub fn evaluate(&self, run: &Run) -> RunEvaluation {
        let mut warnings = Vec::new();
        for ranking in &run.topics {
            if self.qrels.topic(&ranking.topic).is_none() {
                warnings.push(Warning::TopicNotJudged {
                    run: run.tag.clone(),
                    topic: ranking.topic.to_string(),
                });
            }
        }
        let mut grades = Vec::new();
        let mut topics = Vec::new();
        for (topic, judgments) in &self.qrels.topics {
            let docs = match run.topic(topic) {
                Some(ranking) => &ranking.docs[..],
                None if self.options.complete => &[],
                None => continue,
            };
            let depth = self.options.max_docs.unwrap_or(usize::MAX).min(docs.len());
            ranking::lookup_grades(
                docs[..depth].iter().map(|doc| &*doc.docid),
                judgments,
                &mut grades,
            );
            let ranking = JudgedRanking {
                grades: &grades,
                counts: &self.counts[&**topic],
            };
            topics.push((topic.to_string(), self.score_topic(&ranking)));
        }
        if topics.is_empty() {
            warnings.push(Warning::NoCommonTopic {
                run: run.tag.clone(),
            });
        }
        let summary = summarize(&self.options.measures, topics.iter().map(|(_, v)| &v[..]));
        RunEvaluation {
            tag: run.tag.clone(),
            topics,
            summary,
            warnings,
        }
    }

    /// Scores every measure on one judged ranking.
    pub fn score_topic(&self, ranking: &JudgedRanking) -> Vec<f64> {
        score_topic(
            &self.options.measures,
            ranking,
            self.options.relevance_level,
        )
    }
}

/// Scores `measures` on one judged ranking; the condensed ones (`judged_only`) on the ranking
/// without its unjudged documents (no grade, or a negative one, as trec_eval's `-J`).
pub fn score_topic(
    measures: &[Measure],
    ranking: &JudgedRanking,
    relevance_level: Grade,
) -> Vec<f64> {
    let condensed_grades: Vec<Option<Grade>> = if measures.iter().any(|m| m.judged_only) {
        ranking.judged_grades().collect()
    } else {
        Vec::new()
    };
    let condensed = JudgedRanking {
        grades: &condensed_grades,
        counts: ranking.counts,
    };
    measures
        .iter()
        .map(|measure| {
            let ranking = if measure.judged_only {
                &condensed
            } else {
                ranking
            };
            let level = measure.relevance_level.unwrap_or(relevance_level);
            match measure.info().compute {
                Compute::Ranked(compute) => compute(ranking, measure.cutoff, level),
                Compute::Persistent(compute) => {
                    let persistence = measure
                        .persistence
                        .expect("a family that takes p always has one")
                        .value();
                    compute(ranking, measure.cutoff, level, persistence)
                }
            }
        })
        .collect()
}

/// Summarises per-topic values: the mean for measures, the sum for counts; 0 without topics.
pub fn summarize<'v>(
    measures: &[Measure],
    per_topic: impl Iterator<Item = &'v [f64]> + Clone,
) -> Vec<f64> {
    let topic_count = per_topic.clone().count();
    measures
        .iter()
        .enumerate()
        .map(|(index, measure)| {
            let total: f64 = per_topic.clone().map(|values| values[index]).sum();
            if measure.info().is_count || topic_count == 0 {
                total
            } else {
                total / topic_count as f64
            }
        })
        .collect()
}

/// Scores every run in parallel; results keep the runs' order.
pub fn evaluate_runs(evaluator: &Evaluator, runs: &[Run]) -> Vec<RunEvaluation> {
    use rayon::prelude::*;
    runs.par_iter().map(|run| evaluator.evaluate(run)).collect()
}
