//! The study's result files, one home for each: its column list, its writer and its single
//! reader sit together, so `simulate` writes, and `plot` and `audit` read, the same columns.
//!
//! - `runs.tsv` ([`RunRow`]), `lou.tsv` ([`LouRow`]), `trials.tsv` ([`TrialRow`]),
//!   `heldout.tsv` ([`HeldOutRow`]), `ranks.tsv` ([`RankRow`]): tables, found by their header names on reading, so a file
//!   with extra columns still reads;
//! - `summary.json`: written by serde from [`super::StudySummary`]; [`StudyResults::read`] takes
//!   back the few fields the figures need;
//! - with kept qrels: each trial's simulated qrels ([`to_qrels`]) and trace ([`write_traces`]).
//!
//! Every problem found on reading is reported with the file and line it was found on.

use std::path::{Path, PathBuf};

use crate::base::error::{excerpt, ParseError, ParseErrorKind, Result};
use crate::collection::Collection;
use crate::io::atomic::write_atomically;
use crate::io::qrels::Qrels;
use crate::judge::cal::TopicJudging;
use crate::stats::Spread;

/// A row of one of the study's tables.
pub trait TableRow: Sized {
    /// The file name.
    const FILE: &'static str;
    /// The columns, in file order.
    const COLUMNS: &'static [&'static str];
    /// The fields, in [`Self::COLUMNS`] order, as written.
    fn fields(&self) -> Vec<String>;
    /// Reads a row from its fields, found by column name.
    ///
    /// # Errors
    /// A [`ParseError`] naming the file, line and column of a bad field.
    fn parse(row: &Fields) -> Result<Self>;
}

/// Writes `rows` as the table `T::FILE` in `dir`, atomically.
///
/// # Errors
/// When the file cannot be written.
pub fn write_table<T: TableRow>(dir: &Path, rows: &[T]) -> Result<()> {
    write_atomically(&dir.join(T::FILE), |out| {
        writeln!(out, "{}", T::COLUMNS.join("\t"))?;
        for row in rows {
            writeln!(out, "{}", row.fields().join("\t"))?;
        }
        Ok(())
    })
}

/// Reads the table `T::FILE` from `dir`.
///
/// # Errors
/// A [`ParseError`] naming the file (and line) when it is missing or malformed.
pub fn read_table<T: TableRow>(dir: &Path) -> Result<Vec<T>> {
    Ok(unnumbered(read_numbered_table(dir)?))
}

/// Reads the table `T::FILE` from `dir`, each row with its line number.
///
/// # Errors
/// As [`read_table`].
fn read_numbered_table<T: TableRow>(dir: &Path) -> Result<Vec<(usize, T)>> {
    read_tsv(&dir.join(T::FILE), T::COLUMNS, T::parse)
}

/// A number as the tables write it: `NA` when undefined.
fn optional(value: Option<f64>) -> String {
    value.map_or_else(|| "NA".to_string(), |v| v.to_string())
}

/// The held-out team of a trial as the tables spell it (`control` for the control trial).
fn held_out_name(held_out: Option<&str>) -> String {
    held_out.unwrap_or(CONTROL).to_string()
}

/// The name of the control trial in the tables and in kept qrels' file names.
pub const CONTROL: &str = "control";

/// One run's figures for one measure (`runs.tsv`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunRow {
    /// Run tag.
    pub run: String,
    /// Team.
    pub team: String,
    /// Measure name.
    pub measure: String,
    /// Official score.
    pub official_score: f64,
    /// Official rank (1 = best, average for ties).
    pub official_rank: f64,
    /// LOU score over seeds.
    pub lou_score: Spread,
    /// LOU rank over seeds.
    pub lou_rank: Spread,
    /// The most frequent LOU rank over seeds (the better one on a tie).
    pub dominant_rank: f64,
    /// How many seeds gave the dominant rank.
    pub dominant_rank_frequency: usize,
    /// The most frequent rank of the run over every trial (control and held-out trials of every
    /// seed; the better one on a tie).
    pub trials_dominant_rank: f64,
    /// The share of trials that gave it.
    pub trials_dominant_rank_share: f64,
    /// Score under the complete truth, on tasks with a truth file.
    pub truth_score: Option<f64>,
}

