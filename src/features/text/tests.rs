//! Tests of the text features: the tokenizer, hand-weighted corpora, the kept documents, errors,
//! plain against gzip corpora, batched against one-by-one passes, and the vectors' invariants.

use std::path::PathBuf;

use approx::assert_abs_diff_eq;
use proptest::prelude::*;

use super::pass::BATCH_DOCUMENTS;
use super::*;
use crate::base::error::Error;
use crate::io::corpus::CorpusLayout;

fn write_file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    crate::io::gz::test_files::write_file(dir.path(), name, bytes)
}

fn build(documents: &[(&str, &str)], keep: impl FnMut(&str) -> bool) -> TextFeatures {
    let mut builder = TextFeatureBuilder::new(keep);
    for (name, text) in documents {
        builder.add_document(name, text).unwrap();
    }
    builder.finish().unwrap()
}

fn keep_all(_: &str) -> bool {
    true
}

fn norm(vector: &[(u32, f32)]) -> f64 {
    vector
        .iter()
        .map(|&(_, weight)| f64::from(weight).powi(2))
        .sum::<f64>()
        .sqrt()
}

fn assert_sorted_unique(vector: &[(u32, f32)]) {
    assert!(
        vector.windows(2).all(|pair| pair[0].0 < pair[1].0),
        "{vector:?}"
    );
}

/// Every kept document's name and vector, the weights as bits.
fn vector_bits(features: &TextFeatures) -> Vec<(String, Vec<(u32, u32)>)> {
    (features.documents())
        .map(|(name, vector)| {
            let vector = vector.iter().map(|&(f, w)| (f, w.to_bits())).collect();
            (name.to_string(), vector)
        })
        .collect()
}

/// A deterministic corpus with a Zipf-like vocabulary: `documents` lines of
/// `words_per_document` words, from a xorshift generator seeded with `seed`.
fn synthetic_corpus(documents: usize, words_per_document: usize, seed: u64) -> String {
    const SYLLABLES: [&str; 16] = [
        "ka", "lo", "mi", "ne", "tar", "pu", "ser", "vi", "dro", "gen", "al", "ist", "ion", "ing",
        "ed", "ous",
    ];
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let vocabulary: Vec<String> = (0..20_000)
        .map(|_| {
            let syllable_count = 1 + next() % 4;
            (0..syllable_count)
                .map(|_| SYLLABLES[(next() % 16) as usize])
                .collect()
        })
        .collect();
    let mut corpus = String::new();
    for document in 0..documents {
        corpus.push_str(&format!("doc{document}\t"));
        for word in 0..words_per_document {
            // Log-uniform rank: frequent words at low ranks.
            let unit = (next() % 1_000_000) as f64 / 1_000_000.0;
            let rank = (vocabulary.len() as f64).powf(unit) as usize - 1;
            if word > 0 {
                corpus.push(' ');
            }
            corpus.push_str(&vocabulary[rank.min(vocabulary.len() - 1)]);
        }
        corpus.push('\n');
    }
    corpus
}

#[test]
fn tokens_are_ascii_alphabetic_runs_of_two_or_more() {
    assert_eq!(stemmed_terms("COVID-19 covid19 a I x1 B2B"), ["covid"]);
    assert_eq!(
        stemmed_terms("cats,dogs;birds/fish (owls)"),
        ["cat", "dog", "bird", "fish", "owl"]
    );
    // Non-ASCII bytes split tokens, as C's isalnum does in the C locale.
    assert_eq!(stemmed_terms("café naïve"), ["caf", "na", "ve"]);
    assert_eq!(
        stemmed_terms("Running RUNS runner"),
        ["run", "run", "runner"]
    );
    // A three-letter token whose stem is one letter is dropped.
    assert_eq!(stemmed_terms("ies ties"), ["ti"]);
    assert!(stemmed_terms("").is_empty());
    assert!(stemmed_terms("12 345 -- !!").is_empty());
}

