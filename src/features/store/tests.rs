//! Tests of the feature store: vectors, ids and vocabulary equal to the in-memory features bit
//! for bit; the id table across regions; duplicates; rebuilds; damaged and mismatched stores.

use std::path::{Path, PathBuf};

use super::build::build_in_regions;
use super::*;
use crate::base::error::{Error, Result};
use crate::features::text::TextFeatures;
use crate::io::corpus::CorpusLayout;
use crate::io::gz::test_files::{gzip, write_file};

/// A deterministic corpus of `documents` lines over a small Zipf-like vocabulary, so that
/// words repeat within documents and some occur in one document only.
fn corpus_text(documents: usize, first_id: usize) -> String {
    let words = [
        "cat", "dog", "owl", "running", "runs", "ponies", "mice", "cheese", "zebra", "quick",
        "brown", "jumps", "lazy",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut text = String::new();
    for document in 0..documents {
        text.push_str(&format!("doc{}\t", first_id + document));
        for _ in 0..(3 + document % 7) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let rank = (state % 91) as usize;
            let word = words[(rank * rank / 91) % words.len()];
            text.push_str(word);
            text.push(' ');
        }
        text.push_str(&format!("unique{document}\n"));
    }
    text
}

fn quiet(_: &str, _: usize, _: usize) {}

fn build(inputs: &[PathBuf], out: &Path) -> Result<BuildOutcome> {
    build_store(inputs, &CorpusLayout::default(), out, &quiet)
}

fn bits(pairs: &[(u32, f32)]) -> Vec<(u32, u32)> {
    pairs.iter().map(|&(f, w)| (f, w.to_bits())).collect()
}

/// Every document of the corpus at `corpus` has in `store` the position of its line, and the
/// vector the in-memory features give it; the vocabulary is the same.
fn assert_store_equals_features(store: &FeatureStore, corpus: &Path) {
    let features = TextFeatures::from_corpus(corpus, &CorpusLayout::default(), |_| true).unwrap();
    assert_eq!(store.document_count(), features.document_count());
    assert_eq!(store.feature_count(), features.feature_count());
    for feature in 0..features.feature_count() as u32 {
        assert_eq!(store.term(feature), features.term(feature));
        assert_eq!(
            store.document_frequency(feature),
            features.document_frequency(feature)
        );
        let term = features.term(feature).unwrap();
        assert_eq!(store.feature_index(term), Some(feature));
    }
    let mut vector = Vec::new();
    for (position, (name, expected)) in features.documents().enumerate() {
        let position = position as u32;
        assert_eq!(store.position(name), Some(position), "{name}");
        assert_eq!(store.name(position).unwrap(), name);
        store.vector_into(position, &mut vector).unwrap();
        assert_eq!(bits(&vector), bits(expected), "{name}");
    }
    assert_eq!(store.position("absent"), None);
    assert_eq!(store.feature_index("absent"), None);
    let topic = "cats running with ponies and a zebra";
    assert_eq!(
        bits(&store.topic_vector("1", topic).unwrap()),
        bits(&features.topic_vector("1", topic).unwrap())
    );
}

#[test]
fn a_store_holds_exactly_the_in_memory_features() {
    let dir = tempfile::tempdir().unwrap();
    let documents = 2 * crate::features::text::pass::BATCH_DOCUMENTS + 321;
    let corpus = write_file(
        dir.path(),
        "corpus.tsv.gz",
        &gzip(corpus_text(documents, 0).as_bytes()),
    );
    let out = dir.path().join("corpus.store");
    assert_eq!(
        build(std::slice::from_ref(&corpus), &out).unwrap(),
        BuildOutcome::Built
    );
    let store = FeatureStore::open(&out).unwrap();
    assert_store_equals_features(&store, &corpus);
    let (sha256, bytes) = crate::io::gz::file_digest(&corpus).unwrap();
    assert_eq!(
        store.header().corpus,
        [CorpusFile {
            role: "corpus".into(),
            bytes,
            sha256
        }]
    );
    assert!(!dir.path().join("corpus.store.partial").exists());
}

#[test]
fn ids_are_found_when_they_overflow_from_region_to_region() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = write_file(dir.path(), "corpus.tsv", corpus_text(3000, 0).as_bytes());
    let out = dir.path().join("store");
    for region_slots in [1, 4, 64] {
        build_in_regions(
            std::slice::from_ref(&corpus),
            &CorpusLayout::default(),
            &out,
            &quiet,
            region_slots,
        )
        .unwrap();
        let store = FeatureStore::open(&out).unwrap();
        for position in 0..3000 {
            let name = format!("doc{position}");
            assert_eq!(
                store.position(&name),
                Some(position),
                "{name}, regions of {region_slots}"
            );
        }
        std::fs::remove_file(&out).unwrap();
    }
}

