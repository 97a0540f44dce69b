//! `compare`: significance tests between runs scored on one qrels, on the per-topic scores
//! `eval -q` prints, every pair of runs or every run against a baseline.

use serde::{Deserialize, Serialize};

use crate::base::choice::choice_enum;
use crate::base::error::{Error, Result, Warning};
use crate::io::qrels::Qrels;
use crate::io::run::Run;
use crate::jobs::eval::{EvaluateOptions, EvaluationPlan, Listing};
use crate::report::compare::{Comparison, MeasureComparison, SettingsView};
use crate::stats::comparison::{compare_pairs, MeasureScores, SignificanceTest, TestSettings};
use crate::stats::correction::Correction;
use crate::stats::resampling::EXACT_RANDOMIZATION_MAX_TOPICS;
use crate::stats::significance::DEFAULT_RANDOMIZATION_PERMUTATIONS;

choice_enum! {
    /// Which topics the runs are compared on.
    pub enum TopicRule {
        /// Every qrels topic; a topic a run lacks scores 0 (trec_eval's `-c`).
        Qrels = "qrels",
        /// Only the qrels topics every run has.
        Common = "common",
    }
}

/// The options of `compare`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompareOptions {
    /// Measures in trec_eval or ir_measures spelling, each a list.
    pub measures: Vec<String>,
    /// A grade >= this counts as relevant for binary measures (trec_eval `-l`).
    pub relevance_level: i32,
    /// Which topics the runs are compared on.
    pub topics: TopicRule,
    /// The paired test.
    pub test: SignificanceTest,
    /// The correction over each measure's pairs (none with Tukey's test, its own).
    pub correction: Correction,
    /// A pair differs significantly when its adjusted p-value is below this, in (0, 1).
    pub alpha: f64,
    /// The run every other is compared with (by tag); every pair without one.
    pub baseline: Option<String>,
    /// Random samples of the randomization, bootstrap and Tukey tests.
    pub permutations: usize,
    /// The seed of their random streams.
    pub seed: u64,
}

impl Default for CompareOptions {
    fn default() -> Self {
        Self {
            measures: vec!["map".to_string()],
            relevance_level: 1,
            topics: TopicRule::Qrels,
            test: SignificanceTest::Student,
            correction: Correction::None,
            alpha: 0.05,
            baseline: None,
            permutations: DEFAULT_RANDOMIZATION_PERMUTATIONS,
            seed: 1,
        }
    }
}

/// A comparison checked before any input is read.
#[derive(Debug)]
pub struct ComparisonPlan {
    evaluation: EvaluationPlan,
    settings: TestSettings,
    topics: TopicRule,
    baseline: Option<String>,
}

/// Runs compared, and the problems that did not stop the evaluation.
#[derive(Debug)]
pub struct Compared {
    /// The comparison, ready to render.
    pub comparison: Comparison,
    /// The evaluation's warnings (a run topic missing from the qrels).
    pub warnings: Vec<Warning>,
}

impl CompareOptions {
    /// Checks the options.
    ///
    /// # Errors
    /// Unknown measures, an invalid relevance level, `alpha` outside (0, 1), no samples, and a
    /// correction with Tukey's test.
    pub fn plan(&self) -> Result<ComparisonPlan> {
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(Error::Invalid(format!(
                "expected alpha between 0 and 1, found {}",
                self.alpha
            )));
        }
        if self.permutations == 0 {
            return Err(Error::Invalid(
                "expected at least one permutation, found 0".to_string(),
            ));
        }
        if self.test == SignificanceTest::Tukey && self.correction != Correction::None {
            return Err(Error::Invalid(format!(
                "the tukey test corrects for all pairs itself; expected correction none, found {}",
                self.correction
            )));
        }
        let evaluation = EvaluateOptions {
            measures: self.measures.clone(),
            relevance_level: self.relevance_level,
            per_topic: true,
            complete: self.topics == TopicRule::Qrels,
            ..EvaluateOptions::default()
        }
        .plan(Listing::Scores)?;
        Ok(ComparisonPlan {
            evaluation,
            settings: TestSettings {
                test: self.test,
                correction: self.correction,
                alpha: self.alpha,
                permutations: self.permutations,
                seed: self.seed,
            },
            topics: self.topics,
            baseline: self.baseline.clone(),
        })
    }
}

