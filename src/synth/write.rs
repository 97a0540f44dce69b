//! Writing a synthetic world as a task folder (see docs/formats.md#task-manifest): `task.toml`,
//! `runs/<tag>` (plain text), `teams.tsv`, `topics.tsv`, `corpus.tsv.gz`, the official qrels,
//! the truth qrels and the labeller's labels ([`write_labels`]); or a corpus alone
//! ([`write_corpus_file`]). Every file is written atomically, and every byte depends only on
//! the world: runs, topics and teams in byte order, a gzip header without timestamp or file
//! name, and a fixed compression level, so the same seed gives byte-identical files (for one
//! version of the compression library).

use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::{Compression, GzBuilder};

use crate::base::error::{Error, Result};
use crate::base::progress::StagedProgress;
use crate::io::atomic::write_atomically;
use crate::io::qrels::Qrels;
use crate::synth::corpus::Corpus;
use crate::synth::labels::{run_tops, Labeller};
use crate::synth::rankers::score_text;
use crate::synth::world::{SynthCorpus, SynthWorld};

/// The gzip level of `corpus.tsv.gz`; fixed, as the bytes must not change between runs.
const CORPUS_COMPRESSION_LEVEL: u32 = 6;
/// The gzip header's operating-system byte: 255, "unknown", so the host does not show.
const GZIP_UNKNOWN_OS: u8 = 255;
/// Documents generated per parallel batch while writing the corpus.
const CORPUS_BATCH_DOCUMENTS: usize = 16_384;

/// Where a task's files go, relative to its folder (the folder of `task.toml`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskLayout {
    /// The task name written to `task.toml`.
    pub name: String,
    /// The official qrels.
    pub qrels: PathBuf,
    /// The complete truth qrels.
    pub truth: PathBuf,
    /// The labeller's labels ([`write_labels`]), named in `task.toml` when given.
    pub labels: Option<PathBuf>,
}

impl TaskLayout {
    /// Everything inside the task folder: `qrels.txt` and `truth.qrels`.
    pub fn standalone(name: &str) -> Self {
        Self {
            name: name.to_string(),
            qrels: PathBuf::from("qrels.txt"),
            truth: PathBuf::from("truth.qrels"),
            labels: None,
        }
    }

    /// The repository's embedded layout: the task in `runs/<name>/`, its qrels in
    /// `qrels/<name>.qrels` and `qrels/<name>.truth.qrels`.
    pub fn embedded(name: &str) -> Self {
        Self {
            name: name.to_string(),
            qrels: PathBuf::from(format!("../../qrels/{name}.qrels")),
            truth: PathBuf::from(format!("../../qrels/{name}.truth.qrels")),
            labels: None,
        }
    }

    /// The same layout with the labeller's labels at `labels` (`labels.qrels` for `synth`'s
    /// tasks, beside `task.toml`).
    pub fn with_labels(self, labels: impl Into<PathBuf>) -> Self {
        Self {
            labels: Some(labels.into()),
            ..self
        }
    }
}

/// Writes `world` as a task in `out_dir` (created if needed), with the qrels and truth where
/// `layout` puts them. The labels that `layout` names are not written here: see
/// [`write_labels`].
///
/// `official_qrels` is the judged qrels (pool plus CAL). Without it, the truth is written in
/// its place as a provisional official qrels, so that the raw world can be loaded with
/// [`crate::io::task::Task::open`] before judging; write the real official qrels afterwards
/// with [`write_qrels`] (or call this again).
///
/// # Errors
/// [`Error::Write`] when a file cannot be written; [`Error::Invalid`] when `out_dir/runs`
/// already holds files that are not runs of this world (a task's run folder must hold only
/// its runs; they are not deleted).
pub fn write_task(
    world: &SynthWorld,
    out_dir: &Path,
    layout: &TaskLayout,
    official_qrels: Option<&Qrels>,
) -> Result<()> {
    let runs_dir = out_dir.join("runs");
    check_runs_folder(world, &runs_dir)?;
    write_atomically(&out_dir.join("task.toml"), |out| {
        write_manifest(out, world, layout)
    })?;
    for run in &world.runs {
        write_atomically(&runs_dir.join(&run.tag), |out| {
            for ranking in &run.topics {
                for (pos, doc) in ranking.docs.iter().enumerate() {
                    writeln!(
                        out,
                        "{} Q0 {} {} {} {}",
                        ranking.topic,
                        doc.docid,
                        pos + 1,
                        score_text(doc.score),
                        run.tag
                    )?;
                }
            }
            Ok(())
        })?;
    }
    write_atomically(&out_dir.join("teams.tsv"), |out| {
        for (tag, entry) in &world.teams.runs {
            let pooled = if entry.is_pooled { "yes" } else { "no" };
            writeln!(out, "{tag}\t{}\t{pooled}", entry.team)?;
        }
        Ok(())
    })?;
    write_atomically(&out_dir.join("topics.tsv"), |out| {
        for topic in &world.topics {
            writeln!(out, "{}\t{}", topic.id, topic.text)?;
        }
        Ok(())
    })?;
    write_atomically(&out_dir.join("corpus.tsv.gz"), |out| {
        write_corpus(out, &world.corpus, &|_, _, _| {})
    })?;
    write_qrels(&out_dir.join(&layout.truth), &world.truth)?;
    write_qrels(
        &out_dir.join(&layout.qrels),
        official_qrels.unwrap_or(&world.truth),
    )
}

