//! The feature store from the command line: `reusesim index` builds it once; a study, a judging
//! and corpus candidates give the same files with the store as with the corpus; a store of
//! another corpus, or a bad corpus, is an error naming both.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::util::{run, run_ok, write_tiny_text_task};

fn embedded(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// `reusesim index` of `corpus` into `store`, as arguments.
fn index_args<'a>(corpus: &'a Path, store: &'a Path) -> Vec<&'a str> {
    let (corpus, store) = (corpus.to_str().unwrap(), store.to_str().unwrap());
    vec!["index", "--corpus", corpus, "--out", store]
}

/// `reusesim judge` of the task at `manifest` with the feature store `store` into `out`, as
/// arguments.
fn judge_args<'a>(manifest: &'a Path, store: &'a Path, out: &'a Path) -> Vec<&'a str> {
    let (manifest, store) = (manifest.to_str().unwrap(), store.to_str().unwrap());
    let out = out.to_str().unwrap();
    vec![
        "judge",
        "--task",
        manifest,
        "--feature-store",
        store,
        "--out",
        out,
    ]
}

fn index(corpus: &Path, store: &Path) -> String {
    String::from_utf8(run_ok(index_args(corpus, store)).stderr).unwrap()
}

/// Output files: relative path and bytes.
type Outputs = Vec<(String, Vec<u8>)>;

/// Every file under `dir` (relative path, bytes), the lock file aside (it records a pid) and
/// the lines that give the time taken left out.
fn outputs(dir: &Path) -> Outputs {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let name = path.strip_prefix(dir).unwrap().display().to_string();
            if name.ends_with(".lock") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let bytes = match String::from_utf8(bytes) {
                Ok(text) => text
                    .lines()
                    .filter(|line| !line.contains("elapsed"))
                    .collect::<Vec<_>>()
                    .join("\n")
                    .into_bytes(),
                Err(binary) => binary.into_bytes(),
            };
            files.push((name, bytes));
        }
    }
    files.sort();
    files
}

/// The outputs of the command `args` run once into `dir/corpus` as it is, and once into
/// `dir/store` with `--feature-store store`.
fn with_and_without_store(args: &[&str], dir: &Path, store: &Path) -> (Outputs, Outputs) {
    let run_into = |out: &Path, extra: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--out", out.to_str().unwrap()]);
        all.extend_from_slice(extra);
        run_ok(all);
        outputs(out)
    };
    let store = ["--feature-store", store.to_str().unwrap()];
    (
        run_into(&dir.join("corpus"), &[]),
        run_into(&dir.join("store"), &store),
    )
}

/// The text of the output file `name`.
fn text_of(files: &Outputs, name: &str) -> String {
    let (_, bytes) = files.iter().find(|(file, _)| file == name).unwrap();
    String::from_utf8(bytes.clone()).unwrap()
}

/// The study of the embedded default task writes the same files with its feature store as
/// with its corpus: tables, report, figures, kept qrels and traces, the journal.
#[test]
fn a_study_with_the_store_writes_the_same_files_as_with_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("passage.store");
    let said = index(&embedded("runs/synth-passage/corpus.tsv.gz"), &store);
    assert!(said.contains("indexed 20000 documents"), "{said}");
    let task = embedded("runs/synth-passage/task.toml");
    // The journal records units in the order they finish: one thread keeps it in order.
    let args = [
        "simulate",
        "--task",
        task.to_str().unwrap(),
        "--seeds",
        "1",
        "--iterations",
        "2000",
        "--keep-qrels",
        "--threads",
        "1",
    ];
    let (with_corpus, with_store) = with_and_without_store(&args, dir.path(), &store);
    let names: Vec<&str> = with_corpus.iter().map(|(name, _)| name.as_str()).collect();
    assert!(
        names.contains(&"summary.json") && names.contains(&"units.journal"),
        "{names:?}"
    );
    assert!(
        names.iter().any(|name| name.starts_with("qrels/")),
        "{names:?}"
    );
    let summary = text_of(&with_corpus, "summary.json");
    assert!(
        summary.contains("\"features\": \"text\""),
        "the study uses text features"
    );
    for ((name, corpus_bytes), (store_name, store_bytes)) in with_corpus.iter().zip(&with_store) {
        assert_eq!(name, store_name);
        assert!(corpus_bytes == store_bytes, "{name} differs");
    }
    assert_eq!(with_corpus.len(), with_store.len());
}

/// The run files' documents: every document some run retrieved.
fn retrieved_documents(runs: &Path) -> BTreeSet<String> {
    let mut documents = BTreeSet::new();
    for entry in std::fs::read_dir(runs).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        documents.extend(
            text.lines()
                .filter_map(|line| line.split_whitespace().nth(2).map(String::from)),
        );
    }
    documents
}

