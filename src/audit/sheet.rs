//! The assessment sheet (`--sheet FILE`): one row per document of the merged list, with what an
//! assessor needs (the topic's text, the document's text when the task has a corpus) and an
//! empty `grade` column to fill; tab-separated, or comma-separated for a `.csv` name. With
//! claims, lines starting with `#` before the header give each claim's verdict, and a `claims`
//! column the claims each document serves; with labels, a `label` column each document's
//! secondary label. Filled, it is read back by `--judged`
//! ([`super::judged`]), which skips the `#` lines.

use std::collections::BTreeSet;
use std::io::Write;

use rustc_hash::FxHashMap;

use super::claims::render::sheet_line;
use super::claims::ClaimSummary;
use super::team::TeamAuditReport;
use crate::base::error::Result;
use crate::io::corpus::for_each_document;
use crate::io::task::Task;

/// The sheet's columns, in order; with claims, [`CLAIMS_COLUMN`] follows `runs`.
pub const SHEET_COLUMNS: [&str; 7] = [
    "topic",
    "topic_text",
    "docid",
    "document_text",
    "runs",
    "probability",
    "grade",
];

/// The column of the claims a document serves, in a sheet of an audit with claims.
pub const CLAIMS_COLUMN: &str = "claims";

/// The column of a document's secondary label, after `probability`, in a sheet of an audit
/// with labels (empty for a document without one).
pub const LABEL_COLUMN: &str = "label";

/// The texts of some documents, read from the task's corpus.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocumentTexts {
    texts: FxHashMap<String, String>,
}

impl DocumentTexts {
    /// The texts of `docids` in one pass over the task's corpus (none without a corpus: a
    /// feature store holds no text).
    ///
    /// # Errors
    /// The corpus's read errors.
    pub fn read(task: &Task, docids: &BTreeSet<&str>) -> Result<Self> {
        let mut texts = FxHashMap::default();
        let Some(corpus) = &task.manifest.corpus else {
            return Ok(Self { texts });
        };
        for_each_document(corpus, &task.manifest.corpus_layout, |_, docid, text| {
            if docids.contains(docid) {
                texts.insert(docid.to_string(), text.to_string());
            }
            Ok(())
        })?;
        Ok(Self { texts })
    }

    /// The text of `docid`, if read.
    pub fn text(&self, docid: &str) -> Option<&str> {
        self.texts.get(docid).map(String::as_str)
    }
}

/// Writes the sheet of `report`'s merged list: with claims, a `#` line per claim with its
/// verdict, then the header and a row per document: topic texts from `task`, document texts
/// from `texts` (empty cells where unknown), with claims the claims it serves; tab-separated
/// or, with `is_csv`, comma-separated.
///
/// # Errors
/// When writing fails.
pub fn write_sheet(
    out: &mut dyn Write,
    report: &TeamAuditReport,
    task: &Task,
    texts: &DocumentTexts,
    is_csv: bool,
) -> std::io::Result<()> {
    let claims: Vec<&ClaimSummary> = report.runs.iter().flat_map(|r| &r.claims).collect();
    for claim in &claims {
        writeln!(out, "# {}", sheet_line(claim))?;
    }
    let with_claims = !claims.is_empty();
    let mut writer = csv::WriterBuilder::new()
        .delimiter(if is_csv { b',' } else { b'\t' })
        .from_writer(out);
    let with_labels = report.labels.is_some();
    let mut header = SHEET_COLUMNS.to_vec();
    if with_labels {
        header.insert(6, LABEL_COLUMN);
    }
    if with_claims {
        header.insert(5, CLAIMS_COLUMN);
    }
    writer.write_record(header)?;
    for entry in &report.to_judge {
        let topic_text = task.topics.as_ref().and_then(|t| t.text(&entry.topic));
        let mut row = vec![
            entry.topic.clone(),
            one_line(topic_text.unwrap_or_default()),
            entry.docid.clone(),
            one_line(texts.text(&entry.docid).unwrap_or_default()),
            entry.runs.join(" "),
            format!("{:.6}", entry.probability),
            String::new(),
        ];
        if with_labels {
            row.insert(6, entry.label.map(|g| g.to_string()).unwrap_or_default());
        }
        if with_claims {
            row.insert(5, entry.claims.join("; "));
        }
        writer.write_record(row)?;
    }
    writer.flush()
}

/// `text` on one line: every run of white space (tabs and line breaks included) as one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
