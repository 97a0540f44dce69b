//! The audit of one topic: the coverage of the run's top, the probabilities of its unjudged
//! documents, the score interval of every measure, the exact first-order effect of each
//! unjudged document, and the Monte-Carlo samples behind the expected score and the rank risk
//! (the rules are in the [`super`] module docs). The scenarios scored on the run's ranking, the
//! gains and the draws are [`super::scenarios`]'s.

use serde::Serialize;

use super::scenarios::{Counted, Draw, GainTable, GradeMix, TopicScenarios};
use crate::base::{DocId, DocumentGrades, Grade};
use crate::collection::TopicData;
use crate::eval::{score_topic, Family, Measure};
use crate::relevance_model::below_level::BelowLevelShift;
use crate::stats::rank::quantile;

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

/// One unjudged document of the run's top [`super::AUDIT_DEPTH`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnjudgedDoc {
    /// The document id.
    pub docid: String,
    /// Its 1-based rank in the run.
    pub rank: usize,
    /// Its calibrated probability of relevance (the mean over the Monte-Carlo samples, whose
    /// topic and run effects spread it).
    pub probability: f64,
    /// Whether it lies beyond the pool's reach (no pooled run, nor the audited run when it
    /// counts as pooled, put it in its top `pool_depth`): its probability is extrapolated.
    pub is_beyond_pool: bool,
    /// The secondary assessor's label of it, with `--labels`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<Grade>,
}

/// One measure's figures on one topic, or overall.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreInterval {
    /// The measure (trec_eval spelling).
    pub measure: String,
    /// Every unjudged document non-relevant: the score the collection gives.
    pub lower: f64,
    /// Every unjudged document of the top [`super::AUDIT_DEPTH`] relevant at the highest grade.
    pub upper: f64,
    /// The expected score under the model (first-order terms exact, the rest Monte-Carlo).
    pub expected: f64,
    /// The median of the sampled scores: the estimate with the smallest expected absolute
    /// error.
    pub median: f64,
    /// The 5% quantile of the sampled scores.
    pub sample_low: f64,
    /// The 95% quantile of the sampled scores.
    pub sample_high: f64,
    /// The part of `expected − lower` that documents beyond the pool's reach bring (first
    /// order): what rests on extrapolation.
    pub extrapolated: f64,
}

/// The audit of one topic.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopicAudit {
    /// The topic id.
    pub topic: String,
    /// Coverage of the run's top.
    pub coverage: Coverage,
    /// Whether the judge model could be fitted (the topic has relevant and non-relevant
    /// documents); if not, probabilities come from the judged relevant fraction.
    pub is_model_fitted: bool,
    /// The unjudged documents of the top [`super::AUDIT_DEPTH`], in rank order.
    pub unjudged: Vec<UnjudgedDoc>,
    /// One interval per measure.
    pub scores: Vec<ScoreInterval>,
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

/// The coverage of the run's top of `scenarios`' ranking.
fn coverage(scenarios: &TopicScenarios) -> Coverage {
    let values = score_topic(
        &coverage_measures(),
        &scenarios.judged_ranking(),
        scenarios.relevance_level,
    );
    let unjudged_within = |depth: usize| {
        scenarios
            .unjudged_positions
            .iter()
            .filter(|&&p| p < depth)
            .count()
    };
    Coverage {
        judged_10: values[0],
        judged_20: values[1],
        judged_100: values[2],
        unj_10: values[3],
        unjudged_10: unjudged_within(10),
        unjudged_20: unjudged_within(20),
        unjudged_100: unjudged_within(100),
    }
}

/// What one topic yields before aggregation.
#[derive(Debug, Clone)]
pub(super) struct TopicOutcome {
    /// The topic's figures.
    pub(super) audit: TopicAudit,
    /// The unjudged documents' ids, in [`TopicAudit::unjudged`]'s order.
    pub(super) unjudged_ids: Vec<DocId>,
    /// samples[sample][measure]: the topic's score in each Monte-Carlo scenario.
    pub(super) samples: Vec<Vec<f64>>,
    /// draws[sample][unjudged]: what each Monte-Carlo scenario drew for each unjudged document.
    pub(super) draws: Vec<Vec<Draw>>,
    /// The grades an unjudged document may get, and the chance of each.
    pub(super) grades: GradeMix,
    /// Each unjudged document's mean probability of a grade above 0, relevant or not.
    pub(super) graded: Vec<f64>,
    /// The score change of each measure when one unjudged document alone is judged with one
    /// of `grades`.
    pub(super) gains: GainTable,
}

