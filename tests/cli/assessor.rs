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
        let out = dir.path().join(format!("out{index}"));
        let assessor = file.display().to_string();
        let output = run(simulate_args(&task, &out, &["--assessor", &assessor]));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !output.status.success() && stderr.contains(expected),
            "{stderr}"
        );
        assert!(!out.join("summary.json").exists());
        assert!(!out.join("trials.tsv").exists());
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
