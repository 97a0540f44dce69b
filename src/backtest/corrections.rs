//! The published corrections for scoring a run that took no part in pooling, computed on a
//! world without the audited team, as baselines for the audit's expected score.
//!
//! Both learn from the collection's own pooled runs, each left out of the pool in turn: for
//! each other pooled team H, the documents only H put in the pool ([`UniqueRule::classic`]:
//! its pooled runs' top `pool_depth`) are taken out of the world's judgments, and H's pooled
//! runs are scored again.
//! - **Score adjustment** (Webber & Park, SIGIR 2009): the new run's score plus the mean score
//!   that the pooled runs lose when their own team's contribution is left out.
//! - **Anti-precision** (Lipani, Lupu & Hanbury, SIGIR 2015), for P@k: per topic, the documents
//!   the pooled runs lose from their top k split into relevant ones (lost precision) and
//!   non-relevant ones (lost anti-precision); the new run's unjudged share of its top k is
//!   split in the same proportion, so P@k + unjudged@k × lost precision / (lost precision +
//!   lost anti-precision). A topic where the pooled runs lose nothing takes the proportion over
//!   all topics.
//!
//! Two more need no learning: they read the world alone.
//! - **Condensed-list scoring** (Sakai, SIGIR 2007): the run scored with its unjudged documents
//!   dropped from its ranking (the measure's `judged_only=True` variant), for every measure
//!   that has one.
//! - **RBP's residual** (Moffat & Zobel, TOIS 2008), for RBP: the interval from the run's RBP
//!   to RBP plus its residual, every unjudged document and every rank past the run relevant.

use std::collections::BTreeSet;

use crate::audit::AuditBasis;
use crate::base::{is_relevant, DocId};
use crate::collection::UniqueRule;
use crate::eval::{Family, Measure};
use crate::sim::scoring::{QrelsGrades, RunScorer, ScoreTable};

/// The corrections of one world.
#[derive(Debug, Clone)]
pub struct Corrections {
    /// adjustments[measure]: the mean score the pooled runs lose when left out.
    adjustments: Vec<f64>,
    /// relevant_share[measure][topic]: the relevant share of the documents pooled runs lose
    /// from their top k (precision measures only; empty otherwise).
    relevant_share: Vec<Vec<f64>>,
    /// The world's per-topic scores of every run.
    per_topic: Vec<Vec<Option<Vec<f64>>>>,
    /// unjudged_in_top[run][measure][topic]: the run's unjudged documents in its top k.
    unjudged_in_top: Vec<Vec<Vec<usize>>>,
    /// Each measure's cutoff (0 without one).
    cutoffs: Vec<usize>,
    /// Every run's scores by each measure's condensed variant on the world.
    condensed: DerivedScores,
    /// Every run's RBP residual on the world (RBP only).
    residual: DerivedScores,
}

/// Every run's scores on the world by a measure derived from each measure, where one exists.
#[derive(Debug, Clone)]
struct DerivedScores {
    /// The derived measures' scores (`None` when no measure has one).
    table: Option<ScoreTable>,
    /// columns[measure]: the column of the measure's derived one in `table`.
    columns: Vec<Option<usize>>,
}

impl DerivedScores {
    /// Every run scored on `world_grades` by `derived(measure)`, where it exists.
    fn new(
        collection: &crate::collection::Collection,
        measures: &[Measure],
        world_grades: &QrelsGrades,
        derived: fn(&Measure) -> Option<Measure>,
    ) -> Self {
        let derived: Vec<Option<Measure>> = measures.iter().map(derived).collect();
        let scored: Vec<Measure> = derived.iter().flatten().copied().collect();
        let table = (!scored.is_empty())
            .then(|| RunScorer::new(collection, scored).score(world_grades, |_| true));
        let mut next = 0;
        let columns = (derived.iter())
            .map(|measure| {
                measure.as_ref()?;
                next += 1;
                Some(next - 1)
            })
            .collect();
        Self { table, columns }
    }

    /// Run `run`'s score by the measure derived from measure `m`.
    fn summary(&self, run: usize, m: usize) -> Option<f64> {
        Some(self.table.as_ref()?.summary[run][self.columns[m]?])
    }

    /// Run `run`'s score on topic `topic` (0 where the run has no ranking).
    fn topic(&self, run: usize, m: usize, topic: usize) -> Option<f64> {
        let column = self.columns[m]?;
        let scores = &self.table.as_ref()?.per_topic[run][topic];
        Some(scores.as_ref().map_or(0.0, |scores| scores[column]))
    }
}

