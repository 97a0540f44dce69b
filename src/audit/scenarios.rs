//! The scenarios of one topic's audit: the run's ranking with its judgments, scored with the
//! unjudged documents of its top [`AUDIT_DEPTH`] given grades; the first-order gain of each
//! document alone ([`GainTable`]) and the Monte-Carlo draws ([`Draw`]).

use rand::Rng;

use super::settings::{AUDIT_DEPTH, AUDIT_SEED, SAMPLES};
use crate::base::{DocId, DocumentGrades, Grade};
use crate::eval::{score_topic, GradeCounts, JudgedRanking, Measure};
use crate::relevance_model::grade_mix::{pick_grade, relevant_grade_chances};
use crate::stats::log_odds::sigmoid;

/// The depth whose unjudged documents a measure's interval and expectation consider: its
/// cutoff, at most [`AUDIT_DEPTH`].
pub fn measure_depth(measure: &Measure) -> usize {
    measure.cutoff.unwrap_or(AUDIT_DEPTH).min(AUDIT_DEPTH)
}

/// What one Monte-Carlo scenario drew for one unjudged document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Draw {
    /// Not relevant.
    NonRelevant,
    /// Relevant, with the grade of this index in the topic's grade chances.
    Relevant(u8),
}

impl Draw {
    /// A relevant draw of the grade of index `grade` in the topic's grade chances.
    pub(super) fn relevant(grade: usize) -> Self {
        Self::Relevant(u8::try_from(grade).expect("fewer than 256 grades"))
    }

    /// The index of the drawn grade in the topic's grade chances; `None` when not relevant.
    pub(super) fn grade(self) -> Option<usize> {
        match self {
            Self::NonRelevant => None,
            Self::Relevant(grade) => Some(usize::from(grade)),
        }
    }
}

/// The score change of every measure when one unjudged document alone is judged relevant with
/// one grade, for every unjudged document of a topic and grade a relevant one may get.
#[derive(Debug, Clone, Default)]
pub(super) struct GainTable {
    grades: usize,
    measures: usize,
    /// Document by document, grade by grade, one change per measure.
    changes: Vec<f64>,
}

impl GainTable {
    /// A table without documents, of `grades` grades and `measures` measures.
    pub(super) fn new(grades: usize, measures: usize) -> Self {
        Self {
            grades,
            measures,
            changes: Vec::new(),
        }
    }

    /// Adds the next document: its changes of every measure under each grade in turn.
    pub(super) fn push_document(&mut self, by_grade: impl IntoIterator<Item = Vec<f64>>) {
        for changes in by_grade {
            debug_assert_eq!(changes.len(), self.measures);
            self.changes.extend(changes);
        }
    }

    /// The change of `measure` when unjudged document `doc` alone is judged relevant with the
    /// grade of index `grade`.
    pub(super) fn gain(&self, doc: usize, grade: usize, measure: usize) -> f64 {
        self.changes[(doc * self.grades + grade) * self.measures + measure]
    }
}

/// The run's ranking of one topic with its judgments, and the scenarios scored on it: every
/// unjudged document of the top [`AUDIT_DEPTH`] may be given a grade.
pub(super) struct TopicScenarios<'m> {
    measures: &'m [Measure],
    pub(super) relevance_level: Grade,
    /// The grade of each ranked document (`None`: unjudged).
    grades: Vec<Option<Grade>>,
    /// Every grade of the topic's judgments.
    judged_grades: Vec<Grade>,
    counts: GradeCounts,
    /// Positions (0-based) of the unjudged documents of the top [`AUDIT_DEPTH`].
    pub(super) unjudged_positions: Vec<usize>,
    /// Measures grouped by the depth whose unjudged documents they consider.
    groups: Vec<(usize, Vec<usize>)>,
}

impl<'m> TopicScenarios<'m> {
    /// The scenarios of `ranking` against `judgments`, scored with `measures`.
    pub(super) fn new(
        judgments: &DocumentGrades,
        ranking: &[DocId],
        measures: &'m [Measure],
        level: Grade,
    ) -> Self {
        let grades: Vec<Option<Grade>> = ranking
            .iter()
            .map(|doc| judgments.get(doc).copied())
            .collect();
        let mut judged_grades: Vec<Grade> = judgments.values().copied().collect();
        judged_grades.sort_unstable();
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

    /// The ranking with its judgments alone: every unjudged document non-relevant.
    pub(super) fn judged_ranking(&self) -> JudgedRanking<'_> {
        JudgedRanking {
            grades: &self.grades,
            counts: &self.counts,
        }
    }

    /// The grades a relevant unjudged document may get and their chances (see
    /// [`relevant_grade_chances`]).
    pub(super) fn relevant_grade_chances(&self, factors: &[(Grade, f64)]) -> Vec<(Grade, f64)> {
        relevant_grade_chances(&self.judged_grades, self.relevance_level, factors)
    }