/// Writes `corpus` as gzip TSV (`doc_id<TAB>text`, as a task's `corpus.tsv.gz`) at `path`,
/// atomically, telling `progress` of the documents written after each batch.
///
/// # Errors
/// [`Error::Write`] when the file cannot be written.
pub fn write_corpus_file(
    path: &Path,
    corpus: &SynthCorpus,
    progress: StagedProgress<'_>,
) -> Result<()> {
    write_atomically(path, |out| write_corpus(out, &corpus.corpus, progress))
}

/// Draws `labeller`'s labels of the documents of every run's top `depth` under the world's
/// seed (see [`Labeller::draw`]), and writes them in TREC format at `path`, atomically.
/// Returns the labels.
///
/// # Errors
/// [`Error::Invalid`] for invalid labeller settings; [`Error::Write`] when the file cannot be
/// written.
pub fn write_labels(
    world: &SynthWorld,
    path: &Path,
    labeller: &Labeller,
    depth: usize,
) -> Result<Qrels> {
    let labels = labeller.draw(world.seed, &world.truth, run_tops(&world.runs, depth))?;
    write_qrels(path, &labels)?;
    Ok(labels)
}

/// Writes qrels in TREC format, atomically.
///
/// # Errors
/// [`Error::Write`] when the file cannot be written.
pub fn write_qrels(path: &Path, qrels: &Qrels) -> Result<()> {
    write_atomically(path, |mut out| qrels.write_trec(&mut out))
}

fn check_runs_folder(world: &SynthWorld, runs_dir: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(runs_dir) else {
        return Ok(()); // absent: it will be created
    };
    let mut strangers: Vec<String> = entries
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.') && world.teams.get(name).is_none())
        .collect();
    if strangers.is_empty() {
        return Ok(());
    }
    strangers.sort();
    Err(Error::Invalid(format!(
        "{}: expected only runs of the synthetic world, found {}; remove them or choose \
         another folder",
        runs_dir.display(),
        strangers.join(", ")
    )))
}

fn write_manifest(
    out: &mut dyn Write,
    world: &SynthWorld,
    layout: &TaskLayout,
) -> std::io::Result<()> {
    let quoted = |text: &str| toml::Value::String(text.to_string()).to_string();
    let path_text = |path: &Path| quoted(&path.to_string_lossy().replace('\\', "/"));
    writeln!(
        out,
        "# Synthetic task: reusesim synth --preset {} --seed {}",
        world.preset, world.seed
    )?;
    writeln!(out, "name = {}", quoted(&layout.name))?;
    writeln!(out, "runs = \"runs\"")?;
    writeln!(out, "teams = \"teams.tsv\"")?;
    writeln!(out, "qrels = {}", path_text(&layout.qrels))?;
    writeln!(out, "topics = \"topics.tsv\"")?;
    writeln!(out, "corpus = \"corpus.tsv.gz\"")?;
    writeln!(out, "relevance_level = 1")?;
    writeln!(out, "pool_depth = {}", world.params.pool_depth)?;
    writeln!(out, "truth = {}", path_text(&layout.truth))?;
    if let Some(labels) = &layout.labels {
        writeln!(out, "labels = {}", path_text(labels))?;
    }
    Ok(())
}

/// Generates the corpus in batches, each in parallel, and compresses them in order; the
/// batches are fixed by position, so the bytes do not depend on the thread count.
fn write_corpus(
    out: &mut dyn Write,
    corpus: &Corpus,
    progress: StagedProgress<'_>,
) -> std::io::Result<()> {
    let mut encoder = GzBuilder::new()
        .mtime(0)
        .operating_system(GZIP_UNKNOWN_OS)
        .write(out, Compression::new(CORPUS_COMPRESSION_LEVEL));
    let document_count = corpus.len();
    for start in (0..document_count).step_by(CORPUS_BATCH_DOCUMENTS) {
        let end = (start + CORPUS_BATCH_DOCUMENTS).min(document_count);
        encoder.write_all(corpus.corpus_lines(start..end).as_bytes())?;
        progress("writing documents", end, document_count);
    }
    encoder.finish()?;
    Ok(())
}
