//! The simulated assessor: who gives a judged document its grade (see docs/assessor.md).
//!
//! Every judging process (the CAL loop, every strategy, every budget fraction) asks one
//! [`Assessor`] for each document it judges, and a leave-out trial withholds the team's unique
//! documents by that assessor's grades. This module owns the trait, the source of a grade, the
//! official assessor (the collection's own grades: a document they never judged is presumed
//! non-relevant) and the fuller assessor (a second qrels file first, then the collection's
//! grades). The completed assessor, which draws the grades of never-judged documents from the
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
