//! The crate's error type: every failure the library reports, with the data needed to name its
//! cause (file, line, what was expected). The binary adds context and maps errors to exit codes.

use std::path::{Path, PathBuf};

/// A problem found while reading one input file, with the 1-based line it was found on
/// (0 when the problem concerns the whole file, such as an empty file).
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {kind}", path.display(), line_suffix(*line))]
pub struct ParseError {
    /// The file being read.
    pub path: PathBuf,
    /// The 1-based line number, or 0 for a problem with the whole file.
    pub line: usize,
    /// What was wrong.
    pub kind: ParseErrorKind,
}

fn line_suffix(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(":{line}")
    }
}

/// What was wrong with a line or a file.
#[derive(Debug, thiserror::Error)]
pub enum ParseErrorKind {
    /// A line had the wrong number of columns.
    #[error("expected {expected}, found {found} columns")]
    Columns {
        /// A description of the expected layout, e.g. `4 columns (qid iter docid grade)`.
        expected: &'static str,
        /// How many columns the line had.
        found: usize,
    },
    /// A field could not be parsed as the type it must have.
    #[error("expected {expected} in column {column}, found {found:?}")]
    Field {
        /// The 1-based column.
        column: usize,
        /// What the column must hold, e.g. `an integer grade`.
        expected: &'static str,
        /// The text found there (shortened when long).
        found: String,
    },
    /// A document appears twice for one topic of one run.
    #[error("document {docid:?} appears twice for topic {topic:?} (first on line {first_line})")]
    DuplicateDocument {
        /// The topic id.
        topic: String,
        /// The document id.
        docid: String,
        /// The line where it was first seen.
        first_line: usize,
    },
    /// The file holds no data lines.
    #[error("the file is empty; expected at least one line of data")]
    Empty,
    /// The bytes are not text (invalid UTF-8 or NUL bytes).
    #[error("expected text, found binary data")]
    Binary,
    /// A JSON line was not a JSON object, or lacked a field, or held one of the wrong type.
    #[error("expected {expected}, found {found}")]
    Json {
        /// What the line must hold, e.g. `a document id in field pid, docid or id`.
        expected: String,
        /// What it held instead (shortened when long).
        found: String,
    },
    /// Any other rule of the format was broken; the message says which.
    #[error("{0}")]
    Invalid(String),
    /// The file could not be read (missing, unreadable, truncated gzip stream, ...).
    #[error("{0}")]
    Io(#[source] std::io::Error),
}

impl ParseError {
    /// A problem on a given line of a file.
    pub fn new(path: impl Into<PathBuf>, line: usize, kind: ParseErrorKind) -> Self {
        Self {
            path: path.into(),
            line,
            kind,
        }
    }

