//! The journal of finished judging units (see docs/cluster.md): `simulate` appends each unit to
//! it as the unit finishes, so a killed run resumed with `--resume` judges only what is left.
//!
//! Layout: the line `reusesim journal 1`, then records. A record is its payload's length (u32,
//! little-endian), a CRC-32 of the length bytes and the payload (u32, little-endian), and the
//! payload: one JSON object. The first record is the [`JournalHeader`] (the study's
//! fingerprint and shard); every other one is a [`UnitRecord`]. Each record goes to the file in
//! one write as soon as its unit is judged.
//!
//! Reading: a record cut short at the end of the file, or a last record whose checksum fails
//! (a run killed while writing it), is dropped with a [`Warning::TornJournal`] and its unit is
//! judged again. Anything else that is wrong (a checksum failing before the last record, a
//! payload that is not a record, a unit twice) is an error naming the file: a journal never
//! yields a wrong unit.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::error::{Error, ParseError, ParseErrorKind, Result, Warning};
use crate::base::Grade;
use crate::collection::Collection;
use crate::judge::assessor::GradeSource;
use crate::judge::cal::{TopicJudging, TraceStep};
use crate::sim::fingerprint::Fingerprint;
use crate::sim::shard::ShardSpec;
use crate::sim::unit::UnitId;

/// A journal's file name in its folder.
pub const JOURNAL_FILE: &str = "units.journal";

/// The journal's first line.
const MAGIC: &[u8] = b"reusesim journal 1\n";

/// A record's length and checksum.
const FRAME_HEAD_BYTES: usize = 8;

/// The first record: what the journalled units belong to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalHeader {
    /// The study's inputs and settings.
    pub fingerprint: Fingerprint,
    /// The shard journalled, or `None` for a whole study.
    pub shard: Option<ShardSpec>,
}

/// One trace step: step, batch, document, score (f32 bits, so NaN and every value round-trip
/// exactly), grade, whether the official qrels judged it.
type TraceRecord = (u32, u32, String, u32, Grade, GradeSource);

/// One judged unit, with documents and topics by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitRecord {
    /// The unit's id (hex).
    pub unit: String,
    /// The topic id.
    pub topic: String,
    /// The simulated qrels of the topic, in order.
    pub judgments: Vec<(String, Grade)>,
    /// The judging order.
    pub trace: Vec<TraceRecord>,
    /// Official judgments carried over unchanged.
    pub carried: usize,
    /// The pool size.
    pub pool_size: usize,
    /// Whether the pool alone exceeded the budget.
    pub is_pool_over_budget: bool,
    /// Model fits.
    pub retrains: usize,
    /// Documents withheld from the simulated assessor.
    pub withheld: usize,
}

impl UnitRecord {
    /// The record of `judging`, the judging of unit `unit`.
    pub fn new(unit: UnitId, collection: &Collection, judging: &TopicJudging) -> Self {
        let name = |doc| collection.doc_name(doc).to_string();
        Self {
            unit: unit.to_string(),
            topic: collection.topics[judging.topic].id.clone(),
            judgments: judging
                .judgments
                .iter()
                .map(|&(doc, grade)| (name(doc), grade))
                .collect(),
            trace: judging
                .trace
                .iter()
                .map(|step| {
                    (
                        step.step,
                        step.batch,
                        name(step.doc),
                        step.score.to_bits(),
                        step.grade,
                        step.source,
                    )
                })
                .collect(),
            carried: judging.carried,
            pool_size: judging.pool_size,
            is_pool_over_budget: judging.is_pool_over_budget,
            retrains: judging.retrains,
            withheld: judging.withheld,
        }
    }

    /// The unit's id.
    ///
    /// # Errors
    /// A message when the id is not 64 hex digits.
    pub fn id(&self) -> std::result::Result<UnitId, String> {
        UnitId::from_hex(&self.unit)
            .ok_or_else(|| format!("expected a unit id of 64 hex digits, found {:?}", self.unit))
    }