#[test]
fn weights_a_three_document_corpus_by_hand() {
    let features = build(
        &[
            ("d1", "cat dog cat fish"),
            ("d2", "cat dog bird"),
            ("d3", "bird owl"),
        ],
        keep_all,
    );
    assert_eq!(features.document_count(), 3);
    // fish and owl have df 1; the rest are numbered in byte order.
    assert_eq!(features.feature_count(), 3);
    let [bird, cat, dog] = ["bird", "cat", "dog"].map(|stem| features.feature_index(stem));
    assert_eq!((bird, cat, dog), (Some(0), Some(1), Some(2)));
    assert_eq!(features.feature_index("fish"), None);
    assert_eq!(features.term(1), Some("cat"));
    assert_eq!(features.term(3), None);
    assert_eq!(features.document_frequency(2), Some(2));

    // d1: cat tf 2, dog tf 1, both idf ln(3/2): weights (1 + ln 2) idf and idf.
    let tf_two = 1.0 + 2f64.ln();
    let length = (tf_two * tf_two + 1.0).sqrt();
    let d1 = features.vector("d1").unwrap();
    assert_eq!(d1.len(), 2);
    assert_eq!((d1[0].0, d1[1].0), (1, 2));
    assert_abs_diff_eq!(f64::from(d1[0].1), tf_two / length, epsilon = 1e-6);
    assert_abs_diff_eq!(f64::from(d1[1].1), 1.0 / length, epsilon = 1e-6);
    assert_abs_diff_eq!(f64::from(d1[0].1), 0.861_037, epsilon = 1e-6);

    // d3: only bird is a feature.
    assert_eq!(features.vector("d3").unwrap(), [(0, 1.0)]);
}

#[test]
fn terms_in_one_document_or_in_every_document_carry_no_weight() {
    let features = build(
        &[
            ("d1", "common rare"),
            ("d2", "common shared"),
            ("d3", "common shared"),
        ],
        keep_all,
    );
    assert_eq!(features.feature_index("rare"), None);
    // "common" is in every document: a feature, but with idf 0 its weight is dropped.
    assert_eq!(features.feature_index("common"), Some(0));
    assert_eq!(features.vector("d1").unwrap(), []);
    assert_eq!(features.vector("d2").unwrap(), [(1, 1.0)]);
}

#[test]
fn only_kept_documents_have_vectors() {
    let features = build(
        &[("d1", "cat dog"), ("d2", "cat dog"), ("d3", "dog owl")],
        |name| name != "d2",
    );
    assert_eq!(features.document_count(), 3);
    assert_eq!(features.documents().count(), 2);
    assert!(features.vector("d2").is_none());
    assert!(features.vector("d9").is_none());
    // d2 still counts towards df: cat has df 2 and is a feature.
    assert!(features.feature_index("cat").is_some());
    let names: Vec<&str> = features.documents().map(|(name, _)| name).collect();
    assert_eq!(names, ["d1", "d3"]);
}

#[test]
fn a_duplicate_document_id_is_an_error() {
    let mut builder = TextFeatureBuilder::new(keep_all);
    builder.add_document("d1", "text").unwrap();
    let error = builder.add_document("d1", "again").unwrap_err();
    assert!(error.to_string().contains("\"d1\""), "{error}");
    builder.add_document("d2", "text").unwrap();
    assert_eq!(builder.finish().unwrap().document_count(), 2);

    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "corpus.tsv", b"d1\tcat\nd2\tcat\nd1\tdog\n");
    let error = TextFeatures::from_corpus(&path, &CorpusLayout::default(), keep_all).unwrap_err();
    assert!(
        error.to_string().starts_with(&format!(
            "{}:3: expected each document id once",
            path.display()
        )),
        "{error}"
    );
}

#[test]
fn an_empty_corpus_is_an_error() {
    let builder = TextFeatureBuilder::new(keep_all);
    assert!(matches!(builder.finish(), Err(Error::Invalid(_))));
}

