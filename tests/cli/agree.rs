//! `reusesim agree`: the grade statistics against scikit-learn's `cohen_kappa_score` and the
//! `krippendorff` package, the leaderboards' tau_b against scipy's `kendalltau` and their
//! significant pairs against `compare` run on each qrels (goldens written by
//! scripts/agree-goldens.py), the layouts, the warnings and errors on bad input.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{data_file, run, stdout_of};

fn repository_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

const MEASURES: [&str; 3] = ["map", "P_10", "ndcg_cut_10"];

/// The folder of TREC DL 2021 restored by `../shared/data/trec-dl-2021/restore.py`
/// (`REUSESIM_DL21`), if named. Tests that read it are marked `#[ignore = "needs
/// REUSESIM_DL21"]`; run with `--include-ignored` and the variable unset (the data cannot be
/// fetched on every machine), they say so on stderr and pass.
fn dl21_root() -> Option<PathBuf> {
    let root = std::env::var_os("REUSESIM_DL21").map(PathBuf::from);
    if root.is_none() {
        eprintln!("REUSESIM_DL21 is not set: the TREC DL 2021 comparison is not run");
    }
    root
}

/// A file of the TREC DL 2021 folder `root`.
fn dl21_file(root: &Path, relative: &str) -> PathBuf {
    let path = root.join(relative);
    assert!(
        path.exists(),
        "REUSESIM_DL21 is set but {} is missing",
        path.display()
    );
    path
}

/// Writes B made from the qrels A as scripts/agree-goldens.py makes it: line i (from 0), by
/// i % 10: 0 to 5 keep the grade, 6 and 7 add 1, 8 subtracts 1 (not below 0), 9 leaves the
/// pair out.
fn write_changed(a: &Path, b: &Path) {
    let text = std::fs::read_to_string(a).unwrap();
    let mut changed = String::new();
    for (index, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let grade: i32 = fields[3].parse().unwrap();
        let grade = match index % 10 {
            9 => continue,
            6 | 7 => grade + 1,
            8 => (grade - 1).max(0),
            _ => grade,
        };
        changed.push_str(&format!(
            "{} {} {} {grade}\n",
            fields[0], fields[1], fields[2]
        ));
    }
    std::fs::write(b, changed).unwrap();
}

/// `agree --format json` on A, B and `runs` at relevance level `level`, parsed.
fn agreed(a: &Path, b: &Path, runs: &[PathBuf], level: u8) -> Value {
    let mut arguments: Vec<String> = ["agree", "--format", "json", "-l", &level.to_string()]
        .map(String::from)
        .to_vec();
    for measure in MEASURES {
        arguments.extend(["-m".to_string(), measure.to_string()]);
    }
    arguments.extend([a, b].map(|path| path.display().to_string()));
    arguments.extend(runs.iter().map(|path| path.display().to_string()));
    serde_json::from_str(&stdout_of(arguments)).unwrap()
}

/// Asserts that `agree`'s record equals the golden `name` to 1e-12 (counts exactly).
fn assert_matches_golden(record: &Value, name: &str) {
    let path = repository_file(&format!("tests/golden/agree/{name}.json"));
    let golden: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let close = |ours: &Value, theirs: &Value, what: &str| {
        if theirs.is_null() {
            assert!(
                ours.is_null(),
                "{name}: {what}: reusesim {ours}, reference undefined"
            );
            return;
        }
        let (ours, theirs) = (ours.as_f64().unwrap(), theirs.as_f64().unwrap());
        assert!(
            (ours - theirs).abs() <= 1e-12,
            "{name}: {what}: reusesim {ours}, reference {theirs}"
        );
    };
    let grades = &record["grades"];
    assert_eq!(grades["pairs"], golden["pairs"], "{name}: pairs");
    for statistic in [
        "kappa",
        "kappa_linear",
        "kappa_quadratic",
        "binary_kappa",
        "alpha_ordinal",
        "alpha_interval",
        "relevant_share_a",
        "relevant_share_b",
    ] {
        close(&grades[statistic], &golden[statistic], statistic);
    }
    let Some(measures) = golden.get("measures") else {
        assert_eq!(record["leaderboard"], Value::Null);
        return;
    };
    let ours = record["leaderboard"]["measures"].as_array().unwrap();
    assert_eq!(ours.len(), MEASURES.len());
    for measure in ours {
        let name = measure["measure"].as_str().unwrap();
        let theirs = &measures[name];
        close(
            &measure["tau_b"],
            &theirs["tau_b"],
            &format!("{name} tau_b"),
        );
        let tops = measure["top"].as_array().unwrap();
        for (top, size) in tops.iter().zip([10, 15]) {
            assert_eq!(top["top"], size);
            close(
                &top["tau_b"],
                &theirs[format!("tau_b_top_{size}")],
                "top tau_b",
            );
        }
        for side in ["significant_a", "significant_b"] {
            assert_eq!(
                measure[side], theirs[side],
                "{name} {side} as compare finds them"
            );
        }
        let pairs = &measure["pairs"];
        let count = |field: &str| pairs[field].as_u64().unwrap();
        assert_eq!(
            count("kept") + count("lost") + count("reversed"),
            measure["significant_a"].as_u64().unwrap()
        );
        assert_eq!(
            count("kept") + count("reversed") + count("new"),
            measure["significant_b"].as_u64().unwrap()
        );
    }
}