/// With corpus candidates, CAL judges documents no run retrieved; from the store (where such
/// documents are read in place, never held) it judges the same ones, with the same scores.
#[test]
fn corpus_candidates_from_the_store_judge_as_from_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let task_dir = dir.path().join("task");
    let manifest = write_tiny_text_task(&task_dir);
    let store = dir.path().join("tiny.store");
    index(&task_dir.join("corpus.tsv"), &store);
    let args = [
        "judge",
        "--task",
        manifest.to_str().unwrap(),
        "--features",
        "text",
        "--candidates",
        "corpus",
        "--iterations",
        "3000",
    ];
    let (from_corpus, from_store) = with_and_without_store(&args, dir.path(), &store);
    assert_eq!(from_corpus, from_store);
    let trace = text_of(&from_store, "trace.tsv");
    let retrieved = retrieved_documents(&task_dir.join("runs"));
    let header: Vec<&str> = trace.lines().next().unwrap().split('\t').collect();
    let docid = header.iter().position(|&column| column == "docid").unwrap();
    let beyond_runs = trace
        .lines()
        .skip(1)
        .filter(|line| !retrieved.contains(line.split('\t').nth(docid).unwrap()))
        .count();
    assert!(
        beyond_runs > 0,
        "some judged documents were retrieved by no run"
    );
}

/// `feature_store` in task.toml stands for the corpus: a task without a corpus line judges as
/// the task with it.
#[test]
fn a_manifest_may_name_the_store_in_place_of_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let task_dir = dir.path().join("task");
    let manifest = write_tiny_text_task(&task_dir);
    index(&task_dir.join("corpus.tsv"), &task_dir.join("tiny.store"));
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains("corpus = \"corpus.tsv\""), "{text}");
    let with_store = task_dir.join("store.toml");
    std::fs::write(
        &with_store,
        text.replace("corpus = \"corpus.tsv\"", "feature_store = \"tiny.store\""),
    )
    .unwrap();
    let judge = |manifest: &Path, out: &Path| {
        run_ok([
            "judge",
            "--task",
            manifest.to_str().unwrap(),
            "--features",
            "text",
            "--iterations",
            "3000",
            "--out",
            out.to_str().unwrap(),
        ]);
        outputs(out)
    };
    assert_eq!(
        judge(&manifest, &dir.path().join("corpus")),
        judge(&with_store, &dir.path().join("store"))
    );
}

#[test]
fn a_second_index_is_up_to_date_and_a_store_of_another_corpus_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let task_dir = dir.path().join("task");
    let manifest = write_tiny_text_task(&task_dir);
    let corpus = task_dir.join("corpus.tsv");
    let store = dir.path().join("tiny.store");
    index(&corpus, &store);
    let again = index(&corpus, &store);
    let corpus_bytes = std::fs::metadata(&corpus).unwrap().len();
    assert_eq!(
        again.trim(),
        format!(
            "reusesim: {} is up to date: built from the same 1 corpus files ({:.1} MiB), read \
             the same way",
            store.display(),
            corpus_bytes as f64 / f64::from(1 << 20)
        )
    );
    let other = dir.path().join("other.tsv");
    std::fs::write(&other, "x1\tsome words here\nx2\tmore words here\n").unwrap();
    let other_store = dir.path().join("other.store");
    index(&other, &other_store);
    let out = dir.path().join("out");
    let mut args = judge_args(&manifest, &other_store, &out);
    args.extend(["--features", "text"]);
    let output = run(args);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "feature store {} does not match corpus {}: the store was built from corpus ({} \
             bytes), the corpus has corpus ({corpus_bytes} bytes)",
            other_store.display(),
            corpus.display(),
            std::fs::metadata(&other).unwrap().len()
        )),
        "{stderr}"
    );
    assert!(!dir.path().join("out").exists());
}

#[test]
fn a_bad_corpus_line_names_its_file_and_line_and_leaves_no_store() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus.tsv");
    std::fs::write(&corpus, "d1\tcat dog\nd2 cat owl\n").unwrap();
    let store = dir.path().join("bad.store");
    let output = run(index_args(&corpus, &store));
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("{}:2: expected", corpus.display())),
        "{stderr}"
    );
    assert!(!store.exists());
    assert!(!dir.path().join("bad.store.partial").exists());
    let mut args = index_args(&corpus, &store);
    args.extend(["--corpus-format", "xml"]);
    let output = run(args);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("expected corpus_format \"tsv\", \"jsonl\" or \"auto\", found \"xml\""),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The same corpus gives a byte-identical store on one thread and on every core.
#[test]
fn a_store_is_the_same_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let task_dir = dir.path().join("task");
    write_tiny_text_task(&task_dir);
    let corpus = task_dir.join("corpus.tsv");
    let build = |name: &str, threads: &str| {
        let store = dir.path().join(name);
        let mut args = index_args(&corpus, &store);
        args.extend(["--threads", threads]);
        run_ok(args);
        std::fs::read(store).unwrap()
    };
    assert_eq!(build("one.store", "1"), build("two.store", "2"));
}

/// What a killed build leaves, `STORE.partial/`, is no store: commands refuse the path, and
/// the next build replaces it.
#[test]
fn a_killed_builds_leftovers_are_no_store_and_are_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let task_dir = dir.path().join("task");
    let manifest = write_tiny_text_task(&task_dir);
    let store = dir.path().join("tiny.store");
    let partial = dir.path().join("tiny.store.partial");
    std::fs::create_dir(&partial).unwrap();
    std::fs::write(partial.join("store"), b"RSIMFST\0 cut short").unwrap();
    let out = dir.path().join("out");
    let output = run(judge_args(&manifest, &store, &out));
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&store.display().to_string()), "{stderr}");
    index(&task_dir.join("corpus.tsv"), &store);
    assert!(!partial.exists());
    let mut args = judge_args(&manifest, &store, &out);
    args.extend(["--iterations", "2000"]);
    run_ok(args);
}
