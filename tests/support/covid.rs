//! The TREC-COVID round-1 task as the tests and the study benchmark build it from the data in
//! `$REUSESIM_DATA` (shared by path: `#[path = ".../tests/support/covid.rs"] mod covid;`).

use std::path::{Path, PathBuf};

/// (run, team, contributed judgments) of every row of the round-1 leaderboard.
pub fn covid_leaderboard_rows(leaderboard: &Path) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(leaderboard).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (run, team, pooled) = (
        column("run"),
        column("team"),
        column("contributed judgments"),
    );
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            (
                fields[run].to_string(),
                fields[team].to_string(),
                fields[pooled].to_string(),
            )
        })
        .collect()
}

/// Writes a task manifest for TREC-COVID round 1 (pool depth 7, run features) in `dir`, with a
/// team file made from the leaderboard. Returns the manifest path.
pub fn write_covid_task(dir: &Path, runs: &Path, qrels: &Path, leaderboard: &Path) -> PathBuf {
    let teams: String = covid_leaderboard_rows(leaderboard)
        .into_iter()
        .map(|(run, team, pooled)| format!("{run}\t{team}\t{pooled}\n"))
        .collect();
    std::fs::write(dir.join("teams.tsv"), teams).unwrap();
    let manifest = dir.join("task.toml");
    std::fs::write(
        &manifest,
        format!(
            "name = \"trec-covid-round1\"\nruns = {:?}\nteams = \"teams.tsv\"\nqrels = {:?}\n\
             pool_depth = 7\n",
            runs.display().to_string(),
            qrels.display().to_string()
        ),
    )
    .unwrap();
    manifest
}
