//! Rendering a study: `summary.json` (serde), `report.md`, `report.html` and the figures; the
//! tables, kept qrels and traces are written through [`crate::sim::analysis::files`], which
//! owns their columns. Both reports render one [`document::Document`] built by
//! [`content::study_document`]. Every file is written atomically.

pub mod content;
pub mod document;
pub mod html;
pub mod plots;

use std::path::{Path, PathBuf};

use std::time::Instant;

use serde::Serialize;

use crate::base::choice::choice_enum;
use crate::base::error::{ParseError, ParseErrorKind, Result, Warning};
use crate::io::atomic::write_atomically;
use crate::io::task::Task;
use crate::judge::cal::TopicJudging;
use crate::sim::analysis::files::{to_qrels, write_table, write_traces, CONTROL};
use crate::sim::analysis::{SettingsSummary, StudyResults, StudySummary};
use crate::sim::fingerprint::Fingerprint;
use crate::sim::journal::JOURNAL_FILE;
use crate::sim::lock::{FolderAccess, FolderLock};
use crate::sim::runner::{read_shards, Study};
use crate::sim::study::{StudyOutcome, StudySettings};

/// A finished study: its summary and the figure files drawn.
#[derive(Debug)]
pub struct StudyReport {
    /// The statistics, as written to `summary.json` and the tables.
    pub summary: StudySummary,
    /// The figure files written, in order.
    pub figures: Vec<PathBuf>,
    /// The study's page, `report.html`.
    pub page: PathBuf,
    /// Judged units taken from a journal (`--resume`) or from shards (`merge`).
    pub resumed: usize,
    /// Problems met on the way (a torn journal tail dropped).
    pub warnings: Vec<Warning>,
}

/// Runs the leave-team-out study of `task` and writes every output and figure into `out`.
/// `use_text` chooses text features (see [`crate::judge::resolve_features`]); `progress(done,
/// total)` is called as judging units start and finish. Each finished unit goes to the journal
/// `out/units.journal`; with `access.resume`, the units already there are not judged again.
/// The folder is locked for the whole run ([`crate::sim::lock`]).
///
/// # Errors
/// Unknown held-out teams, corpus and learner errors, a journal of another study, and write
/// errors.
pub fn simulate(
    task: &Task,
    settings: &StudySettings,
    use_text: bool,
    out: &Path,
    access: FolderAccess<'_>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<StudyReport> {
    let started = Instant::now();
    let mut lock = FolderLock::open(out)?;
    let _held = lock.hold(access.when_locked, access.on_wait)?;
    let study = Study::prepare(task, settings, use_text)?;
    let judged = study.judge_journalled(
        &study.all_units(),
        &out.join(JOURNAL_FILE),
        None,
        access.resume,
        progress,
    )?;
    let judgings = judged.judgings.into_values().collect();
    let mut report = render(&study, judgings, out, started)?;
    report.resumed = judged.resumed;
    report.warnings = judged.warnings;
    Ok(report)
}

/// `merge`: reads the N finished shards in `out/shards/` (made by `simulate --shard I/N`),
/// checks that every unit is there exactly once and that all were made from the task's
/// current inputs and the same settings, then computes and writes the study's outputs as
/// [`simulate`] does: byte for byte the same files, `elapsed_seconds` aside. `task` replaces
/// the task manifest path the shards recorded (a task moved since), and `feature_store` the
/// task's feature store.
///
/// # Errors
/// Missing, unfinished or inconsistent shards, a fingerprint mismatch (naming what differs),
/// and the errors of [`simulate`].
pub fn merge(out: &Path, task: Option<&Path>, feature_store: Option<&Path>) -> Result<StudyReport> {
    let started = Instant::now();
    let shards = read_shards(out)?;
    let mut task = Task::open(task.unwrap_or(shards.task()))?;
    if let Some(store) = feature_store {
        task.manifest.feature_store = Some(store.to_path_buf());
    }
    let (settings, use_text) = shards.fingerprint().settings.settings()?;
    let study = Study::prepare(&task, &settings, use_text)?;
    study
        .fingerprint
        .check(shards.fingerprint(), &shards.first_manifest())?;
    let judgings = study.shard_judgings(&shards)?;
    let mut report = render(&study, judgings, out, started)?;
    report.resumed = study.plan.units.len();
    Ok(report)
}

/// The statistics of `study` from its judgings (in unit order), written with the figures.
fn render(
    study: &Study,
    judgings: Vec<TopicJudging>,
    out: &Path,
    started: Instant,
) -> Result<StudyReport> {
    let outcome = study.outcome(judgings);
    let summary = StudySummary::new(
        &study.task.manifest.name,
        SettingsSummary::new(study.task, &study.settings, &outcome),
        &outcome,
        started.elapsed().as_secs_f64(),
    );
    write_study(out, &summary, &study.fingerprint, &outcome)?;
    let results = StudyResults::read(out)?;
    let figures = plots::draw_figures(&results, &out.join("figures"), plots::FigureFormat::Both)?;
    let rows = content::ReportRows {
        runs: &summary.runs,
        ranks: &summary.ranks,
        strategies: &summary.strategy_rows,
    };
    let page = write_page(out, &summary, rows, &results)?;
    Ok(StudyReport {
        summary,
        figures,
        page,
        resumed: 0,
        warnings: Vec::new(),
    })
}

