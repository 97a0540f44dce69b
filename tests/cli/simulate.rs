//! `reusesim simulate`: identical outputs whatever the thread count, every output file, and the
//! invariants of a study on TREC-COVID round 1 (run features).

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::{read_qrels_map, stdout_of, write_tiny_text_task};

const OUTPUT_FILES: &[&str] = &[
    "summary.json",
    "runs.tsv",
    "trials.tsv",
    "heldout.tsv",
    "lou.tsv",
    "report.md",
];

fn simulate(task: &Path, out: &Path, extra: &[&str]) {
    crate::util::run_on_task("simulate", task, out, extra);
}

/// The file's bytes, with summary.json's and report.md's elapsed time blanked (the only
/// field that may differ between two runs).
fn comparable(dir: &Path, name: &str) -> String {
    let text = std::fs::read_to_string(dir.join(name)).unwrap();
    text.lines()
        .filter(|line| !line.contains("elapsed"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn outputs_are_identical_with_one_and_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    let settings = ["--seeds", "2", "--iterations", "2000", "--keep-qrels"];
    simulate(&task, &one, &[&settings[..], &["--threads", "1"]].concat());
    simulate(&task, &two, &[&settings[..], &["--threads", "2"]].concat());
    for name in OUTPUT_FILES {
        assert!(one.join(name).exists(), "{name} missing");
        assert_eq!(
            comparable(&one, name),
            comparable(&two, name),
            "{name} differs"
        );
    }
    let kept: Vec<_> = std::fs::read_dir(one.join("qrels")).unwrap().collect();
    // 2 seeds x (control + 4 teams), a qrels and a trace each.
    assert_eq!(kept.len(), 2 * 5 * 2);
    for name in ["control-s1.qrels", "team0-s2.qrels", "team3-s1.trace.tsv"] {
        assert_eq!(
            std::fs::read(one.join("qrels").join(name)).unwrap(),
            std::fs::read(two.join("qrels").join(name)).unwrap()
        );
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(one.join("summary.json")).unwrap()).unwrap();
    for field in [
        "task",
        "settings",
        "measures",
        "simulations",
        "elapsed_seconds",
    ] {
        assert!(summary.get(field).is_some(), "summary.json lacks {field}");
    }
    let map = &summary["measures"]["map"];
    for path in [
        ["lou", "tau_b"],
        ["trials", "tau_ap"],
        ["control", "recall"],
    ] {
        let spread = &map[path[0]][path[1]];
        let (mean, min, max) = (
            spread["mean"].as_f64().unwrap(),
            spread["min"].as_f64().unwrap(),
            spread["max"].as_f64().unwrap(),
        );
        assert!(min <= mean && mean <= max, "{path:?}: {spread}");
    }
    assert!(summary["settings"]["deviations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d.as_str().unwrap().contains("2000 Pegasos iterations")));
}

/// A TREC-COVID round-1 task restricted to the first `topics` topics of the qrels.
fn covid_subset(dir: &Path, topics: usize) -> std::path::PathBuf {
    let crate::util::Covid {
        runs,
        qrels,
        leaderboard,
    } = crate::util::covid_round1();
    let keep: Vec<String> = (1..=topics).map(|t| t.to_string()).collect();
    let subset: String = std::fs::read_to_string(&qrels)
        .unwrap()
        .lines()
        .filter(|line| keep.contains(&line.split_whitespace().next().unwrap().to_string()))
        .map(|line| format!("{line}\n"))
        .collect();
    let subset_path = dir.join("qrels.subset");
    std::fs::write(&subset_path, subset).unwrap();
    crate::util::write_covid_task(dir, &runs, &subset_path, &leaderboard)
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn trec_covid_study_keeps_budgets_and_never_credits_held_out_runs() {
    let dir = tempfile::tempdir().unwrap();
    let task = covid_subset(dir.path(), 4);
    let out = dir.path().join("study");
    simulate(
        &task,
        &out,
        &[
            "--seeds",
            "1",
            "--iterations",
            "2000",
            "--keep-qrels",
            "--teams",
            "sabir,CSIROmed,BBGhelani,IRIT_markers",
            "--measures",
            "map,num_rel_ret,P_10",
        ],
    );
    let official = read_qrels_map(&dir.path().join("qrels.subset"));
    for entry in std::fs::read_dir(out.join("qrels")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "qrels") {
            let simulated = read_qrels_map(&path);
            for (topic, judgments) in &simulated {
                let budget = official[topic].len();
                assert!(
                    judgments.len() >= budget,
                    "{}: topic {topic} has {} of {budget}",
                    path.display(),
                    judgments.len()
                );
                // More than N_t only when the pool alone is larger (then CAL adds nothing).
                if judgments.len() > budget {
                    let trace = std::fs::read_to_string(path.with_extension("trace.tsv")).unwrap();
                    assert!(!trace.lines().any(|l| l.starts_with(&format!("{topic}\t"))
                        && !l.split('\t').nth(2).unwrap().eq("0")));
                }
            }
        }
    }
    // Held-out runs never gain relevant documents: num_rel_ret on their trial <= official.
    let heldout = std::fs::read_to_string(out.join("heldout.tsv")).unwrap();
    let mut checked = 0;
    for line in heldout.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        if fields[3] == "num_rel_ret" {
            let (score, official): (f64, f64) =
                (fields[4].parse().unwrap(), fields[6].parse().unwrap());
            assert!(score <= official, "{line}");
            checked += 1;
        }
    }
    assert!(checked >= 4);
    // The control recovers most officially relevant documents.
    let trials =
        reusesim::sim::analysis::files::read_table::<reusesim::sim::analysis::TrialRow>(&out)
            .unwrap();
    let control: Vec<f64> = trials
        .iter()
        .filter(|trial| trial.held_out.is_none())
        .map(|trial| trial.recall)
        .collect();
    assert!(
        control.iter().all(|&recall| recall > 0.7),
        "control recall {control:?}"
    );
    let runs: BTreeMap<String, usize> = std::fs::read_to_string(out.join("runs.tsv"))
        .unwrap()
        .lines()
        .skip(1)
        .fold(BTreeMap::new(), |mut counts, line| {
            *counts
                .entry(line.split('\t').nth(2).unwrap().to_string())
                .or_default() += 1;
            counts
        });
    assert_eq!(runs["map"], 143, "every run has a row per measure");

    // The study's in-memory scoring agrees with `reusesim eval` on the official qrels.
    let runs_dir = crate::util::covid_round1().runs;
    let evaluated = stdout_of([
        "eval".as_ref(),
        "-m".as_ref(),
        "map,P_10".as_ref(),
        "--format".as_ref(),
        "tsv".as_ref(),
        dir.path().join("qrels.subset").as_os_str(),
        runs_dir.as_os_str(),
    ]);
    let expected = crate::util::tsv_summaries(&evaluated);
    let mut compared = 0;
    for line in std::fs::read_to_string(out.join("runs.tsv"))
        .unwrap()
        .lines()
        .skip(1)
    {
        let fields: Vec<&str> = line.split('\t').collect();
        if let Some(value) = expected.get(&(fields[0].to_string(), fields[2].to_string())) {
            let official: f64 = fields[3].parse().unwrap();
            assert!(
                (official - value).abs() < 1e-12,
                "{line}: eval says {value}"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 2 * 143);
}
