//! Opening input files that may be gzip-compressed, decided by the gzip magic bytes rather than
//! the file name, and reading them line by line with positions for error messages.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use flate2::read::MultiGzDecoder;
use sha2::{Digest, Sha256};

use crate::base::error::{ParseError, ParseErrorKind};

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const BUFFER_BYTES: usize = 256 * 1024;

/// Opens `path` for buffered reading, transparently decompressing gzip (including multi-member
/// files).
///
/// # Errors
/// A [`ParseError`] naming the path when the file cannot be opened or read.
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>, ParseError> {
    let file =
        File::open(path).map_err(|error| ParseError::file(path, ParseErrorKind::Io(error)))?;
    decoded(path, file)
}

/// The sha256 and length of the bytes read from a file as stored (before decompression).
#[derive(Debug, Clone, Default)]
pub struct RawDigest {
    hasher: Sha256,
    bytes: u64,
}

impl RawDigest {
    /// How many bytes were read.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The sha256 of the bytes read, in lower-case hex.
    pub fn sha256_hex(&self) -> String {
        format!("{:x}", self.hasher.clone().finalize())
    }
}

/// A reader that feeds every byte it reads into a shared [`RawDigest`].
struct DigestingReader<R> {
    inner: R,
    digest: Arc<Mutex<RawDigest>>,
}

impl<R: Read> Read for DigestingReader<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buffer)?;
        let mut digest = self
            .digest
            .lock()
            .expect("no reader panics holding the digest");
        digest.hasher.update(&buffer[..read]);
        digest.bytes += read as u64;
        Ok(read)
    }
}

/// A reader of a file's decoded bytes, and the digest of its stored bytes read so far.
pub type DigestedReader = (Box<dyn BufRead + Send>, Arc<Mutex<RawDigest>>);

/// Opens `path` as [`open`] does, and also digests its stored bytes as they are read: the
/// digest is complete once the reader has reached the end.
///
/// # Errors
/// As [`open`].
pub fn open_digested(path: &Path) -> Result<DigestedReader, ParseError> {
    let file =
        File::open(path).map_err(|error| ParseError::file(path, ParseErrorKind::Io(error)))?;
    let digest = Arc::new(Mutex::new(RawDigest::default()));
    let reader = DigestingReader {
        inner: file,
        digest: Arc::clone(&digest),
    };
    Ok((decoded(path, reader)?, digest))
}

/// The sha256 (lower-case hex) and length of the file at `path` as stored.
///
/// # Errors
/// A [`ParseError`] naming the path when it cannot be read.
pub fn file_digest(path: &Path) -> Result<(String, u64), ParseError> {
    let io_error = |error| ParseError::file(path, ParseErrorKind::Io(error));
    let mut file = File::open(path).map_err(io_error)?;
    let mut hasher = Sha256::new();
    let bytes = std::io::copy(&mut file, &mut hasher).map_err(io_error)?;
    Ok((format!("{:x}", hasher.finalize()), bytes))
}

/// `raw` (the bytes of `path` as stored) buffered, and gunzipped when it starts with gzip's
/// magic bytes.
fn decoded(
    path: &Path,
    raw: impl Read + Send + 'static,
) -> Result<Box<dyn BufRead + Send>, ParseError> {
    let io_error = |error| ParseError::file(path, ParseErrorKind::Io(error));
    let mut reader = BufReader::with_capacity(BUFFER_BYTES, raw);
    let is_gzip = reader
        .fill_buf()
        .map_err(io_error)?
        .starts_with(&GZIP_MAGIC);
    if is_gzip {
        Ok(Box::new(BufReader::with_capacity(
            BUFFER_BYTES,
            MultiGzDecoder::new(reader),
        )))
    } else {
        Ok(Box::new(reader))
    }
}

/// Reads a text file line by line into one reused buffer, keeping the 1-based line number and
/// rejecting binary content, so every format reader reports positions the same way.
pub struct LineReader {
    path: PathBuf,
    reader: Box<dyn BufRead + Send>,
    buffer: Vec<u8>,
    line_number: usize,
}

impl LineReader {
    /// Opens `path` (plain or gzip).
    ///
    /// # Errors
    /// When the file cannot be opened.
    pub fn open(path: &Path) -> Result<Self, ParseError> {
        Ok(Self::from_reader(path, open(path)?))
    }

