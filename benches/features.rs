//! Featurising a text corpus: reading the `dl19`
//! synthetic preset's gzip corpus (seed 2019; 200,000 documents, about 280 MB of text), HiCAL's
//! tokeniser and Porter stemmer, document frequencies, and the tf-idf vector of every document.
//! Throughput is in bytes of uncompressed corpus text per second.
//!
//! The corpus is generated once into `target/bench-corpus-dl19/` (the task without its qrels:
//! no judging) and reused.
use std::io::Read;
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
    let mut group = criterion.benchmark_group("features");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(uncompressed_bytes(&corpus)));
    group.bench_function("dl19_corpus", |bencher| {
        bencher.iter(|| {
            TextFeatures::from_corpus(&corpus, &CorpusLayout::default(), |_| true)
                .expect("features build")
        })
    });
    group.finish();
}

criterion_group!(benches, featurise);
criterion_main!(benches);
