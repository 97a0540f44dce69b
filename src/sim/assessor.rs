//! A study's simulated assessor, prepared once (see docs/assessor.md): the official qrels, a
//! fuller qrels file read and checked against the task, the official qrels for the depth pool
//! and such a file for the rest (the hybrid), or the relevance model fitted and every seed's
//! completion drawn. Each trial asks its seed's [`SeedAssessor`]; the assessor's
//! own ranking of the runs is scored on its qrels ([`StudyAssessor::reference_grades`]).

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;

use crate::base::error::Result;
use crate::base::{DocId, DocumentGrades, Grade};
use crate::collection::{Collection, TopicData};
use crate::io::qrels::{read_qrels_of, Qrels};
use crate::judge::assessor::{
    assess_in_pool, Assessment, Assessor, FullerAssessor, HybridAssessor, OfficialAssessor,
};
use crate::judge::cal::pool_of;
use crate::relevance_model::completion::{CompletedAssessor, CompletionModel, SeedDraws};
use crate::sim::scoring::{QrelsGrades, TopicGrades};
use crate::sim::settings::AssessorChoice;

/// One topic's judgments as (document, grade); `None` for a document of a fuller file that no
/// run retrieved and the official qrels never judged.
pub type TopicJudgments = Vec<(Option<DocId>, Grade)>;

/// A study's assessor, with what every seed's assessor reads.
#[derive(Debug)]
pub enum StudyAssessor {
    /// The official qrels.
    Official,
    /// A fuller qrels file, then the official qrels.
    File {
        /// The file as read.
        qrels: Qrels,
        /// Per topic (collection order), the file's grades of the collection's documents.
        grades: Vec<DocumentGrades>,
    },
    /// The official qrels for the depth pool, a qrels file for the rest.
    Hybrid {
        /// The file as read.
        qrels: Qrels,
        /// Per topic (collection order), the file's grades of the collection's documents.
        grades: Vec<DocumentGrades>,
        /// Per topic, the full depth pool (every pooled run's top `pool_depth`), sorted: what
        /// the assessor's own qrels take from the official grades.
        pools: Vec<Vec<DocId>>,
    },
    /// The official qrels completed by the relevance model.
    Completed {
        /// The model, fitted on the official qrels.
        model: Box<CompletionModel>,
        /// Each seed's draws.
        draws: BTreeMap<u64, SeedDraws>,
    },
}

impl StudyAssessor {
    /// Prepares `choice` for `collection` (its own grades being the official qrels), the pool
    /// taken to `pool_depth`, drawing the completion of every seed in `seeds`.
    ///
    /// # Errors
    /// A fuller file that cannot be read, is malformed or names a topic the collection lacks
    /// (each naming file and line); a relevance model that cannot be fitted.
    pub fn prepare(
        collection: &Collection,
        choice: &AssessorChoice,
        pool_depth: usize,
        seeds: &[u64],
    ) -> Result<Self> {
        Ok(match choice {
            AssessorChoice::Official => Self::Official,
            AssessorChoice::File(path) => {
                let qrels = read_assessor_file(collection, path)?;
                let grades = file_grades(collection, &qrels);
                Self::File { qrels, grades }
            }
            AssessorChoice::Hybrid(path) => {
                let qrels = read_assessor_file(collection, path)?;
                let grades = file_grades(collection, &qrels);
                let pools = full_pools(collection, pool_depth);
                Self::Hybrid {
                    qrels,
                    grades,
                    pools,
                }
            }
            AssessorChoice::Completed => {
                let model = CompletionModel::fit(collection, pool_depth)?;
                let draws = (seeds.par_iter())
                    .map(|&seed| (seed, model.draw(collection, seed)))
                    .collect();
                Self::Completed {
                    model: Box::new(model),
                    draws,
                }
            }
        })
    }

    /// The assessor of trials of seed `seed`.
    ///
    /// # Panics
    /// For a completed assessor, when `seed` is not one of the seeds it was prepared for.
    pub fn for_seed<'a>(&'a self, collection: &'a Collection, seed: u64) -> SeedAssessor<'a> {
        match self {
            Self::Official => SeedAssessor::Official(OfficialAssessor::new(collection)),
            Self::File { grades, .. } => {
                SeedAssessor::File(FullerAssessor::new(collection, grades))
            }
            Self::Hybrid { grades, .. } => {
                SeedAssessor::Hybrid(HybridAssessor::new(collection, grades))
            }
            Self::Completed { model, draws } => {
                let draws = draws
                    .get(&seed)
                    .expect("the completion of every seed is drawn");
                SeedAssessor::Completed(model.assessor(collection, draws))
            }
        }
    }

    /// Whether the assessor's grades differ from seed to seed (the completed one's).
    pub fn is_seeded(&self) -> bool {
        matches!(self, Self::Completed { .. })
    }

