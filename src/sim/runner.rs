//! Running a study's judging in pieces (see docs/cluster.md): a [`Study`] is a task, its
//! settings, its plan and its fingerprint; its units are judged with a journal (so a killed run
//! resumes where it stopped), all of them or one shard's ([`judge_shard`]); [`read_shards`] and
//! [`Study::shard_judgings`] gather N finished shards back into the study's judgings, checking
//! that each unit is there exactly once and that everything was made from the same inputs and
//! settings. The statistics are computed from the judgings alone, so they are the same however
//! the judging was split.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use sha2::{Digest, Sha256};

use crate::base::error::{Error, ParseError, ParseErrorKind, Result, Warning};
use crate::base::progress::Progress;
use crate::collection::Collection;
use crate::io::task::Task;
use crate::judge::cal::TopicJudging;
use crate::sim::assessor::StudyAssessor;
use crate::sim::fingerprint::{file_sha256, Fingerprint, StudyRecipe};
use crate::sim::journal::{
    parse_journal, read_journal, JournalHeader, JournalWriter, UnitRecord, JOURNAL_FILE,
};
use crate::sim::lock::{FolderAccess, FolderLock};
use crate::sim::settings::StudySettings;
use crate::sim::shard::{shard_folders, ShardManifest, ShardSpec, MANIFEST_FILE, MANIFEST_FORMAT};
use crate::sim::study::{
    held_out_teams, judge_units, prepare_assessor, study_outcome, ScoringSetup, StudyOutcome,
    StudyPlan,
};
use crate::sim::unit::UnitId;

/// A study ready to judge: its task, settings, collection, plan and fingerprint.
#[derive(Debug)]
pub struct Study<'t> {
    /// The task.
    pub task: &'t Task,
    /// The settings.
    pub settings: StudySettings,
    /// The teams held out.
    pub held_out: Vec<String>,
    /// The prepared collection (shared by the studies of several assessors).
    pub collection: Arc<Collection>,
    /// The scoring setup, made when a study of the collection is first scored (shared by the
    /// studies of several assessors).
    scoring: Arc<OnceLock<ScoringSetup>>,
    /// The simulated assessor, prepared for every seed.
    pub assessor: StudyAssessor,
    /// The trials and distinct units.
    pub plan: StudyPlan,
    /// The inputs' and settings' fingerprint.
    pub fingerprint: Fingerprint,
}

/// What the studies of several assessors of one task and settings share: the held-out teams,
/// the prepared collection and the scoring setup.
#[derive(Debug, Clone)]
pub struct SharedPreparation {
    held_out: Vec<String>,
    collection: Arc<Collection>,
    scoring: Arc<OnceLock<ScoringSetup>>,
}

/// Units judged by one process, with those taken from its journal.
#[derive(Debug)]
pub struct Judged {
    /// Judgings by unit index.
    pub judgings: BTreeMap<usize, TopicJudging>,
    /// How many came from the journal.
    pub resumed: usize,
    /// A dropped torn tail of the journal.
    pub warnings: Vec<Warning>,
}

impl<'t> Study<'t> {
    /// Prepares a study of `task` (`use_text`: text features).
    ///
    /// # Errors
    /// Unknown held-out teams, corpus errors, unreadable inputs.
    pub fn prepare(task: &'t Task, settings: &StudySettings, use_text: bool) -> Result<Self> {
        crate::eval::check_rankable(&settings.measures, "the study")?;
        let held_out = held_out_teams(task, settings.teams.as_deref())?;
        let collection = Arc::new(Collection::prepare(task, &task.qrels, use_text)?);
        let shared = SharedPreparation {
            held_out,
            collection,
            scoring: Arc::default(),
        };
        Self::prepare_on(task, settings, use_text, shared)
    }

    /// Prepares a study of `task` on what another assessor's study of the same task and
    /// settings prepared ([`Study::shared`]).
    ///
    /// # Errors
    /// An assessor that cannot be prepared, unreadable inputs.
    pub fn prepare_on(
        task: &'t Task,
        settings: &StudySettings,
        use_text: bool,
        shared: SharedPreparation,
    ) -> Result<Self> {
        let SharedPreparation {
            held_out,
            collection,
            scoring,
        } = shared;
        let assessor = prepare_assessor(&collection, settings)?;
        let plan = StudyPlan::new(task, &collection, settings, &held_out, &assessor);
        let fingerprint = Fingerprint::new(task, &StudyRecipe::new(task, settings, use_text))?;
        Ok(Self {
            task,
            settings: settings.clone(),
            held_out,
            collection,
            scoring,
            assessor,
            plan,
            fingerprint,
        })
    }

