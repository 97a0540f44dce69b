//! Reads a results folder written by `simulate` (`summary.json`, `runs.tsv`, `lou.tsv`,
//! `trials.tsv`) back into the few figures the plots need, so `reusesim plot` works on a
//! folder from an earlier run without the study in memory. It does not draw anything.
//!
//! TSV columns are found by their header names, so a file with extra columns still reads.
//! Values are checked against their domain, which the figures' axes rely on: scores are finite
//! and >= 0, ranks lie between 1 and the number of runs of their measure in `runs.tsv`, tau_b
//! lies between -1 and 1. Every problem is reported with the file and line it was found on.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use crate::error::{excerpt, ParseError, ParseErrorKind, Result};

/// One run's figures for one measure (a row of `runs.tsv`).
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
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
    /// Mean LOU score over seeds.
    pub lou_score_mean: f64,
    /// Lowest LOU score over seeds.
    pub lou_score_min: f64,
    /// Highest LOU score over seeds.
    pub lou_score_max: f64,
    /// Best (smallest) LOU rank over seeds.
    pub lou_rank_min: f64,
    /// Mean LOU rank over seeds.
    pub lou_rank_mean: f64,
    /// Worst (largest) LOU rank over seeds.
    pub lou_rank_max: f64,
    /// Score under the complete truth, on tasks with a truth file.
    pub truth_score: Option<f64>,
}

/// One seed's LOU score and rank of one run (a row of `lou.tsv`).
#[derive(Debug, Clone, PartialEq)]
pub struct LouResult {
    /// Seed.
    pub seed: u64,
    /// Run tag.
    pub run: String,
    /// Measure name.
    pub measure: String,
    /// The run's score on its own team's held-out qrels.
    pub score: f64,
    /// The run's rank in that seed's LOU ranking.
    pub rank: f64,
}

/// One trial's agreement with the official ranking (a row of `trials.tsv`).
#[derive(Debug, Clone, PartialEq)]
pub struct TrialResult {
    /// Seed.
    pub seed: u64,
    /// The held-out team, `None` for the control trial.
    pub held_out: Option<String>,
    /// Measure name.
    pub measure: String,
    /// tau_b of the trial's ranking of all runs against the official ranking (`None` when
    /// undefined, `NA` in the file).
    pub tau_b: Option<f64>,
}

/// What the figures need from a results folder.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyResults {
    /// Task name.
    pub task: String,
    /// Number of seeds (trials use seeds 1..=seeds).
    pub seeds: u64,
    /// The teams held out, one trial each per seed.
    pub held_out_teams: Vec<String>,
    /// The measures, in the study's order.
    pub measures: Vec<String>,
    /// Rows of `runs.tsv`.
    pub runs: Vec<RunResult>,
    /// Rows of `lou.tsv`.
    pub lou: Vec<LouResult>,
    /// Rows of `trials.tsv`.
    pub trials: Vec<TrialResult>,
}

impl StudyResults {
    /// Reads the results folder `dir`.
    ///
    /// # Errors
    /// [`ParseError`] naming the file (and line) when a file is missing or malformed, or a
    /// value lies outside its domain (module documentation).
    pub fn read(dir: &Path) -> Result<Self> {
        let (task, seeds, held_out_teams, measures) = read_summary(&dir.join("summary.json"))?;
        let runs_path = dir.join("runs.tsv");
        let numbered_runs = read_tsv(&runs_path, RUN_COLUMNS, |row| {
            Ok((
                row.line,
                RunResult {
                    run: row.text(0)?,
                    team: row.text(1)?,
                    measure: row.text(2)?,
                    official_score: row.number(3, &SCORE)?,
                    official_rank: row.number(4, &RANK)?,
                    lou_score_mean: row.number(5, &SCORE)?,
                    lou_score_min: row.number(6, &SCORE)?,
                    lou_score_max: row.number(7, &SCORE)?,
                    lou_rank_min: row.number(8, &RANK)?,
                    lou_rank_mean: row.number(9, &RANK)?,
                    lou_rank_max: row.number(10, &RANK)?,
                    truth_score: row.optional_number(11, &SCORE)?,
                },
            ))
        })?;
        let mut run_counts = RunCounts {
            path: &runs_path,
            counts: BTreeMap::new(),
        };
        for (_, run) in &numbered_runs {
            *run_counts.counts.entry(&run.measure).or_default() += 1;
        }
        for (line, run) in &numbered_runs {
            let ranks = [
                run.official_rank,
                run.lou_rank_min,
                run.lou_rank_mean,
                run.lou_rank_max,
            ];
            for rank in ranks {
                run_counts.check_rank(&runs_path, *line, &run.measure, rank)?;
            }
        }
        let lou = read_tsv(&dir.join("lou.tsv"), LOU_COLUMNS, |row| {
            let lou = LouResult {
                seed: row.seed(0)?,
                run: row.text(1)?,
                measure: row.text(2)?,
                score: row.number(3, &SCORE)?,
                rank: row.number(4, &RANK)?,
            };
            run_counts.check_rank(row.path, row.line, &lou.measure, lou.rank)?;
            Ok(lou)
        })?;
        let runs = numbered_runs.into_iter().map(|(_, run)| run).collect();
        let trials = read_tsv(&dir.join("trials.tsv"), TRIAL_COLUMNS, |row| {
            let held_out = row.text(1)?;
            Ok(TrialResult {
                seed: row.seed(0)?,
                held_out: (held_out != "control").then_some(held_out),
                measure: row.text(2)?,
                tau_b: row.optional_number(3, &TAU)?,
            })
        })?;
        Ok(Self {
            task,
            seeds,
            held_out_teams,
            measures,
            runs,
            lou,
            trials,
        })
    }

