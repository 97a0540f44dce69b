//! Unit tests of the corpus reader: TSV, JSONL, folders.

use std::path::PathBuf;

use super::*;
use crate::base::error::Error;

use crate::io::gz::test_files::gzip;

fn write_file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    crate::io::gz::test_files::write_file(dir.path(), name, bytes)
}

fn read_all(path: &Path) -> Result<Vec<(usize, String, String)>> {
    read_with(path, &CorpusLayout::default())
}

fn read_with(path: &Path, layout: &CorpusLayout) -> Result<Vec<(usize, String, String)>> {
    let mut documents = Vec::new();
    for_each_document(path, layout, |place, doc_id, text| {
        documents.push((place.line, doc_id.to_string(), text.to_string()));
        Ok(())
    })?;
    Ok(documents)
}

fn parse_error(result: Result<Vec<(usize, String, String)>>) -> ParseError {
    match result {
        Err(Error::Parse(error)) => error,
        other => panic!("expected a parse error, found {other:?}"),
    }
}

fn document(line_number: usize, doc_id: &str, text: &str) -> (usize, String, String) {
    (line_number, doc_id.to_string(), text.to_string())
}

#[test]
fn reads_two_three_and_four_column_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(
        &dir,
        "corpus.tsv",
        b"d1\tplain text\r\n\
          d2\tfirst\tsecond\n\
          \n\
          D3\thttp://example.com/x\tThe Title\tThe body.\n\
          d4\ta\tb\tc\td\n\
          d5\t\n",
    );
    assert_eq!(
        read_all(&path).unwrap(),
        [
            document(1, "d1", "plain text"),
            document(2, "d2", "first second"),
            document(4, "D3", "The Title The body."),
            document(5, "d4", "a b c d"),
            document(6, "d5", ""),
        ]
    );
}

#[test]
fn detects_gzip_by_magic_bytes_not_name() {
    let dir = tempfile::tempdir().unwrap();
    let text = b"d1\tone\nd2\ttwo\n";
    let plain = write_file(&dir, "plain.gz", text);
    let compressed = write_file(&dir, "compressed.tsv", &gzip(text));
    assert_eq!(read_all(&plain).unwrap(), read_all(&compressed).unwrap());
    assert_eq!(read_all(&compressed).unwrap().len(), 2);
}

#[test]
fn reads_concatenated_gzip_members() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = gzip(b"d1\tone\n");
    bytes.extend(gzip(b"d2\ttwo\n"));
    let path = write_file(&dir, "members.gz", &bytes);
    assert_eq!(
        read_all(&path).unwrap(),
        [document(1, "d1", "one"), document(2, "d2", "two")]
    );
}

#[test]
fn a_line_without_a_tab_names_path_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "corpus.tsv", b"d1\tfine\nd2 no tab here\n");
    let error = parse_error(read_all(&path));
    assert_eq!(error.line, 2);
    assert!(matches!(
        error.kind,
        ParseErrorKind::Columns { found: 1, .. }
    ));
    let message = error.to_string();
    assert!(
        message.starts_with(&format!("{}:2: expected doc_id<TAB>text", path.display())),
        "{message}"
    );
}

#[test]
fn invalid_utf8_and_nul_bytes_are_binary_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "latin1.tsv", b"d1\tok\nd2\tcaf\xe9\n");
    let error = parse_error(read_all(&path));
    assert_eq!((error.line, error.path.clone()), (2, path.clone()));
    assert!(matches!(error.kind, ParseErrorKind::Binary));

    let path = write_file(&dir, "nul.tsv", b"d1\tok\nd2\tok\nd3\ta\0b\n");
    let error = parse_error(read_all(&path));
    assert_eq!(error.line, 3);
    assert!(matches!(error.kind, ParseErrorKind::Binary));
    assert!(error
        .to_string()
        .contains("expected text, found binary data"));
}

#[test]
fn a_truncated_gzip_stream_is_an_io_error_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..2000)
        .map(|number| format!("doc{number}\tsome text number {number} with words\n"))
        .collect();
    let bytes = gzip(text.as_bytes());
    let path = write_file(&dir, "cut.gz", &bytes[..bytes.len() / 2]);
    let error = parse_error(read_all(&path));
    assert_eq!(error.path, path);
    assert!(error.line > 0);
    assert!(matches!(error.kind, ParseErrorKind::Io(_)), "{error}");
}

#[test]
fn a_missing_file_is_an_io_error_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("absent.tsv");
    let error = parse_error(read_all(&path));
    assert_eq!((error.path.clone(), error.line), (path.clone(), 0));
    assert!(matches!(error.kind, ParseErrorKind::Io(_)));
    assert!(error.to_string().starts_with(&path.display().to_string()));
}

