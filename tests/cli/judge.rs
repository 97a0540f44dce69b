//! `reusesim judge`: determinism across thread counts, the invariants of a simulated qrels
//! (budget, pool, relevant subset), held-out teams, and errors.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::util::{read_qrels_map, run, write_tiny_text_task};

fn judge(task: &Path, out: &Path, extra: &[&str]) {
    crate::util::run_on_task("judge", task, out, extra);
}

/// topic → the union of the top `depth` documents of the runs in `run_dir` (except `skip`), in
/// NIST's pooling order (score descending, ties by docno ascending).
fn pool(
    run_dir: &Path,
    depth: usize,
    skip: &dyn Fn(&str) -> bool,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut pool: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(run_dir).unwrap() {
        let path = entry.unwrap().path();
        let text = if path.extension().is_some_and(|e| e == "gz") {
            use std::io::Read;
            let mut text = String::new();
            flate2::read::MultiGzDecoder::new(std::fs::File::open(&path).unwrap())
                .read_to_string(&mut text)
                .unwrap();
            text
        } else {
            std::fs::read_to_string(&path).unwrap()
        };
        let mut by_topic: BTreeMap<String, Vec<(f32, String)>> = BTreeMap::new();
        let mut tag = String::new();
        for line in text.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            tag = fields[5].to_string();
            by_topic.entry(fields[0].to_string()).or_default().push((
                fields[4].parse::<f64>().unwrap() as f32,
                fields[2].to_string(),
            ));
        }
        if skip(&tag) {
            continue;
        }
        for (topic, mut docs) in by_topic {
            docs.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            pool.entry(topic)
                .or_default()
                .extend(docs.into_iter().take(depth).map(|(_, doc)| doc));
        }
    }
    pool
}