impl TableRow for RunRow {
    const FILE: &'static str = "runs.tsv";
    const COLUMNS: &'static [&'static str] = &[
        "run",
        "team",
        "measure",
        "official_score",
        "official_rank",
        "lou_score_mean",
        "lou_score_min",
        "lou_score_max",
        "lou_rank_min",
        "lou_rank_mean",
        "lou_rank_max",
        "dominant_rank",
        "dominant_rank_frequency",
        "trials_dominant_rank",
        "trials_dominant_rank_share",
        "truth_score",
    ];

    fn fields(&self) -> Vec<String> {
        vec![
            self.run.clone(),
            self.team.clone(),
            self.measure.clone(),
            self.official_score.to_string(),
            self.official_rank.to_string(),
            self.lou_score.mean.to_string(),
            self.lou_score.min.to_string(),
            self.lou_score.max.to_string(),
            self.lou_rank.min.to_string(),
            self.lou_rank.mean.to_string(),
            self.lou_rank.max.to_string(),
            self.dominant_rank.to_string(),
            self.dominant_rank_frequency.to_string(),
            self.trials_dominant_rank.to_string(),
            self.trials_dominant_rank_share.to_string(),
            optional(self.truth_score),
        ]
    }

    fn parse(row: &Fields) -> Result<Self> {
        Ok(Self {
            run: row.text(0)?,
            team: row.text(1)?,
            measure: row.text(2)?,
            official_score: row.score(3)?,
            official_rank: row.rank(4)?,
            lou_score: Spread {
                mean: row.score(5)?,
                min: row.score(6)?,
                max: row.score(7)?,
            },
            lou_rank: Spread {
                min: row.rank(8)?,
                mean: row.rank(9)?,
                max: row.rank(10)?,
            },
            dominant_rank: row.rank(11)?,
            dominant_rank_frequency: row.count(12)?,
            trials_dominant_rank: row.rank(13)?,
            trials_dominant_rank_share: row.fraction(14)?,
            truth_score: row
                .optional_number(15)?
                .map(|_| row.score(15))
                .transpose()?,
        })
    }
}

/// One seed's LOU score and rank of one run (`lou.tsv`).
#[derive(Debug, Clone, PartialEq)]
pub struct LouRow {
    /// Seed.
    pub seed: u64,
    /// Run tag.
    pub run: String,
    /// Team.
    pub team: String,
    /// Measure name.
    pub measure: String,
    /// The run's score on its own team's held-out qrels.
    pub score: f64,
    /// The run's rank in that seed's LOU ranking.
    pub rank: f64,
}

impl TableRow for LouRow {
    const FILE: &'static str = "lou.tsv";
    const COLUMNS: &'static [&'static str] = &["seed", "run", "team", "measure", "score", "rank"];

    fn fields(&self) -> Vec<String> {
        vec![
            self.seed.to_string(),
            self.run.clone(),
            self.team.clone(),
            self.measure.clone(),
            self.score.to_string(),
            self.rank.to_string(),
        ]
    }

    fn parse(row: &Fields) -> Result<Self> {
        Ok(Self {
            seed: row.seed(0)?,
            run: row.text(1)?,
            team: row.text(2)?,
            measure: row.text(3)?,
            score: row.score(4)?,
            rank: row.rank(5)?,
        })
    }
}

/// One trial's figures for one measure (`trials.tsv`).
#[derive(Debug, Clone, PartialEq)]
pub struct TrialRow {
    /// Seed.
    pub seed: u64,
    /// The held-out team, `None` for the control trial.
    pub held_out: Option<String>,
    /// Measure name.
    pub measure: String,
    /// tau_b of the trial's ranking of all runs against the official one (`None`: undefined).
    pub tau_b: Option<f64>,
    /// tau_ap against the official ranking.
    pub tau_ap: Option<f64>,
    /// tau_b of the trial's ranking against the control trial's of the same seed (`None` for
    /// the control itself): the leave-out effect without the simulation's own noise.
    pub paired_tau_b: Option<f64>,
    /// tau_ap of the trial's ranking against the control trial's of the same seed.
    pub paired_tau_ap: Option<f64>,
    /// The fraction of official judgments the trial's qrels hold.
    pub overlap: f64,
    /// The fraction of officially relevant documents the trial found.
    pub recall: f64,
    /// Documents withheld from the simulated assessor, over all topics.
    pub withheld: usize,
}

