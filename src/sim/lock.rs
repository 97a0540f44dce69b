//! One process at a time per output folder: an advisory lock on a file beside the journal.
//!
//! A requeued SLURM task can start while its first run still lives; without a lock both
//! processes would judge every unit and append to the same journal. The lock is the operating
//! system's (`flock` on Unix, through `fd-lock`), so it is released when the holder exits,
//! however it exits, and a stale lock file never blocks anyone. The file holds the holder's
//! process id, for the refusal message; it is left in place afterwards (removing it would let
//! a third process lock a new file while a second still waits on the old one).

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::base::error::{Error, Result};

/// The lock file's name, beside the journal it guards.
pub const LOCK_FILE: &str = "units.journal.lock";

/// What to do when another process holds the folder's lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WhenLocked {
    /// Stop with an error naming the folder and the holder's process id.
    #[default]
    Refuse,
    /// Wait until the holder ends, then go on.
    Wait,
}

/// How a run uses an output folder that may hold an earlier run's work.
#[derive(Clone, Copy)]
pub struct FolderAccess<'a> {
    /// Continue from the folder's journal instead of starting afresh.
    pub resume: bool,
    /// What to do when another process holds the folder.
    pub when_locked: WhenLocked,
    /// Called once, with the holder's process id, when the run starts waiting for the lock.
    pub on_wait: &'a (dyn Fn(&str) + Sync),
}

impl FolderAccess<'static> {
    /// A fresh start that refuses a folder in use.
    pub const FRESH: Self = Self {
        resume: false,
        when_locked: WhenLocked::Refuse,
        on_wait: &|_| {},
    };
}

/// The lock of one output folder, opened but not yet held.
#[derive(Debug)]
pub struct FolderLock {
    lock: fd_lock::RwLock<File>,
    folder: PathBuf,
    path: PathBuf,
}

/// The held lock: released when dropped (or when the process ends).
pub type HeldLock<'a> = fd_lock::RwLockWriteGuard<'a, File>;

impl FolderLock {
    /// Opens (creating it and the folder when missing) the lock file of `folder`.
    ///
    /// # Errors
    /// [`Error::Write`] naming the folder when it cannot be created, or the lock file when it
    /// cannot be opened.
    pub fn open(folder: &Path) -> Result<Self> {
        let path = folder.join(LOCK_FILE);
        std::fs::create_dir_all(folder).map_err(Error::writing(folder))?;
        let write_error = Error::writing(&path);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(write_error)?;
        Ok(Self {
            lock: fd_lock::RwLock::new(file),
            folder: folder.to_path_buf(),
            path,
        })
    }

    /// Takes the lock and records this process's id in the lock file. `on_wait` is called once,
    /// with the holder's id, when `when_locked` is [`WhenLocked::Wait`] and the lock is busy.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the folder and the holder's process id when another process
    /// holds the lock and `when_locked` is [`WhenLocked::Refuse`]; [`Error::Write`] when
    /// locking or recording the id fails.
    pub fn hold(
        &mut self,
        when_locked: WhenLocked,
        on_wait: &dyn Fn(&str),
    ) -> Result<HeldLock<'_>> {
        let write_error = Error::writing(&self.path);
        let holder = read_holder(&self.path);
        let refusal = || {
            Error::Invalid(format!(
                "{} is in use by another reusesim process (pid {holder}, recorded in {}); \
                 wait for it to end, or pass --wait-lock to wait for it",
                self.folder.display(),
                self.path.display()
            ))
        };
        let is_busy = |error: &std::io::Error| error.kind() == std::io::ErrorKind::WouldBlock;
        let mut held = match when_locked {
            WhenLocked::Refuse => self.lock.try_write().map_err(|error| {
                if is_busy(&error) {
                    refusal()
                } else {
                    write_error(error)
                }
            })?,
            WhenLocked::Wait => {
                // A probe, only to say that this run waits and for whom.
                match self.lock.try_write() {
                    Err(error) if is_busy(&error) => on_wait(&holder),
                    Err(error) => return Err(write_error(error)),
                    Ok(_) => {}
                }
                self.lock.write().map_err(write_error)?
            }
        };
        record_holder(&mut held).map_err(write_error)?;
        Ok(held)
    }
}

/// The process id recorded in the lock file, or "unknown" (a holder that has not yet written
/// it, or an unreadable file).
fn read_holder(path: &Path) -> String {
    std::fs::read_to_string(path)
        .ok()
        .map(|text| text.trim().to_string())
        .filter(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        .unwrap_or_else(|| "unknown".to_string())
}

/// Replaces the lock file's content with this process's id.
fn record_holder(file: &mut File) -> std::io::Result<()> {
    file.set_len(0)?;
    file.seek(SeekFrom::Start(0))?;
    writeln!(file, "{}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_with_the_folder_and_the_holders_pid() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = FolderLock::open(dir.path()).unwrap();
        let _held = first.hold(WhenLocked::Refuse, &|_| {}).unwrap();
        let recorded = std::fs::read_to_string(dir.path().join(LOCK_FILE)).unwrap();
        assert_eq!(recorded, format!("{}\n", std::process::id()));

        // A second open file description of the same file, as another process would have.
        let mut second = FolderLock::open(dir.path()).unwrap();
        let error = second.hold(WhenLocked::Refuse, &|_| {}).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{} is in use by another reusesim process (pid {}, recorded in {}); wait for it \
                 to end, or pass --wait-lock to wait for it",
                dir.path().display(),
                std::process::id(),
                dir.path().join(LOCK_FILE).display()
            )
        );
    }

    #[test]
    fn a_waiting_holder_gets_the_lock_once_the_first_releases_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = FolderLock::open(dir.path()).unwrap();
        let held = first.hold(WhenLocked::Refuse, &|_| {}).unwrap();
        let (waiting_tx, waiting_rx) = std::sync::mpsc::channel();
        let folder = dir.path().to_path_buf();
        let waiter = std::thread::spawn(move || {
            let mut second = FolderLock::open(&folder).unwrap();
            let _held = second
                .hold(WhenLocked::Wait, &|holder| {
                    waiting_tx.send(holder.to_string()).unwrap()
                })
                .unwrap();
        });
        // The waiter reports that it waits (on this process's id) before the lock is released,
        // so the release below cannot come first.
        assert_eq!(waiting_rx.recv().unwrap(), std::process::id().to_string());
        drop(held);
        waiter.join().unwrap();
        // Released again: a refusing holder now gets it.
        let mut again = FolderLock::open(dir.path()).unwrap();
        let _held = again.hold(WhenLocked::Refuse, &|_| {}).unwrap();
    }

    #[test]
    fn a_lock_file_left_by_an_ended_process_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LOCK_FILE), "4242\n").unwrap();
        let mut lock = FolderLock::open(dir.path()).unwrap();
        let _held = lock.hold(WhenLocked::Refuse, &|_| {}).unwrap();
        let recorded = std::fs::read_to_string(dir.path().join(LOCK_FILE)).unwrap();
        assert_eq!(recorded, format!("{}\n", std::process::id()));
    }

    #[test]
    fn a_folder_that_cannot_be_created_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "").unwrap();
        let folder = file.join("out");
        let error = FolderLock::open(&folder).unwrap_err();
        assert_eq!(error.to_string(), format!("writing {}", folder.display()));
        let Error::Write { source, .. } = error else {
            panic!("not a write error: {error:?}");
        };
        assert_eq!(source.kind(), std::io::ErrorKind::NotADirectory);
    }
}
