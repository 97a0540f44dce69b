//! The jobs, as the command line runs them: evaluate runs, run a leave-team-out study, judge
//! once, audit a run, draw a study's figures. Python keyword values are mapped into the
//! library's settings types here (as `src/cli.rs` maps the command line); an option left as
//! `None` takes the library's default (HiCAL's settings, the task's pool depth). Functions
//! take one argument per Python keyword, hence `clippy::too_many_arguments` allowances.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use reusesim::audit::{AuditRules, AuditSettings, StudySource};
use reusesim::base::choice::Choice;
use reusesim::collection::{Collection, FeatureChoice};
use reusesim::eval::{self, EvalOptions, Evaluator};
use reusesim::judge::settings::JudgeSettings;
use reusesim::judge::strategies::Strategy;
use reusesim::relevance_model::trials::AbsenceSource;
use reusesim::report::plots::FigureFormat;
use reusesim::report::PlotFormat;
use reusesim::sim::analysis::files::{to_qrels, write_traces};
use reusesim::sim::assessor::StudyAssessor;
use reusesim::sim::lock::FolderAccess;
use reusesim::sim::settings::{
    check_budget_fractions, check_strategies, AssessorChoice, OFFICIAL_BUDGET_ONLY,
};
use reusesim::sim::study::StudySettings;

use crate::data::{qrels_columns, Qrels, Runs, Task};
use crate::errors::to_py_err;
use crate::work;

/// The variant of a named library setting, or `ValueError` listing the names.
fn choice<T: Choice>(setting: &str, name: Option<&str>, default: T) -> reusesim::Result<T> {
    let Some(name) = name else {
        return Ok(default);
    };
    T::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = T::ALL.iter().map(|variant| variant.name()).collect();
        reusesim::Error::Invalid(format!(
            "expected {setting} to be one of {}, found {name:?}",
            names.join(", ")
        ))
    })
}

/// Scores `runs` against `qrels`. Returns the rows (run tag, measure, topic or `all`, value)
/// as four columns, per topic first when `per_topic`, and the warnings.
#[pyfunction]
#[pyo3(signature = (qrels, runs, measures, relevance_level, complete, max_docs, per_topic))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn evaluate(
    py: Python<'_>,
    qrels: &Qrels,
    runs: &Runs,
    measures: Vec<String>,
    relevance_level: i32,
    complete: bool,
    max_docs: Option<usize>,
    per_topic: bool,
) -> PyResult<(
    (Vec<String>, Vec<String>, Vec<String>, Vec<f64>),
    Vec<String>,
)> {
    let options = EvalOptions {
        measures: eval::parse_measures(&measures).map_err(to_py_err)?,
        relevance_level: reusesim::base::relevance::check_relevance_level(relevance_level)
            .map_err(to_py_err)?,
        complete,
        max_docs,
        relstring: None,
    };
    let evaluator = Evaluator::new(&qrels.qrels, options);
    let evaluations = py.detach(|| eval::evaluate_runs(&evaluator, &runs.runs));
    let names: Vec<String> = evaluator
        .options()
        .measures
        .iter()
        .map(ToString::to_string)
        .collect();
    let mut columns = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut push = |tag: &str, topic: &str, values: &[f64]| {
        for (name, &value) in names.iter().zip(values) {
            columns.0.push(tag.to_string());
            columns.1.push(name.clone());
            columns.2.push(topic.to_string());
            columns.3.push(value);
        }
    };
    for evaluation in &evaluations {
        if per_topic {
            for (topic, values) in &evaluation.topics {
                push(&evaluation.tag, topic, values);
            }
        }
        push(&evaluation.tag, "all", &evaluation.summary);
    }
    let warnings = evaluations
        .iter()
        .flat_map(|evaluation| &evaluation.warnings)
        .map(ToString::to_string)
        .collect();
    Ok((columns, warnings))
}

/// The judge's options as Python passes them (a dict); `None` keeps the library's default.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct JudgeOptions {
    features: Option<String>,
    learner: Option<String>,
    iterations: Option<usize>,
    precision: Option<String>,
    schedule: Option<String>,
    candidates: Option<String>,
    pool_depth: Option<usize>,
    budget: Option<usize>,
    withhold: Option<String>,
    unique_depth: Option<usize>,
    train_level: Option<i32>,
    carried: Option<String>,
    assessor: Option<String>,
}

