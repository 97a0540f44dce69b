//! The task manifest `task.toml` (see docs/formats.md#task-manifest) and the loaded task it
//! describes: runs, teams, official qrels, and optionally topics, a corpus and complete truth qrels.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::base::error::{Error, ParseError, ParseErrorKind, Result};
use crate::base::relevance::MIN_RELEVANCE_LEVEL;
use crate::base::Grade;
use crate::io::corpus::settings::{CorpusSetting, CorpusSettings};
use crate::io::corpus::CorpusLayout;
use crate::io::names::check_file_name;
use crate::io::qrels::{read_qrels, Qrels};
use crate::io::run::{read_runs, Run};
use crate::io::teams::{read_teams, Teams};
use crate::io::topics::{read_topics, Topics};

/// How deep the official pool went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolDepth {
    /// The top `k` of every pooled run.
    Fixed(usize),
    /// The largest `k` such that every pooled run's top `k` is fully judged.
    Auto,
}

/// A parsed `task.toml`, with every path resolved against the manifest's folder.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskManifest {
    /// The manifest file itself; `None` for a task built in memory (the Python package's
    /// `Task` from parts), which has no input files to fingerprint or shard.
    pub path: Option<PathBuf>,
    /// The task's name, usable in file names (`results/{name}`; see
    /// [`check_file_name`]).
    pub name: String,
    /// A directory holding only run files; `None` for a task without runs (plain HiCAL from
    /// the topic texts over the corpus).
    pub runs: Option<PathBuf>,
    /// The team file (given exactly when `runs` is).
    pub teams: Option<PathBuf>,
    /// The official qrels.
    pub qrels: PathBuf,
    /// Topic texts, if any.
    pub topics: Option<PathBuf>,
    /// The corpus (a file or a folder of files, TSV or JSONL), if any.
    pub corpus: Option<PathBuf>,
    /// How the corpus is read (the defaults when the manifest names no corpus setting).
    pub corpus_layout: CorpusLayout,
    /// The corpus's feature store (`reusesim index`), if any: text features are read from it
    /// rather than from the corpus, which it then stands for.
    pub feature_store: Option<PathBuf>,
    /// A grade >= this counts as relevant; at least 1.
    pub relevance_level: Grade,
    /// The official pool depth.
    pub pool_depth: PoolDepth,
    /// Complete truth qrels (synthetic tasks only).
    pub truth: Option<PathBuf>,
    /// A second assessor's labels in qrels form (an LLM's grades, or the labeller's of a
    /// synthetic task), if any. Loading the task does not read them.
    pub labels: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    name: toml::Spanned<String>,
    runs: Option<PathBuf>,
    teams: Option<PathBuf>,
    qrels: PathBuf,
    topics: Option<PathBuf>,
    corpus: Option<PathBuf>,
    corpus_format: Option<toml::Spanned<String>>,
    corpus_id_fields: Option<toml::Spanned<Vec<String>>>,
    corpus_text_fields: Option<toml::Spanned<Vec<String>>>,
    feature_store: Option<PathBuf>,
    relevance_level: Option<toml::Spanned<Grade>>,
    #[serde(default)]
    pool_depth: Option<RawPoolDepth>,
    truth: Option<PathBuf>,
    labels: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawPoolDepth {
    Depth(usize),
    Word(String),
}

/// The 1-based line of byte `offset` of `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&byte| byte == b'\n')
        .count()
        + 1
}

/// The corpus layout of a manifest's settings.
///
/// # Errors
/// As [`CorpusSettings::layout`], naming the setting's line.
fn corpus_layout(raw: &RawManifest, path: &Path, text: &str) -> Result<CorpusLayout, ParseError> {
    let start = |setting: CorpusSetting| {
        let span = match setting {
            CorpusSetting::Format => raw.corpus_format.as_ref().map(toml::Spanned::span),
            CorpusSetting::IdFields => raw.corpus_id_fields.as_ref().map(toml::Spanned::span),
            CorpusSetting::TextFields => raw.corpus_text_fields.as_ref().map(toml::Spanned::span),
        };
        span.map_or(0, |span| span.start)
    };
    CorpusSettings {
        format: raw.corpus_format.as_ref().map(|s| s.get_ref().clone()),
        id_fields: raw.corpus_id_fields.as_ref().map(|s| s.get_ref().clone()),
        text_fields: raw.corpus_text_fields.as_ref().map(|s| s.get_ref().clone()),
    }
    .layout(raw.corpus.is_some())
    .map_err(|(setting, message)| {
        ParseError::new(
            path,
            line_of(text, start(setting)),
            ParseErrorKind::Invalid(message),
        )
    })
}

