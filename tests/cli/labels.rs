//! `reusesim audit --labels` and `--label-sheet`: a label that decides a claim, the label sheet's
//! rows, the workflow's round trip on the embedded task, and bad label files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::claims::write_decided_task;
use crate::util::{read_qrels_map, run, stdout_of};

/// Every judged document of the known task labelled with its own grade as an LLM's scale says
/// it (relevant 3, not relevant 0).
fn write_labels(task_dir: &Path, out: &Path) {
    let mut text = String::new();
    for line in std::fs::read_to_string(task_dir.join("qrels"))
        .unwrap()
        .lines()
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let label = if fields[3] == "1" { 3 } else { 0 };
        text.push_str(&format!("{} 0 {} {label}\n", fields[0], fields[2]));
    }
    std::fs::write(out, text).unwrap();
}

fn number(value: &serde_json::Value) -> f64 {
    value.as_f64().expect("a number")
}

const TOPICS: usize = 12;

/// A task where the collection cannot tell a relevant document from another and a label can.
/// Twelve topics, pool depth 3, eight pooled runs `p1`..`p8`, one team each: each ranks its own
/// three documents first, one of them relevant (which one turns with the team and the topic, so
/// that neither rank nor run says which), then 30 documents every run shares, unjudged. `NEW`
/// ranks three new documents first, then three relevant and four non-relevant judged ones
/// (P@10 0.3 on the collection; 0.6 if its new documents are relevant); `BASE`, a baseline of
/// judged documents only, has P@10 0.4 on even topics and 0.5 on odd ones. So the collection
/// finds BASE better on every topic, and the new documents, in NEW's top 3 and so in the pool's
/// reach, decide whether it is. The labels grade every judged document by its grade (3 or 0).
fn write_label_task(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let runs = dir.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let own = |team: usize, topic: usize, k: usize| format!("t{topic}-o{team}-{k}");
    let relevant_k = |team: usize, topic: usize| (team + topic) % 3 + 1;
    let (mut qrels, mut labels, mut teams) = (String::new(), String::new(), String::new());
    let mut run_lines: BTreeMap<String, String> = BTreeMap::new();
    let mut add = |tag: &str, topic: usize, docs: &[String]| {
        let text = run_lines.entry(tag.to_string()).or_default();
        for (pos, doc) in docs.iter().enumerate() {
            text.push_str(&format!(
                "{topic} Q0 {doc} {} {} {tag}\n",
                pos + 1,
                1000 - pos
            ));
        }
    };
    for topic in 1..=TOPICS {
        let shared: Vec<String> = (1..=30).map(|j| format!("t{topic}-s{j}")).collect();
        let (mut relevant, mut not_relevant) = (Vec::new(), Vec::new());
        for team in 1..=8 {
            let mut ranked: Vec<String> = (1..=3).map(|k| own(team, topic, k)).collect();
            for k in 1..=3 {
                let is_relevant = k == relevant_k(team, topic);
                qrels.push_str(&format!(
                    "{topic} 0 {} {}\n",
                    own(team, topic, k),
                    u8::from(is_relevant)
                ));
                labels.push_str(&format!(
                    "{topic} 0 {} {}\n",
                    own(team, topic, k),
                    if is_relevant { 3 } else { 0 }
                ));
                if is_relevant {
                    relevant.push(own(team, topic, k))
                } else {
                    not_relevant.push(own(team, topic, k))
                }
            }
            ranked.extend(shared.iter().cloned());
            add(&format!("p{team}"), topic, &ranked);
        }
        let mut new: Vec<String> = (1..=3).map(|k| format!("t{topic}-n{k}")).collect();
        new.extend(relevant[..3].iter().cloned());
        new.extend(not_relevant[..4].iter().cloned());
        add("NEW", topic, &new);
        let base_relevant = 4 + topic % 2;
        let mut base: Vec<String> = relevant[3..3 + base_relevant].to_vec();
        base.extend(not_relevant[4..4 + 10 - base_relevant].iter().cloned());
        add("BASE", topic, &base);
    }
    for (tag, text) in &run_lines {
        let path = if tag == "NEW" || tag == "BASE" {
            dir.join(format!("{tag}.run"))
        } else {
            runs.join(tag)
        };
        std::fs::write(&path, text).unwrap();
        if tag.starts_with('p') {
            teams.push_str(&format!("{tag}\tteam-{tag}\tyes\n"));
        }
    }
    std::fs::write(dir.join("qrels"), qrels).unwrap();
    std::fs::write(dir.join("judged-labels.qrels"), labels).unwrap();
    std::fs::write(dir.join("teams.tsv"), teams).unwrap();
    let task = dir.join("task.toml");
    std::fs::write(
        &task,
        "name = \"labelled\"\nruns = \"runs\"\nteams = \"teams.tsv\"\nqrels = \"qrels\"\n\
         pool_depth = 3\n",
    )
    .unwrap();
    (task, dir.join("NEW.run"), dir.join("BASE.run"))
}

