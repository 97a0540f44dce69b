//! `reusesim synth`: the committed default task is reproducible byte for byte, its official
//! qrels look like TREC DL's, and the judge finds relevant documents as CAL should.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::util::{read_qrels_map, run, stdout_of};

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files_under(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}

#[test]
fn the_committed_default_task_is_what_synth_makes() {
    let dir = tempfile::tempdir().unwrap();
    stdout_of([
        "synth",
        "--preset",
        "default",
        "--seed",
        "2019",
        "--embedded",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    let committed = repository();
    let made = files_under(dir.path());
    assert!(
        made.len() > 20,
        "a task has a corpus, topics, teams, qrels and runs"
    );
    for path in made {
        let relative = path.strip_prefix(dir.path()).unwrap();
        let original = std::fs::read(committed.join(relative))
            .unwrap_or_else(|_| panic!("{} is not committed", relative.display()));
        assert!(
            original == std::fs::read(&path).unwrap(),
            "{} differs",
            relative.display()
        );
    }
    let committed_runs = files_under(&committed.join("runs/synth-passage/runs")).len();
    assert_eq!(
        committed_runs,
        files_under(&dir.path().join("runs/synth-passage/runs")).len()
    );
}

#[test]
fn the_default_official_qrels_hold_the_pool_within_the_budgets() {
    let root = repository();
    let official = read_qrels_map(&root.join("qrels/synth-passage.qrels"));
    let truth = read_qrels_map(&root.join("qrels/synth-passage.truth.qrels"));
    let mut pool: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in files_under(&root.join("runs/synth-passage/runs")) {
        for line in std::fs::read_to_string(path).unwrap().lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields[3].parse::<usize>().unwrap() <= 10 {
                pool.entry(fields[0].into())
                    .or_default()
                    .insert(fields[2].into());
            }
        }
    }
    assert_eq!(official.len(), 14);
    for (topic, judgments) in &official {
        assert!(
            (80..=300).contains(&judgments.len()),
            "topic {topic}: {}",
            judgments.len()
        );
        for doc in &pool[topic] {
            assert!(
                judgments.contains_key(doc),
                "topic {topic}: pool document {doc} unjudged"
            );
        }
        let relevant_judged = judgments.values().filter(|&&g| g >= 1).count();
        let relevant = truth[topic].values().filter(|&&g| g >= 1).count();
        // CAL spends most of the budget on relevant documents while they last.
        let reachable = relevant.min(judgments.len());
        assert!(
            relevant_judged * 10 >= reachable * 7,
            "topic {topic}: {relevant_judged} relevant judged, {relevant} relevant, budget {}",
            judgments.len()
        );
    }
}

/// HiCAL on the default corpus, the truth as assessor, 300 judgments per topic: the relevant
/// documents found rise steeply, then flatten.
#[test]
fn cal_finds_relevant_documents_fast_then_flattens() {
    let dir = tempfile::tempdir().unwrap();
    let task_dir = repository().join("runs/synth-passage");
    let manifest = dir.path().join("task.toml");
    let text = std::fs::read_to_string(task_dir.join("task.toml"))
        .unwrap()
        .replace(
            "../../qrels/synth-passage.qrels",
            "../../qrels/synth-passage.truth.qrels",
        );
    let absolute = text
        .lines()
        .map(|line| match line.split_once(" = \"") {
            Some((key, value)) if key != "name" => {
                format!(
                    "{key} = \"{}\"",
                    task_dir.join(value.trim_end_matches('"')).display()
                )
            }
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&manifest, absolute).unwrap();
    let out = dir.path().join("judged");
    stdout_of([
        "judge",
        "--task",
        manifest.to_str().unwrap(),
        "--candidates",
        "corpus",
        "--budget",
        "300",
        "--iterations",
        "50000",
        "--out",
        out.to_str().unwrap(),
    ]);
    let truth = read_qrels_map(&repository().join("qrels/synth-passage.truth.qrels"));
    let relevant_total: usize = truth
        .values()
        .map(|t| t.values().filter(|&&g| g >= 1).count())
        .sum();
    let mut found_by_step = vec![0usize; 301];
    for line in std::fs::read_to_string(out.join("trace.tsv"))
        .unwrap()
        .lines()
        .skip(1)
    {
        let fields: Vec<&str> = line.split('\t').collect();
        let step: usize = fields[1].parse().unwrap();
        if fields[5].parse::<i32>().unwrap() >= 1 && step <= 300 {
            found_by_step[step] += 1;
        }
    }
    let recall_at =
        |steps: usize| found_by_step[..=steps].iter().sum::<usize>() as f64 / relevant_total as f64;
    let curve: Vec<(usize, f64)> = [50, 100, 150, 200, 250, 300]
        .map(|s| (s, recall_at(s)))
        .to_vec();
    eprintln!("recall of truth-relevant documents after n judgments per topic: {curve:?}");
    assert!(recall_at(300) >= 0.9, "{curve:?}");
    let first_half_gain = recall_at(150);
    let second_half_gain = recall_at(300) - recall_at(150);
    assert!(
        first_half_gain > 3.0 * second_half_gain,
        "the curve flattens: {curve:?}"
    );
}

/// The lines of a gzip corpus file.
fn corpus_lines(path: &Path) -> Vec<String> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).unwrap();
    std::io::BufReader::new(flate2::read::MultiGzDecoder::new(file))
        .lines()
        .map(Result::unwrap)
        .collect()
}

