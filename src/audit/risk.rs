//! The verdict's figures: how likely the run's rank among the task's runs is to move once its
//! unjudged documents are judged, and the shortest list of documents whose judgments are
//! expected to settle it.
//!
//! The run's score in Monte-Carlo sample s is the mean over topics of the sampled topic scores;
//! the run's rank in that sample is its rank among the other runs' scores in the same sample,
//! which move with the audited run's documents drawn relevant there ([`super::others`]).
//! `P(rank moves)` is the fraction of samples whose rank differs from the collection's rank by
//! at least the rank margin.
//!
//! Judging a set of documents replaces, in each sample, every run's collection score by the
//! collection's score plus those documents' sampled gains (first order, [`TopicOutcome`] and
//! [`super::others`]); the *remaining* probability is then the fraction of samples whose full
//! scores still rank the run at least the margin away from its rank on those partly judged
//! scores. It is 1 − (what judging those documents settles), in expectation over their
//! outcomes; it reaches 0 when every unjudged document is judged.

use super::others::{OtherRuns, TopicShifts};
use super::topic::TopicOutcome;
use crate::stats::rank::{quantile, rank_among};

/// The scores of the other runs, sorted, for rank look-ups.
#[derive(Debug, Clone)]
pub(super) struct Standings {
    sorted: Vec<f64>,
}

impl Standings {
    pub(super) fn new(mut scores: Vec<f64>) -> Self {
        scores.sort_by(f64::total_cmp);
        Self { sorted: scores }
    }

    /// The number of other runs.
    pub(super) fn len(&self) -> usize {
        self.sorted.len()
    }

    /// The rank of a run scoring `score` (1 = best; ties share the average rank), as
    /// [`rank_among`] defines it.
    pub(super) fn rank(&self, score: f64) -> f64 {
        let not_above = self.sorted.partition_point(|&o| o <= score);
        let below = self.sorted.partition_point(|&o| o < score);
        let better = self.sorted.len() - not_above;
        1.0 + better as f64 + (not_above - below) as f64 / 2.0
    }
}

/// One measure's rank risk.
#[derive(Debug, Clone)]
pub(super) struct MeasureRisk {
    /// The run's score on the collection (its unjudged documents non-relevant).
    pub(super) collection_score: f64,
    /// The run's score in each sample (mean over topics).
    pub(super) sample_scores: Vec<f64>,
    /// The other runs on the collection.
    pub(super) standings: Standings,
    /// other_samples[sample][other]: the other runs' scores in each sample.
    pub(super) other_samples: Vec<Vec<f64>>,
    /// The run's rank among the other runs in each sample.
    pub(super) sample_ranks: Vec<f64>,
    /// The fraction of samples whose rank moves by at least the margin.
    pub(super) probability_rank_moves: f64,
}

/// Whether two ranks differ by at least `margin`.
fn moves(a: f64, b: f64, margin: f64) -> bool {
    (a - b).abs() >= margin
}

/// The rank risk of `measure` over the topics' outcomes, against the other runs' scores, which
/// `shifts` (one per outcome) move.
pub(super) fn measure_risk(
    outcomes: &[TopicOutcome],
    (others, shifts): (&OtherRuns, &[TopicShifts]),
    measure: usize,
    collection_score: f64,
    rank_margin: f64,
) -> MeasureRisk {
    let samples = outcomes.first().map_or(0, |t| t.samples.len());
    let sample_scores: Vec<f64> = (0..samples)
        .map(|s| {
            outcomes.iter().map(|t| t.samples[s][measure]).sum::<f64>() / outcomes.len() as f64
        })
        .collect();
    let standings = Standings::new(others.collection_scores(measure).to_vec());
    let other_samples = others.sample_scores(outcomes, shifts, measure);
    let collection_rank = standings.rank(collection_score);
    let sample_ranks: Vec<f64> = sample_scores
        .iter()
        .zip(&other_samples)
        .map(|(&score, others)| rank_among(others, score))
        .collect();
    let moved = sample_ranks
        .iter()
        .filter(|&&rank| moves(rank, collection_rank, rank_margin))
        .count();
    MeasureRisk {
        collection_score,
        probability_rank_moves: fraction(moved, sample_scores.len()),
        sample_scores,
        standings,
        other_samples,
        sample_ranks,
    }
}

