//! The audit of a new run (DESIGN section 8): does an existing collection score it fairly, and
//! if not, which documents should be judged?
//!
//! This module owns the audit's figures and rules; it reads the task through
//! [`crate::judge::collection::Collection`], scores with [`crate::eval::score_topic`] (no measure
//! is re-implemented here) and compares with a leave-team-out study ([`crate::sim::study`] or the
//! `runs.tsv` of an earlier `simulate`). It never prints: [`audit_run`] returns an
//! [`AuditReport`] and warnings; [`write_markdown`] and serde render it.
//!
//! # The rules
//!
//! - **Topics**: the run is audited on the topics in both the run and the task's qrels (as
//!   `eval` scores it). No common topic is an error naming the run file; qrels topics the run
//!   lacks give a [`Warning::TopicsMissing`]. A run whose tag is a task run's gives a
//!   [`Warning::RunInTask`] saying whether it was pooled; it then replaces that run.
//! - **Unjudged documents**: documents of the run's top [`AUDIT_DEPTH`] that the qrels do not
//!   judge (a negative grade counts as judged, as in `judged_k`). Deeper documents count as
//!   non-relevant in every figure. Coverage per topic and overall: `judged_10`, `judged_20`,
//!   `judged_100`, `unj_10`, and the unjudged counts in the top 10, 20 and 100.
//! - **Probability of relevance** (grade >= relevance_level): the calibrated logistic judge
//!   model of [`model`] (alpha [`model::AUDIT_ALPHA`]), trained per topic on the official
//!   qrels plus presumed non-relevant unjudged documents, with cross-fitting. Features: text
//!   (alone) when the task has a corpus and
//!   topic texts (else run features); the audited run is added to the task (as a non-pooled
//!   run of team `(audited)`) so its documents have text vectors and it has its own run feature.
//! - **Score interval** per measure: `lower` = every unjudged document non-relevant (the score
//!   the collection gives, as `eval`); `upper` = every unjudged document of the top
//!   [`AUDIT_DEPTH`] relevant with the topic's highest official grade (at least the relevance
//!   level), added to the topic's judgments, so R (MAP) and the ideal ranking (nDCG) grow too.
//!   For P@k this is the true maximum; for nDCG the highest grade is the largest gain; MAP is not
//!   monotone in adding relevant documents (a deep one can lower it), so for MAP the two ends are
//!   the two extreme scenarios. A measure with cutoff k considers only the unjudged documents
//!   of the top min(k, [`AUDIT_DEPTH`]) (for the upper end and the expectation alike): a
//!   relevant document below the cutoff adds nothing to P@k or DCG@k but would raise the
//!   ideal, and unjudged relevant documents outside the run cannot be bounded by an audit of
//!   the run. Reported per topic and as the mean over topics.
//! - **Expected score**: Monte-Carlo over the unjudged documents, [`SAMPLES`] samples per topic
//!   from a ChaCha8 stream seeded by ([`AUDIT_SEED`], topic) with the crate's mixing function:
//!   each unjudged document is relevant with its probability, and a relevant one gets a grade
//!   drawn from the topic's officially relevant grades (the relevance level if it has none).
//!   The expected score is the mean over samples; `sample_low`/`sample_high` are the 5% and 95%
//!   quantiles of the per-sample mean over topics (a central 90% interval).
//! - **Rank interval** among the task's other runs, on their official scores: the rank of a
//!   score s is 1 + #(runs scoring more) + #(runs scoring exactly s)/2 (average rank for ties);
//!   best = the rank of the higher end of the interval, worst = of the lower end.
//! - **Study**: from `--results DIR` (`runs.tsv` of `reusesim simulate`) or a short study on the
//!   spot ([`SPOT_STUDY_SEEDS`] seeds, [`SPOT_STUDY_ITERATIONS`] Pegasos iterations), skipped when
//!   it would exceed [`MAX_SPOT_STUDY_UNITS`] (trial, topic) units. Per measure, over the pooled
//!   runs: the largest rank drop (worst LOU rank − official rank) and the largest score drop
//!   (official − lowest LOU score).
//! - **Verdict**: a measure is *at risk* when its rank interval has width > 0 and its score
//!   interval is wider than the study's largest score drop (0 without a study): the run's
//!   uncertainty then exceeds what pooled runs already suffer when their team is left out.
//!   The documents to judge are the unjudged documents within the deepest cutoff of the at-risk
//!   measures (no cutoff: [`AUDIT_DEPTH`]) whose probability is at least
//!   [`MIN_JUDGE_PROBABILITY`], in priority order: probability / log2(rank + 1) (expected
//!   discounted gain) descending, ties by topic id then rank; `--budget` keeps the first N. No
//!   such document: "no extra judgments needed"; else "judge N documents".