/// `synth --corpus-only` of the default preset and the embedded seed into `out`.
fn synth_corpus(documents: Option<&str>, out: &Path) {
    let mut args = vec!["synth", "--seed", "2019", "--corpus-only"];
    if let Some(count) = documents {
        args.extend(["--documents", count]);
    }
    args.extend(["--out", out.to_str().unwrap()]);
    stdout_of(args);
}

#[test]
fn corpus_only_extends_the_default_corpus_with_background_documents() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    synth_corpus(Some("20500"), &first);
    synth_corpus(Some("20500"), &second);
    let written: Vec<PathBuf> = files_under(&first);
    assert_eq!(written, [first.join("corpus.tsv.gz")], "the corpus alone");
    let bytes = std::fs::read(&written[0]).unwrap();
    assert!(bytes == std::fs::read(second.join("corpus.tsv.gz")).unwrap());

    let lines = corpus_lines(&written[0]);
    let task_lines = corpus_lines(&repository().join("runs/synth-passage/corpus.tsv.gz"));
    assert_eq!(task_lines.len(), 20_000);
    assert_eq!(lines.len(), 20_500);
    assert!(
        lines[..20_000] == task_lines[..],
        "the task's documents first"
    );
    let mut ids = BTreeSet::new();
    for (pos, line) in lines.iter().enumerate() {
        let (id, text) = line.split_once('\t').unwrap();
        assert!(!text.trim().is_empty(), "{id} is empty");
        assert!(ids.insert(id), "{id} twice");
        assert_eq!(id, format!("p{pos:07}"), "ids continue the task's");
    }
}

#[test]
fn corpus_only_without_documents_writes_the_tasks_corpus() {
    let dir = tempfile::tempdir().unwrap();
    synth_corpus(None, dir.path());
    let committed = std::fs::read(repository().join("runs/synth-passage/corpus.tsv.gz")).unwrap();
    assert!(std::fs::read(dir.path().join("corpus.tsv.gz")).unwrap() == committed);
}

/// The stderr of a `synth` that must fail (exit 2), with nothing written.
fn synth_failure(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let output = run(["synth"]
        .iter()
        .chain(args)
        .chain(&["--out", out.to_str().unwrap()]));
    assert_eq!(output.status.code(), Some(2), "{args:?}");
    assert!(!out.exists(), "{args:?} wrote {}", out.display());
    String::from_utf8(output.stderr).unwrap()
}

#[test]
fn corpus_only_refuses_what_it_cannot_write() {
    let without_mode = synth_failure(&["--documents", "20500"]);
    assert!(without_mode.contains("--corpus-only"), "{without_mode}");
    let too_few = synth_failure(&["--corpus-only", "--documents", "19999"]);
    assert!(
        too_few.contains("expected at least the default preset's 20000 documents")
            && too_few.contains("found 19999"),
        "{too_few}"
    );
    let too_many = synth_failure(&["--corpus-only", "--documents", "10000001"]);
    assert!(too_many.contains("at most 10000000"), "{too_many}");
    for other in ["--embedded", "--iterations=100"] {
        let conflict = synth_failure(&["--corpus-only", other]);
        assert!(conflict.contains("cannot be used with"), "{conflict}");
    }
}

/// The documents of every run's top `depth` in the runs of `task_dir`, per topic.
fn run_tops(task_dir: &Path, depth: usize) -> BTreeMap<String, BTreeSet<String>> {
    let mut tops: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in files_under(&task_dir.join("runs")) {
        for line in std::fs::read_to_string(path).unwrap().lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields[3].parse::<usize>().unwrap() <= depth {
                tops.entry(fields[0].into())
                    .or_default()
                    .insert(fields[2].into());
            }
        }
    }
    tops
}

/// counts[true grade][label grade] of `labels` against `truth` (a document the truth lacks has
/// grade 0).
fn label_counts(
    truth: &BTreeMap<String, BTreeMap<String, i32>>,
    labels: &BTreeMap<String, BTreeMap<String, i32>>,
) -> [[f64; 4]; 4] {
    let mut counts = [[0.0; 4]; 4];
    for (topic, grades) in labels {
        for (doc, &label) in grades {
            let true_grade = truth[topic].get(doc).copied().unwrap_or(0);
            counts[true_grade as usize][label as usize] += 1.0;
        }
    }
    counts
}

