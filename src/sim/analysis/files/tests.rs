//! Tests of the result files: a minimal folder written by the writers reads back, and bad
//! numbers, missing columns, short lines and missing files are errors naming file and line.

use std::path::Path;

use super::*;
use crate::stats::Spread;

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// A results folder of one run, one seed and one held-out team, written by the writers.
fn minimal(dir: &Path) {
    write(
        dir,
        "summary.json",
        r#"{"task": "t", "settings": {"seeds": [1], "held_out_teams": ["a"], "measures": ["map"]}}"#,
    );
    let spread = |value| Spread {
        mean: value,
        min: value,
        max: value,
    };
    let run = RunRow {
        run: "r1".into(),
        team: "a".into(),
        measure: "map".into(),
        official_score: 0.5,
        official_rank: 1.0,
        lou_score: spread(0.4),
        lou_rank: spread(1.0),
        dominant_rank: 1.0,
        dominant_rank_frequency: 1,
        trials_dominant_rank: 1.0,
        trials_dominant_rank_share: 1.0,
        truth_score: None,
    };
    write_table(dir, &[run]).unwrap();
    let lou = LouRow {
        seed: 1,
        run: "r1".into(),
        team: "a".into(),
        measure: "map".into(),
        score: 0.4,
        rank: 1.0,
    };
    write_table(dir, &[lou]).unwrap();
    let trial = |held_out: Option<&str>, tau| TrialRow {
        seed: 1,
        held_out: held_out.map(str::to_string),
        measure: "map".into(),
        tau_b: tau,
        tau_ap: tau,
        paired_tau_b: held_out.and(tau),
        paired_tau_ap: held_out.and(tau),
        overlap: 1.0,
        recall: 1.0,
        carried: 0,
        overlap_found: 1.0,
        recall_found: 1.0,
        withheld: 0,
        significant: Some(3),
        official: Counts::from_array([Some(2), Some(1), Some(0), Some(1)]),
        paired: Counts::from_array([3, 0, 0, 0].map(|count| held_out.map(|_| count))),
        held_out_pairs: Counts::from_array([1, 0, 0, 0].map(|count| held_out.map(|_| count))),
        truth: Counts::default(),
        assessor_tau_b: None,
        assessor_tau_ap: None,
        assessor_recall: None,
        assessor: None,
    };
    write_table(dir, &[trial(None, None), trial(Some("a"), Some(0.5))]).unwrap();
    let rank = |held_out: Option<&str>| RankRow {
        seed: 1,
        held_out: held_out.map(str::to_string),
        run: "r1".into(),
        team: "a".into(),
        measure: "map".into(),
        score: 0.4,
        rank: 1.0,
    };
    write_table(dir, &[rank(None), rank(Some("a"))]).unwrap();
}

#[test]
fn reads_a_minimal_results_folder() {
    let dir = tempfile::tempdir().unwrap();
    minimal(dir.path());
    let results = StudyResults::read(dir.path()).unwrap();
    assert_eq!(results.task, "t");
    assert_eq!(results.runs[0].official_score, 0.5);
    assert_eq!(results.runs[0].truth_score, None);
    assert_eq!(results.lou[0].rank, 1.0);
    assert_eq!(results.trials[0].held_out, None);
    assert_eq!(results.trials[1].held_out.as_deref(), Some("a"));
    assert_eq!(results.trials[1].tau_b, Some(0.5));
    assert_eq!(results.trials[1].paired_tau_b, Some(0.5));
    assert_eq!(results.ranks[0].held_out, None);
    assert_eq!(results.ranks[1].held_out.as_deref(), Some("a"));
    assert!(!results.has_truth());
}

#[test]
fn a_bad_number_names_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    minimal(dir.path());
    write(
        dir.path(),
        "lou.tsv",
        "seed\trun\tteam\tmeasure\tscore\trank\n1\tr1\ta\tmap\t0.4\t1\n1\tr2\ta\tmap\tx\t2\n",
    );
    let message = StudyResults::read(dir.path()).unwrap_err().to_string();
    assert!(message.contains("lou.tsv:3:"), "{message}");
    assert!(message.contains("column 5"), "{message}");
}

