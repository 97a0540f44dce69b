//! A confusion table file (see docs/formats.md#confusion-table): four rows, one for each true
//! grade 0 to 3 in order, of four whitespace-separated numbers, the weight of each label grade
//! 0 to 3 given that true grade (counts or probabilities: each row is scaled to sum to 1 by its
//! user). Lines starting with `#` and blank lines are skipped.

use std::path::Path;

use crate::base::error::{excerpt, ParseError, ParseErrorKind};
use crate::io::gz::LineReader;

/// The grades a confusion table covers: 0 to `CONFUSION_GRADES - 1`, as rows and as columns.
pub const CONFUSION_GRADES: usize = 4;

/// A confusion table as read: `weights[true grade][label grade]`, every weight finite and
/// non-negative, every row summing to more than 0.
pub type ConfusionWeights = [[f64; CONFUSION_GRADES]; CONFUSION_GRADES];

const CONFUSION_COLUMNS: &str = "4 columns (the weights of label grades 0 1 2 3)";

/// Reads a confusion table (plain or gzip).
///
/// # Errors
/// A [`ParseError`] naming file and line for a row of other than 4 columns, a weight that is
/// not a finite number >= 0, a row whose weights sum to 0 (or overflow), a fifth row, or fewer than 4 rows
/// (line 0: the whole file).
pub fn read_confusion(path: &Path) -> Result<ConfusionWeights, ParseError> {
    let mut reader = LineReader::open(path)?;
    let mut weights = [[0.0; CONFUSION_GRADES]; CONFUSION_GRADES];
    let mut rows = 0;
    while let Some(line) = reader.next_line()? {
        if line.text.trim_start().starts_with('#') {
            continue;
        }
        let Some(columns) = line.columns::<CONFUSION_GRADES>(CONFUSION_COLUMNS)? else {
            continue;
        };
        if rows == CONFUSION_GRADES {
            return Err(line.error(ParseErrorKind::Invalid(format!(
                "expected {CONFUSION_GRADES} rows (true grades 0 to 3), found a fifth"
            ))));
        }
        for (column, text) in columns.iter().enumerate() {
            weights[rows][column] = text
                .parse::<f64>()
                .ok()
                .filter(|weight| weight.is_finite() && *weight >= 0.0)
                .ok_or_else(|| {
                    line.error(ParseErrorKind::Field {
                        column: column + 1,
                        expected: "a finite number >= 0 (a count or a probability)",
                        found: excerpt(text),
                    })
                })?;
        }
        let sum: f64 = weights[rows].iter().sum();
        if sum <= 0.0 || !sum.is_finite() {
            return Err(line.error(ParseErrorKind::Invalid(format!(
                "expected the weights of true grade {rows} to sum to more than 0 and less than \
                 infinity, found {sum}"
            ))));
        }
        rows += 1;
    }
    if rows < CONFUSION_GRADES {
        return Err(ParseError::file(
            path,
            ParseErrorKind::Invalid(format!(
                "expected {CONFUSION_GRADES} rows (true grades 0 to 3), found {rows}"
            )),
        ));
    }
    Ok(weights)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::fixture::read_written;

    fn confusion_from(text: &str) -> Result<ConfusionWeights, ParseError> {
        read_written("confusion.tsv", text, read_confusion)
    }

    #[test]
    fn counts_and_probabilities_are_read_with_comments_and_blank_lines() {
        let table = confusion_from(
            "# true grade 0\n8\t1\t1\t0\n\n0.1 0.6 0.2 0.1\n0 0 1 0\n# last\n0 0 2.5 7.5\n",
        )
        .unwrap();
        assert_eq!(table[0], [8.0, 1.0, 1.0, 0.0]);
        assert_eq!(table[1], [0.1, 0.6, 0.2, 0.1]);
        assert_eq!(table[3], [0.0, 0.0, 2.5, 7.5]);
    }

    #[test]
    fn bad_tables_name_their_line_and_what_was_expected() {
        let good = "1 0 0 0\n";
        let cases = [
            (format!("{good}0 1 1\n"), 2, "expected 4 columns"),
            (format!("{good}{good}1 x 0 0\n"), 3, "finite number >= 0"),
            (format!("{good}1 -1 0 0\n"), 2, "finite number >= 0"),
            (format!("{good}1 NaN 0 0\n"), 2, "finite number >= 0"),
            (
                format!("{good}0 0 0 0\n"),
                2,
                "true grade 1 to sum to more than 0",
            ),
            (good.repeat(5), 5, "found a fifth"),
        ];
        for (text, line, message) in cases {
            let error = confusion_from(&text).unwrap_err();
            assert_eq!(error.line, line, "{text:?}: {error}");
            let shown = error.to_string();
            assert!(shown.contains("confusion.tsv:"), "{shown}");
            assert!(shown.contains(message), "{text:?}: {shown}");
        }
        let short = confusion_from(&good.repeat(3)).unwrap_err();
        assert_eq!(short.line, 0);
        assert!(short.to_string().contains("expected 4 rows"), "{short}");
    }
}