    /// The assessor's qrels of seed `seed`, which its own ranking of the runs is scored on:
    /// `None` for the official assessor (the official ranking is its own).
    pub fn reference_grades(&self, collection: &Collection, seed: u64) -> Option<QrelsGrades> {
        match self {
            Self::Official => None,
            Self::File { qrels, .. } => Some(fuller_grades(collection, qrels, None)),
            Self::Hybrid { qrels, pools, .. } => {
                Some(fuller_grades(collection, qrels, Some(pools)))
            }
            Self::Completed { model, draws } => {
                let assessor = model.assessor(collection, &draws[&seed]);
                Some(
                    (collection.topics.iter().enumerate())
                        .map(|(index, topic)| {
                            let judgments = assessor.judgments(index);
                            TopicGrades::new(&topic.retrieved, judgments.map(|(d, g)| (Some(d), g)))
                        })
                        .collect(),
                )
            }
        }
    }
}

impl StudyAssessor {
    /// The assessor's qrels of seed `seed`, per topic (collection order): the judgments
    /// [`Self::reference_grades`] scores the runs on. `None` for the official assessor.
    pub fn judgments(&self, collection: &Collection, seed: u64) -> Option<Vec<TopicJudgments>> {
        match self {
            Self::Official => None,
            Self::File { qrels, .. } => Some(
                (collection.topics.iter())
                    .map(|topic| fuller_judgments(collection, topic, qrels, None))
                    .collect(),
            ),
            Self::Hybrid { qrels, pools, .. } => Some(
                (collection.topics.iter().zip(pools))
                    .map(|(topic, pool)| fuller_judgments(collection, topic, qrels, Some(pool)))
                    .collect(),
            ),
            Self::Completed { model, draws } => {
                let assessor = model.assessor(collection, &draws[&seed]);
                Some(
                    (0..collection.topics.len())
                        .map(|index| {
                            (assessor.judgments(index))
                                .map(|(doc, grade)| (Some(doc), grade))
                                .collect()
                        })
                        .collect(),
                )
            }
        }
    }
}

