//! The label sheet (`--label-sheet FILE`): the documents a secondary assessor (an LLM) should
//! grade before the audit is run again with `--labels`. They are the audited runs' unjudged
//! documents within the audit's reach that the labels do not grade yet, and, while the labels
//! grade fewer than [`CALIBRATION_LABELS`] of the documents the calibration learns from
//! (judged documents that only one pooled team put in the pool), a seeded sample of those.
//! The sheet is JSON lines, one request per topic in the shape umbrela's judges read:
//! `{"query": {"qid", "text"}, "candidates": [{"docid", "doc": {"segment"}, "reason"}]}`
//! (`docs/labels.md`).

use std::collections::BTreeSet;
use std::io::Write;

use rand::seq::SliceRandom;
use serde::Serialize;

use super::basis::AuditBasis;
use super::settings::{AUDIT_DEPTH, AUDIT_SEED};
use crate::base::DocId;
use crate::collection::UniqueRule;
use crate::io::task::Task;

/// The labelled calibration documents the sheet asks for, counting those already labelled.
pub const CALIBRATION_LABELS: usize = 500;

/// Why a document is on the label sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelReason {
    /// An audited run's unjudged document within the audit's reach.
    Unjudged,
    /// A judged document of the calibration's kind, for the calibration of the labels.
    Calibration,
}

/// A document the label sheet asks a secondary assessor to grade.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct LabelRequest {
    /// The topic's index in the collection.
    #[serde(skip)]
    pub topic_index: usize,
    /// The topic id.
    pub topic: String,
    /// The document id.
    pub docid: String,
    /// Why it is asked for.
    pub reason: LabelReason,
}

/// The documents to label for the runs `audited` (collection run indices) of `basis`, whose
/// teams are `audited_teams`: see the module's documentation. In topic order, the unjudged
/// documents first, each group by document id.
pub fn label_requests(
    basis: &AuditBasis,
    audited: &[usize],
    audited_teams: &[String],
) -> Vec<LabelRequest> {
    let collection = basis.collection;
    let request = |topic: usize, doc: DocId, reason| LabelRequest {
        topic_index: topic,
        topic: collection.topics[topic].id.clone(),
        docid: collection.doc_name(doc).to_string(),
        reason,
    };
    let mut requests = BTreeSet::new();
    for (topic, doc) in unjudged_tops(basis, audited) {
        if basis.label(topic, doc).is_none() {
            requests.insert(request(topic, doc, LabelReason::Unjudged));
        }
    }
    let (labelled, mut open) = calibration_documents(basis, audited_teams);
    open.shuffle(&mut crate::base::seed::keyed_rng(AUDIT_SEED, "label sheet"));
    let wanted = CALIBRATION_LABELS.saturating_sub(labelled);
    for &(topic, doc) in open.iter().take(wanted) {
        requests.insert(request(topic, doc, LabelReason::Calibration));
    }
    let mut requests: Vec<LabelRequest> = requests.into_iter().collect();
    requests.sort_by(|a, b| {
        (a.topic_index, a.reason, &a.docid).cmp(&(b.topic_index, b.reason, &b.docid))
    });
    requests
}

/// The unjudged documents of the top [`AUDIT_DEPTH`] of the runs `audited` of `basis`, each
/// (topic, document) once.
pub(super) fn unjudged_tops(basis: &AuditBasis, audited: &[usize]) -> BTreeSet<(usize, DocId)> {
    let mut unjudged = BTreeSet::new();
    for (topic, data) in basis.collection.topics.iter().enumerate() {
        for &run in audited {
            let ranking = &data.rankings[run];
            let top = &ranking[..ranking.len().min(AUDIT_DEPTH)];
            let open = top
                .iter()
                .filter(|doc| !basis.judgments[topic].contains_key(doc));
            unjudged.extend(open.map(|&doc| (topic, doc)));
        }
    }
    unjudged
}

/// The judged documents that only one pooled team (not an audited one) put in the pool
/// (classic leave-out-uniques at the pool depth): how many of them the labels grade, and
/// those they do not, by topic and document.
fn calibration_documents(
    basis: &AuditBasis,
    audited_teams: &[String],
) -> (usize, Vec<(usize, DocId)>) {
    let collection = basis.collection;
    let rule = UniqueRule::classic(basis.pool_depth);
    let mut labelled = 0;
    let mut open = Vec::new();
    for (topic, data) in collection.topics.iter().enumerate() {
        let owners = collection.sole_teams(data, &rule);
        let mut judged: Vec<DocId> = (basis.judgments[topic].keys())
            .copied()
            .filter(|&doc| {
                owners
                    .owner(doc)
                    .is_some_and(|team| !audited_teams.iter().any(|t| t == team))
            })
            .collect();
        judged.sort_unstable_by(|&a, &b| collection.doc_name(a).cmp(collection.doc_name(b)));
        for doc in judged {
            match basis.label(topic, doc) {
                Some(_) => labelled += 1,
                None => open.push((topic, doc)),
            }
        }
    }
    (labelled, open)
}

/// One request of the label sheet: a topic and the documents to grade.
#[derive(Serialize)]
struct SheetRequest<'a> {
    query: Query<'a>,
    candidates: Vec<Candidate<'a>>,
}

#[derive(Serialize)]
struct Query<'a> {
    qid: &'a str,
    text: &'a str,
}

#[derive(Serialize)]
struct Candidate<'a> {
    docid: &'a str,
    doc: Segment<'a>,
    reason: LabelReason,
}

#[derive(Serialize)]
struct Segment<'a> {
    segment: &'a str,
}

/// Writes `requests` as the label sheet: one JSON line per topic, with the topic's text from
/// `task` and each document's from `text_of` (empty where unknown).
///
/// # Errors
/// When writing fails.
pub fn write_label_sheet<'t>(
    out: &mut dyn Write,
    requests: &[LabelRequest],
    task: &Task,
    text_of: &dyn Fn(&str) -> Option<&'t str>,
) -> std::io::Result<()> {
    for topic_requests in requests.chunk_by(|a, b| a.topic_index == b.topic_index) {
        let topic = topic_requests[0].topic.as_str();
        let line = SheetRequest {
            query: Query {
                qid: topic,
                text: (task.topics.as_ref())
                    .and_then(|topics| topics.text(topic))
                    .unwrap_or_default(),
            },
            candidates: (topic_requests.iter())
                .map(|request| Candidate {
                    docid: &request.docid,
                    doc: Segment {
                        segment: text_of(&request.docid).unwrap_or_default(),
                    },
                    reason: request.reason,
                })
                .collect(),
        };
        serde_json::to_writer(&mut *out, &line)?;
        writeln!(out)?;
    }
    Ok(())
}