pub mod markdown;
pub mod model;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rand::Rng;
use rayon::prelude::*;
use serde::Serialize;

use crate::error::{Error, Result, Warning};
use crate::eval::{
    score_topic, EvalOptions, Evaluator, Family, GradeCounts, JudgedRanking, Measure,
};
use crate::io::qrels::Grade;
use crate::io::run::Run;
use crate::io::task::Task;
use crate::io::teams::TeamEntry;
use crate::judge::collection::{CandidateSource, Collection, DocId, FeatureChoice, TopicData};

pub use markdown::write_markdown;

/// How deep the audit looks into the run: unjudged documents beyond it count as non-relevant.
pub const AUDIT_DEPTH: usize = 100;

/// The measures audited when none is named.
pub const DEFAULT_AUDIT_MEASURES: &str = "map,P_10,ndcg_cut_10";

/// Monte-Carlo samples per topic for the expected score.
pub const SAMPLES: usize = 200;

/// The seed of the Monte-Carlo streams (mixed with the topic id).
pub const AUDIT_SEED: u64 = 8;

/// The lowest probability of relevance for which a document is proposed for judging.
pub const MIN_JUDGE_PROBABILITY: f64 = 0.1;

/// Seeds of a study run on the spot.
pub const SPOT_STUDY_SEEDS: u64 = 2;

/// Pegasos iterations per retrain in a study run on the spot (HiCAL: 200,000).
pub const SPOT_STUDY_ITERATIONS: usize = 20_000;

/// The largest study (seeds × (held-out teams + 1) × topics units) run on the spot.
pub const MAX_SPOT_STUDY_UNITS: usize = 1_000;

/// The team name given to the audited run when it is added to the task.
pub const AUDITED_TEAM: &str = "(audited)";

/// Where the leave-team-out comparison comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum StudySource {
    /// `runs.tsv` in this folder (written by `reusesim simulate --out`).
    Results(PathBuf),
    /// A short study now, with this many seeds (skipped when too large).
    OnTheSpot {
        /// The number of seeds.
        seeds: u64,
    },
    /// No comparison.
    Skip,
}

/// What to audit and how.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditSettings {
    /// The measures to give intervals for.
    pub measures: Vec<Measure>,
    /// Text or run features (auto: text when the task has a corpus and topic texts).
    pub features: FeatureChoice,
    /// At most this many documents to judge.
    pub budget: Option<usize>,
    /// The leave-team-out comparison.
    pub study: StudySource,
}

/// Judgment coverage of a ranking's top.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Coverage {
    /// Judged fraction of the top 10 (`judged_10`).
    pub judged_10: f64,
    /// Judged fraction of the top 20.
    pub judged_20: f64,
    /// Judged fraction of the top 100.
    pub judged_100: f64,
    /// trec_eval's `unj_10`.
    pub unj_10: f64,
    /// Unjudged documents in the top 10 (a sum over topics in the overall figures).
    pub unjudged_10: usize,
    /// Unjudged documents in the top 20.
    pub unjudged_20: usize,
    /// Unjudged documents in the top 100.
    pub unjudged_100: usize,
}

/// One unjudged document of the run's top [`AUDIT_DEPTH`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnjudgedDoc {
    /// The document id.
    pub docid: String,
    /// Its 1-based rank in the run.
    pub rank: usize,
    /// Its probability of relevance.
    pub probability: f64,
}

/// One measure's figures on one topic, or overall.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreInterval {
    /// The measure (trec_eval spelling).
    pub measure: String,
    /// Every unjudged document non-relevant: the score the collection gives.
    pub lower: f64,
    /// Every unjudged document of the top [`AUDIT_DEPTH`] relevant at the highest grade.
    pub upper: f64,
    /// The Monte-Carlo expectation.
    pub expected: f64,
    /// The 5% quantile of the sampled scores.
    pub sample_low: f64,
    /// The 95% quantile of the sampled scores.
    pub sample_high: f64,
}

/// The audit of one topic.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopicAudit {
    /// The topic id.
    pub topic: String,
    /// Coverage of the run's top.
    pub coverage: Coverage,
    /// Whether the judge model could be fitted (the topic has relevant and non-relevant
    /// documents); if not, probabilities are the judged relevant fraction.
    pub is_model_fitted: bool,
    /// The unjudged documents of the top [`AUDIT_DEPTH`], in rank order.
    pub unjudged: Vec<UnjudgedDoc>,
    /// One interval per measure.
    pub scores: Vec<ScoreInterval>,
}

