//! Reads a document corpus in one streaming pass: one document per line, in TSV or JSONL, each
//! file plain text or gzip; a corpus is one file or a folder of files.
//!
//! Gzip is recognised by its magic bytes (`1f 8b`), not by the file name; concatenated gzip
//! members are read as one stream. A line ending may be `\n` or `\r\n`. Blank lines are
//! skipped. The document id must not be empty nor hold white space. This module only reads; it
//! owns no tokenisation and does not check that ids are unique (the feature builder does).
//!
//! # Layouts
//!
//! [`CorpusFormat::Auto`] (the default) decides per file: a file whose first non-blank
//! character (after decompression) is `{` is JSONL, any other TSV.
//!
//! **TSV.** Each line is split on tabs, and the number of columns decides the layout:
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
//! copy is made).
//!
//! **JSONL.** Each line is one JSON object. The id is the first present (not null) of
//! [`CorpusLayout::id_fields`], a string or an integer. The text joins with single spaces each
//! present part of [`CorpusLayout::text_fields`], a part being the first present of its
//! alternative fields, each a string; at least one part must be present. Other fields are
//! ignored. The defaults ([`DEFAULT_ID_FIELDS`], [`DEFAULT_TEXT_FIELDS`]) read MS MARCO v2 and
//! v2.1 documents, passages and segments, BEIR and ir_datasets exports, and Pyserini's JSONL.
//!
//! # Folders
//!
//! A folder's files are read in file name order (byte order), as one corpus; names starting
//! with `.` are skipped. A folder inside it is an error (nothing is skipped silently), as is a
//! folder without files or whose files hold no document. Errors name the file inside the
//! folder and its line.

mod jsonl;
mod layout;
pub mod settings;
mod tsv;

use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::base::error::{ParseError, ParseErrorKind, Result};

pub use layout::{CorpusFormat, CorpusLayout, DEFAULT_ID_FIELDS, DEFAULT_TEXT_FIELDS};

/// Where a document was read: its file (inside a corpus folder, the file in it) and line.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    /// The file.
    pub path: &'a Path,
    /// The 1-based line number.
    pub line: usize,
}

impl Place<'_> {
    /// An error at this place.
    pub fn error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError::new(self.path, self.line, kind)
    }
}