#[test]
fn plain_and_gzip_corpora_give_identical_features() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = synthetic_corpus(500, 30, 7);
    let plain = write_file(&dir, "corpus.tsv", corpus.as_bytes());
    let compressed_bytes = crate::io::gz::test_files::gzip(corpus.as_bytes());
    let compressed = write_file(&dir, "corpus.tsv.gz", &compressed_bytes);
    let keep = |name: &str| name.ends_with('7');
    let from_plain = TextFeatures::from_corpus(&plain, &CorpusLayout::default(), keep).unwrap();
    let from_gzip = TextFeatures::from_corpus(&compressed, &CorpusLayout::default(), keep).unwrap();
    assert_eq!(from_plain.document_count(), 500);
    assert_eq!(from_plain.documents().count(), 50);
    assert_eq!(from_plain.feature_count(), from_gzip.feature_count());
    assert!(from_plain.documents().eq(from_gzip.documents()));
}

/// A corpus read in parallel batches gives exactly the features of adding its
/// documents one by one: same vocabulary, frequencies and vectors, bit for bit.
#[test]
fn batched_corpus_equals_documents_added_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let documents = 2 * BATCH_DOCUMENTS + 123;
    let corpus = synthetic_corpus(documents, 25, 11);
    let path = write_file(&dir, "corpus.tsv", corpus.as_bytes());
    let keep = |name: &str| name.ends_with('3');
    let batched = TextFeatures::from_corpus(&path, &CorpusLayout::default(), keep).unwrap();
    let mut builder = TextFeatureBuilder::new(keep);
    for line in corpus.lines() {
        let (name, text) = line.split_once('\t').unwrap();
        builder.add_document(name, text).unwrap();
    }
    let one_by_one = builder.finish().unwrap();
    assert_eq!(batched.document_count(), documents);
    assert_eq!(batched.terms, one_by_one.terms);
    assert_eq!(
        batched.document_frequencies,
        one_by_one.document_frequencies
    );
    assert_eq!(vector_bits(&batched), vector_bits(&one_by_one));
}

/// A folder corpus read through the reader thread, its files several batches long and
/// holding long and upper-case tokens, gives exactly the features of adding its documents one
/// by one, and the document frequencies of the stems [`stemmed_terms`] makes, which uses no
/// cache.
#[test]
fn a_folder_of_several_batches_equals_documents_added_one_by_one_and_uncached_stems() {
    let dir = tempfile::tempdir().unwrap();
    let long_words = [
        "Internationalisation",
        "COUNTERREVOLUTIONARIES",
        "abcdefghijkl",
        "Mimi",
    ];
    let lines: Vec<String> = (synthetic_corpus(3 * BATCH_DOCUMENTS + 57, 20, 5).lines())
        .enumerate()
        .map(|(index, line)| format!("{line} {}", long_words[index % long_words.len()]))
        .collect();
    let (first, second) = lines.split_at(BATCH_DOCUMENTS + 1000);
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    let gzip = crate::io::gz::test_files::gzip(second.join("\n").as_bytes());
    crate::io::gz::test_files::write_file(&corpus, "a.tsv", first.join("\n").as_bytes());
    crate::io::gz::test_files::write_file(&corpus, "b.tsv.gz", &gzip);
    let keep = |name: &str| name.ends_with('1');
    let read = TextFeatures::from_corpus(&corpus, &CorpusLayout::default(), keep).unwrap();
    let mut builder = TextFeatureBuilder::new(keep);
    let mut document_frequencies = std::collections::BTreeMap::<String, u32>::new();
    for line in &lines {
        let (name, text) = line.split_once('\t').unwrap();
        builder.add_document(name, text).unwrap();
        let stems: std::collections::BTreeSet<String> = stemmed_terms(text).into_iter().collect();
        for stem in stems {
            *document_frequencies.entry(stem).or_default() += 1;
        }
    }
    document_frequencies.retain(|_, &mut df| df >= MIN_DOCUMENT_FREQUENCY);
    let one_by_one = builder.finish().unwrap();
    assert_eq!(read.document_count(), lines.len());
    let vocabulary: Vec<(String, u32)> = (read.terms.iter().map(|term| term.to_string()))
        .zip(read.document_frequencies.iter().copied())
        .collect();
    assert_eq!(
        vocabulary,
        document_frequencies.into_iter().collect::<Vec<_>>()
    );
    assert!(vocabulary
        .iter()
        .any(|(term, _)| term == "counterrevolutionari"));
    assert_eq!(read.terms, one_by_one.terms);
    assert_eq!(vector_bits(&read), vector_bits(&one_by_one));
}