/// Checks a simulated qrels against the official one: N_t judgments per topic (or the whole
/// pool when larger), every pool document judged, relevant documents a subset of the official
/// relevant ones with the same grades.
fn check_invariants(simulated: &Path, official: &Path, pool: &BTreeMap<String, BTreeSet<String>>) {
    let simulated = read_qrels_map(simulated);
    let official = read_qrels_map(official);
    assert_eq!(
        simulated.keys().collect::<Vec<_>>(),
        official.keys().collect::<Vec<_>>()
    );
    for (topic, judgments) in &simulated {
        let official_topic = &official[topic];
        let topic_pool = pool.get(topic).cloned().unwrap_or_default();
        let expected = official_topic.len().max(topic_pool.len());
        assert!(
            judgments.len() == official_topic.len() || judgments.len() == expected,
            "topic {topic}: {} judgments, N_t = {}, pool {}",
            judgments.len(),
            official_topic.len(),
            topic_pool.len()
        );
        for doc in &topic_pool {
            assert!(
                judgments.contains_key(doc),
                "topic {topic}: pool document {doc} not judged"
            );
        }
        for (doc, grade) in judgments {
            match official_topic.get(doc) {
                Some(official_grade) => assert_eq!(grade, official_grade),
                None => assert_eq!(*grade, 0, "an unjudged document is presumed non-relevant"),
            }
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_trace_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let outputs = ["one", "two", "other"].map(|name| dir.path().join(name));
    judge(
        &task,
        &outputs[0],
        &["--seed", "7", "--iterations", "3000", "--threads", "1"],
    );
    judge(
        &task,
        &outputs[1],
        &["--seed", "7", "--iterations", "3000", "--threads", "2"],
    );
    judge(
        &task,
        &outputs[2],
        &["--seed", "8", "--iterations", "3000", "--threads", "2"],
    );
    let read = |dir: &Path, name: &str| std::fs::read(dir.join(name)).unwrap();
    assert_eq!(
        read(&outputs[0], "trace.tsv"),
        read(&outputs[1], "trace.tsv")
    );
    assert_eq!(read(&outputs[0], "qrels"), read(&outputs[1], "qrels"));
    assert_ne!(
        read(&outputs[0], "trace.tsv"),
        read(&outputs[2], "trace.tsv")
    );
}

#[test]
fn simulated_qrels_keep_budget_pool_and_relevant_subset() {
    let dir = tempfile::tempdir().unwrap();
    let task_dir = dir.path().join("task");
    let task = write_tiny_text_task(&task_dir);
    let out = dir.path().join("all");
    judge(&task, &out, &["--iterations", "3000"]);
    let full_pool = pool(&task_dir.join("runs"), 5, &|_| false);
    check_invariants(&out.join("qrels"), &task_dir.join("qrels"), &full_pool);

    // Nothing withheld, so every topic reaches N_t: withholding team3's unique documents can
    // leave this small task fewer candidates than N_t.
    let held_out = dir.path().join("held-out");
    judge(
        &task,
        &held_out,
        &[
            "--iterations",
            "3000",
            "--leave-out",
            "team3",
            "--withhold",
            "none",
        ],
    );
    let pool_without = pool(&task_dir.join("runs"), 5, &|tag| tag.starts_with("t3"));
    check_invariants(
        &held_out.join("qrels"),
        &task_dir.join("qrels"),
        &pool_without,
    );
    let trace = std::fs::read_to_string(held_out.join("trace.tsv")).unwrap();
    let pool_docs: BTreeSet<(String, String)> = trace
        .lines()
        .skip(1)
        .map(|line| line.split('\t').collect::<Vec<_>>())
        .filter(|fields| fields[2] == "0")
        .map(|fields| (fields[0].to_string(), fields[3].to_string()))
        .collect();
    let expected: BTreeSet<(String, String)> = pool_without
        .iter()
        .flat_map(|(topic, docs)| docs.iter().map(|doc| (topic.clone(), doc.clone())))
        .collect();
    assert_eq!(
        pool_docs, expected,
        "batch 0 is exactly the pool of the remaining teams"
    );
}

#[test]
fn a_fixed_budget_replaces_the_official_count() {
    let dir = tempfile::tempdir().unwrap();
    let task = write_tiny_text_task(&dir.path().join("task"));
    let out = dir.path().join("out");
    judge(
        &task,
        &out,
        &[
            "--iterations",
            "2000",
            "--budget",
            "60",
            "--schedule",
            "one",
        ],
    );
    for (topic, judgments) in read_qrels_map(&out.join("qrels")) {
        assert_eq!(judgments.len(), 60, "topic {topic}");
    }
}

#[test]
#[ignore = "needs REUSESIM_DATA"]
fn trec_covid_with_run_features_keeps_the_invariants() {
    let crate::util::Covid {
        runs,
        qrels,
        leaderboard,
    } = crate::util::covid_round1();
    let dir = tempfile::tempdir().unwrap();
    let task = crate::util::write_covid_task(dir.path(), &runs, &qrels, &leaderboard);
    let out = dir.path().join("out");
    judge(
        &task,
        &out,
        &["--iterations", "1000", "--leave-out", "sabir"],
    );
    let pooled: BTreeSet<String> = crate::util::covid_pooled_runs(&leaderboard, Some("sabir"));
    let pool_without = pool(&runs, 7, &|tag| !pooled.contains(tag));
    check_invariants(&out.join("qrels"), &qrels, &pool_without);
}

#[test]
fn bad_judge_input_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let task_dir = dir.path().join("task");
    let task = write_tiny_text_task(&task_dir);
    let out = dir.path().join("out").display().to_string();
    let task_arg = task.display().to_string();
    let failing_judge = |extra: &[&str]| {
        let mut args = vec!["judge", "--task", &task_arg, "--out", &out];
        args.extend_from_slice(extra);
        let output = run(&args);
        assert_eq!(output.status.code(), Some(2));
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let stderr = failing_judge(&["--leave-out", "nobody"]);
    assert!(
        stderr.contains("no team") && stderr.contains("team0"),
        "{stderr}"
    );

    std::fs::write(
        task_dir.join("topics.tsv"),
        "1\ttopicbax\n2\t \n3\ttopicdax\n",
    )
    .unwrap();
    let stderr = failing_judge(&["--features", "text"]);
    assert!(stderr.contains("topic 2 has no text"), "{stderr}");

    let mut corpus = std::fs::read_to_string(task_dir.join("corpus.tsv")).unwrap();
    corpus.push_str("a line without a tab\n");
    std::fs::write(task_dir.join("corpus.tsv"), corpus).unwrap();
    let stderr = failing_judge(&[]);
    assert!(
        stderr.contains("corpus.tsv:601: expected doc_id<TAB>text"),
        "{stderr}"
    );
}

/// A task without runs is plain HiCAL: no pool, CAL from the topic text over the corpus.
#[test]
fn a_task_without_runs_is_plain_hical_from_the_topic_text() {
    let dir = tempfile::tempdir().unwrap();
    let task_dir = dir.path().join("task");
    write_tiny_text_task(&task_dir);
    let manifest = task_dir.join("no-runs.toml");
    std::fs::write(
        &manifest,
        "name = \"tiny-no-runs\"\nqrels = \"qrels\"\ntopics = \"topics.tsv\"\n\
         corpus = \"corpus.tsv\"\n",
    )
    .unwrap();
    let out = dir.path().join("hical");
    judge(
        &manifest,
        &out,
        &[
            "--pool-depth",
            "0",
            "--candidates",
            "corpus",
            "--iterations",
            "2000",
        ],
    );
    let official = read_qrels_map(&task_dir.join("qrels"));
    let simulated = read_qrels_map(&out.join("qrels"));
    let trace = std::fs::read_to_string(out.join("trace.tsv")).unwrap();
    assert!(
        trace
            .lines()
            .skip(1)
            .all(|line| line.split('\t').nth(2) != Some("0")),
        "no pool batch without runs"
    );
    for (topic, judgments) in &simulated {
        assert_eq!(
            judgments.len(),
            official[topic].len(),
            "topic {topic}: N_t judgments"
        );
        let relevant = official[topic].values().filter(|&&g| g >= 1).count();
        let found = judgments.values().filter(|&&g| g >= 1).count();
        assert!(
            found * 10 >= relevant * 9,
            "topic {topic}: {found} of {relevant} relevant found"
        );
    }
    let output = run([
        "simulate",
        "--task",
        manifest.to_str().unwrap(),
        "--out",
        dir.path().join("study").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no run is pooled"));
}
