//! `reusesim eval -m all_trec` against trec_eval 9.0.8 (pytrec_eval-terrier, which embeds its C
//! code) at relevance levels 1 and 2: every measure, every topic and `all`, on trec_eval's test
//! fixture (binary and graded qrels) and the DL19 passage runs, and every run's `all` on
//! TREC-COVID round 1; and measures whose parameters `all_trec` leaves at their defaults
//! (utility's four coefficients) on the fixture. And trec_eval 10.0's own output, byte for
//! byte, for the options its quicktest leaves out: `-J`, `-N` and the long spellings. The
//! reference values and outputs in tests/golden/trec_eval/ are written by
//! scripts/trec-eval-goldens.py.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::eval::{check_trec_eval_output, output_for_trec_eval_args};
use crate::util::{data_file, stdout_of};

/// (run, measure, topic) → value.
type Values = BTreeMap<(String, String, String), f64>;

/// The goldens print 10 significant digits.
fn agrees(ours: f64, theirs: f64) -> bool {
    (ours - theirs).abs() <= 1e-8 * theirs.abs().max(1.0)
}

/// trec_eval's lines that are not a number of one topic; the goldens leave them out.
const NOT_COMPARED: &[&str] = &["runid", "num_q", "relstring"];

/// Relevance level → the golden values of one data set.
fn goldens(name: &str) -> BTreeMap<u32, Values> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/trec_eval")
        .join(format!("{name}.tsv.gz"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let mut by_level: BTreeMap<u32, Values> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let key = (fields[1].into(), fields[2].into(), fields[3].into());
        by_level
            .entry(fields[0].parse().unwrap())
            .or_default()
            .insert(key, fields[4].parse().unwrap());
    }
    by_level
}

/// Our values of `measures` at `level`, per topic if `per_topic`.
fn ours(level: u32, per_topic: bool, measures: &[&str], qrels: &Path, runs: &[PathBuf]) -> Values {
    let mut args: Vec<String> = ["eval", "--format", "tsv"].map(String::from).to_vec();
    for measure in measures {
        args.extend(["-m".to_string(), measure.to_string()]);
    }
    args.push(format!("-l{level}"));
    if per_topic {
        args.push("-q".into());
    }
    args.push(qrels.display().to_string());
    args.extend(runs.iter().map(|run| run.display().to_string()));
    stdout_of(&args)
        .lines()
        .skip(1)
        .map(|line| line.split('\t').collect::<Vec<_>>())
        .filter(|fields| !NOT_COMPARED.contains(&fields[1]))
        .map(|fields| {
            let key = (fields[0].into(), fields[1].into(), fields[2].into());
            (key, fields[3].parse().unwrap())
        })
        .collect()
}

/// Every golden value has ours of `-m all_trec` within the tolerance, and we print no measure
/// trec_eval lacks.
fn check(name: &str, per_topic: bool, qrels: &Path, runs: &[PathBuf]) {
    check_measures(name, per_topic, &["all_trec"], qrels, runs);
}