fn fraction(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// One document of the judging list.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ListedDoc {
    /// Index of its topic among the outcomes.
    pub(super) topic: usize,
    /// Index among the topic's unjudged documents.
    pub(super) doc: usize,
    /// Its share of the at-risk measures' expected squared movement relative to the runs within
    /// reach (summed over them).
    pub(super) priority: f64,
    /// The largest remaining probability of a rank move over the at-risk measures once this
    /// document and every one before it are judged.
    pub(super) remaining: f64,
}

/// The documents to judge, in priority order: the shortest prefix after which every at-risk
/// measure's remaining probability of a rank move is at most `threshold`, with at most
/// `per_topic` documents of any one topic (a document of a topic already served is passed
/// over). `at_risk[m]` names the measures the list serves.
pub(super) fn judging_list(
    outcomes: &[TopicOutcome],
    others: (&OtherRuns, &[TopicShifts]),
    risks: &[MeasureRisk],
    at_risk: &[bool],
    threshold: f64,
    rank_margin: f64,
    per_topic: Option<usize>,
) -> Vec<ListedDoc> {
    let mut progress = ListProgress::new(outcomes, others, risks, at_risk, rank_margin);
    let limit = per_topic.unwrap_or(usize::MAX);
    let mut served = vec![0usize; outcomes.len()];
    let mut listed = Vec::new();
    for candidate in prioritised(outcomes, others, risks, at_risk) {
        if progress.remaining() <= threshold {
            break;
        }
        if served[candidate.topic] >= limit {
            continue;
        }
        served[candidate.topic] += 1;
        listed.push(ListedDoc {
            remaining: progress.judge(candidate.topic, candidate.doc),
            ..candidate
        });
    }
    listed
}

/// A run's remaining probability of a rank move as documents of its list are judged one by
/// one, for the measures at risk.
pub(super) struct ListProgress<'a> {
    outcomes: &'a [TopicOutcome],
    others: &'a OtherRuns,
    shifts: &'a [TopicShifts],
    risks: &'a [MeasureRisk],
    rank_margin: f64,
    /// The at-risk measures' indices.
    measures: Vec<usize>,
    /// left[m][s]: what the unjudged documents still add to sample s's score.
    left: Vec<Vec<f64>>,
    /// others_left[m][s][other]: what they still add to the other runs'.
    others_left: Vec<Vec<Vec<f64>>>,
    /// Each at-risk measure's remaining probability.
    per_measure: Vec<f64>,
    partly_judged: Vec<f64>,
}

impl<'a> ListProgress<'a> {
    /// Nothing judged yet: the remaining probability is the probability of a rank move.
    pub(super) fn new(
        outcomes: &'a [TopicOutcome],
        (others, shifts): (&'a OtherRuns, &'a [TopicShifts]),
        risks: &'a [MeasureRisk],
        at_risk: &[bool],
        rank_margin: f64,
    ) -> Self {
        let measures: Vec<usize> = (0..risks.len()).filter(|&m| at_risk[m]).collect();
        let left = measures
            .iter()
            .map(|&m| {
                let risk = &risks[m];
                risk.sample_scores
                    .iter()
                    .map(|score| score - risk.collection_score)
                    .collect()
            })
            .collect();
        let others_left = measures
            .iter()
            .map(|&m| {
                let collection = others.collection_scores(m);
                risks[m]
                    .other_samples
                    .iter()
                    .map(|scores| scores.iter().zip(collection).map(|(s, c)| s - c).collect())
                    .collect()
            })
            .collect();
        let per_measure = measures
            .iter()
            .map(|&m| risks[m].probability_rank_moves)
            .collect();
        Self {
            outcomes,
            others,
            shifts,
            risks,
            rank_margin,
            measures,
            left,
            others_left,
            per_measure,
            partly_judged: Vec::new(),
        }
    }

