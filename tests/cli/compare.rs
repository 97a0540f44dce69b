//! `reusesim compare`: p-values, confidence intervals and corrections against scipy and
//! statsmodels (goldens written by scripts/compare-goldens.py), the layouts, the same bytes on
//! any number of threads, and errors on bad input.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{data_file, run, stdout_of};

fn repository_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

const MEASURES: [&str; 3] = ["map", "P_10", "ndcg_cut_10"];

/// One golden row: (mode, measure, run, against) → the named values.
type Goldens = BTreeMap<(String, String, String, String), BTreeMap<String, f64>>;

fn goldens(name: &str) -> Goldens {
    let file = std::fs::File::open(repository_file(&format!(
        "tests/golden/compare/{name}.tsv.gz"
    )))
    .expect("the goldens exist");
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap();
    let mut lines = text
        .lines()
        .map(|line| line.split('\t').collect::<Vec<_>>());
    let header = lines.next().unwrap();
    lines
        .map(|fields| {
            let (mode, measure, run, against) = (fields[0], fields[1], fields[2], fields[3]);
            let values = (header[4..].iter().zip(&fields[4..]))
                .map(|(name, value)| (name.to_string(), value.parse::<f64>().unwrap()))
                .collect();
            (
                (mode.into(), measure.into(), run.into(), against.into()),
                values,
            )
        })
        .collect()
}

/// `compare --format json` on `qrels` and `runs` with `extra` arguments, parsed.
fn compared(qrels: &Path, runs: &Path, extra: &[&str]) -> Value {
    let mut arguments: Vec<String> = vec!["compare".into(), "--format".into(), "json".into()];
    for measure in MEASURES {
        arguments.extend(["-m".to_string(), measure.to_string()]);
    }
    arguments.extend(extra.iter().map(ToString::to_string));
    arguments.extend([qrels.display().to_string(), runs.display().to_string()]);
    serde_json::from_str(&stdout_of(&arguments)).expect("JSON output")
}

fn assert_close(found: f64, expected: f64, tolerance: f64, what: &str) {
    assert!(
        (found - expected).abs() <= tolerance,
        "{what}: found {found}, scipy/statsmodels {expected}"
    );
}

/// Checks every pair of `mode` (`baseline`: against the first run by tag; `all`) against the
/// goldens: the t-test's p-value and interval and Wilcoxon's p-value within 1e-9, each
/// correction within 1e-12. Where scipy gives NaN (runs that score the same on every topic),
/// reusesim gives p = 1 and a zero-width interval.
fn check(goldens: &Goldens, qrels: &Path, runs: &Path, mode: &str) {
    let first_run = (goldens.keys())
        .find(|(row_mode, ..)| row_mode == "baseline")
        .map(|(.., against)| against.clone())
        .unwrap();
    let baseline = ["--baseline", first_run.as_str()];
    let mode_arguments: &[&str] = if mode == "baseline" { &baseline } else { &[] };
    let with = |test: &str, correction: &str| {
        let mut extra = vec!["--test", test, "--correction", correction];
        extra.extend(mode_arguments);
        compared(qrels, runs, &extra)
    };
    let outputs = [
        ("t_p", with("t", "none")),
        ("wilcoxon_p", with("wilcoxon", "none")),
        ("bonferroni", with("t", "bonferroni")),
        ("holm", with("t", "holm")),
        ("bh", with("t", "bh")),
    ];
    let mut checked = 0;
    for (column, output) in &outputs {
        for measure in output["measures"].as_array().unwrap() {
            let name = measure["measure"].as_str().unwrap();
            for pair in measure["pairs"].as_array().unwrap() {
                let (run, against) = (
                    pair["run"].as_str().unwrap(),
                    pair["against"].as_str().unwrap(),
                );
                let key = |run: &str, against: &str| {
                    (
                        mode.to_string(),
                        name.to_string(),
                        run.to_string(),
                        against.to_string(),
                    )
                };
                let (expected, reversed) = match goldens.get(&key(run, against)) {
                    Some(expected) => (expected, false),
                    None => (&goldens[&key(against, run)], true),
                };
                let what = format!("{mode} {name} {run} − {against} {column}");
                let field = if *column == "t_p" || *column == "wilcoxon_p" {
                    "p_value"
                } else {
                    "adjusted_p_value"
                };
                let found = pair[field].as_f64().unwrap();
                let tolerance = if field == "p_value" { 1e-9 } else { 1e-12 };
                let expected_p = expected[*column];
                assert_close(
                    found,
                    if expected_p.is_nan() { 1.0 } else { expected_p },
                    tolerance,
                    &what,
                );
                if *column == "t_p" {
                    let difference = pair["mean_difference"].as_f64().unwrap();
                    let interval = pair["confidence_interval"].as_array().unwrap();
                    let (low, high) =
                        (interval[0].as_f64().unwrap(), interval[1].as_f64().unwrap());
                    let (mut expected_low, mut expected_high) =
                        (expected["ci_low"], expected["ci_high"]);
                    if reversed {
                        (expected_low, expected_high) = (-expected_high, -expected_low);
                    }
                    if expected_low.is_nan() {
                        (expected_low, expected_high) = (difference, difference);
                    }
                    assert_close(low, expected_low, 1e-9, &format!("{what} ci_low"));
                    assert_close(high, expected_high, 1e-9, &format!("{what} ci_high"));
                }
                checked += 1;
            }
        }
    }
    let expected_rows = goldens
        .keys()
        .filter(|(row_mode, ..)| row_mode == mode)
        .count();
    assert_eq!(
        checked,
        expected_rows * outputs.len(),
        "every golden pair is compared"
    );
}

