//! The two ways of filling a run's holes with a secondary assessor's labels that the backtest
//! sets beside the audit (`docs/backtest.md#labels`):
//!
//! - **naive filling**, as umbrela's `evaluate` does: each unjudged document of the run's top
//!   that the labels grade takes its label as its grade;
//! - **the grade table**: each such document takes a grade drawn from the collection's own
//!   table of grade against label, learnt on the documents the calibration learns from (judged
//!   documents that only one pooled team, not the audited one, put in the pool), and the score
//!   is the mean over [`TABLE_DRAWS`] draws: the calibration of the labels without the model.

use std::collections::BTreeMap;

use rand::Rng;

use crate::audit::{AuditBasis, AUDIT_SEED};
use crate::base::{DocId, Grade};
use crate::collection::UniqueRule;
use crate::relevance_model::trials::Judgments;
use crate::sim::scoring::RunScorer;

/// The draws of the grade table's filling.
pub const TABLE_DRAWS: usize = 100;

/// Per label, the grades the collection gives the documents of that label, with their counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct GradeTable {
    counts: BTreeMap<Grade, BTreeMap<Grade, usize>>,
}

impl GradeTable {
    /// The table of `basis`'s judgments against its labels, on the judged documents that only
    /// one pooled team other than `team` put in the pool.
    pub(super) fn learn(basis: &AuditBasis, team: &str) -> Self {
        let collection = basis.collection;
        let rule = UniqueRule::classic(basis.pool_depth);
        let mut counts: BTreeMap<Grade, BTreeMap<Grade, usize>> = BTreeMap::new();
        for (topic, data) in collection.topics.iter().enumerate() {
            let owners = collection.sole_teams(data, &rule);
            for (&doc, &grade) in &basis.judgments[topic] {
                let owned_by_another = owners.owner(doc).is_some_and(|owner| owner != team);
                let label = basis.label(topic, doc);
                if let (true, Some(label)) = (owned_by_another, label) {
                    *counts.entry(label).or_default().entry(grade).or_default() += 1;
                }
            }
        }
        Self { counts }
    }

    /// A grade for a document labelled `label`, drawn with `uniform` in [0, 1) from the
    /// label's row; a label the table never saw takes the row of the nearest label below it,
    /// else above it, and with an empty table its own value.
    fn draw(&self, label: Grade, uniform: f64) -> Grade {
        let row = (self.counts.range(..=label).next_back())
            .or_else(|| self.counts.range(label..).next())
            .map(|(_, row)| row);
        let Some(row) = row else {
            return label;
        };
        let total: usize = row.values().sum();
        let mut target = uniform * total as f64;
        for (&grade, &count) in row {
            if target < count as f64 {
                return grade;
            }
            target -= count as f64;
        }
        *row.keys().next_back().expect("a row holds a grade")
    }
}

/// The unjudged documents of `tops` (per topic) that the labels of `basis` grade, with their
/// labels.
fn labelled_holes(basis: &AuditBasis, tops: &[Vec<DocId>]) -> Vec<Vec<(DocId, Grade)>> {
    (tops.iter().enumerate())
        .map(|(topic, top)| {
            (top.iter())
                .filter(|doc| !basis.judgments[topic].contains_key(doc))
                .filter_map(|&doc| Some((doc, basis.label(topic, doc)?)))
                .collect()
        })
        .collect()
}

/// Run `run`'s score on `basis`'s judgments with `holes`' grades added, per measure.
fn scored_with_grades(
    basis: &AuditBasis,
    scorer: &RunScorer,
    run: usize,
    holes: &[Vec<(DocId, Grade)>],
) -> Vec<f64> {
    let filled: Judgments = (basis.judgments.iter().zip(holes))
        .map(|(world, holes)| {
            let mut filled = world.clone();
            filled.extend(holes.iter().copied());
            filled
        })
        .collect();
    let grades = crate::audit::basis::judgments_grades(basis.collection, &filled);
    scorer.score(&grades, |other| other == run).summary[run].clone()
}

/// Run `run`'s scores (per measure) with its top `tops` filled naively and by the grade table
/// of `team`'s world; `None` without labels.
pub(super) fn label_filled_scores(
    basis: &AuditBasis,
    scorer: &RunScorer,
    (team, run): (&str, usize),
    tops: &[Vec<DocId>],
) -> Option<(Vec<f64>, Vec<f64>)> {
    basis.labels.as_ref()?;
    let holes = labelled_holes(basis, tops);
    let naive = scored_with_grades(basis, scorer, run, &holes);
    let table = GradeTable::learn(basis, team);
    let mut rng = crate::base::seed::keyed_rng(AUDIT_SEED, &basis.collection.runs[run].tag);
    let mut table_mean = vec![0.0; naive.len()];
    for _ in 0..TABLE_DRAWS {
        let drawn: Vec<Vec<(DocId, Grade)>> = (holes.iter())
            .map(|topic| {
                (topic.iter())
                    .map(|&(doc, label)| (doc, table.draw(label, rng.random::<f64>())))
                    .collect()
            })
            .collect();
        let scores = scored_with_grades(basis, scorer, run, &drawn);
        for (mean, score) in table_mean.iter_mut().zip(scores) {
            *mean += score / TABLE_DRAWS as f64;
        }
    }
    Some((naive, table_mean))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grade_is_drawn_in_proportion_to_its_count_in_the_labels_row() {
        let mut table = GradeTable::default();
        table.counts.insert(1, BTreeMap::from([(0, 3), (2, 1)]));
        table.counts.insert(3, BTreeMap::from([(3, 2)]));
        assert_eq!(table.draw(1, 0.0), 0);
        assert_eq!(table.draw(1, 0.74), 0);
        assert_eq!(table.draw(1, 0.76), 2);
        // A label the table lacks takes the row below it, else the row above it.
        assert_eq!(table.draw(2, 0.9), 2);
        assert_eq!(table.draw(0, 0.1), 0);
        assert_eq!(table.draw(7, 0.5), 3);
        assert_eq!(GradeTable::default().draw(2, 0.5), 2);
    }
}