#[test]
fn a_folder_and_several_inputs_are_read_in_order_with_their_roles() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("parts");
    std::fs::create_dir(&folder).unwrap();
    let first = write_file(&folder, "a.tsv", corpus_text(40, 0).as_bytes());
    let second = write_file(&folder, "b.tsv.gz", &gzip(corpus_text(30, 40).as_bytes()));
    let out = dir.path().join("store");
    build(std::slice::from_ref(&folder), &out).unwrap();
    let store = FeatureStore::open(&out).unwrap();
    let roles: Vec<&str> = store
        .header()
        .corpus
        .iter()
        .map(|file| file.role.as_str())
        .collect();
    assert_eq!(roles, ["corpus/a.tsv", "corpus/b.tsv.gz"]);
    assert_store_equals_features(&store, &folder);
    store
        .check_corpus(&folder, &CorpusLayout::default())
        .unwrap();

    let two = dir.path().join("two");
    build(&[first, second], &two).unwrap();
    let from_two = FeatureStore::open(&two).unwrap();
    assert_eq!(from_two.header().corpus, store.header().corpus);
    assert_eq!(from_two.position("doc69"), Some(69));
}

#[test]
fn a_second_build_of_the_same_inputs_is_up_to_date_and_a_changed_one_rebuilds() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = write_file(dir.path(), "corpus.tsv", corpus_text(50, 0).as_bytes());
    let out = dir.path().join("store");
    assert_eq!(
        build(std::slice::from_ref(&corpus), &out).unwrap(),
        BuildOutcome::Built
    );
    let built = std::fs::metadata(&out).unwrap().modified().unwrap();
    assert_eq!(
        build(std::slice::from_ref(&corpus), &out).unwrap(),
        BuildOutcome::UpToDate
    );
    assert_eq!(std::fs::metadata(&out).unwrap().modified().unwrap(), built);
    // Same length, other bytes: only the sha256 tells.
    let changed = corpus_text(50, 0).replacen("cat", "dog", 1);
    std::fs::write(&corpus, changed).unwrap();
    assert_eq!(
        build(std::slice::from_ref(&corpus), &out).unwrap(),
        BuildOutcome::Built
    );
    assert_store_equals_features(&FeatureStore::open(&out).unwrap(), &corpus);
    let jsonl = CorpusLayout {
        format: crate::io::corpus::CorpusFormat::Tsv,
        ..CorpusLayout::default()
    };
    assert_eq!(
        build_store(&[corpus], &jsonl, &out, &quiet).unwrap(),
        BuildOutcome::Built,
        "another layout rebuilds"
    );
}

#[test]
fn a_duplicate_id_names_both_places_and_leaves_no_store() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("parts");
    std::fs::create_dir(&folder).unwrap();
    write_file(&folder, "a.tsv", b"d1\tcat dog\nd2\tcat owl\n");
    write_file(&folder, "b.tsv", b"d3\tdog owl\n\nd1\towl cat\n");
    let out = dir.path().join("store");
    let error = build(std::slice::from_ref(&folder), &out)
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        format!(
            "{}:3: expected each document id once, found \"d1\" again; first at {}:1",
            folder.join("b.tsv").display(),
            folder.join("a.tsv").display()
        )
    );
    assert!(!out.exists());
    assert!(!dir.path().join("store.partial").exists());
}

#[test]
fn a_corpus_error_leaves_no_store_and_keeps_an_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = write_file(dir.path(), "corpus.tsv", b"d1\tcat dog\nd2\tcat owl\n");
    let out = dir.path().join("store");
    build(std::slice::from_ref(&corpus), &out).unwrap();
    let old = std::fs::read(&out).unwrap();
    std::fs::write(&corpus, b"d1\tcat dog\nno tab here\n").unwrap();
    let error = build(std::slice::from_ref(&corpus), &out)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(&format!("{}:2: expected", corpus.display())),
        "{error}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), old);
    assert!(!dir.path().join("store.partial").exists());
}

#[test]
fn damaged_stores_are_refused_with_their_path() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = write_file(dir.path(), "corpus.tsv", corpus_text(20, 0).as_bytes());
    let out = dir.path().join("store");
    build(&[corpus], &out).unwrap();
    let bytes = std::fs::read(&out).unwrap();
    let cases: [(&str, Vec<u8>, &str); 4] = [
        (
            "other",
            b"not a store at all, but long enough".to_vec(),
            "expected a reusesim feature store",
        ),
        (
            "short",
            bytes[..bytes.len() - 5].to_vec(),
            "expected a header inside the file",
        ),
        (
            "version",
            [&bytes[..8], &7_u32.to_le_bytes(), &bytes[12..]].concat(),
            "expected feature store format 1, found 7",
        ),
        ("empty", Vec::new(), "expected a reusesim feature store"),
    ];
    for (name, damaged, expected) in cases {
        let path = write_file(dir.path(), name, &damaged);
        let error = FeatureStore::open(&path).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!("{}: {expected}", path.display())),
            "{name}: {error}"
        );
    }
    let missing = dir.path().join("missing");
    assert!(FeatureStore::open(&missing)
        .unwrap_err()
        .to_string()
        .starts_with(&missing.display().to_string()));
}

