//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "../support/covid.rs"]
mod covid;
pub use covid::{covid_leaderboard_rows, write_covid_task};

/// The built binary, ready to take arguments.
pub fn reusesim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_reusesim"))
}

/// Runs the binary with `args` and returns its output.
pub fn run<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    reusesim().args(args).output().expect("the binary runs")
}

/// The output of a successful run, or a panic showing its stderr.
pub fn run_ok<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let output = run(args);
    assert!(
        output.status.success(),
        "reusesim failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The binary's standard output of a successful run, or a panic showing its stderr.
pub fn stdout_of<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    String::from_utf8(run_ok(args).stdout).expect("utf-8 output")
}

/// A file of the shared TREC data. Tests that call it are marked
/// `#[ignore = "needs REUSESIM_DATA"]`, so a run without the data lists them as ignored.
///
/// # Panics
/// When `REUSESIM_DATA` is unset, or set and the file is missing: CI must not skip silently.
pub fn data_file(relative: &str) -> PathBuf {
    let root = std::env::var_os("REUSESIM_DATA")
        .unwrap_or_else(|| panic!("this test needs REUSESIM_DATA (for {relative})"));
    let path = Path::new(&root).join(relative);
    assert!(
        path.exists(),
        "REUSESIM_DATA is set but {} is missing",
        path.display()
    );
    // Absolute, because tests write task manifests into temporary folders that point here,
    // and CI gives a relative REUSESIM_DATA.
    std::fs::canonicalize(&path).expect("an existing path has a canonical form")
}

/// Writes a small task with a text corpus: 3 topics, 4 teams of 2 runs, 600 documents, and
/// official qrels that judge the depth-5 pool plus some deeper relevant documents. Documents
/// of topic t carry the words `topicN` and `themeN` more often the more relevant they are.
/// Returns the manifest path.
pub fn write_tiny_text_task(dir: &Path) -> PathBuf {
    use std::fmt::Write as _;
    let topics = 3;
    let documents = 600;
    let filler: Vec<String> = (0..150)
        .map(|i| format!("filler{}", syllables(i)))
        .collect();
    let mut corpus = String::new();
    let mut truth: Vec<(usize, usize, i32)> = Vec::new();
    for doc in 0..documents {
        let topic = doc % topics;
        let grade = match doc % 10 {
            0 => 3,
            1 | 2 => 1,
            _ => 0,
        };
        let mut words: Vec<String> = (0..30)
            .map(|i| filler[(doc * 7 + i * 13) % filler.len()].clone())
            .collect();
        for _ in 0..grade * 3 {
            words.push(format!("topic{}", syllables(topic)));
            words.push(format!("theme{}", syllables(topic)));
        }
        if grade == 0 && doc % 3 == 0 {
            words.push(format!("topic{}", syllables(topic)));
        }
        writeln!(corpus, "d{doc:04}\t{}", words.join(" ")).unwrap();
        truth.push((topic, doc, grade));
    }
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    std::fs::write(dir.join("corpus.tsv"), corpus).unwrap();
    let mut topic_file = String::new();
    for topic in 0..topics {
        let name = syllables(topic);
        writeln!(topic_file, "{}\ttopic{name} theme{name}", topic + 1).unwrap();
    }
    std::fs::write(dir.join("topics.tsv"), topic_file).unwrap();
    let mut teams = String::new();
    let mut qrels = String::new();
    for team in 0..4 {
        for variant in 0..2 {
            let tag = format!("t{team}r{variant}");
            writeln!(teams, "{tag}\tteam{team}").unwrap();
            let mut run = String::new();
            for topic in 0..topics {
                let mut docs: Vec<(f64, usize)> = truth
                    .iter()
                    .filter(|(t, _, _)| *t == topic)
                    .map(|&(_, doc, grade)| {
                        let noise = ((doc * 31 + team * 17 + variant * 5) % 97) as f64 / 97.0;
                        (
                            f64::from(grade) * (0.3 + 0.2 * team as f64) + noise * 2.0,
                            doc,
                        )
                    })
                    .collect();
                docs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                for (rank, (score, doc)) in docs.iter().take(60).enumerate() {
                    writeln!(
                        run,
                        "{} Q0 d{doc:04} {} {score:.6} {tag}",
                        topic + 1,
                        rank + 1
                    )
                    .unwrap();
                }
            }
            std::fs::write(dir.join("runs").join(&tag), run).unwrap();
        }
    }
    for (topic, doc, grade) in &truth {
        // Official: every relevant document plus every third non-relevant one.
        if *grade > 0 || doc % 3 == 0 {
            writeln!(qrels, "{} 0 d{doc:04} {grade}", topic + 1).unwrap();
        }
    }
    std::fs::write(dir.join("teams.tsv"), teams).unwrap();
    std::fs::write(dir.join("qrels"), qrels).unwrap();
    let manifest = dir.join("task.toml");
    std::fs::write(
        &manifest,
        "name = \"tiny\"\nruns = \"runs\"\nteams = \"teams.tsv\"\nqrels = \"qrels\"\n\
         topics = \"topics.tsv\"\ncorpus = \"corpus.tsv\"\npool_depth = 5\n",
    )
    .unwrap();
    manifest
}