    /// The largest remaining probability over the at-risk measures (0 without one).
    pub(super) fn remaining(&self) -> f64 {
        self.per_measure.iter().copied().fold(0.0, f64::max)
    }

    /// The remaining probability of measure `m` (its probability of a rank move when it is
    /// not at risk).
    pub(super) fn remaining_of(&self, m: usize) -> f64 {
        self.measures
            .iter()
            .position(|&at_risk| at_risk == m)
            .map_or(self.risks[m].probability_rank_moves, |i| {
                self.per_measure[i]
            })
    }

    /// Judges unjudged document `doc` of outcome `topic`; returns [`Self::remaining`].
    pub(super) fn judge(&mut self, topic: usize, doc: usize) -> f64 {
        let outcome = &self.outcomes[topic];
        let topics = self.outcomes.len() as f64;
        let shift = &self.shifts[topic];
        for (((&m, left), others_left), current) in self
            .measures
            .iter()
            .zip(&mut self.left)
            .zip(&mut self.others_left)
            .zip(&mut self.per_measure)
        {
            let risk = &self.risks[m];
            let mut moved = 0;
            for (s, (left, others_left)) in left.iter_mut().zip(others_left.iter_mut()).enumerate()
            {
                *left -= outcome.sampled_gain(s, doc, m) / topics;
                if let Some(grade) = outcome.drawn_grade(s, doc) {
                    self.others
                        .add_change(shift, doc, grade, m, -1.0, others_left);
                }
                self.partly_judged.clear();
                let others_full = risk.other_samples[s].iter();
                self.partly_judged
                    .extend(others_full.zip(others_left.iter()).map(|(f, l)| f - l));
                let partly_judged_rank =
                    rank_among(&self.partly_judged, risk.sample_scores[s] - *left);
                if moves(risk.sample_ranks[s], partly_judged_rank, self.rank_margin) {
                    moved += 1;
                }
            }
            *current = fraction(moved, left.len());
        }
        self.remaining()
    }
}

/// Every unjudged document that can move an at-risk measure, by its share of the measures'
/// expected squared movement relative to the runs around it, highest first (ties: topic, then
/// rank).
pub(super) fn prioritised(
    outcomes: &[TopicOutcome],
    others: (&OtherRuns, &[TopicShifts]),
    risks: &[MeasureRisk],
    at_risk: &[bool],
) -> Vec<ListedDoc> {
    let measures: Vec<usize> = (0..risks.len()).filter(|&m| at_risk[m]).collect();
    let movements: Vec<Vec<Vec<f64>>> = measures
        .iter()
        .map(|&m| relative_movements(outcomes, others, &risks[m], m))
        .collect();
    let totals: Vec<f64> = movements
        .iter()
        .map(|topics| topics.iter().flatten().sum())
        .collect();
    let mut candidates: Vec<ListedDoc> = outcomes
        .iter()
        .enumerate()
        .flat_map(|(topic, t)| {
            let (totals, movements) = (&totals, &movements);
            (0..t.unjudged_ids.len()).map(move |doc| ListedDoc {
                topic,
                doc,
                priority: movements
                    .iter()
                    .zip(totals)
                    .filter(|&(_, &total)| total > 0.0)
                    .map(|(movement, total)| movement[topic][doc] / total)
                    .sum(),
                remaining: f64::NAN,
            })
        })
        .filter(|candidate| candidate.priority > 0.0)
        .collect();
    candidates.sort_by(|a, b| {
        b.priority
            .total_cmp(&a.priority)
            .then(a.topic.cmp(&b.topic))
            .then(a.doc.cmp(&b.doc))
    });
    candidates
}

