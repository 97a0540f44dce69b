//! `reusesim eval`: trec_eval parity on its own test fixture and on TREC-COVID round 1, output
//! formats, and errors on bad input.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use crate::util::{data_file, run, stdout_of};

/// One line of trec_eval's `quicktest`: reusesim's output for the arguments (as in the fixture's
/// PROVENANCE.md, files relative to the fixture) must be the expected file byte for byte. The
/// fixture was written by trec_eval 10.0, hence `--trec-eval 10`.
fn check_quicktest(expected_file: &str, args: &[&str]) {
    let fixture = data_file("trec_eval-test-fixture");
    check_trec_eval_output(&fixture.join(expected_file), args);
}

/// reusesim's output for trec_eval's arguments `args` (files relative to trec_eval's fixture)
/// must be `expected`, trec_eval 10.0's output, byte for byte.
pub(crate) fn check_trec_eval_output(expected: &Path, args: &[&str]) {
    let expected_text = std::fs::read_to_string(expected).unwrap();
    let ours = output_for_trec_eval_args(args);
    if ours != expected_text {
        let first_difference = ours
            .lines()
            .zip(expected_text.lines())
            .find(|(a, b)| a != b)
            .map(|(a, b)| format!("ours {a:?}, trec_eval {b:?}"))
            .unwrap_or_else(|| "one output is longer".into());
        panic!(
            "{}: differs from trec_eval: {first_difference}",
            expected.display()
        );
    }
}