#[test]
fn an_empty_corpus_and_a_bad_id_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "blank.tsv", b"\n\n");
    assert!(matches!(
        parse_error(read_all(&path)).kind,
        ParseErrorKind::Empty
    ));
    let path = write_file(&dir, "noid.tsv", b"d1\tok\n\ttext without id\n");
    let error = parse_error(read_all(&path));
    assert_eq!(error.line, 2);
    assert!(matches!(
        error.kind,
        ParseErrorKind::Field { column: 1, .. }
    ));
    let path = write_file(&dir, "spaceid.tsv", b"doc 1\ttext\n");
    assert_eq!(parse_error(read_all(&path)).line, 1);
}

#[test]
fn the_visitors_error_stops_reading() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "corpus.tsv", b"d1\ta\nd2\tb\nd3\tc\n");
    let mut seen = Vec::new();
    let result = for_each_document(&path, &CorpusLayout::default(), |_, doc_id, _| {
        seen.push(doc_id.to_string());
        if doc_id == "d2" {
            Err(Error::Invalid("stop".to_string()))
        } else {
            Ok(())
        }
    });
    assert!(matches!(result, Err(Error::Invalid(message)) if message == "stop"));
    assert_eq!(seen, ["d1", "d2"]);
}

// ---- JSONL ----------------------------------------------------------------------------------

fn jsonl_layout() -> CorpusLayout {
    CorpusLayout {
        format: CorpusFormat::Jsonl,
        ..CorpusLayout::default()
    }
}

/// The one document of a one-line JSONL corpus, read in the default layout.
fn read_json_line(line: &str) -> Result<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "corpus.jsonl", line.as_bytes());
    let mut documents = read_with(&path, &jsonl_layout())?;
    assert_eq!(documents.len(), 1);
    let (_, doc_id, text) = documents.remove(0);
    Ok((doc_id, text))
}

fn json_error_of(line: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(
        &dir,
        "corpus.jsonl",
        format!("{{\"id\": \"ok\", \"text\": \"\"}}\n{line}\n").as_bytes(),
    );
    let error = parse_error(read_with(&path, &jsonl_layout()));
    assert_eq!((error.path.clone(), error.line), (path.clone(), 2));
    let message = error.to_string();
    let prefix = format!("{}:2: ", path.display());
    message
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{message}"))
        .to_string()
}

fn pair(doc_id: &str, text: &str) -> (String, String) {
    (doc_id.to_string(), text.to_string())
}