/// movements[topic][doc]: the expected squared change that judging the document brings to the
/// run's score of `measure` less the score of each run it can pass or be passed by (the mean
/// over those runs; the run's own change when there are none): probability × E[change²] over
/// its grades.
fn relative_movements(
    outcomes: &[TopicOutcome],
    (others, shifts): (&OtherRuns, &[TopicShifts]),
    risk: &MeasureRisk,
    measure: usize,
) -> Vec<Vec<f64>> {
    let neighbours = neighbours(risk, others.collection_scores(measure));
    let topics = outcomes.len() as f64;
    let mut changes = vec![0.0; others.collection_scores(measure).len()];
    outcomes
        .iter()
        .zip(shifts)
        .map(|(t, shift)| {
            (0..t.unjudged_ids.len())
                .map(|doc| {
                    let mean_square: f64 = t
                        .grades
                        .iter()
                        .enumerate()
                        .map(|(grade, &(_, chance))| {
                            let own = t.gains.gain(doc, grade, measure) / topics;
                            if neighbours.is_empty() {
                                return chance * own * own;
                            }
                            changes.fill(0.0);
                            others.add_change(shift, doc, grade, measure, 1.0, &mut changes);
                            let square = neighbours
                                .iter()
                                .map(|&other| (own - changes[other]).powi(2))
                                .sum::<f64>()
                                / neighbours.len() as f64;
                            chance * square
                        })
                        .sum();
                    t.audit.unjudged[doc].probability * mean_square
                })
                .collect()
        })
        .collect()
}

