//! The inputs as the library holds them, wrapped for Python: qrels, a list of runs and a task.
//! They are built from files (read by the library's readers) or from columns of records that
//! the Python side extracted from a data frame, a pytrec_eval dict or an ir_datasets iterator
//! (checked and ordered by the library's record constructors, with the same rules as files).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use pyo3::prelude::*;
use reusesim::io::corpus::settings::CorpusSettings;
use reusesim::io::qrels::Qrels as LibQrels;
use reusesim::io::run::Run;
use reusesim::io::task::{PoolDepth, Task as LibTask, TaskManifest};
use reusesim::io::teams::{TeamEntry, Teams};
use reusesim::io::topics::Topics;
use reusesim::{ParseError, ParseErrorKind};

use crate::errors::{parse_err, to_py_err};

/// Relevance judgments.
#[pyclass(frozen, module = "reusesim._native")]
pub struct Qrels {
    /// The judgments.
    pub qrels: LibQrels,
}

#[pymethods]
impl Qrels {
    /// Reads a qrels file (`qid iter docid grade`, plain or gzip).
    #[staticmethod]
    fn read(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let qrels = py
            .detach(|| reusesim::io::qrels::read_qrels(&path))
            .map_err(parse_err)?;
        Ok(Self { qrels })
    }

    /// Qrels from parallel columns; records are numbered from 1 after `source` in errors. A
    /// grade must be a whole number (`1` or `1.0`).
    #[staticmethod]
    fn from_records(
        source: PathBuf,
        query_ids: Vec<String>,
        doc_ids: Vec<String>,
        grades: Vec<f64>,
    ) -> PyResult<Self> {
        check_lengths(&source, &[query_ids.len(), doc_ids.len(), grades.len()])?;
        let grades = grades
            .iter()
            .enumerate()
            .map(|(index, &grade)| whole_grade(&source, index + 1, grade))
            .collect::<PyResult<Vec<_>>>()?;
        let records = query_ids
            .iter()
            .zip(&doc_ids)
            .zip(grades)
            .map(|((qid, docid), grade)| (qid.as_str(), docid.as_str(), grade));
        let qrels = LibQrels::from_records(&source, records).map_err(parse_err)?;
        Ok(Self { qrels })
    }

    /// The judgments as columns: (query ids, document ids, grades), topics and documents in
    /// byte order.
    fn columns(&self) -> (Vec<String>, Vec<String>, Vec<i32>) {
        qrels_columns(&self.qrels)
    }

    fn __len__(&self) -> usize {
        self.qrels.len()
    }
}

/// Qrels as columns: (query ids, document ids, grades), topics and documents in byte order.
pub fn qrels_columns(qrels: &LibQrels) -> (Vec<String>, Vec<String>, Vec<i32>) {
    let mut columns = (Vec::new(), Vec::new(), Vec::new());
    for (topic, judgments) in &qrels.topics {
        for (docid, grade) in judgments.judgments() {
            columns.0.push(topic.to_string());
            columns.1.push(docid.to_string());
            columns.2.push(grade);
        }
    }
    columns
}

fn whole_grade(source: &Path, record: usize, grade: f64) -> PyResult<i32> {
    let is_whole = grade.fract() == 0.0 && grade.abs() <= f64::from(i32::MAX);
    if is_whole {
        Ok(grade as i32)
    } else {
        Err(parse_err(ParseError::new(
            source,
            record,
            ParseErrorKind::Field {
                column: 4,
                expected: "an integer grade",
                found: grade.to_string(),
            },
        )))
    }
}

fn check_lengths(source: &Path, lengths: &[usize]) -> PyResult<()> {
    if lengths.windows(2).any(|pair| pair[0] != pair[1]) {
        return Err(parse_err(ParseError::file(
            source,
            ParseErrorKind::Invalid(format!(
                "expected columns of equal length, found lengths {lengths:?}"
            )),
        )));
    }
    Ok(())
}

/// Runs, in the order given.
#[pyclass(frozen, module = "reusesim._native")]
pub struct Runs {
    /// The runs.
    pub runs: Vec<Run>,
}

#[pymethods]
impl Runs {
    /// Reads run files, or folders of run files, in parallel.
    #[staticmethod]
    fn read(py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<Self> {
        let runs = py
            .detach(|| reusesim::io::run::read_runs(&paths))
            .map_err(parse_err)?;
        Ok(Self { runs })
    }

    /// Runs from parallel columns: one run per distinct run id, in order of first appearance.
    /// Each run's records are numbered from 1 after `source` (`source` plus the run id when
    /// there are several) in errors.
    #[staticmethod]
    fn from_records(
        py: Python<'_>,
        source: String,
        run_ids: Vec<String>,
        query_ids: Vec<String>,
        doc_ids: Vec<String>,
        scores: Vec<f64>,
    ) -> PyResult<Self> {
        let lengths = [run_ids.len(), query_ids.len(), doc_ids.len(), scores.len()];
        check_lengths(Path::new(&source), &lengths)?;
        let mut order: Vec<&str> = Vec::new();
        let mut records: HashMap<&str, Vec<(&str, &str, f64)>> = HashMap::new();
        for (((run_id, qid), docid), &score) in
            run_ids.iter().zip(&query_ids).zip(&doc_ids).zip(&scores)
        {
            let run_records = records.entry(run_id).or_insert_with(|| {
                order.push(run_id);
                Vec::new()
            });
            run_records.push((qid, docid, score));
        }
        let is_single = order.len() == 1;
        let runs = py.detach(|| {
            order
                .iter()
                .map(|&tag| {
                    let label = if is_single {
                        source.clone()
                    } else {
                        format!("{source}[run_id={tag}]")
                    };
                    let run_records = records[tag].iter().copied();
                    Run::from_records(tag, Path::new(&label), run_records)
                })
                .collect::<Result<Vec<_>, _>>()
        });
        Ok(Self {
            runs: runs.map_err(parse_err)?,
        })
    }

    /// The runs of several lists, in order.
    #[staticmethod]
    fn concat(parts: Vec<PyRef<'_, Runs>>) -> Self {
        Self {
            runs: parts
                .iter()
                .flat_map(|part| part.runs.iter().cloned())
                .collect(),
        }
    }

    /// The run tags, in order.
    #[getter]
    fn tags(&self) -> Vec<String> {
        self.runs.iter().map(|run| run.tag.clone()).collect()
    }

    fn __len__(&self) -> usize {
        self.runs.len()
    }
}

/// A loaded task (runs, teams, official qrels, topics, corpus), checked by the library.
#[pyclass(frozen, module = "reusesim._native")]
pub struct Task {
    /// The task.
    pub task: LibTask,
}

#[pymethods]
impl Task {
    /// Loads the task described by a `task.toml`.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let task = py.detach(|| LibTask::open(&path)).map_err(to_py_err)?;
        Ok(Self { task })
    }

