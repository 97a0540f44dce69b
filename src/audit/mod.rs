//! The audit of a new run (see docs/audit.md): does an existing collection score it fairly, and
//! if not, which documents should be judged?
//!
//! This module owns the audit's figures and rules; it reads the task through
//! [`crate::collection::Collection`], scores with [`crate::eval::score_topic`] (no measure
//! is re-implemented here) and compares with a leave-team-out study ([`crate::sim::study`] or the
//! `runs.tsv` of an earlier `simulate`). It never prints: [`audit_run`] returns an
//! [`AuditReport`] and warnings; [`write_markdown`] and serde render it.
//!
//! Parts: [`topic`] audits one topic, [`study`] gives the leave-team-out comparison,
//! [`report`] holds what is reported, [`model`] the calibrated judge model.
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
pub mod report;
pub mod study;
pub mod topic;

use std::collections::BTreeSet;

use rayon::prelude::*;

use crate::base::error::{Error, Result, Warning};
use crate::collection::{CandidateSource, Collection, FeatureChoice};
use crate::eval::{EvalOptions, Evaluator, Measure};
use crate::io::run::Run;
use crate::io::task::Task;
use crate::io::teams::TeamEntry;

pub use markdown::write_markdown;
pub use report::{write_pool, AuditReport, AuditSettingsSummary, MeasureAudit, PoolEntry};
pub use study::{LouDrop, StudyComparison, StudySource};
use topic::{audit_topic, quantile, TopicOutcome};
pub use topic::{measure_depth, rank_among, Coverage, ScoreInterval, TopicAudit, UnjudgedDoc};

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
    let study = study::compare_with_study(&task, &collection, settings, &run_tag)?;
    let topic_outcomes: Vec<TopicOutcome> = collection
        .topics
        .par_iter()
        .filter(|topic| !topic.rankings[run_index].is_empty())
        .map(|topic| audit_topic(&collection, topic, run_index, &settings.measures))
        .collect::<Result<Vec<_>>>()?;
    let others = other_runs_scores(&task, run_index, &settings.measures);
    let measures = measure_audits(&topic_outcomes, &others, &settings.measures, &study);
    let (candidates, to_judge) = documents_to_judge(&topic_outcomes, &measures, settings);
    let report = AuditReport {
        verdict: verdict(to_judge.len()),
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
        topics_audited: topic_outcomes.len(),
        coverage: overall_coverage(&topic_outcomes),
        measures,
        study,
        candidates,
        to_judge,
        topics: topic_outcomes.into_iter().map(|t| t.audit).collect(),
        elapsed_seconds: started.elapsed().as_secs_f64(),
    };
    Ok((report, warnings))
}

/// The official scores (summaries) of the task's runs other than the audited one.
fn other_runs_scores(task: &Task, run_index: usize, measures: &[Measure]) -> Vec<Vec<f64>> {
    let evaluator = Evaluator::new(
        &task.qrels,
        EvalOptions {
            measures: measures.to_vec(),
            relevance_level: task.manifest.relevance_level,
            complete: false,
            max_docs: None,
        },
    );
    task.runs
        .par_iter()
        .enumerate()
        .filter(|&(pos, _)| pos != run_index)
        .map(|(_, other)| evaluator.evaluate(other).summary)
        .collect()
}

/// The mean of `value` over the audited topics.
fn topic_mean(outcomes: &[TopicOutcome], value: impl Fn(&TopicOutcome) -> f64) -> f64 {
    outcomes.iter().map(value).sum::<f64>() / outcomes.len() as f64
}

/// Coverage over all audited topics: means of the fractions, sums of the counts.
fn overall_coverage(outcomes: &[TopicOutcome]) -> Coverage {
    let sum =
        |count: fn(&Coverage) -> usize| outcomes.iter().map(|t| count(&t.audit.coverage)).sum();
    Coverage {
        judged_10: topic_mean(outcomes, |t| t.audit.coverage.judged_10),
        judged_20: topic_mean(outcomes, |t| t.audit.coverage.judged_20),
        judged_100: topic_mean(outcomes, |t| t.audit.coverage.judged_100),
        unj_10: topic_mean(outcomes, |t| t.audit.coverage.unj_10),
        unjudged_10: sum(|c| c.unjudged_10),
        unjudged_20: sum(|c| c.unjudged_20),
        unjudged_100: sum(|c| c.unjudged_100),
    }
}

/// Per measure: the interval and expectation over topics, the rank interval among the other
/// runs, and whether it is at risk.
fn measure_audits(
    outcomes: &[TopicOutcome],
    others: &[Vec<f64>],
    measures: &[Measure],
    study: &StudyComparison,
) -> Vec<MeasureAudit> {
    measures
        .iter()
        .enumerate()
        .map(|(index, measure)| {
            let lower = topic_mean(outcomes, |t| t.audit.scores[index].lower);
            let upper = topic_mean(outcomes, |t| t.audit.scores[index].upper);
            let expected = topic_mean(outcomes, |t| t.audit.scores[index].expected);
            let mut sampled: Vec<f64> = (0..SAMPLES)
                .map(|sample| topic_mean(outcomes, |t| t.samples[sample][index]))
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
            MeasureAudit {
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
                is_at_risk: rank_worst > rank_best
                    && (upper - lower).abs() > lou_max_score_drop.unwrap_or(0.0),
            }
        })
        .collect()
}