/// The other runs whose collection scores lie within the run's reach: between its collection
/// score and its sampled scores' 5% and 95% quantiles.
fn neighbours(risk: &MeasureRisk, collection: &[f64]) -> Vec<usize> {
    let mut sampled = risk.sample_scores.clone();
    sampled.sort_by(f64::total_cmp);
    let low = quantile(&sampled, 0.05).min(risk.collection_score);
    let high = quantile(&sampled, 0.95).max(risk.collection_score);
    (0..collection.len())
        .filter(|&other| (low..=high).contains(&collection[other]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::others::tests::{table, topic};
    use crate::audit::scenarios::{Draw, GainTable};
    use crate::audit::topic::{TopicAudit, UnjudgedDoc};
    use crate::base::{DocId, DocumentGrades};
    use crate::eval::{Family, Measure};

    /// A draw of the topic's one relevant grade when `is_relevant`.
    fn relevant_if(is_relevant: bool) -> Draw {
        if is_relevant {
            Draw::relevant(0)
        } else {
            Draw::NonRelevant
        }
    }

    /// One topic whose first ranking is the audited run's, with `unjudged` its unjudged
    /// documents (ranked first, each with probability 0.5 and one relevant grade, drawn as
    /// `draws` and each adding `gain` to its score on `measure`), and the other runs moved by
    /// them.
    fn one_topic(
        rankings: Vec<Vec<DocId>>,
        judgments: &DocumentGrades,
        measure: Measure,
        unjudged: &[DocId],
        (draws, gain): (Vec<Vec<Draw>>, f64),
    ) -> (TopicOutcome, OtherRuns, Vec<TopicShifts>) {
        let measures = [measure];
        let others = OtherRuns::new(&table(&rankings, judgments, &measures), &measures, 0);
        let grades = vec![(1, 1.0)];
        let shifts = vec![others.topic_shifts(
            &topic(rankings),
            judgments,
            unjudged,
            &grades,
            (&measures, 1),
        )];
        let mut gains = GainTable::new(1, 1);
        for _ in unjudged {
            gains.push_document([vec![gain]]);
        }
        let outcome = TopicOutcome {
            audit: TopicAudit {
                topic: "1".into(),
                coverage: Default::default(),
                is_model_fitted: true,
                unjudged: (1..=unjudged.len())
                    .map(|rank| UnjudgedDoc {
                        docid: format!("new{rank}"),
                        rank,
                        probability: 0.5,
                        is_beyond_pool: false,
                    })
                    .collect(),
                scores: Vec::new(),
            },
            unjudged_ids: unjudged.to_vec(),
            samples: draws
                .iter()
                .map(|d| vec![d.iter().filter_map(|drawn| drawn.grade()).count() as f64 * gain])
                .collect(),
            draws,
            grades,
            gains,
        };
        (outcome, others, shifts)
    }

    /// P@1 of an audited run whose one unjudged document, ranked first, is drawn relevant in
    /// half the samples; the task's two runs that score 1 rank a judged relevant document first,
    /// and its two runs that score 0 rank `rivals_first` first. Returns the risk and the other
    /// runs' sampled scores.
    fn p1_risk(rivals_first: DocId) -> (MeasureRisk, Vec<Vec<f64>>) {
        const NEW: DocId = 9;
        let judgments: DocumentGrades = [(1, 1), (2, 0)].into_iter().collect();
        let rankings: Vec<Vec<DocId>> = vec![
            vec![NEW, 2],
            vec![1, 2],
            vec![1, 2],
            vec![rivals_first, 2],
            vec![rivals_first, 2],
        ];
        let draws: Vec<Vec<Draw>> = (0..10).map(|s| vec![relevant_if(s % 2 == 0)]).collect();
        let measure = Measure::new(Family::Precision, Some(1));
        let (outcome, others, shifts) =
            one_topic(rankings, &judgments, measure, &[NEW], (draws, 1.0));
        let outcomes = [outcome];
        (
            measure_risk(&outcomes, (&others, &shifts), 0, 0.0, 2.0),
            others.sample_scores(&outcomes, &shifts, 0),
        )
    }

    /// The judging list of a run ranking two unjudged documents first on P@2, each drawn
    /// relevant in half the samples (independently); the two runs tied with it rank the first
    /// of them first too, and the task's two best runs rank judged relevant documents.
    #[test]
    fn the_list_puts_a_document_the_nearby_runs_share_after_one_only_the_run_ranks() {
        let judgments: DocumentGrades = [(1, 1), (2, 0), (3, 1), (4, 0)].into_iter().collect();
        let rankings: Vec<Vec<DocId>> = vec![
            vec![8, 9, 2],
            vec![1, 3, 2],
            vec![1, 3, 2],
            vec![8, 2, 4],
            vec![8, 2, 4],
        ];
        let draws: Vec<Vec<Draw>> = (0..8)
            .map(|s| vec![relevant_if(s % 2 == 0), relevant_if(s / 2 % 2 == 0)])
            .collect();
        let measure = Measure::new(Family::Precision, Some(2));
        let (outcome, others, shifts) =
            one_topic(rankings, &judgments, measure, &[8, 9], (draws, 0.5));
        let outcomes = [outcome];
        let risk = measure_risk(&outcomes, (&others, &shifts), 0, 0.0, 2.0);
        let listed = judging_list(
            &outcomes,
            (&others, &shifts),
            std::slice::from_ref(&risk),
            &[true],
            0.0,
            2.0,
            None,
        );
        let order: Vec<usize> = listed.iter().map(|entry| entry.doc).collect();
        assert_eq!(order[0], 1, "{listed:?}");
        assert!(listed[0].priority > listed.get(1).map_or(0.0, |e| e.priority));
    }

    /// The run ranks 4th of 5 on the collection; found relevant, its document lifts it to 2nd,
    /// unless the two runs tied with it rank that document first too and rise with it (3rd).
    #[test]
    fn other_runs_that_rank_the_same_documents_rise_with_them() {
        let (alone, _) = p1_risk(2);
        assert_eq!(alone.standings.rank(0.0), 4.0);
        assert_eq!(alone.probability_rank_moves, 0.5);
        let (shared, other_samples) = p1_risk(9);
        assert_eq!(shared.standings.rank(0.0), 4.0);
        assert_eq!(shared.probability_rank_moves, 0.0);
        assert_eq!(other_samples[0], vec![1.0; 4]);
        assert_eq!(other_samples[1], vec![1.0, 1.0, 0.0, 0.0]);
    }

    #[test]
    fn standings_rank_as_rank_among_does() {
        let others = vec![0.5, 0.3, 0.3, 0.1];
        let standings = Standings::new(others.clone());
        for score in [0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0] {
            assert_eq!(standings.rank(score), rank_among(&others, score), "{score}");
        }
    }
}