    /// A problem with a whole file.
    pub fn file(path: impl Into<PathBuf>, kind: ParseErrorKind) -> Self {
        Self::new(path, 0, kind)
    }
}

/// Every error the reusesim library reports.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An input file is malformed or unreadable.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A measure name could not be parsed.
    #[error("{0}")]
    Measure(String),
    /// An output file could not be written.
    #[error("writing {}", path.display())]
    Write {
        /// The file being written.
        path: PathBuf,
        /// The underlying failure.
        #[source]
        source: std::io::Error,
    },
    /// A file could not be read back: one the library wrote itself (a feature store being
    /// built and its scratch files), or one it only needs to measure. Malformed or unreadable
    /// inputs are [`Error::Parse`].
    #[error("reading {}", path.display())]
    Read {
        /// The file being read.
        path: PathBuf,
        /// The underlying failure.
        #[source]
        source: std::io::Error,
    },
    /// A learner could not be configured or trained.
    #[error(transparent)]
    Learner(#[from] LearnerError),
    /// The inputs are individually valid but do not fit together, or a setting is invalid.
    #[error("{0}")]
    Invalid(String),
    /// A figure could not be drawn or encoded.
    #[error("drawing {figure}: {message}")]
    Plot {
        /// The figure's file name (without extension) or what was being drawn.
        figure: String,
        /// What went wrong, as the drawing library reported it.
        message: String,
    },
    /// A statistic could not be computed from its inputs.
    #[error(transparent)]
    Stats(#[from] StatsError),
    /// A step of a job failed: what the step was doing, then (as the source) why.
    #[error("{context}")]
    Context {
        /// What the step was doing, e.g. `reading the runs`.
        context: String,
        /// Why it failed.
        #[source]
        source: Box<Error>,
    },
}

impl Error {
    /// The [`Error::Write`] of a failure to write `path` (or read back what was written), to
    /// hand to `map_err`.
    pub fn writing(path: &Path) -> impl Fn(std::io::Error) -> Self + Copy + '_ {
        move |source| Self::Write {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The [`Error::Read`] of a failure to read `path`, to hand to `map_err`.
    pub fn reading(path: &Path) -> impl Fn(std::io::Error) -> Self + Copy + '_ {
        move |source| Self::Read {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The error under every [`Error::Context`] layer: what decides the kind of failure.
    pub fn root(&self) -> &Error {
        match self {
            Self::Context { source, .. } => source.root(),
            other => other,
        }
    }
}

/// Adds what a step was doing to its error, as the first line of the chain.
pub trait Context<T> {
    /// The error, if any, under the context `context()`.
    ///
    /// # Errors
    /// The original error, wrapped in [`Error::Context`].
    fn with_context<C: Into<String>>(self, context: impl FnOnce() -> C) -> Result<T>;
}

impl<T, E: Into<Error>> Context<T> for std::result::Result<T, E> {
    fn with_context<C: Into<String>>(self, context: impl FnOnce() -> C) -> Result<T> {
        self.map_err(|error| Error::Context {
            context: context().into(),
            source: Box::new(error.into()),
        })
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Shortens a field for an error message so a garbage line cannot flood the terminal.
pub(crate) fn excerpt(text: &str) -> String {
    const MAX_CHARS: usize = 40;
    if text.chars().count() <= MAX_CHARS {
        text.to_string()
    } else {
        let head: String = text.chars().take(MAX_CHARS).collect();
        format!("{head}...")
    }
}

/// A problem that does not stop the work but that the user should hear about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Warning {
    /// A run has a topic that the qrels do not judge; the topic is ignored.
    #[error("run {run}: topic {topic} is not in the qrels and is ignored")]
    TopicNotJudged {
        /// The run tag.
        run: String,
        /// The topic id.
        topic: String,
    },
    /// A run shares no topic with the qrels; every score is 0.
    #[error("run {run}: no topic in common with the qrels; every score is 0")]
    NoCommonTopic {
        /// The run tag.
        run: String,
    },
    /// A run of `agree` shares no topic with one of the qrels (or with the topics both grade):
    /// it is left out of the rankings.
    #[error("run {run}: no topic in common with {qrels}; it is left out of the rankings")]
    RunLeftOut {
        /// The run tag.
        run: String,
        /// The qrels, or the topics both qrels grade.
        qrels: String,
    },
    /// An audited run has no ranking for some topics of the qrels; the audit leaves them out.
    #[error(
        "run {run}: no ranking for {} topic(s) of the qrels ({}); they are left out of the audit",
        topics.len(),
        topics.join(", ")
    )]
    TopicsMissing {
        /// The run tag.
        run: String,
        /// The qrels topics the run lacks, in topic id order.
        topics: Vec<String>,
    },
    /// A journal ended in a record cut short or failing its checksum (a run killed while
    /// writing it): the record is dropped and its unit judged again.
    #[error(
        "{}: dropped the last {bytes} bytes, a torn or corrupt record (a run killed while \
         writing it); its unit is judged again",
        path.display()
    )]
    TornJournal {
        /// The journal.
        path: std::path::PathBuf,
        /// How many bytes were dropped.
        bytes: u64,
    },
    /// An audited run carries the tag of a run of the task.
    #[error(
        "run {run} is in the task and was {}",
        if *is_pooled { "pooled: its top documents were judged by design" } else { "not pooled" }
    )]
    RunInTask {
        /// The run tag.
        run: String,
        /// Whether the task's run of that tag contributed to the pool.
        is_pooled: bool,
    },
}

/// Why a learner could not be configured or trained.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LearnerError {
    /// The regularisation parameter is zero, negative or not finite.
    #[error("lambda must be a positive, finite number, found {0}")]
    InvalidLambda(f64),
    /// The logistic regularisation parameter is zero, negative or not finite.
    #[error("alpha must be a positive, finite number, found {0}")]
    InvalidAlpha(f64),
    /// The number of iterations is zero.
    #[error("iterations must be at least 1, found 0")]
    ZeroIterations,
    /// The training set has no positive document.
    #[error("the training set must hold at least one positive document, found none")]
    NoPositives,
    /// The training set has no negative document.
    #[error("the training set must hold at least one negative document, found none")]
    NoNegatives,
    /// A sparse vector was given a NaN or infinite value.
    #[error("feature {feature} has value {value}; values must be finite")]
    NonFiniteValue {
        /// The feature index.
        feature: u32,
        /// The value given.
        value: f32,
    },
    /// A training document uses a feature outside the declared dimension.
    #[error("feature {feature} is outside the training set's dimension {dimension}")]
    FeatureOutOfRange {
        /// The offending feature index.
        feature: u32,
        /// The declared number of features.
        dimension: usize,
    },
    /// The logistic regression's optimiser failed; the message is its own.
    #[error("logistic regression failed: {0}")]
    Logistic(String),
}

/// Why a statistic could not be computed from its inputs.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// Two slices that must describe the same items have different lengths.
    #[error("expected slices of equal length, found {left} and {right}")]
    LengthMismatch {
        /// Length of the first slice.
        left: usize,
        /// Length of the second slice.
        right: usize,
    },
    /// The statistic needs more items than it was given.
    #[error("expected at least {required} values, found {found}")]
    TooFewValues {
        /// The minimum number of items.
        required: usize,
        /// The number of items given.
        found: usize,
    },
    /// A rank correlation is undefined because one side ties every item (every pair is tied
    /// in at least one of the rankings; scipy returns NaN here).
    #[error("rank correlation is undefined: one ranking ties every item")]
    AllTied,
    /// A numeric test was given a value that is NaN or infinite.
    #[error("expected finite values, found {value} at position {position}")]
    NonFinite {
        /// The 0-based position of the offending value.
        position: usize,
        /// The offending value.
        value: f64,
    },
    /// A randomization test was asked for zero permutations.
    #[error("expected at least one permutation, found 0")]
    NoPermutations,
}
