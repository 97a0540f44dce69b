//! `reusesim compare`: p-values, confidence intervals and corrections against scipy and
//! statsmodels (goldens written by scripts/compare-goldens.py), the resampling tests' p-values
//! within Monte-Carlo error of ranx's and of numpy sign-flip and randomised Tukey HSD tests
//! (goldens written by scripts/ranx-compare-goldens.py), the layouts, the same bytes on any number of threads, and errors
//! on bad input.

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

/// `compare --format json` on `qrels` and the run files or folders `runs` with `extra`
/// arguments, parsed.
fn compared(qrels: &Path, runs: &[PathBuf], extra: &[&str]) -> Value {
    let mut arguments: Vec<String> = vec!["compare".into(), "--format".into(), "json".into()];
    for measure in MEASURES {
        arguments.extend(["-m".to_string(), measure.to_string()]);
    }
    arguments.extend(extra.iter().map(ToString::to_string));
    arguments.push(qrels.display().to_string());
    arguments.extend(runs.iter().map(|path| path.display().to_string()));
    serde_json::from_str(&stdout_of(&arguments)).expect("JSON output")
}

/// The arguments that select `mode`'s pairs: `--baseline` and the first run by tag (the
/// `against` of the goldens' baseline rows), none for every pair.
fn mode_arguments(goldens: &Goldens, mode: &str) -> Vec<String> {
    if mode != "baseline" {
        return Vec::new();
    }
    let first_run = (goldens.keys())
        .find(|(row_mode, ..)| row_mode == "baseline")
        .map(|(.., against)| against.clone())
        .unwrap();
    vec!["--baseline".to_string(), first_run]
}

/// One pair of `compare`'s JSON output with its golden row: what it is (for messages), the
/// measure, the pair's output, the row, and whether the row is written the other way round
/// (`against − run`).
type PairWithGolden<'a> = (String, &'a str, &'a Value, &'a BTreeMap<String, f64>, bool);

