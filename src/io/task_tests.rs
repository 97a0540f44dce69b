//! The task manifest's reading and the task's loading, on task folders written in a temporary
//! folder; the pool depth's tie rule.

use super::*;
use crate::io::corpus::CorpusFormat;
use crate::io::run::read_run;

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(dir.join(name).parent().unwrap()).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
fn manifest_paths_are_relative_to_it_and_auto_depth_is_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "task/runs/a",
        "1 Q0 d1 1 3 A\n1 Q0 d2 2 2 A\n1 Q0 d3 3 1 A\n",
    );
    write(root, "task/runs/b", "1 Q0 d2 1 3 B\n1 Q0 d4 2 2 B\n");
    write(root, "task/teams.tsv", "A\tteam1\nB\tteam2\tno\n");
    write(root, "qrels/q", "1 0 d1 1\n1 0 d2 0\n");
    write(
        root,
        "task/task.toml",
        "name = \"t\"\nruns = \"runs\"\nteams = \"teams.tsv\"\nqrels = \"../qrels/q\"\n\
         pool_depth = \"auto\"\nlabels = \"../labels/llm.qrels\"\n",
    );
    let task = Task::open(&root.join("task/task.toml")).unwrap();
    assert_eq!(
        task.manifest.labels,
        Some(root.join("task").join("../labels/llm.qrels")),
        "the labels' path is kept, relative to the manifest; loading does not read them"
    );
    assert_eq!(task.runs.len(), 2);
    assert_eq!(task.manifest.relevance_level, 1);
    assert_eq!(
        task.pool_depth, 2,
        "run A's top 2 judged, run B is not pooled"
    );
    assert_eq!(task.pooled_runs().count(), 1);
    assert_eq!(task.team_of("B"), "team2");
}

#[test]
fn manifest_errors_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "task.toml", "name = \"t\"\nruns = 3\n");
    let error = TaskManifest::read(&dir.path().join("task.toml")).unwrap_err();
    assert!(error.to_string().contains("task.toml:2:"), "{error}");
    write(
        dir.path(),
        "task.toml",
        "name = \"t\"\nruns = \"r\"\nteams = \"t\"\nqrels = \"q\"\npool_depth = \"deep\"\n",
    );
    let error = TaskManifest::read(&dir.path().join("task.toml")).unwrap_err();
    assert!(error.to_string().contains("\"auto\""), "{error}");
}

#[test]
fn a_name_unusable_in_file_names_and_a_relevance_level_below_1_name_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("task.toml");
    for name in ["\"../up\"", "\"\"", "\"a\\\\b\"", "\"..\"", "\"a\\u0007b\""] {
        write(
            dir.path(),
            "task.toml",
            &format!("qrels = \"q\"\nname = {name}\n"),
        );
        let error = TaskManifest::read(&path).unwrap_err();
        assert_eq!(error.line, 2, "{error}");
        assert!(
            error
                .to_string()
                .contains("expected a task name usable in file names"),
            "{error}"
        );
    }
    for level in [0, -1] {
        write(
            dir.path(),
            "task.toml",
            &format!("name = \"t\"\nqrels = \"q\"\n\nrelevance_level = {level}\n"),
        );
        let error = TaskManifest::read(&path).unwrap_err().to_string();
        assert!(
            error.ends_with(&format!(
                "task.toml:4: expected relevance_level >= 1, found {level}"
            )),
            "{error}"
        );
    }
    write(
        dir.path(),
        "task.toml",
        "name = \"t\"\nqrels = \"q\"\nrelevance_level = 2\n",
    );
    assert_eq!(TaskManifest::read(&path).unwrap().relevance_level, 2);
}

#[test]
fn corpus_settings_are_read_with_their_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("task.toml");
    let head = "name = \"t\"\nqrels = \"q\"\ncorpus = \"corpus\"\n";
    write(dir.path(), "task.toml", head);
    let manifest = TaskManifest::read(&path).unwrap();
    assert_eq!(manifest.corpus_layout, CorpusLayout::default());
    assert_eq!(manifest.corpus, Some(dir.path().join("corpus")));
    for (name, format) in [
        ("tsv", CorpusFormat::Tsv),
        ("jsonl", CorpusFormat::Jsonl),
        ("auto", CorpusFormat::Auto),
    ] {
        write(
            dir.path(),
            "task.toml",
            &format!("{head}corpus_format = \"{name}\"\n"),
        );
        let layout = TaskManifest::read(&path).unwrap().corpus_layout;
        assert_eq!(
            layout,
            CorpusLayout {
                format,
                ..CorpusLayout::default()
            }
        );
    }
    write(
        dir.path(),
        "task.toml",
        &format!(
            "{head}corpus_format = \"jsonl\"\ncorpus_id_fields = [\"key\", \"id\"]\n\
             corpus_text_fields = [\"title\", \"abstract|body\"]\n"
        ),
    );
    let layout = TaskManifest::read(&path).unwrap().corpus_layout;
    assert_eq!(
        layout,
        CorpusLayout {
            format: CorpusFormat::Jsonl,
            id_fields: vec!["key".into(), "id".into()],
            text_fields: vec![vec!["title".into()], vec!["abstract".into(), "body".into()]],
        }
    );
}

