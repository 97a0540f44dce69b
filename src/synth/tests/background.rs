//! The corpus beyond the world's documents: background documents after the world's, and how
//! often a line holds a topic's query words.

use super::*;

/// The mean number of words per line of corpus `lines` (an id and its tab join the first word).
fn mean_words(lines: &str) -> f64 {
    let counts: Vec<f64> = lines
        .lines()
        .map(|line| line.split(' ').count() as f64)
        .collect();
    mean(&counts)
}

#[test]
fn an_extended_corpus_is_the_worlds_then_background_documents() {
    let world = default_world();
    let own = world.document_count();
    let extra = 500;
    let corpus = SynthCorpus::generate(Preset::Default, EMBEDDED_SEED, own + extra).unwrap();
    assert_eq!(corpus.document_count(), own + extra);
    assert_eq!(corpus.corpus_lines(0..own), world.corpus_lines(0..own));
    let range = &world.params.distinct_terms_per_document;
    let extra_lines = corpus.corpus_lines(own..own + extra + 1);
    assert_eq!(
        extra_lines.lines().count(),
        extra,
        "lines stop at the corpus end"
    );
    for (offset, line) in extra_lines.lines().enumerate() {
        let (id, text) = line.split_once('\t').unwrap();
        assert_eq!(id, format!("p{:07}", own + offset));
        let mut terms = stemmed_terms(text);
        terms.sort_unstable();
        terms.dedup();
        assert!(range.contains(&terms.len()), "{id}: {} terms", terms.len());
    }
    let background_lines: String = (0..own)
        .filter(|&pos| matches!(world.corpus.roles[pos], DocumentRole::Background))
        .take(extra)
        .map(|pos| world.corpus_lines(pos..pos + 1))
        .collect();
    let (extended, background) = (mean_words(&extra_lines), mean_words(&background_lines));
    assert!(
        (extended / background - 1.0).abs() < 0.03,
        "mean words: {extended:.1} extended, {background:.1} background"
    );
    let topical_lines: String = (0..own)
        .filter(|&pos| matches!(world.corpus.roles[pos], DocumentRole::Topical { .. }))
        .take(extra)
        .map(|pos| world.corpus_lines(pos..pos + 1))
        .collect();
    let on_topic =
        [&extra_lines, &background_lines, &topical_lines].map(|lines| on_topic_count(world, lines));
    assert!(
        on_topic[0] <= extra / 100 && on_topic[2] > extra / 2,
        "of {extra} documents each, on topic: {on_topic:?} (extended, background, topical)"
    );
}

/// How many of corpus `lines` hold two query words of one topic, as documents written for a
/// topic mostly do and background documents rarely do.
fn on_topic_count(world: &SynthWorld, lines: &str) -> usize {
    lines
        .lines()
        .filter(|line| {
            let words: FxHashSet<&str> = line.split(['\t', ' ']).collect();
            world.topics.iter().any(|topic| {
                topic
                    .text
                    .split(' ')
                    .filter(|word| words.contains(word))
                    .count()
                    >= 2
            })
        })
        .count()
}

#[test]
fn an_extended_corpus_holds_the_presets_documents_and_seven_digit_ids() {
    for count in [19_999, MAX_DOCUMENTS + 1] {
        let error = SynthCorpus::generate(Preset::Default, 1, count)
            .unwrap_err()
            .to_string();
        let expected = "expected at least the default preset's 20000 documents and at most \
                        10000000";
        assert!(
            error.starts_with(expected) && error.ends_with(&format!("found {count}")),
            "{error}"
        );
    }
    let largest = SynthCorpus::generate(Preset::Default, 1, MAX_DOCUMENTS).unwrap();
    let last = largest.corpus_lines(MAX_DOCUMENTS - 1..MAX_DOCUMENTS);
    assert!(last.starts_with("p9999999\t"), "{last}");
}

#[test]
fn an_extended_corpus_file_does_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = SynthCorpus::generate(Preset::Default, 3, 40_000).unwrap();
    let single = dir.path().join("single.tsv.gz");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    pool.install(|| write_corpus_file(&single, &corpus, &|_, _, _| {}))
        .unwrap();
    let parallel = dir.path().join("parallel.tsv.gz");
    let reported = std::sync::Mutex::new(Vec::new());
    write_corpus_file(&parallel, &corpus, &|_, written, _| {
        reported.lock().unwrap().push(written)
    })
    .unwrap();
    assert!(std::fs::read(&single).unwrap() == std::fs::read(&parallel).unwrap());
    assert_eq!(reported.into_inner().unwrap(), [16_384, 32_768, 40_000]);
}
