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

use std::io::BufRead;
use std::path::Path;

use crate::base::error::{excerpt, ParseError, ParseErrorKind, Result};

/// The layout named in the error for a line without a tab.
const EXPECTED_LAYOUT: &str = "doc_id<TAB>text (or id<TAB>url<TAB>title<TAB>body)";

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
    for_each_document_in(crate::io::gz::open(path)?, path, visit)
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::base::error::Error;

    use crate::io::gz::test_files::gzip;

    fn write_file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
        crate::io::gz::test_files::write_file(dir.path(), name, bytes)
    }

    fn read_all(path: &Path) -> Result<Vec<(usize, String, String)>> {
        let mut documents = Vec::new();
        for_each_document(path, |line_number, doc_id, text| {
            documents.push((line_number, doc_id.to_string(), text.to_string()));
            Ok(())
        })?;
        Ok(documents)
    }

    fn parse_error(result: Result<Vec<(usize, String, String)>>) -> ParseError {
        match result {
            Err(Error::Parse(error)) => error,
            other => panic!("expected a parse error, found {other:?}"),
        }
    }

    fn document(line_number: usize, doc_id: &str, text: &str) -> (usize, String, String) {
        (line_number, doc_id.to_string(), text.to_string())
    }

    #[test]
    fn reads_two_three_and_four_column_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_file(
            &dir,
            "corpus.tsv",
            b"d1\tplain text\r\n\
              d2\tfirst\tsecond\n\
              \n\
              D3\thttp://example.com/x\tThe Title\tThe body.\n\
              d4\ta\tb\tc\td\n\
              d5\t\n",
        );
        assert_eq!(
            read_all(&path).unwrap(),
            [
                document(1, "d1", "plain text"),
                document(2, "d2", "first second"),
                document(4, "D3", "The Title The body."),
                document(5, "d4", "a b c d"),
                document(6, "d5", ""),
            ]
        );
    }

    #[test]
    fn detects_gzip_by_magic_bytes_not_name() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"d1\tone\nd2\ttwo\n";
        let plain = write_file(&dir, "plain.gz", text);
        let compressed = write_file(&dir, "compressed.tsv", &gzip(text));
        assert_eq!(read_all(&plain).unwrap(), read_all(&compressed).unwrap());
        assert_eq!(read_all(&compressed).unwrap().len(), 2);
    }

    #[test]
    fn reads_concatenated_gzip_members() {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = gzip(b"d1\tone\n");
        bytes.extend(gzip(b"d2\ttwo\n"));
        let path = write_file(&dir, "members.gz", &bytes);
        assert_eq!(
            read_all(&path).unwrap(),
            [document(1, "d1", "one"), document(2, "d2", "two")]
        );
    }

    #[test]
    fn a_line_without_a_tab_names_path_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_file(&dir, "corpus.tsv", b"d1\tfine\nd2 no tab here\n");
        let error = parse_error(read_all(&path));
        assert_eq!(error.line, 2);
        assert!(matches!(
            error.kind,
            ParseErrorKind::Columns { found: 1, .. }
        ));
        let message = error.to_string();
        assert!(
            message.starts_with(&format!("{}:2: expected doc_id<TAB>text", path.display())),
            "{message}"
        );
    }

    #[test]
    fn invalid_utf8_and_nul_bytes_are_binary_with_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_file(&dir, "latin1.tsv", b"d1\tok\nd2\tcaf\xe9\n");
        let error = parse_error(read_all(&path));
        assert_eq!((error.line, error.path.clone()), (2, path.clone()));
        assert!(matches!(error.kind, ParseErrorKind::Binary));

        let path = write_file(&dir, "nul.tsv", b"d1\tok\nd2\tok\nd3\ta\0b\n");
        let error = parse_error(read_all(&path));
        assert_eq!(error.line, 3);
        assert!(matches!(error.kind, ParseErrorKind::Binary));
        assert!(error
            .to_string()
            .contains("expected text, found binary data"));
    }

    #[test]
    fn a_truncated_gzip_stream_is_an_io_error_naming_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (0..2000)
            .map(|number| format!("doc{number}\tsome text number {number} with words\n"))
            .collect();
        let bytes = gzip(text.as_bytes());
        let path = write_file(&dir, "cut.gz", &bytes[..bytes.len() / 2]);
        let error = parse_error(read_all(&path));
        assert_eq!(error.path, path);
        assert!(error.line > 0);
        assert!(matches!(error.kind, ParseErrorKind::Io(_)), "{error}");
    }

    #[test]
    fn a_missing_file_is_an_io_error_naming_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("absent.tsv");
        let error = parse_error(read_all(&path));
        assert_eq!((error.path.clone(), error.line), (path.clone(), 0));
        assert!(matches!(error.kind, ParseErrorKind::Io(_)));
        assert!(error.to_string().starts_with(&path.display().to_string()));
    }

    #[test]
    fn an_empty_corpus_and_a_bad_id_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_file(&dir, "blank.tsv", b"\n\n");
        assert!(matches!(
            parse_error(read_all(&path)).kind,
            ParseErrorKind::Empty
        ));
        let path = write_file(&dir, "noid.tsv", b"d1\tok\n\ttext without id\n");
        let error = parse_error(read_all(&path));
        assert_eq!(error.line, 2);
        assert!(matches!(
            error.kind,
            ParseErrorKind::Field { column: 1, .. }
        ));
        let path = write_file(&dir, "spaceid.tsv", b"doc 1\ttext\n");
        assert_eq!(parse_error(read_all(&path)).line, 1);
    }

    #[test]
    fn the_visitors_error_stops_reading() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_file(&dir, "corpus.tsv", b"d1\ta\nd2\tb\nd3\tc\n");
        let mut seen = Vec::new();
        let result = for_each_document(&path, |_, doc_id, _| {
            seen.push(doc_id.to_string());
            if doc_id == "d2" {
                Err(Error::Invalid("stop".to_string()))
            } else {
                Ok(())
            }
        });
        assert!(matches!(result, Err(Error::Invalid(message)) if message == "stop"));
        assert_eq!(seen, ["d1", "d2"]);
    }
}