/// An error of adding an early batch is reported, and stops the reader thread waiting to hand
/// over the later ones.
#[test]
fn an_error_in_an_early_batch_stops_the_reading() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = format!(
        "doc1\tcats\n{}",
        synthetic_corpus(4 * BATCH_DOCUMENTS, 5, 3)
    );
    let path = write_file(&dir, "corpus.tsv", corpus.as_bytes());
    let error = TextFeatures::from_corpus(&path, &CorpusLayout::default(), keep_all)
        .unwrap_err()
        .to_string();
    let expected = format!("{}:3: expected each document id once", path.display());
    assert!(error.starts_with(&expected), "{error}");
}

/// The first error in the file is the one reported, whether it is found while reading (a
/// line without a tab) or while adding (a duplicate id) a batch read before it.
#[test]
fn the_first_error_in_the_file_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(
        &dir,
        "corpus.tsv",
        b"d1\tcats sleep\nd1\tdogs bark\nno tab here\n",
    );
    let error = TextFeatures::from_corpus(&path, &CorpusLayout::default(), keep_all)
        .unwrap_err()
        .to_string();
    let expected = format!("{}:2: expected each document id once", path.display());
    assert!(error.starts_with(&expected), "{error}");
    let path = write_file(
        &dir,
        "other.tsv",
        b"d1\tcats sleep\nno tab here\nd1\tdogs\n",
    );
    let error = TextFeatures::from_corpus(&path, &CorpusLayout::default(), keep_all)
        .unwrap_err()
        .to_string();
    let expected = format!("{}:2: expected doc_id<TAB>text", path.display());
    assert!(error.starts_with(&expected), "{error}");
}

#[test]
fn document_vectors_have_unit_norm_and_sorted_unique_indices() {
    let features = build(
        &[
            ("d1", "the quick brown fox jumps over the lazy dog"),
            ("d2", "the lazy dog sleeps; the quick fox runs"),
            ("d3", "a brown dog and a brown fox"),
            ("d4", "nothing in common here"),
        ],
        keep_all,
    );
    for (name, vector) in features.documents() {
        assert_sorted_unique(vector);
        if name == "d4" {
            assert!(vector.is_empty());
        } else {
            assert_abs_diff_eq!(norm(vector), 1.0, epsilon = 1e-6);
        }
    }
}

#[test]
fn ms_marco_lines_use_title_and_body_not_url() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(
        &dir,
        "msmarco-docs.tsv",
        b"D1\thttp://zebra.example/\tCats\tcats purr\n\
          D2\thttp://zebra.example/\tDogs\tdogs bark\n\
          D3\thttp://other.example/\tCats and dogs\tpets\n",
    );
    let features = TextFeatures::from_corpus(&path, &CorpusLayout::default(), keep_all).unwrap();
    assert_eq!(features.feature_index("zebra"), None);
    assert_eq!(features.feature_index("http"), None);
    assert!(features.feature_index("cat").is_some());
    assert!(features.feature_index("dog").is_some());
    assert_eq!(features.vector("D1").unwrap().len(), 1);
}

