//! TREC run files (`qid Q0 docid rank score tag`), plain or gzip.
//!
//! Each topic's documents are put in trec_eval's order once, at reading time: score descending,
//! ties broken by docid descending (byte order). The rank column is ignored, as trec_eval does.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use crate::base::error::{excerpt, ParseError, ParseErrorKind};
use crate::io::gz::LineReader;

/// One retrieved document with its score.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedDoc {
    /// The document id.
    pub docid: Box<str>,
    /// The retrieval score, in single precision as trec_eval stores it (`float sim`): scores
    /// that differ only beyond f32 precision tie, and the tie is broken by docid.
    pub score: f32,
}

/// The ranking a run returned for one topic, in trec_eval order.
#[derive(Debug, Clone, PartialEq)]
pub struct RunTopic {
    /// The topic id.
    pub topic: Box<str>,
    /// The documents, best first.
    pub docs: Vec<RankedDoc>,
}

impl RunTopic {
    /// The documents in NIST's pooling order: score descending, ties by docno ascending (the
    /// reverse of trec_eval's tie order; on TREC DL only this order puts every pooled run's top
    /// 10 in the official qrels).
    pub fn pooling_order(&self) -> Vec<&RankedDoc> {
        let mut docs: Vec<&RankedDoc> = self.docs.iter().collect();
        // The documents are in trec_eval's order already; a stable sort only reverses ties.
        docs.sort_by(|a, b| pooling_order(a, b));
        docs
    }
}

/// One run: a tag and a ranking per topic.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The run tag (column 6).
    pub tag: String,
    /// The file it was read from.
    pub path: PathBuf,
    /// The rankings, sorted by topic id (byte order).
    pub topics: Vec<RunTopic>,
}

impl Run {
    /// The ranking for `topic`, if the run has one.
    pub fn topic(&self, topic: &str) -> Option<&RunTopic> {
        self.topics
            .binary_search_by(|entry| entry.topic.as_ref().cmp(topic))
            .ok()
            .map(|pos| &self.topics[pos])
    }

    /// The number of retrieved documents over all topics.
    pub fn len(&self) -> usize {
        self.topics.iter().map(|topic| topic.docs.len()).sum()
    }

    /// Whether the run retrieved nothing.
    pub fn is_empty(&self) -> bool {
        self.topics.iter().all(|topic| topic.docs.is_empty())
    }
}

/// trec_eval's order: score descending, then docid descending (byte order).
pub fn trec_order(a: &RankedDoc, b: &RankedDoc) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| b.docid.as_bytes().cmp(a.docid.as_bytes()))
}

/// NIST's pooling order: score descending (as single-precision floats, as [`trec_order`]), ties
/// broken by docid ascending (byte order).
pub fn pooling_order(a: &RankedDoc, b: &RankedDoc) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| a.docid.as_bytes().cmp(b.docid.as_bytes()))
}

const RUN_COLUMNS: &str = "6 columns (qid Q0 docid rank score tag)";

struct PendingDoc {
    doc: RankedDoc,
    line: usize,
}

/// Collects a run's documents topic by topic, each with the line (or record number) it came
/// from, then checks and orders them: shared by files and in-memory records.
#[derive(Default)]
struct RunBuilder {
    tag: Option<String>,
    topic_positions: FxHashMap<Box<str>, usize>,
    topics: Vec<(Box<str>, Vec<PendingDoc>)>,
}

impl RunBuilder {
    /// Adds one document; `line` is where it was read, for error messages.
    fn push(&mut self, qid: &str, docid: &str, score: f32, line: usize) {
        let pos = match self.topic_positions.get(qid) {
            Some(&pos) => pos,
            None => {
                self.topics.push((qid.into(), Vec::new()));
                self.topic_positions
                    .insert(qid.into(), self.topics.len() - 1);
                self.topics.len() - 1
            }
        };
        self.topics[pos].1.push(PendingDoc {
            doc: RankedDoc {
                docid: docid.into(),
                score,
            },
            line,
        });
    }

    /// The run: duplicates rejected, each topic in trec_eval order, topics in id order.
    fn finish(self, path: &Path) -> Result<Run, ParseError> {
        let Some(tag) = self.tag else {
            return Err(ParseError::file(path, ParseErrorKind::Empty));
        };
        let mut run_topics = self
            .topics
            .into_iter()
            .map(|(topic, docs)| order_topic(path, topic, docs))
            .collect::<Result<Vec<_>, _>>()?;
        run_topics.sort_by(|a, b| a.topic.cmp(&b.topic));
        Ok(Run {
            tag,
            path: path.to_path_buf(),
            topics: run_topics,
        })
    }
}