/// The pool depth a manifest gets when it names none (TREC Deep Learning's).
pub const DEFAULT_POOL_DEPTH: usize = 10;

impl TaskManifest {
    /// Reads `task.toml`. Relative paths in it are taken relative to its folder.
    ///
    /// # Errors
    /// A [`ParseError`] with the line of a TOML error, an unknown key, a name that cannot be
    /// part of a file name ([`check_file_name`]), a relevance level below 1, or an invalid pool
    /// depth.
    pub fn read(path: &Path) -> Result<Self, ParseError> {
        let text = crate::io::gz::read_to_string(path)?;
        let raw: RawManifest = toml::from_str(&text).map_err(|error| {
            let line = error
                .span()
                .map(|span| line_of(&text, span.start))
                .unwrap_or(0);
            ParseError::new(
                path,
                line,
                ParseErrorKind::Invalid(format!(
                    "expected a task manifest (see docs/formats.md#task-manifest): {}",
                    error.message()
                )),
            )
        })?;
        let corpus_layout = corpus_layout(&raw, path, &text)?;
        check_file_name("task name", raw.name.get_ref())
            .map_err(|kind| ParseError::new(path, line_of(&text, raw.name.span().start), kind))?;
        let relevance_level = match raw.relevance_level {
            None => MIN_RELEVANCE_LEVEL,
            Some(level) if *level.get_ref() < MIN_RELEVANCE_LEVEL => {
                return Err(ParseError::new(
                    path,
                    line_of(&text, level.span().start),
                    ParseErrorKind::Invalid(format!(
                        "expected relevance_level >= {MIN_RELEVANCE_LEVEL}, found {}",
                        level.get_ref()
                    )),
                ))
            }
            Some(level) => level.into_inner(),
        };
        let pool_depth = match raw.pool_depth {
            None => PoolDepth::Fixed(DEFAULT_POOL_DEPTH),
            Some(RawPoolDepth::Depth(0)) => {
                return Err(ParseError::file(
                    path,
                    ParseErrorKind::Invalid("expected pool_depth >= 1 or \"auto\"".into()),
                ))
            }
            Some(RawPoolDepth::Depth(depth)) => PoolDepth::Fixed(depth),
            Some(RawPoolDepth::Word(word)) if word == "auto" => PoolDepth::Auto,
            Some(RawPoolDepth::Word(word)) => {
                return Err(ParseError::file(
                    path,
                    ParseErrorKind::Invalid(format!(
                        "expected pool_depth to be a number or \"auto\", found {word:?}"
                    )),
                ))
            }
        };
        if raw.runs.is_some() != raw.teams.is_some() {
            return Err(ParseError::file(
                path,
                ParseErrorKind::Invalid(
                    "expected both runs and teams (a team for every run), or neither".into(),
                ),
            ));
        }
        let folder = path.parent().unwrap_or(Path::new("."));
        let resolve = |relative: PathBuf| folder.join(relative);
        Ok(Self {
            path: Some(path.to_path_buf()),
            name: raw.name.into_inner(),
            runs: raw.runs.map(resolve),
            teams: raw.teams.map(resolve),
            qrels: resolve(raw.qrels),
            topics: raw.topics.map(resolve),
            corpus: raw.corpus.map(resolve),
            corpus_layout,
            feature_store: raw.feature_store.map(resolve),
            relevance_level,
            pool_depth,
            truth: raw.truth.map(resolve),
            labels: raw.labels.map(resolve),
        })
    }
}

/// A loaded task: every input read and checked against the others.
#[derive(Debug, Clone)]
pub struct Task {
    /// What the task was loaded from.
    pub manifest: TaskManifest,
    /// The runs, in run file name order.
    pub runs: Vec<Run>,
    /// Team and pooled flag of every run.
    pub teams: Teams,
    /// The official qrels.
    pub qrels: Qrels,
    /// Topic texts, if the task has them.
    pub topics: Option<Topics>,
    /// Complete truth qrels, if the task has them.
    pub truth: Option<Qrels>,
    /// The pool depth, with `auto` resolved.
    pub pool_depth: usize,
}

