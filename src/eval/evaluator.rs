//! Scoring runs against one qrels: the options, the evaluator that prepares the qrels once,
//! a run's per-topic and summary values, and the scoring of every run in parallel.

use std::collections::BTreeMap;

use crate::base::error::Warning;
use crate::base::Grade;
use crate::eval::family::Summary;
use crate::eval::measure::Measure;
use crate::eval::measures::contract::MeasureArgs;
use crate::eval::ranking::{self, GradeCounts, JudgedRanking};
use crate::io::qrels::Qrels;
use crate::io::run::Run;

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
    /// Also give each topic the grades of its top this many documents (trec_eval's
    /// `relstring`), if any.
    pub relstring: Option<usize>,
}

/// trec_eval's options about documents outside the judgments: `-J` and `-N`. Their defaults are
/// trec_eval's: every retrieved document counts, and the collection holds none beyond them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Collection {
    /// Drop the documents without a grade >= 0 from every ranking before scoring (trec_eval
    /// `-J`), for every measure and for `relstring`.
    pub judged_docs_only: bool,
    /// The number of documents in the collection (trec_eval `-N`), which `utility`'s fourth
    /// coefficient multiplies.
    pub documents: usize,
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
    /// Per evaluated topic, in the order of `topics`, trec_eval's `relstring` when asked: one
    /// character per top document, its grade (`>` above 9), `-` when the qrels lack it, `.` when
    /// they grade it negatively.
    pub relstrings: Vec<String>,
    /// Problems that did not stop the evaluation.
    pub warnings: Vec<Warning>,
}

/// Scores runs against one qrels; the qrels are prepared once and reused for every run.
#[derive(Debug)]
pub struct Evaluator<'q> {
    qrels: &'q Qrels,
    counts: BTreeMap<&'q str, GradeCounts>,
    options: EvalOptions,
    collection: Collection,
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
            collection: Collection::default(),
        }
    }

    /// This evaluator with trec_eval's `-J` and `-N` set as `collection` says.
    pub fn with_collection(self, collection: Collection) -> Self {
        Self { collection, ..self }
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
        let mut relstrings = Vec::new();
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
            if self.collection.judged_docs_only {
                grades.retain(|grade| matches!(grade, Some(g) if *g >= 0));
            }
            let ranking = JudgedRanking {
                grades: &grades,
                counts: &self.counts[&**topic],
            };
            topics.push((topic.to_string(), self.score_topic(&ranking)));
            if let Some(length) = self.options.relstring {
                relstrings.push(relstring(&grades, length));
            }
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
            relstrings,
            warnings,
        }
    }

    /// Scores every measure on one judged ranking.
    pub fn score_topic(&self, ranking: &JudgedRanking) -> Vec<f64> {
        score_topic_in_collection(
            &self.options.measures,
            ranking,
            self.options.relevance_level,
            self.collection.documents,
        )
    }
}

/// trec_eval's `relstring` of the top `length` grades.
fn relstring(grades: &[Option<Grade>], length: usize) -> String {
    grades
        .iter()
        .take(length)
        .map(|grade| match *grade {
            None => '-',
            Some(grade) if grade < 0 => '.',
            Some(grade) => char::from_digit(grade as u32, 10).unwrap_or('>'),
        })
        .collect()
}

/// Scores `measures` on one judged ranking; the condensed ones (`judged_only`) on the ranking
/// without its unjudged documents (no grade, or a negative one, as trec_eval's `-J`).
pub fn score_topic(
    measures: &[Measure],
    ranking: &JudgedRanking,
    relevance_level: Grade,
) -> Vec<f64> {
    score_topic_in_collection(measures, ranking, relevance_level, 0)
}

/// [`score_topic`] in a collection of `documents` documents (trec_eval's `-N`).
fn score_topic_in_collection(
    measures: &[Measure],
    ranking: &JudgedRanking,
    relevance_level: Grade,
    documents: usize,
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
            let args = MeasureArgs {
                cutoff: measure.cutoff,
                relevance_level: measure.relevance_level.unwrap_or(relevance_level),
                persistence: measure.persistence.map_or(0.0, |p| p.value()),
                params: measure.params,
                version: measure.version,
                documents_in_collection: documents,
            };
            (measure.info().compute)(ranking, &args)
        })
        .collect()
}

/// Summarises per-topic values: the mean for measures, the sum for counts, the geometric mean
/// for trec_eval's `gm_` measures (whose per-topic values are logarithms), the number of topics
/// for `num_q`; 0 without topics.
pub fn summarize<'v>(
    measures: &[Measure],
    per_topic: impl Iterator<Item = &'v [f64]> + Clone,
) -> Vec<f64> {
    let topic_count = per_topic.clone().count();
    measures
        .iter()
        .enumerate()
        .map(|(index, measure)| {
            let total: f64 = per_topic
                .clone()
                .map(|values| values[index])
                .fold(0.0, |total, value| total + value);
            if topic_count == 0 {
                return 0.0;
            }
            match measure.info().summary {
                Summary::Mean => total / topic_count as f64,
                Summary::Sum => total,
                Summary::GeometricMean => (total / topic_count as f64).exp(),
                Summary::TopicCount => topic_count as f64,
            }
        })
        .collect()
}

/// Scores every run in parallel; results keep the runs' order.
pub fn evaluate_runs(evaluator: &Evaluator, runs: &[Run]) -> Vec<RunEvaluation> {
    use rayon::prelude::*;
    runs.par_iter().map(|run| evaluator.evaluate(run)).collect()
}
