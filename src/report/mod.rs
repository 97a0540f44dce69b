//! Rendering a study: `summary.json` (serde), `report.md`, `report.html` and the figures; the
//! tables, kept qrels and traces are written through [`crate::sim::analysis::files`], which
//! owns their columns. Both reports render one [`document::Document`] built by
//! [`content::study_document`]. Every file is written atomically. Running a study is a job
//! (`jobs::simulate`, above this layer); this module only renders its results.

pub mod agree;
pub mod assessors;
pub mod compare;
pub mod content;
pub mod document;
pub mod html;
pub mod plots;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::base::choice::choice_enum;
use crate::base::error::{ParseError, ParseErrorKind, Result};
use crate::io::atomic::write_atomically;
use crate::sim::analysis::files::{to_qrels, write_table, write_traces, TraceColumns, CONTROL};
use crate::sim::analysis::{StudyResults, StudySummary};
use crate::sim::fingerprint::Fingerprint;
use crate::sim::settings::AssessorChoice;
use crate::sim::study::StudyOutcome;

/// Writes `report.html` into `dir`. Returns its path.
///
/// # Errors
/// [`crate::base::error::Error::Plot`] when a figure cannot be drawn, or a write error.
pub fn write_page(
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
    let trace_columns = TraceColumns {
        sources: outcome.assessor.is_some(),
        graders: (outcome.assessor.as_ref()).is_some_and(|assessor| {
            matches!(
                AssessorChoice::parse(&assessor.name),
                Ok(AssessorChoice::Hybrid(_))
            )
        }),
    };
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
            |out| write_traces(out, outcome.collection, judgings, trace_columns),
        )?;
    }
    Ok(())
}
