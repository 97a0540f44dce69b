//! A hand-made task for the study's unit tests (test builds only): four teams, two topics,
//! run features or (with a corpus) text features, written to a temporary folder.
//!
//! Topic 1, pool depth 2 (relevant: grade > 0):
//!
//! | run | team | ranking (best first) |
//! |---|---|---|
//! | a1 | A | s1 s2 ua n1 n2 n3 |
//! | a2 | A | s1 ua2 sh n4 |
//! | b1 | B | s2 s3 ub n5 sh |
//! | c1 | C | s3 s1 n6 n7 |
//! | d1 | D (not pooled) | ud s1 |
//!
//! Grades: s1 1, s2 2, s3 0, ua 2, ua2 1, sh 1, ub 1, n1 0, n5 0, ud 1 (10 judgments).
//! A's unique relevant documents are ua (a1, rank 3) and ua2 (a2, rank 2); sh is relevant but
//! B retrieved it too. B and C add nothing to the pool (their top 2 are pooled by another team
//! too). Topic 2: the runs retrieve t1 t2 t3 t4 in various orders; grades t1 1, t2 0, t3 1
//! (3 judgments); only A's runs pool t2.
//!
//! [`hand_task_with_carried`] adds the judgment `1 0 x1 1`: a relevant document no run
//! retrieved, carried into every trial.

use std::path::Path;

use crate::io::task::Task;

/// One run: its tag and, per topic, its ranking best first.
type HandRun = (
    &'static str,
    &'static [(&'static str, &'static [&'static str])],
);

const RUNS: &[HandRun] = &[
    (
        "a1",
        &[
            ("1", &["s1", "s2", "ua", "n1", "n2", "n3"]),
            ("2", &["t1", "t2", "t3", "t4"]),
        ],
    ),
    (
        "a2",
        &[
            ("1", &["s1", "ua2", "sh", "n4"]),
            ("2", &["t2", "t1", "t4"]),
        ],
    ),
    (
        "b1",
        &[
            ("1", &["s2", "s3", "ub", "n5", "sh"]),
            ("2", &["t3", "t1", "t2"]),
        ],
    ),
    (
        "c1",
        &[("1", &["s3", "s1", "n6", "n7"]), ("2", &["t1", "t3"])],
    ),
    ("d1", &[("1", &["ud", "s1"]), ("2", &["t4", "t1"])]),
];

const QRELS: &str = "1 0 s1 1\n1 0 s2 2\n1 0 s3 0\n1 0 ua 2\n1 0 ua2 1\n1 0 sh 1\n1 0 ub 1\n\
                     1 0 n1 0\n1 0 n5 0\n1 0 ud 1\n2 0 t1 1\n2 0 t2 0\n2 0 t3 1\n";

const TEAMS: &str = "a1\tA\na2\tA\nb1\tB\nc1\tC\nd1\tD\tno\n";

/// Writes the task into `dir` (with a small corpus and topic texts when `with_text`) and loads
/// it.
pub(crate) fn hand_task(dir: &Path, with_text: bool) -> Task {
    let runs = dir.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    for (tag, topics) in RUNS {
        let mut text = String::new();
        for (topic, docs) in *topics {
            for (pos, doc) in docs.iter().enumerate() {
                text += &format!("{topic} Q0 {doc} {} {} {tag}\n", pos + 1, 100 - pos);
            }
        }
        std::fs::write(runs.join(tag), text).unwrap();
    }
    std::fs::write(dir.join("qrels"), QRELS).unwrap();
    std::fs::write(dir.join("teams.tsv"), TEAMS).unwrap();
    let mut manifest = "name = \"hand\"\nruns = \"runs\"\nteams = \"teams.tsv\"\n\
                        qrels = \"qrels\"\npool_depth = 2\n"
        .to_string();
    if with_text {
        let docs = [
            "s1", "s2", "s3", "ua", "ua2", "sh", "ub", "ud", "n1", "n2", "n3", "n4", "n5", "n6",
            "n7", "t1", "t2", "t3", "t4", "x1", "x2",
        ];
        let corpus: String = docs
            .iter()
            .enumerate()
            .map(|(index, doc)| {
                let topical = if doc.starts_with('t') {
                    "storm rain"
                } else {
                    "virus cell"
                };
                format!("{doc}\t{topical} word{} word{}\n", index % 3, index % 5)
            })
            .collect();
        std::fs::write(dir.join("corpus.tsv"), corpus).unwrap();
        std::fs::write(dir.join("topics.tsv"), "1\tvirus cell\n2\tstorm rain\n").unwrap();
        manifest += "corpus = \"corpus.tsv\"\ntopics = \"topics.tsv\"\n";
    }
    std::fs::write(dir.join("task.toml"), manifest).unwrap();
    Task::open(&dir.join("task.toml")).unwrap()
}

/// The hand-made task with one more official judgment on topic 1: `x1`, grade 1, which no run
/// retrieved.
pub(crate) fn hand_task_with_carried(dir: &Path, with_text: bool) -> Task {
    hand_task(dir, with_text);
    let qrels = dir.join("qrels");
    let text = std::fs::read_to_string(&qrels).unwrap() + "1 0 x1 1\n";
    std::fs::write(&qrels, text).unwrap();
    Task::open(&dir.join("task.toml")).unwrap()
}

/// What `read` makes of `text` written to a file named `name` in a temporary folder.
pub(crate) fn read_written<T>(name: &str, text: &str, read: impl FnOnce(&Path) -> T) -> T {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("the file is written");
    read(&path)
}
