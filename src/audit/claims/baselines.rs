//! The baselines an audited run's claims are made against (`--against`): a task run by its
//! tag, a run file (which enters the task as an audited run does, not pooled, and is ranked
//! among its runs), or `best` (the task's best run by each audited measure) and `best:MEASURE`
//! (the task's best run by that measure, for every measure); and how claims are tested.

use std::path::Path;

use crate::base::error::{Context, Error, Result};
use crate::eval::{parse_measures, Measure};
use crate::io::run::{read_run, Run};
use crate::io::task::Task;
use crate::io::teams::TeamEntry;
use crate::stats::comparison::TestSettings;

/// The team name given to a baseline read from a file.
pub const BASELINE_TEAM: &str = "(baseline)";

/// One baseline of the claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Baseline {
    /// A run of the task (a file baseline has entered it), by tag; `is_file` when it came from
    /// a file.
    Run {
        /// The run's tag.
        tag: String,
        /// Whether it was read from a file.
        is_file: bool,
    },
    /// The task's best run on the collection, by each audited measure (`None`) or by the
    /// audited measure of this index for every measure.
    Best(Option<usize>),
}

/// The claims to make and how to test them.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimSettings {
    /// The baselines (none: no claims).
    pub baselines: Vec<Baseline>,
    /// The test and its correction over an audited run's claims of one measure.
    pub test: TestSettings,
}

/// Reads `--against` values against `task`, the runs to audit and the audited `measures`:
/// the baselines, and the runs read from files (to be added with [`add_baseline_run`]).
///
/// # Errors
/// [`Error::Invalid`] for a value that is neither `best[:MEASURE]`, a task run's tag nor an
/// existing file, a `best:MEASURE` whose measure the audit does not compute, and an audited
/// run named as a baseline (by its tag or its file); a run file's read errors.
pub fn resolve_against(
    values: &[String],
    task: &Task,
    audited: &[Run],
    measures: &[Measure],
) -> Result<(Vec<Baseline>, Vec<Run>)> {
    let mut baselines = Vec::new();
    let mut files = Vec::new();
    for value in values {
        let baseline = match value.split_once(':') {
            _ if value == "best" => Baseline::Best(None),
            Some(("best", measure)) => {
                Baseline::Best(Some(best_measure(value, measure, measures)?))
            }
            _ if task.runs.iter().any(|run| run.tag == *value) => Baseline::Run {
                tag: value.clone(),
                is_file: false,
            },
            _ if Path::new(value).is_file() => {
                let run = read_run(Path::new(value))
                    .with_context(|| format!("reading the baseline {value}"))?;
                let tag = run.tag.clone();
                files.push(run);
                Baseline::Run { tag, is_file: true }
            }
            _ => {
                return Err(Error::Invalid(format!(
                    "--against {value}: expected a run of task {} (by its tag), a readable run \
                     file, best or best:MEASURE; {value:?} is no run of the task and no file",
                    task.manifest.name
                )))
            }
        };
        if let Baseline::Run { tag, .. } = &baseline {
            if let Some(run) = audited.iter().find(|run| run.tag == *tag) {
                return Err(Error::Invalid(format!(
                    "--against {value}: run {tag:?} is audited ({}); expected a baseline other \
                     than the audited runs",
                    run.path.display()
                )));
            }
        }
        if !baselines.contains(&baseline) {
            baselines.push(baseline);
        }
    }
    Ok((baselines, files))
}

/// The index among `measures` of the measure `spec` of `--against value`.
fn best_measure(value: &str, spec: &str, measures: &[Measure]) -> Result<usize> {
    let names = || {
        (measures.iter())
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let refused = || {
        Error::Invalid(format!(
            "--against {value}: expected best:MEASURE with a measure the audit computes ({}), \
             found {spec:?}",
            names()
        ))
    };
    match parse_measures(&[spec]).map_err(|_| refused())?[..] {
        [measure] => measures
            .iter()
            .position(|m| *m == measure)
            .ok_or_else(refused),
        _ => Err(refused()),
    }
}

/// Adds a baseline read from a file to `task`: not pooled, of its own team, replacing a task
/// run of the same tag.
pub fn add_baseline_run(task: &mut Task, run: Run) {
    let entry = TeamEntry {
        team: BASELINE_TEAM.to_string(),
        is_pooled: false,
    };
    task.teams.runs.insert(run.tag.clone(), entry);
    match task.runs.iter().position(|r| r.tag == run.tag) {
        Some(pos) => task.runs[pos] = run,
        None => task.runs.push(run),
    }
}