/// The overall figures of one measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasureAudit {
    /// Score interval and expectation (means over topics).
    #[serde(flatten)]
    pub score: ScoreInterval,
    /// Rank among the task's other runs at the upper end of the interval.
    pub rank_best: f64,
    /// Rank at the lower end.
    pub rank_worst: f64,
    /// Rank at the expected score.
    pub rank_expected: f64,
    /// The number of runs ranked (the task's runs other than the audited one, plus it).
    pub runs_ranked: usize,
    /// The study's largest score drop of a pooled run for this measure, if known.
    pub lou_max_score_drop: Option<f64>,
    /// Whether the measure is at risk (see the module docs).
    pub is_at_risk: bool,
}

/// The leave-team-out figures of one measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LouDrop {
    /// The measure.
    pub measure: String,
    /// The largest rank drop of a pooled run when its team was left out.
    pub max_rank_drop: f64,
    /// The run of that drop.
    pub max_rank_drop_run: String,
    /// The largest score drop (official − lowest LOU score).
    pub max_score_drop: f64,
    /// The run of that drop.
    pub max_score_drop_run: String,
    /// The number of pooled runs compared.
    pub pooled_runs: usize,
}

/// The leave-team-out comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StudyComparison {
    /// Where the figures come from, or why there are none.
    pub source: String,
    /// Per audited measure the study has.
    pub measures: Vec<LouDrop>,
}

/// One document to judge.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolEntry {
    /// The topic id.
    pub topic: String,
    /// The document id.
    pub docid: String,
    /// Its rank in the run.
    pub rank: usize,
    /// Its probability of relevance.
    pub probability: f64,
    /// probability / log2(rank + 1).
    pub priority: f64,
}

/// The settings in force, for the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditSettingsSummary {
    /// `text` or `runs`.
    pub features: String,
    /// A grade >= this is relevant.
    pub relevance_level: Grade,
    /// [`AUDIT_DEPTH`].
    pub depth: usize,
    /// [`model::AUDIT_ALPHA`].
    pub alpha: f64,
    /// [`model::FOLDS`].
    pub folds: u64,
    /// [`SAMPLES`].
    pub samples: usize,
    /// [`AUDIT_SEED`].
    pub seed: u64,
    /// [`MIN_JUDGE_PROBABILITY`].
    pub min_judge_probability: f64,
    /// The budget, if any.
    pub budget: Option<usize>,
}

/// Everything the audit found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    /// The one-line verdict.
    pub verdict: String,
    /// The task's name.
    pub task: String,
    /// The audited run's tag.
    pub run: String,
    /// The run file.
    pub run_file: String,
    /// Whether a task run carries the same tag, and whether it was pooled.
    pub in_task: Option<bool>,
    /// The settings.
    pub settings: AuditSettingsSummary,
    /// The topics audited.
    pub topics_audited: usize,
    /// Coverage over all audited topics (means; counts summed).
    pub coverage: Coverage,
    /// Per measure.
    pub measures: Vec<MeasureAudit>,
    /// The leave-team-out comparison.
    pub study: StudyComparison,
    /// The documents proposed for judging before the budget cap.
    pub candidates: usize,
    /// The documents to judge, in priority order (budget applied).
    pub to_judge: Vec<PoolEntry>,
    /// Per topic.
    pub topics: Vec<TopicAudit>,
    /// Wall time.
    pub elapsed_seconds: f64,
}

/// The coverage measures, in [`Coverage`]'s order.
fn coverage_measures() -> [Measure; 4] {
    [
        Measure::new(Family::Judged, Some(10)),
        Measure::new(Family::Judged, Some(20)),
        Measure::new(Family::Judged, Some(100)),
        Measure::new(Family::Unjudged, Some(10)),
    ]
}

/// The topic and run checks: the topics to audit, and warnings.
fn check_topics(task: &Task, run: &Run, warnings: &mut Vec<Warning>) -> Result<()> {
    let judged: BTreeSet<&str> = task.qrels.topics.keys().map(|t| &**t).collect();
    let ranked: BTreeSet<&str> = run.topics.iter().map(|t| &*t.topic).collect();
    if judged.is_disjoint(&ranked) {
        return Err(Error::Invalid(format!(
            "{}: run {:?} has no topic in common with the qrels of task {} (run topics: {}; \
             qrels topics: {})",
            run.path.display(),
            run.tag,
            task.manifest.name,
            abbreviated(&ranked),
            abbreviated(&judged)
        )));
    }
    let missing: Vec<String> = judged.difference(&ranked).map(|t| t.to_string()).collect();
    if !missing.is_empty() {
        warnings.push(Warning::TopicsMissing {
            run: run.tag.clone(),
            topics: missing,
        });
    }
    for topic in ranked.difference(&judged) {
        warnings.push(Warning::TopicNotJudged {
            run: run.tag.clone(),
            topic: topic.to_string(),
        });
    }
    Ok(())
}

