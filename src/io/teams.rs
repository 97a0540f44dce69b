//! Team files: `run_tag <TAB> team [<TAB> pooled]`, where pooled is `yes` or `no` (default `yes`)
//! and says whether the run contributed to the judging pool.

use std::collections::BTreeMap;
use std::path::Path;

use crate::base::error::{excerpt, ParseError, ParseErrorKind};
use crate::io::gz::LineReader;
use crate::io::names::check_team_name;

/// The team of one run and whether the run was pooled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamEntry {
    /// The team name.
    pub team: String,
    /// Whether the run contributed to the official pool.
    pub is_pooled: bool,
}

/// Run tag → team and pooled flag.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Teams {
    /// Entries by run tag.
    pub runs: BTreeMap<String, TeamEntry>,
}

impl Teams {
    /// The entry of a run.
    pub fn get(&self, run_tag: &str) -> Option<&TeamEntry> {
        self.runs.get(run_tag)
    }

    /// Every team name, sorted and without repeats.
    pub fn team_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.runs.values().map(|entry| &*entry.team).collect();
        names.sort_unstable();
        names.dedup();
        names
    }
}

const TEAM_COLUMNS: &str = "2 or 3 tab-separated columns (run team [yes|no])";

/// Reads a team file.
///
/// # Errors
/// A [`ParseError`] naming file and line for a wrong column count, a pooled flag other than
/// `yes`/`no`, a run listed twice, a team name that cannot be part of a file name or is
/// `control` ([`check_team_name`]), or an empty file.
pub fn read_teams(path: &Path) -> Result<Teams, ParseError> {
    let mut reader = LineReader::open(path)?;
    let mut teams = Teams::default();
    while let Some(line) = reader.next_line()? {
        let line_text = line.text;
        if line_text.trim().is_empty() || line_text.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line_text.split('\t').map(str::trim).collect();
        let (run, team, pooled) = match fields[..] {
            [run, team] => (run, team, "yes"),
            [run, team, pooled] => (run, team, pooled),
            _ => {
                return Err(line.error(ParseErrorKind::Columns {
                    expected: TEAM_COLUMNS,
                    found: fields.len(),
                }))
            }
        };
        if run.is_empty() || team.is_empty() {
            return Err(line.error(ParseErrorKind::Invalid(
                "expected a run tag and a team name, found an empty field".into(),
            )));
        }
        check_team_name(team).map_err(|kind| line.error(kind))?;
        let is_pooled = match pooled.to_ascii_lowercase().as_str() {
            "yes" | "y" | "true" | "1" => true,
            "no" | "n" | "false" | "0" => false,
            _ => {
                return Err(line.error(ParseErrorKind::Field {
                    column: 3,
                    expected: "yes or no",
                    found: excerpt(pooled),
                }))
            }
        };
        let entry = TeamEntry {
            team: team.to_string(),
            is_pooled,
        };
        if teams.runs.insert(run.to_string(), entry).is_some() {
            return Err(line.error(ParseErrorKind::Invalid(format!(
                "run {run:?} is listed twice"
            ))));
        }
    }
    if teams.runs.is_empty() {
        return Err(ParseError::file(path, ParseErrorKind::Empty));
    }
    Ok(teams)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooled_defaults_to_yes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("teams.tsv");
        std::fs::write(&path, "r1\tA\nr2\tA\tno\nr3\tB\tyes\n").unwrap();
        let teams = read_teams(&path).unwrap();
        assert!(teams.get("r1").unwrap().is_pooled);
        assert!(!teams.get("r2").unwrap().is_pooled);
        assert_eq!(teams.team_names(), vec!["A", "B"]);
        std::fs::write(&path, "r1\tA\tmaybe\n").unwrap();
        let error = read_teams(&path).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("teams.tsv:1: expected yes or no"),
            "{error}"
        );
    }

    #[test]
    fn team_names_must_be_usable_in_file_names() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("teams.tsv");
        for (team, message) in [
            ("../up", "expected a team name usable in file names"),
            ("a\\b", "expected a team name usable in file names"),
            ("..", "expected a team name usable in file names"),
            ("a\u{1b}b", "expected a team name usable in file names"),
            ("Control", "expected a team name other than \"control\""),
        ] {
            std::fs::write(&path, format!("r1\tA\nr2\t{team}\tno\n")).unwrap();
            let error = read_teams(&path).unwrap_err().to_string();
            assert!(error.contains("teams.tsv:2: "), "{error}");
            assert!(error.contains(message), "{error}");
        }
    }
}
