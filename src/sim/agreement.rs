//! How a trial's simulated qrels agree with the official qrels: what they hold, and what the
//! pool and CAL found of what they could find; and how a study's assessor, when it is not the
//! official one, agrees with the official grades (see docs/assessor.md).

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;

use crate::base::{DocId, Grade};
use crate::collection::Collection;
use crate::judge::cal::TopicJudging;
use crate::judge::candidates::candidate_documents;
use crate::judge::settings::JudgeSettings;
use crate::sim::assessor::{StudyAssessor, TopicJudgments};
use crate::stats::agreement::{grade_agreement, GradeAgreement};

/// How a trial's simulated qrels agree with the official qrels, over all topics. The carried
/// judgments are official judgments copied unchanged, so `overlap` and `recall` count them as
/// found; `overlap_found` and `recall_found` count only what the pool and CAL judged, out of
/// what they could judge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Agreement {
    /// Official judgments carried into the trial's qrels unchanged.
    pub carried: usize,
    /// The fraction of official judgments (topic, document) the simulated qrels hold.
    pub overlap: f64,
    /// The fraction of officially relevant documents the simulated qrels hold (judged means
    /// found: the simulated assessor's grades are the official ones).
    pub recall: f64,
    /// The fraction of official judgments of candidate documents (in the pool or among the
    /// candidates, and not withheld) that the pool or CAL judged.
    pub overlap_found: f64,
    /// The fraction of officially relevant candidate documents that the pool or CAL judged.
    pub recall_found: f64,
}

/// How the qrels of one trial, judged by `judge` and withholding `withheld[topic]` from the
/// simulated assessor on each topic, agree with the official qrels.
pub fn agreement(
    collection: &Collection,
    judge: &JudgeSettings,
    withheld: &[Vec<DocId>],
    judgings: &[&TopicJudging],
) -> Agreement {
    let level = collection.relevance_level;
    let (mut judged, mut relevant) = (AgreementCounts::default(), AgreementCounts::default());
    let mut carried = 0;
    for judging in judgings {
        let topic = &collection.topics[judging.topic];
        carried += judging.carried;
        let held: BTreeSet<DocId> = judging.judgments.iter().map(|&(doc, _)| doc).collect();
        let found: BTreeSet<DocId> = judging.trace.iter().map(|step| step.doc).collect();
        let withheld = &withheld[judging.topic];
        let candidates = candidate_documents(collection, topic, judge.candidates);
        let is_candidate = |doc: &DocId| {
            found.contains(doc)
                || (candidates.binary_search(doc).is_ok() && withheld.binary_search(doc).is_err())
        };
        for (doc, &grade) in &topic.grades {
            let judgment = (held.contains(doc), is_candidate(doc), found.contains(doc));
            judged.add(judgment);
            if crate::base::is_relevant(grade, level) {
                relevant.add(judgment);
            }
        }
    }
    Agreement {
        carried,
        overlap: ratio(judged.held, judged.official),
        recall: ratio(relevant.held, relevant.official),
        overlap_found: ratio(judged.found, judged.candidates),
        recall_found: ratio(relevant.found, relevant.candidates),
    }
}

/// Official judgments counted for [`agreement`].
#[derive(Default)]
struct AgreementCounts {
    /// Official judgments.
    official: usize,
    /// Those the simulated qrels hold.
    held: usize,
    /// Those of candidate documents.
    candidates: usize,
    /// Those the pool or CAL judged.
    found: usize,
}

impl AgreementCounts {
    /// Counts one official judgment: (held, a candidate, found).
    fn add(&mut self, (is_held, is_candidate, is_found): (bool, bool, bool)) {
        self.official += 1;
        self.held += usize::from(is_held);
        self.candidates += usize::from(is_candidate);
        self.found += usize::from(is_found);
    }
}

/// `part / whole`, 0 when `whole` is 0.
fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// How the assessor's qrels of one seed agree with the official qrels on grades, as `reusesim
/// agree` compares two qrels, the official being A and the assessor's B.
#[derive(Debug, Clone, PartialEq)]
pub struct AssessorGrades {
    /// (topic, document) pairs only the official qrels grade.
    pub only_official: usize,
    /// Pairs only the assessor's qrels grade.
    pub only_assessor: usize,
    /// Of those, the ones it grades relevant.
    pub only_assessor_relevant: usize,
    /// The agreement on the pairs both grade (A: official, B: the assessor's).
    pub agreement: GradeAgreement,
}

/// Per seed of `seeds`, how `assessor`'s qrels agree with the official qrels (`collection`'s
/// own grades), grade >= the collection's relevance level counting as relevant; `None` for
/// the official assessor.
pub fn assessor_grades(
    collection: &Collection,
    assessor: &StudyAssessor,
    seeds: &[u64],
) -> Option<BTreeMap<u64, AssessorGrades>> {
    (seeds.par_iter())
        .map(|&seed| {
            let judgments = assessor.judgments(collection, seed)?;
            Some((seed, grades_against_official(collection, &judgments)))
        })
        .collect()
}

/// How `judgments` (per topic, collection order) agree with the collection's official grades.
fn grades_against_official(
    collection: &Collection,
    judgments: &[TopicJudgments],
) -> AssessorGrades {
    let mut pairs: Vec<(Grade, Grade)> = Vec::new();
    let (mut official, mut assessor, mut assessor_relevant) = (0, 0, 0);
    let level = collection.relevance_level;
    for (topic, judgments) in collection.topics.iter().zip(judgments) {
        let before = pairs.len();
        for &(doc, grade) in judgments {
            match doc.and_then(|doc| topic.grades.get(&doc)) {
                Some(&official_grade) => pairs.push((official_grade, grade)),
                None => {
                    assessor += 1;
                    assessor_relevant += usize::from(crate::base::is_relevant(grade, level));
                }
            }
        }
        official += topic.grades.len() - (pairs.len() - before);
    }
    AssessorGrades {
        only_official: official,
        only_assessor: assessor,
        only_assessor_relevant: assessor_relevant,
        agreement: grade_agreement(&pairs, collection.relevance_level),
    }
}