    /// Reads lines from an already opened reader; `path` is used in error messages.
    pub fn from_reader(path: &Path, reader: Box<dyn BufRead + Send>) -> Self {
        Self {
            path: path.to_path_buf(),
            reader,
            buffer: Vec::with_capacity(256),
            line_number: 0,
        }
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The 1-based number of the line last returned.
    pub fn line_number(&self) -> usize {
        self.line_number
    }

    /// The next line without its line terminator (`\n` or `\r\n`), or `None` at the end.
    ///
    /// # Errors
    /// On a read failure (such as a truncated gzip stream) or a line that is not UTF-8 text.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, ParseError> {
        self.buffer.clear();
        let bytes_read = self
            .reader
            .read_until(b'\n', &mut self.buffer)
            .map_err(|error| self.error(ParseErrorKind::Io(error)))?;
        if bytes_read == 0 {
            return Ok(None);
        }
        self.line_number += 1;
        if self.buffer.last() == Some(&b'\n') {
            self.buffer.pop();
            if self.buffer.last() == Some(&b'\r') {
                self.buffer.pop();
            }
        }
        if self.buffer.contains(&0) {
            return Err(self.error(ParseErrorKind::Binary));
        }
        match std::str::from_utf8(&self.buffer) {
            Ok(text) => Ok(Some(Line {
                path: &self.path,
                number: self.line_number,
                text,
            })),
            Err(_) => Err(ParseError::new(
                &self.path,
                self.line_number,
                ParseErrorKind::Binary,
            )),
        }
    }

    /// An error at the current line.
    pub fn error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError::new(&self.path, self.line_number, kind)
    }
}

/// One line of a file, able to report an error at its position.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    /// The file.
    pub path: &'a Path,
    /// The 1-based line number.
    pub number: usize,
    /// The text, without its terminator.
    pub text: &'a str,
}

impl<'a> Line<'a> {
    /// An error at this line.
    pub fn error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError::new(self.path, self.number, kind)
    }

    /// The line's whitespace-separated columns when there are exactly `N`; `None` for a blank
    /// line.
    ///
    /// # Errors
    /// [`ParseErrorKind::Columns`] with `expected` when the line has another number of columns.
    pub fn columns<const N: usize>(
        &self,
        expected: &'static str,
    ) -> Result<Option<[&'a str; N]>, ParseError> {
        let columns: Vec<&'a str> = self.text.split_ascii_whitespace().collect();
        if columns.is_empty() {
            return Ok(None);
        }
        let found = columns.len();
        let columns = <[&'a str; N]>::try_from(columns)
            .map_err(|_| self.error(ParseErrorKind::Columns { expected, found }))?;
        Ok(Some(columns))
    }
}

/// Reads a whole (possibly gzip) file into a string.
///
/// # Errors
/// When the file cannot be read or is not UTF-8 text.
pub fn read_to_string(path: &Path) -> Result<String, ParseError> {
    let mut bytes = Vec::new();
    open(path)?
        .read_to_end(&mut bytes)
        .map_err(|error| ParseError::file(path, ParseErrorKind::Io(error)))?;
    if bytes.contains(&0) {
        return Err(ParseError::file(path, ParseErrorKind::Binary));
    }
    String::from_utf8(bytes).map_err(|_| ParseError::file(path, ParseErrorKind::Binary))
}

/// Helpers for the unit tests of every reader.
#[cfg(test)]
pub(crate) mod test_files {
    use std::io::Write;
    use std::path::{Path, PathBuf};

    /// `bytes`, gzip-compressed in memory.
    pub fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).expect("compressing in memory");
        encoder.finish().expect("compressing in memory")
    }

    /// Writes `bytes` to `dir/name` and returns the path.
    pub fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("writing a test file");
        path
    }
}

#[cfg(test)]
mod tests {
    use super::test_files::gzip;
    use super::*;

    fn lines_of(path: &Path) -> Result<Vec<String>, ParseError> {
        let mut reader = LineReader::open(path)?;
        let mut lines = Vec::new();
        while let Some(line) = reader.next_line()? {
            lines.push(line.text.to_string());
        }
        Ok(lines)
    }

    #[test]
    fn plain_and_gzip_read_the_same_lines() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"a b\r\nc d\nlast";
        std::fs::write(dir.path().join("plain"), text).unwrap();
        std::fs::write(dir.path().join("packed"), gzip(text)).unwrap();
        let plain = lines_of(&dir.path().join("plain")).unwrap();
        assert_eq!(plain, vec!["a b", "c d", "last"]);
        assert_eq!(lines_of(&dir.path().join("packed")).unwrap(), plain);
    }

    #[test]
    fn truncated_gzip_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let packed = gzip(&b"1 0 doc 1\n".repeat(1000));
        let path = dir.path().join("cut.gz");
        std::fs::write(&path, &packed[..packed.len() / 2]).unwrap();
        let error = lines_of(&path).unwrap_err();
        assert!(error.to_string().contains("cut.gz"), "{error}");
    }

    #[test]
    fn binary_content_is_rejected_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("garbage");
        std::fs::write(&path, b"fine line\n\xff\xfe\x00\x01\n").unwrap();
        let error = lines_of(&path).unwrap_err();
        assert_eq!(error.line, 2);
        assert!(matches!(error.kind, ParseErrorKind::Binary));
    }
}
