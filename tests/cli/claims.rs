//! `reusesim audit --against`: claims that the run's unjudged documents decide or cannot
//! change, the returned judgments' verdict against the truth, and refused baselines.

use std::path::{Path, PathBuf};

use crate::audit::write_known_task;
use crate::util::{run, stdout_of};

const TOPICS: usize = 12;

/// A run's lines: each topic's documents, in rank order.
fn write_run(path: &Path, tag: &str, ranked: impl Fn(usize) -> Vec<String>) {
    let mut text = String::new();
    for topic in 1..=TOPICS {
        for (pos, doc) in ranked(topic).iter().enumerate() {
            text.push_str(&format!(
                "{topic} Q0 {doc} {} {} {tag}\n",
                pos + 1,
                1000 - pos
            ));
        }
    }
    std::fs::write(path, text).unwrap();
}

/// A judged document of the known task: `kind` a (relevant) or b (not), of `team`.
fn own(kind: char, team: usize, topic: usize, k: usize) -> String {
    format!("t{topic}-{kind}{team}-{k}")
}

/// The first `count` of team `team`'s documents of `kind` and the next team's.
fn judged(kind: char, team: usize, topic: usize, count: usize) -> Vec<String> {
    (1..=3)
        .map(|k| own(kind, team, topic, k))
        .chain((1..=3).map(|k| own(kind, team + 1, topic, k)))
        .take(count)
        .collect()
}

/// The new documents of a topic, which no qrels judge.
fn new_documents(topic: usize) -> Vec<String> {
    (1..=5).map(|k| format!("t{topic}-n{k}")).collect()
}

/// The known task of `audit.rs`, and two runs: `NEW` ranks 5 or 6 relevant and 4 or 5
/// non-relevant judged documents first (P@10 0.5 on even topics, 0.6 on odd ones), then its 5
/// new documents; the baseline `BASE` ranks those 5 first, then 2 or 3 relevant and 3 or 2
/// non-relevant ones (P@10 0.2 or 0.3). On the collection NEW beats BASE by 0.3 on every
/// topic; with the new documents relevant, BASE gains 0.5 a topic and NEW nothing (they lie
/// below its top 10): BASE is better by 0.2.
pub(crate) fn write_decided_task(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (task, ..) = write_known_task(dir);
    let new = dir.join("NEW.run");
    write_run(&new, "NEW", |topic| {
        let extra = topic % 2;
        let mut ranked = judged('a', 1, topic, 5 + extra);
        ranked.extend(judged('b', 1, topic, 5 - extra));
        ranked.extend(new_documents(topic));
        ranked.extend((1..30).map(|j| format!("t{topic}-njunk{j}")));
        ranked
    });
    let base = dir.join("BASE.run");
    write_run(&base, "BASE", |topic| {
        let extra = topic % 2;
        let mut ranked = new_documents(topic);
        ranked.extend(judged('a', 3, topic, 2 + extra));
        ranked.extend(judged('b', 3, topic, 3 - extra));
        ranked.extend((1..30).map(|j| format!("t{topic}-bjunk{j}")));
        ranked
    });
    (task, new, base)
}

fn audit_json(task: &Path, new: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "audit",
        "--format",
        "json",
        "--study-seeds",
        "0",
        "--measures",
        "P_10",
        // BASE, a baseline the task did not pool, counts as pooled only when extrapolating:
        // presumed non-relevant, its new documents would decide nothing.
        "--beyond-pool",
        "extrapolate",
        "--task",
        task.to_str().unwrap(),
        "--run",
        new.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    serde_json::from_str(&stdout_of(&args)).expect("json report")
}

fn number(value: &serde_json::Value) -> f64 {
    value.as_f64().expect("a number")
}

