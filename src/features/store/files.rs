//! The files a build writes: the workspace beside the store, the scratch files the corpus pass
//! spills into and reads back, and the store file itself, written section by section.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::format::{aligned, preamble, Header, Span, PREAMBLE_BYTES};
use crate::base::error::{Error, Result};

/// The folder a build works in, beside the store: `<STORE>.partial/`, removed when dropped.
pub(super) struct Workspace {
    folder: PathBuf,
}

impl Workspace {
    pub(super) fn create(out: &Path) -> Result<Self> {
        let mut name = out.as_os_str().to_os_string();
        name.push(".partial");
        let folder = PathBuf::from(name);
        let write_error = Error::writing(&folder);
        if folder.exists() {
            std::fs::remove_dir_all(&folder).map_err(write_error)?;
        }
        std::fs::create_dir_all(&folder).map_err(write_error)?;
        Ok(Self { folder })
    }

    pub(super) fn store_path(&self) -> PathBuf {
        self.folder.join("store")
    }

    pub(super) fn scratch(&self, name: &str) -> PathBuf {
        self.folder.join(name)
    }

    /// Renames the finished store to `out`.
    pub(super) fn publish(&self, out: &Path) -> Result<()> {
        std::fs::rename(self.store_path(), out).map_err(Error::writing(out))
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        // Nothing in it is of use once the build has ended, finished or not.
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// A scratch file written in one pass and read back afterwards.
pub(super) struct Scratch {
    path: PathBuf,
    writer: BufWriter<File>,
}

impl Scratch {
    pub(super) fn create(path: PathBuf) -> Result<Self> {
        let file = File::create(&path).map_err(Error::writing(&path))?;
        Ok(Self {
            writer: BufWriter::with_capacity(1 << 20, file),
            path,
        })
    }

    pub(super) fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.writer
            .write_all(bytes)
            .map_err(Error::writing(&self.path))
    }

    /// The finished file, opened for reading.
    pub(super) fn into_reader(self) -> Result<ScratchReader> {
        let file = self
            .writer
            .into_inner()
            .map_err(|error| error.into_error())
            .map_err(Error::writing(&self.path))?;
        drop(file);
        let file = File::open(&self.path).map_err(Error::reading(&self.path))?;
        Ok(ScratchReader {
            path: self.path,
            file,
        })
    }
}

/// A finished scratch file.
pub(super) struct ScratchReader {
    /// The file, to name in errors.
    pub(super) path: PathBuf,
    file: File,
}

impl ScratchReader {
    /// A buffered reader from the start.
    pub(super) fn sequential(&self) -> Result<BufReader<File>> {
        // Opened anew: a cloned handle would share the read position of earlier readers.
        let file = File::open(&self.path).map_err(Error::reading(&self.path))?;
        Ok(BufReader::with_capacity(1 << 20, file))
    }

    /// The `u64` at `index` of the file read as a `u64` array.
    pub(super) fn u64_at(&self, index: u64) -> Result<u64> {
        let mut bytes = [0_u8; 8];
        self.file
            .read_exact_at(&mut bytes, index * 8)
            .map_err(Error::reading(&self.path))?;
        Ok(u64::from_le_bytes(bytes))
    }
}

/// Reads `count` little-endian `u32` or `u64` values, one `width` bytes each.
pub(super) fn read_values(
    reader: &mut impl Read,
    count: usize,
    width: usize,
    path: &Path,
) -> Result<Vec<u64>> {
    let mut bytes = vec![0_u8; count * width];
    reader
        .read_exact(&mut bytes)
        .map_err(Error::reading(path))?;
    Ok(bytes
        .chunks_exact(width)
        .map(|chunk| {
            let mut value = [0_u8; 8];
            value[..width].copy_from_slice(chunk);
            u64::from_le_bytes(value)
        })
        .collect())
}

/// The store file being written: sections appended in turn, each aligned.
pub(super) struct SectionWriter {
    path: PathBuf,
    writer: BufWriter<File>,
    offset: u64,
}

impl SectionWriter {
    pub(super) fn create(path: &Path) -> Result<Self> {
        let error = Error::writing(path);
        let file = File::create(path).map_err(error)?;
        let mut writer = Self {
            path: path.to_path_buf(),
            writer: BufWriter::with_capacity(1 << 20, file),
            offset: 0,
        };
        // The preamble is written last, once the header's place is known.
        writer.write(&[0; PREAMBLE_BYTES as usize])?;
        Ok(writer)
    }

    pub(super) fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.writer
            .write_all(bytes)
            .map_err(Error::writing(&self.path))?;
        self.offset += bytes.len() as u64;
        Ok(())
    }

    /// Pads to the next section boundary and returns it.
    pub(super) fn begin_section(&mut self) -> Result<u64> {
        let start = aligned(self.offset);
        let padding = usize::try_from(start - self.offset).expect("padding is under 8 bytes");
        self.write(&[0; 8][..padding])?;
        Ok(start)
    }

    /// How many bytes are written so far.
    pub(super) fn offset(&self) -> u64 {
        self.offset
    }

    pub(super) fn span_from(&self, start: u64) -> Span {
        Span {
            offset: start,
            length: self.offset - start,
        }
    }

    /// Copies a whole scratch file as the rest of the current section.
    pub(super) fn copy(&mut self, scratch: &ScratchReader) -> Result<()> {
        let mut reader = scratch.sequential()?;
        let copied =
            std::io::copy(&mut reader, &mut self.writer).map_err(Error::writing(&self.path))?;
        self.offset += copied;
        Ok(())
    }

    /// Flushes what is written so far, and opens the file for reading it back.
    pub(super) fn reader(&mut self) -> Result<File> {
        self.writer.flush().map_err(Error::writing(&self.path))?;
        File::open(&self.path).map_err(Error::reading(&self.path))
    }

    /// The file being written.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the header and the preamble that points to it, and syncs the file.
    pub(super) fn finish(mut self, header: &Header) -> Result<()> {
        let start = self.begin_section()?;
        let json = serde_json::to_vec(header).expect("a header always serializes");
        self.write(&json)?;
        let mut file = self
            .writer
            .into_inner()
            .map_err(|error| error.into_error())
            .map_err(Error::writing(&self.path))?;
        let result = (|| {
            file.seek(SeekFrom::Start(0))?;
            file.write_all(&preamble(start, json.len() as u64))?;
            file.sync_all()
        })();
        result.map_err(Error::writing(&self.path))
    }
}
