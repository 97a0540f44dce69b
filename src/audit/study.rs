//! The audit's leave-team-out comparison: how far pooled runs already fall when their team is
//! left out, from the `runs.tsv` of an earlier study or from a short study run on the spot.

use serde::Serialize;

use super::settings::{AuditSettings, StudySource, MAX_SPOT_STUDY_UNITS, SPOT_STUDY_ITERATIONS};
use crate::base::error::Result;
use crate::collection::Collection;
use crate::io::task::Task;
use crate::judge::settings::JudgeSettings;
use crate::sim::analysis::files::{read_table, TableRow};
use crate::sim::analysis::{RunRow, SettingsSummary, StudySummary};
use crate::sim::settings::AssessorChoice;
use crate::sim::study::{held_out_teams, run_study, StudySettings};

/// The leave-team-out figures of one measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LouDrop {
    /// The measure.
    pub measure: String,
    /// The largest rank drop of a pooled run when its team was left out.
    pub max_rank_drop: f64,
    /// The run of that drop.
    pub max_rank_drop_run: String,
    /// The largest score drop (official − lowest LOU score).
    pub max_score_drop: f64,
    /// The run of that drop.
    pub max_score_drop_run: String,
    /// The number of pooled runs compared.
    pub pooled_runs: usize,
}

/// The leave-team-out comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StudyComparison {
    /// Where the figures come from, or why there are none.
    pub source: String,
    /// Per audited measure the study has.
    pub measures: Vec<LouDrop>,
}

/// The leave-team-out comparison, from `runs.tsv` or a short study.
///
/// # Errors
/// A malformed `runs.tsv`, or a study that fails.
pub(super) fn compare_with_study(
    task: &Task,
    collection: &Collection,
    settings: &AuditSettings,
    audited_tags: &[String],
) -> Result<StudyComparison> {
    let (source, rows) = match &settings.study {
        StudySource::Skip => ("skipped: no study seeds".to_string(), Vec::new()),
        StudySource::Results(dir) => (
            dir.join(RunRow::FILE).display().to_string(),
            read_table::<RunRow>(dir)?,
        ),
        StudySource::OnTheSpot { seeds } => {
            let held_out = held_out_teams(task, None)?;
            let units = *seeds as usize * (held_out.len() + 1) * collection.topics.len();
            if *seeds == 0 || units > MAX_SPOT_STUDY_UNITS {
                let source = format!(
                    "skipped: a study of {units} (trial, topic) units is too long for an audit \
                     (limit {MAX_SPOT_STUDY_UNITS}); run a study and give the audit its results"
                );
                (source, Vec::new())
            } else {
                let summary = spot_study(task, collection, settings, *seeds, held_out)?;
                let source = format!(
                    "a study run on the spot: {seeds} seeds, {SPOT_STUDY_ITERATIONS} Pegasos \
                     iterations per retrain"
                );
                (source, summary.runs)
            }
        }
    };
    let names: Vec<String> = settings.measures.iter().map(ToString::to_string).collect();
    Ok(StudyComparison {
        source,
        measures: lou_drops(task, &rows, &names, audited_tags),
    })
}

/// A short study of the task ([`SPOT_STUDY_ITERATIONS`] Pegasos iterations, HiCAL's other
/// settings).
fn spot_study(
    task: &Task,
    collection: &Collection,
    settings: &AuditSettings,
    seeds: u64,
    held_out: Vec<String>,
) -> Result<StudySummary> {
    let study_settings = StudySettings {
        seeds,
        measures: settings.measures.clone(),
        teams: None,
        judge: JudgeSettings {
            iterations: SPOT_STUDY_ITERATIONS,
            ..JudgeSettings::hical(task.pool_depth)
        },
        budget: None,
        keep_qrels: false,
        budget_fractions: crate::sim::settings::OFFICIAL_BUDGET_ONLY.to_vec(),
        strategies: Vec::new(),
        assessor: AssessorChoice::Official,
        significance: crate::sim::settings::default_significance(),
    };
    let outcome = run_study(task, collection, &study_settings, held_out, &|_, _| {})?;
    let summary_settings = SettingsSummary::new(task, &study_settings, &outcome);
    Ok(StudySummary::new(
        &task.manifest.name,
        summary_settings,
        &outcome,
        0.0,
    ))
}

/// Per measure in `names`, the largest rank and score drops of the task's pooled runs.
fn lou_drops(
    task: &Task,
    rows: &[RunRow],
    names: &[String],
    audited_tags: &[String],
) -> Vec<LouDrop> {
    names
        .iter()
        .filter_map(|name| {
            let pooled: Vec<&RunRow> = rows
                .iter()
                .filter(|row| &row.measure == name && !audited_tags.contains(&row.run))
                .filter(|row| task.teams.get(&row.run).is_some_and(|e| e.is_pooled))
                .collect();
            let rank_drop = pooled
                .iter()
                .map(|row| (row.lou_rank.max - row.official_rank, &row.run))
                .max_by(|a, b| a.0.total_cmp(&b.0))?;
            let score_drop = pooled
                .iter()
                .map(|row| (row.official_score - row.lou_score.min, &row.run))
                .max_by(|a, b| a.0.total_cmp(&b.0))?;
            Some(LouDrop {
                measure: name.clone(),
                max_rank_drop: rank_drop.0.max(0.0),
                max_rank_drop_run: rank_drop.1.clone(),
                max_score_drop: score_drop.0.max(0.0),
                max_score_drop_run: score_drop.1.clone(),
                pooled_runs: pooled.len(),
            })
        })
        .collect()
}
