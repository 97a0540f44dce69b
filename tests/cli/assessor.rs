//! `--assessor` for `judge` and `simulate`, and `reusesim complete`: the assessor's columns,
//! the fingerprint that refuses another assessor, the completed qrels, and bad assessor files.

use std::path::Path;

use crate::shard::{simulate_args, STOP_AFTER_UNITS};
use crate::util::{reusesim, run, run_ok, write_tiny_text_task};

/// The header of a result table.
fn header(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let first = text.lines().next().unwrap();
    first.split('\t').map(str::to_string).collect()
}

#[test]
fn a_completed_study_adds_the_assessors_columns_and_refuses_another_assessor_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let out = dir.path().join("completed");
    let args = |extra: &[&str]| {
        let extra: Vec<&str> = ["--assessor", "completed", "--strategies", "hical,depth"]
            .iter()
            .chain(extra)
            .copied()
            .collect();
        simulate_args(&task, &out, &extra)
    };
    let output = reusesim()
        .args(args(&["--threads", "1"]))
        .env(STOP_AFTER_UNITS, "2")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    // Resuming with the official assessor is refused, naming the difference.
    let official: Vec<String> =
        simulate_args(&task, &out, &["--strategies", "hical,depth", "--resume"]);
    let refused = run(&official);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && stderr.contains("setting assessor"),
        "{stderr}"
    );
    run_ok(args(&["--resume"]));
    for (table, columns) in [
        (
            "trials.tsv",
            &["assessor_tau_b", "assessor_tau_ap", "assessor_recall"][..],
        ),
        (
            "strategies.tsv",
            &[
                "control_assessor_tau_b",
                "control_assessor_recall",
                "file_share",
                "drawn_share",
            ],
        ),
    ] {
        let found = header(&out.join(table));
        for column in columns {
            assert!(found.contains(&column.to_string()), "{table}: {found:?}");
        }
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["assessor"]["name"], "completed");
    assert!(summary["measures"]["map"]["assessor"]["control_tau_b"]["mean"].is_number());
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("The simulated assessor is `completed`"),
        "{report}"
    );
    assert!(report.contains("## Against the assessor's ranking"));
    // The official study writes none of it.
    let plain = dir.path().join("official");
    run_ok(simulate_args(
        &task,
        &plain,
        &["--strategies", "hical,depth"],
    ));
    assert!(!header(&plain.join("trials.tsv"))
        .iter()
        .any(|c| c.starts_with("assessor")));
    let summary = std::fs::read_to_string(plain.join("summary.json")).unwrap();
    assert!(!summary.contains("\"assessor\""));
}

#[test]
fn a_fuller_file_grades_the_judge_and_its_trace_names_the_sources() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    // Every document of the corpus graded by its truth: the tiny task's grades follow d % 10.
    let mut file = String::new();
    for doc in 0..600 {
        let grade = match doc % 10 {
            0 => 3,
            1 | 2 => 1,
            _ => 0,
        };
        file += &format!("{} 0 d{doc:04} {grade}\n", doc % 3 + 1);
    }
    let fuller = dir.path().join("fuller.qrels");
    std::fs::write(&fuller, file).unwrap();
    let out = dir.path().join("judged");
    run_ok([
        "judge",
        "--task",
        task.to_str().unwrap(),
        "--iterations",
        "2000",
        "--assessor",
        fuller.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let trace = std::fs::read_to_string(out.join("trace.tsv")).unwrap();
    let mut lines = trace.lines();
    assert!(lines.next().unwrap().ends_with("grade\tofficial\tsource"));
    let mut sources = std::collections::BTreeSet::new();
    for line in lines {
        let fields: Vec<&str> = line.split('\t').collect();
        let (docid, grade, official, source) = (fields[3], fields[5], fields[6], fields[7]);
        let number: usize = docid[1..].parse().unwrap();
        let truth = match number % 10 {
            0 => "3",
            1 | 2 => "1",
            _ => "0",
        };
        assert_eq!(grade, truth, "{line}");
        assert_eq!(official == "1", source == "official", "{line}");
        sources.insert(source.to_string());
    }
    assert!(sources.contains("file"), "{sources:?}");
}

#[test]
fn complete_writes_one_seeds_completed_qrels() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let completed = |seed: &str| {
        let out = dir.path().join(format!("completed-{seed}.qrels"));
        run_ok([
            "complete",
            "--task",
            task.to_str().unwrap(),
            "--seed",
            seed,
            "--out",
            out.to_str().unwrap(),
        ]);
        std::fs::read_to_string(out).unwrap()
    };
    let first = completed("1");
    assert_eq!(first, completed("1"));
    assert_ne!(first, completed("2"));
    // Every official judgment is kept as it is.
    let official = std::fs::read_to_string(dir.path().join("task/qrels")).unwrap();
    let lines: std::collections::BTreeSet<(String, String, String)> = first
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            (f[0].into(), f[2].into(), f[3].into())
        })
        .collect();
    for line in official.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert!(
            lines.contains(&(f[0].into(), f[2].into(), f[3].into())),
            "{line}"
        );
    }
    assert!(lines.len() > official.lines().count());
}