#[test]
fn a_missing_column_and_a_short_line_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    minimal(dir.path());
    write(dir.path(), "trials.tsv", "seed\theld_out\tmeasure\n");
    let message = StudyResults::read(dir.path()).unwrap_err().to_string();
    assert!(
        message.contains("trials.tsv:1:") && message.contains("tau_b"),
        "{message}"
    );
    minimal(dir.path());
    write(
        dir.path(),
        "lou.tsv",
        "seed\trun\tteam\tmeasure\tscore\trank\n1\tr1\ta\n",
    );
    let message = StudyResults::read(dir.path()).unwrap_err().to_string();
    assert!(message.contains("lou.tsv:2:"), "{message}");
}

#[test]
fn a_missing_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let message = StudyResults::read(dir.path()).unwrap_err().to_string();
    assert!(message.contains("summary.json"), "{message}");
}

/// Each golden table (written before the tables were written with the `csv` crate), read and
/// written again, gives the same bytes.
#[test]
fn golden_tables_read_and_written_again_are_byte_identical() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/study");
    let dir = tempfile::tempdir().unwrap();
    write_table(dir.path(), &read_table::<RunRow>(&golden).unwrap()).unwrap();
    write_table(dir.path(), &read_table::<LouRow>(&golden).unwrap()).unwrap();
    write_table(dir.path(), &read_table::<TrialRow>(&golden).unwrap()).unwrap();
    write_table(dir.path(), &read_table::<HeldOutRow>(&golden).unwrap()).unwrap();
    write_table(dir.path(), &read_table::<RankRow>(&golden).unwrap()).unwrap();
    for name in [
        "runs.tsv",
        "lou.tsv",
        "trials.tsv",
        "heldout.tsv",
        "ranks.tsv",
    ] {
        let written = std::fs::read(dir.path().join(name)).unwrap();
        let expected = std::fs::read(golden.join(name)).unwrap();
        assert!(written == expected, "{name} differs after a round trip");
    }
}

#[test]
fn an_empty_table_keeps_its_header() {
    let dir = tempfile::tempdir().unwrap();
    write_table::<HeldOutRow>(dir.path(), &[]).unwrap();
    let text = std::fs::read_to_string(dir.path().join("heldout.tsv")).unwrap();
    assert_eq!(
        text,
        "seed\tteam\trun\tmeasure\tscore\trank\tofficial_score\tofficial_rank\tcontrol_score\t\
         control_rank\tpaired_score_change\tpaired_rank_change\n"
    );
}

#[test]
fn values_outside_their_domain_name_the_column_and_the_value() {
    let dir = tempfile::tempdir().unwrap();
    minimal(dir.path());
    let counts: Vec<String> = ["official", "paired", "held_out", "truth"]
        .iter()
        .flat_map(|reference| {
            ["kept", "lost", "reversed", "new"].map(|kind| format!("{reference}_{kind}"))
        })
        .collect();
    let header = format!(
        "seed\theld_out\tmeasure\ttau_b\ttau_ap\tpaired_tau_b\tpaired_tau_ap\toverlap\t\
         recall\tcarried\toverlap_found\trecall_found\twithheld\tsignificant\t{}\n",
        counts.join("\t")
    );
    // Each line's trial columns, then its significant pairs and the sixteen counts: 2 kept and
    // 1 lost against the official qrels, the rest not available.
    let counts_tail = format!("\t2\t1\t0\t0{}", "\tNA".repeat(12));
    let valid = "1\tcontrol\tmap\tNA\tNA\tNA\tNA\t1\t1\t0\t1\t1\t0";
    for (line, significant, column, expected) in [
        (
            "1\tcontrol\tmap\t1.5\tNA\tNA\tNA\t1\t1\t0\t1\t1\t0",
            "3",
            4,
            "a correlation between -1 and 1",
        ),
        (
            "1\tcontrol\tmap\tNA\tNA\tNA\tNA\t2\t1\t0\t1\t1\t0",
            "3",
            8,
            "a fraction between 0 and 1",
        ),
        (
            "x\tcontrol\tmap\tNA\tNA\tNA\tNA\t1\t1\t0\t1\t1\t0",
            "3",
            1,
            "a whole number",
        ),
        (
            "1\t\tmap\tNA\tNA\tNA\tNA\t1\t1\t0\t1\t1\t0",
            "3",
            2,
            "a non-empty field",
        ),
        (valid, "-1", 14, "a whole number, or NA"),
    ] {
        write(
            dir.path(),
            "trials.tsv",
            &format!("{header}{line}\t{significant}{counts_tail}\n"),
        );
        let message = StudyResults::read(dir.path()).unwrap_err().to_string();
        assert!(message.contains("trials.tsv:2:"), "{message}");
        assert!(message.contains(&format!("column {column}")), "{message}");
        assert!(message.contains(expected), "{message}");
    }
}

