//! `simulate --strategies`: the study's own outputs do not change with strategies; hical's rows
//! are the study's own figures; each strategy's judgments stay within the budget; shards merged
//! and a killed study resumed give the same files with strategies too; a strategy named twice
//! or unknown is refused.

use std::path::Path;

use crate::shard::{assert_same_outputs, simulate_args, STOP_AFTER_UNITS, STUDY};
use crate::util::{reusesim, run, run_on_task, write_tiny_text_task};

/// The strategies and fractions the tests use.
const COMPARED: &[&str] = &[
    "--strategies",
    "hical,depth,mtf,bandit",
    "--budget-fractions",
    "0.5,1",
];

fn simulate(task: &Path, out: &Path, extra: &[&str]) {
    run_on_task("simulate", task, out, &[STUDY, extra].concat());
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The rows of `strategies.tsv` as maps from column name to field.
fn strategy_rows(dir: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let text = std::fs::read_to_string(dir.join("strategies.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines
        .map(|line| {
            let fields = line.split('\t').map(str::to_string);
            header
                .iter()
                .map(|name| name.to_string())
                .zip(fields)
                .collect()
        })
        .collect()
}

#[test]
fn strategies_leave_the_studys_own_outputs_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let (alone, compared) = (dir.path().join("alone"), dir.path().join("compared"));
    simulate(&task, &alone, &["--budget-fractions", "0.5,1"]);
    simulate(&task, &compared, COMPARED);
    assert!(!alone.join("strategies.tsv").exists());
    let tables = [
        "runs.tsv",
        "lou.tsv",
        "trials.tsv",
        "heldout.tsv",
        "ranks.tsv",
        "budget.tsv",
    ];
    for table in tables {
        let read = |dir: &Path| std::fs::read(dir.join(table)).unwrap();
        assert!(read(&alone) == read(&compared), "{table} differs");
    }
    let (alone_summary, compared_summary) = (
        json(&alone.join("summary.json")),
        json(&compared.join("summary.json")),
    );
    assert!(alone_summary.get("strategies").is_none());
    for block in ["measures", "simulations", "budget"] {
        assert_eq!(alone_summary[block], compared_summary[block], "{block}");
    }
    // hical's rows at the whole budget are the study's own figures.
    let rows = strategy_rows(&compared);
    let measures = alone_summary["measures"].as_object().unwrap().len();
    assert_eq!(
        rows.len(),
        4 * 2 * measures,
        "strategies × fractions × measures"
    );
    for row in rows
        .iter()
        .filter(|r| r["strategy"] == "hical" && r["fraction"] == "1")
    {
        let measure = &alone_summary["measures"][&row["measure"]];
        // serde_json reads numbers to within an ulp.
        let same = |column: &str, value: &serde_json::Value| {
            let written: Option<f64> = row[column].parse().ok();
            let mean = value.get("mean").and_then(serde_json::Value::as_f64);
            match (written, mean) {
                (Some(written), Some(mean)) => assert!((written - mean).abs() < 1e-12),
                (written, mean) => assert_eq!(written, mean, "{column}: {row:?}"),
            }
        };
        same("paired_tau_b", &measure["paired"]["tau_b"]);
        same("control_tau_b", &measure["control"]["tau_b"]);
        same("control_recall", &measure["control"]["recall"]);
    }
    let report = std::fs::read_to_string(compared.join("report.md")).unwrap();
    assert!(report.contains("## Judging strategies"), "{report}");
    assert!(compared.join("figures/strategies_map.png").exists());
    assert!(!alone.join("figures/strategies_map.png").exists());
    // The significance figure: a bar per strategy with strategies, hical's alone without.
    let significance =
        |dir: &Path| std::fs::read_to_string(dir.join("figures/significance_map.svg")).unwrap();
    for strategy in ["hical", "depth", "mtf", "bandit"] {
        assert!(significance(&compared).contains(strategy), "{strategy}");
    }
    assert!(!significance(&alone).contains("bandit"));
}

#[test]
fn strategies_judge_within_the_budget_and_halve_it_at_half() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let out = dir.path().join("out");
    simulate(&task, &out, COMPARED);
    let rows = strategy_rows(&out);
    let judgments = |strategy: &str, fraction: &str| -> f64 {
        let row = rows
            .iter()
            .find(|r| r["strategy"] == strategy && r["fraction"] == fraction)
            .unwrap();
        row["judgments_per_topic"].parse().unwrap()
    };
    for strategy in ["depth", "mtf", "bandit"] {
        let (half, whole) = (judgments(strategy, "0.5"), judgments(strategy, "1"));
        assert!(
            half <= whole && whole <= judgments("hical", "1"),
            "{strategy}"
        );
        assert!(half >= 0.4 * whole, "{strategy}: {half} of {whole}");
    }
    let summary = json(&out.join("summary.json"));
    let verdicts = &summary["strategies"]["measures"]["map"]["reusable_at"];
    assert_eq!(verdicts.as_object().unwrap().len(), 4, "{verdicts}");
}

#[test]
fn shards_merged_and_a_killed_study_resumed_with_strategies_equal_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let whole = dir.path().join("whole");
    simulate(&task, &whole, COMPARED);
    let split = dir.path().join("split");
    for index in 0..3 {
        let shard = format!("{index}/3");
        simulate(&task, &split, &[COMPARED, &["--shard", &shard]].concat());
    }
    let merged = run(["merge".as_ref(), split.as_os_str()]);
    let stderr = String::from_utf8_lossy(&merged.stderr);
    assert!(merged.status.success(), "{stderr}");
    assert_same_outputs(&whole, &split);
    let killed = dir.path().join("killed");
    let args = |extra: &[&str]| simulate_args(&task, &killed, &[COMPARED, extra].concat());
    let output = reusesim()
        .args(args(&["--threads", "1"]))
        .env(STOP_AFTER_UNITS, "2")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    let output = reusesim().args(args(&["--resume"])).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_same_outputs(&whole, &killed);
    // The journal of a study without strategies is another study's.
    let output = reusesim()
        .args(simulate_args(&task, &killed, &["--resume"]))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let named = "setting strategies (null vs [\"hical\",\"depth\",\"mtf\",\"bandit\"])";
    assert!(
        !output.status.success() && stderr.contains(named),
        "{stderr}"
    );
}

#[test]
fn a_strategy_named_twice_or_unknown_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    for (strategies, expected) in [
        ("depth,mtf,depth", "judging strategy depth is given twice"),
        ("depth,pool", "invalid value 'pool'"),
    ] {
        let out = dir.path().join("out");
        let output = run([
            "simulate".as_ref(),
            "--task".as_ref(),
            task.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            "--strategies".as_ref(),
            strategies.as_ref(),
        ]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert!(!out.join("summary.json").exists());
    }
}