impl TableRow for TrialRow {
    const FILE: &'static str = "trials.tsv";
    const COLUMNS: &'static [&'static str] = &[
        "seed",
        "held_out",
        "measure",
        "tau_b",
        "tau_ap",
        "paired_tau_b",
        "paired_tau_ap",
        "overlap",
        "recall",
        "withheld",
    ];

    fn fields(&self) -> Vec<String> {
        vec![
            self.seed.to_string(),
            held_out_name(self.held_out.as_deref()),
            self.measure.clone(),
            optional(self.tau_b),
            optional(self.tau_ap),
            optional(self.paired_tau_b),
            optional(self.paired_tau_ap),
            self.overlap.to_string(),
            self.recall.to_string(),
            self.withheld.to_string(),
        ]
    }

    fn parse(row: &Fields) -> Result<Self> {
        Ok(Self {
            seed: row.seed(0)?,
            held_out: row.held_out(1)?,
            measure: row.text(2)?,
            tau_b: row.tau(3)?,
            tau_ap: row.tau(4)?,
            paired_tau_b: row.tau(5)?,
            paired_tau_ap: row.tau(6)?,
            overlap: row.fraction(7)?,
            recall: row.fraction(8)?,
            withheld: row.count(9)?,
        })
    }
}

/// One held-out run in one trial (`heldout.tsv`).
#[derive(Debug, Clone, PartialEq)]
pub struct HeldOutRow {
    /// Seed.
    pub seed: u64,
    /// The held-out team.
    pub team: String,
    /// Run tag.
    pub run: String,
    /// Measure name.
    pub measure: String,
    /// Score on the trial's qrels.
    pub score: f64,
    /// Rank among all runs on the trial's qrels.
    pub rank: f64,
    /// Official score.
    pub official_score: f64,
    /// Official rank.
    pub official_rank: f64,
    /// Score on the control trial's qrels of the same seed.
    pub control_score: f64,
    /// Rank among all runs on the control trial's qrels of the same seed.
    pub control_rank: f64,
}

impl HeldOutRow {
    /// The paired score change: the trial's score less the control's.
    pub fn paired_score_change(&self) -> f64 {
        self.score - self.control_score
    }

    /// The paired rank change: the trial's rank less the control's (positive = dropped).
    pub fn paired_rank_change(&self) -> f64 {
        self.rank - self.control_rank
    }
}

impl TableRow for HeldOutRow {
    const FILE: &'static str = "heldout.tsv";
    const COLUMNS: &'static [&'static str] = &[
        "seed",
        "team",
        "run",
        "measure",
        "score",
        "rank",
        "official_score",
        "official_rank",
        "control_score",
        "control_rank",
        "paired_score_change",
        "paired_rank_change",
    ];

    fn fields(&self) -> Vec<String> {
        vec![
            self.seed.to_string(),
            self.team.clone(),
            self.run.clone(),
            self.measure.clone(),
            self.score.to_string(),
            self.rank.to_string(),
            self.official_score.to_string(),
            self.official_rank.to_string(),
            self.control_score.to_string(),
            self.control_rank.to_string(),
            self.paired_score_change().to_string(),
            self.paired_rank_change().to_string(),
        ]
    }

    fn parse(row: &Fields) -> Result<Self> {
        Ok(Self {
            seed: row.seed(0)?,
            team: row.text(1)?,
            run: row.text(2)?,
            measure: row.text(3)?,
            score: row.score(4)?,
            rank: row.rank(5)?,
            official_score: row.score(6)?,
            official_rank: row.rank(7)?,
            control_score: row.score(8)?,
            control_rank: row.rank(9)?,
        })
    }
}