#[test]
fn a_claim_the_runs_unjudged_documents_reverse_is_at_risk_and_they_are_listed_first() {
    let dir = tempfile::tempdir().unwrap();
    let (task, new, base) = write_decided_task(dir.path());
    let report = audit_json(&task, &new, &["--against", base.to_str().unwrap()]);
    let claim = &report["runs"][0]["claims"][0];
    eprintln!("{} {claim}", report["verdict"]);
    assert_eq!(claim["baseline"], "BASE");
    assert_eq!(claim["chosen_as"], "file");
    // Safe without them: the collection finds NEW better by 0.3 on every topic.
    assert!((number(&claim["difference"]) - 0.3).abs() < 1e-9);
    assert!(claim["is_significant"].as_bool().unwrap());
    // With them it reverses; the audit, which believes them, says so.
    assert_eq!(claim["verdict"], "at risk");
    assert!(number(&claim["probability_significant_as_claimed"]) < 0.9);
    assert!(number(&claim["expected_difference"]) < number(&claim["difference"]));
    let verdict = report["verdict"].as_str().unwrap();
    assert!(
        verdict.starts_with("claims: NEW vs BASE by P_10 at risk"),
        "{verdict}"
    );
    // The list serves the claim, its documents first: the new documents, and only those (no
    // other document changes either run's P@10).
    let listed = report["to_judge"].as_array().unwrap();
    assert!(!listed.is_empty());
    assert_eq!(number(&claim["listed_documents"]), listed.len() as f64);
    for entry in listed {
        let docid = entry["docid"].as_str().unwrap();
        assert!(docid.contains("-n") && !docid.contains("junk"), "{docid}");
        assert_eq!(entry["claims"][0], "NEW vs BASE by P_10");
    }
    assert!(number(&claim["remaining_after_list"]) <= 0.1, "{claim}");
    assert_eq!(claim["cannot_settle"], false);
}

/// The claim of the test above with one document a topic in the list: judging a topic's first
/// new document leaves BASE's gain from the other four, so the claim's own list cannot settle
/// it; the verdict says so and the list does not serve it.
#[test]
fn a_claim_its_own_capped_list_cannot_settle_is_said_so_and_not_served() {
    let dir = tempfile::tempdir().unwrap();
    let (task, new, base) = write_decided_task(dir.path());
    let against = ["--against", base.to_str().unwrap()];
    let capped = audit_json(
        &task,
        &new,
        &[&against[..], &["--list-per-topic", "1"]].concat(),
    );
    let claim = &capped["runs"][0]["claims"][0];
    let verdict = capped["verdict"].as_str().unwrap();
    eprintln!("{verdict}\n{claim}");
    assert_eq!(claim["verdict"], "at risk");
    assert_eq!(claim["cannot_settle"], true, "{claim}");
    assert!(number(&claim["remaining_after_list"]) > 0.1, "{claim}");
    assert_eq!(number(&claim["listed_documents"]), 0.0);
    assert!(
        verdict.starts_with("claims: NEW vs BASE by P_10 at risk (P(significant as claimed) ")
            && verdict.contains("; judging cannot settle it)"),
        "{verdict}"
    );
    assert!(!verdict.contains("P(claim's outcome changes)"), "{verdict}");
    for entry in capped["to_judge"].as_array().unwrap() {
        assert_eq!(entry["claims"].as_array().unwrap().len(), 0, "{entry}");
    }
}

#[test]
fn a_claim_unjudged_documents_cannot_change_is_safe_with_no_document_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let (task, new, _) = write_decided_task(dir.path());
    // b1 ranks none of NEW's new documents, and they lie below NEW's top 10.
    let report = audit_json(&task, &new, &["--against", "b1"]);
    let claim = &report["runs"][0]["claims"][0];
    assert_eq!(
        (&claim["baseline"], &claim["chosen_as"]),
        (&"b1".into(), &"run".into())
    );
    assert_eq!(claim["verdict"], "safe");
    assert_eq!(number(&claim["probability_significant_as_claimed"]), 1.0);
    assert_eq!(number(&claim["listed_documents"]), 0.0);
    assert_eq!(report["to_judge"].as_array().unwrap().len(), 0);
    assert_eq!(
        report["verdict"],
        "claims: 1 safe; ranks: no extra judgments needed"
    );
}

