//! The audit of one topic: the coverage of the run's top, the probabilities of its unjudged
//! documents, the score interval of every measure and the Monte-Carlo samples behind the
//! expected score (the rules are in the [`super`] module docs).

use rand::Rng;

use super::model;
use super::{AUDIT_DEPTH, AUDIT_SEED, SAMPLES};
use crate::base::error::Result;
use crate::base::{is_relevant, DocId, Grade};
use crate::collection::{Collection, TopicData};
use crate::eval::{score_topic, Family, GradeCounts, JudgedRanking, Measure};
use serde::Serialize;

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

/// The coverage measures, in [`Coverage`]'s order.
fn coverage_measures() -> [Measure; 4] {
    [
        Measure::new(Family::Judged, Some(10)),
        Measure::new(Family::Judged, Some(20)),
        Measure::new(Family::Judged, Some(100)),
        Measure::new(Family::Unjudged, Some(10)),
    ]
}

/// What one topic yields before aggregation.
pub(super) struct TopicOutcome {
    /// The topic's figures.
    pub(super) audit: TopicAudit,
    /// samples[sample][measure]
    pub(super) samples: Vec<Vec<f64>>,
}

/// The run's ranking of one topic with its judgments, and the scenarios scored on it: every
/// unjudged document of the top [`AUDIT_DEPTH`] may be given a grade.
struct TopicScenarios<'m> {
    measures: &'m [Measure],
    relevance_level: Grade,
    /// The official grade of each ranked document (`None`: unjudged).
    grades: Vec<Option<Grade>>,
    /// Every official grade of the topic, in document id order.
    judged_grades: Vec<Grade>,
    counts: GradeCounts,
    /// Positions (0-based) of the unjudged documents of the top [`AUDIT_DEPTH`].
    unjudged_positions: Vec<usize>,
    /// Measures grouped by the depth whose unjudged documents they consider.
    groups: Vec<(usize, Vec<usize>)>,
}

impl<'m> TopicScenarios<'m> {
    fn new(topic: &TopicData, ranking: &[DocId], measures: &'m [Measure], level: Grade) -> Self {
        let grades: Vec<Option<Grade>> = ranking
            .iter()
            .map(|doc| topic.grades.get(doc).copied())
            .collect();
        let mut judged: Vec<(DocId, Grade)> = topic.grades.iter().map(|(&d, &g)| (d, g)).collect();
        judged.sort_unstable();
        let judged_grades: Vec<Grade> = judged.into_iter().map(|(_, g)| g).collect();
        let unjudged_positions = (0..ranking.len().min(AUDIT_DEPTH))
            .filter(|&pos| grades[pos].is_none())
            .collect();
        let mut depths: Vec<usize> = measures.iter().map(measure_depth).collect();
        depths.sort_unstable();
        depths.dedup();
        let groups = depths
            .iter()
            .map(|&depth| {
                let members = (0..measures.len())
                    .filter(|&index| measure_depth(&measures[index]) == depth)
                    .collect();
                (depth, members)
            })
            .collect();
        Self {
            measures,
            relevance_level: level,
            counts: GradeCounts::from_grades(judged_grades.iter().copied()),
            grades,
            judged_grades,
            unjudged_positions,
            groups,
        }
    }