    /// Scores the measures given the `drawn` grades (one per unjudged position; `None` stays
    /// unjudged): each measure ranks the drawn documents above its depth, and the grade counts
    /// (MAP's R, nDCG's ideal ranking) take those, or with [`Counted::WholeTop`] every drawn
    /// document of the top [`AUDIT_DEPTH`], as judging the run's whole top would.
    pub(super) fn score(&self, drawn: &[Option<Grade>], counted: Counted) -> Vec<f64> {
        let mut out = vec![0.0; self.measures.len()];
        let mut scenario = self.grades.clone();
        let mut added: Vec<Grade> = Vec::new();
        for (depth, members) in &self.groups {
            scenario.copy_from_slice(&self.grades);
            added.clear();
            for (&pos, &grade) in self.unjudged_positions.iter().zip(drawn) {
                let Some(grade) = grade else { continue };
                if pos < *depth {
                    scenario[pos] = Some(grade);
                }
                if pos < *depth || counted == Counted::WholeTop {
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

    /// The change from `lower` of each measure when only one unjudged document is judged
    /// relevant with one of `grades`.
    pub(super) fn single_gains(&self, grades: &[(Grade, f64)], lower: &[f64]) -> GainTable {
        let mut drawn: Vec<Option<Grade>> = vec![None; self.unjudged_positions.len()];
        let mut table = GainTable::new(grades.len(), lower.len());
        for doc in 0..drawn.len() {
            table.push_document(grades.iter().map(|&(grade, _)| {
                drawn[doc] = Some(grade);
                let scores = self.score(&drawn, Counted::WholeTop);
                drawn[doc] = None;
                scores.iter().zip(lower).map(|(s, l)| s - l).collect()
            }));
        }
        table
    }

    /// [`SAMPLES`] scenarios: in sample s each unjudged document is relevant with the
    /// probability of its log-odds for sample s mod (their number) shifted by a topic effect
    /// drawn with standard deviation `topic_sd`, with a grade drawn by the chances of
    /// `grades`. Returns the scores, the draws and each document's mean probability over the
    /// samples.
    pub(super) fn samples(
        &self,
        topic_id: &str,
        log_odds: &[&[f64]],
        topic_sd: f64,
        grades: &[(Grade, f64)],
    ) -> (Vec<Vec<f64>>, Vec<Vec<Draw>>, Vec<f64>) {
        let mut rng = crate::base::seed::keyed_rng(AUDIT_SEED, topic_id);
        let mut drawn: Vec<Option<Grade>> = vec![None; self.unjudged_positions.len()];
        let mut mean_probabilities = vec![0.0; drawn.len()];
        let mut all_draws = Vec::with_capacity(SAMPLES);
        let scores = (0..SAMPLES)
            .map(|sample| {
                let shift = topic_sd * rng.sample::<f64, _>(rand_distr::StandardNormal);
                let mut draws = vec![Draw::NonRelevant; drawn.len()];
                for (((slot, draw), log_odds), mean) in drawn
                    .iter_mut()
                    .zip(&mut draws)
                    .zip(log_odds)
                    .zip(&mut mean_probabilities)
                {
                    let probability = sigmoid(log_odds[sample % log_odds.len()] + shift);
                    *mean += probability / SAMPLES as f64;
                    *slot = None;
                    if rng.random::<f64>() < probability {
                        let index = pick_grade(grades, rng.random::<f64>());
                        *slot = Some(grades[index].0);
                        *draw = Draw::relevant(index);
                    }
                }
                all_draws.push(draws);
                self.score(&drawn, Counted::WholeTop)
            })
            .collect();
        (scores, all_draws, mean_probabilities)
    }
}

/// Which drawn documents a scenario's grade counts take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Counted {
    /// Those above the measure's depth: the interval's upper end, the best case.
    WithinDepth,
    /// Every drawn document of the top [`AUDIT_DEPTH`]: the samples and the expectation, as
    /// the truth judges the run's whole top.
    WholeTop,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calibrations_grade_factors_scale_the_topics_grade_mix() {
        let judgments: DocumentGrades = [(0, 2), (1, 1), (2, 0)].into_iter().collect();
        let measures = crate::eval::parse_measures(&["ndcg_cut_10"]).unwrap();
        let scenarios = TopicScenarios::new(&judgments, &[0, 1, 2], &measures, 1);
        // Grades 1 and 2 half each; factors 1.5 and 0.5 make them 0.75 and 0.25.
        let chances = scenarios.relevant_grade_chances(&[(1, 1.5), (2, 0.5)]);
        assert_eq!(chances.len(), 2);
        assert!((chances[0].1 - 0.75).abs() < 1e-12 && (chances[1].1 - 0.25).abs() < 1e-12);
        // Without factors, the topic's own mix.
        let chances = scenarios.relevant_grade_chances(&[]);
        assert!((chances[0].1 - 0.5).abs() < 1e-12 && (chances[1].1 - 0.5).abs() < 1e-12);
    }
}