/// UMBRELA's GPT-4 grades against NIST's on TREC DL 2019-2021, the default table
/// (docs/synth.md#the-labeller).
const UMBRELA_COUNTS: [[f64; 4]; 4] = [
    [11293.0, 4108.0, 1522.0, 353.0],
    [965.0, 2781.0, 2056.0, 802.0],
    [200.0, 1265.0, 2356.0, 1344.0],
    [194.0, 250.0, 790.0, 1195.0],
];

#[test]
fn the_default_tasks_labels_grade_every_runs_top_100_through_the_umbrela_table() {
    let root = repository();
    let task_dir = root.join("runs/synth-passage");
    let manifest = std::fs::read_to_string(task_dir.join("task.toml")).unwrap();
    assert!(manifest
        .lines()
        .any(|line| line == "labels = \"labels.qrels\""));
    let labels = read_qrels_map(&task_dir.join("labels.qrels"));
    let truth = read_qrels_map(&root.join("qrels/synth-passage.truth.qrels"));
    let labelled: BTreeMap<String, BTreeSet<String>> = (labels.iter())
        .map(|(topic, grades)| (topic.clone(), grades.keys().cloned().collect()))
        .collect();
    assert_eq!(
        labelled,
        run_tops(&task_dir, 100),
        "the runs' tops, each once"
    );
    // Each true grade's labels follow its row of the table: every cell within 5 binomial
    // standard deviations.
    for (grade, row) in label_counts(&truth, &labels).iter().enumerate() {
        let drawn: f64 = row.iter().sum();
        let total: f64 = UMBRELA_COUNTS[grade].iter().sum();
        for (label, &count) in row.iter().enumerate() {
            let share = UMBRELA_COUNTS[grade][label] / total;
            let sd = (drawn * share * (1.0 - share)).sqrt();
            assert!(
                (count - drawn * share).abs() <= 5.0 * sd,
                "true {grade}, label {label}: {count} of {drawn}, share {share:.3}"
            );
        }
    }
}

#[test]
fn the_label_options_reach_the_labeller() {
    // A table that labels every true grade 1 or 2 half and half, shifted by a leniency of 2:
    // P(label 2) = 1 - 0.5 / (0.5 + 0.5 e^2) = 0.881 for every document.
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("half.tsv");
    std::fs::write(&table, "0 1 1 0\n0 1 1 0\n0 1 1 0\n0 1 1 0\n").unwrap();
    let out = dir.path().join("task");
    stdout_of([
        "synth",
        "--label-confusion",
        table.to_str().unwrap(),
        "--label-leniency",
        "2",
        "--label-depth",
        "5",
        "--out",
        out.to_str().unwrap(),
    ]);
    let labels = read_qrels_map(&out.join("labels.qrels"));
    let labelled: BTreeMap<String, BTreeSet<String>> = (labels.iter())
        .map(|(topic, grades)| (topic.clone(), grades.keys().cloned().collect()))
        .collect();
    assert_eq!(labelled, run_tops(&out, 5));
    let grades: Vec<i32> = labels.values().flat_map(|g| g.values().copied()).collect();
    assert!(grades.iter().all(|&g| g == 1 || g == 2));
    let share = grades.iter().filter(|&&g| g == 2).count() as f64 / grades.len() as f64;
    let sd = (0.881 * 0.119 / grades.len() as f64).sqrt();
    assert!(
        (share - 0.881).abs() < 5.0 * sd,
        "{share} of {}",
        grades.len()
    );
}

#[test]
fn bad_label_settings_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("confusion.tsv");
    std::fs::write(&table, "# counts\n1 0 0 0\n0 0 0 0\n1 1 1 1\n1 1 1 1\n").unwrap();
    let empty_row = synth_failure(&["--label-confusion", table.to_str().unwrap()]);
    assert!(
        empty_row.contains("confusion.tsv:3:") && empty_row.contains("true grade 1 to sum"),
        "{empty_row}"
    );
    std::fs::write(&table, "1 0 0 0\n0 1 0\n").unwrap();
    let short_row = synth_failure(&["--label-confusion", table.to_str().unwrap()]);
    assert!(
        short_row.contains("confusion.tsv:2: expected 4 columns"),
        "{short_row}"
    );
    let sd = synth_failure(&["--label-topic-sd", "-1"]);
    assert!(sd.contains("topic sd"), "{sd}");
    let depth = synth_failure(&["--label-depth", "0"]);
    assert!(depth.contains("label depth >= 1"), "{depth}");
    let conflict = synth_failure(&["--corpus-only", "--label-leniency", "1"]);
    assert!(conflict.contains("cannot be used with"), "{conflict}");
}