impl ComparisonPlan {
    /// Scores `runs` against `qrels` and compares them. Runs on the current rayon pool.
    ///
    /// # Errors
    /// Fewer than 2 runs, a baseline not among the runs, two runs with one tag, and fewer than
    /// 2 topics in common.
    pub fn compare(self, qrels: &Qrels, runs: &[Run]) -> Result<Compared> {
        let tags: Vec<String> = runs.iter().map(|run| run.tag.clone()).collect();
        if tags.len() < 2 {
            return Err(Error::Invalid(format!(
                "expected at least 2 runs to compare, found {}",
                tags.len()
            )));
        }
        let baseline = match &self.baseline {
            Some(baseline) => {
                Some(tags.iter().position(|tag| tag == baseline).ok_or_else(|| {
                    Error::Invalid(format!(
                        "the baseline {baseline:?} is not among the runs ({})",
                        tags.join(", ")
                    ))
                })?)
            }
            None => None,
        };
        let evaluated = self.evaluation.evaluate(qrels, runs)?;
        let topics = common_topics(&evaluated.evaluations);
        if topics.len() < 2 {
            return Err(Error::Invalid(format!(
                "expected at least 2 topics every run has, found {}",
                topics.len()
            )));
        }
        let pairs: Vec<(usize, usize)> = match baseline {
            Some(baseline) => (0..tags.len())
                .filter(|&run| run != baseline)
                .map(|run| (run, baseline))
                .collect(),
            None => (0..tags.len())
                .flat_map(|first| (first + 1..tags.len()).map(move |second| (first, second)))
                .collect(),
        };
        let mut notes = test_notes(self.settings.test, topics.len());
        let mut measures = Vec::new();
        for (position, measure) in evaluated.selection.measures.iter().enumerate() {
            let measure = measure.to_string();
            let scores: Vec<Vec<f64>> = (evaluated.evaluations.iter())
                .map(|evaluation| {
                    (evaluation.topics.iter())
                        .filter(|(topic, _)| topics.binary_search(topic).is_ok())
                        .map(|(_, values)| values[position])
                        .collect()
                })
                .collect();
            let measure_scores = MeasureScores {
                measure: &measure,
                runs: &tags,
                scores: &scores,
            };
            let compared = compare_pairs(measure_scores, &pairs, &self.settings)?;
            for pair in compared.iter().filter(|pair| pair.effect_size.is_none()) {
                let (first, second) = (&tags[pair.first], &tags[pair.second]);
                notes.push(if pair.mean_difference == 0.0 {
                    format!(
                        "{first} and {second} score the same on every topic of {measure}: \
                         p = 1, no effect size"
                    )
                } else {
                    format!(
                        "{first} and {second} differ by the same amount on every topic of \
                         {measure}: no effect size"
                    )
                });
            }
            let means = (scores.iter())
                .map(|run| run.iter().sum::<f64>() / run.len() as f64)
                .collect();
            measures.push(MeasureComparison {
                measure,
                means,
                pairs: compared,
            });
        }
        let warnings = (evaluated.evaluations.into_iter())
            .flat_map(|evaluation| evaluation.warnings)
            .collect();
        Ok(Compared {
            comparison: Comparison {
                settings: SettingsView::from(&self.settings),
                runs: tags,
                baseline: self.baseline,
                topics: topics.len(),
                missing_topics_score_zero: self.topics == TopicRule::Qrels,
                measures,
                notes,
            },
            warnings,
        })
    }
}

/// The notes `test` needs over `topics` topics.
fn test_notes(test: SignificanceTest, topics: usize) -> Vec<String> {
    match test {
        SignificanceTest::Randomization if topics <= EXACT_RANDOMIZATION_MAX_TOPICS => {
            vec![format!(
                "exact p-values: all {} sign flips",
                1usize << topics
            )]
        }
        SignificanceTest::Tukey => vec![
            "Tukey's HSD test covers all runs at once: its p-values are family-wise".to_string(),
        ],
        _ => Vec::new(),
    }
}

/// The topics every evaluation scored, sorted.
fn common_topics(evaluations: &[crate::eval::RunEvaluation]) -> Vec<String> {
    let mut topics: Vec<String> = (evaluations.first().into_iter())
        .flat_map(|evaluation| evaluation.topics.iter().map(|(topic, _)| topic.clone()))
        .collect();
    for evaluation in evaluations.iter().skip(1) {
        topics.retain(|topic| evaluation.topics.iter().any(|(other, _)| other == topic));
    }
    topics.sort();
    topics
}
