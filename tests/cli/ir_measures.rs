//! `reusesim eval` against ir_measures 0.4.3 for the measures trec_eval lacks: RBP (its
//! cwl_eval provider), ERR (gdeval), the condensed variants `judged_only=True` (pytrec_eval's
//! -J), on trec_eval's test fixture, the DL19 passage runs and TREC-COVID round 1. The
//! reference values in tests/golden/ir_measures/ are written by scripts/ir-measures-goldens.py.
//! Success's rows wait for trec_eval's `success` family and are not compared yet.

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
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/ir_measures")
        .join(format!("{name}.tsv"));
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let key = (fields[0].into(), fields[1].into(), fields[2].into());
            (key, fields[3].parse().unwrap())
        })
        .filter(|((_, measure, _), _): &((String, String, String), f64)| {
            !measure.starts_with("Success")
        })
        .collect()
}

/// Scores `runs` on `qrels` for every measure of `expected` and compares each value.
fn check(expected: &BTreeMap<(String, String, String), f64>, qrels: &Path, runs: &[PathBuf]) {
    let mut names: Vec<&str> = expected.keys().map(|(_, m, _)| m.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let mut args: Vec<String> = vec!["eval".into(), "-q".into(), "--format".into(), "tsv".into()];
    for name in &names {
        args.extend(["-m".into(), (*name).into()]);
    }
    args.push(qrels.display().to_string());
    args.extend(runs.iter().map(|run| run.display().to_string()));
    let output = stdout_of(&args);
    // Our canonical names come out in the order the measures were named.
    let mut ours_in_order: Vec<String> = Vec::new();
    let mut ours: BTreeMap<(String, String, String), f64> = BTreeMap::new();
    for line in output.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        if !ours_in_order.iter().any(|name| name == fields[1]) {
            ours_in_order.push(fields[1].into());
        }
        let key = (fields[0].into(), fields[1].into(), fields[2].into());
        ours.insert(key, fields[3].parse().unwrap());
    }
    assert_eq!(ours_in_order.len(), names.len(), "{ours_in_order:?}");
    let canonical: BTreeMap<&str, &str> = names
        .iter()
        .copied()
        .zip(ours_in_order.iter().map(String::as_str))
        .collect();
    let mut mismatches = Vec::new();
    for ((run, measure, topic), value) in expected {
        let key = (
            run.clone(),
            canonical[measure.as_str()].into(),
            topic.clone(),
        );
        let got = ours[&key];
        let agrees = (got - value).abs() <= tolerance(measure);
        if !agrees {
            mismatches.push(format!(
                "{run} {measure} topic {topic}: ours {got:.6}, ir_measures {value:.6}"
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
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