fn abbreviated(ids: &BTreeSet<&str>) -> String {
    const SHOWN: usize = 5;
    let mut text: Vec<&str> = ids.iter().copied().take(SHOWN).collect();
    if ids.len() > SHOWN {
        text.push("...");
    }
    text.join(" ")
}

/// The task with the audited run in it (replacing a run of the same tag), and the run's index.
fn with_audited_run(mut task: Task, run: Run) -> (Task, usize) {
    if let Some(pos) = task.runs.iter().position(|r| r.tag == run.tag) {
        task.runs[pos] = run;
        (task, pos)
    } else {
        task.teams.runs.insert(
            run.tag.clone(),
            TeamEntry {
                team: AUDITED_TEAM.to_string(),
                is_pooled: false,
            },
        );
        task.runs.push(run);
        let pos = task.runs.len() - 1;
        (task, pos)
    }
}

/// What one topic yields before aggregation.
struct TopicOutcome {
    audit: TopicAudit,
    /// samples[sample][measure]
    samples: Vec<Vec<f64>>,
}

/// Audits `run` against `task`.
///
/// # Errors
/// [`Error::Invalid`] when the run shares no topic with the qrels, or features cannot be
/// built; corpus, study and learner errors.
pub fn audit_run(
    task: Task,
    run: Run,
    settings: &AuditSettings,
) -> Result<(AuditReport, Vec<Warning>)> {
    let started = std::time::Instant::now();
    let mut warnings = Vec::new();
    check_topics(&task, &run, &mut warnings)?;
    let in_task = task.teams.get(&run.tag).map(|entry| entry.is_pooled);
    if let Some(is_pooled) = in_task {
        warnings.push(Warning::RunInTask {
            run: run.tag.clone(),
            is_pooled,
        });
    }
    let run_file = run.path.display().to_string();
    let run_tag = run.tag.clone();
    let (task, run_index) = with_audited_run(task, run);
    let use_text =
        crate::judge::resolve_features(&task, settings.features, CandidateSource::Retrieved)?;
    let collection = Collection::prepare(&task, &task.qrels, use_text)?;
    let (collection, study) = compare_with_study(&task, collection, settings, use_text, &run_tag)?;

    let topic_outcomes: Vec<TopicOutcome> = collection
        .topics
        .par_iter()
        .filter(|topic| !topic.rankings[run_index].is_empty())
        .map(|topic| audit_topic(&collection, topic, run_index, &settings.measures))
        .collect::<Result<Vec<_>>>()?;

    // Official scores of the other runs, for ranks.
    let evaluator = Evaluator::new(
        &task.qrels,
        EvalOptions {
            measures: settings.measures.clone(),
            relevance_level: task.manifest.relevance_level,
            complete: false,
            max_docs: None,
        },
    );
    let others: Vec<Vec<f64>> = task
        .runs
        .par_iter()
        .enumerate()
        .filter(|&(pos, _)| pos != run_index)
        .map(|(_, other)| evaluator.evaluate(other).summary)
        .collect();

    let topic_count = topic_outcomes.len();
    let mean = |values: &mut dyn Iterator<Item = f64>| values.sum::<f64>() / topic_count as f64;
    let coverage = Coverage {
        judged_10: mean(&mut topic_outcomes.iter().map(|t| t.audit.coverage.judged_10)),
        judged_20: mean(&mut topic_outcomes.iter().map(|t| t.audit.coverage.judged_20)),
        judged_100: mean(&mut topic_outcomes.iter().map(|t| t.audit.coverage.judged_100)),
        unj_10: mean(&mut topic_outcomes.iter().map(|t| t.audit.coverage.unj_10)),
        unjudged_10: topic_outcomes
            .iter()
            .map(|t| t.audit.coverage.unjudged_10)
            .sum(),
        unjudged_20: topic_outcomes
            .iter()
            .map(|t| t.audit.coverage.unjudged_20)
            .sum(),
        unjudged_100: topic_outcomes
            .iter()
            .map(|t| t.audit.coverage.unjudged_100)
            .sum(),
    };
    let mut measures = Vec::new();
    for (index, measure) in settings.measures.iter().enumerate() {
        let lower = mean(&mut topic_outcomes.iter().map(|t| t.audit.scores[index].lower));
        let upper = mean(&mut topic_outcomes.iter().map(|t| t.audit.scores[index].upper));
        let expected = mean(
            &mut topic_outcomes
                .iter()
                .map(|t| t.audit.scores[index].expected),
        );
        let mut sampled: Vec<f64> = (0..SAMPLES)
            .map(|sample| mean(&mut topic_outcomes.iter().map(|t| t.samples[sample][index])))
            .collect();
        sampled.sort_by(f64::total_cmp);
        let other_scores: Vec<f64> = others.iter().map(|scores| scores[index]).collect();
        let lou_max_score_drop = study
            .measures
            .iter()
            .find(|drop| drop.measure == measure.to_string())
            .map(|drop| drop.max_score_drop);
        let rank_best = rank_among(&other_scores, lower.max(upper));
        let rank_worst = rank_among(&other_scores, lower.min(upper));
        let is_at_risk =
            rank_worst > rank_best && (upper - lower).abs() > lou_max_score_drop.unwrap_or(0.0);
        measures.push(MeasureAudit {
            score: ScoreInterval {
                measure: measure.to_string(),
                lower,
                upper,
                expected,
                sample_low: quantile(&sampled, 0.05),
                sample_high: quantile(&sampled, 0.95),
            },
            rank_best,
            rank_worst,
            rank_expected: rank_among(&other_scores, expected),
            runs_ranked: other_scores.len() + 1,
            lou_max_score_drop,
            is_at_risk,
        });
    }
    let judging_depth = settings
        .measures
        .iter()
        .zip(&measures)
        .filter(|(_, audit)| audit.is_at_risk)
        .map(|(measure, _)| measure_depth(measure))
        .max();
    let mut candidates: Vec<PoolEntry> = match judging_depth {
        None => Vec::new(),
        Some(depth) => topic_outcomes
            .iter()
            .flat_map(|t| {
                t.audit
                    .unjudged
                    .iter()
                    .filter(move |doc| {
                        doc.rank <= depth && doc.probability >= MIN_JUDGE_PROBABILITY
                    })
                    .map(|doc| PoolEntry {
                        topic: t.audit.topic.clone(),
                        docid: doc.docid.clone(),
                        rank: doc.rank,
                        probability: doc.probability,
                        priority: doc.probability / ((doc.rank + 1) as f64).log2(),
                    })
            })
            .collect(),
    };
    candidates.sort_by(|a, b| {
        b.priority
            .total_cmp(&a.priority)
            .then_with(|| a.topic.cmp(&b.topic))
            .then_with(|| a.rank.cmp(&b.rank))
    });
    let candidate_count = candidates.len();
    if let Some(budget) = settings.budget {
        candidates.truncate(budget);
    }
    let verdict = match candidates.len() {
        0 => "no extra judgments needed".to_string(),
        1 => "judge 1 document".to_string(),
        count => format!("judge {count} documents"),
    };
    let report = AuditReport {
        verdict,
        task: task.manifest.name.clone(),
        run: run_tag,
        run_file,
        in_task,
        settings: AuditSettingsSummary {
            features: if use_text { "text" } else { "runs" }.to_string(),
            relevance_level: task.manifest.relevance_level,
            depth: AUDIT_DEPTH,
            alpha: model::AUDIT_ALPHA,
            folds: model::FOLDS,
            samples: SAMPLES,
            seed: AUDIT_SEED,
            min_judge_probability: MIN_JUDGE_PROBABILITY,
            budget: settings.budget,
        },
        topics_audited: topic_count,
        coverage,
        measures,
        study,
        candidates: candidate_count,
        to_judge: candidates,
        topics: topic_outcomes.into_iter().map(|t| t.audit).collect(),
        elapsed_seconds: started.elapsed().as_secs_f64(),
    };
    Ok((report, warnings))
}

