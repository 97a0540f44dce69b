//! Rendering a study: `summary.json` (serde), `report.md` and the figures; the tables, kept
//! qrels and traces are written through [`crate::sim::analysis::files`], which owns their
//! columns. Every file is written atomically.

pub mod markdown;
pub mod plots;

use std::path::{Path, PathBuf};

use crate::base::error::Result;
use crate::collection::Collection;
use crate::io::atomic::write_atomically;
use crate::io::task::Task;
use crate::sim::analysis::files::{to_qrels, write_table, write_traces, CONTROL};
use crate::sim::analysis::{SettingsSummary, StudySummary};
use crate::sim::study::{held_out_teams, run_study, StudyOutcome, StudySettings};

/// A finished study: its summary and the figure files drawn.
#[derive(Debug)]
pub struct StudyReport {
    /// The statistics, as written to `summary.json` and the tables.
    pub summary: StudySummary,
    /// The figure files written, in order.
    pub figures: Vec<PathBuf>,
}

/// Runs the leave-team-out study of `task` and writes every output and figure into `out`.
/// `use_text` chooses text features (see [`crate::judge::resolve_features`]); `progress(done,
/// total)` is called as judging units start and finish (see [`run_study`]).
///
/// # Errors
/// Unknown held-out teams, corpus and learner errors, and write errors.
pub fn simulate(
    task: &Task,
    settings: &StudySettings,
    use_text: bool,
    out: &Path,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<StudyReport> {
    let started = std::time::Instant::now();
    let held_out = held_out_teams(task, settings.teams.as_deref())?;
    let collection = Collection::prepare(task, &task.qrels, use_text)?;
    let outcome = run_study(task, &collection, settings, held_out.clone(), progress)?;
    let summary = StudySummary::new(
        &task.manifest.name,
        SettingsSummary::new(task, &collection, settings, held_out),
        &outcome,
        started.elapsed().as_secs_f64(),
    );
    write_study(out, &summary, &outcome)?;
    let figures = plots::plot_results(out, &out.join("figures"), plots::FigureFormat::Both)?;
    Ok(StudyReport { summary, figures })
}

/// Writes every output of a study into `dir`.
///
/// # Errors
/// When a file cannot be written.
pub fn write_study(dir: &Path, summary: &StudySummary, outcome: &StudyOutcome) -> Result<()> {
    write_atomically(&dir.join("summary.json"), |out| {
        serde_json::to_writer_pretty(&mut *out, summary)?;
        writeln!(out)
    })?;
    write_table(dir, &summary.runs)?;
    write_table(dir, &summary.lou)?;
    write_table(dir, &summary.trials)?;
    write_table(dir, &summary.held_out)?;
    write_table(dir, &summary.ranks)?;
    write_atomically(&dir.join("report.md"), |out| {
        markdown::write_report(out, summary)
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
            |out| write_traces(out, outcome.collection, judgings),
        )?;
    }
    Ok(())
}
