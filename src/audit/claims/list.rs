//! What the documents to judge do for an audited run's claims. A document's priority for an
//! unsettled claim is its share of the claim's expected squared change in the test statistic,
//! to first order (the statistic's spread held): its probability times the mean over grades of
//! the squared change it makes alone to the topic's difference, the run's change less the
//! baseline's. Judging a prefix of the list moves, in each sample, both runs' per-topic scores
//! by those documents' sampled changes; the claim's remaining probability is the share of
//! samples whose outcome on the full sampled scores differs from its outcome on those partly
//! judged scores. Before any judgment it is the probability that judging changes the outcome.
//!
//! An unsettled claim *cannot settle* when judging its own whole list (its documents by their
//! share of its expected squared change, within the cap per topic) still leaves its remaining
//! probability above the settle threshold; the list then does not serve it.

use super::sampled::{ClaimFamily, RunClaims};
use super::summary::claim_directions;
use crate::audit::basis::RunOutcomes;
use crate::audit::risk::{sort_by_priority, ListedDoc};
use crate::stats::comparison::{PairTest, TestSettings};
use crate::stats::pair_changes::Direction;

/// Why testing a claim's scores again cannot fail.
const SUMMARISED: &str = "the claims' scores were tested when they were summarised";

/// The change of claim `claim`'s topic difference (run less baseline) of `family`'s measure
/// when unjudged document `doc` of outcome `topic` alone is judged with grade index
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

/// `movements[topic][doc]`: the expected squared change that judging each unjudged document
/// alone brings to claim `claim` of `family`'s topic difference.
fn claim_movements(outcomes: &RunOutcomes, family: &ClaimFamily, claim: usize) -> Vec<Vec<f64>> {
    (outcomes.outcomes.iter().enumerate())
        .map(|(topic, t)| {
            (0..t.unjudged_ids.len())
                .map(|doc| {
                    t.expected_over_grades(doc, |grade, chance| {
                        let key = (topic, doc, grade);
                        let change = difference_change(outcomes, family, claim, key);
                        chance * change * change
                    })
                })
                .collect()
        })
        .collect()
}