/// One run's score and rank in one trial (`ranks.tsv`): the data behind the ranks of every run
/// across all trials.
#[derive(Debug, Clone, PartialEq)]
pub struct RankRow {
    /// Seed.
    pub seed: u64,
    /// The held-out team, `None` for the control trial.
    pub held_out: Option<String>,
    /// Run tag.
    pub run: String,
    /// Team.
    pub team: String,
    /// Measure name.
    pub measure: String,
    /// The run's score on the trial's qrels.
    pub score: f64,
    /// Its rank among all runs on the trial's qrels.
    pub rank: f64,
}

impl TableRow for RankRow {
    const FILE: &'static str = "ranks.tsv";
    const COLUMNS: &'static [&'static str] =
        &["seed", "trial", "run", "team", "measure", "score", "rank"];

    fn fields(&self) -> Vec<String> {
        vec![
            self.seed.to_string(),
            held_out_name(self.held_out.as_deref()),
            self.run.clone(),
            self.team.clone(),
            self.measure.clone(),
            self.score.to_string(),
            self.rank.to_string(),
        ]
    }

    fn parse(row: &Fields) -> Result<Self> {
        Ok(Self {
            seed: row.seed(0)?,
            held_out: row.held_out(1)?,
            run: row.text(2)?,
            team: row.text(3)?,
            measure: row.text(4)?,
            score: row.score(5)?,
            rank: row.rank(6)?,
        })
    }
}

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
}

impl StudyResults {
    /// Reads the results folder `dir`.
    ///
    /// # Errors
    /// [`ParseError`] naming the file (and line) when a file is missing or malformed.
    pub fn read(dir: &Path) -> Result<Self> {
        let summary = read_summary(&dir.join("summary.json"))?;
        let runs = read_numbered_table::<RunRow>(dir)?;
        let lou = read_numbered_table::<LouRow>(dir)?;
        let ranks = read_numbered_table::<RankRow>(dir)?;
        let limits = RankLimits::of(dir, &runs);
        limits.check::<RunRow>(&runs, |row| {
            vec![
                (&row.measure, row.official_rank),
                (&row.measure, row.lou_rank.max),
                (&row.measure, row.dominant_rank),
                (&row.measure, row.trials_dominant_rank),
            ]
        })?;
        limits.check::<LouRow>(&lou, |row| vec![(&row.measure, row.rank)])?;
        limits.check::<RankRow>(&ranks, |row| vec![(&row.measure, row.rank)])?;
        Ok(Self {
            runs: unnumbered(runs),
            lou: unnumbered(lou),
            trials: read_table(dir)?,
            ranks: unnumbered(ranks),
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

/// The rows without their line numbers.
fn unnumbered<T>(rows: Vec<(usize, T)>) -> Vec<T> {
    rows.into_iter().map(|(_, row)| row).collect()
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

    /// Checks the (measure, rank) pairs `ranks_of` gives for every row of the table `T`.
    fn check<T: TableRow>(
        &self,
        rows: &[(usize, T)],
        ranks_of: impl Fn(&T) -> Vec<(&String, f64)>,
    ) -> Result<()> {
        let path = self.runs_file.with_file_name(T::FILE);
        for (line, row) in rows {
            for (measure, rank) in ranks_of(row) {
                let runs = self.runs_of_measure.get(measure).copied().unwrap_or(0);
                if rank > runs as f64 {
                    return Err(ParseError::new(
                        &path,
                        *line,
                        ParseErrorKind::Invalid(format!(
                            "expected a rank of at most {runs} for {measure:?} (its runs in {}), \
                             found {rank}",
                            self.runs_file.display()
                        )),
                    )
                    .into());
                }
            }
        }
        Ok(())
    }
}

/// The simulated qrels of a judged trial.
pub fn to_qrels(collection: &Collection, judgings: &[TopicJudging]) -> Qrels {
    let mut qrels = Qrels::default();
    for judging in judgings {
        let topic = qrels
            .topics
            .entry(collection.topics[judging.topic].id.as_str().into())
            .or_default();
        for &(doc, grade) in &judging.judgments {
            topic.insert(collection.docs.name(doc), grade);
        }
    }
    qrels
}

/// Writes traces as TSV: `topic step batch docid score grade official` (score `NaN` for pool
/// documents, official `1` or `0`).
///
/// # Errors
/// When writing fails.
pub fn write_traces(
    out: &mut dyn std::io::Write,
    collection: &Collection,
    judgings: &[TopicJudging],
) -> std::io::Result<()> {
    writeln!(out, "topic\tstep\tbatch\tdocid\tscore\tgrade\tofficial")?;
    for judging in judgings {
        let topic = &collection.topics[judging.topic].id;
        for step in &judging.trace {
            writeln!(
                out,
                "{topic}\t{}\t{}\t{}\t{}\t{}\t{}",
                step.step,
                step.batch,
                collection.docs.name(step.doc),
                step.score,
                step.grade,
                u8::from(step.is_official)
            )?;
        }
    }
    Ok(())
}

fn read_text(path: &Path) -> Result<String> {
    let bytes =
        std::fs::read(path).map_err(|error| ParseError::file(path, ParseErrorKind::Io(error)))?;
    String::from_utf8(bytes).map_err(|_| ParseError::file(path, ParseErrorKind::Binary).into())
}

/// Task name, seeds, held-out teams and measures from `summary.json` (no table rows yet).
fn read_summary(path: &Path) -> Result<StudyResults> {
    let text = read_text(path)?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|error| {
        ParseError::new(
            path,
            error.line(),
            ParseErrorKind::Invalid(format!("expected JSON, found an error: {error}")),
        )
    })?;
    let missing = |field: &str, expected: &str| {
        ParseError::file(
            path,
            ParseErrorKind::Invalid(format!("expected {field} to be {expected}")),
        )
    };
    let task = value["task"]
        .as_str()
        .ok_or_else(|| missing("task", "a string"))?
        .to_string();
    let seeds = value["settings"]["seeds"]
        .as_array()
        .and_then(|seeds| {
            seeds
                .iter()
                .map(serde_json::Value::as_u64)
                .collect::<Option<Vec<u64>>>()
        })
        .ok_or_else(|| missing("settings.seeds", "a list of whole numbers"))?;
    let strings = |field: &str| -> Result<Vec<String>> {
        let list = value["settings"][field]
            .as_array()
            .ok_or_else(|| missing(&format!("settings.{field}"), "a list of strings"))?;
        list.iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| missing(&format!("settings.{field}"), "a list of strings"))
            })
            .collect::<std::result::Result<_, _>>()
            .map_err(Into::into)
    };
    Ok(StudyResults {
        task,
        seeds,
        held_out_teams: strings("held_out_teams")?,
        measures: strings("measures")?,
        runs: Vec::new(),
        lou: Vec::new(),
        trials: Vec::new(),
        ranks: Vec::new(),
    })
}

