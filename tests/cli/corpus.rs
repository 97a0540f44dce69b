//! The corpus layouts from the command line: one corpus as TSV, as JSONL and as a folder of
//! gzip JSONL files judges identically, and a bad JSONL line is an error naming file and line.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::util::{run, write_tiny_text_task};

/// The documents of the tiny task's TSV corpus: (id, text).
fn tsv_documents(task_dir: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(task_dir.join("corpus.tsv"))
        .unwrap()
        .lines()
        .map(|line| {
            let (id, text) = line.split_once('\t').unwrap();
            (id.to_string(), text.to_string())
        })
        .collect()
}

/// A JSONL line for a document in one of the exporters' spellings, chosen by `style`: the
/// text split between a title and a body where the spelling has both.
fn json_line(style: usize, id: &str, text: &str) -> String {
    let (title, body) = text.split_once(' ').unwrap();
    let object = match style % 4 {
        0 => serde_json::json!({"docid": id, "url": "http://x/", "title": title, "body": body}),
        1 => serde_json::json!({"pid": id, "passage": text, "docid": "parent"}),
        2 => serde_json::json!({"_id": id, "title": title, "text": body, "metadata": {}}),
        _ => serde_json::json!({"id": id, "contents": text}),
    };
    format!("{object}\n")
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// Writes a manifest like the tiny task's but reading `corpus` (with `settings` added).
fn manifest_with_corpus(task_dir: &Path, file: &str, corpus: &str, settings: &str) -> PathBuf {
    let text = std::fs::read_to_string(task_dir.join("task.toml"))
        .unwrap()
        .replace(
            "corpus = \"corpus.tsv\"",
            &format!("corpus = \"{corpus}\"\n{settings}"),
        );
    let path = task_dir.join(file);
    std::fs::write(&path, text).unwrap();
    path
}

/// Every file `judge` wrote into `out`, by name (the bytes as text, for readable failures).
fn outputs(out: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(out)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&path).unwrap();
            (name, String::from_utf8(bytes).expect("text outputs"))
        })
        .collect();
    files.sort();
    files
}

fn judge(manifest: &Path, out: &Path) -> Vec<(String, String)> {
    let args = ["--features", "text", "--seed", "3", "--iterations", "3000"];
    crate::util::run_on_task("judge", manifest, out, &args);
    outputs(out)
}

#[test]
fn tsv_jsonl_and_a_folder_of_gzip_jsonl_judge_byte_identically() {
    let dir = tempfile::tempdir().unwrap();
    let task_dir = dir.path().join("task");
    let tsv = write_tiny_text_task(&task_dir);
    let documents = tsv_documents(&task_dir);
    let lines: Vec<String> = documents
        .iter()
        .enumerate()
        .map(|(index, (id, text))| json_line(index, id, text))
        .collect();
    std::fs::write(task_dir.join("corpus.jsonl"), lines.concat()).unwrap();
    let folder = task_dir.join("corpus-parts");
    std::fs::create_dir(&folder).unwrap();
    // Three parts whose name order is the corpus order (part-10 sorts before part-2).
    for (name, part) in ["part-1.jsonl.gz", "part-10.jsonl.gz", "part-2.jsonl.gz"]
        .iter()
        .zip(lines.chunks(250))
    {
        std::fs::write(folder.join(name), gzip(part.concat().as_bytes())).unwrap();
    }
    let jsonl = manifest_with_corpus(&task_dir, "jsonl.toml", "corpus.jsonl", "");
    let parts = manifest_with_corpus(
        &task_dir,
        "parts.toml",
        "corpus-parts",
        "corpus_format = \"jsonl\"",
    );

    let from_tsv = judge(&tsv, &dir.path().join("tsv"));
    assert!(
        from_tsv.iter().any(|(name, _)| name == "trace.tsv"),
        "{from_tsv:?}"
    );
    assert_eq!(judge(&jsonl, &dir.path().join("jsonl")), from_tsv);
    assert_eq!(judge(&parts, &dir.path().join("parts")), from_tsv);
}

#[test]
fn a_bad_jsonl_line_in_a_corpus_folder_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let task_dir = dir.path().join("task");
    write_tiny_text_task(&task_dir);
    let documents = tsv_documents(&task_dir);
    let folder = task_dir.join("corpus");
    std::fs::create_dir(&folder).unwrap();
    let good: String = documents[..300]
        .iter()
        .map(|(id, text)| json_line(3, id, text))
        .collect();
    std::fs::write(folder.join("a.jsonl"), good).unwrap();
    let mut bad: String = documents[300..]
        .iter()
        .take(10)
        .map(|(id, text)| json_line(0, id, text))
        .collect();
    bad.push_str("{\"doc\": \"d9999\", \"text\": \"no id here\"}\n");
    std::fs::write(folder.join("b.jsonl.gz"), gzip(bad.as_bytes())).unwrap();
    let manifest = manifest_with_corpus(&task_dir, "folder.toml", "corpus", "");

    let output = run([
        "judge",
        "--task",
        manifest.to_str().unwrap(),
        "--out",
        dir.path().join("out").to_str().unwrap(),
        "--features",
        "text",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let expected = format!(
        "{}:11: expected a document id in field pid, docid, doc_id, _id or id, found none of \
         them\n",
        folder.join("b.jsonl.gz").display()
    );
    assert!(
        stderr.starts_with("reusesim: ") && stderr.ends_with(&expected),
        "{stderr}"
    );
}
