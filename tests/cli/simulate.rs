//! `reusesim simulate`: identical outputs whatever the thread count, every output file, and the
//! invariants of a study on TREC-COVID round 1 (run features).

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::{read_qrels_map, run, stdout_of, write_tiny_text_task};

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

/// The rows of a result table, each a map from column to text.
fn table(dir: &Path, name: &str) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(dir.join(name)).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines
        .map(|line| {
            let fields = line.split('\t').map(str::to_string);
            header.iter().map(|h| h.to_string()).zip(fields).collect()
        })
        .collect()
}

/// Kendall's tau_b written out from its definition, independent of the library: (concordant -
/// discordant) / sqrt((pairs - ties in x) (pairs - ties in y)); `None` when either side ties
/// every pair.
fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let (mut concordant, mut discordant, mut ties_x, mut ties_y, mut pairs) = (0, 0, 0, 0, 0);
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            pairs += 1;
            let (dx, dy) = (x[i] - x[j], y[i] - y[j]);
            ties_x += i64::from(dx == 0.0);
            ties_y += i64::from(dy == 0.0);
            if dx * dy > 0.0 {
                concordant += 1;
            } else if dx * dy < 0.0 {
                discordant += 1;
            }
        }
    }
    let denominator = (((pairs - ties_x) * (pairs - ties_y)) as f64).sqrt();
    (denominator > 0.0).then(|| (concordant - discordant) as f64 / denominator)
}

/// The study's correlations of map recomputed from its tables: the LOU ranking of each seed
/// (`lou.tsv`) against the official one (`runs.tsv`), summarised in `summary.json`; and each
/// trial's ranking (`ranks.tsv`) against the official one and against its seed's control, as
/// `trials.tsv` gives them.
fn assert_correlations_recomputed(dir: &Path, summary: &serde_json::Value) {
    let of_map = |rows: Vec<BTreeMap<String, String>>| -> Vec<BTreeMap<String, String>> {
        rows.into_iter()
            .filter(|row| row["measure"] == "map")
            .collect()
    };
    let number =
        |row: &BTreeMap<String, String>, column: &str| -> f64 { row[column].parse().unwrap() };
    let official: BTreeMap<String, f64> = of_map(table(dir, "runs.tsv"))
        .iter()
        .map(|row| (row["run"].clone(), number(row, "official_score")))
        .collect();
    // Scores in the official table's run order.
    let aligned = |scores: &BTreeMap<String, f64>| -> (Vec<f64>, Vec<f64>) {
        assert_eq!(scores.len(), official.len());
        official
            .iter()
            .map(|(run, score)| (*score, scores[run]))
            .unzip()
    };
    let mut lou: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    for row in of_map(table(dir, "lou.tsv")) {
        let score = number(&row, "score");
        lou.entry(row["seed"].clone())
            .or_default()
            .insert(row["run"].clone(), score);
    }
    assert_eq!(lou.len(), 2, "two seeds");
    let taus: Vec<f64> = lou
        .values()
        .map(|scores| {
            let (x, y) = aligned(scores);
            kendall_tau_b(&x, &y).unwrap()
        })
        .collect();
    let spread = &summary["measures"]["map"]["lou"]["tau_b"];
    let mean = taus.iter().sum::<f64>() / taus.len() as f64;
    let min = taus.iter().copied().fold(f64::INFINITY, f64::min);
    let max = taus.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    for (field, expected) in [("mean", mean), ("min", min), ("max", max)] {
        let got = spread[field].as_f64().unwrap();
        assert!(
            (got - expected).abs() < 1e-12,
            "lou tau_b {field}: {got} vs {expected}"
        );
    }
    let mut trial_scores: BTreeMap<(String, String), BTreeMap<String, f64>> = BTreeMap::new();
    for row in of_map(table(dir, "ranks.tsv")) {
        let key = (row["seed"].clone(), row["trial"].clone());
        let score = number(&row, "score");
        trial_scores
            .entry(key)
            .or_default()
            .insert(row["run"].clone(), score);
    }
    let trials = of_map(table(dir, "trials.tsv"));
    assert_eq!(trials.len(), trial_scores.len());
    for row in &trials {
        let scores = &trial_scores[&(row["seed"].clone(), row["held_out"].clone())];
        let (x, y) = aligned(scores);
        let (got, expected) = (row["tau_b"].parse::<f64>().ok(), kendall_tau_b(&x, &y));
        let is_same = match (got, expected) {
            (Some(got), Some(expected)) => (got - expected).abs() < 1e-12,
            (got, expected) => got.is_none() && expected.is_none(),
        };
        assert!(is_same, "trial {row:?}: tau_b recomputed {expected:?}");
        if row["held_out"] == "control" {
            assert_eq!(row["paired_tau_b"], "NA");
            continue;
        }
        let control = &trial_scores[&(row["seed"].clone(), "control".to_string())];
        let pairs: (Vec<f64>, Vec<f64>) = official
            .keys()
            .map(|run| (control[run], scores[run]))
            .unzip();
        let expected = kendall_tau_b(&pairs.0, &pairs.1).unwrap();
        let got: f64 = row["paired_tau_b"].parse().unwrap();
        assert!(
            (got - expected).abs() < 1e-12,
            "trial {row:?}: paired tau_b vs {expected}"
        );
    }
}