    /// A task from parts already loaded. `teams` lists (run tag, team, pooled); `pool_depth`
    /// `None` is `auto` (the largest depth every pooled run has fully judged); the corpus
    /// settings and the feature store are `task.toml`'s (`None`: left out).
    #[staticmethod]
    #[pyo3(signature = (
        name, qrels, runs, teams, topics, corpus, relevance_level, pool_depth, truth,
        corpus_format=None, corpus_id_fields=None, corpus_text_fields=None, feature_store=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn from_parts(
        name: String,
        qrels: &Qrels,
        runs: Option<&Runs>,
        teams: Option<Vec<(String, String, bool)>>,
        topics: Option<BTreeMap<String, String>>,
        corpus: Option<PathBuf>,
        relevance_level: i32,
        pool_depth: Option<usize>,
        truth: Option<&Qrels>,
        corpus_format: Option<String>,
        corpus_id_fields: Option<Vec<String>>,
        corpus_text_fields: Option<Vec<String>>,
        feature_store: Option<PathBuf>,
    ) -> PyResult<Self> {
        let relevance_level =
            reusesim::base::relevance::check_relevance_level(relevance_level).map_err(to_py_err)?;
        let corpus_layout = CorpusSettings {
            format: corpus_format,
            id_fields: corpus_id_fields,
            text_fields: corpus_text_fields,
        }
        .layout(corpus.is_some())
        .map_err(|(_, message)| to_py_err(reusesim::Error::Invalid(message)))?;
        let mut team_entries = Teams::default();
        for (tag, team, is_pooled) in teams.unwrap_or_default() {
            team_entries.runs.insert(tag, TeamEntry { team, is_pooled });
        }
        let manifest = TaskManifest {
            path: None,
            name,
            runs: None,
            teams: None,
            qrels: PathBuf::from("<qrels>"),
            topics: None,
            corpus,
            corpus_layout,
            feature_store,
            relevance_level,
            pool_depth: pool_depth.map_or(PoolDepth::Auto, PoolDepth::Fixed),
            truth: None,
            labels: None,
        };
        let task = LibTask::from_parts(
            manifest,
            runs.map(|runs| runs.runs.clone()).unwrap_or_default(),
            team_entries,
            qrels.qrels.clone(),
            topics.map(|texts| Topics { texts }),
            truth.map(|truth| truth.qrels.clone()),
        )
        .map_err(to_py_err)?;
        Ok(Self { task })
    }

    /// The task's name.
    #[getter]
    fn name(&self) -> String {
        self.task.manifest.name.clone()
    }

    /// (run tag, team, pooled) of every run, in run order.
    #[getter]
    fn runs(&self) -> Vec<(String, String, bool)> {
        self.task
            .runs
            .iter()
            .map(|run| {
                let entry = self
                    .task
                    .teams
                    .get(&run.tag)
                    .expect("every task run has a team");
                (run.tag.clone(), entry.team.clone(), entry.is_pooled)
            })
            .collect()
    }

    /// The official qrels.
    #[getter]
    fn qrels(&self) -> Qrels {
        Qrels {
            qrels: self.task.qrels.clone(),
        }
    }

    /// The pool depth (`auto` resolved).
    #[getter]
    fn pool_depth(&self) -> usize {
        self.task.pool_depth
    }

    /// A grade >= this counts as relevant.
    #[getter]
    fn relevance_level(&self) -> i32 {
        self.task.manifest.relevance_level
    }

    /// The corpus file, if the task has one.
    #[getter]
    fn corpus(&self) -> Option<PathBuf> {
        self.task.manifest.corpus.clone()
    }

    /// The number of topics with topic texts (0 without).
    #[getter]
    fn topic_texts(&self) -> usize {
        self.task
            .topics
            .as_ref()
            .map_or(0, |topics| topics.texts.len())
    }
}

/// Reads a team file (`run_tag <TAB> team [<TAB> yes|no]`): (run tag, team, pooled) per run.
#[pyfunction]
pub fn read_teams(path: PathBuf) -> PyResult<Vec<(String, String, bool)>> {
    let teams = reusesim::io::teams::read_teams(&path).map_err(parse_err)?;
    Ok(teams
        .runs
        .into_iter()
        .map(|(tag, entry)| (tag, entry.team, entry.is_pooled))
        .collect())
}

/// Reads a topic file (`topic_id <TAB> text`, or TREC XML): topic id -> text.
#[pyfunction]
pub fn read_topics(path: PathBuf) -> PyResult<BTreeMap<String, String>> {
    let topics = reusesim::io::topics::read_topics(&path).map_err(parse_err)?;
    Ok(topics.texts)
}
