//! TREC qrels files (`qid iter docid grade`): column 2 is ignored (`0`, `Q0` and judging batches
//! such as `0.5` all occur), columns are separated by any run of spaces or tabs.

use std::collections::{BTreeMap, HashMap};

use rustc_hash::FxHashMap;
use std::io::Write;
use std::path::Path;

use crate::base::error::{excerpt, ParseError, ParseErrorKind};
use crate::base::Grade;
use crate::io::gz::LineReader;

/// The judgments of one topic.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TopicQrels {
    grades: FxHashMap<Box<str>, Grade>,
}

impl TopicQrels {
    /// The grade of `docid`, or `None` when it was not judged.
    #[inline]
    pub fn grade(&self, docid: &str) -> Option<Grade> {
        self.grades.get(docid).copied()
    }

    /// Records a judgment; returns the previous grade if the document was already judged.
    pub fn insert(&mut self, docid: &str, grade: Grade) -> Option<Grade> {
        self.grades.insert(docid.into(), grade)
    }

    /// The number of judged documents.
    pub fn len(&self) -> usize {
        self.grades.len()
    }

    /// Whether nothing is judged.
    pub fn is_empty(&self) -> bool {
        self.grades.is_empty()
    }

    /// The judgments in docid order (byte order).
    pub fn judgments(&self) -> Vec<(&str, Grade)> {
        let mut judgments: Vec<(&str, Grade)> = self
            .grades
            .iter()
            .map(|(docid, &grade)| (&**docid, grade))
            .collect();
        judgments.sort_unstable();
        judgments
    }

    /// Every judged grade (any order), for summaries such as the number of relevant documents.
    pub fn grades(&self) -> impl Iterator<Item = Grade> + '_ {
        self.grades.values().copied()
    }

    /// The number of documents with a relevant grade at `relevance_level`.
    pub fn relevant_count(&self, relevance_level: Grade) -> usize {
        self.grades()
            .filter(|&grade| crate::base::is_relevant(grade, relevance_level))
            .count()
    }
}

/// Relevance judgments for a set of topics.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Qrels {
    /// Judgments per topic id, in topic id order (byte order).
    pub topics: BTreeMap<Box<str>, TopicQrels>,
}

impl Qrels {
    /// The judgments of `topic`, if it has any.
    pub fn topic(&self, topic: &str) -> Option<&TopicQrels> {
        self.topics.get(topic)
    }

    /// The total number of judgments.
    pub fn len(&self) -> usize {
        self.topics.values().map(TopicQrels::len).sum()
    }

    /// Whether there are no judgments.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the qrels in TREC format (`qid 0 docid grade`), topics and documents in byte order.
    ///
    /// # Errors
    /// When writing fails.
    pub fn write_trec(&self, out: &mut dyn Write) -> std::io::Result<()> {
        for (topic, judgments) in &self.topics {
            for (docid, grade) in judgments.judgments() {
                writeln!(out, "{topic} 0 {docid} {grade}")?;
            }
        }
        Ok(())
    }
}

const QRELS_COLUMNS: &str = "4 columns (qid iter docid grade)";

/// Collects judgments, remembering where each was read so that a second judgment of the same
/// document names the first: shared by files and in-memory records.
#[derive(Default)]
struct QrelsBuilder {
    qrels: Qrels,
    first_lines: HashMap<(Box<str>, Box<str>), usize>,
}

impl QrelsBuilder {
    /// Adds one judgment read at `line`.
    fn push(
        &mut self,
        qid: &str,
        docid: &str,
        grade: Grade,
        line: usize,
    ) -> Result<(), ParseErrorKind> {
        let key = (Box::<str>::from(qid), Box::<str>::from(docid));
        if let Some(&first_line) = self.first_lines.get(&key) {
            return Err(ParseErrorKind::Invalid(format!(
                "document {docid:?} is judged twice for topic {qid:?} (first on line {first_line})"
            )));
        }
        self.first_lines.insert(key, line);
        self.qrels
            .topics
            .entry(qid.into())
            .or_default()
            .insert(docid, grade);
        Ok(())
    }

    /// The qrels; an error when nothing was judged.
    fn finish(self, path: &Path) -> Result<Qrels, ParseError> {
        if self.qrels.is_empty() {
            return Err(ParseError::file(path, ParseErrorKind::Empty));
        }
        Ok(self.qrels)
    }
}

/// Reads a qrels file (plain or gzip).
///
/// # Errors
/// A [`ParseError`] naming file and line for a wrong column count, a grade that is not an
/// integer, a document judged twice for one topic, an empty file, binary content or an
/// unreadable file.
pub fn read_qrels(path: &Path) -> Result<Qrels, ParseError> {
    read_qrels_of(path, &|_| Ok(()))
}

