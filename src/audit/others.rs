//! How the other runs move with the audited run's documents. Judging the audited run's unjudged
//! documents changes every run's score, not only its own: a document another run also ranks
//! lifts that run too, and one it does not rank still lowers it through the judgments' grade
//! counts (R for MAP, the ideal ranking for nDCG). The truth the audit is judged by scores
//! every run on the completed judgments, so the rank risk does the same: in each Monte-Carlo
//! sample, every other run's score is its collection score plus the first-order change of each
//! audited document drawn relevant in that sample (that document alone judged relevant with its
//! drawn grade; the changes of several documents add up).

use super::topic::TopicOutcome;
use crate::base::{DocId, DocumentGrades, Grade};
use crate::collection::TopicData;
use crate::eval::{score_topic, GradeCounts, JudgedRanking, Measure};
use crate::sim::scoring::ScoreTable;

/// The other runs of an audit: their collection scores and how much one topic's change moves
/// their overall score.
#[derive(Debug, Clone)]
pub(super) struct OtherRuns {
    /// The other runs' collection indices.
    runs: Vec<usize>,
    /// collection[measure][other]: the score on the collection.
    collection: Vec<Vec<f64>>,
    /// weights[measure][other]: the change of the overall score per unit change of one topic's
    /// score (1 / the run's topics for a mean, 1 for a count).
    weights: Vec<Vec<f64>>,
}

impl OtherRuns {
    /// Every run of `scores` but `run`, for `measures`.
    pub(super) fn new(scores: &ScoreTable, measures: &[Measure], run: usize) -> Self {
        let runs: Vec<usize> = (0..scores.summary.len())
            .filter(|&other| other != run)
            .collect();
        let collection = (0..measures.len())
            .map(|m| runs.iter().map(|&other| scores.summary[other][m]).collect())
            .collect();
        let weights = measures
            .iter()
            .map(|measure| {
                runs.iter()
                    .map(|&other| {
                        let topics = scores.per_topic[other].iter().flatten().count();
                        if measure.info().is_count() || topics == 0 {
                            1.0
                        } else {
                            1.0 / topics as f64
                        }
                    })
                    .collect()
            })
            .collect();
        Self {
            runs,
            collection,
            weights,
        }
    }

    /// The other runs' collection scores of `measure`.
    pub(super) fn collection_scores(&self, measure: usize) -> &[f64] {
        &self.collection[measure]
    }

    /// samples[sample][other]: every other run's score of `measure` in each sample of
    /// `outcomes`, whose topics `shifts` describe.
    pub(super) fn sample_scores(
        &self,
        outcomes: &[TopicOutcome],
        shifts: &[TopicShifts],
        measure: usize,
    ) -> Vec<Vec<f64>> {
        let samples = outcomes.first().map_or(0, |t| t.samples.len());
        (0..samples)
            .map(|sample| {
                let mut scores = self.collection[measure].clone();
                for (outcome, shift) in outcomes.iter().zip(shifts) {
                    for doc in 0..outcome.unjudged_ids.len() {
                        if let Some(grade) = outcome.drawn_grade(sample, doc) {
                            self.add_change(shift, doc, grade, measure, 1.0, &mut scores);
                        }
                    }
                }
                scores
            })
            .collect()
    }

    /// Adds `scale` times the overall change of every other run when unjudged document `doc`
    /// of `shift`'s topic is judged with the topic's grade index `grade`.
    pub(super) fn add_change(
        &self,
        shift: &TopicShifts,
        doc: usize,
        grade: usize,
        measure: usize,
        scale: f64,
        out: &mut [f64],
    ) {
        let weights = &self.weights[measure];
        let slot = shift.slot(grade, measure);
        let stride = shift.stride;
        for ((out, weight), absent) in out
            .iter_mut()
            .zip(weights)
            .zip(shift.absent.chunks_exact(stride))
        {
            *out += scale * weight * absent[slot];
        }
        for (other, delta) in &shift.ranked[doc] {
            let other = *other as usize;
            out[other] += scale * weights[other] * delta[slot];
        }
    }

    /// The position among the other runs of run `run` (a collection index).
    pub(super) fn position(&self, run: usize) -> Option<usize> {
        self.runs.binary_search(&run).ok()
    }

