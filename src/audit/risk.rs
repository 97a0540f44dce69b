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
//! outcomes; once every unjudged document is judged, what remains is what the documents do
//! together beyond their changes alone (MAP's R, nDCG's ideal), which may still move a rank.
//!
//! An at-risk measure *cannot settle* when its own whole list (the list serving it alone,
//! within the cap per topic) leaves its remaining probability above the settle threshold
//! ([`settling`]); the lists then follow it without serving it.

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

/// The measures a list follows: those at risk, whose remaining probabilities it tracks, and
/// among them those it serves, which order the list and end it.
#[derive(Debug, Clone, Copy)]
pub(super) struct ListMeasures<'a> {
    /// Whether each measure is at risk.
    pub(super) at_risk: &'a [bool],
    /// Whether the list serves each measure (at risk, and judging can settle it).
    pub(super) served: &'a [bool],
}

/// When a list stops: once the served measures' remaining probability is at most
/// `threshold`, a rank moving when it changes by at least `rank_margin`, with at most
/// `per_topic` documents of one topic (None: no cap).
#[derive(Debug, Clone, Copy)]
pub(super) struct ListRules {
    pub(super) threshold: f64,
    pub(super) rank_margin: f64,
    pub(super) per_topic: Option<usize>,
}

/// The documents to judge, in priority order: the shortest prefix after which every served
/// measure's remaining probability of a rank move is at most the threshold, with at most
/// `per_topic` documents of any one topic (a document of a topic already served is passed
/// over).
pub(super) fn judging_list(
    outcomes: &[TopicOutcome],
    others: (&OtherRuns, &[TopicShifts]),
    risks: &[MeasureRisk],
    measures: ListMeasures,
    rules: ListRules,
) -> Vec<ListedDoc> {
    let progress = ListProgress::new(outcomes, others, risks, measures, rules.rank_margin);
    let candidates = prioritised(outcomes, others, risks, measures.served);
    list_from(progress, candidates, rules).0
}

/// The prefix of `candidates` that `progress` needs to reach the threshold, within the cap per
/// topic, and the progress once it is judged.
pub(super) fn list_from<'a>(
    mut progress: ListProgress<'a>,
    candidates: Vec<ListedDoc>,
    rules: ListRules,
) -> (Vec<ListedDoc>, ListProgress<'a>) {
    let limit = rules.per_topic.unwrap_or(usize::MAX);
    let mut served = vec![0usize; progress.outcomes.len()];
    let mut listed = Vec::new();
    for candidate in candidates {
        if progress.remaining() <= rules.threshold {
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
    (listed, progress)
}

/// Each measure's remaining probability of a rank move once `listed` is judged (a measure
/// that is not at risk keeps its probability).
pub(super) fn remaining_after(
    outcomes: &[TopicOutcome],
    others: (&OtherRuns, &[TopicShifts]),
    risks: &[MeasureRisk],
    measures: ListMeasures,
    (listed, rank_margin): (&[ListedDoc], f64),
) -> Vec<f64> {
    let mut progress = ListProgress::new(outcomes, others, risks, measures, rank_margin);
    for entry in listed {
        progress.judge(entry.topic, entry.doc);
    }
    (0..risks.len()).map(|m| progress.remaining_of(m)).collect()
}

/// What judging can do for an at-risk measure: whether its own list settles it, and how many
/// documents its rank rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Settling {
    /// Whether judging the measure's own whole list (the list serving it alone, within the cap
    /// per topic) still leaves its remaining probability of a rank move above the threshold.
    pub(super) cannot_settle: bool,
    /// The unjudged documents that can move it (those the list gives a priority), per topic.
    pub(super) documents_per_topic: f64,
    /// Those of them beyond the pool's reach, per topic.
    pub(super) beyond_pool_per_topic: f64,
}

/// What judging can do for at-risk measure `m`: its own list, serving it alone, judged whole
/// within `rules`' cap per topic or until it settles.
pub(super) fn settling(
    outcomes: &[TopicOutcome],
    others: (&OtherRuns, &[TopicShifts]),
    risks: &[MeasureRisk],
    m: usize,
    rules: ListRules,
) -> Settling {
    let only: Vec<bool> = (0..risks.len()).map(|other| other == m).collect();
    let measures = ListMeasures {
        at_risk: &only,
        served: &only,
    };
    let candidates = prioritised(outcomes, others, risks, &only);
    let topics = outcomes.len().max(1) as f64;
    let beyond_pool = (candidates.iter())
        .filter(|c| outcomes[c.topic].audit.unjudged[c.doc].is_beyond_pool)
        .count();
    let documents_per_topic = candidates.len() as f64 / topics;
    let progress = ListProgress::new(outcomes, others, risks, measures, rules.rank_margin);
    let (_, judged) = list_from(progress, candidates, rules);
    Settling {
        cannot_settle: judged.remaining() > rules.threshold,
        documents_per_topic,
        beyond_pool_per_topic: beyond_pool as f64 / topics,
    }
}

/// A run's remaining probability of a rank move as documents of its list are judged one by
/// one, for the measures at risk; the served ones among them decide when the list stops.
pub(super) struct ListProgress<'a> {
    outcomes: &'a [TopicOutcome],
    others: &'a OtherRuns,
    shifts: &'a [TopicShifts],
    risks: &'a [MeasureRisk],
    rank_margin: f64,
    /// The at-risk measures' indices.
    measures: Vec<usize>,
    /// Whether the list serves each of them.
    serves: Vec<bool>,
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
        list: ListMeasures,
        rank_margin: f64,
    ) -> Self {
        let measures: Vec<usize> = (0..risks.len()).filter(|&m| list.at_risk[m]).collect();
        let serves = measures.iter().map(|&m| list.served[m]).collect();
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
            serves,
            left,
            others_left,
            per_measure,
            partly_judged: Vec::new(),
        }
    }

    /// The largest remaining probability over the served measures (0 without one).
    pub(super) fn remaining(&self) -> f64 {
        (self.per_measure.iter().zip(&self.serves))
            .filter(|&(_, &served)| served)
            .map(|(&remaining, _)| remaining)
            .fold(0.0, f64::max)
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

/// Every unjudged document that can move a served measure, by its share of the served
/// measures' expected squared movement relative to the runs around it, highest first (ties:
/// topic, then rank).
pub(super) fn prioritised(
    outcomes: &[TopicOutcome],
    others: (&OtherRuns, &[TopicShifts]),
    risks: &[MeasureRisk],
    served: &[bool],
) -> Vec<ListedDoc> {
    let measures: Vec<usize> = (0..risks.len()).filter(|&m| served[m]).collect();
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
    sort_by_priority(&mut candidates);
    candidates
}

/// Orders candidates for a list: highest priority first, ties by topic and document.
pub(super) fn sort_by_priority(candidates: &mut [ListedDoc]) {
    candidates.sort_by(|a, b| {
        b.priority
            .total_cmp(&a.priority)
            .then(a.topic.cmp(&b.topic))
            .then(a.doc.cmp(&b.doc))
    });
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
                    t.expected_over_grades(doc, |grade, chance| {
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
#[path = "risk_tests.rs"]
mod tests;
