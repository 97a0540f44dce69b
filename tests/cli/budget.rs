//! `simulate --budget-fractions`: fractions above 1 are refused; the study's own outputs do not
//! change with fractions; budget.tsv's whole-budget rows are trials.tsv's; recall and overlap
//! never fall as the budget grows; shards merged and a killed study resumed give the same files
//! with fractions too, and a finished study's journal serves other fractions without judging.

use std::path::Path;

use crate::shard::{assert_same_outputs, journal_records, simulate_args, STOP_AFTER_UNITS, STUDY};
use crate::util::{reusesim, run, run_on_task, write_tiny_text_task};

/// The fractions the tests use.
const FRACTIONS: &[&str] = &["--budget-fractions", "0.25,1,0.5"];

fn simulate(task: &Path, out: &Path, extra: &[&str]) {
    run_on_task("simulate", task, out, &[STUDY, extra].concat());
}

/// The rows of a result table, each its fields in column order, after the header.
fn rows(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines().map(|line| {
        line.split('\t')
            .map(str::to_string)
            .collect::<Vec<String>>()
    });
    (lines.next().unwrap(), lines.collect())
}

/// A row's fields by column name.
fn field<'r>(header: &[String], row: &'r [String], column: &str) -> &'r str {
    let pos = header.iter().position(|name| name == column).unwrap();
    &row[pos]
}

#[test]
fn fractions_above_one_or_not_above_zero_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    for (fractions, expected) in [
        ("0.5,1.5", "budget fraction 1.5 is above 1"),
        (
            "0",
            "expected budget fractions above 0 and at most 1, found 0",
        ),
        ("0.5,0.5", "budget fraction 0.5 is given twice"),
    ] {
        let out = dir.path().join("out");
        let output = run([
            "simulate".as_ref(),
            "--task".as_ref(),
            task.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            "--budget-fractions".as_ref(),
            fractions.as_ref(),
        ]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert!(!out.join("summary.json").exists());
    }
}