    /// The change of the topic score (not the overall score) of the other run at `position`
    /// when unjudged document `doc` of `shift`'s topic is judged relevant with the topic's
    /// grade index `grade`.
    pub(super) fn topic_change(
        &self,
        shift: &TopicShifts,
        (doc, grade): (usize, usize),
        measure: usize,
        position: usize,
    ) -> f64 {
        let slot = shift.slot(grade, measure);
        let ranked = (shift.ranked[doc].iter())
            .find(|(other, _)| *other as usize == position)
            .map_or(0.0, |(_, delta)| delta[slot]);
        shift.absent[position * shift.stride + slot] + ranked
    }

    /// Computes what the unjudged documents `unjudged` of one topic do to each other run's
    /// topic score, for each of the topic's relevant `grades`.
    pub(super) fn topic_shifts(
        &self,
        topic: &TopicData,
        judgments: &DocumentGrades,
        unjudged: &[DocId],
        grades: &[Grade],
        (measures, level): (&[Measure], Grade),
    ) -> TopicShifts {
        let stride = grades.len() * measures.len();
        // Beyond every cutoff a ranked document changes a run as an unranked one does.
        let depth = if measures.iter().any(|m| m.cutoff.is_none()) {
            usize::MAX
        } else {
            measures.iter().filter_map(|m| m.cutoff).max().unwrap_or(0)
        };
        let judged: Vec<Grade> = judgments.values().copied().collect();
        let counts = GradeCounts::from_grades(judged.iter().copied());
        let counts_with: Vec<GradeCounts> = grades
            .iter()
            .map(|&grade| {
                GradeCounts::from_grades(judged.iter().copied().chain(std::iter::once(grade)))
            })
            .collect();
        let mut ranked_grades: Vec<Vec<Option<Grade>>> = self
            .runs
            .iter()
            .map(|&run| {
                topic.rankings[run]
                    .iter()
                    .map(|doc| judgments.get(doc).copied())
                    .collect()
            })
            .collect();
        let score = |grades: &[Option<Grade>], counts: &GradeCounts| {
            score_topic(measures, &JudgedRanking { grades, counts }, level)
        };
        let base: Vec<Vec<f64>> = ranked_grades.iter().map(|g| score(g, &counts)).collect();
        let mut absent = vec![0.0; stride * self.runs.len()];
        for ((grades_of_run, base), absent) in ranked_grades
            .iter()
            .zip(&base)
            .zip(absent.chunks_exact_mut(stride))
        {
            if grades_of_run.is_empty() {
                continue;
            }
            for (grade, counts) in counts_with.iter().enumerate() {
                let values = score(grades_of_run, counts);
                for (m, (value, base)) in values.iter().zip(base).enumerate() {
                    absent[grade * measures.len() + m] = value - base;
                }
            }
        }
        let ranked = unjudged
            .iter()
            .map(|doc| {
                let Ok(pos) = topic.retrieved.binary_search(doc) else {
                    return Vec::new();
                };
                topic.hits[pos]
                    .iter()
                    .filter(|&&(_, rank)| (rank as usize) <= depth)
                    .filter_map(|&(run, rank)| {
                        // `runs` is sorted: a run's position in it is its index among the others.
                        let other = self.runs.binary_search(&(run as usize)).ok()?;
                        let position = rank as usize - 1;
                        let run_grades = &mut ranked_grades[other];
                        let mut delta = vec![0.0; stride];
                        for (grade, (&value, counts)) in grades.iter().zip(&counts_with).enumerate()
                        {
                            run_grades[position] = Some(value);
                            let values = score(run_grades, counts);
                            let absent = &absent[other * stride..][..stride];
                            for (m, (value, base)) in values.iter().zip(&base[other]).enumerate() {
                                let slot = grade * measures.len() + m;
                                delta[slot] = value - base - absent[slot];
                            }
                        }
                        run_grades[position] = None;
                        Some((other as u32, delta))
                    })
                    .collect()
            })
            .collect();
        TopicShifts {
            stride,
            measures: measures.len(),
            absent,
            ranked,
        }
    }
}