fn embedded() -> (PathBuf, PathBuf) {
    (
        repository_file("qrels/synth-passage.qrels"),
        repository_file("runs/synth-passage/runs"),
    )
}

#[test]
fn t_test_wilcoxon_and_corrections_match_scipy_and_statsmodels_on_the_embedded_task() {
    let goldens = goldens("synth-passage");
    let (qrels, runs) = embedded();
    check(&goldens, &qrels, &runs, "baseline");
    check(&goldens, &qrels, &runs, "all");
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn t_test_wilcoxon_and_corrections_match_scipy_and_statsmodels_on_trec_covid_round1() {
    let goldens = goldens("trec-covid-round1");
    let qrels = data_file("trec-covid/qrels/qrels.covid-round1.txt");
    let runs = data_file("trec-covid/round1/runs");
    check(&goldens, &qrels, &runs, "baseline");
}

#[test]
fn resampling_tests_give_the_same_bytes_on_any_number_of_threads() {
    let (qrels, runs) = embedded();
    for test in ["randomization", "bootstrap", "tukey"] {
        let output = |threads: &str| {
            stdout_of(
                [
                    "compare",
                    "--test",
                    test,
                    "--permutations",
                    "500",
                    "--threads",
                    threads,
                    "--format",
                    "tsv",
                    "-m",
                    "map",
                ]
                .iter()
                .map(|argument| argument.to_string())
                .chain([qrels.display().to_string(), runs.display().to_string()]),
            )
        };
        assert_eq!(output("1"), output("3"), "{test}");
    }
}

#[test]
fn every_layout_names_the_topics_rule_and_marks_significant_pairs() {
    let (qrels, runs) = embedded();
    let layout = |format: &str| {
        stdout_of([
            "compare".to_string(),
            "--baseline".into(),
            "bm25base".into(),
            "--format".into(),
            format.into(),
            qrels.display().to_string(),
            runs.display().to_string(),
        ])
    };
    let table = layout("table");
    assert!(
        table.contains("a topic a run lacks scores 0 (trec_eval -c)"),
        "{table}"
    );
    assert!(table.lines().any(|line| line.ends_with(" *")), "{table}");
    let latex = layout("latex");
    assert!(
        latex.contains("\\toprule") && latex.contains("$^\\dagger$"),
        "{latex}"
    );
    assert!(latex.contains("bm25base\\_prf &"), "{latex}");
    let tsv = layout("tsv");
    assert_eq!(
        tsv.lines().count(),
        1 + 26,
        "a row per pair against the baseline"
    );
    let json: Value = serde_json::from_str(&layout("json")).unwrap();
    assert_eq!(json["missing_topics_score_zero"], Value::Bool(true));
    assert_eq!(json["baseline"], "bm25base");
}

/// The error message of a failing `compare` with `arguments` (then the embedded qrels and
/// runs unless `files` says otherwise), after checking it exits with status 2.
fn refused(arguments: &[&str], files: Option<(&Path, &Path)>) -> String {
    let (qrels, runs) = embedded();
    let (qrels, runs) = files.unwrap_or((&qrels, &runs));
    let output = run(["compare"]
        .iter()
        .chain(arguments)
        .map(|argument| argument.to_string())
        .chain([qrels.display().to_string(), runs.display().to_string()]));
    assert_eq!(output.status.code(), Some(2), "{arguments:?} exits with 2");
    String::from_utf8(output.stderr).unwrap()
}

#[test]
fn bad_input_is_refused_clearly() {
    assert!(refused(&["--test", "z"], None).contains("invalid value 'z'"));
    assert!(refused(&["--correction", "sidak"], None).contains("invalid value 'sidak'"));
    for alpha in ["--alpha=0", "--alpha=1", "--alpha=1.5", "--alpha=-0.1"] {
        let message = refused(&[alpha], None);
        assert!(
            message.contains("expected alpha between 0 and 1"),
            "{message}"
        );
    }
    let message = refused(&["--baseline", "nobody"], None);
    assert!(
        message.contains("the baseline \"nobody\" is not among the runs"),
        "{message}"
    );
    let message = refused(&["--test", "tukey", "--correction", "holm"], None);
    assert!(message.contains("expected correction none"), "{message}");

    // A qrels of one topic: one topic in common.
    let dir = tempfile::tempdir().unwrap();
    let qrels = dir.path().join("one-topic.qrels");
    let (embedded_qrels, runs) = embedded();
    let first_topic = std::fs::read_to_string(&embedded_qrels).unwrap();
    let topic = first_topic.split_whitespace().next().unwrap().to_string();
    let lines: String = (first_topic.lines())
        .filter(|line| line.split_whitespace().next() == Some(topic.as_str()))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(&qrels, lines).unwrap();
    let message = refused(&[], Some((&qrels, &runs)));
    assert!(
        message.contains("expected at least 2 topics every run has, found 1"),
        "{message}"
    );
}
