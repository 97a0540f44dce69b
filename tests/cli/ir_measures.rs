//! `reusesim eval` against ir_measures 0.4.3 for the measures trec_eval lacks: RBP (its
//! cwl_eval provider), ERR (gdeval), the condensed variants `judged_only=True` (pytrec_eval's
//! -J) and Success, on trec_eval's test fixture, the DL19 passage runs and TREC-COVID round 1. The
//! reference values in tests/golden/ir_measures/ are written by scripts/ir-measures-goldens.py.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::util::{data_file, stdout_of};

/// gdeval prints ERR with 5 decimals; the goldens keep 6 for the others.
fn tolerance(measure: &str) -> f64 {
    if measure.starts_with("ERR") {
        6e-6
    } else {
        1e-6
    }
}

/// (run, ir_measures name, topic) → value, from one golden file.
fn goldens(name: &str) -> BTreeMap<(String, String, String), f64> {
    goldens_from(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden/ir_measures")
            .join(format!("{name}.tsv")),
    )
}

/// (run, measure name, topic) → value, from a golden file of rows `run measure topic value`.
pub(crate) fn goldens_from(path: &Path) -> BTreeMap<(String, String, String), f64> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let key = (fields[0].into(), fields[1].into(), fields[2].into());
            (key, fields[3].parse().unwrap())
        })
        .collect()
}

/// Scores `runs` on `qrels` for every measure of `expected`, one measure at a time (trec_eval
/// prints measures in its own order, not in the order they were named), and compares each value.
pub(crate) fn check(
    expected: &BTreeMap<(String, String, String), f64>,
    qrels: &Path,
    runs: &[PathBuf],
) {
    let mut names: Vec<&str> = expected.keys().map(|(_, m, _)| m.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let mut mismatches = Vec::new();
    for name in names {
        let ours = scores_of(name, qrels, runs);
        for ((run, measure, topic), value) in expected {
            if measure != name {
                continue;
            }
            let got = ours[&(run.clone(), topic.clone())];
            if (got - value).abs() > tolerance(measure) {
                mismatches.push(format!(
                    "{run} {measure} topic {topic}: ours {got:.6}, ir_measures {value:.6}"
                ));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// (run, topic) → our value of the one measure `name` names.
fn scores_of(name: &str, qrels: &Path, runs: &[PathBuf]) -> BTreeMap<(String, String), f64> {
    let mut args: Vec<String> = ["eval", "-q", "--format", "tsv", "-m", name]
        .map(String::from)
        .to_vec();
    args.push(qrels.display().to_string());
    args.extend(runs.iter().map(|run| run.display().to_string()));
    let output = stdout_of(&args);
    let rows: Vec<Vec<&str>> = output
        .lines()
        .skip(1)
        .map(|line| line.split('\t').collect())
        .collect();
    let printed: std::collections::BTreeSet<&str> = rows.iter().map(|fields| fields[1]).collect();
    assert_eq!(printed.len(), 1, "{name} printed as {printed:?}");
    rows.iter()
        .map(|fields| {
            (
                (fields[0].into(), fields[2].into()),
                fields[3].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn trec_eval_fixture_matches_ir_measures() {
    let expected = goldens("trec_eval-fixture");
    let run = data_file("trec_eval-test-fixture/results.test");
    let (binary, graded): (BTreeMap<_, _>, BTreeMap<_, _>) = expected
        .into_iter()
        .partition(|((_, measure, _), _)| !measure.contains("rel=2"));
    check(
        &binary,
        &data_file("trec_eval-test-fixture/qrels.test"),
        std::slice::from_ref(&run),
    );
    check(
        &graded,
        &data_file("trec_eval-test-fixture/qrels.rel_level"),
        &[run],
    );
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn dl19_passage_runs_match_ir_measures() {
    let runs = data_file("trec-dl-2019-2020/dl19-passage-runs-partial");
    check(
        &goldens("dl19-passage"),
        &data_file("trec-dl-2019-2020/qrels/qrels.dl19-passage.txt"),
        &[runs],
    );
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn trec_covid_round1_matches_ir_measures() {
    let covid = crate::util::covid_round1();
    let expected = goldens("trec-covid-round1");
    let mut summary = expected.clone();
    summary.retain(|(_, _, topic), _| topic == "all");
    assert_eq!(summary.len(), expected.len());
    assert_eq!(
        expected
            .keys()
            .map(|(run, _, _)| run)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        143
    );
    check(&expected, &covid.qrels, &[covid.runs]);
}
