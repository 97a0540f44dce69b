//! `simulate --assessor A,B,C`: a study of several assessors on the same seeds, each in its
//! own folder, side by side in the top folder; and the refused lists.

use std::path::Path;

use crate::shard::simulate_args;
use crate::util::{run, run_ok, write_tiny_text_task};

/// A file grading every document of the tiny task by its truth.
fn truth_file(dir: &Path) -> std::path::PathBuf {
    let file: String = (0..600)
        .map(|doc| {
            let grade = match doc % 10 {
                0 => 3,
                1 | 2 => 1,
                _ => 0,
            };
            format!("{} 0 d{doc:04} {grade}\n", doc % 3 + 1)
        })
        .collect();
    let path = dir.join("truth.qrels");
    std::fs::write(&path, file).unwrap();
    path
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn several_assessors_write_each_study_in_its_folder_and_the_figures_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let truth = truth_file(dir.path());
    let list = format!("official,{0},hybrid:{0}", truth.display());
    let out = dir.path().join("three");
    run_ok(simulate_args(&task, &out, &["--assessor", &list]));
    // The first assessor's folder and the last one's (which use what the first prepared and
    // scored) are the one-assessor studies, byte for byte.
    let hybrid = format!("hybrid:{}", truth.display());
    for (folder, options) in [
        ("official", vec![]),
        ("hybrid-truth", vec!["--assessor", hybrid.as_str()]),
    ] {
        let alone = dir.path().join(format!("alone-{folder}"));
        run_ok(simulate_args(&task, &alone, &options));
        for file in [
            "trials.tsv",
            "runs.tsv",
            "lou.tsv",
            "heldout.tsv",
            "ranks.tsv",
        ] {
            let (a, b) = (alone.join(file), out.join(folder).join(file));
            assert_eq!(
                std::fs::read_to_string(a).unwrap(),
                std::fs::read_to_string(b).unwrap(),
                "{folder}/{file}"
            );
        }
        let mut summary = json(&out.join(folder).join("summary.json"));
        let mut expected = json(&alone.join("summary.json"));
        summary["elapsed_seconds"] = 0.into();
        expected["elapsed_seconds"] = 0.into();
        assert_eq!(summary, expected, "{folder}");
    }
    // The table side by side holds each study's own figures, measure by measure.
    let table = std::fs::read_to_string(out.join("assessors.tsv")).unwrap();
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let column = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let mut seen = Vec::new();
    for line in lines {
        let cells: Vec<&str> = line.split('\t').collect();
        let (folder, measure) = (cells[column("folder")], cells[column("measure")]);
        let study = json(&out.join(folder).join("summary.json"));
        let paired = &study["measures"][measure]["paired"];
        let pairs = &study["measures"][measure]["significance"]["paired"];
        // An empty cell is a figure the study could not compute (null in its summary).
        let number = |name: &str| cells[column(name)].parse::<f64>().ok();
        assert_eq!(number("paired_tau_b"), paired["tau_b"]["mean"].as_f64());
        assert_eq!(
            number("rank_change_max"),
            paired["rank_change"]["max"].as_f64()
        );
        assert!(
            measure != "map" || number("paired_tau_b").is_some(),
            "{line}"
        );
        for count in ["kept", "lost", "reversed"] {
            assert_eq!(number(count), pairs[count].as_f64(), "{line}");
        }
        seen.push((measure.to_string(), folder.to_string()));
    }
    let folders = ["official", "truth", "hybrid-truth"];
    let expected: Vec<(String, String)> = ["P_10", "map", "ndcg_cut_10"]
        .iter()
        .flat_map(|m| folders.iter().map(move |f| (m.to_string(), f.to_string())))
        .collect();
    assert_eq!(seen, expected);
    let top = json(&out.join("summary.json"));
    assert_eq!(
        top["assessors"][2]["name"],
        format!("hybrid:{}", truth.display())
    );
    assert_eq!(top["assessors"][2]["folder"], "hybrid-truth");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("| measure | assessor | paired tau_b (min)"),
        "{report}"
    );
    for measure in ["P_10", "map", "ndcg_cut_10"] {
        for ext in ["png", "svg"] {
            let figure = out.join(format!("figures/assessors_{measure}.{ext}"));
            assert!(figure.exists(), "{}", figure.display());
        }
    }
    assert!(std::fs::read_to_string(out.join("report.html"))
        .unwrap()
        .contains("<svg"));
}

#[test]
fn a_bad_list_of_assessors_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let out = dir.path().join("out");
    for (list, expected) in [
        (
            "official,,completed",
            "expected an assessor between every two commas",
        ),
        ("official,official", "assessor official is given twice"),
        ("official,hybrid:", "expected hybrid:FILE"),
        ("official,missing.qrels", "missing.qrels"),
    ] {
        let output = run(simulate_args(&task, &out, &["--assessor", list]));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.code() == Some(2) && stderr.contains(expected),
            "{list}: {stderr}"
        );
        assert!(!out.join("official/summary.json").exists(), "{list}");
    }
    let output = run([
        "judge",
        "--task",
        task.to_str().unwrap(),
        "--assessor",
        "official,completed",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.code() == Some(2) && stderr.contains("judge grades with one assessor"),
        "{stderr}"
    );
}
