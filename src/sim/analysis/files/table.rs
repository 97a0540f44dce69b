//! Reading and writing a table with the `csv` crate: tab-separated, unquoted (no field holds a
//! tab, a newline or a quote: run tags and team names are checked where they are read), a
//! header of the row struct's field names, and rows found by header name on reading, so a
//! file with extra columns still reads. Every refusal names the file, line and column.

use std::cell::Cell;
use std::path::Path;

use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, Error as _, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::base::error::{excerpt, Error, ParseError, ParseErrorKind, Result};
use crate::io::atomic::write_atomically;

/// A row of one of the study's tables: its fields, as serde writes and reads them, are the
/// file's columns.
pub trait TableRow: Serialize + DeserializeOwned {
    /// The file name.
    const FILE: &'static str;
    /// The columns written only when the study's assessor is not the official one (see
    /// docs/assessor.md): a file without them still reads.
    const ASSESSOR_COLUMNS: &'static [&'static str] = &[];
}

/// Writes `rows` as the table `T::FILE` in `dir`, atomically.
///
/// # Errors
/// When the file cannot be written.
pub fn write_table<T: TableRow>(dir: &Path, rows: &[T]) -> Result<()> {
    write_atomically(&dir.join(T::FILE), |out| {
        write_records(out, rows, T::ASSESSOR_COLUMNS)
    })
}

/// Reads the table `T::FILE` from `dir`.
///
/// # Errors
/// A [`ParseError`](crate::base::error::ParseError) naming the file (and line and column) when
/// it is missing or malformed.
pub fn read_table<T: TableRow>(dir: &Path) -> Result<Vec<T>> {
    Ok(unnumbered(read_numbered_table(dir)?))
}

/// Reads the table `T::FILE` from `dir`, each row with its line number.
///
/// # Errors
/// As [`read_table`].
pub(super) fn read_numbered_table<T: TableRow>(dir: &Path) -> Result<Vec<(usize, T)>> {
    read_records(&dir.join(T::FILE), T::ASSESSOR_COLUMNS)
}

/// The rows without their line numbers.
pub(super) fn unnumbered<T>(rows: Vec<(usize, T)>) -> Vec<T> {
    rows.into_iter().map(|(_, row)| row).collect()
}

/// The columns of the row struct `R`, in order: its field names as serde derives them (after
/// `rename`), which are also the header it is written with.
pub(super) fn columns<R: DeserializeOwned>() -> &'static [&'static str] {
    /// A deserializer that only records the field names a struct asks for.
    struct FieldNames<'a>(&'a Cell<&'static [&'static str]>);

    impl<'de> Deserializer<'de> for FieldNames<'_> {
        type Error = serde::de::value::Error;

        fn deserialize_any<V: Visitor<'de>>(
            self,
            _: V,
        ) -> std::result::Result<V::Value, Self::Error> {
            Err(serde::de::Error::custom("only structs have columns"))
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> std::result::Result<V::Value, Self::Error> {
            self.0.set(fields);
            Err(serde::de::Error::custom("field names recorded"))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }

    let fields = Cell::new(&[][..]);
    // The deserializer always refuses: it is only asked for the names.
    let _ = R::deserialize(FieldNames(&fields));
    fields.get()
}

/// Separates the column number from the message in the error of a [`Located`] record.
const COLUMN_SEPARATOR: char = '\u{1f}';

/// A record whose reading errors start with the 1-based column they come from: `csv` gives
/// the column of its own parse errors, not of those its row struct's helpers raise.
struct Located<R>(R);

impl<'de, R: Deserialize<'de>> Deserialize<'de> for Located<R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let column = Cell::new(0);
        let counting = CountingColumns {
            inner: deserializer,
            column: &column,
        };
        R::deserialize(counting).map(Located).map_err(|error| {
            D::Error::custom(format_args!("{}{COLUMN_SEPARATOR}{error}", column.get()))
        })
    }
}