/// The rank a run scoring `score` would have among runs scoring `others` (1 = best; ties
/// share the average rank).
pub fn rank_among(others: &[f64], score: f64) -> f64 {
    let better = others.iter().filter(|&&o| o > score).count();
    let tied = others.iter().filter(|&&o| o == score).count();
    1.0 + better as f64 + tied as f64 / 2.0
}

/// The depth whose unjudged documents a measure's interval and expectation consider: its
/// cutoff, at most [`AUDIT_DEPTH`].
pub fn measure_depth(measure: &Measure) -> usize {
    measure.cutoff.unwrap_or(AUDIT_DEPTH).min(AUDIT_DEPTH)
}

/// The `q` quantile of sorted values (nearest rank); 0 when empty.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Audits the run on one topic: coverage, probabilities, intervals and samples.
fn audit_topic(
    collection: &Collection,
    topic: &TopicData,
    run_index: usize,
    measures: &[Measure],
) -> Result<TopicOutcome> {
    let relevance_level = collection.relevance_level;
    let ranking = &topic.rankings[run_index];
    let grades: Vec<Option<Grade>> = ranking
        .iter()
        .map(|doc| topic.grades.get(doc).copied())
        .collect();
    let judged_grades: Vec<Grade> = {
        let mut all: Vec<(DocId, Grade)> = topic.grades.iter().map(|(&d, &g)| (d, g)).collect();
        all.sort_unstable();
        all.into_iter().map(|(_, g)| g).collect()
    };
    let counts = GradeCounts::from_grades(judged_grades.iter().copied());
    let base = JudgedRanking {
        grades: &grades,
        counts: &counts,
    };
    let coverage_values = score_topic(&coverage_measures(), &base, relevance_level);
    let unjudged_positions: Vec<usize> = (0..ranking.len().min(AUDIT_DEPTH))
        .filter(|&pos| grades[pos].is_none())
        .collect();
    let unjudged_within = |depth: usize| unjudged_positions.iter().filter(|&&p| p < depth).count();
    let coverage = Coverage {
        judged_10: coverage_values[0],
        judged_20: coverage_values[1],
        judged_100: coverage_values[2],
        unj_10: coverage_values[3],
        unjudged_10: unjudged_within(10),
        unjudged_20: unjudged_within(20),
        unjudged_100: unjudged_within(100),
    };

    // Presumed non-relevant: unjudged documents of any run's top AUDIT_DEPTH.
    let mut presumed: Vec<DocId> = topic
        .rankings
        .iter()
        .flat_map(|r| r.iter().take(AUDIT_DEPTH).copied())
        .filter(|doc| !topic.grades.contains_key(doc))
        .collect();
    presumed.sort_unstable();
    presumed.dedup();
    let wanted: Vec<DocId> = unjudged_positions.iter().map(|&p| ranking[p]).collect();
    let fitted = model::topic_probabilities(collection, topic, &presumed, &wanted)?;
    let probabilities = fitted.probabilities;

    let lower = score_topic(measures, &base, relevance_level);
    let relevant_grades: Vec<Grade> = judged_grades
        .iter()
        .copied()
        .filter(|&g| crate::eval::ranking::is_relevant_grade(g, relevance_level))
        .collect();
    let top_grade = relevant_grades
        .iter()
        .copied()
        .max()
        .unwrap_or(relevance_level)
        .max(relevance_level);
    // Measures grouped by the depth whose unjudged documents they consider.
    let mut depths: Vec<usize> = measures.iter().map(measure_depth).collect();
    depths.sort_unstable();
    depths.dedup();
    let groups: Vec<(usize, Vec<usize>)> = depths
        .iter()
        .map(|&depth| {
            let members = (0..measures.len())
                .filter(|&index| measure_depth(&measures[index]) == depth)
                .collect();
            (depth, members)
        })
        .collect();
    let mut scenario = grades.clone();
    let mut added: Vec<Grade> = Vec::new();
    // Scores `measures` with the unjudged documents above `depth` given `drawn` grades.
    let mut score_scenario = |drawn: &[Option<Grade>], out: &mut Vec<f64>| {
        out.clear();
        out.resize(measures.len(), 0.0);
        for (depth, members) in &groups {
            scenario.copy_from_slice(&grades);
            added.clear();
            for (&pos, &grade) in unjudged_positions.iter().zip(drawn) {
                if let (true, Some(grade)) = (pos < *depth, grade) {
                    scenario[pos] = Some(grade);
                    added.push(grade);
                }
            }
            let scenario_counts = if added.is_empty() {
                counts.clone()
            } else {
                GradeCounts::from_grades(judged_grades.iter().chain(&added).copied())
            };
            let group: Vec<Measure> = members.iter().map(|&index| measures[index]).collect();
            let values = score_topic(
                &group,
                &JudgedRanking {
                    grades: &scenario,
                    counts: &scenario_counts,
                },
                relevance_level,
            );
            for (&index, value) in members.iter().zip(values) {
                out[index] = value;
            }
        }
    };
    let mut upper = Vec::new();
    score_scenario(&vec![Some(top_grade); unjudged_positions.len()], &mut upper);

    let mut rng = crate::sim::seed::topic_rng(AUDIT_SEED, &topic.id);
    let mut samples = Vec::with_capacity(SAMPLES);
    let mut drawn: Vec<Option<Grade>> = vec![None; unjudged_positions.len()];
    for _ in 0..SAMPLES {
        for (slot, &probability) in drawn.iter_mut().zip(&probabilities) {
            *slot = (rng.random::<f64>() < probability).then(|| {
                if relevant_grades.is_empty() {
                    relevance_level
                } else {
                    relevant_grades[rng.random_range(0..relevant_grades.len())]
                }
            });
        }
        let mut values = Vec::new();
        score_scenario(&drawn, &mut values);
        samples.push(values);
    }
    let scores = measures
        .iter()
        .enumerate()
        .map(|(index, measure)| {
            let mut sampled: Vec<f64> = samples.iter().map(|s| s[index]).collect();
            let expected = sampled.iter().sum::<f64>() / SAMPLES as f64;
            sampled.sort_by(f64::total_cmp);
            ScoreInterval {
                measure: measure.to_string(),
                lower: lower[index],
                upper: upper[index],
                expected,
                sample_low: quantile(&sampled, 0.05),
                sample_high: quantile(&sampled, 0.95),
            }
        })
        .collect();
    let unjudged = unjudged_positions
        .iter()
        .zip(&probabilities)
        .map(|(&pos, &probability)| UnjudgedDoc {
            docid: collection.docs.name(ranking[pos]).to_string(),
            rank: pos + 1,
            probability,
        })
        .collect();
    Ok(TopicOutcome {
        audit: TopicAudit {
            topic: topic.id.clone(),
            coverage,
            is_model_fitted: fitted.is_fitted,
            unjudged,
            scores,
        },
        samples,
    })
}