/// Each pair of each measure of `output`, with its golden row of `mode`.
fn pairs_with_goldens<'a>(
    goldens: &'a Goldens,
    output: &'a Value,
    mode: &'a str,
) -> impl Iterator<Item = PairWithGolden<'a>> + 'a {
    output["measures"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(move |measure| {
            let name = measure["measure"].as_str().unwrap();
            measure["pairs"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |pair| {
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
                    let what = format!("{mode} {name} {run} − {against}");
                    (what, name, pair, expected, reversed)
                })
        })
}

/// The golden rows of `mode`.
fn rows_of(goldens: &Goldens, mode: &str) -> usize {
    (goldens.keys())
        .filter(|(row_mode, ..)| row_mode == mode)
        .count()
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
fn check(goldens: &Goldens, qrels: &Path, runs: &[PathBuf], mode: &str) {
    let selection = mode_arguments(goldens, mode);
    let with = |test: &str, correction: &str| {
        let mut extra = vec!["--test", test, "--correction", correction];
        extra.extend(selection.iter().map(String::as_str));
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
        for (pair_name, _, pair, expected, reversed) in pairs_with_goldens(goldens, output, mode) {
            let what = format!("{pair_name} {column}");
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
                let (low, high) = (interval[0].as_f64().unwrap(), interval[1].as_f64().unwrap());
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
    assert_eq!(
        checked,
        rows_of(goldens, mode) * outputs.len(),
        "every golden pair is compared"
    );
}

/// Samples of reusesim's randomization and Tukey tests checked against the references.
const SAMPLES: f64 = 100_000.0;

/// The references of the resampling tests: reusesim's test, the goldens' column, the measures.
const REFERENCES: [(&str, &str, &[&str]); 3] = [
    ("randomization", "sign_flip", &MEASURES),
    // ranx compares sums exactly and so misses flips that tie the observed statistic through
    // other topics, common with P@10's tenths and nDCG@10's few values (docs/compare.md).
    ("randomization", "ranx", &["map"]),
    ("tukey", "tukey", &MEASURES),
];

/// The standard error of the difference of two Monte-Carlo estimates of the same p-value
/// from `ours` and `theirs` samples, √(p(1 − p)(1/ours + 1/theirs)), with p(1 − p) at least
/// 10/`ours`: near 0 or 1 an estimate barely spreads, and a count of 0 only says that p is
/// below a few in `ours`.
fn monte_carlo_error(p: f64, ours: f64, theirs: f64) -> f64 {
    ((p * (1.0 - p)).max(10.0 / ours) * (1.0 / ours + 1.0 / theirs)).sqrt()
}

/// How many of `pairs` estimates may lie beyond 3 standard errors by chance: the mean of that
/// count plus 3 of its standard deviations (each lies beyond with probability 0.27%).
fn allowed_beyond_three(pairs: usize) -> usize {
    let expected = pairs as f64 * 0.0027;
    (expected + 3.0 * expected.sqrt()).floor() as usize
}

/// Checks the randomization test's and randomised Tukey HSD's p-values of `mode`, at
/// [`SAMPLES`] samples, against the [`REFERENCES`]: every p-value within 5 standard errors
/// ([`monte_carlo_error`]) of the reference, after 1/[`SAMPLES`] for reusesim's counting the
/// observed labelling as a sample, and no more beyond 3 than chance allows
/// ([`allowed_beyond_three`]).
fn check_resampled(goldens: &Goldens, qrels: &Path, runs: &[PathBuf], mode: &str) {
    let selection = mode_arguments(goldens, mode);
    let samples = SAMPLES.to_string();
    for test in ["randomization", "tukey"] {
        let mut extra = vec!["--test", test, "--permutations", &samples];
        extra.extend(selection.iter().map(String::as_str));
        let output = compared(qrels, runs, &extra);
        for (_, reference, measures) in REFERENCES.iter().filter(|(of, ..)| *of == test) {
            let mut beyond_three = Vec::new();
            let mut checked = 0;
            for (pair_name, measure, pair, expected, _) in
                pairs_with_goldens(goldens, &output, mode)
            {
                if !measures.contains(&measure) {
                    continue;
                }
                let found = pair["p_value"].as_f64().unwrap();
                let p = expected[&format!("{reference}_p")];
                let theirs = expected[&format!("{reference}_samples")];
                let errors =
                    ((found - p).abs() - 1.0 / SAMPLES) / monte_carlo_error(p, SAMPLES, theirs);
                let what = format!("{pair_name} {test}: found {found}, {reference} {p}");
                assert!(errors <= 5.0, "{what}: {errors:.1} standard errors apart");
                if errors > 3.0 {
                    beyond_three.push(what);
                }
                checked += 1;
            }
            assert!(
                beyond_three.len() <= allowed_beyond_three(checked),
                "more pairs beyond 3 standard errors than chance allows: {beyond_three:#?}"
            );
            let rows = rows_of(goldens, mode) * measures.len() / MEASURES.len();
            assert_eq!(
                checked, rows,
                "every golden pair of {measures:?} is compared"
            );
        }
    }
}

fn embedded() -> (PathBuf, PathBuf) {
    (
        repository_file("qrels/synth-passage.qrels"),
        repository_file("runs/synth-passage/runs"),
    )
}

fn covid_qrels() -> PathBuf {
    data_file("trec-covid/qrels/qrels.covid-round1.txt")
}

/// TREC-COVID round 1's runs compared in every pair: its first 20 run files by name (as the
/// goldens' scripts choose them).
fn covid_subset() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(data_file("trec-covid/round1/runs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    files.truncate(20);
    files
}

#[test]
fn t_test_wilcoxon_and_corrections_match_scipy_and_statsmodels_on_the_embedded_task() {
    let goldens = goldens("synth-passage");
    let (qrels, runs) = embedded();
    let runs = [runs];
    check(&goldens, &qrels, &runs, "baseline");
    check(&goldens, &qrels, &runs, "all");
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn t_test_wilcoxon_and_corrections_match_scipy_and_statsmodels_on_trec_covid_round1() {
    let goldens = goldens("trec-covid-round1");
    let runs = data_file("trec-covid/round1/runs");
    check(&goldens, &covid_qrels(), &[runs], "baseline");
    check(&goldens, &covid_qrels(), &covid_subset(), "all");
}

#[test]
fn resampling_tests_match_ranx_and_numpy_on_the_embedded_task() {
    let goldens = goldens("ranx-synth-passage");
    let (qrels, runs) = embedded();
    let runs = [runs];
    check_resampled(&goldens, &qrels, &runs, "baseline");
    check_resampled(&goldens, &qrels, &runs, "all");
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn resampling_tests_match_ranx_and_numpy_on_20_trec_covid_round1_runs() {
    let goldens = goldens("ranx-trec-covid-round1-20");
    check_resampled(&goldens, &covid_qrels(), &covid_subset(), "baseline");
    check_resampled(&goldens, &covid_qrels(), &covid_subset(), "all");
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