/// [`check`] for `measures`.
fn check_measures(name: &str, per_topic: bool, measures: &[&str], qrels: &Path, runs: &[PathBuf]) {
    for (level, expected) in goldens(name) {
        let ours = ours(level, per_topic, measures, qrels, runs);
        let measures = |values: &Values| -> BTreeSet<String> {
            values
                .keys()
                .map(|(_, measure, _)| measure.clone())
                .collect()
        };
        assert_eq!(measures(&ours), measures(&expected), "{name} -l{level}");
        let mismatches: Vec<String> = expected
            .iter()
            .filter_map(|(key, value)| match ours.get(key) {
                Some(&got) if agrees(got, *value) => None,
                got => Some(format!(
                    "-l{level} {key:?}: ours {got:?}, trec_eval {value}"
                )),
            })
            .collect();
        assert!(
            mismatches.is_empty(),
            "{name}: {} of {} values differ:\n{}",
            mismatches.len(),
            expected.len(),
            mismatches[..mismatches.len().min(20)].join("\n")
        );
    }
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn trec_eval_fixture_matches_trec_eval() {
    let fixture = data_file("trec_eval-test-fixture");
    let run = [fixture.join("results.test")];
    check("trec_eval-fixture", true, &fixture.join("qrels.test"), &run);
    check(
        "trec_eval-fixture-graded",
        true,
        &fixture.join("qrels.rel_level"),
        &run,
    );
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn utility_with_four_coefficients_matches_trec_eval_on_the_fixture() {
    let fixture = data_file("trec_eval-test-fixture");
    check_measures(
        "trec_eval-fixture-parameters",
        true,
        &["utility.3,-1,-2,1"],
        &fixture.join("qrels.test"),
        &[fixture.join("results.test")],
    );
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn dl19_passage_runs_match_trec_eval() {
    check(
        "dl19-passage",
        true,
        &data_file("trec-dl-2019-2020/qrels/qrels.dl19-passage.txt"),
        &[data_file("trec-dl-2019-2020/dl19-passage-runs-partial")],
    );
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn trec_covid_round1_matches_trec_eval() {
    let covid = crate::util::covid_round1();
    let expected = goldens("trec-covid-round1");
    let runs: BTreeSet<&String> = expected[&1].keys().map(|(run, _, _)| run).collect();
    assert_eq!(runs.len(), 143);
    check("trec-covid-round1", false, &covid.qrels, &[covid.runs]);
}

/// A trec_eval 10.0 output in tests/golden/trec_eval/.
fn trec_eval_output(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/trec_eval")
        .join(name)
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn judged_docs_only_matches_trec_eval() {
    check_trec_eval_output(
        &trec_eval_output("out.test.aqJ"),
        &["-J", "-m", "all_trec", "-q", "qrels.test", "results.test"],
    );
}

/// qrels.rel_level grades some documents -1: -J drops them with the unjudged ones, and the
/// relstring shows the condensed ranking.
#[test]
#[ignore = "needs REUSESIM_DATA"]
fn judged_docs_only_drops_negative_grades_as_trec_eval_does() {
    check_trec_eval_output(
        &trec_eval_output("out.test.aqlJ"),
        &[
            "-J",
            "-m",
            "all_trec",
            "-mrelstring.20",
            "-q",
            "-l2",
            "qrels.rel_level",
            "results.test",
        ],
    );
}

/// The lines where trec_eval divides 0 by 0 under `-J -c`: a topic missing from the run is
/// scored as one unjudged document, which `-J` drops, and `iprec_at_recall_0.00` (so
/// `11pt_avg` too) is then 0 relevant over 0 retrieved, printed `-nan`, down to the summary.
/// reusesim scores a missing topic 0 there, as trec_eval does without `-J`.
const ZERO_OVER_ZERO: &[(&str, &str)] = &[
    ("iprec_at_recall_0.00", "302"),
    ("11pt_avg", "302"),
    ("iprec_at_recall_0.00", "all"),
    ("11pt_avg", "all"),
];

/// trec_eval's output `expected` for `args`, byte for byte but for the [`ZERO_OVER_ZERO`]
/// lines, which must be exactly those trec_eval prints as `-nan` and ours as numbers.
fn check_trec_eval_output_but_zero_over_zero(expected: &Path, args: &[&str]) {
    let expected = std::fs::read_to_string(expected).unwrap();
    let ours = output_for_trec_eval_args(args);
    assert_eq!(ours.lines().count(), expected.lines().count());
    let mut nan_lines = Vec::new();
    for (our_line, their_line) in ours.lines().zip(expected.lines()) {
        if their_line.ends_with("-nan") {
            let fields: Vec<&str> = our_line.split('\t').collect();
            assert!(fields[2].parse::<f64>().unwrap().is_finite(), "{our_line}");
            nan_lines.push((fields[0].trim_end().to_string(), fields[1].to_string()));
        } else {
            assert_eq!(our_line, their_line);
        }
    }
    let nan_lines: Vec<(&str, &str)> = (nan_lines.iter())
        .map(|(measure, topic)| (measure.as_str(), topic.as_str()))
        .collect();
    assert_eq!(nan_lines, ZERO_OVER_ZERO);
}

/// -M cuts the ranking before -J condenses it, as in trec_eval.
#[test]
#[ignore = "needs REUSESIM_DATA"]
fn judged_docs_only_with_complete_and_max_docs_matches_trec_eval() {
    check_trec_eval_output_but_zero_over_zero(
        &trec_eval_output("out.test.aqcMJ"),
        &[
            "-J",
            "-m",
            "all_trec",
            "-q",
            "-c",
            "-M100",
            "qrels.test",
            "results.trunc",
        ],
    );
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn utility_over_a_collection_size_matches_trec_eval() {
    check_trec_eval_output(
        &trec_eval_output("out.test.utilityN"),
        &[
            "-q",
            "-N",
            "100000",
            "-mutility.2,-1,-0.5,0.001",
            "qrels.test",
            "results.test",
        ],
    );
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn trec_eval_long_options_are_accepted() {
    check_trec_eval_output(
        &trec_eval_output("out.test.long_options"),
        &[
            "--Judged_docs_only",
            "--Number_docs_in_coll=5000",
            "--query_eval_wanted",
            "--measure=all_trec",
            "--measure",
            "utility.1,-1,0,0.25",
            "--level_for_rel",
            "2",
            "--Max_retrieved_per_topic",
            "300",
            "qrels.rel_level",
            "results.test",
        ],
    );
    check_trec_eval_output(
        &trec_eval_output("out.test.long_options_cZ"),
        &[
            "--query_eval_wanted",
            "--nosummary",
            "--complete_rel_info_wanted",
            "--Zscore",
            "zscores_file",
            "--measure",
            "all_trec",
            "qrels.test",
            "results.trunc",
        ],
    );
}

/// A collection size that is not a whole number of documents is refused before anything is
/// read, naming the option (exit code 2).
#[test]
fn a_collection_size_that_is_not_a_count_is_refused() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for size in ["2.5", "many"] {
        let output = crate::util::run([
            "eval".as_ref(),
            "-N".as_ref(),
            size.as_ref(),
            root.join("qrels/synth-passage.qrels").as_os_str(),
            root.join("runs/synth-passage/runs/bm25base").as_os_str(),
        ]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("--documents-in-collection <NUM>"),
            "{stderr}"
        );
    }
}

/// `-J` on a hand-made fixture, without the TREC data. Topic 1 grades d1, d3 and d4 relevant,
/// d2 not, d6 -1; the run ranks u1 d1 u2 d2 d3 d6 (u1, u2 unjudged). `-J` drops the unjudged
/// documents and d6, so the ranking is d1 d2 d3: 3 retrieved, 2 of the 3 relevant; AP (1 +
/// 2/3) / 3 = 5/9; P@3 2/3; reciprocal rank 1; nDCG@3 (1 + 1/log2 4) / (1 + 1/log2 3 + 1/log2
/// 4) = 0.7039. Topic 2 grades e1 0, e2 2, e3 1; the run ranks e1 x1 e2 (x1 unjudged), so
/// e1 e2: 2 retrieved, 1 of 2 relevant; AP (1/2) / 2 = 0.25; P@3 1/3 (a missing rank counts
/// as not relevant); reciprocal rank 1/2; nDCG@3 (2/log2 3) / (2 + 1/log2 3) = 0.4796. The
/// summary sums the counts and averages the rest. Without `-J` topic 1's AP would be (1/2 +
/// 2/5) / 3 = 0.3 and its P@3 1/3.
#[test]
fn judged_docs_only_condenses_a_hand_made_ranking_to_its_judged_documents() {
    let dir = tempfile::tempdir().unwrap();
    let qrels = dir.path().join("qrels.txt");
    std::fs::write(
        &qrels,
        "1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n1 0 d4 1\n1 0 d6 -1\n2 0 e1 0\n2 0 e2 2\n2 0 e3 1\n",
    )
    .unwrap();
    let run = dir.path().join("run.txt");
    let ranked = [(1, "u1 d1 u2 d2 d3 d6"), (2, "e1 x1 e2")];
    let mut lines = String::new();
    for (topic, docs) in ranked {
        for (pos, doc) in docs.split(' ').enumerate() {
            lines.push_str(&format!("{topic} Q0 {doc} {} {} r\n", pos + 1, 10 - pos));
        }
    }
    std::fs::write(&run, lines).unwrap();
    let mut args = vec!["eval", "--trec-eval", "10", "-J", "-q"];
    for measure in [
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "recip_rank",
        "P.3",
        "ndcg_cut.3",
    ] {
        args.extend(["-m", measure]);
    }
    args.extend([qrels.to_str().unwrap(), run.to_str().unwrap()]);
    // Printed as trec_eval prints them: per topic, in its order of measures, then `all`.
    let names = [
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "recip_rank",
        "P_3",
        "ndcg_cut_3",
    ];
    let expected = [
        ("1", ["3", "3", "2", "0.5556", "1.0000", "0.6667", "0.7039"]),
        ("2", ["2", "2", "1", "0.2500", "0.5000", "0.3333", "0.4796"]),
        (
            "all",
            ["5", "5", "3", "0.4028", "0.7500", "0.5000", "0.5918"],
        ),
    ];
    let mut lines = String::new();
    for (topic, values) in expected {
        for (name, value) in names.iter().zip(values) {
            lines.push_str(&format!("{name:<22}\t{topic}\t{value}\n"));
        }
    }
    assert_eq!(stdout_of(&args), lines);
}