    /// The judging the record holds, with the ids of `collection`.
    ///
    /// # Errors
    /// A message naming a topic or document the collection does not have.
    pub fn judging(&self, collection: &Collection) -> std::result::Result<TopicJudging, String> {
        let topic = collection
            .topics
            .iter()
            .position(|topic| topic.id == self.topic)
            .ok_or_else(|| format!("expected a topic of the task, found {:?}", self.topic))?;
        let doc = |name: &str| {
            collection
                .doc_id(name)
                .ok_or_else(|| format!("expected a document of the task, found {name:?}"))
        };
        let judgments = self
            .judgments
            .iter()
            .map(|(name, grade)| Ok((doc(name)?, *grade)))
            .collect::<std::result::Result<_, String>>()?;
        let trace = self
            .trace
            .iter()
            .map(|(step, batch, name, score, grade, source)| {
                Ok(TraceStep {
                    step: *step,
                    batch: *batch,
                    doc: doc(name)?,
                    score: f32::from_bits(*score),
                    grade: *grade,
                    source: *source,
                })
            })
            .collect::<std::result::Result<_, String>>()?;
        Ok(TopicJudging {
            topic,
            judgments,
            trace,
            carried: self.carried,
            pool_size: self.pool_size,
            is_pool_over_budget: self.is_pool_over_budget,
            retrains: self.retrains,
            withheld: self.withheld,
        })
    }
}

/// What a journal holds.
#[derive(Debug, Default)]
pub struct Journal {
    /// The header; `None` when the file ended before it was complete (a run killed as it
    /// started): the journal is then empty.
    pub header: Option<JournalHeader>,
    /// The units, in the order they were written.
    pub units: Vec<(UnitId, UnitRecord)>,
    /// The length of the valid part; appending continues there.
    pub valid_bytes: u64,
    /// A dropped torn tail.
    pub warnings: Vec<Warning>,
}

/// Reads the journal at `path`.
///
/// # Errors
/// A [`ParseError`] naming `path` when it cannot be read or is corrupt before its last record.
pub fn read_journal(path: &Path) -> Result<Journal> {
    let bytes =
        std::fs::read(path).map_err(|error| ParseError::file(path, ParseErrorKind::Io(error)))?;
    parse_journal(path, &bytes)
}

/// Reads a journal's bytes (see the module docs); `path` names it in messages.
///
/// # Errors
/// As [`read_journal`].
pub fn parse_journal(path: &Path, bytes: &[u8]) -> Result<Journal> {
    let corrupt = |offset: usize, message: String| -> Error {
        ParseError::file(
            path,
            ParseErrorKind::Invalid(format!("byte {offset}: {message}")),
        )
        .into()
    };
    let mut journal = Journal::default();
    if !bytes.starts_with(MAGIC) {
        if MAGIC.starts_with(bytes) {
            journal.warnings.push(torn(path, bytes.len()));
            return Ok(journal);
        }
        return Err(corrupt(
            0,
            "expected a journal of reusesim units (first line `reusesim journal 1`), found \
             other bytes"
                .to_string(),
        ));
    }
    let mut pos = MAGIC.len();
    let mut seen = std::collections::BTreeSet::new();
    while pos < bytes.len() {
        let rest = &bytes[pos..];
        let length = rest
            .get(..4)
            .map(|head| u32::from_le_bytes(head.try_into().expect("4 bytes")) as usize);
        let Some(payload) = length.and_then(|length| rest.get(FRAME_HEAD_BYTES..)?.get(..length))
        else {
            journal.warnings.push(torn(path, rest.len()));
            break;
        };
        let end = pos + FRAME_HEAD_BYTES + payload.len();
        let stored = u32::from_le_bytes(rest[4..8].try_into().expect("4 bytes"));
        if stored != checksum(&rest[..4], payload) {
            if end == bytes.len() {
                journal.warnings.push(torn(path, rest.len()));
                break;
            }
            return Err(corrupt(
                pos,
                "expected a record whose checksum matches, found a corrupt record before the \
                 journal's end"
                    .to_string(),
            ));
        }
        if journal.header.is_none() {
            let header = serde_json::from_slice(payload).map_err(|error| {
                corrupt(pos, format!("expected the journal's header, found {error}"))
            })?;
            journal.header = Some(header);
        } else {
            let record: UnitRecord = serde_json::from_slice(payload)
                .map_err(|error| corrupt(pos, format!("expected a unit record, found {error}")))?;
            let id = record.id().map_err(|message| corrupt(pos, message))?;
            if !seen.insert(id) {
                return Err(corrupt(
                    pos,
                    format!("expected each unit once, found {id} again"),
                ));
            }
            journal.units.push((id, record));
        }
        pos = end;
        journal.valid_bytes = pos as u64;
    }
    if journal.header.is_none() {
        journal.valid_bytes = 0;
    }
    Ok(journal)
}

/// The warning for a torn tail of `bytes` bytes.
fn torn(path: &Path, bytes: usize) -> Warning {
    Warning::TornJournal {
        path: path.to_path_buf(),
        bytes: bytes as u64,
    }
}

/// CRC-32 of a record's length bytes and payload.
fn checksum(length: &[u8], payload: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(length);
    hasher.update(payload);
    hasher.finalize()
}