    /// The rows of `runs.tsv` for one measure, best official rank first (ties by run tag).
    pub fn runs_of(&self, measure: &str) -> Vec<&RunResult> {
        let mut runs: Vec<&RunResult> = self.runs.iter().filter(|r| r.measure == measure).collect();
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

/// The columns read from `runs.tsv`, in the order the row parser uses them.
const RUN_COLUMNS: &[&str] = &[
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
    "truth_score",
];
/// The values a column may hold, and how an error message names them.
struct Domain {
    values: RangeInclusive<f64>,
    expected: &'static str,
}

/// Scores: every measure is >= 0.
const SCORE: Domain = Domain {
    values: 0.0..=f64::MAX,
    expected: "a finite score >= 0",
};
/// Ranks: 1 = best; the upper bound (the number of runs) is checked by
/// [`RunCounts::check_rank`].
const RANK: Domain = Domain {
    values: 1.0..=f64::MAX,
    expected: "a finite rank >= 1",
};
/// Kendall's tau.
const TAU: Domain = Domain {
    values: -1.0..=1.0,
    expected: "a tau between -1 and 1",
};

/// The number of runs of each measure in `runs.tsv` (at `path`), which bounds every rank.
struct RunCounts<'r> {
    path: &'r Path,
    counts: BTreeMap<&'r str, usize>,
}

impl RunCounts<'_> {
    /// Checks that `rank`, read on `line` of `path`, is at most the number of runs of `measure`.
    fn check_rank(&self, path: &Path, line: usize, measure: &str, rank: f64) -> Result<()> {
        let run_count = self.counts.get(measure).copied().unwrap_or(0);
        if rank > run_count as f64 {
            return Err(ParseError::new(
                path,
                line,
                ParseErrorKind::Invalid(format!(
                    "expected ranks of {measure} between 1 and {run_count} (its runs in {}), \
                     found {rank}",
                    self.path.display()
                )),
            )
            .into());
        }
        Ok(())
    }
}

/// The columns read from `lou.tsv`.
const LOU_COLUMNS: &[&str] = &["seed", "run", "measure", "score", "rank"];
/// The columns read from `trials.tsv`.
const TRIAL_COLUMNS: &[&str] = &["seed", "held_out", "measure", "tau_b"];

fn read_text(path: &Path) -> Result<String> {
    let bytes =
        std::fs::read(path).map_err(|error| ParseError::file(path, ParseErrorKind::Io(error)))?;
    String::from_utf8(bytes).map_err(|_| ParseError::file(path, ParseErrorKind::Binary).into())
}

/// Task name, seeds, held-out teams and measures from `summary.json`.
fn read_summary(path: &Path) -> Result<(String, u64, Vec<String>, Vec<String>)> {
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
        .as_u64()
        .ok_or_else(|| missing("settings.seeds", "a whole number"))?;
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
    Ok((
        task,
        seeds,
        strings("held_out_teams")?,
        strings("measures")?,
    ))
}

/// One data line of a TSV file, its fields arranged in the order the caller asked for.
struct Row<'t> {
    path: &'t Path,
    line: usize,
    fields: Vec<&'t str>,
    /// The 1-based column in the file of each requested field (for error messages).
    columns: Vec<usize>,
}

