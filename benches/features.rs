//! Featurising a text corpus: reading the `dl19`
//! synthetic preset's gzip corpus (seed 2019; 200,000 documents, about 280 MB of text), HiCAL's
//! tokeniser and Porter stemmer, document frequencies, and the tf-idf vector of every document.
//! Throughput is in bytes of uncompressed corpus text per second.
//!
//! The same corpus is also read as gzip JSONL (`{"docid": ..., "text": ...}` per line, as
//! MS MARCO v2 and ir_datasets exports lay it out); its throughput counts the TSV's bytes, so
//! the two rates compare documents per second.
//!
//! The corpus is generated once into `target/bench-corpus-dl19/` (the task without its qrels:
//! no judging) and reused.
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use reusesim::features::text::TextFeatures;
use reusesim::io::corpus::CorpusLayout;
use reusesim::synth::{generate, write::write_task, write::TaskLayout, Preset};

fn corpus_path() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-corpus-dl19");
    let corpus = dir.join("corpus.tsv.gz");
    if !corpus.exists() {
        let world = generate(Preset::Dl19, 2019).expect("the dl19 world generates");
        write_task(&world, &dir, &TaskLayout::standalone("synth-dl19"), None)
            .expect("the dl19 corpus writes");
    }
    corpus
}

/// The corpus at `tsv` written as gzip JSONL beside it, once.
fn jsonl_copy(tsv: &Path) -> PathBuf {
    let jsonl = tsv.with_file_name("corpus.jsonl.gz");
    if jsonl.exists() {
        return jsonl;
    }
    let reader = flate2::read::GzDecoder::new(std::fs::File::open(tsv).expect("the corpus opens"));
    let partial = jsonl.with_extension("partial");
    let file = std::fs::File::create(&partial).expect("the JSONL copy is created");
    let mut writer =
        flate2::write::GzEncoder::new(std::io::BufWriter::new(file), flate2::Compression::fast());
    for line in std::io::BufReader::new(reader).lines() {
        let line = line.expect("the corpus reads");
        let (docid, text) = line.split_once('\t').expect("doc_id<TAB>text");
        let document = serde_json::json!({ "docid": docid, "text": text });
        writeln!(writer, "{document}").expect("the JSONL copy writes");
    }
    writer.finish().expect("the JSONL copy is finished");
    std::fs::rename(&partial, &jsonl).expect("the JSONL copy is renamed");
    jsonl
}

fn uncompressed_bytes(path: &Path) -> u64 {
    let file = std::fs::File::open(path).expect("the corpus opens");
    let mut decoder = flate2::read::GzDecoder::new(std::io::BufReader::new(file));
    let mut buffer = vec![0_u8; 1 << 20];
    let mut total = 0;
    loop {
        match decoder.read(&mut buffer).expect("the corpus decompresses") {
            0 => return total,
            read => total += read as u64,
        }
    }
}

fn featurise(criterion: &mut Criterion) {
    let corpus = corpus_path();
    let jsonl = jsonl_copy(&corpus);
    let mut group = criterion.benchmark_group("features");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(uncompressed_bytes(&corpus)));
    for (name, path) in [("dl19_corpus", &corpus), ("dl19_corpus_jsonl", &jsonl)] {
        group.bench_function(name, |bencher| {
            bencher.iter(|| {
                TextFeatures::from_corpus(path, &CorpusLayout::default(), |_| true)
                    .expect("features build")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, featurise);
criterion_main!(benches);