#[test]
fn fractions_leave_the_studys_own_outputs_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let plain = dir.path().join("plain");
    simulate(&task, &plain, &[]);
    // The whole budget alone is the plain study, fingerprint included.
    let whole = dir.path().join("whole");
    simulate(&task, &whole, &["--budget-fractions", "1"]);
    assert_same_outputs(&plain, &whole);
    assert!(!whole.join("budget.tsv").exists());

    let curve = dir.path().join("curve");
    simulate(&task, &curve, FRACTIONS);
    for table in [
        "runs.tsv",
        "lou.tsv",
        "trials.tsv",
        "heldout.tsv",
        "ranks.tsv",
    ] {
        let (a, b) = (plain.join(table), curve.join(table));
        assert!(
            std::fs::read(a).unwrap() == std::fs::read(b).unwrap(),
            "{table}"
        );
    }
    for figure in std::fs::read_dir(plain.join("figures")).unwrap() {
        let name = figure.unwrap().file_name();
        let (a, b) = (
            plain.join("figures").join(&name),
            curve.join("figures").join(&name),
        );
        assert!(
            std::fs::read(a).unwrap() == std::fs::read(b).unwrap(),
            "{name:?}"
        );
    }
    for figure in [
        "budget_map.png",
        "budget_map.svg",
        "budget_P_10.svg",
        "significance_map.png",
        "significance_map.svg",
        "significance_P_10.svg",
    ] {
        assert!(curve.join("figures").join(figure).exists(), "{figure}");
    }
    assert!(!plain.join("figures/significance_map.svg").exists());
    // Without strategies, the significance figure's one bar a fraction is the budget curve's
    // hical controls.
    let significance = std::fs::read_to_string(curve.join("figures/significance_map.svg")).unwrap();
    for text in ["hical", "share of the significant pairs under"] {
        assert!(significance.contains(text), "{text}");
    }
    // summary.json: the same, but for the budget block and the fractions recorded in the
    // fingerprint, whose sha256 leaves them out.
    let json = |dir: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap()
    };
    let (mut expected, mut actual) = (json(&plain), json(&curve));
    let budget = actual.as_object_mut().unwrap().remove("budget").unwrap();
    let fractions: Vec<f64> = budget["fractions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fraction"].as_f64().unwrap())
        .collect();
    assert_eq!(fractions, [0.25, 0.5, 1.0]);
    let settings = &mut actual["fingerprint"]["settings"];
    let recorded = settings.as_object_mut().unwrap().remove("budget_fractions");
    assert_eq!(recorded, Some(serde_json::json!([0.25, 0.5, 1.0])));
    for summary in [&mut expected, &mut actual] {
        summary.as_object_mut().unwrap().remove("elapsed_seconds");
    }
    assert_eq!(expected, actual);
    // report.md: the plain report's lines, in order, with the budget section among them.
    let report = |dir: &Path| std::fs::read_to_string(dir.join("report.md")).unwrap();
    let (plain_report, curve_report) = (report(&plain), report(&curve));
    let mut curve_lines = curve_report.lines();
    for line in plain_report
        .lines()
        .filter(|line| !line.contains("elapsed"))
    {
        assert!(curve_lines.any(|l| l == line), "{line}");
    }
    assert!(curve_report.contains("## Budget curve"));

    // budget.tsv: at fraction 1, trials.tsv's figures; recall and overlap never fall.
    let (header, budget_rows) = rows(&curve.join("budget.tsv"));
    assert_eq!(
        header,
        [
            "fraction",
            "seed",
            "held_out",
            "measure",
            "tau_b",
            "tau_ap",
            "paired_tau_b",
            "recall",
            "overlap",
            "significant",
        ]
        .into_iter()
        .map(String::from)
        .chain(
            ["official", "paired", "held_out", "full", "truth"]
                .iter()
                .flat_map(|reference| {
                    ["kept", "lost", "reversed", "new"].map(|kind| format!("{reference}_{kind}"))
                })
        )
        .collect::<Vec<_>>()
    );
    let (trial_header, trials) = rows(&curve.join("trials.tsv"));
    assert_eq!(budget_rows.len(), 3 * trials.len());
    let at_whole: Vec<&Vec<String>> = budget_rows.iter().filter(|r| r[0] == "1").collect();
    assert_eq!(at_whole.len(), trials.len());
    for (row, trial) in at_whole.iter().zip(&trials) {
        for column in header[1..].iter().filter(|c| !c.starts_with("full_")) {
            assert_eq!(
                field(&header, row, column),
                field(&trial_header, trial, column),
                "{column}"
            );
        }
        // Against the whole budget's control: a control keeps its own significant pairs, a
        // held-out trial's pairs are its paired ones.
        for kind in ["kept", "lost", "reversed", "new"] {
            let full = field(&header, row, &format!("full_{kind}"));
            let expected = match (field(&header, row, "held_out"), kind) {
                ("control", "kept") => field(&header, row, "significant"),
                ("control", _) => "0",
                _ => field(&header, row, &format!("paired_{kind}")),
            };
            assert_eq!(full, expected, "full_{kind} of {row:?}");
        }
    }
    let number =
        |row: &Vec<String>, column: &str| -> f64 { field(&header, row, column).parse().unwrap() };
    for (index, row) in budget_rows.iter().enumerate() {
        let later = budget_rows[index..].iter().filter(|other| {
            other[1..4] == row[1..4] && number(other, "fraction") > number(row, "fraction")
        });
        for other in later {
            for column in ["recall", "overlap"] {
                assert!(
                    number(other, column) >= number(row, column),
                    "{row:?} {other:?}"
                );
            }
        }
    }
}

#[test]
fn shards_merged_with_fractions_equal_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let whole = dir.path().join("whole");
    simulate(&task, &whole, FRACTIONS);
    assert!(whole.join("budget.tsv").exists());
    let split = dir.path().join("split");
    for index in 0..3 {
        let shard = format!("{index}/3");
        simulate(&task, &split, &[FRACTIONS, &["--shard", &shard]].concat());
    }
    let merged = run(["merge".as_ref(), split.as_os_str()]);
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    assert_same_outputs(&whole, &split);
}

#[test]
fn a_killed_study_with_fractions_resumes_to_the_same_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let whole = dir.path().join("whole");
    simulate(&task, &whole, FRACTIONS);
    let killed = dir.path().join("killed");
    let args = |extra: &[&str]| simulate_args(&task, &killed, &[FRACTIONS, extra].concat());
    let output = reusesim()
        .args(args(&["--threads", "1"]))
        .env(STOP_AFTER_UNITS, "2")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(journal_records(&killed.join("units.journal")), 1 + 2);
    let output = reusesim().args(args(&["--resume"])).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("resumed 2 units from the journal"),
        "{stderr}"
    );
    assert_same_outputs(&whole, &killed);
}

#[test]
fn a_finished_studys_journal_serves_other_fractions_without_judging() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let fresh = dir.path().join("fresh");
    simulate(&task, &fresh, FRACTIONS);
    let resumed = dir.path().join("resumed");
    simulate(&task, &resumed, &[]);
    let units = journal_records(&resumed.join("units.journal")) - 1;
    let args = |out: &Path| simulate_args(&task, out, &[&["--resume"], FRACTIONS].concat());
    let output = reusesim().args(args(&resumed)).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("resumed {units} units from the journal")),
        "{stderr}"
    );
    assert_eq!(journal_records(&resumed.join("units.journal")), 1 + units);
    assert_same_outputs(&fresh, &resumed);
}