impl Row<'_> {
    fn error(&self, kind: ParseErrorKind) -> crate::Error {
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

    fn number(&self, index: usize, domain: &Domain) -> Result<f64> {
        let field = self.fields[index];
        match field.parse::<f64>() {
            Ok(value) if domain.values.contains(&value) => Ok(value),
            _ => Err(self.error(ParseErrorKind::Field {
                column: self.columns[index],
                expected: domain.expected,
                found: excerpt(field),
            })),
        }
    }

    fn optional_number(&self, index: usize, domain: &Domain) -> Result<Option<f64>> {
        if self.fields[index] == "NA" {
            Ok(None)
        } else {
            self.number(index, domain).map(Some)
        }
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
    mut parse: impl FnMut(&Row) -> Result<T>,
) -> Result<Vec<T>> {
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
        let row = Row {
            path,
            line,
            fields: positions.iter().map(|&position| all[position]).collect(),
            columns: positions.iter().map(|&position| position + 1).collect(),
        };
        values.push(parse(&row)?);
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        std::fs::write(dir.join(name), text).unwrap();
    }

    fn minimal(dir: &Path) {
        write(
            dir,
            "summary.json",
            r#"{"task": "t", "settings": {"seeds": 1, "held_out_teams": ["a"], "measures": ["map"]}}"#,
        );
        write(
            dir,
            "runs.tsv",
            "run\tteam\tmeasure\tofficial_score\tofficial_rank\tlou_score_mean\tlou_score_min\t\
             lou_score_max\tlou_rank_min\tlou_rank_mean\tlou_rank_max\tdominant_rank\t\
             dominant_rank_frequency\ttruth_score\n\
             r1\ta\tmap\t0.5\t1\t0.4\t0.4\t0.4\t1\t1\t1\t1\t1\tNA\n",
        );
        write(
            dir,
            "lou.tsv",
            "seed\trun\tteam\tmeasure\tscore\trank\n1\tr1\ta\tmap\t0.4\t1\n",
        );
        write(
            dir,
            "trials.tsv",
            "seed\theld_out\tmeasure\ttau_b\ttau_ap\toverlap\trecall\n\
             1\tcontrol\tmap\tNA\tNA\t1\t1\n1\ta\tmap\t0.5\t0.5\t1\t1\n",
        );
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

    /// Issue 12 (found by `tests/fuzz.rs`): values far outside the figures' axes (a rank of
    /// 2^31 among 2 runs, a negative score) overflowed plotters' pixel arithmetic, a panic in
    /// debug builds and a garbled figure in release builds; they are now reading errors.
    #[test]
    fn issue_12_values_outside_their_domain_name_file_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let beyond_the_runs = format!(
            "lou.tsv:2: expected ranks of map between 1 and 1 (its runs in {}), found 2147483648",
            dir.path().join("runs.tsv").display()
        );
        let cases = [
            (
                "lou.tsv",
                "1\tr1\ta\tmap\t0.4\t2147483648\n",
                beyond_the_runs.as_str(),
            ),
            (
                "lou.tsv",
                "1\tr1\ta\tmap\t0.4\t0\n",
                "lou.tsv:2: expected a finite rank >= 1 in column 6",
            ),
            (
                "lou.tsv",
                "1\tr1\ta\tmap\t-0.4\t1\n",
                "lou.tsv:2: expected a finite score >= 0 in column 5",
            ),
            (
                "runs.tsv",
                "r1\ta\tmap\t0.5\t1\t-2147483649\t0.4\t0.4\t1\t1\t1\t1\t1\tNA\n",
                "runs.tsv:2: expected a finite score >= 0 in column 6",
            ),
            (
                "runs.tsv",
                "r1\ta\tmap\t0.5\t1\t0.4\t0.4\t0.4\t1\t1\t2\t1\t1\tNA\n",
                "runs.tsv:2: expected ranks of map between 1 and 1",
            ),
            (
                "trials.tsv",
                "1\ta\tmap\t1.5\tNA\t1\t1\n",
                "trials.tsv:2: expected a tau between -1 and 1 in column 4",
            ),
        ];
        for (file, row, message) in cases {
            minimal(dir.path());
            let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
            let header = text.lines().next().unwrap();
            write(dir.path(), file, &format!("{header}\n{row}"));
            let error = StudyResults::read(dir.path()).unwrap_err().to_string();
            assert!(error.contains(message), "{error}");
        }
    }

    #[test]
    fn a_missing_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let message = StudyResults::read(dir.path()).unwrap_err().to_string();
        assert!(message.contains("summary.json"), "{message}");
    }
}
