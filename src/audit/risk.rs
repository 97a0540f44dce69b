//! The verdict's figures: how likely the run's rank among the task's runs is to move once its
//! unjudged documents are judged, and the shortest list of documents whose judgments are
//! expected to settle it.
//!
//! The run's score in Monte-Carlo sample s is the mean over topics of the sampled topic scores;
//! the run's rank in that sample is its rank among the other runs' scores on the collection.
//! `P(rank moves)` is the fraction of samples whose rank differs from the collection's rank by
//! at least the rank margin.
//!
//! Judging a set of documents replaces, in each sample, the collection's score by the
//! collection's score plus those documents' sampled gains (first order, [`TopicOutcome`]); the
//! *remaining* probability is then the fraction of samples whose full score still ranks the
//! run at least the margin away from that partly judged score. It is 1 − (what judging those
//! documents settles), in expectation over their outcomes; it reaches 0 when every unjudged
//! document is judged.

use super::topic::TopicOutcome;

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
    /// [`super::rank_among`] defines it.
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
    /// The other runs.
    pub(super) standings: Standings,
    /// The fraction of samples whose rank moves by at least the margin.
    pub(super) probability_rank_moves: f64,
}

/// Whether two ranks differ by at least `margin`.
fn moves(a: f64, b: f64, margin: f64) -> bool {
    (a - b).abs() >= margin
}

/// The rank risk of `measure` over the topics' outcomes, against the other runs' scores.
pub(super) fn measure_risk(
    outcomes: &[TopicOutcome],
    measure: usize,
    collection_score: f64,
    others: Vec<f64>,
    rank_margin: f64,
) -> MeasureRisk {
    let samples = outcomes.first().map_or(0, |t| t.samples.len());
    let sample_scores: Vec<f64> = (0..samples)
        .map(|s| {
            outcomes.iter().map(|t| t.samples[s][measure]).sum::<f64>() / outcomes.len() as f64
        })
        .collect();
    let standings = Standings::new(others);
    let collection_rank = standings.rank(collection_score);
    let moved = sample_scores
        .iter()
        .filter(|&&score| moves(standings.rank(score), collection_rank, rank_margin))
        .count();
    MeasureRisk {
        collection_score,
        probability_rank_moves: fraction(moved, sample_scores.len()),
        sample_scores,
        standings,
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
    /// Its share of the at-risk measures' expected squared movement (summed over them).
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
    risks: &[MeasureRisk],
    at_risk: &[bool],
    threshold: f64,
    rank_margin: f64,
    per_topic: Option<usize>,
) -> Vec<ListedDoc> {
    let measures: Vec<usize> = (0..risks.len()).filter(|&m| at_risk[m]).collect();
    if measures.is_empty() {
        return Vec::new();
    }
    let mut candidates = prioritised(outcomes, &measures);
    let topics = outcomes.len() as f64;
    // remaining[m][s]: what the unjudged documents still add to sample s's score.
    let mut remaining: Vec<Vec<f64>> = measures
        .iter()
        .map(|&m| {
            let risk = &risks[m];
            risk.sample_scores
                .iter()
                .map(|score| score - risk.collection_score)
                .collect()
        })
        .collect();
    let mut current = measures
        .iter()
        .map(|&m| risks[m].probability_rank_moves)
        .fold(0.0, f64::max);
    let limit = per_topic.unwrap_or(usize::MAX);
    let mut served = vec![0usize; outcomes.len()];
    let mut listed = Vec::new();
    for candidate in candidates.drain(..) {
        if current <= threshold {
            break;
        }
        if served[candidate.topic] >= limit {
            continue;
        }
        served[candidate.topic] += 1;
        let outcome = &outcomes[candidate.topic];
        current = 0.0;
        for (&m, left) in measures.iter().zip(&mut remaining) {
            let risk = &risks[m];
            for (s, left) in left.iter_mut().enumerate() {
                *left -= outcome.sampled_gain(s, candidate.doc, m) / topics;
            }
            let moved = risk
                .sample_scores
                .iter()
                .zip(left.iter())
                .filter(|&(&score, &left)| {
                    moves(
                        risk.standings.rank(score),
                        risk.standings.rank(score - left),
                        rank_margin,
                    )
                })
                .count();
            current = current.max(fraction(moved, left.len()));
        }
        listed.push(ListedDoc {
            remaining: current,
            ..candidate
        });
    }
    listed
}

/// Every unjudged document that can move an at-risk measure, by its share of the measures'
/// expected squared movement, highest first (ties: topic, then rank).
fn prioritised(outcomes: &[TopicOutcome], measures: &[usize]) -> Vec<ListedDoc> {
    let totals: Vec<f64> = measures
        .iter()
        .map(|&m| {
            outcomes
                .iter()
                .map(|t| {
                    (0..t.unjudged_ids.len())
                        .map(|doc| t.expected_squared_gain(doc, m))
                        .sum::<f64>()
                })
                .sum()
        })
        .collect();
    let mut candidates: Vec<ListedDoc> = outcomes
        .iter()
        .enumerate()
        .flat_map(|(topic, t)| {
            let totals = &totals;
            (0..t.unjudged_ids.len()).map(move |doc| ListedDoc {
                topic,
                doc,
                priority: measures
                    .iter()
                    .zip(totals)
                    .filter(|&(_, &total)| total > 0.0)
                    .map(|(&m, total)| t.expected_squared_gain(doc, m) / total)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standings_rank_as_rank_among_does() {
        let others = vec![0.5, 0.3, 0.3, 0.1];
        let standings = Standings::new(others.clone());
        for score in [0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0] {
            assert_eq!(
                standings.rank(score),
                super::super::rank_among(&others, score),
                "{score}"
            );
        }
    }
}