#[test]
fn a_bad_assessor_file_is_an_error_naming_its_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let cases = [
        (None, "missing.qrels"),
        (
            Some("1 0 d0000 1\n7 0 d0001 1\n"),
            "bad.qrels:2: topic \"7\" is not a topic",
        ),
        (
            Some("1 0 d0000 1\n1 0 d0003 yes\n"),
            "bad.qrels:2: expected an integer grade",
        ),
        (Some("1 0 d0000\n"), "bad.qrels:1: expected 4 columns"),
    ];
    for (index, (text, expected)) in cases.into_iter().enumerate() {
        let file = match text {
            Some(text) => {
                let file = dir.path().join("bad.qrels");
                std::fs::write(&file, text).unwrap();
                file
            }
            None => dir.path().join("missing.qrels"),
        };
        // As a fuller file and as a hybrid's file alike.
        for prefix in ["", "hybrid:"] {
            let out = dir.path().join(format!("out{index}{}", prefix.len()));
            let assessor = format!("{prefix}{}", file.display());
            let output = run(simulate_args(&task, &out, &["--assessor", &assessor]));
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                output.status.code() == Some(2) && stderr.contains(expected),
                "{assessor}: {stderr}"
            );
            assert!(!out.join("summary.json").exists());
            assert!(!out.join("trials.tsv").exists());
        }
    }
}

#[test]
fn qrels_that_list_only_relevant_documents_cannot_be_completed_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let qrels = dir.path().join("task/qrels");
    let relevant_only: String = (std::fs::read_to_string(&qrels).unwrap().lines())
        .filter(|line| !line.ends_with(" 0"))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(&qrels, relevant_only).unwrap();
    let task_arg = task.to_str().unwrap();
    let completed = dir.path().join("completed.qrels");
    let study = dir.path().join("study");
    let judged = dir.path().join("judged");
    let run_file = dir.path().join("task/runs/t0r0");
    let complete = [
        "complete",
        "--task",
        task_arg,
        "--out",
        completed.to_str().unwrap(),
    ];
    let commands: [Vec<String>; 4] = [
        complete.map(String::from).to_vec(),
        simulate_args(&task, &study, &["--assessor", "completed"]),
        [
            "judge",
            "--task",
            task_arg,
            "--assessor",
            "completed",
            "--iterations",
            "2000",
            "--out",
            judged.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec(),
        [
            "audit",
            "--task",
            task_arg,
            "--runs",
            run_file.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec(),
    ];
    for args in commands {
        let output = run(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !output.status.success()
                && stderr.contains(&qrels.display().to_string())
                && stderr.contains("no non-relevant judgment"),
            "{args:?}: {stderr}"
        );
    }
    assert!(!completed.exists());
    assert!(!study.exists());
    assert!(!judged.exists());
    // With its non-relevant judgments back, the same task completes.
    write_tiny_text_task(&dir.path().join("task"));
    run_ok(complete);
}

/// A result table as rows of cells, the header first.
fn table(path: &Path) -> Vec<Vec<String>> {
    (std::fs::read_to_string(path).unwrap().lines())
        .map(|line| line.split('\t').map(str::to_string).collect())
        .collect()
}

/// `rows` cut to the columns named in `header`, in its order.
fn projected(rows: &[Vec<String>], header: &[String]) -> Vec<Vec<String>> {
    let positions: Vec<usize> = (header.iter())
        .map(|name| rows[0].iter().position(|c| c == name).unwrap())
        .collect();
    (rows.iter())
        .map(|row| positions.iter().map(|&pos| row[pos].clone()).collect())
        .collect()
}

/// `value` without the keys the assessor adds or that name it.
fn without_assessor(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(map) => Value::Object(
            (map.iter())
                .filter(|(key, _)| {
                    ![
                        "assessor",
                        "control_assessor",
                        "fingerprint",
                        "elapsed_seconds",
                        "deviations",
                    ]
                    .contains(&key.as_str())
                })
                .map(|(key, value)| (key.clone(), without_assessor(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_assessor).collect()),
        other => other.clone(),
    }
}

/// Every file under `dir`, relative, the judging's own records aside.
fn result_files(dir: &Path) -> Vec<std::path::PathBuf> {
    fn walk(root: &Path, dir: &Path, files: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, files);
            } else {
                files.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files);
    files.retain(|file| !file.to_string_lossy().starts_with("units.journal"));
    files.sort();
    files
}

#[test]
fn a_hybrid_assessor_whose_file_is_the_official_qrels_changes_nothing_official_writes() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let qrels = dir.path().join("task/qrels");
    let hybrid = format!("hybrid:{}", qrels.display());
    let study = [
        "--strategies",
        "hical,depth,mtf,bandit",
        "--budget-fractions",
        "0.5,1",
    ];
    let official = dir.path().join("official");
    let mixed = dir.path().join("hybrid");
    run_ok(simulate_args(&task, &official, &study));
    let with_hybrid: Vec<&str> = study
        .iter()
        .copied()
        .chain(["--assessor", &hybrid])
        .collect();
    run_ok(simulate_args(&task, &mixed, &with_hybrid));
    let files = result_files(&official);
    assert_eq!(files, result_files(&mixed));
    let mut compared = 0;
    let mut differ: Vec<String> = Vec::new();
    for file in &files {
        let (a, b) = (official.join(file), mixed.join(file));
        let name = file.to_string_lossy();
        if name.ends_with(".tsv") {
            // The assessor's columns aside, the same table.
            let (a, b) = (table(&a), table(&b));
            assert_eq!(a, projected(&b, &a[0]), "{name}");
            // Its own ranking is the official one.
            for (ours, theirs) in [("assessor_tau_b", "tau_b"), ("assessor_recall", "recall")] {
                if b[0].contains(&ours.to_string()) {
                    let header = [ours.to_string()];
                    let (ours, theirs) = (projected(&b, &header), projected(&b, &[theirs.into()]));
                    assert_eq!(ours[1..], theirs[1..], "{name}");
                }
            }
        } else if name == "summary.json" {
            let read = |path: &Path| -> serde_json::Value {
                serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
            };
            assert_eq!(without_assessor(&read(&a)), without_assessor(&read(&b)));
        } else if name.starts_with("report.") || name.starts_with("figures/significance_") {
            // The report adds the assessor's lead and section, the significance figures the
            // controls against the assessor's qrels (a task without a truth).
            continue;
        } else {
            // Figures and qrels: byte for byte.
            if std::fs::read(&a).unwrap() != std::fs::read(&b).unwrap() {
                differ.push(name.to_string());
            }
        }
        compared += 1;
    }
    assert!(differ.is_empty(), "{differ:?}");
    assert!(compared > 30, "{files:?}");
}

