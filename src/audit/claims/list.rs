//! What the documents to judge do for an audited run's claims. A document's priority for an
//! unsettled claim is its share of the claim's expected squared change in the test statistic,
//! to first order (the statistic's spread held): its probability times the mean over grades of
//! the squared change it makes alone to the topic's difference, the run's change less the
//! baseline's. Judging a prefix of the list moves, in each sample, both runs' per-topic scores
//! by those documents' sampled changes; the claim's remaining probability is the share of
//! samples whose outcome on the full sampled scores differs from its outcome on those partly
//! judged scores. Before any judgment it is the probability that judging changes the outcome.

use super::sampled::{ClaimFamily, RunClaims};
use super::summary::claim_directions;
use crate::audit::basis::RunOutcomes;
use crate::audit::risk::ListedDoc;
use crate::stats::comparison::TestSettings;
use crate::stats::pair_changes::Direction;

/// The change of claim `claim`'s topic difference (run less baseline) of `family`'s measure
/// when unjudged document `doc` of outcome `topic` alone is judged relevant with grade index
/// `grade`.
fn difference_change(
    outcomes: &RunOutcomes,
    family: &ClaimFamily,
    claim: usize,
    (topic, doc, grade): (usize, usize, usize),
) -> f64 {
    let outcome = &outcomes.outcomes[topic];
    let own = outcome.gains.gain(doc, grade, family.measure);
    let shift = &outcomes.shifts[topic];
    let baseline = (outcomes.others).topic_change(
        shift,
        (doc, grade),
        family.measure,
        family.positions[claim],
    );
    own - baseline
}

/// Every unjudged document that can change an unsettled claim, with the sum of its shares of
/// those claims' expected squared change (each claim's shares summing to 1).
pub(in crate::audit) fn claim_candidates(
    outcomes: &RunOutcomes,
    claims: &RunClaims,
) -> Vec<ListedDoc> {
    let mut priority: Vec<Vec<f64>> = (outcomes.outcomes.iter())
        .map(|t| vec![0.0; t.unjudged_ids.len()])
        .collect();
    for family in &claims.families {
        for (claim, summary) in family.summaries.iter().enumerate() {
            if !summary.verdict.is_unsettled() {
                continue;
            }
            let movements: Vec<Vec<f64>> = (outcomes.outcomes.iter().enumerate())
                .map(|(topic, t)| {
                    (0..t.unjudged_ids.len())
                        .map(|doc| {
                            let mean_square: f64 = (t.grades.iter().enumerate())
                                .map(|(grade, &(_, chance))| {
                                    let change = difference_change(
                                        outcomes,
                                        family,
                                        claim,
                                        (topic, doc, grade),
                                    );
                                    chance * change * change
                                })
                                .sum();
                            t.audit.unjudged[doc].probability * mean_square
                        })
                        .collect()
                })
                .collect();
            let total: f64 = movements.iter().flatten().sum();
            if total <= 0.0 {
                continue;
            }
            for (sum, movement) in priority
                .iter_mut()
                .flatten()
                .zip(movements.iter().flatten())
            {
                *sum += movement / total;
            }
        }
    }
    (priority.iter().enumerate())
        .flat_map(|(topic, docs)| {
            (docs.iter().enumerate())
                .filter(|&(_, &p)| p > 0.0)
                .map(move |(doc, &p)| ListedDoc {
                    topic,
                    doc,
                    priority: p,
                    remaining: f64::NAN,
                })
        })
        .collect()
}

/// One claim family's progress as documents are judged.
struct FamilyProgress {
    /// The family's index in the run's claims.
    family: usize,
    /// `partly[sample][run][topic]`: the scores with the documents judged so far.
    partly: Vec<Vec<Vec<f64>>>,
    /// `full[sample][claim]`: each claim's outcome on the full sampled scores.
    full: Vec<Vec<Direction>>,
    /// `now[sample][claim]`: its outcome on the partly judged scores.
    now: Vec<Vec<Direction>>,
    /// Each claim's remaining probability.
    remaining: Vec<f64>,
}

/// An audited run's remaining probability that judging changes a claim's outcome, as the
/// documents of a list are judged one by one, for its unsettled claims.
pub(in crate::audit) struct ClaimProgress<'a> {
    outcomes: &'a RunOutcomes,
    claims: &'a RunClaims,
    test: TestSettings,
    families: Vec<FamilyProgress>,
}