/// One data line of a table, its fields arranged in the order of the columns asked for.
pub struct Fields<'t> {
    path: &'t Path,
    line: usize,
    fields: Vec<&'t str>,
    /// The 1-based column in the file of each requested field (for error messages).
    columns: Vec<usize>,
}

impl Fields<'_> {
    fn error(&self, kind: ParseErrorKind) -> crate::base::error::Error {
        ParseError::new(PathBuf::from(self.path), self.line, kind).into()
    }

    fn text(&self, index: usize) -> Result<String> {
        let field = self.fields[index];
        if field.is_empty() {
            return Err(self.error(ParseErrorKind::Field {
                column: self.columns[index],
                expected: "a non-empty field",
                found: String::new(),
            }));
        }
        Ok(field.to_string())
    }

    fn number(&self, index: usize) -> Result<f64> {
        let field = self.fields[index];
        match field.parse::<f64>() {
            Ok(value) if value.is_finite() => Ok(value),
            _ => Err(self.error(ParseErrorKind::Field {
                column: self.columns[index],
                expected: "a finite number",
                found: excerpt(field),
            })),
        }
    }

    /// A number within `domain` (described by `expected` in errors).
    fn bounded(
        &self,
        index: usize,
        domain: std::ops::RangeInclusive<f64>,
        expected: &'static str,
    ) -> Result<f64> {
        let value = self.number(index)?;
        if domain.contains(&value) {
            Ok(value)
        } else {
            Err(self.error(ParseErrorKind::Field {
                column: self.columns[index],
                expected,
                found: excerpt(self.fields[index]),
            }))
        }
    }

    /// A score: finite and >= 0 (every measure's domain; the figures' axes rely on it).
    fn score(&self, index: usize) -> Result<f64> {
        self.bounded(index, 0.0..=f64::MAX, "a score >= 0")
    }

    /// A rank: finite and >= 1 (its upper bound, the number of runs, is checked by
    /// [`StudyResults::read`]).
    fn rank(&self, index: usize) -> Result<f64> {
        self.bounded(index, 1.0..=f64::MAX, "a rank >= 1")
    }

    /// A share or fraction: between 0 and 1.
    fn fraction(&self, index: usize) -> Result<f64> {
        self.bounded(index, 0.0..=1.0, "a fraction between 0 and 1")
    }

    /// A correlation between -1 and 1, or `NA`.
    fn tau(&self, index: usize) -> Result<Option<f64>> {
        if self.fields[index] == "NA" {
            return Ok(None);
        }
        self.bounded(index, -1.0..=1.0, "a correlation between -1 and 1, or NA")
            .map(Some)
    }

    fn optional_number(&self, index: usize) -> Result<Option<f64>> {
        if self.fields[index] == "NA" {
            Ok(None)
        } else {
            self.number(index).map(Some)
        }
    }

    /// A trial's held-out team as the tables spell it: `None` for [`CONTROL`].
    fn held_out(&self, index: usize) -> Result<Option<String>> {
        let name = self.text(index)?;
        Ok((name != CONTROL).then_some(name))
    }

    fn count(&self, index: usize) -> Result<usize> {
        let field = self.fields[index];
        field.parse::<usize>().map_err(|_| {
            self.error(ParseErrorKind::Field {
                column: self.columns[index],
                expected: "a whole number",
                found: excerpt(field),
            })
        })
    }

    fn seed(&self, index: usize) -> Result<u64> {
        let field = self.fields[index];
        field.parse::<u64>().map_err(|_| {
            self.error(ParseErrorKind::Field {
                column: self.columns[index],
                expected: "a whole-number seed",
                found: excerpt(field),
            })
        })
    }
}