/// A deserializer that counts the columns a struct has read so far: `csv` hands a record to a
/// struct as a map from header names to fields, in file order.
struct CountingColumns<'a, D> {
    inner: D,
    column: &'a Cell<usize>,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for CountingColumns<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> std::result::Result<V::Value, D::Error> {
        self.inner.deserialize_any(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, D::Error> {
        let visitor = CountingColumns {
            inner: visitor,
            column: self.column,
        };
        self.inner.deserialize_struct(name, fields, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for CountingColumns<'_, V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        self.inner.expecting(formatter)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<V::Value, A::Error> {
        let map = CountingColumns {
            inner: map,
            column: self.column,
        };
        self.inner.visit_map(map)
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for CountingColumns<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> std::result::Result<Option<K::Value>, A::Error> {
        let key = self.inner.next_key_seed(seed)?;
        if key.is_some() {
            self.column.set(self.column.get() + 1);
        }
        Ok(key)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> std::result::Result<S::Value, A::Error> {
        self.inner.next_value_seed(seed)
    }
}

/// Writes `records` with a header, tab-separated, each line ending in `\n`. The header names
/// the columns the records write: a column of `optional` (one whose field a record leaves out
/// when it has no value) appears when the first record writes it, and never in an empty table.
pub(super) fn write_records<R: serde::Serialize + DeserializeOwned>(
    out: &mut dyn std::io::Write,
    records: &[R],
    optional: &[&str],
) -> std::io::Result<()> {
    let mut writer = csv::WriterBuilder::new()
        .delimiter(b'\t')
        .quote_style(csv::QuoteStyle::Never)
        .has_headers(!records.is_empty())
        .from_writer(out);
    if records.is_empty() {
        let written = columns::<R>().iter().filter(|c| !optional.contains(c));
        writer.write_record(written)?;
    }
    for record in records {
        writer.serialize(record)?;
    }
    writer.flush()
}

/// The text of a result file; a missing or binary file is an error naming it.
pub(super) fn read_text(path: &Path) -> Result<String> {
    let bytes =
        std::fs::read(path).map_err(|error| ParseError::file(path, ParseErrorKind::Io(error)))?;
    String::from_utf8(bytes).map_err(|_| ParseError::file(path, ParseErrorKind::Binary).into())
}

/// Reads the table at `path`, each record with its line number; every column of `R` but those
/// of `optional` must be in the header.
pub(super) fn read_records<R: DeserializeOwned>(
    path: &Path,
    optional: &[&str],
) -> Result<Vec<(usize, R)>> {
    let text = read_text(path)?;
    if text.is_empty() {
        return Err(ParseError::file(path, ParseErrorKind::Empty).into());
    }
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .quoting(false)
        .from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|error| csv_error(path, &error, None))?
        .clone();
    if let Some(missing) = columns::<R>()
        .iter()
        .filter(|column| !optional.contains(column))
        .find(|column| !header.iter().any(|name| name == **column))
    {
        let found = excerpt(&header.iter().collect::<Vec<_>>().join(" "));
        return Err(ParseError::new(
            path,
            1,
            ParseErrorKind::Invalid(format!(
                "expected a header with a {missing:?} column, found {found:?}"
            )),
        )
        .into());
    }
    let mut records = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|error| csv_error(path, &error, None))?;
        let line = record
            .position()
            .map_or(0, |position| position.line() as usize);
        let Located(value) = record
            .deserialize(Some(&header))
            .map_err(|error| csv_error(path, &error, Some(&record)))?;
        records.push((line, value));
    }
    Ok(records)
}

/// A `csv` error as the crate's errors say it: file, line, and for a bad field its column,
/// what the column must hold and what was found.
fn csv_error(path: &Path, error: &csv::Error, record: Option<&csv::StringRecord>) -> Error {
    let line_number = error
        .position()
        .map_or(0, |position| position.line() as usize);
    let kind = match error.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => ParseErrorKind::Invalid(format!(
            "expected {expected_len} tab-separated columns as in the header, found {len}"
        )),
        csv::ErrorKind::Deserialize { err, .. } => {
            let message = err.to_string();
            let (column, expected) = message
                .split_once(COLUMN_SEPARATOR)
                .and_then(|(column, expected)| Some((column.parse::<usize>().ok()?, expected)))
                .unwrap_or((0, message.as_str()));
            let found = record
                .and_then(|record| record.get(column.checked_sub(1)?))
                .map(excerpt)
                .unwrap_or_default();
            ParseErrorKind::Invalid(format!(
                "expected {expected} in column {column}, found {found:?}"
            ))
        }
        _ => ParseErrorKind::Invalid(error.to_string()),
    };
    ParseError::new(path, line_number, kind).into()
}
