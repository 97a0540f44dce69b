//! The verdict again with returned judgments (`--judged FILE`): a qrels file or the filled
//! assessment sheet, added to the task's qrels for this audit only, and what changed for every
//! audited run. The file is checked whole before any audit: a malformed line, a topic outside
//! the task, a grade that is not an integer, a document graded twice with two grades, or a
//! grade that contradicts an official one (unless official grades may be overridden) is an
//! error naming the file and line.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::changes::{DocRef, JudgedComparison, MeasureChange, RunChange, Standing};
use super::claims::summary::ClaimChange;
use super::settings::AuditSettings;
use super::team::{audit_runs, TeamAuditReport};
use crate::base::error::{excerpt, ParseError, ParseErrorKind, Result, Warning};
use crate::base::Grade;
use crate::io::qrels::Qrels;
use crate::io::run::Run;
use crate::io::task::Task;

/// One returned grade and where it was read.
#[derive(Debug, Clone, PartialEq)]
struct Returned {
    line: usize,
    topic: String,
    docid: String,
    grade: Grade,
}

/// The returned judgments, read and checked for their own form.
#[derive(Debug, Clone, PartialEq)]
pub struct ReturnedJudgments {
    path: PathBuf,
    grades: Vec<Returned>,
}

/// Reads returned judgments: a qrels file (`qid iter docid grade`) or an assessment sheet (a
/// header naming `topic`, `docid` and `grade`, after any lines starting with `#`;
/// tab-separated, or comma-separated when the name ends in `.csv`), whose rows with an empty
/// grade and whose `#` lines are left out.
///
/// # Errors
/// A [`ParseError`] naming the file and line of a malformed line, a grade that is not an
/// integer, a document graded twice with two grades, or an empty file.
pub fn read_judged(path: &Path) -> Result<ReturnedJudgments> {
    let mut text = String::new();
    crate::io::gz::open(path)?
        .read_to_string(&mut text)
        .map_err(|error| ParseError::file(path, ParseErrorKind::Io(error)))?;
    let first = (text.lines()).find(|line| !line.trim().is_empty() && !is_comment(line));
    let Some(first) = first else {
        return Err(ParseError::file(path, ParseErrorKind::Empty).into());
    };
    let delimiter = if is_csv(path) { b',' } else { b'\t' };
    let is_sheet = first.split(char::from(delimiter)).next().map(str::trim) == Some("topic");
    let grades = if is_sheet {
        read_sheet(path, &text, delimiter)?
    } else {
        read_qrels_lines(path, &text)?
    };
    check_repeats(path, &grades)?;
    Ok(ReturnedJudgments {
        path: path.to_path_buf(),
        grades,
    })
}

/// Whether a line of a sheet is a comment: it starts with `#`.
fn is_comment(line: &str) -> bool {
    line.starts_with('#')
}

/// Whether `path` names a CSV file (its name ends in `.csv`).
pub fn is_csv(path: &Path) -> bool {
    path.extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("csv"))
}

fn grade_of(path: &Path, line: usize, column: usize, text: &str) -> Result<Grade, ParseError> {
    text.trim().parse().map_err(|_| {
        ParseError::new(
            path,
            line,
            ParseErrorKind::Field {
                column,
                expected: "an integer grade",
                found: excerpt(text),
            },
        )
    })
}

fn read_qrels_lines(path: &Path, text: &str) -> Result<Vec<Returned>, ParseError> {
    let mut grades = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let [topic, _, docid, grade] = fields[..] else {
            return Err(ParseError::new(
                path,
                index + 1,
                ParseErrorKind::Columns {
                    expected: "4 columns (qid iter docid grade), or a sheet's header naming \
                               topic, docid and grade",
                    found: fields.len(),
                },
            ));
        };
        grades.push(Returned {
            line: index + 1,
            topic: topic.to_string(),
            docid: docid.to_string(),
            grade: grade_of(path, index + 1, 4, grade)?,
        });
    }
    Ok(grades)
}

fn read_sheet(path: &Path, text: &str, delimiter: u8) -> Result<Vec<Returned>, ParseError> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .comment(Some(b'#'))
        .flexible(false)
        .from_reader(text.as_bytes());
    let at = |line: usize, message: String| {
        ParseError::new(path, line, ParseErrorKind::Invalid(message))
    };
    let header = reader
        .headers()
        .map_err(|error| at(1, format!("expected a sheet's header: {error}")))?
        .clone();
    let column = |name: &str| {
        header
            .iter()
            .position(|field| field.trim() == name)
            .ok_or_else(|| {
                at(
                    1,
                    format!("expected a column named {name:?} in the sheet's header"),
                )
            })
    };
    let (topic, docid, grade) = (column("topic")?, column("docid")?, column("grade")?);
    let mut grades = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|error| {
            let line = error.position().map_or(0, |p| p.line() as usize);
            at(line, format!("expected a row of the sheet: {error}"))
        })?;
        let line = record.position().map_or(0, |p| p.line() as usize);
        if record.iter().all(|field| field.trim().is_empty()) || record[grade].trim().is_empty() {
            continue;
        }
        for (name, index) in [("topic", topic), ("docid", docid)] {
            if record[index].trim().is_empty() {
                return Err(at(line, format!("expected a {name}, found an empty cell")));
            }
        }
        grades.push(Returned {
            line,
            topic: record[topic].trim().to_string(),
            docid: record[docid].trim().to_string(),
            grade: grade_of(path, line, grade + 1, &record[grade])?,
        });
    }
    Ok(grades)
}