/// The qrels plus the new documents, all relevant: the truth of the decided task.
fn write_truth(task_dir: &Path, out: &Path) {
    let mut qrels = std::fs::read_to_string(task_dir.join("qrels")).unwrap();
    for topic in 1..=TOPICS {
        for doc in new_documents(topic) {
            qrels.push_str(&format!("{topic} 0 {doc} 1\n"));
        }
    }
    std::fs::write(out, qrels).unwrap();
}

#[test]
fn the_claims_verdict_after_the_returned_judgments_agrees_with_the_truth() {
    let dir = tempfile::tempdir().unwrap();
    let (task, new, base) = write_decided_task(dir.path());
    let truth = dir.path().join("truth.qrels");
    write_truth(dir.path(), &truth);
    let sheet = dir.path().join("sheet.tsv");
    let against = ["--against", base.to_str().unwrap()];
    let mut first = against.to_vec();
    first.extend(["--sheet", sheet.to_str().unwrap()]);
    audit_json(&task, &new, &first);
    // The sheet opens with the claim's verdict, and gives the claims each document serves.
    let text = std::fs::read_to_string(&sheet).unwrap();
    let mut lines = text.lines();
    let claim_line = lines.next().unwrap();
    assert!(
        claim_line.starts_with("# NEW vs BASE by P_10: at risk, P(significant as claimed) 0."),
        "{claim_line}"
    );
    assert!(
        claim_line.contains(", P(outcome changes) ")
            && claim_line.ends_with(" once this sheet is judged"),
        "{claim_line}"
    );
    let header = lines.next().unwrap();
    assert_eq!(
        header,
        "topic\ttopic_text\tdocid\tdocument_text\truns\tclaims\tprobability\tgrade"
    );
    // The assessors grade the sheet as the truth does: every new document relevant.
    let mut filled = format!("{claim_line}\n{header}\n");
    for line in lines {
        let mut fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields[5], "NEW vs BASE by P_10", "{line}");
        *fields.last_mut().unwrap() = if fields[2].contains("-n") { "1" } else { "0" };
        filled.push_str(&fields.join("\t"));
        filled.push('\n');
    }
    let filled_path = dir.path().join("filled.tsv");
    std::fs::write(&filled_path, filled).unwrap();
    let mut again = against.to_vec();
    again.extend(["--judged", filled_path.to_str().unwrap()]);
    let report = audit_json(&task, &new, &again);
    let change = &report["judged"]["claims"][0];
    eprintln!("{change}");
    assert_eq!(change["before"]["verdict"], "at risk");
    let after = &change["after"];
    // The truth, by `compare` (the t-test; one baseline, so no correction to make).
    let compared: serde_json::Value = serde_json::from_str(&stdout_of([
        "compare",
        "--format",
        "json",
        "-m",
        "P_10",
        "--baseline",
        "BASE",
        truth.to_str().unwrap(),
        new.to_str().unwrap(),
        base.to_str().unwrap(),
    ]))
    .unwrap();
    let pair = &compared["measures"][0]["pairs"][0];
    let truth_difference = number(&pair["mean_difference"]);
    assert!(truth_difference < 0.0 && pair["significant"].as_bool().unwrap());
    assert!(after["is_significant"].as_bool().unwrap(), "{after}");
    assert!(number(&after["difference"]) < 0.0, "{after}");
    assert_eq!(after["verdict"], "safe");
}