/// The files of the corpus at `path`: the file itself, or a folder's files in name order
/// (see the module documentation).
///
/// # Errors
/// A [`ParseError`] naming the path when it is missing or unreadable, a folder inside the
/// folder, or a folder without files.
pub fn corpus_files(path: &Path) -> Result<Vec<PathBuf>, ParseError> {
    let io_error = |at: &Path, error| ParseError::file(at, ParseErrorKind::Io(error));
    if !std::fs::metadata(path)
        .map_err(|error| io_error(path, error))?
        .is_dir()
    {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(|error| io_error(path, error))? {
        let entry = entry.map_err(|error| io_error(path, error))?;
        if entry.file_name().as_encoded_bytes().starts_with(b".") {
            continue;
        }
        let file = entry.path();
        if std::fs::metadata(&file)
            .map_err(|error| io_error(&file, error))?
            .is_dir()
        {
            return Err(ParseError::file(
                file,
                ParseErrorKind::Invalid(
                    "expected a corpus file, found a folder (a corpus folder holds files only)"
                        .into(),
                ),
            ));
        }
        files.push(file);
    }
    if files.is_empty() {
        return Err(ParseError::file(
            path,
            ParseErrorKind::Invalid("expected a corpus folder with files, found none".into()),
        ));
    }
    files.sort();
    Ok(files)
}

/// The bytes on disk of the corpus at `path` (a folder's: its files' together).
///
/// # Errors
/// As [`corpus_files`], and a [`ParseError`] naming a file whose size cannot be read.
pub fn corpus_bytes(path: &Path) -> Result<u64, ParseError> {
    corpus_files(path)?.iter().try_fold(0, |total, file| {
        let metadata = std::fs::metadata(file)
            .map_err(|error| ParseError::file(file, ParseErrorKind::Io(error)))?;
        Ok(total + metadata.len())
    })
}

/// Calls `visit(place, doc_id, text)` for every document of the corpus at `path` (a file or
/// a folder), in corpus order, reading each file once. One line buffer is reused for the
/// whole corpus, so the allocations per document are those `visit` makes (and, for JSONL,
/// the parsed object's).
///
/// The rules are in the module documentation.
///
/// # Errors
/// Each naming the file (inside a folder, the file in it) and, but for the first, the line:
/// - [`ParseErrorKind::Io`] when the corpus is missing or unreadable, and when reading fails
///   midway (such as a truncated gzip stream);
/// - [`ParseErrorKind::Invalid`] for a folder inside the corpus folder, one without files, or
///   one whose files hold no document;
/// - [`ParseErrorKind::Binary`] for invalid UTF-8 or a NUL byte;
/// - [`ParseErrorKind::Columns`] for a TSV line without a tab;
/// - [`ParseErrorKind::Field`] for an empty TSV document id or one with white space;
/// - [`ParseErrorKind::Json`] for a JSONL line that is not a JSON object, or has no id or no
///   text, or an id or text of the wrong type, or an empty id or one with white space;
/// - [`ParseErrorKind::Empty`] when the corpus is a file without a document (in a folder, a
///   file without one is read as holding none);
/// - any error returned by `visit`, unchanged (reading stops there).
pub fn for_each_document<F>(path: &Path, layout: &CorpusLayout, visit: F) -> Result<()>
where
    F: FnMut(Place<'_>, &str, &str) -> Result<()>,
{
    read_corpus(path, layout, None, visit)
}

/// One corpus file as stored: its path, length and sha256 (lower-case hex).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDigest {
    /// The file (inside a corpus folder, the file in it).
    pub path: PathBuf,
    /// Its length in bytes.
    pub bytes: u64,
    /// The sha256 of its bytes, compressed ones as they are.
    pub sha256: String,
}

/// [`for_each_document`], which also digests every file it reads, in the same pass, and
/// appends the digests to `digests` in reading order.
///
/// # Errors
/// As [`for_each_document`].
pub fn for_each_document_digested<F>(
    path: &Path,
    layout: &CorpusLayout,
    digests: &mut Vec<FileDigest>,
    visit: F,
) -> Result<()>
where
    F: FnMut(Place<'_>, &str, &str) -> Result<()>,
{
    read_corpus(path, layout, Some(digests), visit)
}

/// Reads the corpus at `path`, digesting its files into `digests` when given.
fn read_corpus<F>(
    path: &Path,
    layout: &CorpusLayout,
    mut digests: Option<&mut Vec<FileDigest>>,
    mut visit: F,
) -> Result<()>
where
    F: FnMut(Place<'_>, &str, &str) -> Result<()>,
{
    let mut document_count = 0;
    for file in corpus_files(path)? {
        let (reader, digest) = match digests {
            Some(_) => {
                let (reader, digest) = crate::io::gz::open_digested(&file)?;
                (reader, Some(digest))
            }
            None => (crate::io::gz::open(&file)?, None),
        };
        document_count += read_documents(reader, &file, layout, &mut visit)?;
        if let (Some(digests), Some(digest)) = (digests.as_deref_mut(), digest) {
            let digest = digest.lock().expect("the reader is done with the digest");
            digests.push(FileDigest {
                path: file.clone(),
                bytes: digest.bytes(),
                sha256: digest.sha256_hex(),
            });
        }
    }
    if document_count == 0 {
        let kind = if path.is_dir() {
            ParseErrorKind::Invalid("expected a document in the folder's files, found none".into())
        } else {
            ParseErrorKind::Empty
        };
        return Err(ParseError::file(path, kind).into());
    }
    Ok(())
}

/// The format of one file's lines, decided.
#[derive(Debug, Clone, Copy)]
enum LineFormat {
    Tsv,
    Jsonl,
}

impl LineFormat {
    /// The format `format` gives the file whose first non-blank line is `line`.
    fn of(format: CorpusFormat, line: &[u8]) -> Self {
        match format {
            CorpusFormat::Tsv => Self::Tsv,
            CorpusFormat::Jsonl => Self::Jsonl,
            CorpusFormat::Auto => {
                let first = line.iter().find(|byte| !byte.is_ascii_whitespace());
                if first == Some(&b'{') {
                    Self::Jsonl
                } else {
                    Self::Tsv
                }
            }
        }
    }
}

/// Calls `visit` for every document read from `reader` and returns how many there were.
fn read_documents<R, F>(
    mut reader: R,
    path: &Path,
    layout: &CorpusLayout,
    visit: &mut F,
) -> Result<usize>
where
    R: BufRead,
    F: FnMut(Place<'_>, &str, &str) -> Result<()>,
{
    let mut buffer: Vec<u8> = Vec::with_capacity(1 << 12);
    let mut json = JsonDocument::default();
    let mut format = None;
    let mut line_number = 0;
    let mut document_count = 0usize;
    loop {
        buffer.clear();
        line_number += 1;
        let place = Place {
            path,
            line: line_number,
        };
        let bytes_read = reader
            .read_until(b'\n', &mut buffer)
            .map_err(|source| place.error(ParseErrorKind::Io(source)))?;
        if bytes_read == 0 {
            break;
        }
        let line = trim_line_ending(&mut buffer);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let format = *format.get_or_insert_with(|| LineFormat::of(layout.format, line));
        read_line(line, format, place, layout, &mut json, visit)?;
        document_count += 1;
    }
    Ok(document_count)
}

/// The id and text of the last JSONL document read (buffers reused from line to line).
#[derive(Default)]
struct JsonDocument {
    id: String,
    text: String,
}

/// Calls `visit` for the document on the non-blank `line`.
fn read_line<F>(
    line: &mut [u8],
    format: LineFormat,
    place: Place<'_>,
    layout: &CorpusLayout,
    json: &mut JsonDocument,
    visit: &mut F,
) -> Result<()>
where
    F: FnMut(Place<'_>, &str, &str) -> Result<()>,
{
    if line.contains(&0) {
        return Err(place.error(ParseErrorKind::Binary).into());
    }
    match format {
        LineFormat::Tsv => {
            let (doc_id, text) = tsv::split_document(line).map_err(|kind| place.error(kind))?;
            visit(place, doc_id, text)
        }
        LineFormat::Jsonl => {
            let line =
                std::str::from_utf8(line).map_err(|_| place.error(ParseErrorKind::Binary))?;
            jsonl::read_document(line, layout, &mut json.id, &mut json.text)
                .map_err(|kind| place.error(kind))?;
            visit(place, &json.id, &json.text)
        }
    }
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

#[cfg(test)]
mod tests;
