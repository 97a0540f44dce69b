//! Atomic output: a file is written under a temporary name in its destination folder and renamed
//! into place only when complete, so a crash never leaves a half-written file that looks whole.
//! Each write gets a temporary file of its own (`tempfile` picks a fresh name and creates it
//! exclusively), so threads or processes writing the same path never write into one file; the
//! last rename wins, and every reader sees one writer's whole file.

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
    let write_error = Error::writing(path);
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(folder).map_err(write_error)?;
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A failure anywhere drops the temporary file, which deletes it.
    let temporary = tempfile::Builder::new()
        .prefix(&format!(".{file_name}.tmp-"))
        .tempfile_in(folder)
        .map_err(write_error)?;
    let mut out = BufWriter::new(temporary);
    write(&mut out).map_err(write_error)?;
    let temporary = out
        .into_inner()
        .map_err(|error| write_error(error.into_error()))?;
    temporary.as_file().sync_all().map_err(write_error)?;
    temporary
        .persist(path)
        .map_err(|error| write_error(error.error))?;
    Ok(())
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

    #[test]
    fn threads_writing_one_path_never_mix_their_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("result.tsv");
        let contents: Vec<String> = (0..8)
            .map(|writer| format!("{writer}\n").repeat(10_000))
            .collect();
        std::thread::scope(|scope| {
            for content in &contents {
                let path = &path;
                scope.spawn(move || {
                    for _ in 0..5 {
                        write_atomically(path, |out| out.write_all(content.as_bytes())).unwrap();
                    }
                });
            }
        });
        let written = std::fs::read_to_string(&path).unwrap();
        assert!(contents.contains(&written), "a mix of writers' bytes");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
