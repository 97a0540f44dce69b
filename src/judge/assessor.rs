//! The simulated assessor: who gives a judged document its grade (see docs/assessor.md).
//!
//! Every judging process (the CAL loop, every strategy, every budget fraction) asks one
//! [`Assessor`] for each document it judges, and a leave-out trial withholds the team's unique
//! documents by that assessor's grades. This module owns the trait, the source of a grade, the
//! official assessor (the collection's own grades: a document they never judged is presumed
//! non-relevant) and the fuller assessor (a second qrels file first, then the collection's
//! grades) and the hybrid assessor (the collection's grades for the judging's depth pool, the
//! fuller file's for what the judging adds after it). The completed assessor, which draws the grades of never-judged documents from the
//! relevance model, lives in [`crate::relevance_model::completion`].

use crate::base::choice::choice_enum;
use crate::base::{DocId, DocumentGrades, Grade};
use crate::collection::Collection;

choice_enum! {
    /// Where a simulated judgment's grade came from.
    pub enum GradeSource {
        /// The collection's own (official) qrels judged the document; with a fuller file that
        /// also judged it, the grade is the file's.
        Official = "official",
        /// Only the fuller qrels file judged it.
        File = "file",
        /// Drawn from the relevance model: no qrels judged it.
        Drawn = "drawn",
        /// Nobody judged it and nothing could be drawn: presumed non-relevant (grade 0).
        Presumed = "presumed",
    }
}

/// A grade and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Assessment {
    /// The grade.
    pub grade: Grade,
    /// Its source.
    pub source: GradeSource,
}

impl Assessment {
    /// The grade when somebody judged or drew it; `None` when it is only presumed.
    pub fn known_grade(self) -> Option<Grade> {
        (self.source != GradeSource::Presumed).then_some(self.grade)
    }
}

/// Gives documents their grades.
pub trait Assessor: Sync {
    /// The grade of `doc` for the collection's topic `topic` (collection order).
    fn assess(&self, topic: usize, doc: DocId) -> Assessment;

    /// The grade of `doc`, a document of the judging's depth pool on `topic` (the top
    /// `pool_depth` of every pooled run the judging draws from). Only the hybrid assessor
    /// grades the pool otherwise than the rest.
    fn assess_pooled(&self, topic: usize, doc: DocId) -> Assessment {
        self.assess(topic, doc)
    }
}

choice_enum! {
    /// Which assessor graded a judgment, as a hybrid judging's trace names it.
    pub enum Grader {
        /// The official grades: a document of the judging's depth pool.
        Official = "official",
        /// The hybrid's file (its gaps filled as a fuller file's are): a document the judging
        /// added after the pool.
        File = "file",
    }
}

/// `assessor`'s grade of `doc` on `topic`, for a judging whose depth pool is `pool` (sorted),
/// with the assessor that graded it.
pub fn assess_in_pool(
    assessor: &(impl Assessor + ?Sized),
    topic: usize,
    doc: DocId,
    pool: &[DocId],
) -> Assessment {
    if pool.binary_search(&doc).is_ok() {
        assessor.assess_pooled(topic, doc)
    } else {
        assessor.assess(topic, doc)
    }
}

/// The collection's own grades: the official qrels (the truth when synthesising); a document
/// they never judged is presumed non-relevant.
#[derive(Debug, Clone, Copy)]
pub struct OfficialAssessor<'c> {
    collection: &'c Collection,
}

impl<'c> OfficialAssessor<'c> {
    /// The assessor of `collection`'s own grades.
    pub fn new(collection: &'c Collection) -> Self {
        Self { collection }
    }
}

impl Assessor for OfficialAssessor<'_> {
    fn assess(&self, topic: usize, doc: DocId) -> Assessment {
        official_assessment(self.collection, topic, doc)
    }
}

/// The collection's grade of `doc`, or a presumed 0.
fn official_assessment(collection: &Collection, topic: usize, doc: DocId) -> Assessment {
    match collection.topics[topic].grades.get(&doc) {
        Some(&grade) => Assessment {
            grade,
            source: GradeSource::Official,
        },
        None => Assessment {
            grade: 0,
            source: GradeSource::Presumed,
        },
    }
}

/// A fuller qrels first (later rounds, a second assessor, a synthetic truth), then the
/// collection's own grades, then a presumed 0. Where both judged a document, the file's grade
/// wins.
#[derive(Debug, Clone)]
pub struct FullerAssessor<'c> {
    collection: &'c Collection,
    /// Per topic (collection order), the file's grades of the collection's documents.
    file: &'c [DocumentGrades],
}

impl<'c> FullerAssessor<'c> {
    /// The assessor that answers from `file` (per topic of `collection`, its grades) first.
    pub fn new(collection: &'c Collection, file: &'c [DocumentGrades]) -> Self {
        assert_eq!(
            file.len(),
            collection.topics.len(),
            "one grade map per topic"
        );
        Self { collection, file }
    }
}

impl Assessor for FullerAssessor<'_> {
    fn assess(&self, topic: usize, doc: DocId) -> Assessment {
        let official = official_assessment(self.collection, topic, doc);
        match self.file[topic].get(&doc) {
            Some(&grade) => Assessment {
                grade,
                source: match official.source {
                    GradeSource::Official => GradeSource::Official,
                    _ => GradeSource::File,
                },
            },
            None => official,
        }
    }
}

/// People for the pool, a file for the rest: the collection's own grades for a document of the
/// judging's depth pool ([`Assessor::assess_pooled`]), and for every other document the
/// [`FullerAssessor`]'s answer (the file's grade, else the collection's, else a presumed 0).
#[derive(Debug, Clone)]
pub struct HybridAssessor<'c> {
    fuller: FullerAssessor<'c>,
}

impl<'c> HybridAssessor<'c> {
    /// The assessor that grades the pool by `collection`'s grades and the rest from `file`
    /// (per topic of `collection`, its grades) first.
    pub fn new(collection: &'c Collection, file: &'c [DocumentGrades]) -> Self {
        Self {
            fuller: FullerAssessor::new(collection, file),
        }
    }
}

impl Assessor for HybridAssessor<'_> {
    fn assess(&self, topic: usize, doc: DocId) -> Assessment {
        self.fuller.assess(topic, doc)
    }

    fn assess_pooled(&self, topic: usize, doc: DocId) -> Assessment {
        official_assessment(self.fuller.collection, topic, doc)
    }
}