/// Reads one run file (plain or gzip). Every line must carry the same tag.
///
/// # Errors
/// A [`ParseError`] naming file and line for fewer than 6 columns, a non-numeric or non-finite
/// score, a tag that differs from the first line's, a document twice in one topic, an empty
/// file, binary content or an unreadable file.
pub fn read_run(path: &Path) -> Result<Run, ParseError> {
    let mut reader = LineReader::open(path)?;
    let mut builder = RunBuilder::default();
    while let Some(line) = reader.next_line()? {
        let line_text = line.text;
        // As trec_eval, whatever follows the sixth column is a comment.
        let mut columns = line_text.split_ascii_whitespace();
        let fields: [Option<&str>; 6] = std::array::from_fn(|_| columns.next());
        let [Some(qid), Some(_), Some(docid), Some(_), Some(score), Some(line_tag)] = fields else {
            let found = fields.iter().flatten().count();
            if found == 0 {
                continue; // blank line
            }
            return Err(line.error(ParseErrorKind::Columns {
                expected: RUN_COLUMNS,
                found,
            }));
        };
        let score = parse_score(score).ok_or_else(|| {
            line.error(ParseErrorKind::Field {
                column: 5,
                expected: "a finite numeric score",
                found: excerpt(score),
            })
        })?;
        match &builder.tag {
            None => builder.tag = Some(line_tag.to_string()),
            Some(first) if first != line_tag => {
                return Err(line.error(ParseErrorKind::Invalid(format!(
                    "expected run tag {first:?} (as on the first line; one run per file), found {:?}",
                    excerpt(line_tag)
                ))))
            }
            Some(_) => {}
        }
        builder.push(qid, docid, score, line.number);
    }
    builder.finish(path)
}

impl Run {
    /// Builds a run from in-memory `(topic, docid, score)` records (a data frame, a Python
    /// binding's lists), with the same rules as [`read_run`]: scores rounded to single
    /// precision, each topic put in trec_eval order, a document twice in one topic rejected.
    /// Records are numbered from 1 like the lines of a file named `source`, so errors read
    /// `source:record: ...`.
    ///
    /// # Errors
    /// A [`ParseError`] for a non-finite score, a document twice in one topic, or no record.
    pub fn from_records<'r>(
        tag: &str,
        source: &Path,
        records: impl IntoIterator<Item = (&'r str, &'r str, f64)>,
    ) -> Result<Run, ParseError> {
        let mut builder = RunBuilder::default();
        for (index, (qid, docid, score)) in records.into_iter().enumerate() {
            let number = index + 1;
            let score = single_precision(score).ok_or_else(|| {
                ParseError::new(
                    source,
                    number,
                    ParseErrorKind::Field {
                        column: 5,
                        expected: "a finite numeric score",
                        found: score.to_string(),
                    },
                )
            })?;
            builder.tag.get_or_insert_with(|| tag.to_string());
            builder.push(qid, docid, score, number);
        }
        builder.finish(source)
    }
}

fn parse_score(text: &str) -> Option<f32> {
    // Parsed in double precision and rounded once to single precision, as trec_eval's
    // `atof` into a `float` does.
    text.parse::<f64>().ok().and_then(single_precision)
}

/// A finite score rounded once to single precision, as trec_eval stores it.
fn single_precision(score: f64) -> Option<f32> {
    score.is_finite().then_some(score as f32)
}

/// Rejects duplicate documents, then puts the ranking in trec_eval order.
fn order_topic(
    path: &Path,
    topic: Box<str>,
    mut docs: Vec<PendingDoc>,
) -> Result<RunTopic, ParseError> {
    let mut seen: FxHashMap<&str, usize> =
        FxHashMap::with_capacity_and_hasher(docs.len(), Default::default());
    for pending in &docs {
        if let Some(first_line) = seen.insert(&pending.doc.docid, pending.line) {
            return Err(ParseError::new(
                path,
                pending.line,
                ParseErrorKind::DuplicateDocument {
                    topic: topic.to_string(),
                    docid: pending.doc.docid.to_string(),
                    first_line,
                },
            ));
        }
    }
    drop(seen);
    // Without duplicates, (score, docid) is a total order: no stable sort needed.
    docs.sort_unstable_by(|a, b| trec_order(&a.doc, &b.doc));
    Ok(RunTopic {
        topic,
        docs: docs.into_iter().map(|pending| pending.doc).collect(),
    })
}

/// Lists the run files named by `inputs`: each input is a file, or a directory whose regular
/// files (not hidden ones) are all runs, taken in name order.
///
/// # Errors
/// When an input does not exist or a directory cannot be listed.
pub fn run_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, ParseError> {
    let mut files = Vec::new();
    for input in inputs {
        let io_error = |error| ParseError::file(input, ParseErrorKind::Io(error));
        let metadata = std::fs::metadata(input).map_err(io_error)?;
        if metadata.is_dir() {
            let mut entries = Vec::new();
            for entry in std::fs::read_dir(input).map_err(io_error)? {
                let entry = entry.map_err(io_error)?;
                let is_hidden = entry.file_name().to_string_lossy().starts_with('.');
                // `Path::is_file` follows symbolic links, which run folders often hold.
                if entry.path().is_file() && !is_hidden {
                    entries.push(entry.path());
                }
            }
            if entries.is_empty() {
                return Err(ParseError::file(
                    input,
                    ParseErrorKind::Invalid("expected run files in this folder, found none".into()),
                ));
            }
            entries.sort();
            files.extend(entries);
        } else {
            files.push(input.clone());
        }
    }
    Ok(files)
}

