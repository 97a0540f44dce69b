//! A results folder read back for the figures: `summary.json`'s task, seeds, teams and measures,
//! and the tables, with every rank checked against the number of runs of its measure.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::budget::BudgetRow;
use super::rows::{LouRow, RankRow, RunRow, TrialRow};
use super::strategies::StrategyRow;
use super::table::{read_numbered_table, read_table, read_text, unnumbered, TableRow};
use crate::base::error::{ParseError, ParseErrorKind, Result};

/// What the figures need from a results folder: `summary.json`'s task, seeds, teams and
/// measures, and the tables.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyResults {
    /// Task name.
    pub task: String,
    /// The seeds of the study's trials.
    pub seeds: Vec<u64>,
    /// The teams held out, one trial each per seed.
    pub held_out_teams: Vec<String>,
    /// The measures, in the study's order.
    pub measures: Vec<String>,
    /// Rows of `runs.tsv`.
    pub runs: Vec<RunRow>,
    /// Rows of `lou.tsv`.
    pub lou: Vec<LouRow>,
    /// Rows of `trials.tsv`.
    pub trials: Vec<TrialRow>,
    /// Rows of `ranks.tsv`.
    pub ranks: Vec<RankRow>,
    /// Rows of `budget.tsv`; none when the study has no budget curve (and no such file).
    pub budget: Vec<BudgetRow>,
    /// Rows of `strategies.tsv`; none when the study compares no judging strategies (and no
    /// such file).
    pub strategies: Vec<StrategyRow>,
}

impl StudyResults {
    /// Reads the results folder `dir`.
    ///
    /// # Errors
    /// [`ParseError`] naming the file (and line) when a file is missing or malformed.
    pub fn read(dir: &Path) -> Result<Self> {
        let summary = read_summary(&dir.join("summary.json"))?;
        check_format(dir)?;
        let runs = read_numbered_table::<RunRow>(dir)?;
        let lou = read_numbered_table::<LouRow>(dir)?;
        let ranks = read_numbered_table::<RankRow>(dir)?;
        let limits = RankLimits::of(dir, &runs);
        limits.check::<RunRow>(&runs, |row| {
            vec![
                (&row.measure, "official_rank", row.official_rank),
                (&row.measure, "lou_rank_min", row.lou_rank.min),
                (&row.measure, "lou_rank_mean", row.lou_rank.mean),
                (&row.measure, "lou_rank_max", row.lou_rank.max),
                (&row.measure, "dominant_rank", row.dominant_rank),
                (
                    &row.measure,
                    "trials_dominant_rank",
                    row.trials_dominant_rank,
                ),
            ]
        })?;
        limits.check::<LouRow>(&lou, |row| vec![(&row.measure, "rank", row.rank)])?;
        limits.check::<RankRow>(&ranks, |row| vec![(&row.measure, "rank", row.rank)])?;
        Ok(Self {
            runs: unnumbered(runs),
            lou: unnumbered(lou),
            trials: read_table(dir)?,
            ranks: unnumbered(ranks),
            budget: read_optional_table(dir)?,
            strategies: read_optional_table(dir)?,
            ..summary
        })
    }

    /// The rows of `runs.tsv` for one measure, best official rank first (ties by run tag).
    pub fn runs_of(&self, measure: &str) -> Vec<&RunRow> {
        let mut runs: Vec<&RunRow> = self.runs.iter().filter(|r| r.measure == measure).collect();
        runs.sort_by(|a, b| {
            a.official_rank
                .total_cmp(&b.official_rank)
                .then_with(|| a.run.cmp(&b.run))
        });
        runs
    }

    /// Every team, sorted by name: the order of the colour palette and of the legends.
    pub fn teams(&self) -> Vec<String> {
        let mut teams: Vec<String> = self.runs.iter().map(|r| r.team.clone()).collect();
        teams.sort();
        teams.dedup();
        teams
    }

    /// Whether `runs.tsv` holds truth scores (a synthetic task with a truth file).
    pub fn has_truth(&self) -> bool {
        self.runs.iter().any(|r| r.truth_score.is_some())
    }
}

/// The first column of `trials.tsv` that results written by reusesim 0.2.0 (released) lack:
/// the significance columns came after it.
const FIRST_COLUMN_AFTER_0_2_0: &str = "significant";

/// The columns of `trials.tsv` as reusesim 0.2.0 (released) wrote them, assessor ones aside.
const TRIAL_COLUMNS_OF_0_2_0: [&str; 13] = [
    "seed",
    "held_out",
    "measure",
    "tau_b",
    "tau_ap",
    "paired_tau_b",
    "paired_tau_ap",
    "overlap",
    "recall",
    "carried",
    "overlap_found",
    "recall_found",
    "withheld",
];

