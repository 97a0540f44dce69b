//! Tab-separated tables read by their header: each data line's fields found by column name, and
//! checked against their domains, with the file, line and column of any bad field.

use std::path::{Path, PathBuf};

use super::CONTROL;
use crate::base::error::{excerpt, ParseError, ParseErrorKind, Result};

/// The text of a result file; a missing or binary file is an error naming it.
pub(super) fn read_text(path: &Path) -> Result<String> {
    let bytes =
        std::fs::read(path).map_err(|error| ParseError::file(path, ParseErrorKind::Io(error)))?;
    String::from_utf8(bytes).map_err(|_| ParseError::file(path, ParseErrorKind::Binary).into())
}

/// One data line of a table, its fields arranged in the order of the columns asked for.
pub struct Fields<'t> {
    path: &'t Path,
    line: usize,
    fields: Vec<&'t str>,
    /// The 1-based column in the file of each requested field (for error messages).
    columns: Vec<usize>,
}

impl Fields<'_> {
    pub(super) fn error(&self, kind: ParseErrorKind) -> crate::base::error::Error {
        ParseError::new(PathBuf::from(self.path), self.line, kind).into()
    }

    pub(super) fn text(&self, index: usize) -> Result<String> {
        let field = self.fields[index];
        if field.is_empty() {
            return Err(self.error(ParseErrorKind::Field {
                column: self.columns[index],
                expected: "a non-empty field",
                found: String::new(),
            }));
        }
        Ok(field.to_string())
    }

    pub(super) fn number(&self, index: usize) -> Result<f64> {
        let field = self.fields[index];
        match field.parse::<f64>() {
            Ok(value) if value.is_finite() => Ok(value),
            _ => Err(self.error(ParseErrorKind::Field {
                column: self.columns[index],
                expected: "a finite number",
                found: excerpt(field),
            })),
        }
    }

    /// A number within `domain` (described by `expected` in errors).
    pub(super) fn bounded(
        &self,
        index: usize,
        domain: std::ops::RangeInclusive<f64>,
        expected: &'static str,
    ) -> Result<f64> {
        let value = self.number(index)?;
        if domain.contains(&value) {
            Ok(value)
        } else {
            Err(self.error(ParseErrorKind::Field {
                column: self.columns[index],
                expected,
                found: excerpt(self.fields[index]),
            }))
        }
    }

    /// A score: finite and >= 0 (every measure's domain; the figures' axes rely on it).
    pub(super) fn score(&self, index: usize) -> Result<f64> {
        self.bounded(index, 0.0..=f64::MAX, "a score >= 0")
    }

    /// A rank: finite and >= 1 (its upper bound, the number of runs, is checked by
    /// [`StudyResults::read`]).
    pub(super) fn rank(&self, index: usize) -> Result<f64> {
        self.bounded(index, 1.0..=f64::MAX, "a rank >= 1")
    }

    /// A share or fraction: between 0 and 1.
    pub(super) fn fraction(&self, index: usize) -> Result<f64> {
        self.bounded(index, 0.0..=1.0, "a fraction between 0 and 1")
    }

    /// A correlation between -1 and 1, or `NA`.
    pub(super) fn tau(&self, index: usize) -> Result<Option<f64>> {
        if self.fields[index] == "NA" {
            return Ok(None);
        }
        self.bounded(index, -1.0..=1.0, "a correlation between -1 and 1, or NA")
            .map(Some)
    }

    pub(super) fn optional_number(&self, index: usize) -> Result<Option<f64>> {
        if self.fields[index] == "NA" {
            Ok(None)
        } else {
            self.number(index).map(Some)
        }
    }

    /// A trial's held-out team as the tables spell it: `None` for [`CONTROL`].
    pub(super) fn held_out(&self, index: usize) -> Result<Option<String>> {
        let name = self.text(index)?;
        Ok((name != CONTROL).then_some(name))
    }

    pub(super) fn count(&self, index: usize) -> Result<usize> {
        let field = self.fields[index];
        field.parse::<usize>().map_err(|_| {
            self.error(ParseErrorKind::Field {
                column: self.columns[index],
                expected: "a whole number",
                found: excerpt(field),
            })
        })
    }

    pub(super) fn seed(&self, index: usize) -> Result<u64> {
        let field = self.fields[index];
        field.parse::<u64>().map_err(|_| {
            self.error(ParseErrorKind::Field {
                column: self.columns[index],
                expected: "a whole-number seed",
                found: excerpt(field),
            })
        })
    }
}

/// Reads a TSV file with a header naming at least `wanted`; `parse` turns each data line, its
/// fields in `wanted` order, into a value.
pub(super) fn read_tsv<T>(
    path: &Path,
    wanted: &[&str],
    mut parse: impl FnMut(&Fields) -> Result<T>,
) -> Result<Vec<(usize, T)>> {
    let text = read_text(path)?;
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line));
    let Some((_, header)) = lines.next() else {
        return Err(ParseError::file(path, ParseErrorKind::Empty).into());
    };
    let header: Vec<&str> = header.split('\t').collect();
    let positions: Vec<usize> = wanted
        .iter()
        .map(|name| {
            header
                .iter()
                .position(|column| column == name)
                .ok_or_else(|| {
                    ParseError::new(
                        path,
                        1,
                        ParseErrorKind::Invalid(format!(
                            "expected a header with a {name:?} column, found {:?}",
                            excerpt(&header.join(" "))
                        )),
                    )
                })
        })
        .collect::<std::result::Result<_, _>>()?;
    let mut values = Vec::new();
    for (line, content) in lines {
        if content.is_empty() {
            continue;
        }
        let all: Vec<&str> = content.split('\t').collect();
        if all.len() != header.len() {
            return Err(ParseError::new(
                path,
                line,
                ParseErrorKind::Invalid(format!(
                    "expected {} tab-separated columns as in the header, found {}",
                    header.len(),
                    all.len()
                )),
            )
            .into());
        }
        let row = Fields {
            path,
            line,
            fields: positions.iter().map(|&position| all[position]).collect(),
            columns: positions.iter().map(|&position| position + 1).collect(),
        };
        values.push((line, parse(&row)?));
    }
    Ok(values)
}