/// The judged documents' labels of [`write_label_task`], and NEW's new documents labelled
/// `new`.
fn write_new_labels(dir: &Path, new: i32, out: &Path) {
    let mut text = std::fs::read_to_string(dir.join("judged-labels.qrels")).unwrap();
    for topic in 1..=TOPICS {
        for k in 1..=3 {
            text.push_str(&format!("{topic} 0 t{topic}-n{k} {new}\n"));
        }
    }
    std::fs::write(out, text).unwrap();
}

/// In [`write_label_task`], the claim that BASE beats NEW rests on NEW's three new documents.
/// Without labels the audit gives each the collection's base rate (a third) and the claim is
/// at risk; labelled 0 they are not relevant and the claim is safe with nothing to judge;
/// labelled 3 they are relevant, the claim is reversed, and they head the list: the labels
/// are an LLM's, and a person's judgment of the documents that decide the claim settles it.
/// The calibration, which sees the labels grade the judged documents exactly, learns that a
/// label decides.
#[test]
fn a_label_decides_a_claim_that_the_runs_unjudged_documents_hold() {
    let dir = tempfile::tempdir().unwrap();
    let (task, new, base) = write_label_task(dir.path());
    let claim_with = |labels: Option<i32>| {
        let mut extra = vec!["--against", base.to_str().unwrap()];
        let path = dir.path().join(format!("labels-{labels:?}.qrels"));
        if let Some(grade) = labels {
            write_new_labels(dir.path(), grade, &path);
            extra.extend(["--labels", path.to_str().unwrap()]);
        }
        let report = labelled_json(&task, &new, &extra);
        let claim = report["runs"][0]["claims"][0].clone();
        eprintln!("labels {labels:?}: {} {claim}", report["verdict"]);
        (report, claim)
    };
    let (_, without) = claim_with(None);
    let (unlikely, not_relevant) = claim_with(Some(0));
    let (likely, relevant) = claim_with(Some(3));
    assert!(
        (number(&without["difference"]) + 0.15).abs() < 1e-9,
        "{without}"
    );
    assert_eq!(without["verdict"], "at risk", "{without}");
    assert_eq!(not_relevant["verdict"], "safe", "{not_relevant}");
    assert_eq!(number(&not_relevant["listed_documents"]), 0.0);
    assert!(
        number(&relevant["probability_reversed"]) > 0.9,
        "{relevant}"
    );
    for entry in unlikely["to_judge"].as_array().unwrap() {
        assert!(!entry["docid"].as_str().unwrap().contains("-n"), "{entry}");
    }
    let listed = likely["to_judge"].as_array().unwrap();
    assert_eq!(number(&relevant["listed_documents"]), listed.len() as f64);
    for entry in &listed[..TOPICS] {
        assert!(entry["docid"].as_str().unwrap().contains("-n"), "{entry}");
        assert_eq!(entry["label"], 3, "{entry}");
    }
    // The labels' agreement with the collection: exact on every judged pair.
    let agreement = &unlikely["labels"]["agreement"];
    assert_eq!(number(&agreement["binary_kappa"]), 1.0, "{agreement}");
    assert_eq!(number(&agreement["pairs"]), (TOPICS * 24) as f64);
    let stage = &unlikely["runs"][0]["settings"]["calibration"]["labels"];
    let by_grade = stage["by_grade"].as_array().unwrap();
    assert_eq!(by_grade.len(), 2, "{stage}");
    assert!(number(&by_grade[0]["probability"]) < 0.05, "{stage}");
    assert!(number(&by_grade[1]["probability"]) > 0.95, "{stage}");
}