#[test]
fn a_store_of_another_corpus_is_named_with_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = write_file(dir.path(), "corpus.tsv", corpus_text(20, 0).as_bytes());
    let other = write_file(dir.path(), "other.tsv", corpus_text(25, 0).as_bytes());
    let out = dir.path().join("store");
    build(std::slice::from_ref(&corpus), &out).unwrap();
    let store = FeatureStore::open(&out).unwrap();
    store
        .check_corpus(&corpus, &CorpusLayout::default())
        .unwrap();
    let error = store
        .check_corpus(&other, &CorpusLayout::default())
        .unwrap_err()
        .to_string();
    let corpus_bytes = std::fs::metadata(&corpus).unwrap().len();
    let other_bytes = std::fs::metadata(&other).unwrap().len();
    assert_eq!(
        error,
        format!(
            "feature store {store} does not match corpus {other}: the store was built from \
             corpus ({corpus_bytes} bytes), the corpus has corpus ({other_bytes} bytes); rebuild \
             it with `reusesim index --corpus {other} --out {store}`",
            store = out.display(),
            other = other.display()
        )
    );
    let jsonl = CorpusLayout {
        format: crate::io::corpus::CorpusFormat::Jsonl,
        ..CorpusLayout::default()
    };
    let error = store.check_corpus(&corpus, &jsonl).unwrap_err().to_string();
    assert!(error.contains("the store read its corpus as"), "{error}");
}

/// A small valid store's bytes, built once.
fn valid_store() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let corpus = write_file(dir.path(), "corpus.tsv", corpus_text(30, 0).as_bytes());
        let out = dir.path().join("store");
        build(&[corpus], &out).unwrap();
        std::fs::read(&out).unwrap()
    })
}

/// Opens the store in `bytes` and reads everything in it; any error must name the file.
fn read_everything(bytes: &[u8]) -> std::result::Result<(), proptest::test_runner::TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "fuzzed.store", bytes);
    let named = |error: Error| error.to_string().starts_with(&path.display().to_string());
    match FeatureStore::open(&path) {
        Err(error) => proptest::prop_assert!(named(error)),
        Ok(store) => {
            let mut vector = Vec::new();
            for position in 0..store.document_count() as u32 + 2 {
                if let Ok(name) = store.name(position) {
                    let _ = store.position(name);
                }
                if let Err(error) = store.vector_into(position, &mut vector) {
                    proptest::prop_assert!(error.to_string().contains("is damaged"));
                }
            }
            for feature in 0..store.feature_count() as u32 + 2 {
                let _ = (store.term(feature), store.document_frequency(feature));
            }
            let _ = store.topic_vector("1", "cat running ponies");
            let _ = store.position("doc7");
        }
    }
    Ok(())
}

proptest::proptest! {
    #![proptest_config(crate::base::fuzz::property_config(512))]
    /// A damaged store never makes a reader panic or read outside the file.
    #[test]
    fn fuzz_store_mutated(
        edits in proptest::collection::vec(
            (proptest::prelude::any::<proptest::sample::Index>(), proptest::prelude::any::<u8>(), 0..3u8),
            1..4,
        ),
        flip in proptest::prelude::any::<bool>(),
    ) {
        let mut bytes = valid_store().to_vec();
        crate::base::fuzz::mutate(&mut bytes, edits, flip);
        read_everything(&bytes)?;
    }
}

/// A build reads back the scratch files it spilled: a file cut short is a failure to read it,
/// named as such with its path, not a failure to write.
#[test]
fn a_scratch_file_cut_short_is_an_error_reading_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "name_ends", &[1, 0, 0, 0, 0, 0, 0, 0, 2, 0]);
    let mut file = std::fs::File::open(&path).unwrap();
    let error = files::read_values(&mut file, 2, 8, &path).unwrap_err();
    assert!(matches!(error, Error::Read { .. }), "{error:?}");
    assert_eq!(error.to_string(), format!("reading {}", path.display()));
    let mut scratch = files::Scratch::create(dir.path().join("offsets")).unwrap();
    scratch.write(&7_u64.to_le_bytes()).unwrap();
    let reader = scratch.into_reader().unwrap();
    assert_eq!(reader.u64_at(0).unwrap(), 7);
    let error = reader.u64_at(1).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("reading {}", dir.path().join("offsets").display())
    );
}