/// Reads a TSV file with a header naming at least `wanted`; `parse` turns each data line, its
/// fields in `wanted` order, into a value.
fn read_tsv<T>(
    path: &Path,
    wanted: &[&str],
    mut parse: impl FnMut(&Fields) -> Result<T>,
) -> Result<Vec<(usize, T)>> {
    let text = read_text(path)?;
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line));
    let Some((_, header)) = lines.next() else {
        return Err(ParseError::file(path, ParseErrorKind::Empty).into());
    };
    let header: Vec<&str> = header.split('\t').collect();
    let positions: Vec<usize> = wanted
        .iter()
        .map(|name| {
            header
                .iter()
                .position(|column| column == name)
                .ok_or_else(|| {
                    ParseError::new(
                        path,
                        1,
                        ParseErrorKind::Invalid(format!(
                            "expected a header with a {name:?} column, found {:?}",
                            excerpt(&header.join(" "))
                        )),
                    )
                })
        })
        .collect::<std::result::Result<_, _>>()?;
    let mut values = Vec::new();
    for (line, content) in lines {
        if content.is_empty() {
            continue;
        }
        let all: Vec<&str> = content.split('\t').collect();
        if all.len() != header.len() {
            return Err(ParseError::new(
                path,
                line,
                ParseErrorKind::Invalid(format!(
                    "expected {} tab-separated columns as in the header, found {}",
                    header.len(),
                    all.len()
                )),
            )
            .into());
        }
        let row = Fields {
            path,
            line,
            fields: positions.iter().map(|&position| all[position]).collect(),
            columns: positions.iter().map(|&position| position + 1).collect(),
        };
        values.push((line, parse(&row)?));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        std::fs::write(dir.join(name), text).unwrap();
    }

    /// A results folder of one run, one seed and one held-out team, written by the writers.
    fn minimal(dir: &Path) {
        write(
            dir,
            "summary.json",
            r#"{"task": "t", "settings": {"seeds": [1], "held_out_teams": ["a"], "measures": ["map"]}}"#,
        );
        let spread = |value| Spread {
            mean: value,
            min: value,
            max: value,
        };
        let run = RunRow {
            run: "r1".into(),
            team: "a".into(),
            measure: "map".into(),
            official_score: 0.5,
            official_rank: 1.0,
            lou_score: spread(0.4),
            lou_rank: spread(1.0),
            dominant_rank: 1.0,
            dominant_rank_frequency: 1,
            trials_dominant_rank: 1.0,
            trials_dominant_rank_share: 1.0,
            truth_score: None,
        };
        write_table(dir, &[run]).unwrap();
        let lou = LouRow {
            seed: 1,
            run: "r1".into(),
            team: "a".into(),
            measure: "map".into(),
            score: 0.4,
            rank: 1.0,
        };
        write_table(dir, &[lou]).unwrap();
        let trial = |held_out: Option<&str>, tau| TrialRow {
            seed: 1,
            held_out: held_out.map(str::to_string),
            measure: "map".into(),
            tau_b: tau,
            tau_ap: tau,
            paired_tau_b: held_out.and(tau),
            paired_tau_ap: held_out.and(tau),
            overlap: 1.0,
            recall: 1.0,
            withheld: 0,
        };
        write_table(dir, &[trial(None, None), trial(Some("a"), Some(0.5))]).unwrap();
        let rank = |held_out: Option<&str>| RankRow {
            seed: 1,
            held_out: held_out.map(str::to_string),
            run: "r1".into(),
            team: "a".into(),
            measure: "map".into(),
            score: 0.4,
            rank: 1.0,
        };
        write_table(dir, &[rank(None), rank(Some("a"))]).unwrap();
    }

    #[test]
    fn reads_a_minimal_results_folder() {
        let dir = tempfile::tempdir().unwrap();
        minimal(dir.path());
        let results = StudyResults::read(dir.path()).unwrap();
        assert_eq!(results.task, "t");
        assert_eq!(results.runs[0].official_score, 0.5);
        assert_eq!(results.runs[0].truth_score, None);
        assert_eq!(results.lou[0].rank, 1.0);
        assert_eq!(results.trials[0].held_out, None);
        assert_eq!(results.trials[1].held_out.as_deref(), Some("a"));
        assert_eq!(results.trials[1].tau_b, Some(0.5));
        assert_eq!(results.trials[1].paired_tau_b, Some(0.5));
        assert_eq!(results.ranks[0].held_out, None);
        assert_eq!(results.ranks[1].held_out.as_deref(), Some("a"));
        assert!(!results.has_truth());
    }

    #[test]
    fn a_bad_number_names_file_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        minimal(dir.path());
        write(
            dir.path(),
            "lou.tsv",
            "seed\trun\tteam\tmeasure\tscore\trank\n1\tr1\ta\tmap\t0.4\t1\n1\tr2\ta\tmap\tx\t2\n",
        );
        let message = StudyResults::read(dir.path()).unwrap_err().to_string();
        assert!(message.contains("lou.tsv:3:"), "{message}");
        assert!(message.contains("column 5"), "{message}");
    }

    #[test]
    fn a_missing_column_and_a_short_line_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        minimal(dir.path());
        write(dir.path(), "trials.tsv", "seed\theld_out\tmeasure\n");
        let message = StudyResults::read(dir.path()).unwrap_err().to_string();
        assert!(
            message.contains("trials.tsv:1:") && message.contains("tau_b"),
            "{message}"
        );
        minimal(dir.path());
        write(
            dir.path(),
            "lou.tsv",
            "seed\trun\tteam\tmeasure\tscore\trank\n1\tr1\ta\n",
        );
        let message = StudyResults::read(dir.path()).unwrap_err().to_string();
        assert!(message.contains("lou.tsv:2:"), "{message}");
    }

    #[test]
    fn a_missing_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let message = StudyResults::read(dir.path()).unwrap_err().to_string();
        assert!(message.contains("summary.json"), "{message}");
    }
}