impl TopicOutcome {
    /// The score change of `measure` that judging unjudged document `doc` brings in sample
    /// `sample` (first order: that document alone).
    pub(super) fn sampled_gain(&self, sample: usize, doc: usize, measure: usize) -> f64 {
        self.drawn_grade(sample, doc)
            .map_or(0.0, |grade| self.gains.gain(doc, grade, measure))
    }

    /// The index in `grades` of the grade unjudged document `doc` was drawn in sample
    /// `sample`; `None` when it was drawn with no grade a measure counts.
    pub(super) fn drawn_grade(&self, sample: usize, doc: usize) -> Option<usize> {
        self.draws[sample][doc].grade()
    }

    /// The expectation over the grades judging unjudged document `doc` may give of what
    /// `term` gives a grade (its index in `grades` and its chance on its side of the level).
    pub(super) fn expected_over_grades(
        &self,
        doc: usize,
        term: impl FnMut(usize, f64) -> f64,
    ) -> f64 {
        let chances = (self.audit.unjudged[doc].probability, self.graded[doc]);
        self.grades.expectation(chances, term)
    }
}

/// One topic of an audit: the run's ranking of it and the judgments it is audited against.
pub(super) struct TopicInput<'a> {
    /// The topic.
    pub(super) topic: &'a TopicData,
    /// The judgments.
    pub(super) judgments: &'a DocumentGrades,
    /// The audited run's ranking of the topic.
    pub(super) ranking: &'a [DocId],
    /// A grade >= this is relevant.
    pub(super) relevance_level: Grade,
    /// Whether the topic's judge model could be fitted.
    pub(super) is_model_fitted: bool,
    /// The standard deviation of the topic's log-odds effect.
    pub(super) topic_sd: f64,
    /// The calibration's grade factors (see [`crate::relevance_model::calibration::Calibration::grade_factors`]).
    pub(super) grade_factors: &'a [(Grade, f64)],
    /// The calibration's shifts of a grade below the level, when the collection has such
    /// grades (see [`crate::relevance_model::below_level`]).
    pub(super) below_level_shift: Option<BelowLevelShift>,
}

/// What the audit of a topic asks of the relevance model about the run's unjudged documents.
pub(super) trait RelevanceJudge {
    /// The relevance model's answer about unjudged document `doc` at 1-based rank `rank`.
    fn judge(&self, doc: DocId, rank: usize) -> Judgment;

    /// The document id of `doc`.
    fn name(&self, doc: DocId) -> String;
}

/// The relevance model's answer about one unjudged document of the run's top.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Judgment {
    /// The calibrated log-odds of relevance in each Monte-Carlo sample (at least one value,
    /// cycled through; each with its calibration replicate and the run's effects).
    pub(super) log_odds: Vec<f64>,
    /// Whether the document lies beyond the pool's reach.
    pub(super) is_beyond_pool: bool,
    /// The secondary assessor's label of the document, if any.
    pub(super) label: Option<Grade>,
}

