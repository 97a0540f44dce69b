//! Atomic output: a file is written under a temporary name in its destination folder and renamed
//! into place only when complete, so a crash never leaves a half-written file that looks whole.

use std::io::{BufWriter, Write};
use std::path::Path;

use crate::base::error::{Error, Result};

/// Writes `path` atomically with the bytes that `write` produces.
///
/// # Errors
/// [`Error::Write`] when the folder cannot be created or the file cannot be written or renamed.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let write_error = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(folder).map_err(write_error)?;
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned());
    let temporary = folder.join(format!(
        ".{}.tmp-{}",
        file_name.unwrap_or_default(),
        std::process::id()
    ));
    let result = (|| {
        let mut out = BufWriter::new(std::fs::File::create(&temporary)?);
        write(&mut out)?;
        out.into_inner()
            .map_err(|error| error.into_error())?
            .sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result.map_err(write_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_writes_leave_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out").join("result.tsv");
        write_atomically(&path, |out| out.write_all(b"complete\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "complete\n");
        let failure = write_atomically(&path, |out| {
            out.write_all(b"partial")?;
            Err(std::io::Error::other("interrupted"))
        });
        assert!(failure.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "complete\n");
        let leftovers = std::fs::read_dir(path.parent().unwrap()).unwrap().count();
        assert_eq!(leftovers, 1);
    }
}
