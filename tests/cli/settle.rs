//! `reusesim audit`: a measure whose rank rests on more documents beyond the pool's reach than a
//! list may hold is marked cannot settle, said in the verdict, and left out of the list; the
//! same run under `--beyond-pool non-relevant` settles.

use std::path::{Path, PathBuf};

use crate::audit::write_known_task;
use crate::util::stdout_of;

const TOPICS: usize = 12;

/// The known task of `audit.rs` (pool depth 3), and a run `DEEP` that ranks 3 new documents
/// first, then 2 relevant and 2 non-relevant judged ones, then 30 more new documents: its MAP
/// rests on those 30 a topic, beyond the pool's reach, while its P@10 rests on the 3 first and
/// 3 of the deep ones.
fn write_deep_run(dir: &Path) -> (PathBuf, PathBuf) {
    let (task, ..) = write_known_task(dir);
    let mut text = String::new();
    for topic in 1..=TOPICS {
        let mut ranked: Vec<String> = (1..=3).map(|k| format!("t{topic}-new{k}")).collect();
        for (kind, k) in [('a', 1), ('a', 2), ('b', 1), ('b', 2)] {
            ranked.push(format!("t{topic}-{kind}1-{k}"));
        }
        ranked.extend((1..=30).map(|k| format!("t{topic}-deep{k}")));
        for (pos, doc) in ranked.iter().enumerate() {
            text.push_str(&format!(
                "{topic} Q0 {doc} {} {} DEEP\n",
                pos + 1,
                1000 - pos
            ));
        }
    }
    let run = dir.join("DEEP.run");
    std::fs::write(&run, text).unwrap();
    (task, run)
}

/// `reusesim audit` of `run` on `task` with thresholds that put both measures at risk under
/// either treatment of the documents beyond the pool's reach, and `extra` arguments.
fn audit(task: &Path, run: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "audit",
        "--study-seeds",
        "0",
        "--risk-threshold",
        "0.05",
        "--settle-threshold",
        "0.05",
        "--task",
        task.to_str().unwrap(),
        "--run",
        run.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    stdout_of(&args)
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("json report")
}

fn measure<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    (report["runs"][0]["measures"].as_array().unwrap().iter())
        .find(|m| m["measure"] == name)
        .unwrap_or_else(|| panic!("measure {name} in the report"))
}

fn number(value: &serde_json::Value) -> f64 {
    value.as_f64().expect("a number")
}

const CANNOT_SETTLE: &str =
    "map's rank rests on 30 documents a topic beyond the pool's reach; judging cannot settle it";

#[test]
fn map_beyond_the_pools_reach_cannot_settle_under_extrapolation_and_settles_under_non_relevant() {
    let dir = tempfile::tempdir().unwrap();
    let (task, run) = write_deep_run(dir.path());
    let both = ["--measures", "map,P_10", "--format", "json"];
    let extrapolated = [&both[..], &["--beyond-pool", "extrapolate"]].concat();
    // Extrapolated, judging 5 documents a topic of the 30 cannot settle MAP: the verdict says
    // so, and the list serves P@10 alone, so it holds only documents of the top 10.
    let report = json(&audit(&task, &run, &extrapolated));
    let verdict = report["verdict"].as_str().unwrap();
    eprintln!("{verdict}");
    let map = measure(&report, "map");
    assert!(map["is_at_risk"].as_bool().unwrap(), "{map}");
    assert!(map["cannot_settle"].as_bool().unwrap(), "{map}");
    assert_eq!(number(&map["risk_documents_beyond_pool_per_topic"]), 30.0);
    assert!(number(&map["remaining_probability_rank_moves"]) > 0.05);
    let p10 = measure(&report, "P_10");
    assert!(p10["is_at_risk"].as_bool().unwrap(), "{p10}");
    assert!(!p10["cannot_settle"].as_bool().unwrap(), "{p10}");
    assert!(number(&p10["remaining_probability_rank_moves"]) <= 0.05);
    assert!(verdict.starts_with("judge "), "{verdict}");
    assert!(verdict.contains(CANNOT_SETTLE), "{verdict}");
    let listed = report["to_judge"].as_array().unwrap();
    assert!(!listed.is_empty());
    for entry in listed {
        assert!(number(&entry["rank"]) <= 10.0, "{entry}");
    }
    // With no cap per topic, the whole list of the 30 settles it.
    let uncapped = json(&audit(
        &task,
        &run,
        &[&extrapolated[..], &["--list-per-topic", "0"]].concat(),
    ));
    let map = measure(&uncapped, "map");
    assert!(!map["cannot_settle"].as_bool().unwrap(), "{map}");
    assert!(number(&map["remaining_probability_rank_moves"]) <= 0.05);
    // MAP alone: no list, and the Markdown lead says why.
    let markdown = audit(
        &task,
        &run,
        &["--measures", "map", "--beyond-pool", "extrapolate"],
    );
    let lead = markdown.lines().next().unwrap();
    assert!(
        lead.starts_with(&format!("**Verdict: {CANNOT_SETTLE}")),
        "{lead}"
    );
    assert!(
        markdown.contains("yes; judging cannot settle it"),
        "{markdown}"
    );
    let alone = json(&audit(
        &task,
        &run,
        &[
            "--measures",
            "map",
            "--format",
            "json",
            "--beyond-pool",
            "extrapolate",
        ],
    ));
    assert_eq!(alone["to_judge"].as_array().unwrap().len(), 0);
    assert_eq!(
        alone["verdict"].as_str().unwrap(),
        &lead[11..lead.len() - 2]
    );
    // Presumed non-relevant beyond the pool's reach, MAP rests on the run's top 3 and settles.
    let presumed = json(&audit(
        &task,
        &run,
        &[&both[..], &["--beyond-pool", "non-relevant"]].concat(),
    ));
    let map = measure(&presumed, "map");
    assert!(map["is_at_risk"].as_bool().unwrap(), "{map}");
    assert!(!map["cannot_settle"].as_bool().unwrap(), "{map}");
    assert!(number(&map["remaining_probability_rank_moves"]) <= 0.05);
    let verdict = presumed["verdict"].as_str().unwrap();
    assert!(!verdict.contains("cannot settle"), "{verdict}");
    assert!(!presumed["to_judge"].as_array().unwrap().is_empty());
}