/// The leave-team-out comparison, from `runs.tsv` or a short study; gives the collection back.
fn compare_with_study(
    task: &Task,
    collection: Collection,
    settings: &AuditSettings,
    use_text: bool,
    audited_tag: &str,
) -> Result<(Collection, StudyComparison)> {
    let names: Vec<String> = settings.measures.iter().map(ToString::to_string).collect();
    match &settings.study {
        StudySource::Skip => Ok((
            collection,
            StudyComparison {
                source: "skipped (--study-seeds 0)".to_string(),
                measures: Vec::new(),
            },
        )),
        StudySource::Results(dir) => {
            let rows = read_runs_tsv(&dir.join("runs.tsv"))?;
            let measures = lou_drops(task, &rows, &names, audited_tag);
            Ok((
                collection,
                StudyComparison {
                    source: format!("{}", dir.join("runs.tsv").display()),
                    measures,
                },
            ))
        }
        StudySource::OnTheSpot { seeds } => {
            use crate::sim::study::{held_out_teams, run_study, StudySettings};
            let held_out = held_out_teams(task, None)?;
            let units = *seeds as usize * (held_out.len() + 1) * collection.topics.len();
            if *seeds == 0 || units > MAX_SPOT_STUDY_UNITS {
                return Ok((
                    collection,
                    StudyComparison {
                        source: format!(
                            "skipped: a study of {units} (trial, topic) units is too long for an \
                             audit (limit {MAX_SPOT_STUDY_UNITS}); run `reusesim simulate` and \
                             pass --results DIR"
                        ),
                        measures: Vec::new(),
                    },
                ));
            }
            let judge = crate::judge::cal::JudgeSettings {
                seed: 0,
                learner: crate::judge::cal::LearnerChoice::Pegasos,
                iterations: SPOT_STUDY_ITERATIONS,
                precision: crate::judge::pegasos::Precision::default(),
                schedule: crate::judge::schedule::Schedule::Bmi,
                candidates: CandidateSource::Retrieved,
                pool_depth: task.pool_depth,
                random_negatives: crate::judge::cal::RANDOM_NEGATIVES,
            };
            let study_settings = StudySettings {
                seeds: *seeds,
                measures: settings.measures.clone(),
                teams: None,
                judge: judge.clone(),
                budget: None,
                keep_qrels: false,
            };
            let outcome = run_study(
                task,
                collection,
                &study_settings,
                held_out.clone(),
                &|_, _| {},
            )?;
            let summary_settings = crate::report::summary::SettingsSummary {
                seeds: *seeds,
                measures: names.clone(),
                held_out_teams: held_out,
                features: if use_text { "text" } else { "runs" }.to_string(),
                deviations: crate::report::summary::deviations(&judge, use_text, None),
                judge,
                budget: None,
                relevance_level: task.manifest.relevance_level,
            };
            let summary = crate::report::summary::StudySummary::new(
                &task.manifest.name,
                summary_settings,
                &outcome,
                0.0,
            );
            let rows: Vec<StudyRunRow> = summary
                .runs
                .iter()
                .map(|row| StudyRunRow {
                    run: row.run.clone(),
                    measure: row.measure.clone(),
                    official_score: row.official_score,
                    official_rank: row.official_rank,
                    lou_score_min: row.lou_score.min,
                    lou_rank_max: row.lou_rank.max,
                })
                .collect();
            let measures = lou_drops(task, &rows, &names, audited_tag);
            Ok((
                outcome.collection,
                StudyComparison {
                    source: format!(
                        "a study run on the spot: {seeds} seeds, {SPOT_STUDY_ITERATIONS} Pegasos \
                         iterations per retrain"
                    ),
                    measures,
                },
            ))
        }
    }
}

