//! Smaller budgets from one judging (see docs/budget.md): the judging a
//! smaller budget would have made is a prefix of the one made at the topic's budget N_t, since
//! the judge picks one document at a time and never looks at how many judgments are left. A
//! fraction f of the budget keeps the first round(f × N_t) judgments (half away from zero),
//! carried judgments and the pool first, as they were judged; a topic whose carried judgments
//! and pool alone exceed that keeps them all, as at the whole budget, and is counted.
//!
//! This file cuts judgings; the study scores the cuts (`study`) and the analysis compares them
//! (`analysis::budget`).

use crate::collection::Collection;
use crate::judge::cal::TopicJudging;

/// The budget of topic `topic` (N_t): the study's fixed budget, else its official number of
/// judgments.
pub fn topic_budget(collection: &Collection, fixed_budget: Option<usize>, topic: usize) -> usize {
    fixed_budget.unwrap_or(collection.topics[topic].grades.len())
}

/// round(`fraction` × `budget`), half away from zero.
pub fn fraction_of_budget(budget: usize, fraction: f64) -> usize {
    (fraction * budget as f64).round() as usize
}

/// Whether the carried judgments and the pool of `judging` alone exceed `budget`.
pub fn is_pool_over(judging: &TopicJudging, budget: usize) -> bool {
    judging.carried + judging.pool_size > budget
}

/// The judging a budget of `budget` judgments (at most the one `judging` was made with) would
/// have made: the first `budget` judgments, or the carried judgments and the whole pool when
/// they are more. Its retrains are those whose lists the kept trace used.
pub fn within_budget(judging: &TopicJudging, budget: usize) -> TopicJudging {
    let kept = budget
        .max(judging.carried + judging.pool_size)
        .min(judging.judgments.len());
    let trace = &judging.trace[..kept - judging.carried];
    let retrains = if kept == judging.judgments.len() {
        judging.retrains
    } else {
        trace
            .iter()
            .map(|step| step.batch as usize)
            .max()
            .unwrap_or(0)
    };
    TopicJudging {
        topic: judging.topic,
        judgments: judging.judgments[..kept].to_vec(),
        trace: trace.to_vec(),
        carried: judging.carried,
        pool_size: judging.pool_size,
        is_pool_over_budget: is_pool_over(judging, budget),
        retrains,
        withheld: judging.withheld,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::fixture::hand_task;
    use crate::judge::assessor::OfficialAssessor;
    use crate::judge::cal::judge_topic;
    use crate::judge::settings::{JudgeSettings, Withhold};
    use crate::sim::fixture::{cut_judging, small_study};

    #[test]
    fn a_smaller_budget_judges_the_prefix_of_the_whole_budgets_trace() {
        let dir = tempfile::tempdir().unwrap();
        for with_text in [false, true] {
            let task = hand_task(&dir.path().join(with_text.to_string()), with_text);
            let collection = Collection::prepare(&task, &task.qrels, with_text).unwrap();
            // A's runs excluded: a pool of its own, which the smaller budgets cut into.
            let excluded: Vec<bool> = task.runs.iter().map(|r| r.tag.starts_with('a')).collect();
            let judge = JudgeSettings {
                seed: 7,
                ..small_study(Withhold::None, None).judge
            };
            for topic in 0..collection.topics.len() {
                let whole_budget = topic_budget(&collection, None, topic);
                let judge_with = |budget| {
                    let official = OfficialAssessor::new(&collection);
                    judge_topic(&collection, topic, &excluded, budget, &judge, &official).unwrap()
                };
                let whole = judge_with(whole_budget);
                assert_eq!(whole.judgments.len(), whole_budget, "topic {topic}");
                for budget in 0..=whole_budget {
                    let cut = within_budget(&whole, budget);
                    let judged = judge_with(budget);
                    let context = format!("text {with_text}, topic {topic}, budget {budget}");
                    assert_eq!(cut.judgments, judged.judgments, "{context}");
                    assert_eq!(&cut.judgments[..], &whole.judgments[..cut.judgments.len()]);
                    let docs = |j: &TopicJudging| -> Vec<_> {
                        j.trace.iter().map(|s| (s.doc, s.batch)).collect()
                    };
                    assert_eq!(docs(&cut), docs(&judged), "{context}");
                    assert_eq!(
                        cut.is_pool_over_budget, judged.is_pool_over_budget,
                        "{context}"
                    );
                    assert_eq!(cut.retrains, judged.retrains, "{context}");
                    assert_eq!(
                        cut.judgments.len(),
                        budget.max(whole.pool_size),
                        "{context}"
                    );
                }
            }
        }
    }

    #[test]
    fn fractions_of_a_budget_round_half_away_from_zero() {
        let cases = [
            (10, 0.25, 3), // 2.5
            (10, 0.05, 1), // 0.5
            (7, 0.5, 4),   // 3.5
            (3, 0.5, 2),   // 1.5
            (4, 0.25, 1),
            (9, 0.1, 1), // 0.9
            (10, 0.24, 2),
            (10, 1.0, 10),
            (0, 0.5, 0),
        ];
        for (budget, fraction, expected) in cases {
            assert_eq!(
                fraction_of_budget(budget, fraction),
                expected,
                "{fraction} of {budget}"
            );
        }
    }

    #[test]
    fn a_pool_larger_than_the_fractions_budget_is_kept_whole_and_counted() {
        let whole = cut_judging();
        for (budget, kept, is_over, retrains) in [
            (0, 4, true, 0),
            (3, 4, true, 0),
            (4, 4, false, 0),
            (5, 5, false, 1),
            (7, 7, false, 2),
            (9, 9, false, 2),
            (10, 10, false, 3),
        ] {
            let cut = within_budget(&whole, budget);
            assert_eq!(cut.judgments, whole.judgments[..kept], "budget {budget}");
            assert_eq!(
                cut.trace.len(),
                kept - 1,
                "the carried judgment is no trace step"
            );
            assert_eq!(cut.is_pool_over_budget, is_over, "budget {budget}");
            assert_eq!(cut.retrains, retrains, "budget {budget}");
        }
    }
}