/// Refuses, with what to do, a results folder whose `trials.tsv` has the columns of reusesim
/// 0.2.0 as released and none of the significance columns that came after: its tables lack
/// columns this version reads. Any other missing column is reported where the table is read.
fn check_format(dir: &Path) -> Result<()> {
    let path = dir.join(TrialRow::FILE);
    // A missing or unreadable file is reported where the tables are read.
    let Ok(text) = read_text(&path) else {
        return Ok(());
    };
    let header: Vec<&str> = text
        .lines()
        .next()
        .unwrap_or_default()
        .split('\t')
        .collect();
    let is_of_0_2_0 = TRIAL_COLUMNS_OF_0_2_0.iter().all(|c| header.contains(c))
        && !header.contains(&FIRST_COLUMN_AFTER_0_2_0);
    if !is_of_0_2_0 {
        return Ok(());
    }
    let version = written_by(&dir.join("summary.json"));
    Err(ParseError::new(
        &path,
        1,
        ParseErrorKind::Invalid(format!(
            "expected a header with a {FIRST_COLUMN_AFTER_0_2_0:?} column, found the tables of \
             reusesim 0.2.0 as released or earlier (summary.json names {version}), before the \
             significance columns: plot it with that version, or run the study again with this \
             one ({}) to plot it",
            env!("CARGO_PKG_VERSION")
        )),
    )
    .into())
}

/// The reusesim version `summary.json`'s fingerprint names, as text for a message.
fn written_by(path: &Path) -> String {
    let value: Option<serde_json::Value> =
        (read_text(path).ok()).and_then(|text| serde_json::from_str(&text).ok());
    match value
        .as_ref()
        .and_then(|v| v["fingerprint"]["reusesim"].as_str())
    {
        Some(version) => format!("reusesim {version}"),
        None => "no version".to_string(),
    }
}

/// The rows of the table `T::FILE` in `dir`, none when there is no such file.
fn read_optional_table<T: TableRow>(dir: &Path) -> Result<Vec<T>> {
    if dir.join(T::FILE).exists() {
        read_table(dir)
    } else {
        Ok(Vec::new())
    }
}

/// The largest rank of each measure: the number of its runs in `runs.tsv`. The figures' axes
/// rely on every rank of the tables lying between 1 and it.
struct RankLimits {
    runs_file: PathBuf,
    runs_of_measure: std::collections::BTreeMap<String, usize>,
}

impl RankLimits {
    fn of(dir: &Path, runs: &[(usize, RunRow)]) -> Self {
        let mut runs_of_measure = std::collections::BTreeMap::new();
        for (_, run) in runs {
            *runs_of_measure.entry(run.measure.clone()).or_insert(0) += 1;
        }
        Self {
            runs_file: dir.join(RunRow::FILE),
            runs_of_measure,
        }
    }

    /// Checks the (measure, column, rank) triples `ranks_of` gives for every row of the table
    /// `T`.
    fn check<T: TableRow>(
        &self,
        rows: &[(usize, T)],
        ranks_of: impl Fn(&T) -> Vec<(&String, &str, f64)>,
    ) -> Result<()> {
        let path = self.runs_file.with_file_name(T::FILE);
        for (line, row) in rows {
            for (measure, name, rank) in ranks_of(row) {
                let runs = self.runs_of_measure.get(measure).copied().unwrap_or(0);
                if rank > runs as f64 {
                    return Err(ParseError::new(
                        &path,
                        *line,
                        ParseErrorKind::Invalid(format!(
                            "expected a rank of at most {runs} for {measure:?} (its runs in {}) \
                             in column {}, found \"{rank}\"",
                            self.runs_file.display(),
                            header_column(&path, name),
                        )),
                    )
                    .into());
                }
            }
        }
        Ok(())
    }
}

/// The 1-based position of the column `name` in the header of the table at `path` (0 when
/// the file cannot be read again): only for error messages, the rows being read by name.
fn header_column(path: &Path, name: &str) -> usize {
    read_text(path).ok().map_or(0, |text| {
        text.lines()
            .next()
            .and_then(|header| header.split('\t').position(|column| column == name))
            .map_or(0, |pos| pos + 1)
    })
}

/// The fields of `summary.json` the figures read; the others are ignored.
#[derive(Deserialize)]
struct SummaryHead {
    task: String,
    settings: SummarySettings,
}

/// The fields of `summary.json`'s settings the figures read.
#[derive(Deserialize)]
struct SummarySettings {
    seeds: Vec<u64>,
    held_out_teams: Vec<String>,
    measures: Vec<String>,
}

/// Task name, seeds, held-out teams and measures from `summary.json` (no table rows yet).
fn read_summary(path: &Path) -> Result<StudyResults> {
    let text = read_text(path)?;
    // Read through a `Value`: a repeated key keeps its last value, and a list is refused where
    // an object is expected (a derived struct would also read its fields from a list).
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|error| {
        ParseError::new(
            path,
            error.line(),
            ParseErrorKind::Invalid(format!("expected JSON, found an error: {error}")),
        )
    })?;
    let invalid = |found: String| {
        ParseError::file(
            path,
            ParseErrorKind::Invalid(format!(
                "expected an object with task and settings (seeds, held_out_teams, measures), \
                 found {found}"
            )),
        )
    };
    if !(value.is_object() && value["settings"].is_object()) {
        return Err(invalid("another shape".to_string()).into());
    }
    let summary: SummaryHead =
        serde_json::from_value(value).map_err(|error| invalid(format!("an error: {error}")))?;
    Ok(StudyResults {
        task: summary.task,
        seeds: summary.settings.seeds,
        held_out_teams: summary.settings.held_out_teams,
        measures: summary.settings.measures,
        runs: Vec::new(),
        lou: Vec::new(),
        trials: Vec::new(),
        ranks: Vec::new(),
        budget: Vec::new(),
        strategies: Vec::new(),
    })
}