#[test]
fn the_id_is_the_first_present_of_pid_docid_doc_id_underscore_id_and_id() {
    let cases = [
        (
            r#"{"id": "e", "_id": "d", "doc_id": "c", "docid": "b", "pid": "a", "text": ""}"#,
            "a",
        ),
        (
            r#"{"id": "e", "_id": "d", "doc_id": "c", "docid": "b", "text": ""}"#,
            "b",
        ),
        (r#"{"id": "e", "_id": "d", "doc_id": "c", "text": ""}"#, "c"),
        (r#"{"id": "e", "_id": "d", "text": ""}"#, "d"),
        (r#"{"id": "e", "text": ""}"#, "e"),
        (r#"{"pid": null, "id": "e", "text": ""}"#, "e"),
    ];
    for (line, doc_id) in cases {
        assert_eq!(read_json_line(line).unwrap().0, doc_id, "{line}");
    }
}

#[test]
fn an_integer_id_is_written_in_decimal() {
    assert_eq!(
        read_json_line(r#"{"_id": 42, "text": "t"}"#).unwrap(),
        pair("42", "t")
    );
    assert_eq!(
        read_json_line(r#"{"id": -7, "text": "t"}"#).unwrap(),
        pair("-7", "t")
    );
    let big = r#"{"id": 18446744073709551615, "text": "t"}"#;
    assert_eq!(read_json_line(big).unwrap().0, "18446744073709551615");
}

#[test]
fn the_text_joins_title_headings_and_the_first_body_field_with_spaces() {
    let cases = [
        (r#"{"id": "d", "text": "only text"}"#, "only text"),
        (r#"{"id": "d", "passage": "p"}"#, "p"),
        (r#"{"id": "d", "body": "b"}"#, "b"),
        (r#"{"id": "d", "segment": "s"}"#, "s"),
        (r#"{"id": "d", "contents": "c"}"#, "c"),
        (
            r#"{"id": "d", "contents": "c", "segment": "s", "body": "b", "passage": "p", "text": "t"}"#,
            "t",
        ),
        (r#"{"id": "d", "contents": "c", "body": "b"}"#, "b"),
        (r#"{"id": "d", "title": "T", "text": "x"}"#, "T x"),
        (
            r#"{"id": "d", "text": "x", "headings": "H1\nH2", "title": "T"}"#,
            "T H1\nH2 x",
        ),
        (
            r#"{"id": "d", "title": "T", "headings": null, "body": "b"}"#,
            "T b",
        ),
        (r#"{"id": "d", "title": "only a title"}"#, "only a title"),
        (r#"{"id": "d", "title": "", "text": ""}"#, " "),
        (
            r#"{"id": "d", "text": "caf\u00e9 \t tab", "url": "ignored", "n": [1]}"#,
            "café \t tab",
        ),
    ];
    for (line, text) in cases {
        assert_eq!(read_json_line(line).unwrap(), pair("d", text), "{line}");
    }
}

#[test]
fn msmarco_v2_passages_documents_and_segments_and_beir_read_with_the_defaults() {
    let passage = r#"{"pid": "msmarco_passage_00_0", "passage": "0-60 Times", "spans": "(0,10)", "docid": "msmarco_doc_00_0"}"#;
    assert_eq!(
        read_json_line(passage).unwrap(),
        pair("msmarco_passage_00_0", "0-60 Times")
    );
    let document = r#"{"url": "http://x/", "title": "T", "headings": "H", "body": "B", "docid": "msmarco_doc_00_0"}"#;
    assert_eq!(
        read_json_line(document).unwrap(),
        pair("msmarco_doc_00_0", "T H B")
    );
    let segment = r#"{"docid": "msmarco_v2.1_doc_00_0#0_0", "url": "u", "title": "T", "headings": "H", "segment": "S", "start_char": 0, "end_char": 1}"#;
    assert_eq!(
        read_json_line(segment).unwrap(),
        pair("msmarco_v2.1_doc_00_0#0_0", "T H S")
    );
    let beir = r#"{"_id": "4983", "title": "Microstructural development", "text": "Alterations", "metadata": {}}"#;
    assert_eq!(
        read_json_line(beir).unwrap(),
        pair("4983", "Microstructural development Alterations")
    );
}

#[test]
fn other_fields_are_read_when_the_layout_names_them() {
    let layout = CorpusLayout {
        format: CorpusFormat::Auto,
        id_fields: vec!["key".into()],
        text_fields: vec![vec!["b".into()], vec!["a".into(), "c".into()]],
    };
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(
        &dir,
        "c.jsonl",
        br#"{"key": "k", "a": "A", "b": "B", "c": "C", "text": "no"}"#,
    );
    assert_eq!(
        read_with(&path, &layout).unwrap(),
        [document(1, "k", "B A")]
    );
    let path = write_file(&dir, "d.jsonl", br#"{"id": "k", "text": "t"}"#);
    assert_eq!(
        parse_error(read_with(&path, &layout)).to_string(),
        format!(
            "{}:1: expected a document id in field key, found none of them",
            path.display()
        )
    );
}

#[test]
fn json_errors_name_file_line_and_what_was_expected() {
    let cases = [
        (r#"{"id": "d", "text": "x""#, "expected a JSON object, found invalid JSON (EOF while parsing an object at column 23)"),
        (r#"["d", "x"]"#, "expected a JSON object, found an array"),
        (r#"{"text": "x"}"#, "expected a document id in field pid, docid, doc_id, _id or id, found none of them"),
        (r#"{"id": null, "text": "x"}"#, "expected a document id in field pid, docid, doc_id, _id or id, found none of them"),
        (r#"{"docid": "a b", "text": "x"}"#, "expected a document id without white space in field docid, found \"a b\""),
        (r#"{"_id": "", "text": "x"}"#, "expected a document id without white space in field _id, found \"\""),
        (r#"{"id": 1.5, "text": "x"}"#, "expected a document id (a string or an integer) in field id, found the number 1.5"),
        (r#"{"pid": ["a"], "text": "x"}"#, "expected a document id (a string or an integer) in field pid, found an array"),
        (r#"{"id": "d", "url": "u"}"#, "expected the text in field title, headings, text, passage, body, segment or contents, found none of them"),
        (r#"{"id": "d", "title": 3, "text": "x"}"#, "expected a string in field title, found the number 3"),
        (r#"{"id": "d", "body": {"p": "x"}}"#, "expected a string in field body, found an object"),
    ];
    for (line, message) in cases {
        assert_eq!(json_error_of(line), message, "{line}");
    }
}

#[test]
fn auto_detects_jsonl_per_file_by_its_first_non_blank_character() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = write_file(&dir, "corpus.tsv", b"d1\t{\"id\": \"x\"}\nd2\tplain\n");
    assert_eq!(
        read_all(&tsv).unwrap(),
        [
            document(1, "d1", "{\"id\": \"x\"}"),
            document(2, "d2", "plain")
        ]
    );
    let json = write_file(
        &dir,
        "corpus.txt",
        &gzip(b"\n  \r\n {\"id\": \"d1\", \"text\": \"a\"}\n{\"id\": 2, \"text\": \"b\"}\n"),
    );
    assert_eq!(
        read_all(&json).unwrap(),
        [document(3, "d1", "a"), document(4, "2", "b")]
    );
    // A line of the other format later in a file is an error of the file's format.
    let mixed = write_file(&dir, "mixed", b"{\"id\": \"d1\", \"text\": \"a\"}\nd2\tb\n");
    assert!(matches!(
        parse_error(read_all(&mixed)).kind,
        ParseErrorKind::Json { .. }
    ));
    let tsv_layout = CorpusLayout {
        format: CorpusFormat::Tsv,
        ..CorpusLayout::default()
    };
    let error = parse_error(read_with(&json, &tsv_layout));
    assert_eq!(error.line, 3);
    assert!(matches!(
        error.kind,
        ParseErrorKind::Columns { found: 1, .. }
    ));
    let error = parse_error(read_with(&tsv, &jsonl_layout()));
    assert_eq!(error.line, 1);
    assert!(matches!(error.kind, ParseErrorKind::Json { .. }));
}

#[test]
fn jsonl_rejects_binary_lines_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(
        &dir,
        "c.jsonl",
        b"{\"id\": \"a\", \"text\": \"x\"}\n{\"id\": \"b\", \"text\": \"caf\xe9\"}\n",
    );
    let error = parse_error(read_all(&path));
    assert_eq!(error.line, 2);
    assert!(matches!(error.kind, ParseErrorKind::Binary));
}

// ---- Folders --------------------------------------------------------------------------------

#[test]
fn a_folder_is_read_in_file_name_order_with_hidden_files_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("corpus");
    std::fs::create_dir(&folder).unwrap();
    let file =
        |name: &str, bytes: &[u8]| crate::io::gz::test_files::write_file(&folder, name, bytes);
    file(
        "b.jsonl.gz",
        &gzip(b"{\"docid\": \"d3\", \"body\": \"three\"}\n"),
    );
    file("a.tsv", b"d1\tone\nd2\ttwo\n");
    file("c.jsonl", b"\n{\"pid\": \"d4\", \"passage\": \"four\"}\n");
    file(".hidden", b"not a corpus\n");
    assert_eq!(
        read_all(&folder).unwrap(),
        [
            document(1, "d1", "one"),
            document(2, "d2", "two"),
            document(1, "d3", "three"),
            document(2, "d4", "four")
        ]
    );
    let files: Vec<String> = corpus_files(&folder)
        .unwrap()
        .iter()
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, ["a.tsv", "b.jsonl.gz", "c.jsonl"]);
    let sizes: u64 = ["a.tsv", "b.jsonl.gz", "c.jsonl"]
        .iter()
        .map(|name| std::fs::metadata(folder.join(name)).unwrap().len())
        .sum();
    assert_eq!(corpus_bytes(&folder).unwrap(), sizes);
}

#[test]
fn folder_errors_name_the_file_inside_and_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("corpus");
    std::fs::create_dir(&folder).unwrap();
    let file =
        |name: &str, bytes: &[u8]| crate::io::gz::test_files::write_file(&folder, name, bytes);
    file("a.tsv", b"d1\tone\n");
    let bad = file(
        "b.jsonl.gz",
        &gzip(b"{\"docid\": \"d2\", \"body\": \"two\"}\n{\"body\": \"three\"}\n"),
    );
    let error = parse_error(read_all(&folder));
    assert_eq!((error.path.clone(), error.line), (bad.clone(), 2));
    assert!(error
        .to_string()
        .starts_with(&format!("{}:2: expected a document id", bad.display())));

    std::fs::remove_file(&bad).unwrap();
    let nested = folder.join("nested");
    std::fs::create_dir(&nested).unwrap();
    let error = parse_error(read_all(&folder));
    assert_eq!(error.path, nested);
    assert!(
        error
            .to_string()
            .ends_with("expected a corpus file, found a folder (a corpus folder holds files only)"),
        "{error}"
    );
}

#[test]
fn a_folder_without_files_or_documents_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("corpus");
    std::fs::create_dir(&folder).unwrap();
    crate::io::gz::test_files::write_file(&folder, ".hidden", b"d1\tone\n");
    let error = parse_error(read_all(&folder));
    assert_eq!(error.path, folder);
    assert!(
        error
            .to_string()
            .contains("expected a corpus folder with files, found none"),
        "{error}"
    );
    crate::io::gz::test_files::write_file(&folder, "blank.tsv", b"\n\n");
    let error = parse_error(read_all(&folder));
    assert_eq!(error.path, folder);
    assert!(
        error
            .to_string()
            .ends_with("expected a document in the folder's files, found none"),
        "{error}"
    );
}