impl Corrections {
    /// The corrections of `basis`, a world without `team`.
    pub fn new(basis: &AuditBasis, team: &str) -> Self {
        let collection = basis.collection;
        let measures = &basis.measures;
        let scorer = RunScorer::new(collection, measures.clone());
        let world_grades = crate::audit::basis::judgments_grades(collection, &basis.judgments);
        let rule = UniqueRule::classic(basis.pool_depth);
        let owners: Vec<_> = collection
            .topics
            .iter()
            .map(|topic| collection.sole_teams(topic, &rule))
            .collect();
        let others: BTreeSet<&str> = collection
            .runs
            .iter()
            .filter(|run| run.is_pooled && run.team != team)
            .map(|run| run.team.as_str())
            .collect();
        let mut lost_score = vec![0.0; measures.len()];
        let mut pooled_runs = 0usize;
        // lost[measure][topic] = (relevant, non-relevant) documents lost from top k.
        let mut lost = vec![vec![(0usize, 0usize); collection.topics.len()]; measures.len()];
        for other in others {
            let unique: Vec<BTreeSet<DocId>> = owners
                .iter()
                .zip(&basis.judgments)
                .map(|(owners, grades)| {
                    owners.unique_documents(other, grades).into_iter().collect()
                })
                .collect();
            let reduced: Vec<_> = world_grades
                .iter()
                .zip(&collection.topics)
                .zip(&unique)
                .map(|((grades, topic), unique)| grades.without(&topic.retrieved, unique))
                .collect();
            let is_pooled_run =
                |run: usize| collection.runs[run].is_pooled && collection.runs[run].team == other;
            let rescored = scorer.score(&reduced, is_pooled_run);
            for run in (0..collection.runs.len()).filter(|&run| is_pooled_run(run)) {
                pooled_runs += 1;
                for (m, lost_score) in lost_score.iter_mut().enumerate() {
                    *lost_score += basis.scores.summary[run][m] - rescored.summary[run][m];
                }
                for (m, measure) in measures.iter().enumerate() {
                    let Some(cutoff) = measure
                        .cutoff
                        .filter(|_| measure.family == Family::Precision)
                    else {
                        continue;
                    };
                    for (t, topic) in collection.topics.iter().enumerate() {
                        for doc in topic.rankings[run].iter().take(cutoff) {
                            if unique[t].contains(doc) {
                                let grade = basis.judgments[t][doc];
                                let counts = &mut lost[m][t];
                                if is_relevant(grade, collection.relevance_level) {
                                    counts.0 += 1;
                                } else {
                                    counts.1 += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        let adjustments = lost_score
            .iter()
            .map(|lost| {
                if pooled_runs == 0 {
                    0.0
                } else {
                    lost / pooled_runs as f64
                }
            })
            .collect();
        let relevant_share = lost.iter().map(|topics| shares(topics)).collect();
        let unjudged_in_top = (0..collection.runs.len())
            .map(|run| {
                measures
                    .iter()
                    .map(|measure| {
                        let cutoff = measure.cutoff.unwrap_or(0);
                        collection
                            .topics
                            .iter()
                            .zip(&basis.judgments)
                            .map(|(topic, grades)| {
                                topic.rankings[run]
                                    .iter()
                                    .take(cutoff)
                                    .filter(|doc| !grades.contains_key(doc))
                                    .count()
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let condensed = DerivedScores::new(collection, measures, &world_grades, condensed_variant);
        let residual = DerivedScores::new(collection, measures, &world_grades, residual_of);
        Self {
            adjustments,
            relevant_share,
            per_topic: basis.scores.per_topic.clone(),
            unjudged_in_top,
            cutoffs: measures.iter().map(|m| m.cutoff.unwrap_or(0)).collect(),
            condensed,
            residual,
        }
    }

    /// Condensed-list scoring of `measure` for `run`: its score with the unjudged documents
    /// dropped (`None` for a measure without a condensed variant, or condensed already).
    pub fn condensed(&self, run: usize, measure: usize) -> Option<f64> {
        self.condensed.summary(run, measure)
    }

    /// Condensed-list scoring of `measure` for `run` on topic `topic` (collection order; 0
    /// where the run has no ranking).
    pub fn condensed_topic(&self, run: usize, measure: usize, topic: usize) -> Option<f64> {
        self.condensed.topic(run, measure, topic)
    }

    /// RBP's residual of `run` for an RBP `measure` (`None` for other measures).
    pub fn residual(&self, run: usize, measure: usize) -> Option<f64> {
        self.residual.summary(run, measure)
    }

    /// Webber & Park's adjustment of `measure`: the mean score a pooled run loses when its team
    /// is left out.
    pub fn adjustment(&self, measure: usize) -> f64 {
        self.adjustments[measure]
    }

    /// The anti-precision estimate of P@k (`measure`) for `run`: the mean over its topics of
    /// P@k + unjudged@k × the topic's relevant share of the pooled runs' lost documents.
    pub fn anti_precision(&self, run: usize, measure: usize) -> f64 {
        let shares = &self.relevant_share[measure];
        let mut total = 0.0;
        let mut topics = 0usize;
        for (t, values) in self.per_topic[run].iter().enumerate() {
            let Some(values) = values else {
                continue;
            };
            let unjudged = self.unjudged_in_top[run][measure][t] as f64;
            let cutoff = self.cutoffs[measure] as f64;
            total += values[measure] + shares[t] * unjudged / cutoff;
            topics += 1;
        }
        if topics == 0 {
            0.0
        } else {
            total / topics as f64
        }
    }
}

/// The condensed variant of a measure that has one and is not condensed already.
fn condensed_variant(measure: &Measure) -> Option<Measure> {
    (measure.family.takes_judged_only() && !measure.judged_only).then_some(Measure {
        judged_only: true,
        ..*measure
    })
}

/// The residual of an RBP measure, with its persistence, cutoff and relevance level.
fn residual_of(measure: &Measure) -> Option<Measure> {
    (measure.family == Family::Rbp && !measure.judged_only).then_some(Measure {
        family: Family::RbpResidual,
        ..*measure
    })
}

/// Per topic, the relevant share of the lost documents; a topic that lost none takes the share
/// over all topics (0 when nothing was lost anywhere).
fn shares(topics: &[(usize, usize)]) -> Vec<f64> {
    let (relevant, total) = topics
        .iter()
        .fold((0, 0), |(r, t), &(rel, non)| (r + rel, t + rel + non));
    let overall = if total == 0 {
        0.0
    } else {
        relevant as f64 / total as f64
    };
    topics
        .iter()
        .map(|&(rel, non)| {
            if rel + non == 0 {
                overall
            } else {
                rel as f64 / (rel + non) as f64
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_without_losses_take_the_overall_share() {
        let shares = shares(&[(1, 3), (0, 0), (2, 0)]);
        assert_eq!(shares, [0.25, 0.5, 1.0]);
        assert_eq!(super::shares(&[(0, 0)]), [0.0]);
    }
}