/// `reusesim eval --trec-eval 10` with trec_eval's arguments `args`, files relative to trec_eval's
/// fixture.
pub(crate) fn output_for_trec_eval_args(args: &[&str]) -> String {
    let fixture = data_file("trec_eval-test-fixture");
    let mut command: Vec<String> = vec!["eval".into(), "--trec-eval".into(), "10".into()];
    for arg in args {
        let path = fixture.join(arg);
        let is_file = !arg.starts_with('-') && path.is_file();
        command.push(if is_file {
            path.display().to_string()
        } else {
            arg.to_string()
        });
    }
    stdout_of(&command)
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn quicktest_default_measures() {
    check_quicktest("out.test", &["qrels.test", "results.test"]);
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn quicktest_all_trec() {
    check_quicktest(
        "out.test.a",
        &["-m", "all_trec", "qrels.test", "results.test"],
    );
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn quicktest_all_trec_per_topic() {
    check_quicktest(
        "out.test.aq",
        &["-m", "all_trec", "-q", "qrels.test", "results.test"],
    );
}

/// `-n` leaves out the summary: trec_eval's `-q` output without its `all` lines (`runid` and
/// `num_q` among them).
#[test]
#[ignore = "needs REUSESIM_DATA"]
fn no_summary_prints_the_per_topic_lines_alone() {
    let fixture = data_file("trec_eval-test-fixture");
    let with_summary = std::fs::read_to_string(fixture.join("out.test.aq")).unwrap();
    let expected: String = with_summary
        .lines()
        .filter(|line| line.split('\t').nth(1) != Some("all"))
        .map(|line| format!("{line}\n"))
        .collect();
    let ours = stdout_of([
        "eval".as_ref(),
        "--trec-eval".as_ref(),
        "10".as_ref(),
        "-q".as_ref(),
        "-n".as_ref(),
        "-m".as_ref(),
        "all_trec".as_ref(),
        fixture.join("qrels.test").as_os_str(),
        fixture.join("results.test").as_os_str(),
    ]);
    assert!(expected.lines().count() > 200);
    assert_eq!(ours, expected);
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn quicktest_complete_on_a_truncated_run() {
    check_quicktest(
        "out.test.aqc",
        &["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"],
    );
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn quicktest_complete_with_max_docs() {
    check_quicktest(
        "out.test.aqcM",
        &[
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
fn quicktest_graded_levels_with_relstring() {
    check_quicktest(
        "out.test.aql",
        &[
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

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn quicktest_measure_parameters() {
    check_quicktest(
        "out.test.meas_params",
        &[
            "-q",
            "-miprec_at_recall..10,.20,.25,.75,.50",
            "-m",
            "P.5,7,3",
            "-m",
            "recall.20,2000",
            "-m",
            "Rprec_mult.5.0,0.2,0.35",
            "-mutility.2,-1,0,0",
            "-m",
            "11pt_avg..25,.5,.75",
            "-mndcg.1=3,2=9,4=4.5",
            "-mndcg_cut.10,20,23.4",
            "-msuccess.2,5,20",
            "qrels.test",
            "results.test",
        ],
    );
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn quicktest_zscores() {
    check_quicktest(
        "out.test.aqZ",
        &[
            "-q",
            "-m",
            "all_trec",
            "-Z",
            "zscores_file",
            "qrels.test",
            "results.test",
        ],
    );
}

/// Reads `round1.leaderboard.csv`: run → (MAP, P@5, nDCG@10, bpref).
fn covid_leaderboard(path: &Path) -> BTreeMap<String, [f64; 4]> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let columns = [
        column("MAP"),
        column("p@5"),
        column("ndcg@10"),
        column("bpref"),
    ];
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            let values = columns.map(|c| fields[c].parse::<f64>().unwrap());
            (fields[column("run")].to_string(), values)
        })
        .collect()
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn trec_covid_round1_matches_the_official_scores() {
    let crate::util::Covid {
        runs,
        qrels,
        leaderboard,
    } = crate::util::covid_round1();
    let official = covid_leaderboard(&leaderboard);
    let output = stdout_of([
        "eval".as_ref(),
        "-m".as_ref(),
        "map,P_5,ndcg_cut_10,bpref".as_ref(),
        "--format".as_ref(),
        "tsv".as_ref(),
        qrels.as_os_str(),
        runs.as_os_str(),
    ]);
    let mut ours: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    for line in output.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        ours.entry(fields[0].to_string())
            .or_default()
            .insert(fields[1].to_string(), fields[3].parse().unwrap());
    }
    assert_eq!(ours.len(), 143);
    assert_eq!(official.len(), 143);
    for (run, values) in &official {
        let scores = &ours[run];
        for (name, expected) in ["map", "P_5", "ndcg_cut_10", "bpref"].iter().zip(values) {
            let got = scores[*name];
            assert!(
                (got - expected).abs() <= 1e-4,
                "{run} {name}: ours {got:.5}, official {expected:.4}"
            );
        }
    }
}

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.display().to_string()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// Runs `eval` and checks: exit code 2, one line on stderr naming `needle` (file and line).
fn assert_one_line_error(args: &[String], needle: &str) {
    let output = run(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "stderr: {stderr}");
    assert!(stderr.contains(needle), "expected {needle:?} in {stderr:?}");
    assert!(output.stdout.is_empty());
}

#[test]
fn bad_input_gives_a_one_line_error_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let good_qrels = write_file(dir.path(), "good.qrels", b"1 0 d1 1\n1 0 d2 0\n");
    let good_run = write_file(
        dir.path(),
        "good.run",
        b"1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n",
    );
    let long_run = b"1 Q0 d1 1 2.0 r\n"
        .to_vec()
        .into_iter()
        .chain((0..5000).flat_map(|i| format!("1 Q0 x{i} {i} 1.0 r\n").into_bytes()));
    let packed = gzip(&long_run.collect::<Vec<u8>>());
    let cases: Vec<(&str, Vec<u8>, bool, &str)> = vec![
        (
            "columns.run",
            b"1 Q0 d1 1 2.0 r\n1 Q0 d2 2\n".to_vec(),
            false,
            "columns.run:2: expected 6 columns",
        ),
        (
            "score.run",
            b"1 Q0 d1 1 high r\n".to_vec(),
            false,
            "score.run:1: expected a finite numeric score",
        ),
        (
            "grade.qrels",
            b"1 0 d1 1\n1 0 d2 yes\n".to_vec(),
            true,
            "grade.qrels:2: expected an integer grade",
        ),
        (
            "twice.run",
            b"1 Q0 d1 1 2 r\n1 Q0 d1 2 1 r\n".to_vec(),
            false,
            "twice.run:2: document \"d1\" appears twice",
        ),
        (
            "empty.run",
            Vec::new(),
            false,
            "empty.run: the file is empty",
        ),
        (
            "garbage.run",
            vec![0x7f, 0x45, 0x4c, 0x46, 0x00, 0xff, 0xfe, b'\n'],
            false,
            "garbage.run:1: expected text, found binary data",
        ),
        (
            "cut.run.gz",
            packed[..packed.len() / 2].to_vec(),
            false,
            "cut.run.gz",
        ),
    ];
    for (name, bytes, is_qrels, needle) in cases {
        let path = write_file(dir.path(), name, &bytes);
        let args = if is_qrels {
            vec!["eval".into(), path, good_run.clone()]
        } else {
            vec!["eval".into(), good_qrels.clone(), path]
        };
        assert_one_line_error(&args, needle);
    }
    let missing = dir.path().join("missing.run").display().to_string();
    assert_one_line_error(&["eval".into(), good_qrels, missing], "missing.run");
}

#[test]
fn formats_agree_and_json_uses_trec_names() {
    let dir = tempfile::tempdir().unwrap();
    let qrels = write_file(dir.path(), "q", b"1 0 a 2\n1 0 b 0\n2 0 c 1\n");
    let run_a = write_file(
        dir.path(),
        "ra",
        b"1 Q0 b 1 3 A\n1 Q0 a 2 2 A\n2 Q0 c 1 1 A\n",
    );
    let json = stdout_of([
        "eval", "-q", "--format", "json", "-m", "map", "-m", "nDCG@10", &qrels, &run_a,
    ]);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["A"]["map"]["all"], 0.75);
    assert_eq!(value["A"]["map"]["1"], 0.5);
    assert!(value["A"]["ndcg_cut_10"]["2"].as_f64().unwrap() == 1.0);
    let tsv = stdout_of(["eval", "--format", "tsv", "-m", "map", &qrels, &run_a]);
    assert_eq!(tsv, "run\tmeasure\ttopic\tvalue\nA\tmap\tall\t0.75\n");
    let trec = stdout_of(["eval", "-m", "map", &qrels, &run_a]);
    assert_eq!(trec, "map                   \tall\t0.7500\n");
    let run_b = write_file(dir.path(), "rb", b"1 Q0 a 1 3 B\n2 Q0 c 1 1 B\n");
    let two_runs = stdout_of(["eval", "-m", "map", &qrels, &run_a, &run_b]);
    assert_eq!(
        two_runs,
        "runid                 \tall\tA\nmap                   \tall\t0.7500\n\
         runid                 \tall\tB\nmap                   \tall\t1.0000\n",
        "several runs' blocks start with their names"
    );
    let with_runid = stdout_of(["eval", "-m", "map,runid,num_q", &qrels, &run_a]);
    assert_eq!(
        with_runid,
        "runid                 \tall\tA\nnum_q                 \tall\t2\nmap                   \tall\t0.7500\n"
    );
}

/// Two runs with one tag, or a topic called `all` with per-topic values, would
/// overwrite each other's values in the JSON object; every format refuses them.
#[test]
fn runs_sharing_a_tag_or_a_topic_named_all_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let qrels = write_file(dir.path(), "q", b"1 0 a 1\nall 0 a 1\n");
    let first = write_file(dir.path(), "first.run", b"1 Q0 a 1 3 A\n");
    let second = write_file(dir.path(), "second.run", b"1 Q0 b 1 3 A\n");
    let topic_all = write_file(dir.path(), "all.run", b"1 Q0 a 1 3 B\nall Q0 a 1 3 B\n");
    for format in ["json", "trec", "tsv"] {
        let args: Vec<String> = ["eval", "--format", format, &qrels, &first, &second]
            .map(String::from)
            .to_vec();
        assert_one_line_error(
            &args,
            &format!("second.run: expected a run tag of its own, found \"A\", the tag of {first}"),
        );
        let args: Vec<String> = ["eval", "-q", "--format", format, &qrels, &topic_all]
            .map(String::from)
            .to_vec();
        assert_one_line_error(
            &args,
            "all.run: expected topic ids other than \"all\" (the summary's key) with per-topic \
             values, found topic \"all\"",
        );
    }
    let json = stdout_of(["eval", "--format", "json", "-m", "map", &qrels, &topic_all]);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value["B"]["map"]["all"], 1.0,
        "without -q, `all` is only the summary"
    );
}

/// TREC DL 2019 passages: the three ICTNET runs whose files survive, against NIST's own
/// summaries: "passages-eval" (trec_eval with -l 2: grade 1 means related, not relevant) and
/// "trec_eval" (-l 1), every measure NIST reported. The runs cover 200 topics, the qrels 43:
/// the other topics are ignored, as trec_eval does.
#[test]
#[ignore = "needs REUSESIM_DATA"]
fn trec_dl_2019_passage_runs_match_nist() {
    let (runs, qrels, official) = (
        data_file("trec-dl-2019-2020/dl19-passage-runs-partial"),
        data_file("trec-dl-2019-2020/qrels/qrels.dl19-passage.txt"),
        data_file("trec-dl-2019-2020/run_metadata/trec28-deep.official_results.tsv"),
    );
    let official = std::fs::read_to_string(official).unwrap();
    let mut compared = 0;
    for (summary, level) in [("passages-eval", "2"), ("trec_eval", "1")] {
        let expected: Vec<(String, String, f64)> = official
            .lines()
            .skip(1)
            .map(|line| line.split('\t').collect::<Vec<_>>())
            .filter(|fields| {
                fields[0].starts_with("ICT-") && fields[1] == summary && fields[3] == "all"
            })
            .map(|fields| {
                (
                    fields[0].to_string(),
                    fields[2].to_string(),
                    fields[4].parse().unwrap(),
                )
            })
            .collect();
        let measures: std::collections::BTreeSet<&str> = expected
            .iter()
            .map(|(_, measure, _)| measure.as_str())
            .collect();
        let mut args = vec![
            "eval".to_string(),
            "-l".into(),
            level.into(),
            "--format".into(),
            "tsv".into(),
        ];
        for measure in &measures {
            args.extend(["-m".to_string(), measure.to_string()]);
        }
        args.push(qrels.display().to_string());
        args.push(runs.display().to_string());
        let ours = crate::util::tsv_summaries(&stdout_of(&args));
        for (run, measure, value) in &expected {
            let got = ours[&(run.clone(), measure.clone())];
            assert!(
                (got - value).abs() <= 1e-4,
                "{summary} {run} {measure}: ours {got:.5}, NIST {value:.4}"
            );
            compared += 1;
        }
    }
    assert!(compared >= 3 * 2 * 12, "compared {compared}");
}