impl JudgeOptions {
    /// The judge settings for `task` (trial seed `seed`) and whether text features are used.
    fn settings(
        &self,
        task: &reusesim::io::task::Task,
        seed: u64,
    ) -> reusesim::Result<(JudgeSettings, bool)> {
        let hical = JudgeSettings::hical(self.pool_depth.unwrap_or(task.pool_depth));
        let features = choice("features", self.features.as_deref(), FeatureChoice::Auto)?;
        let candidates = choice("candidates", self.candidates.as_deref(), hical.candidates)?;
        let use_text = reusesim::judge::resolve_features(task, features, candidates)?;
        let settings = JudgeSettings {
            seed,
            learner: choice("learner", self.learner.as_deref(), hical.learner)?,
            iterations: self.iterations.unwrap_or(hical.iterations),
            precision: choice("precision", self.precision.as_deref(), hical.precision)?,
            schedule: choice("schedule", self.schedule.as_deref(), hical.schedule)?,
            candidates,
            withhold: choice("withhold", self.withhold.as_deref(), hical.withhold)?,
            unique_depth: self.unique_depth,
            train_level: self.train_level.unwrap_or(hical.train_level),
            carried: choice("carried", self.carried.as_deref(), hical.carried)?,
            ..hical
        };
        Ok((settings.check()?, use_text))
    }

    /// The simulated assessor (`official` when not given).
    fn assessor(&self) -> AssessorChoice {
        self.assessor
            .as_deref()
            .map_or(AssessorChoice::Official, AssessorChoice::parse)
    }
}

/// The judging strategies called `names`, checked as the command line checks them.
fn strategy_list(names: &[String]) -> reusesim::Result<Vec<Strategy>> {
    let strategies = (names.iter())
        .map(|name| choice("strategy", Some(name), Strategy::Hical))
        .collect::<reusesim::Result<Vec<_>>>()?;
    check_strategies(&strategies)
}

/// Runs the leave-team-out study of `task` and writes every output (`summary.json`, the
/// tables, `report.md`, the figures) into `out_dir`, as `reusesim simulate --out` does.
#[pyfunction]
#[pyo3(signature = (task, out_dir, seeds, measures, teams, keep_qrels, judge, threads, progress, budget_fractions=None, strategies=None))]
#[allow(clippy::too_many_arguments)]
fn simulate(
    py: Python<'_>,
    task: &Task,
    out_dir: PathBuf,
    seeds: u64,
    measures: Vec<String>,
    teams: Option<Vec<String>>,
    keep_qrels: bool,
    judge: JudgeOptions,
    threads: Option<usize>,
    progress: Option<&Bound<'_, PyAny>>,
    budget_fractions: Option<Vec<f64>>,
    strategies: Option<Vec<String>>,
) -> PyResult<()> {
    let task = &task.task;
    if seeds == 0 {
        return Err(PyValueError::new_err("expected at least 1 seed, found 0"));
    }
    let (judge_settings, use_text) = judge.settings(task, 0).map_err(to_py_err)?;
    let settings = StudySettings {
        seeds,
        measures: eval::parse_measures(&measures).map_err(to_py_err)?,
        teams,
        judge: judge_settings,
        budget: judge.budget,
        keep_qrels,
        budget_fractions: check_budget_fractions(
            &budget_fractions.unwrap_or_else(|| OFFICIAL_BUDGET_ONLY.to_vec()),
        )
        .map_err(to_py_err)?,
        strategies: strategy_list(&strategies.unwrap_or_default()).map_err(to_py_err)?,
        assessor: judge.assessor(),
    };
    work::run(py, threads, progress, |progress| {
        let report = |done, total| progress.report(done, total);
        reusesim::report::simulate(
            task,
            &settings,
            use_text,
            &out_dir,
            FolderAccess::FRESH,
            &report,
        )
        .map(drop)
    })
}

