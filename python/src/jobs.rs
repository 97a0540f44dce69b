//! The jobs, as the library's jobs layer (`reusesim::jobs`) runs them for the command line:
//! evaluate runs, compare them, measure how far two qrels agree, run a leave-team-out study, judge once, complete the qrels, audit runs,
//! backtest the audit, draw a study's figures. Each takes its options as one JSON object (the
//! Python keywords given, by the options' names); an option left out takes the job's default,
//! the same as the command line's. This file only converts the inputs and the results.

use std::path::PathBuf;

use pyo3::prelude::*;
use reusesim::jobs;
use reusesim::jobs::options::from_json;
use reusesim::sim::lock::FolderAccess;

use crate::data::{qrels_columns, Qrels, Runs, Task};
use crate::errors::to_py_err;
use crate::work;

/// Every job's default options, as a JSON object keyed by the job's name.
#[pyfunction]
fn job_defaults() -> String {
    jobs::options::all_defaults()
}

/// The measures that one piece of `specs` names alone, as (trec_eval's name, the piece as
/// written): how to give results back under the caller's spelling.
#[pyfunction]
fn measure_spellings(specs: Vec<String>) -> Vec<(String, String)> {
    (reusesim::eval::selection::spelled_alone(&specs).into_iter())
        .map(|(measure, spelling)| (measure.to_string(), spelling))
        .collect()
}

/// The rows of an evaluation: run tag, measure, topic (or `all`) and value, as four columns.
type EvaluationColumns = (Vec<String>, Vec<String>, Vec<String>, Vec<f64>);

/// Scores `runs` against `qrels` with the `eval` job's `options`. Returns the rows as four
/// columns, per topic first when `per_topic`, and the warnings.
#[pyfunction]
fn evaluate(
    py: Python<'_>,
    qrels: &Qrels,
    runs: &Runs,
    options: &str,
) -> PyResult<(EvaluationColumns, Vec<String>)> {
    let options: jobs::eval::EvaluateOptions = from_json(options).map_err(to_py_err)?;
    let plan = (options.plan(jobs::eval::Listing::Scores)).map_err(to_py_err)?;
    let evaluated = py
        .detach(|| plan.evaluate(&qrels.qrels, &runs.runs))
        .map_err(to_py_err)?;
    let names: Vec<String> = (evaluated.selection.measures.iter())
        .map(ToString::to_string)
        .collect();
    let mut columns: EvaluationColumns = Default::default();
    let mut push = |tag: &str, topic: &str, values: &[f64]| {
        for (name, &value) in names.iter().zip(values) {
            columns.0.push(tag.to_string());
            columns.1.push(name.clone());
            columns.2.push(topic.to_string());
            columns.3.push(value);
        }
    };
    for evaluation in &evaluated.evaluations {
        if options.per_topic {
            for (topic, values) in &evaluation.topics {
                push(&evaluation.tag, topic, values);
            }
        }
        push(&evaluation.tag, "all", &evaluation.summary);
    }
    let warnings = (evaluated.evaluations.iter())
        .flat_map(|evaluation| &evaluation.warnings)
        .map(ToString::to_string)
        .collect();
    Ok((columns, warnings))
}

/// Compares `runs` scored against `qrels` with the `compare` job's `options`. Returns the
/// comparison as `reusesim compare --format json` prints it, and the warnings.
#[pyfunction]
fn compare(
    py: Python<'_>,
    qrels: &Qrels,
    runs: &Runs,
    options: &str,
) -> PyResult<(String, Vec<String>)> {
    let options: jobs::compare::CompareOptions = from_json(options).map_err(to_py_err)?;
    let plan = options.plan().map_err(to_py_err)?;
    let compared = py
        .detach(|| plan.compare(&qrels.qrels, &runs.runs))
        .map_err(to_py_err)?;
    let mut json = Vec::new();
    reusesim::report::compare::write_comparison(
        &mut json,
        reusesim::report::compare::CompareFormat::Json,
        &compared.comparison,
    )?;
    let warnings = compared.warnings.iter().map(ToString::to_string).collect();
    Ok((
        String::from_utf8(json).expect("JSON is written as UTF-8"),
        warnings,
    ))
}

/// Compares qrels A and B, named `names` in the record (and, with two runs or more, the
/// leaderboards they give) with the `agree` job's `options`. Returns the agreement as
/// `reusesim agree --format json` prints it, and the warnings.
#[pyfunction]
#[pyo3(signature = (qrels_a, qrels_b, names, runs, options, threads))]
fn agree(
    py: Python<'_>,
    qrels_a: &Qrels,
    qrels_b: &Qrels,
    names: (String, String),
    runs: Option<&Runs>,
    options: &str,
    threads: Option<usize>,
) -> PyResult<(String, Vec<String>)> {
    let options: jobs::agree::AgreeOptions = from_json(options).map_err(to_py_err)?;
    let plan = options.plan().map_err(to_py_err)?;
    let runs = runs.map_or(&[][..], |runs| &runs.runs[..]);
    let qrels = [
        (names.0.as_str(), &qrels_a.qrels),
        (names.1.as_str(), &qrels_b.qrels),
    ];
    // The agreement reports no progress: Ctrl-C takes effect when it ends.
    let agreed = work::run(py, threads, None, |_| plan.agree(qrels, runs))?;
    let mut json = Vec::new();
    reusesim::report::agree::write_agreement(
        &mut json,
        reusesim::report::agree::AgreeFormat::Json,
        &agreed.agreement,
    )?;
    let warnings = agreed.warnings.iter().map(ToString::to_string).collect();
    Ok((
        String::from_utf8(json).expect("JSON is written as UTF-8"),
        warnings,
    ))
}