/// Replaces the value in `column` (1-based) of line 2 of the table `name` in `dir`.
fn replace_field(dir: &Path, name: &str, column: usize, value: &str) {
    let text = std::fs::read_to_string(dir.join(name)).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut fields: Vec<&str> = lines[1].split('\t').collect();
    fields[column - 1] = value;
    lines[1] = fields.join("\t");
    write(dir, name, &(lines.join("\n") + "\n"));
}

/// Every checked domain of every table read for the figures, each at both ends where it has
/// two: the error names the file, line 2, the column, what it must hold and the value.
#[test]
fn every_table_refuses_values_outside_their_domain_naming_file_line_and_column() {
    let at_most_one_run = "a rank of at most 1 for \"map\"";
    let cases = [
        ("runs.tsv", 4, "-0.5", "a score >= 0"),
        ("runs.tsv", 5, "0", "a rank >= 1"),
        ("runs.tsv", 5, "2", at_most_one_run),
        ("runs.tsv", 7, "-1", "a score >= 0"),
        ("runs.tsv", 9, "2", at_most_one_run),
        ("runs.tsv", 10, "1.5", at_most_one_run),
        ("runs.tsv", 11, "3", at_most_one_run),
        ("runs.tsv", 12, "2", at_most_one_run),
        ("runs.tsv", 14, "0.5", "a rank >= 1"),
        ("runs.tsv", 14, "2", at_most_one_run),
        ("runs.tsv", 15, "1.01", "a fraction between 0 and 1"),
        ("runs.tsv", 15, "-0.01", "a fraction between 0 and 1"),
        ("runs.tsv", 16, "-0.2", "a score >= 0, or NA"),
        ("lou.tsv", 5, "-0.4", "a score >= 0"),
        ("lou.tsv", 6, "0", "a rank >= 1"),
        ("lou.tsv", 6, "2", at_most_one_run),
        ("ranks.tsv", 6, "-1e-9", "a score >= 0"),
        ("ranks.tsv", 7, "-3", "a rank >= 1"),
        ("ranks.tsv", 7, "1.5", at_most_one_run),
        ("ranks.tsv", 7, "inf", "a rank >= 1"),
        (
            "trials.tsv",
            4,
            "-1.5",
            "a correlation between -1 and 1, or NA",
        ),
        (
            "trials.tsv",
            6,
            "1.0001",
            "a correlation between -1 and 1, or NA",
        ),
        ("trials.tsv", 9, "-0.1", "a fraction between 0 and 1"),
    ];
    for (name, column, value, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        minimal(dir.path());
        replace_field(dir.path(), name, column, value);
        let message = StudyResults::read(dir.path()).unwrap_err().to_string();
        let located = format!("{name}:2: expected {expected}");
        let named = format!("in column {column}, found \"{value}\"");
        assert!(
            message.contains(&located) && message.contains(&named),
            "{name} column {column} = {value}: {message}"
        );
    }
}