/// The columns of `runs.tsv` the audit reads.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyRunRow {
    /// The run.
    pub run: String,
    /// The measure.
    pub measure: String,
    /// Official score.
    pub official_score: f64,
    /// Official rank.
    pub official_rank: f64,
    /// Lowest LOU score over seeds.
    pub lou_score_min: f64,
    /// Worst LOU rank over seeds.
    pub lou_rank_max: f64,
}

/// Reads the columns the audit needs from a study's `runs.tsv`.
///
/// # Errors
/// A [`crate::ParseError`] naming the file and line for a missing file, column or number.
pub fn read_runs_tsv(path: &Path) -> Result<Vec<StudyRunRow>> {
    use crate::error::{ParseError, ParseErrorKind};
    let text = crate::io::gz::read_to_string(path)?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .ok_or_else(|| ParseError::file(path, ParseErrorKind::Empty))?
        .split('\t')
        .collect();
    let column = |name: &str| {
        header.iter().position(|h| *h == name).ok_or_else(|| {
            ParseError::new(
                path,
                1,
                ParseErrorKind::Invalid(format!(
                    "expected a column {name:?} (runs.tsv of `reusesim simulate`)"
                )),
            )
        })
    };
    let columns = [
        column("run")?,
        column("measure")?,
        column("official_score")?,
        column("official_rank")?,
        column("lou_score_min")?,
        column("lou_rank_max")?,
    ];
    let mut rows = Vec::new();
    for (index, line) in lines.enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let field = |pos: usize| {
            fields.get(columns[pos]).copied().ok_or_else(|| {
                ParseError::new(
                    path,
                    index + 2,
                    ParseErrorKind::Invalid(format!(
                        "expected {} columns, found {}",
                        header.len(),
                        fields.len()
                    )),
                )
            })
        };
        let number = |pos: usize| -> Result<f64> {
            let text = field(pos)?;
            text.parse::<f64>().map_err(|_| {
                ParseError::new(
                    path,
                    index + 2,
                    ParseErrorKind::Invalid(format!("expected a number, found {text:?}")),
                )
                .into()
            })
        };
        rows.push(StudyRunRow {
            run: field(0)?.to_string(),
            measure: field(1)?.to_string(),
            official_score: number(2)?,
            official_rank: number(3)?,
            lou_score_min: number(4)?,
            lou_rank_max: number(5)?,
        });
    }
    Ok(rows)
}

