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
    for page in ["report.md", "report.html"] {
        let text = std::fs::read_to_string(plain.join(page)).unwrap();
        assert!(!text.contains("How far the assessor agrees"), "{page}");
    }
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

/// A file of the repository.
fn repository_file(relative: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// The embedded task's qrels lines as (topic, document, grade).
fn qrels_lines(path: &Path) -> Vec<(String, String, i32)> {
    (std::fs::read_to_string(path).unwrap().lines())
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (
                fields[0].into(),
                fields[2].into(),
                fields[3].parse().unwrap(),
            )
        })
        .collect()
}

/// `agree --format json` of the official qrels (A) and `b`, with the embedded task's runs.
fn agree_with_official(task: &Path, official: &Path, b: &Path) -> serde_json::Value {
    let runs = repository_file("runs/synth-passage/runs");
    let output = run_ok([
        "agree".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "--task".as_ref(),
        task.as_os_str(),
        official.as_os_str(),
        b.as_os_str(),
        runs.as_os_str(),
    ]);
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Asserts that one seed's agreement in `summary.json` is `agree`'s record of the same qrels,
/// to 1e-12 (counts and run names exactly), and returns the report's cells of the seed's row
/// of grades, and its rows of leaderboards.
fn assert_seed_matches(seed: &serde_json::Value, agreed: &serde_json::Value) -> Vec<Vec<String>> {
    let close = |ours: &serde_json::Value, theirs: &serde_json::Value, what: &str| match (
        ours.as_f64(),
        theirs.as_f64(),
    ) {
        (Some(ours), Some(theirs)) => {
            assert!(
                (ours - theirs).abs() <= 1e-12,
                "{what}: {ours} against {theirs}"
            )
        }
        _ => assert_eq!(ours, theirs, "{what}"),
    };
    let cell = |value: &serde_json::Value| match value.as_f64() {
        Some(value) => format!("{value:.3}"),
        None => "n/a".to_string(),
    };
    let (grades, their_grades) = (&seed["grades"], &agreed["grades"]);
    assert_eq!(grades["pairs"], their_grades["pairs"]);
    assert_eq!(grades["only_official"], agreed["only_a"]);
    assert_eq!(grades["only_assessor"], agreed["only_b"]);
    for (ours, theirs) in [
        ("kappa", "kappa"),
        ("kappa_linear", "kappa_linear"),
        ("kappa_quadratic", "kappa_quadratic"),
        ("binary_kappa", "binary_kappa"),
        ("relevant_share_official", "relevant_share_a"),
        ("relevant_share_assessor", "relevant_share_b"),
    ] {
        close(&grades[ours], &their_grades[theirs], ours);
    }
    let mut rows = vec![vec![
        seed["seed"].to_string(),
        grades["pairs"].to_string(),
        grades["only_official"].to_string(),
        grades["only_assessor"].to_string(),
        cell(&grades["kappa"]),
        cell(&grades["binary_kappa"]),
        cell(&grades["relevant_share_official"]),
        cell(&grades["relevant_share_assessor"]),
        cell(&grades["relevant_share_only_assessor"]),
    ]];
    let measures = agreed["leaderboard"]["measures"].as_array().unwrap();
    assert_eq!(measures.len(), 3);
    for theirs in measures {
        let name = theirs["measure"].as_str().unwrap();
        let ours = &seed["measures"][name];
        for figure in ["tau_b", "tau_ap", "mean_difference", "rmse"] {
            close(&ours[figure], &theirs[figure], &format!("{name} {figure}"));
        }
        assert_eq!(theirs["top"][0]["top"], 10);
        close(&ours["top_10_tau_b"], &theirs["top"][0]["tau_b"], "top 10");
        let drop = &theirs["largest_drop"]["drop"];
        close(
            &ours["largest_drop"],
            &drop.as_f64().unwrap_or(0.0).into(),
            "drop",
        );
        assert_eq!(
            ours["largest_drop_run"], theirs["largest_drop_run"],
            "{name}"
        );
        rows.push(vec![
            name.to_string(),
            seed["seed"].to_string(),
            cell(&ours["tau_b"]),
            cell(&ours["tau_ap"]),
            cell(&ours["top_10_tau_b"]),
            match ours["largest_drop_run"].as_str() {
                Some(run) => format!("{} ({run})", ours["largest_drop"].as_f64().unwrap()),
                None => "0".to_string(),
            },
            cell(&ours["mean_difference"]),
            cell(&ours["rmse"]),
        ]);
    }
    rows
}

/// Asserts that `report.md` and `report.html` in `out` hold each of `rows` in the section on
/// the assessor's agreement.
fn assert_reports_show(out: &Path, rows: &[Vec<String>]) {
    let title = "How far the assessor agrees with the official qrels";
    let markdown = std::fs::read_to_string(out.join("report.md")).unwrap();
    let section = &markdown[markdown.find(&format!("## {title}")).expect(title)..];
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let page = &html[html.find(&format!(">{title}</h2>")).expect(title)..];
    for row in rows {
        let line = format!("| {} |", row.join(" | "));
        assert!(section.contains(&line), "{line} not in report.md");
        let cells: String = row.iter().map(|cell| format!("<td>{cell}</td>")).collect();
        assert!(
            page.contains(&format!("<tr>{cells}</tr>")),
            "{cells} not in report.html"
        );
    }
}

#[test]
fn a_study_says_how_far_its_label_file_agrees_with_the_official_qrels_as_agree_does() {
    let dir = tempfile::tempdir().unwrap();
    let task = repository_file("runs/synth-passage/task.toml");
    let official = repository_file("qrels/synth-passage.qrels");
    let labels = repository_file("runs/synth-passage/labels.qrels");
    let out = dir.path().join("labels");
    run_ok(simulate_args(
        &task,
        &out,
        &["--assessor", labels.to_str().unwrap()],
    ));
    // The assessor's qrels as docs/assessor.md states them: the file's grades, then the
    // official grades of the pairs the file lacks.
    let label_lines = qrels_lines(&labels);
    let labelled: std::collections::BTreeSet<(&str, &str)> = (label_lines.iter())
        .map(|(topic, doc, _)| (topic.as_str(), doc.as_str()))
        .collect();
    let mut fuller = String::new();
    for (topic, doc, grade) in label_lines.iter().chain(
        qrels_lines(&official)
            .iter()
            .filter(|(topic, doc, _)| !labelled.contains(&(topic.as_str(), doc.as_str()))),
    ) {
        fuller += &format!("{topic} 0 {doc} {grade}\n");
    }
    let fuller_path = dir.path().join("fuller.qrels");
    std::fs::write(&fuller_path, fuller).unwrap();
    let agreed = agree_with_official(&task, &official, &fuller_path);
    // The labels the official qrels lack, and how many of them are relevant (level 1).
    let official_pairs: std::collections::BTreeSet<(String, String)> = (qrels_lines(&official))
        .into_iter()
        .map(|(topic, doc, _)| (topic, doc))
        .collect();
    let only_labels: Vec<i32> = (label_lines.iter())
        .filter(|(topic, doc, _)| !official_pairs.contains(&(topic.clone(), doc.clone())))
        .map(|(_, _, grade)| *grade)
        .collect();
    let relevant_share =
        only_labels.iter().filter(|&&grade| grade >= 1).count() as f64 / only_labels.len() as f64;
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let agreement = &summary["assessor"]["agreement"];
    assert_eq!(agreement["relevance_level"], 1);
    let seeds = agreement["seeds"].as_array().unwrap();
    assert_eq!(seeds.len(), 2);
    let mut rows = Vec::new();
    for seed in seeds {
        rows.extend(assert_seed_matches(seed, &agreed));
        let share = seed["grades"]["relevant_share_only_assessor"]
            .as_f64()
            .unwrap();
        assert!(
            (share - relevant_share).abs() <= 1e-12,
            "{share} {relevant_share}"
        );
    }
    // A file grades alike on every seed: the mean is the seeds' figure.
    let over = &agreement["over_seeds"];
    assert_eq!(over["grades"]["kappa"]["mean"], seeds[0]["grades"]["kappa"]);
    assert_eq!(
        over["measures"]["map"]["tau_b"]["max"],
        seeds[0]["measures"]["map"]["tau_b"]
    );
    assert_reports_show(&out, &rows);
}

#[test]
fn a_completed_study_says_how_far_each_seeds_completion_agrees_as_agree_does() {
    let dir = tempfile::tempdir().unwrap();
    let task = repository_file("runs/synth-passage/task.toml");
    let official = repository_file("qrels/synth-passage.qrels");
    let out = dir.path().join("completed");
    run_ok(simulate_args(&task, &out, &["--assessor", "completed"]));
    let official_pairs: std::collections::BTreeSet<(String, String)> = (qrels_lines(&official))
        .into_iter()
        .map(|(topic, doc, _)| (topic, doc))
        .collect();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let agreement = &summary["assessor"]["agreement"];
    let seeds = agreement["seeds"].as_array().unwrap();
    assert_eq!(seeds.len(), 2);
    let mut rows = Vec::new();
    let mut map_tau_b = Vec::new();
    for seed in seeds {
        let number = seed["seed"].to_string();
        let completed = dir.path().join(format!("completed-{number}.qrels"));
        run_ok([
            "complete".as_ref(),
            "--task".as_ref(),
            task.as_os_str(),
            "--seed".as_ref(),
            number.as_ref(),
            "--out".as_ref(),
            completed.as_os_str(),
        ]);
        rows.extend(assert_seed_matches(
            seed,
            &agree_with_official(&task, &official, &completed),
        ));
        // The drawn grades: those of the pairs the official qrels lack.
        let drawn: Vec<i32> = (qrels_lines(&completed).into_iter())
            .filter(|(topic, doc, _)| !official_pairs.contains(&(topic.clone(), doc.clone())))
            .map(|(_, _, grade)| grade)
            .collect();
        let share = drawn.iter().filter(|&&grade| grade >= 1).count() as f64 / drawn.len() as f64;
        let ours = seed["grades"]["relevant_share_only_assessor"].as_f64();
        assert!((ours.unwrap() - share).abs() <= 1e-12, "{ours:?} {share}");
        map_tau_b.push(seed["measures"]["map"]["tau_b"].as_f64().unwrap());
    }
    // The mean over seeds is the seeds' mean.
    let mean = agreement["over_seeds"]["measures"]["map"]["tau_b"]["mean"]
        .as_f64()
        .unwrap();
    assert!((mean - (map_tau_b[0] + map_tau_b[1]) / 2.0).abs() <= 1e-15);
    assert_reports_show(&out, &rows);
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
