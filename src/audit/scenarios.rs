//! The scenarios of one topic's audit: the run's ranking with its judgments, scored with the
//! unjudged documents of its top [`AUDIT_DEPTH`] given grades; the first-order gain of each
//! document alone ([`GainTable`]) and the Monte-Carlo draws ([`Draw`]).

use rand::Rng;

use super::settings::{AUDIT_DEPTH, AUDIT_SEED, SAMPLES};
use crate::base::{DocId, DocumentGrades, Grade};
use crate::eval::{score_topic, GradeCounts, JudgedRanking, Measure};
use crate::relevance_model::below_level::graded_chance;
use crate::relevance_model::grade_mix::{grade_chances, pick_grade, Side};
use crate::stats::log_odds::sigmoid;

/// The depth whose unjudged documents a measure's interval and expectation consider: its
/// cutoff, at most [`AUDIT_DEPTH`].
pub fn measure_depth(measure: &Measure) -> usize {
    measure.cutoff.unwrap_or(AUDIT_DEPTH).min(AUDIT_DEPTH)
}

/// What one Monte-Carlo scenario drew for one unjudged document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Draw {
    /// Not relevant, with no grade a measure counts.
    NonRelevant,
    /// Relevant, with the grade of this index in the topic's grades.
    Relevant(u8),
    /// Not relevant, with the grade of this index in the topic's grades: one above 0 and
    /// below the relevance level, which graded measures count.
    BelowLevel(u8),
}

impl Draw {
    /// A relevant draw of the grade of index `grade` in the topic's grades.
    pub(super) fn relevant(grade: usize) -> Self {
        Self::Relevant(u8::try_from(grade).expect("fewer than 256 grades"))
    }

    /// The index of the drawn grade in the topic's grades; `None` when nothing a measure
    /// counts was drawn.
    pub(super) fn grade(self) -> Option<usize> {
        match self {
            Self::NonRelevant => None,
            Self::Relevant(grade) | Self::BelowLevel(grade) => Some(usize::from(grade)),
        }
    }
}

/// The grades an unjudged document may get in a topic that some measure counts: first the
/// relevant ones, then those above 0 and below the relevance level.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct GradeMix {
    /// The grades, the relevant ones first.
    pub(super) grades: Vec<Grade>,
    /// The chance of each relevant grade, given relevance.
    relevant: Vec<f64>,
    /// The chance of each grade below the level, given a grade above 0 and no relevance.
    below: Vec<f64>,
}

impl GradeMix {
    /// The relevant grades' chances, given relevance.
    pub(super) fn relevant(&self) -> &[f64] {
        &self.relevant
    }

    /// Whether the topic has grades above 0 and below the level.
    pub(super) fn has_below_level(&self) -> bool {
        !self.below.is_empty()
    }

    /// The expectation over the grades of a document relevant with probability `relevant`
    /// and graded above 0 with probability `graded` (at least `relevant`) of what `term`
    /// gives a grade (its index and its chance on its side of the level): `relevant` times
    /// the relevant grades' terms, plus `graded - relevant` times the lower grades'.
    pub(super) fn expectation(
        &self,
        (relevant, graded): (f64, f64),
        mut term: impl FnMut(usize, f64) -> f64,
    ) -> f64 {
        let relevant_sum: f64 = (self.relevant.iter().enumerate())
            .map(|(index, &chance)| term(index, chance))
            .sum();
        let mut mean = relevant * relevant_sum;
        if !self.below.is_empty() {
            let first = self.relevant.len();
            let below_sum: f64 = (self.below.iter().enumerate())
                .map(|(index, &chance)| term(first + index, chance))
                .sum();
            mean += (graded - relevant) * below_sum;
        }
        mean
    }
}

/// The Monte-Carlo scenarios of a topic's unjudged documents.
pub(super) struct Sampled {
    /// scores[sample][measure].
    pub(super) scores: Vec<Vec<f64>>,
    /// draws[sample][document].
    pub(super) draws: Vec<Vec<Draw>>,
    /// Each document's mean probability of relevance over the samples.
    pub(super) probabilities: Vec<f64>,
    /// Each document's mean probability of a grade above 0 (relevant or not).
    pub(super) graded: Vec<f64>,
}