/// Every unjudged document with a positive `priority[topic][doc]`.
fn candidates_of(priority: &[Vec<f64>]) -> Vec<ListedDoc> {
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

/// Every unjudged document that can change a claim the list serves, with the sum of its
/// shares of those claims' expected squared change (each claim's shares summing to 1).
pub(in crate::audit) fn claim_candidates(
    outcomes: &RunOutcomes,
    claims: &RunClaims,
) -> Vec<ListedDoc> {
    let mut priority: Vec<Vec<f64>> = (outcomes.outcomes.iter())
        .map(|t| vec![0.0; t.unjudged_ids.len()])
        .collect();
    for family in &claims.families {
        for (claim, summary) in family.summaries.iter().enumerate() {
            if !summary.steers_list() {
                continue;
            }
            let movements = claim_movements(outcomes, family, claim);
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
    candidates_of(&priority)
}

/// Marks each unsettled claim of `claims` that judging cannot settle: judging its own whole
/// list, highest share of its expected squared change first, at most `per_topic` documents
/// of a topic (None: no cap), leaves its remaining probability above `threshold`. The list
/// is judged at once, each sample tested once, as the cost of testing after every document
/// grows with the list.
pub(in crate::audit) fn mark_unsettleable(
    outcomes: &RunOutcomes,
    claims: &mut RunClaims,
    test: TestSettings,
    (threshold, per_topic): (f64, Option<usize>),
) {
    let mut unsettleable = Vec::new();
    for (f, family) in claims.families.iter().enumerate() {
        for (claim, summary) in family.summaries.iter().enumerate() {
            if !summary.verdict.is_unsettled() {
                continue;
            }
            let mut candidates = candidates_of(&claim_movements(outcomes, family, claim));
            sort_by_priority(&mut candidates);
            let steering = |family: usize, c: usize| (family, c) == (f, claim);
            let mut progress = ClaimProgress::steered_by(outcomes, claims, test, steering);
            let limit = per_topic.unwrap_or(usize::MAX);
            let mut served = vec![0usize; outcomes.outcomes.len()];
            let whole_list: Vec<(usize, usize)> = (candidates.iter())
                .filter(|candidate| {
                    served[candidate.topic] += 1;
                    served[candidate.topic] <= limit
                })
                .map(|candidate| (candidate.topic, candidate.doc))
                .collect();
            progress.judge_all(&whole_list);
            if progress.remaining() > threshold {
                unsettleable.push((f, claim));
            }
        }
    }
    for (family, claim) in unsettleable {
        claims.families[family].summaries[claim].cannot_settle = true;
    }
}

/// One claim family's progress as documents are judged.
struct FamilyProgress {
    /// The family's index in the run's claims.
    family: usize,
    /// The claims' test over the family's topics.
    test: PairTest,
    /// `partly[sample][run][topic]`: the scores with the documents judged so far.
    partly: Vec<Vec<Vec<f64>>>,
    /// `full[sample][claim]`: each claim's outcome on the full sampled scores.
    full: Vec<Vec<Direction>>,
    /// `now[sample][claim]`: its outcome on the partly judged scores.
    now: Vec<Vec<Direction>>,
    /// Each claim's remaining probability.
    remaining: Vec<f64>,
    /// Whether each claim steers the list: its remaining probability decides when it stops.
    steering: Vec<bool>,
}

/// An audited run's remaining probability that judging changes a claim's outcome, as the
/// documents of a list are judged one by one, for the claims that steer the list.
pub(in crate::audit) struct ClaimProgress<'a> {
    outcomes: &'a RunOutcomes,
    claims: &'a RunClaims,
    families: Vec<FamilyProgress>,
}

impl<'a> ClaimProgress<'a> {
    /// Nothing judged yet: each claim's remaining probability is the probability that judging
    /// changes its outcome; the claims the list serves steer it.
    pub(in crate::audit) fn new(
        outcomes: &'a RunOutcomes,
        claims: &'a RunClaims,
        test: TestSettings,
    ) -> Self {
        let steers =
            |family: usize, claim: usize| claims.families[family].summaries[claim].steers_list();
        Self::steered_by(outcomes, claims, test, steers)
    }

    /// Nothing judged yet, the claims (family, claim) for which `steers` holds steering.
    fn steered_by(
        outcomes: &'a RunOutcomes,
        claims: &'a RunClaims,
        test: TestSettings,
        steers: impl Fn(usize, usize) -> bool,
    ) -> Self {
        let families = (claims.families.iter().enumerate())
            .map(|(index, family)| {
                let steering: Vec<bool> = (0..family.summaries.len())
                    .map(|claim| steers(index, claim))
                    .collect();
                (index, family, steering)
            })
            .filter(|(_, _, steering)| steering.contains(&true))
            .map(|(index, family, steering)| {
                let scores = family.scores();
                let topics = family.collection[0].len();
                let test = PairTest::new(&test, topics).expect(SUMMARISED);
                let outcome = |per_run: &[Vec<f64>]| {
                    claim_directions(&scores, per_run, &test).expect(SUMMARISED)
                };
                let on_collection = outcome(&family.collection);
                FamilyProgress {
                    family: index,
                    test,
                    partly: vec![family.collection.clone(); family.samples.len()],
                    full: family.samples.iter().map(|s| outcome(s)).collect(),
                    now: vec![on_collection; family.samples.len()],
                    remaining: (family.summaries.iter())
                        .map(|s| s.remaining_after_list)
                        .collect(),
                    steering,
                }
            })
            .collect();
        Self {
            outcomes,
            claims,
            families,
        }
    }

    /// The largest remaining probability over the steering claims (0 without one).
    pub(in crate::audit) fn remaining(&self) -> f64 {
        (self.families.iter())
            .flat_map(|progress| {
                (progress.remaining.iter().zip(&progress.steering))
                    .filter(|&(_, &steers)| steers)
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
    /// `topic` changes, among the steering ones.
    pub(in crate::audit) fn served_by(&self, topic: usize, doc: usize) -> Vec<(usize, usize)> {
        let outcome = &self.outcomes.outcomes[topic];
        (self.families.iter())
            .flat_map(|progress| {
                let family = &self.claims.families[progress.family];
                (0..family.summaries.len())
                    .filter(|&claim| progress.steering[claim])
                    .filter(move |&claim| {
                        (0..outcome.grades.grades.len()).any(|grade| {
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
        self.judge_all(&[(topic, doc)]);
    }

    /// Judges the unjudged documents `(topic, doc)` together: each sample's scores move by
    /// every document it drew relevant, and each sample so moved is tested once.
    fn judge_all(&mut self, documents: &[(usize, usize)]) {
        for progress in &mut self.families {
            let family = &self.claims.families[progress.family];
            let mut moved = vec![false; progress.partly.len()];
            for &(topic, doc) in documents {
                let outcome = &self.outcomes.outcomes[topic];
                for (sample, moved) in moved.iter_mut().enumerate() {
                    let Some(grade) = outcome.drawn_grade(sample, doc) else {
                        continue;
                    };
                    *moved = true;
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
                }
            }
            let scores = family.scores();
            for sample in (0..moved.len()).filter(|&sample| moved[sample]) {
                progress.now[sample] =
                    claim_directions(&scores, &progress.partly[sample], &progress.test)
                        .expect(SUMMARISED);
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