/// One seed's assessor.
#[derive(Debug, Clone)]
pub enum SeedAssessor<'a> {
    /// The official qrels.
    Official(OfficialAssessor<'a>),
    /// A fuller file, then the official qrels.
    File(FullerAssessor<'a>),
    /// The official qrels for the depth pool, a file for the rest.
    Hybrid(HybridAssessor<'a>),
    /// The seed's completion.
    Completed(CompletedAssessor<'a>),
}

impl Assessor for SeedAssessor<'_> {
    fn assess(&self, topic: usize, doc: DocId) -> Assessment {
        match self {
            Self::Official(assessor) => assessor.assess(topic, doc),
            Self::File(assessor) => assessor.assess(topic, doc),
            Self::Hybrid(assessor) => assessor.assess(topic, doc),
            Self::Completed(assessor) => assessor.assess(topic, doc),
        }
    }

    fn assess_pooled(&self, topic: usize, doc: DocId) -> Assessment {
        match self {
            Self::Hybrid(assessor) => assessor.assess_pooled(topic, doc),
            _ => self.assess(topic, doc),
        }
    }
}

/// One seed's completed qrels, with what they hold.
#[derive(Debug, Clone)]
pub struct CompletedQrels {
    /// The official judgments, then the drawn ones.
    pub qrels: Qrels,
    /// Official judgments.
    pub official: usize,
    /// Drawn judgments.
    pub drawn: usize,
    /// Drawn judgments of a relevant grade.
    pub drawn_relevant: usize,
}

/// Seed `seed`'s completed qrels of `collection` (its own grades being the official ones),
/// the calibration's pool taken to `pool_depth`: what a study's completed assessor of that
/// seed grades with.
///
/// # Errors
/// When the relevance model cannot be fitted.
pub fn completed_qrels(
    collection: &Collection,
    pool_depth: usize,
    seed: u64,
) -> Result<CompletedQrels> {
    let model = CompletionModel::fit(collection, pool_depth)?;
    let draws = model.draw(collection, seed);
    let assessor = model.assessor(collection, &draws);
    let level = collection.relevance_level;
    let mut records = Vec::new();
    let (mut official, mut drawn, mut drawn_relevant) = (0, 0, 0);
    for (index, topic) in collection.topics.iter().enumerate() {
        for (doc, grade) in assessor.judgments(index) {
            if topic.grades.contains_key(&doc) {
                official += 1;
            } else {
                drawn += 1;
                drawn_relevant += usize::from(crate::base::is_relevant(grade, level));
            }
            records.push((topic.id.as_str(), collection.docs.name(doc), grade));
        }
    }
    let qrels = Qrels::from_records(Path::new("completed qrels"), records)?;
    Ok(CompletedQrels {
        qrels,
        official,
        drawn,
        drawn_relevant,
    })
}

/// Reads a fuller assessor's qrels, every topic of which must be one of `collection`'s.
fn read_assessor_file(collection: &Collection, path: &Path) -> Result<Qrels> {
    let check = |topic: &str| match collection.topic_index(topic) {
        Some(_) => Ok(()),
        None => Err(format!(
            "topic {topic:?} is not a topic of the task (its qrels judge {}): an assessor \
             grades the task's topics only",
            topic_list(collection)
        )),
    };
    Ok(read_qrels_of(path, &check)?)
}

/// The collection's topic ids, shortened when there are many.
fn topic_list(collection: &Collection) -> String {
    let ids: Vec<&str> = collection.topics.iter().map(|t| t.id.as_str()).collect();
    match ids.len() {
        0..=10 => ids.join(", "),
        count => format!(
            "{} … {} ({count} topics)",
            ids[..5].join(", "),
            ids[count - 1]
        ),
    }
}

/// Per topic of `collection`, the grades `qrels` gives the collection's documents (a document
/// no run retrieved and the official qrels never judged cannot be judged, so it is left out).
fn file_grades(collection: &Collection, qrels: &Qrels) -> Vec<DocumentGrades> {
    (collection.topics.iter())
        .map(|topic| {
            let judged = qrels
                .topic(&topic.id)
                .map(|t| t.judgments())
                .unwrap_or_default();
            judged
                .into_iter()
                .filter_map(|(docid, grade)| Some((collection.docs.get(docid)?, grade)))
                .collect()
        })
        .collect()
}

/// Per topic (collection order), the full depth pool: every pooled run's top `pool_depth`.
fn full_pools(collection: &Collection, pool_depth: usize) -> Vec<Vec<DocId>> {
    let everyone = vec![false; collection.runs.len()];
    (collection.topics.iter())
        .map(|topic| pool_of(collection, topic, &everyone, &[], pool_depth))
        .collect()
}

/// Whether `assessor` (of a seed) grades `doc` on `topic` as relevant at `level`, the hybrid's
/// full depth pool graded as the pool is.
pub(crate) fn assessed_relevant(
    assessor: &SeedAssessor,
    study: &StudyAssessor,
    (topic, doc): (usize, DocId),
    level: Grade,
) -> bool {
    let grade = match study {
        StudyAssessor::Hybrid { pools, .. } => {
            assess_in_pool(assessor, topic, doc, &pools[topic]).grade
        }
        _ => assessor.assess(topic, doc).grade,
    };
    crate::base::is_relevant(grade, level)
}

/// The fuller file's qrels with the official judgments it lacks, every document included; with
/// `pools` (a hybrid's), the official grades alone within each topic's depth pool.
fn fuller_grades(
    collection: &Collection,
    file: &Qrels,
    pools: Option<&[Vec<DocId>]>,
) -> QrelsGrades {
    (collection.topics.iter().enumerate())
        .map(|(index, topic)| {
            let pool = pools.map(|pools| pools[index].as_slice());
            TopicGrades::new(
                &topic.retrieved,
                fuller_judgments(collection, topic, file, pool),
            )
        })
        .collect()
}

/// Topic `topic`'s judgments of the fuller file (in its order), then the official judgments
/// the file lacks (in document order); with `pool` (a hybrid's depth pool of the topic, sorted),
/// the official grades alone within it.
fn fuller_judgments(
    collection: &Collection,
    topic: &TopicData,
    file: &Qrels,
    pool: Option<&[DocId]>,
) -> TopicJudgments {
    let is_pooled = |doc: Option<DocId>| {
        pool.is_some_and(|pool| doc.is_some_and(|d| pool.binary_search(&d).is_ok()))
    };
    let file_topic = file.topic(&topic.id);
    let from_file = file_topic.map(|t| t.judgments()).unwrap_or_default();
    let mut judgments: Vec<(Option<DocId>, Grade)> = from_file
        .into_iter()
        .map(|(docid, grade)| (collection.docs.get(docid), grade))
        .filter(|&(doc, _)| !is_pooled(doc))
        .collect();
    let mut official: Vec<(DocId, Grade)> = (topic.grades.iter())
        .filter(|(&doc, _)| {
            is_pooled(Some(doc))
                || file_topic.is_none_or(|t| t.grade(collection.docs.name(doc)).is_none())
        })
        .map(|(&doc, &grade)| (doc, grade))
        .collect();
    official.sort_unstable();
    judgments.extend(official.into_iter().map(|(doc, grade)| (Some(doc), grade)));
    judgments
}

#[cfg(test)]
#[path = "assessor_tests.rs"]
mod tests;