/// Writes `report.html` into `dir`. Returns its path.
fn write_page(
    dir: &Path,
    summary: &StudySummary,
    rows: content::ReportRows<'_>,
    results: &StudyResults,
) -> Result<PathBuf> {
    let page = html::study_page(&content::study_document(summary, rows), results)?;
    let path = dir.join(REPORT_PAGE);
    write_atomically(&path, |out| out.write_all(page.as_bytes()))?;
    Ok(path)
}

choice_enum! {
    /// What `plot` writes from a results folder.
    pub enum PlotFormat {
        /// The figures as PNG.
        Png = "png",
        /// The figures as SVG.
        Svg = "svg",
        /// The figures as PNG and SVG.
        Both = "both",
        /// The study's self-contained page, `report.html`.
        Html = "html",
    }
}

impl PlotFormat {
    /// The figure files to write, or `None` for the page.
    pub fn figures(self) -> Option<plots::FigureFormat> {
        match self {
            Self::Png => Some(plots::FigureFormat::Png),
            Self::Svg => Some(plots::FigureFormat::Svg),
            Self::Both => Some(plots::FigureFormat::Both),
            Self::Html => None,
        }
    }
}

/// The file name of the study's page.
pub const REPORT_PAGE: &str = "report.html";

/// `plot --format html`: reads the results folder `results_dir` (`summary.json` and the
/// tables) and writes the study's `report.html` into `out`. Returns its path.
///
/// # Errors
/// A [`ParseError`] naming the file (and line) when the results are missing or malformed;
/// [`crate::base::error::Error::Plot`] or a write error.
pub fn write_results_page(results_dir: &Path, out: &Path) -> Result<PathBuf> {
    let results = StudyResults::read(results_dir)?;
    let summary = read_summary(&results_dir.join("summary.json"))?;
    let rows = content::ReportRows {
        runs: &results.runs,
        ranks: &results.ranks,
        strategies: &results.strategies,
    };
    write_page(out, &summary, rows, &results)
}

/// The study's summary as `summary.json` holds it (without the tables' rows).
fn read_summary(path: &Path) -> Result<StudySummary> {
    let text = std::fs::read_to_string(path).map_err(|error| {
        ParseError::file(
            path,
            ParseErrorKind::Invalid(format!("cannot read the study's summary: {error}")),
        )
    })?;
    serde_json::from_str(&text).map_err(|error| {
        ParseError::new(
            path,
            error.line(),
            ParseErrorKind::Invalid(format!("expected a study's summary: {error}")),
        )
        .into()
    })
}

/// `summary.json`: the summary, then the fingerprint of the inputs and settings.
#[derive(Serialize)]
struct SummaryFile<'a> {
    #[serde(flatten)]
    summary: &'a StudySummary,
    fingerprint: &'a Fingerprint,
}

/// Writes every output of a study into `dir`.
///
/// # Errors
/// When a file cannot be written.
pub fn write_study(
    dir: &Path,
    summary: &StudySummary,
    fingerprint: &Fingerprint,
    outcome: &StudyOutcome,
) -> Result<()> {
    write_atomically(&dir.join("summary.json"), |out| {
        let file = SummaryFile {
            summary,
            fingerprint,
        };
        serde_json::to_writer_pretty(&mut *out, &file)?;
        writeln!(out)
    })?;
    write_table(dir, &summary.runs)?;
    write_table(dir, &summary.lou)?;
    write_table(dir, &summary.trials)?;
    write_table(dir, &summary.held_out)?;
    write_table(dir, &summary.ranks)?;
    if summary.budget.is_some() {
        write_table(dir, &summary.budget_rows)?;
    }
    if summary.strategies.is_some() {
        write_table(dir, &summary.strategy_rows)?;
    }
    let rows = content::ReportRows {
        runs: &summary.runs,
        ranks: &summary.ranks,
        strategies: &summary.strategy_rows,
    };
    write_atomically(&dir.join("report.md"), |out| {
        content::study_document(summary, rows).write_markdown(out)
    })?;
    for trial in &outcome.trials {
        let Some(judgings) = &trial.judgings else {
            continue;
        };
        let name = format!(
            "{}-s{}",
            trial.trial.held_out.as_deref().unwrap_or(CONTROL),
            trial.trial.seed
        );
        let qrels = to_qrels(outcome.collection, judgings);
        write_atomically(&dir.join("qrels").join(format!("{name}.qrels")), |out| {
            qrels.write_trec(out)
        })?;
        write_atomically(
            &dir.join("qrels").join(format!("{name}.trace.tsv")),
            |out| {
                write_traces(
                    out,
                    outcome.collection,
                    judgings,
                    outcome.assessor.is_some(),
                )
            },
        )?;
    }
    Ok(())
}
