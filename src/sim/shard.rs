//! Shards of a study (see docs/cluster.md): every distinct (trial, topic) judging unit has a
//! stable identity, [`UnitId`](crate::sim::unit::UnitId), and a home shard, its id mod N.
//! `simulate --shard I/N` judges the units whose home is I into `DIR/shards/I-of-N/` (a journal of the units and, once they
//! are all judged, a [`ShardManifest`]); `merge` reads the N shards back.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::error::{Error, ParseError, ParseErrorKind, Result};
use crate::sim::fingerprint::Fingerprint;

/// Shard `index` of `count` (0-based, as SLURM's `$SLURM_ARRAY_TASK_ID`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardSpec {
    /// 0-based.
    pub index: usize,
    /// How many shards the study is split into.
    pub count: usize,
}

impl ShardSpec {
    /// The shard's folder under a study's output folder: `shards/I-of-N`.
    pub fn folder(&self, out: &Path) -> PathBuf {
        out.join(SHARDS_FOLDER)
            .join(format!("{}-of-{}", self.index, self.count))
    }
}

impl std::fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for ShardSpec {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        let invalid = || {
            Error::Invalid(format!(
                "expected a shard I/N with 0 <= I < N (0-based, as $SLURM_ARRAY_TASK_ID), \
                 found {text:?}"
            ))
        };
        let (index, count) = text.split_once('/').ok_or_else(invalid)?;
        let index: usize = index.trim().parse().map_err(|_| invalid())?;
        let count: usize = count.trim().parse().map_err(|_| invalid())?;
        if index >= count {
            return Err(invalid());
        }
        Ok(Self { index, count })
    }
}

/// The folder of a study's shards, under its output folder.
pub const SHARDS_FOLDER: &str = "shards";

/// A finished shard's manifest file, in its folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// The first line of a manifest's `format` field: which layout this is.
pub const MANIFEST_FORMAT: &str = "reusesim shard 1";

/// What a finished shard holds, written as `manifest.json` in its folder once every unit of
/// the shard is in its journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardManifest {
    /// [`MANIFEST_FORMAT`].
    pub format: String,
    /// Which shard.
    pub shard: ShardSpec,
    /// The task manifest the study read (absolute).
    pub task: PathBuf,
    /// The study's inputs and settings.
    pub fingerprint: Fingerprint,
    /// How many units the shard judged.
    pub units: usize,
    /// The journal's size in bytes.
    pub journal_bytes: u64,
    /// The journal's sha256 (hex).
    pub journal_sha256: String,
}

impl ShardManifest {
    /// Reads a manifest.
    ///
    /// # Errors
    /// A [`ParseError`] naming `path` (and the line) when it cannot be read, is not a
    /// manifest, or names an impossible shard.
    pub fn read(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path)
            .map_err(|error| ParseError::file(path, ParseErrorKind::Io(error)))?;
        let manifest: Self = serde_json::from_slice(&bytes).map_err(|error| {
            ParseError::new(
                path,
                error.line(),
                ParseErrorKind::Invalid(format!("expected a shard manifest, found {error}")),
            )
        })?;
        let invalid = |message: String| ParseError::file(path, ParseErrorKind::Invalid(message));
        if manifest.format != MANIFEST_FORMAT {
            return Err(invalid(format!(
                "expected format {MANIFEST_FORMAT:?}, found {:?}",
                manifest.format
            ))
            .into());
        }
        if manifest.shard.index >= manifest.shard.count {
            return Err(invalid(format!(
                "expected a shard I/N with I < N, found {}",
                manifest.shard
            ))
            .into());
        }
        Ok(manifest)
    }

    /// Writes the manifest atomically.
    ///
    /// # Errors
    /// When it cannot be written.
    pub fn write(&self, path: &Path) -> Result<()> {
        crate::io::atomic::write_atomically(path, |out| {
            serde_json::to_writer_pretty(&mut *out, self)?;
            writeln!(out)
        })
    }
}