/// Reads a qrels file whose every topic `check_topic` accepts (it returns why it refuses one).
///
/// # Errors
/// As [`read_qrels`], and a [`ParseError`] naming the first line of a refused topic.
pub fn read_qrels_of(
    path: &Path,
    check_topic: &dyn Fn(&str) -> Result<(), String>,
) -> Result<Qrels, ParseError> {
    let mut reader = LineReader::open(path)?;
    let mut builder = QrelsBuilder::default();
    while let Some(line) = reader.next_line()? {
        let Some([qid, _, docid, grade]) = line.columns(QRELS_COLUMNS)? else {
            continue;
        };
        check_topic(qid).map_err(|why| line.error(ParseErrorKind::Invalid(why)))?;
        let grade: Grade = grade.parse().map_err(|_| {
            line.error(ParseErrorKind::Field {
                column: 4,
                expected: "an integer grade",
                found: excerpt(grade),
            })
        })?;
        builder
            .push(qid, docid, grade, line.number)
            .map_err(|kind| line.error(kind))?;
    }
    builder.finish(path)
}

impl Qrels {
    /// Builds qrels from in-memory `(topic, docid, grade)` records with the same rules as
    /// [`read_qrels`]. Records are numbered from 1 like the lines of a file named `source`, so
    /// errors read `source:record: ...`.
    ///
    /// # Errors
    /// A [`ParseError`] for a document judged twice for one topic, or no record.
    pub fn from_records<'r>(
        source: &Path,
        records: impl IntoIterator<Item = (&'r str, &'r str, Grade)>,
    ) -> Result<Qrels, ParseError> {
        let mut builder = QrelsBuilder::default();
        for (index, (qid, docid, grade)) in records.into_iter().enumerate() {
            builder
                .push(qid, docid, grade, index + 1)
                .map_err(|kind| ParseError::new(source, index + 1, kind))?;
        }
        builder.finish(source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::fixture::read_written;

    fn qrels_from(text: &str) -> Result<Qrels, ParseError> {
        read_written("q.qrels", text, read_qrels)
    }

    #[test]
    fn iteration_column_and_separators_vary() {
        let qrels = qrels_from("1 0.5  d1 2\n1 Q0 d2 0\n2\t0\td3\t-1\n").unwrap();
        assert_eq!(qrels.topic("1").unwrap().grade("d1"), Some(2));
        assert_eq!(qrels.topic("1").unwrap().grade("d9"), None);
        assert_eq!(qrels.topic("2").unwrap().grade("d3"), Some(-1));
        assert_eq!(qrels.len(), 3);
        assert_eq!(qrels.topic("1").unwrap().relevant_count(1), 1);
    }

    #[test]
    fn bad_lines_name_their_line() {
        let cases = [
            ("1 0 d1 1\n1 0 d2\n", 2, "expected 4 columns"),
            ("1 0 d1 1.5\n", 1, "an integer grade"),
            ("1 0 d1 1\n1 0 d1 0\n", 2, "judged twice"),
        ];
        for (text, line, message) in cases {
            let error = qrels_from(text).unwrap_err();
            assert_eq!(error.line, line, "{error}");
            assert!(error.to_string().contains(message), "{error}");
        }
        assert!(matches!(
            qrels_from("").unwrap_err().kind,
            ParseErrorKind::Empty
        ));
    }

    #[test]
    fn records_follow_the_file_rules() {
        let records = [("1", "d1", 2), ("1", "d2", 0), ("2", "d3", -1)];
        let qrels = Qrels::from_records(Path::new("<frame>"), records).unwrap();
        assert_eq!(
            qrels,
            qrels_from("1 0 d1 2\n1 0 d2 0\n2 0 d3 -1\n").unwrap()
        );
        let error =
            Qrels::from_records(Path::new("<frame>"), [("1", "d", 1), ("1", "d", 0)]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "<frame>:2: document \"d\" is judged twice for topic \"1\" (first on line 1)"
        );
    }

    #[test]
    fn written_qrels_read_back_identically() {
        let qrels = qrels_from("2 0 b 1\n1 0 a 0\n1 0 c 3\n").unwrap();
        let mut text = Vec::new();
        qrels.write_trec(&mut text).unwrap();
        assert_eq!(
            String::from_utf8(text.clone()).unwrap(),
            "1 0 a 0\n1 0 c 3\n2 0 b 1\n"
        );
        assert_eq!(
            qrels_from(&String::from_utf8(text).unwrap()).unwrap(),
            qrels
        );
    }
}