/// What one topic's unjudged documents of the audited run do to the other runs' topic scores.
#[derive(Debug, Clone)]
pub(super) struct TopicShifts {
    /// Values per other run: grades × measures.
    stride: usize,
    measures: usize,
    /// absent[other * stride + grade * measures + measure]: the change of an other run's topic
    /// score when a document it does not rank within the measures' cutoffs is judged relevant.
    absent: Vec<f64>,
    /// ranked[doc]: for each other run that ranks unjudged document `doc` within the cutoffs,
    /// its change beyond `absent` (grade × measure).
    ranked: Vec<Vec<(u32, Vec<f64>)>>,
}

impl TopicShifts {
    fn slot(&self, grade: usize, measure: usize) -> usize {
        grade * self.measures + measure
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::eval::Family;

    /// A topic whose runs rank `rankings` (run index order).
    pub(in crate::audit) fn topic(rankings: Vec<Vec<DocId>>) -> TopicData {
        let mut hits: std::collections::BTreeMap<DocId, Vec<(u32, u32)>> = Default::default();
        for (run, ranking) in rankings.iter().enumerate() {
            for (pos, &doc) in ranking.iter().enumerate() {
                hits.entry(doc)
                    .or_default()
                    .push((run as u32, pos as u32 + 1));
            }
        }
        TopicData {
            id: "1".into(),
            retrieved: hits.keys().copied().collect(),
            hits: hits.into_values().collect(),
            pool_rankings: rankings.clone(),
            rankings,
            grades: DocumentGrades::default(),
            text_seed: None,
        }
    }

    /// The score table of one topic's `rankings` on `judgments` (relevance level 1).
    pub(in crate::audit) fn table(
        rankings: &[Vec<DocId>],
        judgments: &DocumentGrades,
        measures: &[Measure],
    ) -> ScoreTable {
        let counts = GradeCounts::from_grades(judgments.values().copied());
        let per_topic: Vec<Vec<Option<Vec<f64>>>> = rankings
            .iter()
            .map(|ranking| {
                let grades: Vec<Option<Grade>> = ranking
                    .iter()
                    .map(|doc| judgments.get(doc).copied())
                    .collect();
                let ranking = JudgedRanking {
                    grades: &grades,
                    counts: &counts,
                };
                vec![Some(score_topic(measures, &ranking, 1))]
            })
            .collect();
        ScoreTable {
            summary: per_topic.iter().map(|t| t[0].clone().unwrap()).collect(),
            per_topic,
        }
    }

    /// Each document's change for each other run equals scoring that run again with the
    /// document judged.
    #[test]
    fn changes_equal_rescoring_with_the_document_judged() {
        let rankings: Vec<Vec<DocId>> = vec![
            vec![0, 1, 2, 3], // the audited run
            vec![4, 0, 5, 1],
            vec![5, 4, 6, 7],
        ];
        let topic = topic(rankings.clone());
        let judgments: DocumentGrades = [(4, 1), (5, 0), (6, 2), (3, 1)].into_iter().collect();
        let measures = [
            Measure::new(Family::AveragePrecision, None),
            Measure::new(Family::Precision, Some(2)),
            Measure::new(Family::Ndcg, Some(2)),
        ];
        let table = table(&rankings, &judgments, &measures);
        let others = OtherRuns::new(&table, &measures, 0);
        let unjudged: [DocId; 3] = [0, 1, 2];
        let grades = [1, 2];
        let shifts = others.topic_shifts(&topic, &judgments, &unjudged, &grades, (&measures, 1));
        for (doc_index, &doc) in unjudged.iter().enumerate() {
            for (grade_index, &grade) in grades.iter().enumerate() {
                let mut judged = judgments.clone();
                judged.insert(doc, grade);
                let rescored = super::tests::table(&rankings, &judged, &measures);
                for m in 0..measures.len() {
                    let mut changed = vec![0.0; 2];
                    others.add_change(&shifts, doc_index, grade_index, m, 1.0, &mut changed);
                    for (other, run) in [1usize, 2].into_iter().enumerate() {
                        let expected = rescored.summary[run][m] - table.summary[run][m];
                        let position = others.position(run).unwrap();
                        let topic_change =
                            others.topic_change(&shifts, (doc_index, grade_index), m, position);
                        assert!((topic_change - expected).abs() < 1e-12);
                        assert!(
                            (changed[other] - expected).abs() < 1e-12,
                            "doc {doc_index} grade {grade} measure {m} run {run}: {} vs {expected}",
                            changed[other]
                        );
                    }
                }
            }
        }
    }
}