#[test]
fn corpus_errors_name_path_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "corpus.tsv", b"d1\tcat\nd2 cat\n");
    let error = TextFeatures::from_corpus(&path, &CorpusLayout::default(), keep_all).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with(&format!("{}:2: expected doc_id<TAB>text", path.display())),
        "{error}"
    );
    let path = write_file(&dir, "binary.tsv", b"d1\tcat\nd2\t\xff\xfe\n");
    let error = TextFeatures::from_corpus(&path, &CorpusLayout::default(), keep_all).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with(&format!("{}:2: ", path.display())),
        "{error}"
    );
    let missing = dir.path().join("missing.tsv");
    let error =
        TextFeatures::from_corpus(&missing, &CorpusLayout::default(), keep_all).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with(&missing.display().to_string()),
        "{error}"
    );
}

#[test]
fn a_short_topic_vector_keeps_its_length_below_one() {
    let features = build(
        &[
            ("d1", "cat dog cat fish"),
            ("d2", "cat dog bird"),
            ("d3", "bird owl"),
        ],
        keep_all,
    );
    // cats: tf 1, dogs: tf 2, both idf ln(3/2); "and", "more" are not features.
    let vector = features
        .topic_vector("t1", "Cats and dogs, and more dogs")
        .unwrap();
    let idf = 1.5f64.ln();
    assert_eq!((vector[0].0, vector[1].0), (1, 2));
    assert_abs_diff_eq!(f64::from(vector[0].1), idf, epsilon = 1e-6);
    assert_abs_diff_eq!(
        f64::from(vector[1].1),
        (1.0 + 2f64.ln()) * idf,
        epsilon = 1e-6
    );
    assert!(norm(&vector) < 1.0);
}

#[test]
fn a_long_topic_vector_is_normalised_to_one() {
    let features = build(
        &[
            ("d1", "cat dog"),
            ("d2", "cat bird"),
            ("d3", "owl"),
            ("d4", "owl"),
        ],
        keep_all,
    );
    let text = "cat ".repeat(50) + &"dog ".repeat(30);
    let vector = features.topic_vector("t2", &text).unwrap();
    assert_sorted_unique(&vector);
    assert_abs_diff_eq!(norm(&vector), 1.0, epsilon = 1e-6);
}

#[test]
fn a_topic_without_vocabulary_terms_is_an_error() {
    let features = build(&[("d1", "cat dog"), ("d2", "cat dog")], keep_all);
    for text in ["", "zebra 42", "cat dog"] {
        let error = features.topic_vector("401", text).unwrap_err();
        assert!(matches!(&error, Error::Invalid(_)));
        assert!(
            error
                .to_string()
                .starts_with("topic 401 has no text usable as a seed"),
            "{error}"
        );
    }
}

#[test]
fn the_builder_is_send_and_the_features_are_send_and_sync() {
    fn is_send<T: Send>() {}
    fn is_sync<T: Sync>() {}
    is_send::<TextFeatures>();
    is_sync::<TextFeatures>();
    is_send::<TextFeatureBuilder<fn(&str) -> bool>>();
}

proptest! {
    #![proptest_config(crate::base::fuzz::property_config(256))]
    #[test]
    fn vectors_are_sorted_unique_finite_and_unit_or_empty(
        texts in proptest::collection::vec("[a-zA-Z0-9 ,.\u{e9}-]{0,60}", 1..12)
    ) {
        let documents: Vec<(String, String)> = texts
            .iter()
            .enumerate()
            .map(|(pos, text)| (format!("d{pos}"), text.clone()))
            .collect();
        let mut builder = TextFeatureBuilder::new(keep_all);
        for (name, text) in &documents {
            builder.add_document(name, text).unwrap();
        }
        let features = builder.finish().unwrap();
        prop_assert_eq!(features.documents().count(), documents.len());
        for (_, vector) in features.documents() {
            prop_assert!(vector.windows(2).all(|pair| pair[0].0 < pair[1].0));
            let feature_count = features.feature_count();
            let is_valid = |&(feature, weight): &(u32, f32)| {
                weight.is_finite() && weight > 0.0 && (feature as usize) < feature_count
            };
            prop_assert!(vector.iter().all(is_valid));
            prop_assert!(vector.is_empty() || (norm(vector) - 1.0).abs() < 1e-5);
        }
    }
}