#[test]
fn the_embedded_task_against_a_changed_copy_matches_the_references() {
    let dir = tempfile::tempdir().unwrap();
    let a = repository_file("qrels/synth-passage.qrels");
    let b = dir.path().join("b.qrels");
    write_changed(&a, &b);
    let runs = [repository_file("runs/synth-passage/runs")];
    let record = agreed(&a, &b, &runs, 1);
    assert_matches_golden(&record, "synth-passage");
    // B leaves every tenth pair out: A grades them alone.
    let only_a = record["only_a"].as_u64().unwrap();
    let total = std::fs::read_to_string(&a).unwrap().lines().count() as u64;
    assert_eq!(only_a, total / 10);
    assert_eq!(record["only_b"], 0);
    assert_eq!(record["leaderboard"]["runs"].as_array().unwrap().len(), 27);
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn trec_evals_fixture_against_a_changed_copy_matches_the_references() {
    let dir = tempfile::tempdir().unwrap();
    let a = data_file("trec_eval-test-fixture/qrels.test");
    let b = dir.path().join("b.qrels");
    write_changed(&a, &b);
    assert_matches_golden(&agreed(&a, &b, &[], 1), "fixture");
}

#[test]
#[ignore = "needs REUSESIM_DL21"]
fn dl21_nist_against_umbrela_matches_the_references() {
    let Some(root) = dl21_root() else {
        return;
    };
    let a = dl21_file(&root, "qrels.dl21-passage.txt");
    let b = dl21_file(&root, "labels/umbrela-gpt4.dl21-passage.qrels");
    let record = agreed(&a, &b, &[dl21_file(&root, "runs")], 2);
    assert_matches_golden(&record, "dl21");
}

/// Small qrels A (topics 1 to 3) and B (topics 1 and 2), and four runs: r1 to r3 on every
/// topic, r4 on topic 3 alone. Returns (A, B, the runs' folder).
fn small_inputs(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let mut a = String::new();
    let mut b = String::new();
    for topic in 1..=3 {
        for doc in 0..6 {
            a.push_str(&format!("{topic} 0 d{doc} {}\n", doc % 3));
            if topic < 3 {
                b.push_str(&format!("{topic} 0 d{doc} {}\n", (doc + topic) % 3));
            }
        }
    }
    let runs = dir.join("runs");
    std::fs::create_dir(&runs).unwrap();
    for (tag, topics) in [("r1", 1..=3), ("r2", 1..=3), ("r3", 1..=3), ("r4", 3..=3)] {
        let mut text = String::new();
        for topic in topics {
            for rank in 1..=6 {
                let doc = match tag {
                    "r1" => rank - 1,
                    "r2" => 6 - rank,
                    _ => (rank * 5) % 6,
                };
                text.push_str(&format!("{topic} Q0 d{doc} {rank} {} {tag}\n", 10 - rank));
            }
        }
        std::fs::write(runs.join(tag), text).unwrap();
    }
    let (a_path, b_path) = (dir.join("a.qrels"), dir.join("b.qrels"));
    std::fs::write(&a_path, a).unwrap();
    std::fs::write(&b_path, b).unwrap();
    (a_path, b_path, runs)
}

#[test]
fn a_run_without_a_topic_of_one_side_is_a_warning_and_the_others_are_ranked() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, runs) = small_inputs(dir.path());
    let output = run(["agree", "--format", "json"]
        .map(String::from)
        .into_iter()
        .chain([&a, &b, &runs].map(|path| path.display().to_string())));
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains(&format!("run r4: no topic in common with {}", b.display())),
        "{stderr}"
    );
    let record: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        record["leaderboard"]["runs"],
        serde_json::json!(["r1", "r2", "r3"])
    );
    assert_eq!(record["leaderboard"]["topics"], 2);
    // Topic 3 is A's alone; topics 1 and 2 are graded by both.
    let topics = record["topics"].as_array().unwrap();
    assert_eq!(topics.len(), 3);
    assert_eq!(topics[2]["only_a"], 6);
    assert_eq!(topics[2]["common"], 0);
    assert_eq!(record["only_a"], 6);
    assert_eq!(record["grades"]["pairs"], 12);
}