fn labelled_json(task: &Path, run: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "audit",
        "--format",
        "json",
        "--study-seeds",
        "0",
        "--measures",
        "P_10",
        "--task",
        task.to_str().unwrap(),
        "--run",
        run.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    serde_json::from_str(&stdout_of(&args)).expect("json report")
}

/// The documents of `run`'s top `depth` per topic, from its file, in rank order.
fn top_documents(run: &Path, depth: usize) -> BTreeMap<String, Vec<String>> {
    let mut tops: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in std::fs::read_to_string(run).unwrap().lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let top = tops.entry(fields[0].to_string()).or_default();
        if top.len() < depth {
            top.push(fields[2].to_string());
        }
    }
    tops
}

/// The label sheet's documents by reason: (topic, docid) pairs.
fn sheet_requests(sheet: &Path) -> BTreeMap<String, BTreeSet<(String, String)>> {
    let mut requests: BTreeMap<String, BTreeSet<(String, String)>> = BTreeMap::new();
    for line in std::fs::read_to_string(sheet).unwrap().lines() {
        let request: serde_json::Value = serde_json::from_str(line).unwrap();
        let topic = request["query"]["qid"].as_str().unwrap().to_string();
        for candidate in request["candidates"].as_array().unwrap() {
            let reason = candidate["reason"].as_str().unwrap().to_string();
            let docid = candidate["docid"].as_str().unwrap().to_string();
            assert!(candidate["doc"]["segment"].is_string(), "{candidate}");
            requests
                .entry(reason)
                .or_default()
                .insert((topic.clone(), docid));
        }
    }
    requests
}

/// On the known task, NEW's label sheet asks for its unjudged documents of the top 100 and, as
/// no label grades them yet, for every judged document that only one pooled team put in the
/// pool (its own three of each kind a topic: 288, fewer than the 500 it asks for); with the
/// judged documents labelled, only for the unjudged ones.
#[test]
fn the_label_sheet_asks_for_the_runs_unjudged_documents_and_calibration_documents() {
    let dir = tempfile::tempdir().unwrap();
    let (task, new, _) = write_decided_task(dir.path());
    let qrels = read_qrels_map(&dir.path().join("qrels"));
    let sheet = dir.path().join("labels.jsonl");
    labelled_json(&task, &new, &["--label-sheet", sheet.to_str().unwrap()]);
    let requests = sheet_requests(&sheet);
    let unjudged: BTreeSet<(String, String)> = (top_documents(&new, 100).into_iter())
        .flat_map(|(topic, docs)| docs.into_iter().map(move |doc| (topic.clone(), doc)))
        .filter(|(topic, doc)| !qrels[topic].contains_key(doc))
        .collect();
    assert_eq!(requests["unjudged"], unjudged);
    let judged: BTreeSet<(String, String)> = (qrels.iter())
        .flat_map(|(topic, docs)| docs.keys().map(move |doc| (topic.clone(), doc.clone())))
        .collect();
    assert_eq!(requests["calibration"], judged);
    assert_eq!(judged.len(), 288);

    let labels = dir.path().join("judged-labels.qrels");
    write_labels(dir.path(), &labels);
    let again = dir.path().join("again.jsonl");
    let labelled = ["--labels", labels.to_str().unwrap()];
    labelled_json(
        &task,
        &new,
        &[&labelled[..], &["--label-sheet", again.to_str().unwrap()]].concat(),
    );
    let requests = sheet_requests(&again);
    assert_eq!(requests["unjudged"], unjudged);
    assert!(!requests.contains_key("calibration"), "{requests:?}");
}