impl<'a> ClaimProgress<'a> {
    /// Nothing judged yet: each claim's remaining probability is the probability that judging
    /// changes its outcome.
    pub(in crate::audit) fn new(
        outcomes: &'a RunOutcomes,
        claims: &'a RunClaims,
        test: TestSettings,
    ) -> Self {
        let families = (claims.families.iter().enumerate())
            .filter(|(_, f)| f.summaries.iter().any(|s| s.verdict.is_unsettled()))
            .map(|(index, family)| {
                let scores = family.scores();
                let outcome = |per_run: &[Vec<f64>]| {
                    claim_directions(&scores, per_run, &test)
                        .expect("the claims' scores were tested when they were summarised")
                };
                let on_collection = outcome(&family.collection);
                FamilyProgress {
                    family: index,
                    partly: vec![family.collection.clone(); family.samples.len()],
                    full: family.samples.iter().map(|s| outcome(s)).collect(),
                    now: vec![on_collection; family.samples.len()],
                    remaining: (family.summaries.iter())
                        .map(|s| s.remaining_after_list)
                        .collect(),
                }
            })
            .collect();
        Self {
            outcomes,
            claims,
            test,
            families,
        }
    }

    /// The largest remaining probability over the unsettled claims (0 without one).
    pub(in crate::audit) fn remaining(&self) -> f64 {
        (self.families.iter())
            .flat_map(|progress| {
                let summaries = &self.claims.families[progress.family].summaries;
                (progress.remaining.iter().zip(summaries))
                    .filter(|(_, s)| s.verdict.is_unsettled())
                    .map(|(&r, _)| r)
            })
            .fold(0.0, f64::max)
    }

    /// Each claim's remaining probability, family by family (a settled claim's is its
    /// probability that judging changes its outcome).
    pub(in crate::audit) fn remaining_of_each(&self) -> Vec<Vec<f64>> {
        (self.claims.families.iter().enumerate())
            .map(
                |(index, family)| match self.families.iter().find(|p| p.family == index) {
                    Some(progress) => progress.remaining.clone(),
                    None => family
                        .summaries
                        .iter()
                        .map(|s| s.remaining_after_list)
                        .collect(),
                },
            )
            .collect()
    }

    /// The claims (family, claim) whose topic difference unjudged document `doc` of outcome
    /// `topic` changes, among the unsettled ones.
    pub(in crate::audit) fn served_by(&self, topic: usize, doc: usize) -> Vec<(usize, usize)> {
        let outcome = &self.outcomes.outcomes[topic];
        (self.families.iter())
            .flat_map(|progress| {
                let family = &self.claims.families[progress.family];
                (0..family.summaries.len())
                    .filter(|&claim| family.summaries[claim].verdict.is_unsettled())
                    .filter(move |&claim| {
                        (0..outcome.grades.len()).any(|grade| {
                            let key = (topic, doc, grade);
                            difference_change(self.outcomes, family, claim, key) != 0.0
                        })
                    })
                    .map(move |claim| (progress.family, claim))
            })
            .collect()
    }

    /// Judges unjudged document `doc` of outcome `topic`: every sample that drew it relevant
    /// moves both runs' scores of its topic by its changes, and is tested again.
    pub(in crate::audit) fn judge(&mut self, topic: usize, doc: usize) {
        let outcome = &self.outcomes.outcomes[topic];
        for progress in &mut self.families {
            let family = &self.claims.families[progress.family];
            let scores = family.scores();
            for sample in 0..progress.partly.len() {
                let Some(grade) = outcome.drawn_grade(sample, doc) else {
                    continue;
                };
                let partly = &mut progress.partly[sample];
                partly[0][topic] += outcome.gains.gain(doc, grade, family.measure);
                let shift = &self.outcomes.shifts[topic];
                for (claim, &position) in family.positions.iter().enumerate() {
                    partly[claim + 1][topic] += (self.outcomes.others).topic_change(
                        shift,
                        (doc, grade),
                        family.measure,
                        position,
                    );
                }
                progress.now[sample] = claim_directions(&scores, partly, &self.test)
                    .expect("the claims' scores were tested when they were summarised");
            }
            let samples = progress.full.len().max(1) as f64;
            for (claim, remaining) in progress.remaining.iter_mut().enumerate() {
                let changed = (progress.full.iter().zip(&progress.now))
                    .filter(|(full, now)| full[claim] != now[claim])
                    .count();
                *remaining = changed as f64 / samples;
            }
        }
    }
}

/// A run's candidates for its ranks and for its claims as one list: a document both serve
/// once, with the sum of its priorities.
pub(in crate::audit) fn with_claim_candidates(
    mut candidates: Vec<ListedDoc>,
    for_claims: Vec<ListedDoc>,
) -> Vec<ListedDoc> {
    for claim in for_claims {
        match (candidates.iter_mut()).find(|c| (c.topic, c.doc) == (claim.topic, claim.doc)) {
            Some(candidate) => candidate.priority += claim.priority,
            None => candidates.push(claim),
        }
    }
    candidates
}