/// Every shard folder of `out`, as (shard, folder), in index order; all must be of one count.
///
/// # Errors
/// [`Error::Invalid`] when there are none, when their counts differ, when a folder is not
/// named `I-of-N`, or when a shard of the count is missing.
pub fn shard_folders(out: &Path) -> Result<Vec<(ShardSpec, PathBuf)>> {
    let root = out.join(SHARDS_FOLDER);
    let entries = std::fs::read_dir(&root).map_err(|error| {
        Error::Invalid(format!(
            "{}: expected the shard folders of `simulate --shard I/N`, found none ({error})",
            root.display()
        ))
    })?;
    let mut shards = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|error| ParseError::file(&root, ParseErrorKind::Io(error)))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let spec = name
            .split_once("-of-")
            .and_then(|(i, n)| format!("{i}/{n}").parse::<ShardSpec>().ok())
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "{}: expected shard folders named I-of-N, found {name:?}",
                    root.display()
                ))
            })?;
        shards.push((spec, entry.path()));
    }
    shards.sort_by_key(|(spec, _)| (spec.count, spec.index));
    let Some(&(first, _)) = shards.first() else {
        return Err(Error::Invalid(format!(
            "{}: expected the shard folders of `simulate --shard I/N`, found none",
            root.display()
        )));
    };
    if let Some((other, _)) = shards.iter().find(|(spec, _)| spec.count != first.count) {
        return Err(Error::Invalid(format!(
            "{}: expected the shards of one split, found splits into {} and {}",
            root.display(),
            first.count,
            other.count
        )));
    }
    let missing: Vec<String> = (0..first.count)
        .filter(|index| !shards.iter().any(|(spec, _)| spec.index == *index))
        .map(|index| format!("{index}/{}", first.count))
        .collect();
    if !missing.is_empty() {
        return Err(Error::Invalid(format!(
            "{}: expected all {} shards, found none for {}",
            root.display(),
            first.count,
            missing.join(", ")
        )));
    }
    Ok(shards)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fingerprint::StudyRecipe;
    use proptest::prelude::*;

    #[test]
    fn shard_specs_parse_and_reject() {
        assert_eq!(
            "2/7".parse::<ShardSpec>().unwrap(),
            ShardSpec { index: 2, count: 7 }
        );
        for bad in ["7/7", "1", "a/3", "-1/3", "0/0", "1/2/3"] {
            let error = bad.parse::<ShardSpec>().unwrap_err().to_string();
            assert!(error.contains("expected a shard I/N"), "{bad}: {error}");
        }
    }

    /// A valid manifest's bytes, made once.
    fn valid_manifest() -> &'static [u8] {
        static VALID: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        VALID.get_or_init(make_manifest)
    }

    fn make_manifest() -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let task = crate::io::fixture::hand_task(dir.path(), false);
        let settings = crate::sim::fixture::map_study();
        let recipe = StudyRecipe::new(&task, &settings, false);
        let path = dir.path().join("task.toml");
        let manifest = ShardManifest {
            format: MANIFEST_FORMAT.to_string(),
            shard: ShardSpec { index: 1, count: 3 },
            task: path.clone(),
            fingerprint: Fingerprint::new(&task, &recipe).unwrap(),
            units: 4,
            journal_bytes: 1234,
            journal_sha256: "00".repeat(32),
        };
        serde_json::to_vec_pretty(&manifest).unwrap()
    }

    /// Reads `bytes` as a manifest: never panics, and a rejection names the file.
    fn read_bytes(bytes: &[u8]) -> std::result::Result<(), TestCaseError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MANIFEST_FILE);
        std::fs::write(&path, bytes).unwrap();
        if let Err(error) = ShardManifest::read(&path) {
            prop_assert!(
                error.to_string().contains(&*path.to_string_lossy()),
                "{error}"
            );
        }
        Ok(())
    }

    #[test]
    fn a_valid_manifest_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MANIFEST_FILE);
        std::fs::write(&path, valid_manifest()).unwrap();
        assert_eq!(ShardManifest::read(&path).unwrap().shard.count, 3);
    }

    crate::base::fuzz::fuzz_suites!(
        2000,
        fn fuzz_manifest_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            read_bytes(&bytes)?;
        }

        fn fuzz_manifest_mutated(
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 1..6)
        ) {
            let mut bytes = valid_manifest().to_vec();
            crate::base::fuzz::mutate(&mut bytes, edits, false);
            read_bytes(&bytes)?;
        }
    );
}