    /// What another assessor's study of the same task and settings can share with this one.
    pub fn shared(&self) -> SharedPreparation {
        SharedPreparation {
            held_out: self.held_out.clone(),
            collection: Arc::clone(&self.collection),
            scoring: Arc::clone(&self.scoring),
        }
    }

    /// Every distinct unit, in unit order.
    pub fn all_units(&self) -> Vec<usize> {
        (0..self.plan.units.len()).collect()
    }

    /// The study's outcome from one judging per distinct unit, in unit order.
    pub fn outcome(&self, judgings: Vec<TopicJudging>) -> StudyOutcome<'_> {
        let setup = (self.scoring)
            .get_or_init(|| ScoringSetup::new(self.task, &self.collection, &self.settings));
        study_outcome(
            &self.collection,
            &self.settings,
            self.held_out.clone(),
            (&self.plan, &self.assessor),
            setup,
            judgings,
        )
    }

    /// Judges the units `owned`, journalling each at `journal` as it finishes. With `resume`,
    /// the units already in the journal (made by the same study and shard) are taken from it
    /// and the rest appended; otherwise the journal starts afresh. `progress(done, total)` is
    /// called as units finish.
    ///
    /// # Errors
    /// A journal of another study or shard (naming what differs), a corrupt journal, judge
    /// errors, write errors.
    pub fn judge_journalled(
        &self,
        owned: &[usize],
        journal: &Path,
        shard: Option<ShardSpec>,
        resume: bool,
        progress: Progress<'_>,
    ) -> Result<Judged> {
        let header = JournalHeader {
            fingerprint: self.fingerprint.clone(),
            shard,
        };
        let mut done = BTreeMap::new();
        let mut warnings = Vec::new();
        let existing = if resume && journal.exists() {
            Some(read_journal(journal)?)
        } else {
            None
        };
        let writer = match existing {
            Some(found) => {
                warnings.extend(found.warnings);
                match &found.header {
                    Some(found_header) => {
                        self.check_header(&header, found_header, journal)?;
                        let index: BTreeMap<UnitId, usize> = owned
                            .iter()
                            .map(|&unit| (self.plan.ids[unit], unit))
                            .collect();
                        for (id, record) in &found.units {
                            let Some(&unit) = index.get(id) else {
                                return Err(invalid_file(
                                    journal,
                                    format!("expected units of this study, found unit {id}"),
                                ));
                            };
                            done.insert(unit, self.judging_of(record, journal)?);
                        }
                        JournalWriter::resume(journal, found.valid_bytes)?
                    }
                    None => JournalWriter::create(journal, &header)?,
                }
            }
            None => JournalWriter::create(journal, &header)?,
        };
        let todo: Vec<usize> = owned
            .iter()
            .copied()
            .filter(|unit| !done.contains_key(unit))
            .collect();
        let writer = Mutex::new(writer);
        let finished = AtomicUsize::new(0);
        let judgings = judge_units(
            &self.collection,
            &self.settings,
            (&self.plan, &self.assessor),
            &todo,
            &|| progress(finished.load(Ordering::Relaxed), todo.len()),
            &|unit, judging| {
                let record = UnitRecord::new(self.plan.ids[unit], &self.collection, judging);
                writer
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .append(&record)?;
                progress(finished.fetch_add(1, Ordering::Relaxed) + 1, todo.len());
                Ok(())
            },
        )?;
        writer
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .finish()?;
        let resumed = done.len();
        done.extend(todo.into_iter().zip(judgings));
        Ok(Judged {
            judgings: done,
            resumed,
            warnings,
        })
    }

    /// Checks that a journal's header is this study's (and shard's).
    fn check_header(
        &self,
        expected: &JournalHeader,
        found: &JournalHeader,
        path: &Path,
    ) -> Result<()> {
        let name = |shard: Option<ShardSpec>| {
            shard.map_or_else(|| "the whole study".to_string(), |s| format!("shard {s}"))
        };
        if expected.shard != found.shard {
            return Err(invalid_file(
                path,
                format!(
                    "expected a journal of {}, found one of {}",
                    name(expected.shard),
                    name(found.shard)
                ),
            ));
        }
        expected.fingerprint.check(&found.fingerprint, path)
    }

    /// The judging a journal record holds.
    fn judging_of(&self, record: &UnitRecord, path: &Path) -> Result<TopicJudging> {
        record
            .judging(&self.collection)
            .map_err(|message| invalid_file(path, format!("unit {}: {message}", record.unit)))
    }

    /// The judgings of every distinct unit, in unit order, from the finished shards `shards`.
    ///
    /// # Errors
    /// When a shard's journal is not the one its manifest describes, holds a unit of another
    /// shard or study, or a unit twice, or when a unit of the study is missing.
    pub fn shard_judgings(&self, shards: &ShardSet) -> Result<Vec<TopicJudging>> {
        let index: BTreeMap<UnitId, usize> = self
            .plan
            .ids
            .iter()
            .enumerate()
            .map(|(unit, &id)| (id, unit))
            .collect();
        let mut judgings: Vec<Option<TopicJudging>> = vec![None; self.plan.units.len()];
        for shard in &shards.shards {
            let path = shard.folder.join(JOURNAL_FILE);
            let bytes = std::fs::read(&path)
                .map_err(|error| ParseError::file(&path, ParseErrorKind::Io(error)))?;
            let sha256 = format!("{:x}", Sha256::digest(&bytes));
            let manifest = &shard.manifest;
            if bytes.len() as u64 != manifest.journal_bytes || sha256 != manifest.journal_sha256 {
                return Err(invalid_file(
                    &path,
                    format!(
                        "expected the journal its manifest describes ({} bytes, sha256 {}), \
                         found {} bytes, sha256 {sha256}: it changed after the shard finished",
                        manifest.journal_bytes,
                        manifest.journal_sha256,
                        bytes.len()
                    ),
                ));
            }
            let journal = parse_journal(&path, &bytes)?;
            let expected = JournalHeader {
                fingerprint: self.fingerprint.clone(),
                shard: Some(manifest.shard),
            };
            let Some(header) = &journal.header else {
                return Err(invalid_file(&path, "expected a journal, found none".into()));
            };
            self.check_header(&expected, header, &path)?;
            if !journal.warnings.is_empty() || journal.units.len() != manifest.units {
                return Err(invalid_file(
                    &path,
                    format!(
                        "expected the {} units its manifest counts, found {}",
                        manifest.units,
                        journal.units.len()
                    ),
                ));
            }
            for (id, record) in &journal.units {
                let Some(&unit) = index.get(id) else {
                    return Err(invalid_file(
                        &path,
                        format!("expected units of this study, found unit {id}"),
                    ));
                };
                let home = id.home_shard(manifest.shard.count);
                if home != manifest.shard.index || judgings[unit].is_some() {
                    return Err(invalid_file(
                        &path,
                        format!(
                            "expected each unit once, in its home shard, found unit {id} (home \
                             shard {home}/{}) here",
                            manifest.shard.count
                        ),
                    ));
                }
                judgings[unit] = Some(self.judging_of(record, &path)?);
            }
        }
        let missing: Vec<String> = judgings
            .iter()
            .enumerate()
            .filter(|(_, judging)| judging.is_none())
            .map(|(unit, _)| self.plan.ids[unit].to_string())
            .collect();
        if let Some(first) = missing.first() {
            return Err(Error::Invalid(format!(
                "{}: expected every unit of the study in its shards, found {} missing (the \
                 first: {first})",
                shards.root.display(),
                missing.len()
            )));
        }
        Ok(judgings.into_iter().flatten().collect())
    }
}