/// Audits one topic, with `judge` answering for each unjudged document.
pub(super) fn audit_topic(
    input: &TopicInput,
    measures: &[Measure],
    judge: &dyn RelevanceJudge,
) -> TopicOutcome {
    let TopicInput {
        topic,
        judgments,
        ranking,
        relevance_level: level,
        is_model_fitted,
        topic_sd,
        grade_factors,
        below_level_shift,
    } = *input;
    let scenarios = TopicScenarios::new(judgments, ranking, measures, level);
    let unjudged_ids: Vec<DocId> = scenarios
        .unjudged_positions
        .iter()
        .map(|&p| ranking[p])
        .collect();
    let answers: Vec<Judgment> = scenarios
        .unjudged_positions
        .iter()
        .map(|&pos| judge.judge(ranking[pos], pos + 1))
        .collect();
    let log_odds: Vec<&[f64]> = (answers.iter())
        .map(|answer| answer.log_odds.as_slice())
        .collect();
    let lower = score_topic(measures, &scenarios.judged_ranking(), level);
    let grades = scenarios.grades(grade_factors);
    let relevant_grades = &grades.grades[..grades.relevant().len()];
    let top_grade = relevant_grades.iter().copied().max().unwrap_or(level);
    // The best case: the measure's own top relevant, nothing deeper found to raise the counts.
    let upper = scenarios.score(
        &vec![Some(top_grade); unjudged_ids.len()],
        Counted::WithinDepth,
    );
    let gains = scenarios.single_gains(&grades.grades, &lower);
    // A document a deeper judging left out has log-odds -inf, so no chance of a grade either.
    let shift_of = |answer: &Judgment| {
        let shifts = below_level_shift.filter(|_| grades.has_below_level())?;
        Some(shifts.for_reach(!answer.is_beyond_pool))
    };
    let shifts: Vec<Option<f64>> = answers.iter().map(shift_of).collect();
    let sampled = scenarios.samples(&topic.id, (&log_odds, &shifts), topic_sd, &grades);
    let unjudged = scenarios
        .unjudged_positions
        .iter()
        .zip(&sampled.probabilities)
        .zip(&answers)
        .map(|((&pos, &probability), answer)| UnjudgedDoc {
            docid: judge.name(ranking[pos]),
            rank: pos + 1,
            probability,
            is_beyond_pool: answer.is_beyond_pool,
            label: answer.label,
        })
        .collect();
    let mut outcome = TopicOutcome {
        audit: TopicAudit {
            topic: topic.id.clone(),
            coverage: coverage(&scenarios),
            is_model_fitted,
            unjudged,
            scores: Vec::new(),
        },
        unjudged_ids,
        samples: sampled.scores,
        draws: sampled.draws,
        grades,
        graded: sampled.graded,
        gains,
    };
    outcome.audit.scores = measures
        .iter()
        .enumerate()
        .map(|(index, measure)| {
            let mut sampled: Vec<f64> = outcome.samples.iter().map(|s| s[index]).collect();
            let expected = expected_score(&outcome, lower[index], index);
            let extrapolated = first_order(&outcome, index, |doc| {
                outcome.audit.unjudged[doc].is_beyond_pool
            });
            sampled.sort_by(f64::total_cmp);
            ScoreInterval {
                measure: measure.to_string(),
                lower: lower[index],
                upper: upper[index],
                expected,
                median: quantile(&sampled, 0.5),
                sample_low: quantile(&sampled, 0.05),
                sample_high: quantile(&sampled, 0.95),
                extrapolated,
            }
        })
        .collect();
    outcome
}

/// The first-order expected gain of `measure` from the unjudged documents that `counted`
/// selects: each one's gain under each grade times the chance of that grade.
fn first_order(outcome: &TopicOutcome, measure: usize, counted: impl Fn(usize) -> bool) -> f64 {
    (0..outcome.unjudged_ids.len())
        .filter(|&doc| counted(doc))
        .map(|doc| {
            outcome.expected_over_grades(doc, |grade, chance| {
                chance * outcome.gains.gain(doc, grade, measure)
            })
        })
        .sum()
}