#[test]
fn invalid_corpus_settings_name_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("task.toml");
    let head = "name = \"t\"\nqrels = \"q\"\ncorpus = \"c\"\n";
    let cases = [
        (format!("{head}corpus_format = \"json\"\n"), "task.toml:4: expected corpus_format \"tsv\", \"jsonl\" or \"auto\", found \"json\""),
        (format!("{head}corpus_format = \"tsv\"\ncorpus_id_fields = [\"id\"]\n"), "task.toml:5: expected corpus_id_fields only with corpus_format \"jsonl\" or \"auto\", found \"tsv\""),
        (format!("{head}corpus_id_fields = []\n"), "task.toml:4: expected corpus_id_fields to name at least one field, found []"),
        (format!("{head}corpus_id_fields = [\"id\", \"\"]\n"), "task.toml:4: expected corpus_id_fields to hold field names, found \"\""),
        (format!("{head}\ncorpus_text_fields = []\n"), "task.toml:5: expected corpus_text_fields to name at least one field, found []"),
        (format!("{head}corpus_text_fields = [\"title\", \"text||body\"]\n"), "task.toml:4: expected corpus_text_fields entries of field names joined by \"|\", found \"text||body\""),
        ("name = \"t\"\nqrels = \"q\"\ncorpus_format = \"jsonl\"\n".to_string(), "task.toml:3: expected corpus with corpus_format, found none"),
        ("name = \"t\"\nqrels = \"q\"\n\ncorpus_text_fields = [\"a\"]\n".to_string(), "task.toml:4: expected corpus with corpus_text_fields, found none"),
    ];
    for (text, message) in cases {
        write(dir.path(), "task.toml", &text);
        let error = TaskManifest::read(&path).unwrap_err().to_string();
        assert!(error.ends_with(message), "{error}\n  expected: {message}");
    }
    write(
        dir.path(),
        "task.toml",
        &format!("{head}corpus_id_fields = \"id\"\n"),
    );
    let error = TaskManifest::read(&path).unwrap_err().to_string();
    assert!(error.contains("task.toml:4:"), "{error}");
}

#[test]
fn runs_and_teams_come_together_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "q", "1 0 d1 1\n");
    write(dir.path(), "task.toml", "name = \"t\"\nqrels = \"q\"\n");
    let task = Task::open(&dir.path().join("task.toml")).unwrap();
    assert!(task.runs.is_empty() && task.teams.runs.is_empty());
    write(
        dir.path(),
        "task.toml",
        "name = \"t\"\nruns = \"r\"\nqrels = \"q\"\n",
    );
    let error = TaskManifest::read(&dir.path().join("task.toml")).unwrap_err();
    assert!(error.to_string().contains("both runs and teams"), "{error}");
}

#[test]
fn a_run_without_a_team_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "runs/a", "1 Q0 d1 1 3 A\n");
    write(root, "teams.tsv", "Z\tteam1\n");
    write(root, "q", "1 0 d1 1\n");
    write(
        root,
        "task.toml",
        "name = \"t\"\nruns = \"runs\"\nteams = \"teams.tsv\"\nqrels = \"q\"\n",
    );
    let error = Task::open(&root.join("task.toml")).unwrap_err();
    assert!(
        error.to_string().contains("expected a team for run \"A\""),
        "{error}"
    );
}

#[test]
fn a_tie_at_the_pool_depth_goes_to_the_lower_docno() {
    // The 10th and 11th documents tie on score: trec_eval ranks d11 before d10 (docno
    // descending); NIST pooled d10 (docno ascending).
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for rank in 1..=9 {
        text += &format!("1 Q0 d0{rank} {rank} {} r\n", 100 - rank);
    }
    text += "1 Q0 d10 10 5 r\n1 Q0 d11 11 5 r\n1 Q0 d12 12 1 r\n";
    std::fs::write(dir.path().join("r"), text).unwrap();
    let run = read_run(&dir.path().join("r")).unwrap();
    let topic = run.topic("1").unwrap();
    assert_eq!(&*topic.docs[9].docid, "d11", "trec_eval's order");
    let pooled: Vec<&str> = topic.pooling_order().iter().map(|d| &*d.docid).collect();
    assert_eq!(pooled[9], "d10");
    assert_eq!(pooled[10], "d11");
    // A qrels judging the top 9 and d10 (NIST's pool) is fully judged to depth 10.
    let mut qrels = Qrels::default();
    let judged = qrels.topics.entry("1".into()).or_default();
    for rank in 1..=9 {
        judged.insert(&format!("d0{rank}"), 0);
    }
    judged.insert("d10", 1);
    assert_eq!(fully_judged_depth(&[&run], &qrels), 10);
}
