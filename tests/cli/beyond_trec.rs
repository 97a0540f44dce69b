//! The measures trec_eval lacks and the condensed variants through every command that names
//! measures: `eval` with parameters in parentheses, the refusals that say why, and the
//! backtest's corrections that read them.

use std::collections::BTreeMap;

use crate::backtest::{embedded, read_tsv};
use crate::util::{run, run_ok, stdout_of};

#[test]
fn eval_takes_a_comma_inside_parentheses_as_a_parameter() {
    let dir = tempfile::tempdir().unwrap();
    let qrels = dir.path().join("qrels");
    let run_file = dir.path().join("run");
    std::fs::write(&qrels, "1 0 a 1\n1 0 b 0\n1 0 c 2\n").unwrap();
    std::fs::write(&run_file, "1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n1 Q0 c 3 1 r\n").unwrap();
    let output = stdout_of([
        "eval",
        "-m",
        "RBP(rel=1,p=0.5),AP(judged_only=True),ERR@2",
        "--format",
        "tsv",
        qrels.to_str().unwrap(),
        run_file.to_str().unwrap(),
    ]);
    let values: BTreeMap<&str, f64> = output
        .lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            (fields[1], fields[3].parse().unwrap())
        })
        .collect();
    // a and c relevant at ranks 1 and 3; x unjudged.
    assert!((values["RBP(rel=1,p=0.5)"] - 0.5 * (1.0 + 0.25)).abs() < 1e-12);
    // Condensed: a, c at ranks 1 and 2.
    assert!((values["map(judged_only=True)"] - 1.0).abs() < 1e-12);
    assert!((values["ERR@2"] - 1.0 / 16.0).abs() < 1e-12);
}

#[test]
fn malformed_parameters_and_unrankable_measures_are_errors_that_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let qrels = dir.path().join("qrels");
    std::fs::write(&qrels, "1 0 a 1\n").unwrap();
    let task = embedded("runs/synth-passage/task.toml");
    let out = dir.path().join("study");
    let audited_run = embedded("runs/synth-passage/runs/team01_run1");
    let audit = |measures| {
        vec![
            "audit",
            "--task",
            task.to_str().unwrap(),
            "--run",
            audited_run.to_str().unwrap(),
            "--study-seeds",
            "0",
            "--measures",
            measures,
        ]
    };
    let cases: [(Vec<&str>, &str); 8] = [
        (
            vec![
                "eval",
                "-m",
                "RBP(p=1.5)",
                qrels.to_str().unwrap(),
                qrels.to_str().unwrap(),
            ],
            "expected a persistence p strictly between 0 and 1, found 1.5",
        ),
        (
            vec![
                "simulate",
                "--task",
                task.to_str().unwrap(),
                "--measures",
                "map,RBPResidual(p=0.8)",
                "--out",
                out.to_str().unwrap(),
            ],
            "RBPResidual(p=0.8) cannot rank runs in the study: RBP's residual",
        ),
        (
            vec![
                "backtest",
                "--task",
                task.to_str().unwrap(),
                "--measures",
                "RBPResidual",
                "--out",
                out.to_str().unwrap(),
            ],
            "cannot rank runs in the backtest",
        ),
        (
            vec![
                "eval",
                "-m",
                "P.x",
                qrels.to_str().unwrap(),
                qrels.to_str().unwrap(),
            ],
            "P takes whole-number cutoffs of at least 1 after its dot, e.g. P.5,10",
        ),
        (
            audit("map,gm_map"),
            "gm_map cannot be estimated in the audit: a geometric mean",
        ),
        (
            audit("rbp_resid"),
            "rbp_resid cannot rank runs in the audit",
        ),
        (
            vec![
                "simulate",
                "--task",
                task.to_str().unwrap(),
                "--measures",
                "num_q",
                "--out",
                out.to_str().unwrap(),
            ],
            "num_q cannot rank runs in the study: num_q is the number of topics",
        ),
        (
            audit("map,runid"),
            "runid and relstring are lines of trec_eval's output, not scores",
        ),
    ];
    for (args, message) in cases {
        let output = run(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

#[test]
fn the_backtest_scores_condensed_lists_and_rbp_residual_intervals() {
    let task = embedded("runs/synth-passage/task.toml");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("backtest");
    run_ok([
        "backtest",
        "--task",
        task.to_str().unwrap(),
        "--teams",
        "team03",
        "--measures",
        "map,RBP(p=0.8)",
        "--format",
        "svg",
        "--out",
        out.to_str().unwrap(),
    ]);
    let rows = read_tsv(&out.join("backtest.tsv"));
    assert!(!rows.is_empty());
    let value =
        |row: &BTreeMap<String, String>, column: &str| -> f64 { row[column].parse().unwrap() };
    for row in &rows {
        let collection = value(row, "collection_score");
        // Dropping unjudged documents only lifts the judged ones: condensed AP and RBP are at
        // least the collection's scores, which count the unjudged non-relevant.
        assert!(
            value(row, "condensed_score") >= collection - 1e-12,
            "{row:?}"
        );
        match row["measure"].as_str() {
            "map" => assert_eq!(row["rbp_residual_upper"], "", "{row:?}"),
            "RBP(p=0.8)" => {
                // The truth grades only documents the residual counted as possibly relevant.
                let truth = value(row, "true_score");
                let upper = value(row, "rbp_residual_upper");
                assert!(
                    collection <= truth + 1e-12 && truth <= upper + 1e-12,
                    "{row:?}"
                );
            }
            other => panic!("unexpected measure {other}"),
        }
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("backtest.json")).unwrap()).unwrap();
    let rbp = &summary["measures"][1];
    assert_eq!(rbp["measure"], "RBP(p=0.8)");
    assert_eq!(rbp["residual_interval_coverage"], 1.0);
    let estimators: Vec<&str> = rbp["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["estimator"].as_str().unwrap())
        .collect();
    assert!(estimators.contains(&"condensed"), "{estimators:?}");
    assert!(
        estimators.contains(&"rbp_residual_midpoint"),
        "{estimators:?}"
    );
    assert!(out.join("backtest_RBP_p_0_8_.svg").is_file());
}