#[test]
fn outputs_are_identical_with_one_and_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    // A sampled significance test too: its random streams are keyed by pair, not by thread.
    let settings = [
        "--seeds",
        "2",
        "--iterations",
        "2000",
        "--keep-qrels",
        "--significance",
        "randomization,holm",
    ];
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
    assert_correlations_recomputed(&one, &summary);
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

#[test]
fn the_default_study_withholds_uniques_and_leads_with_the_paired_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let out = dir.path().join("study");
    let output = crate::util::run_ok([
        "simulate",
        "--task",
        task.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seeds",
        "1",
        "--iterations",
        "2000",
    ]);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["settings"]["judge"]["withhold"], "uniques");
    assert!(summary["settings"]["deviations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d
            .as_str()
            .unwrap()
            .contains("withholds the team's unique documents")));
    let header = std::fs::read_to_string(out.join("trials.tsv")).unwrap();
    let header = header.lines().next().unwrap();
    for column in ["\tcarried\t", "\toverlap_found\t", "\trecall_found\t"] {
        assert!(header.contains(column), "{header}");
    }
    // The printed summary: per measure the paired statistics and the noise floor, then the
    // LOU ranking.
    let stderr = String::from_utf8(output.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    let position = |wanted: &str| lines.iter().position(|line| line.contains(wanted)).unwrap();
    let map = &summary["measures"]["map"];
    let paired_line = lines[position("reusesim: map: paired tau_b")];
    let figure = |value: &serde_json::Value, decimals: usize| {
        format!("{:.decimals$}", value.as_f64().unwrap())
    };
    for expected in [
        format!(
            "paired tau_b {};",
            figure(&map["paired"]["tau_b"]["mean"], 3)
        ),
        format!("max {};", figure(&map["paired"]["rank_change"]["max"], 1)),
        format!(
            "vs official {} (noise floor)",
            figure(&map["control"]["tau_b"]["mean"], 3)
        ),
    ] {
        assert!(
            paired_line.contains(&expected),
            "{expected} not in {paired_line}"
        );
    }
    assert!(position("paired tau_b") < position("LOU ranking vs official"));
    // report.md leads with the paired statistics and the ranks over all trials.
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    let sections: Vec<usize> = [
        "## Leave-out trials paired with their seed's control",
        "## Every run's rank over all trials",
        "## Control trials",
        "## The LOU ranking against the official ranking",
        "## Classic leave-out-uniques against the official ranking",
    ]
    .iter()
    .map(|title| {
        report
            .find(title)
            .unwrap_or_else(|| panic!("{title} missing"))
    })
    .collect();
    assert!(
        sections.windows(2).all(|pair| pair[0] < pair[1]),
        "{sections:?}"
    );
}

#[test]
fn bad_significance_settings_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    for (extra, expected) in [
        (
            &["--significance", "t,fdr"][..],
            "expected TEST[,CORRECTION]",
        ),
        (
            &["--significance", "anova"][..],
            "expected TEST[,CORRECTION]",
        ),
        (
            &["--significance", "tukey,bh"][..],
            "corrects for all pairs itself",
        ),
        (
            &["--alpha", "1"][..],
            "expected alpha between 0 and 1, found 1",
        ),
    ] {
        let out = dir.path().join("out");
        let task_arg = task.to_str().unwrap();
        let out_arg = out.to_str().unwrap();
        let args = [
            &["simulate", "--task", task_arg, "--out", out_arg][..],
            extra,
        ]
        .concat();
        let output = run(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(expected), "{extra:?}: {stderr}");
        assert!(
            !out.join("units.journal").exists(),
            "{extra:?} judged units"
        );
    }
}