/// The expected score of `measure` with the first-order effect as a control variate: the sum
/// of each document's probability times its expected gain is exact, and only what documents
/// do together (MAP's R and nDCG's ideal growing with several of them) is left to the samples.
/// With few probable documents the samples then add almost no noise.
fn expected_score(outcome: &TopicOutcome, lower: f64, measure: usize) -> f64 {
    let first_order = first_order(outcome, measure, |_| true);
    let residual: f64 = (0..outcome.samples.len())
        .map(|sample| {
            let linear: f64 = (0..outcome.unjudged_ids.len())
                .map(|doc| outcome.sampled_gain(sample, doc, measure))
                .sum();
            outcome.samples[sample][measure] - lower - linear
        })
        .sum::<f64>()
        / outcome.samples.len() as f64;
    lower + first_order + residual
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::settings::SAMPLES;

    fn topic(ranking: &[DocId], grades: &[(DocId, Grade)]) -> (TopicData, DocumentGrades) {
        let judgments: DocumentGrades = grades.iter().copied().collect();
        let data = TopicData {
            id: "1".into(),
            retrieved: ranking.to_vec(),
            hits: ranking.iter().map(|&d| vec![(0, d + 1)]).collect(),
            rankings: vec![ranking.to_vec()],
            pool_rankings: vec![ranking.to_vec()],
            grades: judgments.clone(),
            text_seed: None,
        };
        (data, judgments)
    }

    /// Every unjudged document relevant with the same probability, within the pool's reach.
    struct ConstantJudge(f64);

    impl RelevanceJudge for ConstantJudge {
        fn judge(&self, _: DocId, _: usize) -> Judgment {
            Judgment {
                log_odds: vec![crate::stats::log_odds::logit(self.0)],
                is_beyond_pool: false,
                label: None,
            }
        }

        fn name(&self, doc: DocId) -> String {
            format!("d{doc}")
        }
    }

    fn audit_with(probability: f64, measures: &str) -> TopicOutcome {
        // Grades a = 2, b = 0; the run ranks a, x, b, y (x and y unjudged), ids 0..4.
        audit_ranking(&[0, 1, 2, 3], &[(0, 2), (2, 0)], probability, measures)
    }

    fn audit_ranking(
        ranking: &[DocId],
        grades: &[(DocId, Grade)],
        probability: f64,
        measures: &str,
    ) -> TopicOutcome {
        let (data, judgments) = topic(ranking, grades);
        let measures = crate::eval::parse_measures(&[measures]).unwrap();
        let input = topic_input((&data, &judgments), 1, None);
        audit_topic(&input, &measures, &ConstantJudge(probability))
    }

    /// The input of a topic's audit of the first ranking of `data`, at `relevance_level`, with
    /// a fitted model, no topic spread and no grade factors.
    fn topic_input<'a>(
        (data, judgments): (&'a TopicData, &'a DocumentGrades),
        relevance_level: Grade,
        below_level_shift: Option<BelowLevelShift>,
    ) -> TopicInput<'a> {
        TopicInput {
            topic: data,
            judgments,
            ranking: &data.rankings[0],
            relevance_level,
            is_model_fitted: true,
            topic_sd: 0.0,
            grade_factors: &[],
            below_level_shift,
        }
    }

    #[test]
    fn the_upper_end_makes_every_unjudged_document_of_the_measures_depth_relevant() {
        let outcome = audit_with(0.3, "P_2 P_1 map");
        let scores = &outcome.audit.scores;
        // P@2: a only, then a and x. P@1 looks at rank 1 alone: nothing to add.
        assert_eq!((scores[0].lower, scores[0].upper), (0.5, 1.0));
        assert_eq!((scores[1].lower, scores[1].upper), (1.0, 1.0));
        // MAP: R grows with the added documents (1 -> 3): (1/1 + 2/2 + 3/4) / 3.
        assert!((scores[2].lower - 1.0).abs() < 1e-12);
        assert!((scores[2].upper - (1.0 + 1.0 + 0.75) / 3.0).abs() < 1e-12);
    }

    #[test]
    fn a_document_below_the_cutoff_raises_the_ideal_as_judging_the_top_would() {
        // a (grade 2) at rank 1, b (grade 0) at rank 2, x unjudged at rank 3 and certainly
        // relevant at the topic's grade 2: below nDCG@2's cutoff it still enters the ideal
        // ranking, 2 + 2 / log2(3), so the expectation falls from 1 while the upper end, the
        // best case with nothing found below the cutoff, stays 1.
        let outcome = audit_ranking(&[0, 1, 2], &[(0, 2), (1, 0)], 1.0, "ndcg_cut_2 P_2");
        let (ndcg, precision) = (&outcome.audit.scores[0], &outcome.audit.scores[1]);
        let ideal = 2.0 + 2.0 / 3f64.log2();
        assert!((ndcg.lower - 1.0).abs() < 1e-12, "{ndcg:?}");
        assert!((ndcg.upper - 1.0).abs() < 1e-12, "{ndcg:?}");
        assert!((ndcg.expected - 2.0 / ideal).abs() < 1e-12, "{ndcg:?}");
        // Precision has no grade counts: x below the cutoff changes nothing.
        assert!((precision.expected - 0.5).abs() < 1e-12, "{precision:?}");
    }

    #[test]
    fn certain_documents_give_exact_expectations() {
        // Probability 0: the collection's score; probability 1: every document relevant at
        // the topic's only relevant grade (2), which is the upper end.
        for (probability, measure) in [(0.0, 0), (1.0, 0), (0.0, 1), (1.0, 1)] {
            let outcome = audit_with(probability, "P_2 map");
            let score = &outcome.audit.scores[measure];
            let want = if probability == 0.0 {
                score.lower
            } else {
                score.upper
            };
            assert!((score.expected - want).abs() < 1e-12, "{score:?}");
            assert_eq!((score.sample_low, score.sample_high), (want, want));
        }
    }

    #[test]
    fn a_coin_flip_document_gives_the_analytic_mean_and_spread() {
        // P@2 at probability 0.5: x (rank 2) is the only unjudged document of the top 2, so the
        // score is 0.5 or 1.0 with equal chances: mean 0.75, exactly by the first-order term.
        let outcome = audit_with(0.5, "P_2");
        let score = &outcome.audit.scores[0];
        assert!((score.expected - 0.75).abs() < 1e-12, "{score:?}");
        assert_eq!((score.sample_low, score.sample_high), (0.5, 1.0));
        // Both outcomes occur among the samples in about equal numbers.
        let high = outcome.samples.iter().filter(|s| s[0] == 1.0).count();
        assert!((70..=130).contains(&high), "{high} of {SAMPLES}");
        // MAP with two coin flips: the control variate leaves the samples only the joint
        // effect; the analytic mean over the four outcomes is
        // (1 + (1 + 1)/2 + (1 + 2/4)/2 + (1 + 1 + 3/4)/3) / 4, and the joint effect (both
        // relevant, chance 1/4) is 1/6, so the samples' noise is at most 1/6 · sqrt(3/16/200).
        let outcome = audit_with(0.5, "map");
        let analytic = (1.0 + 1.0 + 0.75 + 2.75 / 3.0) / 4.0;
        let expected = outcome.audit.scores[0].expected;
        assert!(
            (expected - analytic).abs() < 0.02,
            "{expected} vs {analytic}"
        );
    }

    #[test]
    fn documents_not_relevant_count_with_the_grades_below_the_level_they_may_have() {
        // Level 2. Judged: a (id 0) 3, b (id 2) 1, and a document graded 0. The run ranks a,
        // x, b, y (x and y unjudged): each relevant (grade 3, the topic's one relevant grade)
        // with chance 0.1, and graded above 0 with chance 0.4 by the shift within the reach,
        // so graded 1 with chance 0.3.
        let (data, judgments) = topic(&[0, 1, 2, 3], &[(0, 3), (2, 1), (4, 0)]);
        let measures = crate::eval::parse_measures(&["ndcg_cut_4 P_4"]).unwrap();
        let logit = crate::stats::log_odds::logit;
        let shift = logit(0.4) - logit(0.1);
        let audit = |below_level_shift| {
            let input = topic_input((&data, &judgments), 2, below_level_shift);
            audit_topic(&input, &measures, &ConstantJudge(0.1))
        };
        let ndcg = |x: f64, y: f64| {
            let dcg = 3.0 + x / 3f64.log2() + 0.5 + y / 5f64.log2();
            let mut grades = [3.0, 1.0, x, y];
            grades.sort_by(|a, b| b.total_cmp(a));
            let ideal: f64 = (grades.iter().enumerate())
                .map(|(i, g)| g / ((i + 2) as f64).log2())
                .sum();
            dcg / ideal
        };
        let mean = |outcomes: &[(f64, f64)]| {
            let mut mean = 0.0;
            for &(x, px) in outcomes {
                for &(y, py) in outcomes {
                    mean += px * py * ndcg(x, y);
                }
            }
            mean
        };
        let with_shift = audit(Some(BelowLevelShift {
            within_reach: shift,
            beyond_reach: 0.0,
        }));
        let score = &with_shift.audit.scores[0];
        let analytic = mean(&[(3.0, 0.1), (1.0, 0.3), (0.0, 0.6)]);
        assert!((score.lower - ndcg(0.0, 0.0)).abs() < 1e-12, "{score:?}");
        assert!(
            (score.expected - analytic).abs() < 0.003,
            "{score:?} vs {analytic}"
        );
        assert!((with_shift.graded[0] - 0.4).abs() < 1e-12);
        // Without the shift, relevant documents alone.
        let without = audit(None);
        let relevant_only = mean(&[(3.0, 0.1), (0.0, 0.9)]);
        let score = &without.audit.scores[0];
        assert!((score.expected - relevant_only).abs() < 0.003, "{score:?}");
        assert!(
            analytic > relevant_only + 0.005,
            "{analytic} {relevant_only}"
        );
        // Precision counts relevance alone.
        let precision = &with_shift.audit.scores[1];
        assert!((precision.expected - (0.25 + 0.1 * 2.0 / 4.0)).abs() < 1e-12);
    }
}