#[test]
fn a_hybrid_judgings_trace_names_who_graded_each_judgment() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    // Every document graded 2 by the file, so that its grades stand out from the official ones.
    let file: String = (0..600)
        .map(|doc| format!("{} 0 d{doc:04} 2\n", doc % 3 + 1))
        .collect();
    let fuller = dir.path().join("all-two.qrels");
    std::fs::write(&fuller, file).unwrap();
    let official = crate::util::read_qrels_map(&dir.path().join("task/qrels"));
    let out = dir.path().join("judged");
    let hybrid = format!("hybrid:{}", fuller.display());
    run_ok([
        "judge",
        "--task",
        task.to_str().unwrap(),
        "--iterations",
        "2000",
        "--assessor",
        &hybrid,
        "--out",
        out.to_str().unwrap(),
    ]);
    let trace = std::fs::read_to_string(out.join("trace.tsv")).unwrap();
    let mut lines = trace.lines();
    assert!(lines
        .next()
        .unwrap()
        .ends_with("official\tsource\tassessor"));
    let mut graders = std::collections::BTreeMap::new();
    for line in lines {
        let fields: Vec<&str> = line.split('\t').collect();
        let (topic, batch, docid, grade, assessor) =
            (fields[0], fields[2], fields[3], fields[5], fields[8]);
        // The pool (batch 0) by the official grades, the rest by the file.
        let expected = if batch == "0" {
            let grade = official.get(topic).and_then(|t| t.get(docid));
            ("official", grade.copied().unwrap_or(0))
        } else {
            ("file", 2)
        };
        assert_eq!(
            (assessor, grade.parse::<i32>().unwrap()),
            expected,
            "{line}"
        );
        *graders.entry(assessor.to_string()).or_insert(0) += 1;
    }
    assert!(graders.len() == 2, "{graders:?}");
}

#[test]
fn a_hybrid_without_a_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    for spelling in ["hybrid:", "hybrid"] {
        let out = dir.path().join("out");
        let output = run(simulate_args(&task, &out, &["--assessor", spelling]));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.code() == Some(2) && stderr.contains("expected hybrid:FILE"),
            "{spelling}: {stderr}"
        );
        assert!(!out.exists());
    }
}