/// Runs the leave-team-out study of `task` with the `simulate` job's `options` and writes
/// every output into `out_dir`, as `reusesim simulate --out` does.
#[pyfunction]
#[pyo3(signature = (task, out_dir, options, threads, progress))]
fn simulate(
    py: Python<'_>,
    task: &Task,
    out_dir: PathBuf,
    options: &str,
    threads: Option<usize>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let options: jobs::simulate::SimulateOptions = from_json(options).map_err(to_py_err)?;
    work::run(py, threads, progress, |progress| {
        let report = progress.callback();
        jobs::simulate::simulate(&task.task, &options, &out_dir, FolderAccess::FRESH, &report)
            .map(drop)
    })
}

/// The qrels as three columns: topic, document and grade.
type QrelsColumns = (Vec<String>, Vec<String>, Vec<i32>);

/// Replays the judging of `task` once with the `judge` job's `options`. Returns the simulated
/// qrels as columns, the trace as TSV text (`topic step batch docid score grade official`),
/// the number of topics whose pool alone exceeded the budget, and the number of retrains.
#[pyfunction]
#[pyo3(signature = (task, options, threads, progress))]
fn judge(
    py: Python<'_>,
    task: &Task,
    options: &str,
    threads: Option<usize>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<(QrelsColumns, String, usize, usize)> {
    let options: jobs::judge::JudgeJobOptions = from_json(options).map_err(to_py_err)?;
    work::run(py, threads, progress, |progress| {
        let report = progress.callback();
        let judging = jobs::judge::judge(&task.task, &options, &report)?;
        Ok((
            qrels_columns(&judging.qrels),
            String::from_utf8(judging.trace).expect("the trace is written as UTF-8"),
            judging.pools_over_budget,
            judging.retrains,
        ))
    })
}

/// One seed's completed qrels of `task` with the `complete` job's `options`. Returns the qrels
/// as columns and each judgment's source (`official` or `drawn`).
#[pyfunction]
#[pyo3(signature = (task, options, threads))]
fn complete(
    py: Python<'_>,
    task: &Task,
    options: &str,
    threads: Option<usize>,
) -> PyResult<(QrelsColumns, Vec<&'static str>)> {
    let options: jobs::complete::CompleteOptions = from_json(options).map_err(to_py_err)?;
    let task = &task.task;
    work::run(py, threads, None, |_| {
        let completed = jobs::complete::complete(task, &options)?;
        let (topics, docs, grades) = qrels_columns(&completed.qrels);
        let sources = (topics.iter().zip(&docs))
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

/// Audits `runs` (one or several) together against `task` with the `audit` job's `options`.
/// Returns the report as JSON text (the fields of `reusesim audit --format json`) and the
/// warnings.
#[pyfunction]
#[pyo3(signature = (task, runs, options, threads))]
fn audit(
    py: Python<'_>,
    task: &Task,
    runs: &Runs,
    options: &str,
    threads: Option<usize>,
) -> PyResult<(String, Vec<String>)> {
    let options: jobs::audit::AuditOptions = from_json(options).map_err(to_py_err)?;
    let (task, runs) = (task.task.clone(), runs.runs.clone());
    // The audit reports no progress: Ctrl-C takes effect when it ends.
    work::run(py, threads, None, |_| {
        let (report, warnings) = jobs::audit::audit(task, runs, &options)?;
        let json = serde_json::to_string(&report).expect("the audit report serialises");
        Ok((json, warnings.iter().map(ToString::to_string).collect()))
    })
}

/// Backtests the audit on `task` with the `backtest` job's `options` and writes its files into
/// `out_dir`, as `reusesim backtest --out` does. Returns the summary as JSON text.
#[pyfunction]
#[pyo3(signature = (task, out_dir, options, threads, progress))]
fn backtest(
    py: Python<'_>,
    task: &Task,
    out_dir: PathBuf,
    options: &str,
    threads: Option<usize>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let options: jobs::backtest::BacktestOptions = from_json(options).map_err(to_py_err)?;
    work::run(py, threads, progress, |progress| {
        let report = progress.callback();
        let (summary, _) = jobs::backtest::backtest(&task.task, &options, &out_dir, &report)?;
        Ok(serde_json::to_string(&summary).expect("the backtest summary serialises"))
    })
}

/// Draws a study's figures, or writes its page, from its results folder with the `plot` job's
/// `options`; returns the files written.
#[pyfunction]
fn plot(py: Python<'_>, results_dir: PathBuf, options: &str) -> PyResult<Vec<PathBuf>> {
    let options: jobs::plot::PlotOptions = from_json(options).map_err(to_py_err)?;
    py.detach(|| jobs::plot::plot(&results_dir, &options))
        .map(|(written, _)| written)
        .map_err(to_py_err)
}

/// Registers the jobs in the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(job_defaults, module)?)?;
    module.add_function(wrap_pyfunction!(measure_spellings, module)?)?;
    module.add_function(wrap_pyfunction!(evaluate, module)?)?;
    module.add_function(wrap_pyfunction!(compare, module)?)?;
    module.add_function(wrap_pyfunction!(agree, module)?)?;
    module.add_function(wrap_pyfunction!(simulate, module)?)?;
    module.add_function(wrap_pyfunction!(judge, module)?)?;
    module.add_function(wrap_pyfunction!(complete, module)?)?;
    module.add_function(wrap_pyfunction!(audit, module)?)?;
    module.add_function(wrap_pyfunction!(backtest, module)?)?;
    module.add_function(wrap_pyfunction!(plot, module)?)?;
    Ok(())
}