fn embedded(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// The embedded task's truth, and the three runs the walk-through of docs/audit.md audits.
fn embedded_audit(extra: &[&str]) -> serde_json::Value {
    // Thresholds that list documents for these runs, whose documents beyond the pool's reach
    // are what is at stake (as in the walk-through of docs/audit.md).
    let mut args: Vec<String> = [
        "audit",
        "--format",
        "json",
        "--study-seeds",
        "0",
        "--beyond-pool",
        "extrapolate",
        "--risk-threshold",
        "0.05",
        "--settle-threshold",
        "0.01",
    ]
    .map(String::from)
    .to_vec();
    for tag in ["team01_run1", "team01_run2", "team07_run4"] {
        let run = embedded(&format!("runs/synth-passage/runs/{tag}"));
        args.extend(["--run".to_string(), run.display().to_string()]);
    }
    args.extend(extra.iter().map(|a| a.to_string()));
    serde_json::from_str(&stdout_of(&args)).expect("json report")
}

/// The workflow of docs/labels.md on the embedded task: the audit writes the label sheet, a
/// labeller that knows the truth grades every document on it, the audit with those labels marks
/// each document of the list for people with its label, and the sheet filled from the truth
/// comes back with `--judged`.
#[test]
fn the_label_workflow_goes_round_from_the_label_sheet_to_the_returned_judgments() {
    let dir = tempfile::tempdir().unwrap();
    let truth = read_qrels_map(&embedded("qrels/synth-passage.truth.qrels"));
    let label_sheet = dir.path().join("label-sheet.jsonl");
    let first = embedded_audit(&["--label-sheet", label_sheet.to_str().unwrap()]);
    let requests = sheet_requests(&label_sheet);
    assert!(requests["unjudged"].len() > 100, "{requests:?}");
    assert!(!requests["calibration"].is_empty());
    // The labeller: the truth's grade of every requested document (0 where it has none).
    let labels = dir.path().join("labels.qrels");
    let text: String = (requests.values().flatten())
        .map(|(topic, doc)| {
            let grade = truth.get(topic).and_then(|docs| docs.get(doc)).copied();
            format!("{topic} 0 {doc} {}\n", grade.unwrap_or(0))
        })
        .collect();
    std::fs::write(&labels, text).unwrap();
    let sheet = dir.path().join("sheet.tsv");
    let labelled = embedded_audit(&[
        "--labels",
        labels.to_str().unwrap(),
        "--sheet",
        sheet.to_str().unwrap(),
    ]);
    let summary = &labelled["labels"];
    assert_eq!(
        summary["unjudged"], summary["unjudged_labelled"],
        "{summary}"
    );
    assert_eq!(number(&summary["agreement"]["kappa"]), 1.0, "{summary}");
    assert!(!first["to_judge"].as_array().unwrap().is_empty());
    let after = labelled["to_judge"].as_array().unwrap().len();
    assert!(after > 0, "{}", labelled["verdict"]);
    // The sheet marks each document's label, the truth's grade.
    let text = std::fs::read_to_string(&sheet).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    assert_eq!(
        header,
        [
            "topic",
            "topic_text",
            "docid",
            "document_text",
            "runs",
            "probability",
            "label",
            "grade"
        ]
    );
    let mut filled = format!("{}\n", header.join("\t"));
    for line in lines {
        let mut fields: Vec<String> = line.split('\t').map(String::from).collect();
        let grade = truth
            .get(&fields[0])
            .and_then(|docs| docs.get(&fields[2]))
            .copied()
            .unwrap_or(0);
        assert_eq!(fields[6], grade.to_string(), "{line}");
        fields[7] = grade.to_string();
        filled.push_str(&fields.join("\t"));
        filled.push('\n');
    }
    let filled_path = dir.path().join("filled.tsv");
    std::fs::write(&filled_path, filled).unwrap();
    let returned = embedded_audit(&[
        "--labels",
        labels.to_str().unwrap(),
        "--judged",
        filled_path.to_str().unwrap(),
    ]);
    assert_eq!(number(&returned["judged"]["judgments_added"]), after as f64);
}

#[test]
fn bad_label_files_are_refused_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let (task, new, _) = write_decided_task(dir.path());
    let cases = [
        (
            "1 0 t1-a1-1 3\n99 0 t1-a1-2 1\n",
            "labels.qrels:2",
            "not a topic of the task",
        ),
        (
            "1 0 t1-a1-1 3\n1 0 t1-a1-2 high\n",
            "labels.qrels:2",
            "an integer grade",
        ),
        (
            "1 0 t1-a1-1 3\n1 t1-a1-2 1\n",
            "labels.qrels:2",
            "4 columns",
        ),
        ("1 0 t1-a1-1 3\n1 0 t1-a1-1 0\n", "labels.qrels:2", "twice"),
        // Labels of no document the calibration learns from.
        ("1 0 t1-n1 3\n", "", "cannot be calibrated"),
    ];
    for (text, place, expected) in cases {
        let labels = dir.path().join("labels.qrels");
        std::fs::write(&labels, text).unwrap();
        let sheet = dir.path().join("sheet.tsv");
        let output = run([
            "audit",
            "--study-seeds",
            "0",
            "--task",
            task.to_str().unwrap(),
            "--run",
            new.to_str().unwrap(),
            "--labels",
            labels.to_str().unwrap(),
            "--sheet",
            sheet.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{text:?}: {stderr}");
        assert!(
            stderr.contains(place) && stderr.contains(expected),
            "{text:?}: {stderr}"
        );
        assert!(!sheet.exists());
    }
}

/// Calibration rows of two topics whose true grades follow the UMBRELA table's NIST grade mix,
/// labelled by `labeller` from that truth, with calibrated log-odds that know relevance only
/// roughly (relevant rows centred 2 logits higher): the rows and the truth's grade shares.
fn labelled_calibration_rows(
    labeller: &reusesim::synth::labels::Labeller,
    count: usize,
) -> (Vec<reusesim::relevance_model::labels::LabelRow>, [f64; 4]) {
    use rand::{Rng, SeedableRng};
    use reusesim::io::qrels::{Qrels, TopicQrels};
    use reusesim::synth::labels::UMBRELA_GPT4_COUNTS;
    let totals: Vec<f64> = (UMBRELA_GPT4_COUNTS.iter())
        .map(|row| row.iter().map(|&n| f64::from(n)).sum())
        .collect();
    let all: f64 = totals.iter().sum();
    let prior: [f64; 4] = std::array::from_fn(|grade| totals[grade] / all);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(65);
    let mut truth = Qrels::default();
    let mut documents = Vec::new();
    for index in 0..count {
        let (topic, docid) = (format!("t{}", index % 2), format!("d{index}"));
        let mut uniform: f64 = rng.random();
        let grade = (prior.iter()).position(|&share| {
            uniform -= share;
            uniform < 0.0
        });
        (truth.topics.entry(topic.as_str().into()))
            .or_insert_with(TopicQrels::default)
            .insert(&docid, grade.unwrap_or(3) as i32);
        documents.push((topic, docid));
    }
    let labels = labeller
        .draw(
            5,
            &truth,
            documents.iter().map(|(t, d)| (t.as_str(), d.as_str())),
        )
        .unwrap();
    let rows = (documents.iter().enumerate())
        .map(|(index, (topic, docid))| {
            let is_relevant = truth.topics[topic.as_str()].grade(docid).unwrap() >= 2;
            let centre = if is_relevant { 0.0 } else { -2.0 };
            reusesim::relevance_model::labels::LabelRow {
                topic: index % 2,
                document: index as u32,
                base_log_odds: centre + rng.random_range(-1.5..1.5),
                label: labels.topics[topic.as_str()].grade(docid).unwrap(),
                is_in_pool: true,
                is_relevant,
            }
        })
        .collect();
    (rows, prior)
}

#[test]
fn the_calibration_recovers_the_synthetic_labellers_stated_table_within_its_sampling_error() {
    use reusesim::relevance_model::labels::LabelCalibration;
    use reusesim::relevance_model::reach::BeyondPool;
    use reusesim::synth::labels::Labeller;
    // The UMBRELA table as stated, and the same labeller one logit more lenient: the share of
    // relevant documents among those labelled k follows from the table and the grade mix by
    // Bayes' rule, and the calibration must learn it whatever the leniency.
    for leniency in [0.0, 1.0] {
        let labeller = Labeller {
            leniency,
            ..Labeller::default()
        };
        let (rows, prior) = labelled_calibration_rows(&labeller, 40_000);
        let stage = LabelCalibration::fit(&rows, 2, BeyondPool::NonRelevant).unwrap();
        assert_eq!(stage.grades, vec![0, 1, 2, 3]);
        for summary in &stage.by_grade {
            let joint: Vec<f64> = (0..4)
                .map(|truth| {
                    prior[truth]
                        * labeller.label_shares(truth as i32, leniency)[summary.grade as usize]
                })
                .collect();
            let stated = (joint[2] + joint[3]) / joint.iter().sum::<f64>();
            // Three standard errors of the rows' relevant share, and 0.01 for the fit's
            // penalty and the topics' corrections.
            let tolerance = 3.0 * (stated * (1.0 - stated) / summary.rows as f64).sqrt() + 0.01;
            assert!(
                (summary.probability - stated).abs() < tolerance,
                "leniency {leniency}, label {}: learnt {:.4}, stated {stated:.4} (± {tolerance:.4}; \
                 {} rows)",
                summary.grade,
                summary.probability,
                summary.rows
            );
        }
    }
}