/// `audit --against VALUE` on the decided task fails with exit 2 and a message holding
/// `expected`, writing no sheet.
fn refused(value: &str, measures: &str, expected: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (task, new, _) = write_decided_task(dir.path());
    let sheet = dir.path().join("sheet.tsv");
    let output = run([
        "audit",
        "--study-seeds",
        "0",
        "--task",
        task.to_str().unwrap(),
        "--run",
        new.to_str().unwrap(),
        "--measures",
        measures,
        "--sheet",
        sheet.to_str().unwrap(),
        "--against",
        value,
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{value}: {stderr}");
    assert!(stderr.contains(expected), "{value}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!sheet.exists());
}

#[test]
fn baselines_that_are_no_run_the_audited_run_itself_or_best_by_another_measure_are_refused() {
    refused(
        "no-such-run",
        "P_10",
        "--against no-such-run: expected a run of task known (by its tag), a readable run file, \
         best or best:MEASURE",
    );
    let dir = tempfile::tempdir().unwrap();
    let (_, new, _) = write_decided_task(dir.path());
    refused(new.to_str().unwrap(), "P_10", "run \"NEW\" is audited");
    refused(
        "best:map",
        "P_10,ndcg_cut_10",
        "--against best:map: expected best:MEASURE with a measure the audit computes (P_10, \
         ndcg_cut_10), found \"map\"",
    );
    refused(
        "best:nonsense",
        "P_10",
        "a measure the audit computes (P_10)",
    );
}

/// The rows of the Markdown table whose header opens with `first_column`, each a map from
/// header to cell.
fn markdown_table(markdown: &str, first_column: &str) -> Vec<Vec<(String, String)>> {
    let cells = |line: &str| -> Vec<String> {
        let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
        inner
            .split('|')
            .map(|cell| cell.trim().to_string())
            .collect()
    };
    let mut lines = markdown
        .lines()
        .skip_while(|line| !line.starts_with(&format!("| {first_column} |")));
    let header = cells(lines.next().expect("the table's header"));
    (lines.skip(1))
        .take_while(|line| line.starts_with('|'))
        .map(|line| header.iter().cloned().zip(cells(line)).collect())
        .collect()
}

/// Every figure of the Markdown report's claims table stands under its own header, as the
/// JSON report gives it: the probabilities (which differ from one another here, so that two
/// swapped cells show), the remaining probability after the list and the documents listed.
#[test]
fn the_markdown_claims_table_gives_each_claims_figures_under_their_own_headers() {
    let dir = tempfile::tempdir().unwrap();
    let (task, new, base) = write_decided_task(dir.path());
    let against = ["--against", &format!("{},b1", base.display())];
    let report = audit_json(&task, &new, &against);
    let claims = report["runs"][0]["claims"].as_array().unwrap();
    let mut args = vec![
        "audit",
        "--format",
        "md",
        "--study-seeds",
        "0",
        "--measures",
        "P_10",
        "--beyond-pool",
        "extrapolate",
        "--task",
        task.to_str().unwrap(),
        "--run",
        new.to_str().unwrap(),
    ];
    args.extend_from_slice(&against);
    let markdown = stdout_of(&args);
    let rows = markdown_table(&markdown, "run");
    assert_eq!(rows.len(), claims.len(), "{markdown}");
    let at_risk = &claims[0];
    let probabilities = [
        "probability_significant_as_claimed",
        "probability_reversed",
        "probability_not_significant",
    ]
    .map(|field| format!("{:.2}", number(&at_risk[field])));
    assert!(
        probabilities[0] != probabilities[1] && probabilities[1] != probabilities[2],
        "the fixture's probabilities must differ: {probabilities:?}"
    );
    for (row, claim) in rows.iter().zip(claims) {
        let cell = |header: &str| {
            let (_, cell) = (row.iter().find(|(name, _)| name == header))
                .unwrap_or_else(|| panic!("no {header:?} column in {row:?}"));
            cell.clone()
        };
        assert_eq!(
            cell("baseline").split(' ').next(),
            claim["baseline"].as_str()
        );
        for (header, field) in [
            (
                "P(significant as claimed)",
                "probability_significant_as_claimed",
            ),
            ("P(reversed)", "probability_reversed"),
            ("P(not significant)", "probability_not_significant"),
            ("after list", "remaining_after_list"),
        ] {
            assert_eq!(
                cell(header),
                format!("{:.2}", number(&claim[field])),
                "{header}"
            );
        }
        assert_eq!(cell("p"), format!("{:.4}", number(&claim["p_value"])));
        assert_eq!(
            cell("documents listed"),
            claim["listed_documents"].to_string()
        );
        assert!(!cell("verdict").is_empty());
    }
}