/// The score change of every measure when one unjudged document alone is judged with one
/// grade, for every unjudged document of a topic and every grade of its [`GradeMix`].
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

    /// The change of `measure` when unjudged document `doc` alone is judged with the
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

    /// The grades an unjudged document may get: the topic's relevant grades in their
    /// proportions scaled by the calibration's grade factors `factors` (see [`grade_chances`]),
    /// and its grades above 0 and below the level in theirs.
    pub(super) fn grades(&self, factors: &[(Grade, f64)]) -> GradeMix {
        let level = self.relevance_level;
        let judged = &self.judged_grades;
        let relevant = grade_chances(judged, level, Side::Relevant, factors);
        let below: Vec<(Grade, f64)> = grade_chances(judged, level, Side::NotRelevant, &[])
            .into_iter()
            .filter(|&(grade, _)| grade > 0)
            .collect();
        let below_total: f64 = below.iter().map(|&(_, chance)| chance).sum();
        GradeMix {
            grades: (relevant.iter().chain(&below)).map(|&(g, _)| g).collect(),
            relevant: relevant.iter().map(|&(_, c)| c).collect(),
            below: below.iter().map(|&(_, c)| c / below_total).collect(),
        }
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
    /// with one of `grades`.
    pub(super) fn single_gains(&self, grades: &[Grade], lower: &[f64]) -> GainTable {
        let mut drawn: Vec<Option<Grade>> = vec![None; self.unjudged_positions.len()];
        let mut table = GainTable::new(grades.len(), lower.len());
        for doc in 0..drawn.len() {
            table.push_document(grades.iter().map(|&grade| {
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
    /// drawn with standard deviation `topic_sd`, with a grade drawn by `grades`' relevant
    /// chances; a document with a shift in `shifts` that is not relevant has a grade above 0
    /// and below the level by [`graded_chance`], drawn by `grades`' chances below the level.
    pub(super) fn samples(
        &self,
        topic_id: &str,
        (log_odds, shifts): (&[&[f64]], &[Option<f64>]),
        topic_sd: f64,
        grades: &GradeMix,
    ) -> Sampled {
        let mut rng = crate::base::seed::keyed_rng(AUDIT_SEED, topic_id);
        let mut drawn: Vec<Option<Grade>> = vec![None; self.unjudged_positions.len()];
        let mut probabilities = vec![0.0; drawn.len()];
        let mut graded = vec![0.0; drawn.len()];
        let mut draws = Vec::with_capacity(SAMPLES);
        let relevant = grades.relevant();
        let scores = (0..SAMPLES)
            .map(|sample| {
                let shift = topic_sd * rng.sample::<f64, _>(rand_distr::StandardNormal);
                let mut sampled = vec![Draw::NonRelevant; drawn.len()];
                for (doc, (slot, draw)) in drawn.iter_mut().zip(&mut sampled).enumerate() {
                    let eta = log_odds[doc][sample % log_odds[doc].len()] + shift;
                    let probability = sigmoid(eta);
                    let below = shifts[doc].map_or(0.0, |shift| graded_chance(eta, shift));
                    probabilities[doc] += probability / SAMPLES as f64;
                    graded[doc] += (probability + (1.0 - probability) * below) / SAMPLES as f64;
                    *slot = None;
                    if rng.random::<f64>() < probability {
                        let index = pick_grade(relevant.iter().copied(), rng.random::<f64>());
                        *slot = Some(grades.grades[index]);
                        *draw = Draw::relevant(index);
                    } else if shifts[doc].is_some() {
                        // Drawn only for a document that may have such a grade, so that the
                        // draws of a topic without one stay as they were.
                        let u = rng.random::<f64>();
                        if u < below {
                            let lower = grades.below.iter().copied();
                            let index = relevant.len() + pick_grade(lower, u / below);
                            *slot = Some(grades.grades[index]);
                            *draw = Draw::BelowLevel(
                                u8::try_from(index).expect("fewer than 256 grades"),
                            );
                        }
                    }
                }
                draws.push(sampled);
                self.score(&drawn, Counted::WholeTop)
            })
            .collect();
        Sampled {
            scores,
            draws,
            probabilities,
            graded,
        }
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
        let mix = scenarios.grades(&[(1, 1.5), (2, 0.5)]);
        assert_eq!(mix.grades, vec![1, 2]);
        let relevant = mix.relevant();
        assert!((relevant[0] - 0.75).abs() < 1e-12 && (relevant[1] - 0.25).abs() < 1e-12);
        // Without factors, the topic's own mix.
        let mix = scenarios.grades(&[]);
        let relevant = mix.relevant();
        assert!((relevant[0] - 0.5).abs() < 1e-12 && (relevant[1] - 0.5).abs() < 1e-12);
        assert!(!mix.has_below_level());
    }

    #[test]
    fn a_document_not_relevant_may_get_a_grade_below_the_level_that_measures_count() {
        // Level 2: judged 3, 2, 1, 0; grade 1 is the one grade above 0 below the level.
        let judgments: DocumentGrades = [(0, 3), (1, 2), (2, 1), (3, 0)].into_iter().collect();
        let measures = crate::eval::parse_measures(&["ndcg_cut_10"]).unwrap();
        let scenarios = TopicScenarios::new(&judgments, &[6, 7], &measures, 2);
        let mix = scenarios.grades(&[]);
        assert_eq!(mix.grades, vec![2, 3, 1]);
        // Relevant with chance 0.25 (grades 2 and 3 half each), graded 1 with chance 0.3.
        let chance_of =
            |grade| mix.expectation((0.25, 0.55), |g, c| if g == grade { c } else { 0.0 });
        let want = [0.125, 0.125, 0.3];
        assert!((0..3).all(|g| (chance_of(g) - want[g]).abs() < 1e-12));
        // Documents never relevant: the first, with shift 3 at log-odds -1, is graded 1 with
        // the chance sigmoid(2), the second, without a shift, never.
        let log_odds: [&[f64]; 2] = [&[-1.0], &[-1.0]];
        let sampled = scenarios.samples("t", (&log_odds, &[Some(3.0), None]), 0.0, &mix);
        let graded = |doc: usize| {
            let count = (sampled.draws.iter())
                .filter(|d| matches!(d[doc], Draw::BelowLevel(2)))
                .count();
            count as f64 / SAMPLES as f64
        };
        let relevant = sigmoid(-1.0);
        let chance = (sigmoid(2.0) - relevant) / (1.0 - relevant);
        assert!(
            (graded(0) - (1.0 - relevant) * chance).abs() < 0.1,
            "{}",
            graded(0)
        );
        assert_eq!(graded(1), 0.0);
        assert!((sampled.graded[0] - sigmoid(2.0)).abs() < 1e-12);
        assert!((sampled.graded[1] - relevant).abs() < 1e-12);
        let with_grade_one = (sampled.draws.iter().zip(&sampled.scores))
            .find(|(d, _)| d[0] == Draw::BelowLevel(2) && d[1] == Draw::NonRelevant)
            .expect("a sample where only the first document is graded 1");
        assert!(with_grade_one.1[0] > 0.0, "nDCG counts a passage graded 1");
    }
}