/// A pronounceable alphabetic word for `index` (HiCAL's tokenizer drops digits).
pub fn syllables(mut index: usize) -> String {
    const CONSONANTS: &[u8] = b"bdfgklmnprstvz";
    const VOWELS: &[u8] = b"aeiou";
    let mut word = String::new();
    loop {
        word.push(CONSONANTS[index % CONSONANTS.len()] as char);
        index /= CONSONANTS.len();
        word.push(VOWELS[index % VOWELS.len()] as char);
        index /= VOWELS.len();
        if index == 0 {
            break;
        }
    }
    word.push('x');
    word
}

/// Reads a TREC qrels file into topic → docid → grade.
pub fn read_qrels_map(
    path: &Path,
) -> std::collections::BTreeMap<String, std::collections::BTreeMap<String, i32>> {
    let mut qrels = std::collections::BTreeMap::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        qrels
            .entry(fields[0].to_string())
            .or_insert_with(std::collections::BTreeMap::new)
            .insert(fields[2].to_string(), fields[3].parse().unwrap());
    }
    qrels
}

/// The runs of TREC-COVID round 1 that contributed judgments, except those of `skip_team`.
pub fn covid_pooled_runs(
    leaderboard: &Path,
    skip_team: Option<&str>,
) -> std::collections::BTreeSet<String> {
    covid_leaderboard_rows(leaderboard)
        .into_iter()
        .filter(|(_, team, pooled)| pooled == "yes" && Some(team.as_str()) != skip_team)
        .map(|(run, _, _)| run)
        .collect()
}

/// Runs `reusesim COMMAND --task TASK --out OUT EXTRA...` and returns its standard output.
pub fn run_on_task(command: &str, task: &Path, out: &Path, extra: &[&str]) -> String {
    let mut args: Vec<String> = vec![
        command.into(),
        "--task".into(),
        task.display().to_string(),
        "--out".into(),
        out.display().to_string(),
    ];
    args.extend(extra.iter().map(|arg| arg.to_string()));
    stdout_of(&args)
}

/// The TREC-COVID round-1 files the tests use.
pub struct Covid {
    /// The folder of the 143 runs.
    pub runs: PathBuf,
    /// The round-1 qrels.
    pub qrels: PathBuf,
    /// The leaderboard (team, pooled flag, official scores).
    pub leaderboard: PathBuf,
}

/// The TREC-COVID round-1 files, or `None` when `REUSESIM_DATA` is unset.
pub fn covid_round1() -> Covid {
    Covid {
        runs: data_file("trec-covid/round1/runs"),
        qrels: data_file("trec-covid/qrels/qrels.covid-round1.txt"),
        leaderboard: data_file("trec-covid/leaderboards/round1.leaderboard.csv"),
    }
}

/// The `all` rows of `reusesim eval --format tsv` output: (run, measure) → value.
pub fn tsv_summaries(output: &str) -> std::collections::BTreeMap<(String, String), f64> {
    output
        .lines()
        .skip(1)
        .map(|line| line.split('\t').collect::<Vec<_>>())
        .filter(|fields| fields[2] == "all")
        .map(|fields| {
            (
                (fields[0].to_string(), fields[1].to_string()),
                fields[3].parse().unwrap(),
            )
        })
        .collect()
}