/// An error about one file.
fn invalid_file(path: &Path, message: String) -> Error {
    ParseError::file(path, ParseErrorKind::Invalid(message)).into()
}

/// One finished shard's judging.
#[derive(Debug)]
pub struct ShardReport {
    /// Which shard.
    pub shard: ShardSpec,
    /// The shard's folder.
    pub folder: PathBuf,
    /// Its units.
    pub units: usize,
    /// Units taken from the journal.
    pub resumed: usize,
    /// Model fits over the shard's units.
    pub retrains: usize,
    /// A dropped torn tail of the journal.
    pub warnings: Vec<Warning>,
}

/// `simulate --shard`: judges the units of shard `shard` of the study into
/// `out/shards/I-of-N/` (its journal, then its manifest once every unit is judged). No
/// statistics: `merge` computes them from all the shards. The shard's folder is locked for
/// the whole run ([`crate::sim::lock`]).
///
/// # Errors
/// As [`Study::prepare`] and [`Study::judge_journalled`].
pub fn judge_shard(
    task: &Task,
    settings: &StudySettings,
    use_text: bool,
    out: &Path,
    shard: ShardSpec,
    access: FolderAccess<'_>,
    progress: Progress<'_>,
) -> Result<ShardReport> {
    let folder = shard.folder(out);
    let mut lock = FolderLock::open(&folder)?;
    let _held = lock.hold(access.when_locked, access.on_wait)?;
    let study = Study::prepare(task, settings, use_text)?;
    let owned: Vec<usize> = study
        .all_units()
        .into_iter()
        .filter(|&unit| study.plan.ids[unit].home_shard(shard.count) == shard.index)
        .collect();
    let manifest_path = folder.join(MANIFEST_FILE);
    // Until this run finishes the shard is unfinished.
    match std::fs::remove_file(&manifest_path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            return Err(Error::Write {
                path: manifest_path,
                source: error,
            })
        }
        _ => {}
    }
    let journal = folder.join(JOURNAL_FILE);
    let judged = study.judge_journalled(&owned, &journal, Some(shard), access.resume, progress)?;
    let task_path = task.manifest.path.as_ref().ok_or_else(|| {
        Error::Invalid("a sharded study needs a task read from a task.toml".to_string())
    })?;
    let manifest = ShardManifest {
        format: MANIFEST_FORMAT.to_string(),
        shard,
        task: std::fs::canonicalize(task_path)
            .map_err(|error| ParseError::file(task_path, ParseErrorKind::Io(error)))?,
        fingerprint: study.fingerprint.clone(),
        units: owned.len(),
        journal_bytes: std::fs::metadata(&journal)
            .map_err(|error| ParseError::file(&journal, ParseErrorKind::Io(error)))?
            .len(),
        journal_sha256: file_sha256(&journal)?,
    };
    manifest.write(&manifest_path)?;
    Ok(ShardReport {
        shard,
        folder,
        units: owned.len(),
        resumed: judged.resumed,
        retrains: judged.judgings.values().map(|j| j.retrains).sum(),
        warnings: judged.warnings,
    })
}