/// The documents to judge, in priority order, and how many there were before the budget cap.
fn documents_to_judge(
    outcomes: &[TopicOutcome],
    measures: &[MeasureAudit],
    settings: &AuditSettings,
) -> (usize, Vec<PoolEntry>) {
    let judging_depth = settings
        .measures
        .iter()
        .zip(measures)
        .filter(|(_, audit)| audit.is_at_risk)
        .map(|(measure, _)| measure_depth(measure))
        .max();
    let Some(depth) = judging_depth else {
        return (0, Vec::new());
    };
    let mut candidates: Vec<PoolEntry> = outcomes
        .iter()
        .flat_map(|t| {
            t.audit
                .unjudged
                .iter()
                .filter(move |doc| doc.rank <= depth && doc.probability >= MIN_JUDGE_PROBABILITY)
                .map(|doc| PoolEntry {
                    topic: t.audit.topic.clone(),
                    docid: doc.docid.clone(),
                    rank: doc.rank,
                    probability: doc.probability,
                    priority: doc.probability / ((doc.rank + 1) as f64).log2(),
                })
        })
        .collect();
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
    (candidate_count, candidates)
}

/// The one-line verdict for `count` documents to judge.
fn verdict(count: usize) -> String {
    match count {
        0 => "no extra judgments needed".to_string(),
        1 => "judge 1 document".to_string(),
        count => format!("judge {count} documents"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A topic outcome whose every sample scores `lower` (one measure), with unjudged documents
    /// given as (rank, probability).
    fn outcome(topic: &str, lower: f64, upper: f64, unjudged: &[(usize, f64)]) -> TopicOutcome {
        TopicOutcome {
            audit: TopicAudit {
                topic: topic.to_string(),
                coverage: Coverage::default(),
                is_model_fitted: true,
                unjudged: unjudged
                    .iter()
                    .map(|&(rank, probability)| UnjudgedDoc {
                        docid: format!("{topic}-{rank}"),
                        rank,
                        probability,
                    })
                    .collect(),
                scores: vec![ScoreInterval {
                    measure: "P_10".into(),
                    lower,
                    upper,
                    expected: lower,
                    sample_low: lower,
                    sample_high: lower,
                }],
            },
            samples: vec![vec![lower]; SAMPLES],
        }
    }

    fn settings(budget: Option<usize>) -> AuditSettings {
        AuditSettings {
            measures: crate::eval::parse_measures(&["P_10"]).unwrap(),
            features: FeatureChoice::Runs,
            budget,
            study: StudySource::Skip,
        }
    }

    fn study(max_score_drop: f64) -> StudyComparison {
        StudyComparison {
            source: "test".into(),
            measures: vec![LouDrop {
                measure: "P_10".into(),
                max_rank_drop: 1.0,
                max_rank_drop_run: "r".into(),
                max_score_drop,
                max_score_drop_run: "r".into(),
                pooled_runs: 3,
            }],
        }
    }

    #[test]
    fn a_measure_is_at_risk_when_its_interval_moves_the_rank_and_exceeds_the_studys_drop() {
        let outcomes = [outcome("1", 0.2, 0.6, &[]), outcome("2", 0.4, 0.6, &[])];
        // Means over topics: lower 0.3, upper 0.6; other runs at 0.5 and 0.1.
        let others = vec![vec![0.5], vec![0.1]];
        let measures = settings(None).measures;
        let audits = measure_audits(&outcomes, &others, &measures, &study(0.1));
        let audit = &audits[0];
        assert!((audit.score.lower - 0.3).abs() < 1e-12);
        assert!((audit.score.upper - 0.6).abs() < 1e-12);
        assert_eq!((audit.rank_best, audit.rank_worst), (1.0, 2.0));
        assert!(audit.is_at_risk, "width 0.3 > drop 0.1 and the rank moves");
        // A study whose pooled runs already lose more than the width: not at risk.
        let audits = measure_audits(&outcomes, &others, &measures, &study(0.5));
        assert!(!audits[0].is_at_risk);
        // An interval that cannot change the rank: not at risk, however wide.
        let audits = measure_audits(&outcomes, &[vec![0.9]], &measures, &study(0.0));
        assert_eq!((audits[0].rank_best, audits[0].rank_worst), (2.0, 2.0));
        assert!(!audits[0].is_at_risk);
    }

    #[test]
    fn documents_to_judge_are_probable_within_the_cutoff_in_priority_order() {
        // P_10 at risk: only the top 10 counts; probability >= 0.1; priority p / log2(rank + 1).
        let outcomes = [
            outcome("1", 0.2, 0.6, &[(1, 0.2), (3, 0.5), (12, 0.9), (5, 0.05)]),
            outcome("2", 0.2, 0.6, &[(1, 0.5), (7, 0.5)]),
        ];
        let measures = measure_audits(
            &outcomes,
            &[vec![0.5]],
            &settings(None).measures,
            &study(0.0),
        );
        assert!(measures[0].is_at_risk);
        let (candidates, to_judge) = documents_to_judge(&outcomes, &measures, &settings(None));
        let order: Vec<&str> = to_judge.iter().map(|e| e.docid.as_str()).collect();
        // 2-1: 0.5/1; 1-3: 0.5/2; 1-1: 0.2/1; 2-7: 0.5/3. Rank 12 is below the cutoff, 1-5 is
        // too improbable.
        assert_eq!(order, ["2-1", "1-3", "1-1", "2-7"]);
        assert_eq!(candidates, 4);
        let (candidates, to_judge) = documents_to_judge(&outcomes, &measures, &settings(Some(2)));
        assert_eq!((candidates, to_judge.len()), (4, 2));
        assert_eq!(verdict(to_judge.len()), "judge 2 documents");
        // Nothing at risk: nothing to judge.
        let safe = measure_audits(
            &outcomes,
            &[vec![0.9]],
            &settings(None).measures,
            &study(0.0),
        );
        assert_eq!(documents_to_judge(&outcomes, &safe, &settings(None)).1, []);
        assert_eq!(verdict(0), "no extra judgments needed");
    }
}