/// A document graded twice must be graded alike.
fn check_repeats(path: &Path, grades: &[Returned]) -> Result<(), ParseError> {
    let mut seen: BTreeMap<(&str, &str), &Returned> = BTreeMap::new();
    for returned in grades {
        let key = (returned.topic.as_str(), returned.docid.as_str());
        match seen.get(&key) {
            Some(first) if first.grade != returned.grade => {
                return Err(ParseError::new(
                    path,
                    returned.line,
                    ParseErrorKind::Invalid(format!(
                        "document {:?} of topic {:?} is graded {} here and {} on line {}; \
                         expected one grade",
                        returned.docid, returned.topic, returned.grade, first.grade, first.line
                    )),
                ));
            }
            Some(_) => {}
            None => {
                seen.insert(key, returned);
            }
        }
    }
    Ok(())
}

/// The task's qrels with the returned grades added, and the official grades they replaced.
///
/// # Errors
/// A [`ParseError`] naming the line of a topic the task's qrels lack, or of a grade that
/// contradicts an official one when `override_official` is false.
fn with_returned(
    task: &Task,
    returned: &ReturnedJudgments,
    override_official: bool,
) -> Result<(Qrels, usize, Vec<DocRef>)> {
    let mut qrels = task.qrels.clone();
    let mut added = 0;
    let mut overridden = Vec::new();
    for grade in &returned.grades {
        let at = |message: String| {
            ParseError::new(&returned.path, grade.line, ParseErrorKind::Invalid(message))
        };
        let Some(topic) = qrels.topics.get_mut(grade.topic.as_str()) else {
            return Err(at(format!(
                "topic {:?} is not a topic of task {}; expected one of its judged topics",
                grade.topic, task.manifest.name
            ))
            .into());
        };
        match topic.grade(&grade.docid) {
            Some(official) if official == grade.grade => continue,
            Some(official) if !override_official => {
                return Err(at(format!(
                    "document {:?} of topic {:?} is graded {} here but {} in the task's qrels; \
                     expected the official grade (--override-official replaces it)",
                    grade.docid, grade.topic, grade.grade, official
                ))
                .into());
            }
            Some(_) => overridden.push(DocRef::new(&grade.topic, &grade.docid)),
            None => added += 1,
        }
        topic.insert(&grade.docid, grade.grade);
    }
    Ok((qrels, added + overridden.len(), overridden))
}

/// Audits `runs` on the task's qrels and again with `returned` added to them, and reports the
/// second audit with what changed.
///
/// # Errors
/// The errors of [`audit_runs`], and those of the returned judgments against the task.
pub fn audit_with_judgments(
    task: Task,
    runs: Vec<Run>,
    settings: &AuditSettings,
    (returned, override_official): (&ReturnedJudgments, bool),
) -> Result<(TeamAuditReport, Vec<Warning>)> {
    let (qrels, judgments_added, overridden) = with_returned(&task, returned, override_official)?;
    let (before, _) = audit_runs(task.clone(), runs.clone(), settings)?;
    let mut judged_task = task;
    judged_task.qrels = qrels;
    let (mut after, warnings) = audit_runs(judged_task, runs, settings)?;
    let graded: std::collections::BTreeSet<DocRef> = returned
        .grades
        .iter()
        .map(|g| DocRef::new(&g.topic, &g.docid))
        .collect();
    let listed: std::collections::BTreeSet<DocRef> = before
        .to_judge
        .iter()
        .map(|entry| DocRef::new(&entry.topic, &entry.docid))
        .collect();
    after.judged = Some(JudgedComparison {
        file: returned.path.display().to_string(),
        judgments_added,
        overridden,
        listed_unjudged: listed.difference(&graded).cloned().collect(),
        judged_unlisted: graded.difference(&listed).cloned().collect(),
        verdict_before: before.verdict.clone(),
        claims: (before.runs.iter().zip(&after.runs))
            .flat_map(|(b, a)| b.claims.iter().zip(&a.claims))
            .map(|(before, after)| ClaimChange {
                before: before.clone(),
                after: after.clone(),
            })
            .collect(),
        runs: before
            .runs
            .iter()
            .zip(&after.runs)
            .map(|(before, after)| RunChange {
                run: after.run.clone(),
                verdict_before: before.verdict.clone(),
                verdict_after: after.verdict.clone(),
                measures: before
                    .measures
                    .iter()
                    .zip(&after.measures)
                    .map(|(b, a)| MeasureChange {
                        measure: a.score.measure.clone(),
                        before: Standing::of(b),
                        after: Standing::of(a),
                    })
                    .collect(),
            })
            .collect(),
    });
    Ok((after, warnings))
}