/// Per measure in `names`, the largest rank and score drops of the task's pooled runs.
fn lou_drops(
    task: &Task,
    rows: &[StudyRunRow],
    names: &[String],
    audited_tag: &str,
) -> Vec<LouDrop> {
    names
        .iter()
        .filter_map(|name| {
            let pooled: Vec<&StudyRunRow> = rows
                .iter()
                .filter(|row| &row.measure == name && row.run != audited_tag)
                .filter(|row| task.teams.get(&row.run).is_some_and(|e| e.is_pooled))
                .collect();
            let rank_drop = pooled
                .iter()
                .map(|row| (row.lou_rank_max - row.official_rank, &row.run))
                .max_by(|a, b| a.0.total_cmp(&b.0))?;
            let score_drop = pooled
                .iter()
                .map(|row| (row.official_score - row.lou_score_min, &row.run))
                .max_by(|a, b| a.0.total_cmp(&b.0))?;
            Some(LouDrop {
                measure: name.clone(),
                max_rank_drop: rank_drop.0.max(0.0),
                max_rank_drop_run: rank_drop.1.clone(),
                max_score_drop: score_drop.0.max(0.0),
                max_score_drop_run: score_drop.1.clone(),
                pooled_runs: pooled.len(),
            })
        })
        .collect()
}

/// Writes `qid docid probability` lines in priority order.
///
/// # Errors
/// When writing fails.
pub fn write_pool(out: &mut dyn std::io::Write, entries: &[PoolEntry]) -> std::io::Result<()> {
    for entry in entries {
        writeln!(
            out,
            "{} {} {:.6}",
            entry.topic, entry.docid, entry.probability
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_share_ties_and_count_better_runs() {
        let others = [0.5, 0.3, 0.3, 0.1];
        assert_eq!(rank_among(&others, 0.6), 1.0);
        assert_eq!(rank_among(&others, 0.3), 3.0);
        assert_eq!(rank_among(&others, 0.2), 4.0);
        assert_eq!(rank_among(&others, 0.0), 5.0);
    }

    #[test]
    fn quantiles_use_the_nearest_rank() {
        let sorted: Vec<f64> = (1..=200).map(f64::from).collect();
        assert_eq!(quantile(&sorted, 0.05), 10.0);
        assert_eq!(quantile(&sorted, 0.95), 190.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
    }
}