/// Replays the judging of `task` once (seed `seed`, the teams of `leave_out` held out).
/// Returns the simulated qrels as columns, the trace as TSV text (`topic step batch docid score
/// grade official`), the number of topics whose pool alone exceeded the budget, and the
/// number of retrains.
#[pyfunction]
#[pyo3(signature = (task, seed, leave_out, judge, threads, progress))]
#[allow(clippy::type_complexity)]
fn judge(
    py: Python<'_>,
    task: &Task,
    seed: u64,
    leave_out: Vec<String>,
    judge: JudgeOptions,
    threads: Option<usize>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<((Vec<String>, Vec<String>, Vec<i32>), String, usize, usize)> {
    let task = &task.task;
    let excluded_runs = reusesim::judge::excluded_runs(task, &leave_out).map_err(to_py_err)?;
    let (settings, use_text) = judge.settings(task, seed).map_err(to_py_err)?;
    work::run(py, threads, progress, |progress| {
        let collection = Collection::prepare(task, &task.qrels, use_text)?;
        let assessor = judge.assessor();
        let prepared =
            StudyAssessor::prepare(&collection, &assessor, settings.pool_depth, &[seed])?;
        let topics = collection.topics.len();
        let started = AtomicUsize::new(0);
        // The budget is asked for as each topic starts: the moment to report and to stop.
        let judgings = reusesim::judge::cal::judge_trial(
            &collection,
            &excluded_runs,
            |topic| {
                progress.report(started.fetch_add(1, Ordering::Relaxed), topics);
                judge.budget.unwrap_or(topic.grades.len())
            },
            &settings,
            &prepared.for_seed(&collection, seed),
        )?;
        progress.report(topics, topics);
        let qrels = to_qrels(&collection, &judgings);
        let mut trace = Vec::new();
        let with_sources = !assessor.is_official();
        write_traces(&mut trace, &collection, &judgings, with_sources).map_err(|source| {
            reusesim::Error::Write {
                path: PathBuf::from("<trace>"),
                source,
            }
        })?;
        Ok((
            qrels_columns(&qrels),
            String::from_utf8(trace).expect("the trace is written as UTF-8"),
            judgings.iter().filter(|j| j.is_pool_over_budget).count(),
            judgings.iter().map(|j| j.retrains).sum(),
        ))
    })
}

/// Seed `seed`'s completed qrels of `task` (as `reusesim complete`): the official qrels, then
/// a grade drawn from the calibrated relevance model for every document a run retrieved that
/// they never judged. Returns the qrels as columns and each judgment's source (`official` or
/// `drawn`).
#[pyfunction]
#[pyo3(signature = (task, seed, features, pool_depth, threads))]
#[allow(clippy::type_complexity)]
fn complete(
    py: Python<'_>,
    task: &Task,
    seed: u64,
    features: Option<String>,
    pool_depth: Option<usize>,
    threads: Option<usize>,
) -> PyResult<((Vec<String>, Vec<String>, Vec<i32>), Vec<&'static str>)> {
    let task = &task.task;
    let features =
        choice("features", features.as_deref(), FeatureChoice::Auto).map_err(to_py_err)?;
    let use_text = reusesim::judge::resolve_features(
        task,
        features,
        reusesim::collection::CandidateSource::Retrieved,
    )
    .map_err(to_py_err)?;
    let pool_depth = pool_depth.unwrap_or(task.pool_depth);
    work::run(py, threads, None, |_| {
        let collection = Collection::prepare(task, &task.qrels, use_text)?;
        let completed = reusesim::sim::assessor::completed_qrels(&collection, pool_depth, seed)?;
        let (topics, docs, grades) = qrels_columns(&completed.qrels);
        let sources = topics
            .iter()
            .zip(&docs)
            .map(
                |(topic, doc)| match task.qrels.topic(topic).and_then(|t| t.grade(doc)) {
                    Some(_) => "official",
                    None => "drawn",
                },
            )
            .collect();
        Ok(((topics, docs, grades), sources))
    })
}

/// Audits `runs` (one or several) together against `task`, and again with the returned
/// judgments of `judged` when given. Returns the report as JSON text (the fields of `reusesim
/// audit --format json`) and the warnings.
#[pyfunction]
#[pyo3(signature = (task, runs, measures, features, budget, study_seeds, results, evidence, judged, override_official, threads))]
#[allow(clippy::too_many_arguments)]
fn audit(
    py: Python<'_>,
    task: &Task,
    runs: &Runs,
    measures: Vec<String>,
    features: Option<String>,
    budget: Option<usize>,
    study_seeds: Option<u64>,
    results: Option<PathBuf>,
    evidence: Option<String>,
    judged: Option<PathBuf>,
    override_official: bool,
    threads: Option<usize>,
) -> PyResult<(String, Vec<String>)> {
    let study = match (
        results,
        study_seeds.unwrap_or(reusesim::audit::SPOT_STUDY_SEEDS),
    ) {
        (Some(dir), _) => StudySource::Results(dir),
        (None, 0) => StudySource::Skip,
        (None, seeds) => StudySource::OnTheSpot { seeds },
    };
    let settings = AuditSettings {
        measures: eval::parse_measures(&measures).map_err(to_py_err)?,
        features: choice("features", features.as_deref(), FeatureChoice::Auto)
            .map_err(to_py_err)?,
        rules: AuditRules {
            budget,
            ..AuditRules::default()
        },
        study,
        evidence: choice("evidence", evidence.as_deref(), AbsenceSource::Pool)
            .map_err(to_py_err)?,
    };
    let judged = judged
        .as_deref()
        .map(reusesim::audit::read_judged)
        .transpose()
        .map_err(to_py_err)?;
    let (task, runs) = (task.task.clone(), runs.runs.clone());
    // The audit reports no progress: Ctrl-C takes effect when it ends.
    work::run(py, threads, None, |_| {
        let (report, warnings) = match &judged {
            Some(judged) => reusesim::audit::audit_with_judgments(
                task,
                runs,
                &settings,
                (judged, override_official),
            )?,
            None => reusesim::audit::audit_runs(task, runs, &settings)?,
        };
        let json = serde_json::to_string(&report).expect("the audit report serialises");
        Ok((json, warnings.iter().map(ToString::to_string).collect()))
    })
}

/// Backtests the audit on `task` in `world` (`classic`, `simulated` or `deeper`) and writes
/// `backtest.tsv`, `backtest.json` and the figures into `out_dir`, as `reusesim backtest
/// --out` does. Returns the summary as JSON text.
#[pyfunction]
#[pyo3(signature = (task, out_dir, world, results, seed, iterations, measures, teams, features, evidence, truth_qrels, runs, threads, progress))]
#[allow(clippy::too_many_arguments)]
fn backtest(
    py: Python<'_>,
    task: &Task,
    out_dir: PathBuf,
    world: &str,
    results: Option<PathBuf>,
    seed: u64,
    iterations: usize,
    measures: Vec<String>,
    teams: Option<Vec<String>>,
    features: Option<String>,
    evidence: Option<String>,
    truth_qrels: Option<PathBuf>,
    runs: Option<Vec<String>>,
    threads: Option<usize>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    use reusesim::backtest::{BacktestSettings, BacktestSummary, TrialSource, World};
    let task = &task.task;
    let trials = match results {
        Some(dir) => TrialSource::Results { dir, seed },
        None => TrialSource::Study(
            JudgeSettings {
                iterations,
                ..JudgeSettings::hical(task.pool_depth)
            }
            .check()
            .map_err(to_py_err)?,
        ),
    };
    let world: World = choice("world", Some(world), World::Classic).map_err(to_py_err)?;
    let settings = BacktestSettings {
        world,
        measures: eval::parse_measures(&measures).map_err(to_py_err)?,
        features: choice("features", features.as_deref(), FeatureChoice::Auto)
            .map_err(to_py_err)?,
        rules: AuditRules {
            beyond_pool: world.beyond_pool(),
            ..AuditRules::default()
        },
        teams,
        trials,
        evidence: choice("evidence", evidence.as_deref(), world.default_evidence())
            .map_err(to_py_err)?,
        truth_qrels,
        runs,
    }
    .check()
    .map_err(to_py_err)?;
    work::run(py, threads, progress, |progress| {
        let started = std::time::Instant::now();
        let report = |_: &str, done, total| progress.report(done, total);
        let outcome = reusesim::backtest::run_backtest(task, &settings, &report)?;
        let summary =
            BacktestSummary::new(&outcome, &settings.rules, started.elapsed().as_secs_f64());
        reusesim::backtest::files::write_outputs(&out_dir, &outcome, &summary, FigureFormat::Both)?;
        Ok(serde_json::to_string(&summary).expect("the backtest summary serialises"))
    })
}

/// Draws a study's figures, or with `html` writes its page `report.html`, from its results
/// folder into `out_dir`; returns the files written.
#[pyfunction]
fn plot(
    py: Python<'_>,
    results_dir: PathBuf,
    out_dir: PathBuf,
    format: &str,
) -> PyResult<Vec<PathBuf>> {
    let format = choice("format", Some(format), PlotFormat::Both).map_err(to_py_err)?;
    py.detach(|| match format.figures() {
        Some(figures) => reusesim::report::plots::plot_results(&results_dir, &out_dir, figures),
        None => reusesim::report::write_results_page(&results_dir, &out_dir).map(|page| vec![page]),
    })
    .map_err(to_py_err)
}

/// Registers the jobs in the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(evaluate, module)?)?;
    module.add_function(wrap_pyfunction!(simulate, module)?)?;
    module.add_function(wrap_pyfunction!(judge, module)?)?;
    module.add_function(wrap_pyfunction!(complete, module)?)?;
    module.add_function(wrap_pyfunction!(audit, module)?)?;
    module.add_function(wrap_pyfunction!(backtest, module)?)?;
    module.add_function(wrap_pyfunction!(plot, module)?)?;
    Ok(())
}