#[test]
fn every_layout_shows_the_same_figures() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, runs) = small_inputs(dir.path());
    let layout = |format: &str| {
        stdout_of(
            ["agree", "--format", format]
                .map(String::from)
                .into_iter()
                .chain([&a, &b, &runs].map(|path| path.display().to_string())),
        )
    };
    let record: Value = serde_json::from_str(&layout("json")).unwrap();
    let kappa = record["grades"]["kappa"].as_f64().unwrap();
    let tsv = layout("tsv");
    assert!(tsv.starts_with("section\tkey\tstatistic\tvalue\n"));
    assert!(
        tsv.contains(&format!("grades\tall\tkappa\t{kappa}\n")),
        "{tsv}"
    );
    let tau = record["leaderboard"]["measures"][0]["tau_b"]
        .as_f64()
        .unwrap();
    assert!(
        tsv.contains(&format!("measure\tmap\ttau_b\t{tau}\n")),
        "{tsv}"
    );
    let table = layout("table");
    let line = format!("{:<18}{:>8}", "kappa", format!("{kappa:.4}"));
    assert!(table.contains(&line), "{table}");
    let latex = layout("latex");
    assert!(
        latex.contains(&format!("kappa & {kappa:.4} \\\\")),
        "{latex}"
    );
    assert!(latex.contains("map & "), "{latex}");
}

/// The error message of a failing `agree` with `arguments`, after checking it exits with
/// status 2.
fn refused(arguments: &[String]) -> String {
    let output = run(["agree"]
        .iter()
        .map(ToString::to_string)
        .chain(arguments.iter().cloned()));
    assert_eq!(output.status.code(), Some(2), "{arguments:?} exits with 2");
    String::from_utf8(output.stderr).unwrap()
}

#[test]
fn bad_qrels_are_refused_with_their_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _, _) = small_inputs(dir.path());
    let bad = dir.path().join("bad.qrels");
    let cases = [
        ("1 0 d1 1\n1 0 d2\n", ":2: expected 4 columns"),
        ("1 0 d1 1\n1 0 d2 1.5\n", ":2: expected an integer grade"),
        (
            "1 0 d1 1\n1 0 d2 0\n1 0 d1 2\n",
            ":3: document \"d1\" is judged twice",
        ),
    ];
    for (text, message) in cases {
        std::fs::write(&bad, text).unwrap();
        let stderr = refused(&[a.display().to_string(), bad.display().to_string()]);
        assert!(
            stderr.contains(&format!("{}{message}", bad.display())),
            "{text:?}: {stderr}"
        );
    }
    // A topic outside the task: the embedded task grades no topic "999".
    std::fs::write(&bad, "110661 0 p0000010 1\n999 0 d1 1\n").unwrap();
    let task = repository_file("runs/synth-passage/task.toml");
    let stderr = refused(&[
        "--task".to_string(),
        task.display().to_string(),
        repository_file("qrels/synth-passage.qrels")
            .display()
            .to_string(),
        bad.display().to_string(),
    ]);
    assert!(
        stderr.contains(&format!(
            "{}:2: topic \"999\" is not a topic of the task",
            bad.display()
        )),
        "{stderr}"
    );
    // No pair in common.
    std::fs::write(&bad, "1 0 other 1\n").unwrap();
    let stderr = refused(&[a.display().to_string(), bad.display().to_string()]);
    assert!(
        stderr.contains("grade no (topic, document) pair in common"),
        "{stderr}"
    );
}