/// Appends records to a journal, one write per record.
#[derive(Debug)]
pub struct JournalWriter {
    file: std::fs::File,
    path: PathBuf,
}

impl JournalWriter {
    /// Starts a new journal at `path` (replacing any) with `header`.
    ///
    /// # Errors
    /// [`Error::Write`] when it cannot be written.
    pub fn create(path: &Path, header: &JournalHeader) -> Result<Self> {
        let write_error = Error::writing(path);
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(write_error)?;
        }
        let mut file = std::fs::File::create(path).map_err(write_error)?;
        file.write_all(MAGIC).map_err(write_error)?;
        let mut writer = Self {
            file,
            path: path.to_path_buf(),
        };
        writer.append(header)?;
        Ok(writer)
    }

    /// Continues the journal at `path` after its first `valid_bytes` (dropping a torn tail).
    ///
    /// # Errors
    /// [`Error::Write`] when it cannot be opened or cut.
    pub fn resume(path: &Path, valid_bytes: u64) -> Result<Self> {
        let write_error = Error::writing(path);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(write_error)?;
        file.set_len(valid_bytes).map_err(write_error)?;
        let mut writer = Self {
            file,
            path: path.to_path_buf(),
        };
        use std::io::Seek;
        writer
            .file
            .seek(std::io::SeekFrom::End(0))
            .map_err(write_error)?;
        Ok(writer)
    }

    /// Appends one record.
    ///
    /// # Errors
    /// [`Error::Write`] when it cannot be written.
    pub fn append(&mut self, record: &impl Serialize) -> Result<()> {
        let payload = serde_json::to_vec(record).expect("records always serialize");
        let length = u32::try_from(payload.len())
            .expect("a record is smaller than 4 GiB")
            .to_le_bytes();
        let mut frame = Vec::with_capacity(FRAME_HEAD_BYTES + payload.len());
        frame.extend_from_slice(&length);
        frame.extend_from_slice(&checksum(&length, &payload).to_le_bytes());
        frame.extend_from_slice(&payload);
        self.file
            .write_all(&frame)
            .map_err(Error::writing(&self.path))
    }

    /// Flushes the journal to disk.
    ///
    /// # Errors
    /// [`Error::Write`] when it cannot be synced.
    pub fn finish(self) -> Result<()> {
        self.file.sync_all().map_err(Error::writing(&self.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn header() -> JournalHeader {
        let dir = tempfile::tempdir().unwrap();
        let task = crate::io::fixture::hand_task(dir.path(), false);
        let settings = crate::sim::fixture::map_study();
        let recipe = crate::sim::fingerprint::StudyRecipe::new(&task, &settings, false);
        JournalHeader {
            fingerprint: Fingerprint::new(&task, &recipe).unwrap(),
            shard: Some(ShardSpec { index: 0, count: 2 }),
        }
    }

    fn record(seed: u8) -> UnitRecord {
        UnitRecord {
            unit: UnitId([seed; 32]).to_string(),
            topic: "1".to_string(),
            judgments: vec![("d1".to_string(), 1), ("d2".to_string(), 0)],
            trace: vec![
                (
                    1,
                    0,
                    "d1".to_string(),
                    f32::NAN.to_bits(),
                    1,
                    GradeSource::Official,
                ),
                (
                    2,
                    1,
                    "d2".to_string(),
                    0.25f32.to_bits(),
                    0,
                    GradeSource::Presumed,
                ),
            ],
            carried: 0,
            pool_size: 1,
            is_pool_over_budget: false,
            retrains: 1,
            withheld: usize::from(seed),
        }
    }

    /// A valid journal of three units, and where each record ends.
    fn valid_journal() -> &'static (Vec<u8>, Vec<usize>) {
        static VALID: std::sync::OnceLock<(Vec<u8>, Vec<usize>)> = std::sync::OnceLock::new();
        VALID.get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(JOURNAL_FILE);
            let mut writer = JournalWriter::create(&path, &header()).unwrap();
            let mut ends = vec![std::fs::metadata(&path).unwrap().len() as usize];
            for seed in 1..=3 {
                writer.append(&record(seed)).unwrap();
                ends.push(std::fs::metadata(&path).unwrap().len() as usize);
            }
            writer.finish().unwrap();
            (std::fs::read(&path).unwrap(), ends)
        })
    }

    fn ids(journal: &Journal) -> Vec<u8> {
        journal.units.iter().map(|(id, _)| id.0[0]).collect()
    }

    #[test]
    fn records_round_trip_and_resume_appends_after_a_torn_tail() {
        let (bytes, ends) = valid_journal();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL_FILE);
        let journal = parse_journal(&path, bytes).unwrap();
        assert_eq!(journal.header, Some(header()));
        assert_eq!(ids(&journal), [1, 2, 3]);
        assert_eq!(journal.units[2].1, record(3));
        assert!(journal.warnings.is_empty());
        // Torn in the middle of the last record: dropped with a warning, and a resumed writer
        // continues after the valid part.
        std::fs::write(&path, &bytes[..ends[3] - 5]).unwrap();
        let journal = read_journal(&path).unwrap();
        assert_eq!(ids(&journal), [1, 2]);
        assert_eq!(journal.valid_bytes, ends[2] as u64);
        assert!(matches!(
            journal.warnings[..],
            [Warning::TornJournal { .. }]
        ));
        let mut writer = JournalWriter::resume(&path, journal.valid_bytes).unwrap();
        writer.append(&record(9)).unwrap();
        writer.finish().unwrap();
        let journal = read_journal(&path).unwrap();
        assert_eq!(ids(&journal), [1, 2, 9]);
        assert!(journal.warnings.is_empty());
    }

    #[test]
    fn a_corrupt_last_record_is_dropped_with_a_warning() {
        let (bytes, ends) = valid_journal();
        let mut bytes = bytes.clone();
        bytes[ends[3] - 3] ^= 0x20;
        let journal = parse_journal(Path::new("j"), &bytes).unwrap();
        assert_eq!(ids(&journal), [1, 2]);
        let message = journal.warnings[0].to_string();
        assert!(message.starts_with("j: "), "{message}");
        // A header cut short: an empty journal, with a warning.
        let journal = parse_journal(Path::new("j"), &valid_journal().0[..ends[0] - 1]).unwrap();
        assert!(journal.header.is_none() && journal.units.is_empty());
        assert_eq!(journal.warnings.len(), 1);
    }

    #[test]
    fn corruption_before_the_last_record_is_an_error() {
        let (bytes, ends) = valid_journal();
        let mut corrupt = bytes.clone();
        corrupt[ends[1] + 12] ^= 0x01;
        let message = parse_journal(Path::new("dir/units.journal"), &corrupt)
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with("dir/units.journal: byte ")
                && message.contains("corrupt record before the journal's end"),
            "{message}"
        );
        let mut other = bytes.clone();
        other[0] = b'X';
        assert!(parse_journal(Path::new("j"), &other).is_err());
        // A unit journalled twice is an error too.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL_FILE);
        let mut writer = JournalWriter::create(&path, &header()).unwrap();
        writer.append(&record(1)).unwrap();
        writer.append(&record(1)).unwrap();
        let message = read_journal(&path).unwrap_err().to_string();
        assert!(message.contains("expected each unit once"), "{message}");
    }

    /// Parses `bytes`: never panics; a rejection names the file; and what is accepted is a
    /// prefix of the valid journal's units (never a wrong unit).
    fn check(bytes: &[u8]) -> std::result::Result<(), TestCaseError> {
        let path = Path::new("fuzz/units.journal");
        match parse_journal(path, bytes) {
            Ok(journal) => {
                let accepted = ids(&journal);
                prop_assert!([1u8, 2, 3].starts_with(&accepted), "accepted {accepted:?}");
                for (id, unit) in &journal.units {
                    prop_assert_eq!(unit, &record(id.0[0]));
                }
            }
            Err(error) => {
                prop_assert!(
                    error.to_string().starts_with("fuzz/units.journal"),
                    "{error}"
                );
            }
        }
        Ok(())
    }

    crate::base::fuzz::fuzz_suites!(
        3000,
        fn fuzz_journal_arbitrary_bytes(
            tail in proptest::collection::vec(any::<u8>(), 0..300),
            with_magic in any::<bool>(),
        ) {
            let mut bytes = if with_magic { MAGIC.to_vec() } else { Vec::new() };
            bytes.extend(tail);
            // Arbitrary bytes can hold no valid unit, whatever they are.
            match parse_journal(Path::new("fuzz/units.journal"), &bytes) {
                Ok(journal) => prop_assert!(journal.units.is_empty()),
                Err(error) => prop_assert!(
                    error.to_string().starts_with("fuzz/units.journal"),
                    "{error}"
                ),
            }
        }

        fn fuzz_journal_mutated(
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 1..4)
        ) {
            let mut bytes = valid_journal().0.clone();
            crate::base::fuzz::mutate(&mut bytes, edits, true);
            check(&bytes)?;
        }
    );
}