    fn judged_ranking(&self) -> JudgedRanking<'_> {
        JudgedRanking {
            grades: &self.grades,
            counts: &self.counts,
        }
    }

    fn coverage(&self) -> Coverage {
        let values = score_topic(
            &coverage_measures(),
            &self.judged_ranking(),
            self.relevance_level,
        );
        let unjudged_within = |depth: usize| {
            self.unjudged_positions
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

    /// The officially relevant grades of the topic, in document id order.
    fn relevant_grades(&self) -> Vec<Grade> {
        self.judged_grades
            .iter()
            .copied()
            .filter(|&g| is_relevant(g, self.relevance_level))
            .collect()
    }

    /// Scores the measures with the unjudged documents above each measure's depth given the
    /// `drawn` grades (one per unjudged position; `None` stays unjudged).
    fn score(&self, drawn: &[Option<Grade>]) -> Vec<f64> {
        let mut out = vec![0.0; self.measures.len()];
        let mut scenario = self.grades.clone();
        let mut added: Vec<Grade> = Vec::new();
        for (depth, members) in &self.groups {
            scenario.copy_from_slice(&self.grades);
            added.clear();
            for (&pos, &grade) in self.unjudged_positions.iter().zip(drawn) {
                if let (true, Some(grade)) = (pos < *depth, grade) {
                    scenario[pos] = Some(grade);
                    added.push(grade);
                }
            }
            let counts = if added.is_empty() {
                self.counts.clone()
            } else {
                GradeCounts::from_grades(self.judged_grades.iter().chain(&added).copied())
            };
            let group: Vec<Measure> = members.iter().map(|&index| self.measures[index]).collect();
            let ranking = JudgedRanking {
                grades: &scenario,
                counts: &counts,
            };
            let values = score_topic(&group, &ranking, self.relevance_level);
            for (&index, value) in members.iter().zip(values) {
                out[index] = value;
            }
        }
        out
    }

    /// [`SAMPLES`] scenarios: each unjudged document relevant with its probability, with a
    /// grade drawn from the topic's relevant grades (the relevance level when it has none).
    fn samples(&self, topic_id: &str, probabilities: &[f64]) -> Vec<Vec<f64>> {
        let relevant_grades = self.relevant_grades();
        let mut rng = crate::base::seed::topic_rng(AUDIT_SEED, topic_id);
        let mut drawn: Vec<Option<Grade>> = vec![None; self.unjudged_positions.len()];
        (0..SAMPLES)
            .map(|_| {
                for (slot, &probability) in drawn.iter_mut().zip(probabilities) {
                    *slot = (rng.random::<f64>() < probability).then(|| {
                        if relevant_grades.is_empty() {
                            self.relevance_level
                        } else {
                            relevant_grades[rng.random_range(0..relevant_grades.len())]
                        }
                    });
                }
                self.score(&drawn)
            })
            .collect()
    }
}

/// Audits the run on one topic: coverage, probabilities, intervals and samples.
///
/// # Errors
/// When the judge model cannot be fitted.
pub(super) fn audit_topic(
    collection: &Collection,
    topic: &TopicData,
    run_index: usize,
    measures: &[Measure],
) -> Result<TopicOutcome> {
    let level = collection.relevance_level;
    let ranking = &topic.rankings[run_index];
    let scenarios = TopicScenarios::new(topic, ranking, measures, level);
    let wanted: Vec<DocId> = scenarios
        .unjudged_positions
        .iter()
        .map(|&p| ranking[p])
        .collect();
    let fitted =
        model::topic_probabilities(collection, topic, &presumed_non_relevant(topic), &wanted)?;
    let lower = score_topic(measures, &scenarios.judged_ranking(), level);
    let top_grade = scenarios
        .relevant_grades()
        .into_iter()
        .max()
        .unwrap_or(level)
        .max(level);
    let upper = scenarios.score(&vec![Some(top_grade); wanted.len()]);
    let samples = scenarios.samples(&topic.id, &fitted.probabilities);
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
    let unjudged = scenarios
        .unjudged_positions
        .iter()
        .zip(&fitted.probabilities)
        .map(|(&pos, &probability)| UnjudgedDoc {
            docid: collection.docs.name(ranking[pos]).to_string(),
            rank: pos + 1,
            probability,
        })
        .collect();
    Ok(TopicOutcome {
        audit: TopicAudit {
            topic: topic.id.clone(),
            coverage: scenarios.coverage(),
            is_model_fitted: fitted.is_fitted,
            unjudged,
            scores,
        },
        samples,
    })
}

/// The documents presumed non-relevant for the judge model: unjudged documents of any run's
/// top [`AUDIT_DEPTH`], sorted.
fn presumed_non_relevant(topic: &TopicData) -> Vec<DocId> {
    let mut presumed: Vec<DocId> = topic
        .rankings
        .iter()
        .flat_map(|r| r.iter().take(AUDIT_DEPTH).copied())
        .filter(|doc| !topic.grades.contains_key(doc))
        .collect();
    presumed.sort_unstable();
    presumed.dedup();
    presumed
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
pub(super) fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_upper_end_makes_every_unjudged_document_of_the_measures_depth_relevant() {
        // Grades a = 2, b = 0; the run ranks a, x, b, y (x and y unjudged), ids 0..4.
        let (a, x, b, y) = (0, 1, 2, 3);
        let topic = TopicData {
            id: "1".into(),
            retrieved: vec![a, x, b, y],
            hits: vec![vec![(0, 1)], vec![(0, 2)], vec![(0, 3)], vec![(0, 4)]],
            rankings: vec![vec![a, x, b, y]],
            pool_rankings: vec![vec![a, x, b, y]],
            grades: [(a, 2), (b, 0)].into_iter().collect(),
            text_seed: None,
        };
        let measures = crate::eval::parse_measures(&["P_2 P_1 map"]).unwrap();
        let scenarios = TopicScenarios::new(&topic, &topic.rankings[0], &measures, 1);
        assert_eq!(scenarios.unjudged_positions, [1, 3]);
        let lower = score_topic(&measures, &scenarios.judged_ranking(), 1);
        let upper = scenarios.score(&[Some(2), Some(2)]);
        // P@2: a only, then a and x. P@1 looks at rank 1 alone: nothing to add.
        assert_eq!((lower[0], upper[0]), (0.5, 1.0));
        assert_eq!((lower[1], upper[1]), (1.0, 1.0));
        // MAP: R grows with the added documents (1 -> 3): (1/1 + 2/2 + 3/4) / 3.
        assert!((lower[2] - 1.0).abs() < 1e-12);
        assert!((upper[2] - (1.0 + 1.0 + 0.75) / 3.0).abs() < 1e-12);
    }

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