/// Reads every run named by `inputs` (files or directories) in parallel, in input order.
///
/// # Errors
/// The first file's error, in input order.
pub fn read_runs(inputs: &[PathBuf]) -> Result<Vec<Run>, ParseError> {
    use rayon::prelude::*;
    let files = run_files(inputs)?;
    files.par_iter().map(|path| read_run(path)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::fixture::read_written;

    fn run_from(text: &str) -> Result<Run, ParseError> {
        read_written("run.txt", text, read_run)
    }

    #[test]
    fn ties_are_broken_by_docid_descending_and_rank_is_ignored() {
        let run = run_from(
            "q1 Q0 d1 1 1.0 tag\nq1 Q0 d3 2 1.0 tag\nq1 Q0 d2 3 2.0 tag\nq1 Q0 d0 4 1.0 tag\n",
        )
        .unwrap();
        let order: Vec<&str> = run.topics[0].docs.iter().map(|d| &*d.docid).collect();
        assert_eq!(order, vec!["d2", "d3", "d1", "d0"]);
    }

    #[test]
    fn scores_equal_in_single_precision_tie_as_in_trec_eval() {
        let run =
            run_from("q Q0 a 1 -0.4820330048251339 t\nq Q0 b 2 -0.4820330048251340 t\n").unwrap();
        let order: Vec<&str> = run.topics[0].docs.iter().map(|d| &*d.docid).collect();
        assert_eq!(
            order,
            vec!["b", "a"],
            "a tie in f32, broken by docid descending"
        );
    }

    #[test]
    fn topics_are_sorted_and_interleaving_is_allowed() {
        let run = run_from("2 Q0 a 1 3 t\n1\tQ0\tb 1 3 t\n2 Q0 c 2 2 t\n").unwrap();
        let topics: Vec<&str> = run.topics.iter().map(|t| &*t.topic).collect();
        assert_eq!(topics, vec!["1", "2"]);
        assert_eq!(run.topic("2").unwrap().docs.len(), 2);
        assert_eq!(run.len(), 3);
    }

    #[test]
    fn bad_lines_name_their_line() {
        let cases = [
            ("q Q0 d 1 1.0 t\nq Q0 e 2\n", 2, "expected 6 columns"),
            ("q Q0 d 1 high t\n", 1, "finite numeric score"),
            (
                "q Q0 d 1 1 t\nq Q0 e 2 1 t\nq Q0 d 3 0.5 t\n",
                3,
                "appears twice",
            ),
            ("q Q0 d 1 1 t\nq Q0 e 2 1 u\n", 2, "expected run tag"),
            ("q Q0 d 1 NaN t\n", 1, "finite numeric score"),
        ];
        for (text, line, message) in cases {
            let error = run_from(text).unwrap_err();
            assert_eq!(error.line, line, "{error}");
            assert!(error.to_string().contains(message), "{error}");
            assert!(
                error.to_string().contains(&format!("run.txt:{line}:")),
                "{error}"
            );
        }
    }

    #[test]
    fn records_follow_the_file_rules() {
        let text = "q1 Q0 d1 1 1.0 tag\nq1 Q0 d3 2 1.0 tag\nq0 Q0 d2 3 2.0 tag\n";
        let records = [("q1", "d1", 1.0), ("q1", "d3", 1.0), ("q0", "d2", 2.0)];
        let from_records = Run::from_records("tag", Path::new("run.txt"), records).unwrap();
        let mut from_file = run_from(text).unwrap();
        from_file.path = PathBuf::from("run.txt");
        assert_eq!(from_records, from_file);
        let error = Run::from_records(
            "tag",
            Path::new("<frame>"),
            [("q", "d", 1.0), ("q", "d", 2.0)],
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "<frame>:2: document \"d\" appears twice for topic \"q\" (first on line 1)"
        );
        let error =
            Run::from_records("tag", Path::new("<frame>"), [("q", "d", f64::NAN)]).unwrap_err();
        assert!(error
            .to_string()
            .starts_with("<frame>:1: expected a finite"));
        let empty: [(&str, &str, f64); 0] = [];
        let error = Run::from_records("tag", Path::new("<frame>"), empty).unwrap_err();
        assert!(matches!(error.kind, ParseErrorKind::Empty));
    }

    #[test]
    fn empty_file_is_an_error() {
        let error = run_from("\n\n").unwrap_err();
        assert!(matches!(error.kind, ParseErrorKind::Empty));
    }
}
