//! Reads a document corpus in one streaming pass: one document per line, plain text or gzip.
//!
//! Gzip is recognised by its magic bytes (`1f 8b`), not by the file name; concatenated gzip
//! members are read as one stream. Each line is split on tabs, and the number of columns
//! decides the layout:
//!
//! | columns | layout                     | document text                         |
//! |---------|----------------------------|---------------------------------------|
//! | 1       | (no tab)                   | an error: `expected doc_id<TAB>text`  |
//! | 2       | `doc_id<TAB>text`          | the second column                     |
//! | 3       | `doc_id<TAB>a<TAB>b`       | `a b`: the columns after the id       |
//! | 4       | MS MARCO docs: `id<TAB>url<TAB>title<TAB>body` | `title body`; the url is ignored |
//! | 5+      | `doc_id<TAB>...`           | every column after the id, joined     |
//!
//! Columns are joined with a single space (the tab is overwritten in the line buffer, so no
//! copy is made). A line ending may be `\n` or `\r\n`. Blank lines are skipped. The document id
//! must not be empty. This module only reads; it owns no tokenisation and does not check that
//! ids are unique (the feature builder does).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use crate::error::{excerpt, ParseError, ParseErrorKind, Result};

/// The first two bytes of every gzip stream.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The read buffer size: corpus lines are long, and large reads keep gzip decoding efficient.
const BUFFER_BYTES: usize = 1 << 18;

/// The layout named in the error for a line without a tab.
const EXPECTED_LAYOUT: &str = "doc_id<TAB>text (or id<TAB>url<TAB>title<TAB>body)";

/// Opens `path` for buffered reading, decompressing it when it starts with the gzip magic
/// bytes.
///
/// # Errors
/// A [`ParseError`] with [`ParseErrorKind::Io`] naming the path when the file cannot be opened
/// or read.
pub fn open_text(path: &Path) -> Result<Box<dyn BufRead>> {
    let io_error = |source| ParseError::file(path, ParseErrorKind::Io(source));
    let file = File::open(path).map_err(io_error)?;
    let mut reader = BufReader::with_capacity(BUFFER_BYTES, file);
    let is_gzip = reader
        .fill_buf()
        .map_err(io_error)?
        .starts_with(&GZIP_MAGIC);
    if is_gzip {
        let decoder = MultiGzDecoder::new(reader);
        Ok(Box::new(BufReader::with_capacity(BUFFER_BYTES, decoder)))
    } else {
        Ok(Box::new(reader))
    }
}

/// Calls `visit(line_number, doc_id, text)` for every document of the corpus at `path`, in file
/// order, reading the file once. `line_number` is 1-based. One line buffer is reused for the
/// whole file, so the only allocations per document are those `visit` makes.
///
/// The column rule is in the module documentation.
///
/// # Errors
/// - [`ParseErrorKind::Io`] naming the path when the file is missing or unreadable, and the
///   path and line when reading fails midway (such as a truncated gzip stream);
/// - [`ParseErrorKind::Binary`] naming path and line for invalid UTF-8 or a NUL byte;
/// - [`ParseErrorKind::Columns`] naming path and line for a line without a tab;
/// - [`ParseErrorKind::Field`] naming path and line for an empty document id or one with
///   white space;
/// - [`ParseErrorKind::Empty`] when the file holds no document;
/// - any error returned by `visit`, unchanged (reading stops there).
pub fn for_each_document<F>(path: &Path, visit: F) -> Result<()>
where
    F: FnMut(usize, &str, &str) -> Result<()>,
{
    for_each_document_in(open_text(path)?, path, visit)
}

/// Calls [`for_each_document`]'s `visit` for every document read from `reader`, which is
/// already open and decompressed (for in-memory corpora and tests); `path` only names the
/// source in errors.
///
/// # Errors
/// As [`for_each_document`], except for opening the file.
pub fn for_each_document_in<R, F>(mut reader: R, path: &Path, mut visit: F) -> Result<()>
where
    R: BufRead,
    F: FnMut(usize, &str, &str) -> Result<()>,
{
    let mut buffer: Vec<u8> = Vec::with_capacity(1 << 12);
    let mut line_number = 0;
    let mut document_count = 0usize;
    loop {
        buffer.clear();
        line_number += 1;
        let bytes_read = reader
            .read_until(b'\n', &mut buffer)
            .map_err(|source| ParseError::new(path, line_number, ParseErrorKind::Io(source)))?;
        if bytes_read == 0 {
            break;
        }
        let line = trim_line_ending(&mut buffer);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let (doc_id, text) =
            split_document(line).map_err(|kind| ParseError::new(path, line_number, kind))?;
        document_count += 1;
        visit(line_number, doc_id, text)?;
    }
    if document_count == 0 {
        return Err(ParseError::file(path, ParseErrorKind::Empty).into());
    }
    Ok(())
}

/// The line without its `\n` or `\r\n` ending.
fn trim_line_ending(buffer: &mut [u8]) -> &mut [u8] {
    let mut length = buffer.len();
    if length > 0 && buffer[length - 1] == b'\n' {
        length -= 1;
        if length > 0 && buffer[length - 1] == b'\r' {
            length -= 1;
        }
    }
    &mut buffer[..length]
}

/// Splits a line into document id and text by the column rule of the module documentation,
/// overwriting the tabs that join text columns with spaces (both are single ASCII bytes, so
/// this changes neither the validity of the UTF-8 nor the tokens of the text).
fn split_document(line: &mut [u8]) -> std::result::Result<(&str, &str), ParseErrorKind> {
    if line.contains(&0) {
        return Err(ParseErrorKind::Binary);
    }
    let mut tabs = line
        .iter()
        .enumerate()
        .filter(|&(_, &byte)| byte == b'\t')
        .map(|(pos, _)| pos);
    let Some(id_end) = tabs.next() else {
        return Err(ParseErrorKind::Columns {
            expected: EXPECTED_LAYOUT,
            found: 1,
        });
    };
    let second_tab = tabs.next();
    let column_count = 2 + usize::from(second_tab.is_some()) + tabs.count();
    let text_start = match (column_count, second_tab) {
        // MS MARCO docs: skip the url column.
        (4, Some(url_end)) => url_end + 1,
        _ => id_end + 1,
    };
    for byte in &mut line[text_start..] {
        if *byte == b'\t' {
            *byte = b' ';
        }
    }
    let line = std::str::from_utf8(line).map_err(|_| ParseErrorKind::Binary)?;
    // Both cut points sit next to an ASCII tab, so they are character boundaries.
    let (doc_id, text) = (&line[..id_end], &line[text_start..]);
    if doc_id.is_empty() || doc_id.contains(char::is_whitespace) {
        return Err(ParseErrorKind::Field {
            column: 1,
            expected: "a document id without white space",
            found: excerpt(doc_id),
        });
    }
    Ok((doc_id, text))
}
