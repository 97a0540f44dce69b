//! Scoring every run on many qrels in memory. Each run's ranking of each topic is mapped once
//! to positions among the topic's retrieved documents; a qrels becomes, per topic, a grade per
//! position plus the topic's grade counts; scoring is then array lookups feeding the same
//! measure functions `reusesim eval` uses (so both agree by construction, and a test checks it).

use crate::base::DocId;
use crate::base::Grade;
use crate::collection::Collection;
use crate::eval::{self, GradeCounts, JudgedRanking, Measure};
use crate::io::qrels::Qrels;

/// One topic of a qrels, ready for scoring.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicGrades {
    /// The grade of each retrieved document of the topic (the collection's order), if judged.
    by_position: Vec<Option<Grade>>,
    /// The grade counts over all the topic's judgments (unretrieved ones included).
    counts: GradeCounts,
}

impl TopicGrades {
    /// The grades of a topic from its judgments; `None` ids are documents no run retrieved.
    pub fn new(
        retrieved: &[DocId],
        judgments: impl IntoIterator<Item = (Option<DocId>, Grade)>,
    ) -> Self {
        let mut by_position = vec![None; retrieved.len()];
        let mut grades = Vec::new();
        for (doc, grade) in judgments {
            grades.push(grade);
            if let Some(pos) = doc.and_then(|doc| retrieved.binary_search(&doc).ok()) {
                by_position[pos] = Some(grade);
            }
        }
        Self {
            by_position,
            counts: GradeCounts::from_grades(grades),
        }
    }
}

impl TopicGrades {
    /// These grades without the judgments of `removed` (documents among `retrieved`).
    pub fn without(
        &self,
        retrieved: &[DocId],
        removed: &std::collections::BTreeSet<DocId>,
    ) -> Self {
        let mut by_position = self.by_position.clone();
        let mut removed_grades = Vec::new();
        for (pos, doc) in retrieved.iter().enumerate() {
            if removed.contains(doc) {
                if let Some(grade) = by_position[pos].take() {
                    removed_grades.push(grade);
                }
            }
        }
        Self {
            by_position,
            counts: self.counts.without(&removed_grades),
        }
    }
}

/// A qrels over the collection's topics.
pub type QrelsGrades = Vec<TopicGrades>;

/// Converts a qrels read from disk (official or truth) for the collection's topics; topics the
/// qrels lacks have no judgment.
pub fn qrels_grades(collection: &Collection, qrels: &Qrels) -> QrelsGrades {
    collection
        .topics
        .iter()
        .map(|topic| {
            let judgments = qrels.topic(&topic.id).map(|judged| {
                judged
                    .judgments()
                    .into_iter()
                    .map(|(docid, grade)| (collection.docs.get(docid), grade))
                    .collect::<Vec<_>>()
            });
            TopicGrades::new(&topic.retrieved, judgments.unwrap_or_default())
        })
        .collect()
}

/// Scores runs on qrels given as [`QrelsGrades`].
#[derive(Debug)]
pub struct RunScorer {
    /// `positions[run][topic]`: the run's ranking as positions in the topic's retrieved list;
    /// `None` when the run has no ranking for the topic.
    positions: Vec<Vec<Option<Vec<u32>>>>,
    measures: Vec<Measure>,
    relevance_level: Grade,
}

/// Every run's scores on one qrels.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreTable {
    /// `summary[run][measure]`: the mean over the run's evaluated topics (sum for counts).
    pub summary: Vec<Vec<f64>>,
    /// `per_topic[run][topic]`: the values per measure, `None` when the run has no ranking for
    /// the topic (the topic is then not part of its mean, as in trec_eval).
    pub per_topic: Vec<Vec<Option<Vec<f64>>>>,
}

impl ScoreTable {
    /// The summary of one measure for every run.
    pub fn measure(&self, measure: usize) -> Vec<f64> {
        self.summary.iter().map(|values| values[measure]).collect()
    }
}

impl RunScorer {
    /// Prepares the collection's runs for scoring `measures`.
    pub fn new(collection: &Collection, measures: Vec<Measure>) -> Self {
        let positions = (0..collection.runs.len())
            .map(|run| {
                collection
                    .topics
                    .iter()
                    .map(|topic| {
                        let ranking = &topic.rankings[run];
                        (!ranking.is_empty()).then(|| {
                            ranking
                                .iter()
                                .map(|doc| {
                                    let pos = topic
                                        .retrieved
                                        .binary_search(doc)
                                        .expect("every ranked document is retrieved");
                                    u32::try_from(pos).expect("fewer than 2^32 documents")
                                })
                                .collect()
                        })
                    })
                    .collect()
            })
            .collect();
        Self {
            positions,
            measures,
            relevance_level: collection.relevance_level,
        }
    }

    /// The measures, in column order.
    pub fn measures(&self) -> &[Measure] {
        &self.measures
    }

    /// Scores the runs for which `include(run)` holds (others get empty rows) on `qrels`.
    pub fn score(&self, qrels: &[TopicGrades], include: impl Fn(usize) -> bool) -> ScoreTable {
        let mut grades: Vec<Option<Grade>> = Vec::new();
        let mut summary = Vec::with_capacity(self.positions.len());
        let mut per_topic = Vec::with_capacity(self.positions.len());
        for (run, topics) in self.positions.iter().enumerate() {
            if !include(run) {
                summary.push(vec![0.0; self.measures.len()]);
                per_topic.push(vec![None; topics.len()]);
                continue;
            }
            let values: Vec<Option<Vec<f64>>> = topics
                .iter()
                .zip(qrels)
                .map(|(positions, topic)| {
                    let positions = positions.as_ref()?;
                    grades.clear();
                    grades.extend(positions.iter().map(|&pos| topic.by_position[pos as usize]));
                    let ranking = JudgedRanking {
                        grades: &grades,
                        counts: &topic.counts,
                    };
                    Some(eval::score_topic(
                        &self.measures,
                        &ranking,
                        self.relevance_level,
                    ))
                })
                .collect();
            summary.push(eval::summarize(
                &self.measures,
                values.iter().flatten().map(Vec::as_slice),
            ));
            per_topic.push(values);
        }
        ScoreTable { summary, per_topic }
    }
}