impl Task {
    /// Reads every input the manifest names (the corpus stays on disk: it is streamed by the
    /// judge) and checks that every run has a team.
    ///
    /// # Errors
    /// Any input's [`ParseError`]; [`Error::Invalid`] as [`Task::from_parts`].
    pub fn load(manifest: TaskManifest) -> Result<Self> {
        let (runs, teams) = match (&manifest.runs, &manifest.teams) {
            (Some(runs), Some(teams)) => {
                (read_runs(std::slice::from_ref(runs))?, read_teams(teams)?)
            }
            _ => (Vec::new(), Teams::default()),
        };
        let qrels = read_qrels(&manifest.qrels)?;
        let topics = manifest.topics.as_deref().map(read_topics).transpose()?;
        let truth = manifest.truth.as_deref().map(read_qrels).transpose()?;
        Self::from_parts(manifest, runs, teams, qrels, topics, truth)
    }

    /// A task from inputs already in memory (a Python binding's data frames), checked as
    /// [`Task::load`] checks what it reads. Of `manifest`, only the name, the corpus path, the
    /// relevance level and the pool depth are used; its `runs` and `teams` paths name the
    /// inputs in error messages.
    ///
    /// # Errors
    /// [`Error::Invalid`] when a run has no team entry or two runs carry the same tag.
    pub fn from_parts(
        manifest: TaskManifest,
        runs: Vec<Run>,
        teams: Teams,
        qrels: Qrels,
        topics: Option<Topics>,
        truth: Option<Qrels>,
    ) -> Result<Self> {
        let runs_folder = manifest.runs.as_deref().unwrap_or(Path::new("runs"));
        let teams_file = manifest.teams.as_deref().unwrap_or(Path::new("teams"));
        let mut tags: Vec<&str> = runs.iter().map(|run| run.tag.as_str()).collect();
        tags.sort_unstable();
        if let Some(pair) = tags.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(Error::Invalid(format!(
                "{}: two run files carry the tag {:?}",
                runs_folder.display(),
                pair[0]
            )));
        }
        if let Some(run) = runs.iter().find(|run| teams.get(&run.tag).is_none()) {
            return Err(Error::Invalid(format!(
                "{}: expected a team for run {:?} (read from {})",
                teams_file.display(),
                run.tag,
                run.path.display()
            )));
        }
        let is_pooled = |run: &&Run| teams.get(&run.tag).is_some_and(|entry| entry.is_pooled);
        let pool_depth = match manifest.pool_depth {
            PoolDepth::Fixed(depth) => depth,
            PoolDepth::Auto => {
                let pooled: Vec<&Run> = runs.iter().filter(is_pooled).collect();
                fully_judged_depth(&pooled, &qrels)
            }
        };
        Ok(Self {
            manifest,
            runs,
            teams,
            qrels,
            topics,
            truth,
            pool_depth,
        })
    }

    /// Loads the task described by the manifest at `path`.
    ///
    /// # Errors
    /// As [`TaskManifest::read`] and [`Task::load`].
    pub fn open(path: &Path) -> Result<Self> {
        Self::load(TaskManifest::read(path)?)
    }

    /// The runs that contributed to the official pool.
    pub fn pooled_runs(&self) -> impl Iterator<Item = &Run> {
        self.runs.iter().filter(|run| {
            self.teams
                .get(&run.tag)
                .is_some_and(|entry| entry.is_pooled)
        })
    }

    /// The team of a run of this task.
    ///
    /// # Panics
    /// When `run_tag` is not a run of the task (every run has a team, checked at load time).
    pub fn team_of(&self, run_tag: &str) -> &str {
        &self
            .teams
            .get(run_tag)
            .expect("every task run has a team")
            .team
    }
}

/// The largest depth `k` such that, on every judged topic, every given run's top `k` documents
/// in pooling order (ties by docno ascending, as NIST pooled) are all judged: the pool depth of
/// a collection built from those runs.
pub fn fully_judged_depth(runs: &[&Run], qrels: &Qrels) -> usize {
    let mut depth = usize::MAX;
    for run in runs {
        for ranking in &run.topics {
            let Some(judgments) = qrels.topic(&ranking.topic) else {
                continue;
            };
            let judged_prefix = ranking
                .pooling_order()
                .into_iter()
                .take_while(|doc| judgments.grade(&doc.docid).is_some())
                .count();
            if judged_prefix < ranking.docs.len() {
                depth = depth.min(judged_prefix);
            }
        }
    }
    if depth == usize::MAX {
        runs.iter()
            .flat_map(|run| run.topics.iter().map(|topic| topic.docs.len()))
            .max()
            .unwrap_or(0)
    } else {
        depth
    }
}

#[cfg(test)]
#[path = "task_tests.rs"]
mod tests;