/// One finished shard on disk.
#[derive(Debug)]
pub struct FinishedShard {
    /// Its folder.
    pub folder: PathBuf,
    /// Its manifest.
    pub manifest: ShardManifest,
}

/// Every shard of a study, all finished and made from one fingerprint.
#[derive(Debug)]
pub struct ShardSet {
    /// The `shards` folder.
    pub root: PathBuf,
    /// In index order.
    pub shards: Vec<FinishedShard>,
}

impl ShardSet {
    /// The shards' common fingerprint.
    pub fn fingerprint(&self) -> &Fingerprint {
        &self.shards[0].manifest.fingerprint
    }

    /// The task manifest the shards read.
    pub fn task(&self) -> &Path {
        &self.shards[0].manifest.task
    }

    /// The first shard's manifest file (where a fingerprint mismatch is reported).
    pub fn first_manifest(&self) -> PathBuf {
        self.shards[0].folder.join(MANIFEST_FILE)
    }
}

/// Reads the shards of the study in `out`: all N present and finished, one fingerprint.
///
/// # Errors
/// A missing or unfinished shard, an unreadable manifest, or shards of different studies
/// (naming what differs).
pub fn read_shards(out: &Path) -> Result<ShardSet> {
    let mut shards: Vec<FinishedShard> = Vec::new();
    for (spec, folder) in shard_folders(out)? {
        let path = folder.join(MANIFEST_FILE);
        if !path.exists() {
            return Err(invalid_file(
                &path,
                format!(
                    "expected the manifest of finished shard {spec}, found none: the shard is \
                     unfinished (run `reusesim simulate --shard {spec} --resume` again)"
                ),
            ));
        }
        let manifest = ShardManifest::read(&path)?;
        if manifest.shard != spec {
            return Err(invalid_file(
                &path,
                format!(
                    "expected shard {spec} (its folder's), found shard {}",
                    manifest.shard
                ),
            ));
        }
        if let Some(first) = shards.first() {
            first
                .manifest
                .fingerprint
                .check(&manifest.fingerprint, &path)?;
        }
        shards.push(FinishedShard { folder, manifest });
    }
    Ok(ShardSet {
        root: out.join(crate::sim::shard::SHARDS_FOLDER),
        shards,
    })
}

/// The environment variable that stops a study after a number of units, for tests only.
pub const STOP_AFTER_UNITS_VAR: &str = "REUSESIM_TEST_STOP_AFTER_UNITS";

/// For tests only: `REUSESIM_TEST_STOP_AFTER_UNITS`, the number of units a process judges and
/// journals before it stops as if interrupted (the command line exits, the Python package
/// raises `KeyboardInterrupt`), so that tests of killed and resumed studies do not race the
/// clock. `None` when unset or not a positive number.
#[doc(hidden)]
pub fn stop_after_units() -> Option<usize> {
    std::env::var(STOP_AFTER_UNITS_VAR)
        .ok()?
        .parse()
        .ok()
        .filter(|&units| units > 0)
}
