//! trec_eval's z-score files (`-Z`): lines `qid measure mean stddev`, whitespace-separated,
//! giving the mean and standard deviation of a measure's per-topic value over some reference
//! runs.

use std::collections::HashMap;
use std::path::Path;

use crate::base::error::{excerpt, ParseError, ParseErrorKind};
use crate::io::gz::LineReader;

/// The mean and standard deviation of each (topic, measure name).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ZScores {
    by_topic_measure: HashMap<(Box<str>, Box<str>), (f64, f64)>,
}

impl ZScores {
    /// The mean and standard deviation of `measure` (trec_eval's printed name) on `topic`.
    pub fn get(&self, topic: &str, measure: &str) -> Option<(f64, f64)> {
        self.by_topic_measure
            .get(&(Box::from(topic), Box::from(measure)))
            .copied()
    }
}

const ZSCORE_COLUMNS: &str = "4 columns (qid measure mean stddev)";

/// Reads a z-score file (plain or gzip).
///
/// # Errors
/// A [`ParseError`] naming file and line for a wrong column count or a mean or standard
/// deviation that is not a finite number, an empty file or an unreadable one.
pub fn read_zscores(path: &Path) -> Result<ZScores, ParseError> {
    let mut reader = LineReader::open(path)?;
    let mut zscores = ZScores::default();
    while let Some(line) = reader.next_line()? {
        let Some([qid, measure, mean, stddev]) = line.columns(ZSCORE_COLUMNS)? else {
            continue;
        };
        let number = |column: usize, text: &str| {
            text.parse::<f64>()
                .ok()
                .filter(|value| value.is_finite())
                .ok_or_else(|| {
                    line.error(ParseErrorKind::Field {
                        column,
                        expected: "a finite number",
                        found: excerpt(text),
                    })
                })
        };
        let value = (number(3, mean)?, number(4, stddev)?);
        zscores
            .by_topic_measure
            .insert((qid.into(), measure.into()), value);
    }
    if zscores.by_topic_measure.is_empty() {
        return Err(ParseError::file(path, ParseErrorKind::Empty));
    }
    Ok(zscores)
}
