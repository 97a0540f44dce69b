//! The feature store at scale: building it, opening it, and scoring the whole corpus with it.
//! One timed run per measurement (a build takes minutes, so criterion's repeated sampling does
//! not fit); each prints its figures and the reference it is compared with, measured in the
//! same run on the same machine.
//!
//! - **Build** (`reusesim index`, a child process): wall time, MB/s of uncompressed corpus
//!   text, store size and the child's peak resident memory, on the `dl19` corpus (200,000
//!   documents, about 280 MB) and on a large synthetic corpus (`REUSESIM_BENCH_DOCUMENTS`
//!   documents, default 2,300,000: over 3 GiB of text), written once by `reusesim synth
//!   --corpus-only` into `target/bench-corpus-large/` (its first 200,000 documents are the
//!   `dl19` corpus, the rest background documents). Reference: the in-memory corpus pass that
//!   `judge` makes over the same corpus.
//! - **Start-up**: preparing a study of the `dl19` task (reading the task, the features and
//!   the fingerprint's inputs, and planning the units: what precedes the first unit's judging)
//!   with the corpus and with the store, for the `dl19` corpus and for the large one; and, for
//!   each of the four, the wall time of one `simulate --shard 0/64` process up to its first
//!   judged unit.
//! - **Whole-corpus scoring**: one topic judged with `--candidates corpus` from each store, in
//!   core-ms per retrain, against the same topic with retrieved candidates.
//!
//! The `dl19` task is built once into `target/bench-synth-dl19/` (as the study benchmark's).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use reusesim::collection::{CandidateSource, Collection};
use reusesim::io::task::Task;
use reusesim::judge::assessor::OfficialAssessor;
use reusesim::judge::cal::judge_topic;
use reusesim::judge::settings::JudgeSettings;
use reusesim::sim::runner::Study;
use support::{dl19_task_dir, judge_settings, study_settings};

const BINARY: &str = env!("CARGO_BIN_EXE_reusesim");

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

/// The large corpus, written once.
fn large_corpus() -> PathBuf {
    let documents = std::env::var("REUSESIM_BENCH_DOCUMENTS").unwrap_or("2300000".into());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join(format!("bench-corpus-large-{documents}"));
    let corpus = dir.join("corpus.tsv.gz");
    if !corpus.exists() {
        let started = Instant::now();
        let status = Command::new(BINARY)
            .args([
                "synth",
                "--preset",
                "dl19",
                "--seed",
                "2019",
                "--corpus-only",
            ])
            .args(["--documents", &documents, "--out"])
            .arg(&dir)
            .status()
            .expect("reusesim synth runs");
        assert!(status.success(), "reusesim synth --corpus-only failed");
        eprintln!(
            "wrote the large corpus in {:.0} s",
            started.elapsed().as_secs_f64()
        );
    }
    corpus
}

/// The uncompressed bytes of a gzip file.
fn text_bytes(path: &Path) -> u64 {
    let file = std::fs::File::open(path).expect("the corpus opens");
    let mut decoder = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file));
    std::io::copy(&mut decoder, &mut std::io::sink()).expect("the corpus decompresses")
}

/// Runs `command` to its end and returns its wall time in seconds and its peak resident memory
/// in MiB: the child's high-water mark (VmHWM), read every 20 ms until it ends. (`wait4`'s
/// `ru_maxrss` would count the memory this process had when it forked the child.)
fn timed_child(command: &mut Command) -> (f64, f64) {
    let started = Instant::now();
    let mut child = command.spawn().expect("the child starts");
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0_u64;
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            break status;
        }
        let status = std::fs::read_to_string(&status_file).unwrap_or_default();
        let high_water = status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|value| value.split_whitespace().next()?.parse().ok());
        peak_kib = peak_kib.max(high_water.unwrap_or(0));
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success(), "the child failed");
    (started.elapsed().as_secs_f64(), peak_kib as f64 / 1024.0)
}

/// Builds the store of `corpus` (afresh) and prints the build's figures, with the in-memory
/// pass's rate over the same corpus as the reference.
fn bench_build(name: &str, corpus: &Path) -> PathBuf {
    let store = corpus.with_file_name("corpus.store");
    let _ = std::fs::remove_file(&store);
    let text = text_bytes(corpus);
    let (seconds, peak) = timed_child(
        Command::new(BINARY)
            .arg("index")
            .arg("--corpus")
            .arg(corpus)
            .arg("--out")
            .arg(&store),
    );
    let store_bytes = std::fs::metadata(&store).expect("the store exists").len();
    let started = Instant::now();
    let features = reusesim::features::text::TextFeatures::from_corpus(
        corpus,
        &reusesim::io::corpus::CorpusLayout::default(),
        |_| false,
    )
    .expect("the corpus reads");
    let in_memory = started.elapsed().as_secs_f64();
    let rate = |seconds: f64| text as f64 / 1e6 / seconds;
    println!(
        "index_{name}: {} documents, {:.0} MB of text: {seconds:.1} s, {:.1} MB/s, store {:.0} \
         MiB, peak memory {peak:.0} MiB; in-memory pass (reference) {in_memory:.1} s, {:.1} \
         MB/s: ratio {:.2}",
        features.document_count(),
        text as f64 / 1e6,
        rate(seconds),
        mib(store_bytes),
        rate(in_memory),
        rate(seconds) / rate(in_memory)
    );
    store
}

/// A copy of the `dl19` task's manifest reading `corpus`, with `feature_store` when given.
fn manifest(dir: &Path, file_name: &str, corpus: &Path, store: Option<&Path>) -> PathBuf {
    let original = std::fs::read_to_string(dir.join("task.toml")).expect("the task reads");
    let mut text: String = original
        .lines()
        .filter(|line| !line.starts_with("corpus"))
        .map(|line| format!("{line}\n"))
        .collect();
    text.push_str(&format!("corpus = {:?}\n", corpus.display().to_string()));
    if let Some(store) = store {
        text.push_str(&format!(
            "feature_store = {:?}\n",
            store.display().to_string()
        ));
    }
    let path = dir.join(file_name);
    std::fs::write(&path, text).expect("the manifest writes");
    path
}

/// Prints the time to prepare a study of the task at `manifest`, and returns it.
fn bench_prepare(label: &str, manifest: &Path) -> f64 {
    let started = Instant::now();
    let task = Task::open(manifest).expect("the task loads");
    let study =
        Study::prepare(&task, &study_settings(&task, 10), true).expect("the study prepares");
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "prepare_{label}: {seconds:.2} s to the first unit ({} units planned)",
        study.plan.units.len()
    );
    seconds
}

/// Prints the wall time of one `simulate --shard 0/64` up to its first judged unit.
fn bench_shard(label: &str, manifest: &Path) {
    let out = tempfile::tempdir().expect("a temporary folder");
    let mut command = Command::new(BINARY);
    command
        .args(["simulate", "--seeds", "10", "--shard", "0/64", "--task"])
        .arg(manifest)
        .arg("--out")
        .arg(out.path())
        .env(reusesim::sim::runner::STOP_AFTER_UNITS_VAR, "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let started = Instant::now();
    let status = command.status().expect("simulate runs");
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(status.code(), Some(3), "the shard stops after one unit");
    println!(
        "shard_{label}: {seconds:.2} s wall to its first judged unit (process start included)"
    );
}

/// Judges one topic with `candidates` and prints the core-ms per retrain.
fn bench_scoring(label: &str, manifest: &Path, candidates: CandidateSource) -> f64 {
    let task = Task::open(manifest).expect("the task loads");
    let collection = Collection::prepare(&task, &task.qrels, true).expect("the features read");
    let settings = JudgeSettings {
        seed: 1,
        iterations: 20_000,
        pool_depth: task.pool_depth,
        ..judge_settings(1, candidates)
    };
    let excluded = vec![false; task.runs.len()];
    let budget = collection.topics[0].grades.len();
    let cpu = cpu_seconds();
    let started = Instant::now();
    let judging = judge_topic(
        &collection,
        0,
        &excluded,
        budget,
        &settings,
        &OfficialAssessor::new(&collection),
    )
    .expect("it judges");
    let wall = started.elapsed().as_secs_f64();
    let core_ms = (cpu_seconds() - cpu) * 1e3 / judging.retrains as f64;
    println!(
        "retrain_{label}: {} retrains, {:.1} ms wall and {core_ms:.1} core-ms per retrain",
        judging.retrains,
        wall * 1e3 / judging.retrains as f64
    );
    core_ms
}

/// The CPU time this process used so far, in seconds.
fn cpu_seconds() -> f64 {
    // SAFETY: an all-zero `rusage` is a valid value for getrusage to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` outlives the call.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let seconds = |time: libc::timeval| time.tv_sec as f64 + time.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name"))
        .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_string())
        .unwrap_or_else(|| "unknown CPU".into());
    let avx512 = cpuinfo.contains(" avx512f");
    format!(
        "{model}, {} cores, AVX-512 {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        if avx512 { "yes" } else { "no" }
    )
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        println!("store: benchmark");
        return;
    }
    println!("machine: {}", machine());
    let dl19 = dl19_task_dir();
    let large = large_corpus();
    let dl19_store = bench_build("dl19", &dl19.join("corpus.tsv.gz"));
    let large_store = bench_build("large", &large);

    let manifests = [
        (
            "dl19_corpus",
            manifest(&dl19, "corpus.toml", &dl19.join("corpus.tsv.gz"), None),
        ),
        (
            "dl19_store",
            manifest(
                &dl19,
                "store.toml",
                &dl19.join("corpus.tsv.gz"),
                Some(&dl19_store),
            ),
        ),
        (
            "large_corpus",
            manifest(&dl19, "large-corpus.toml", &large, None),
        ),
        (
            "large_store",
            manifest(&dl19, "large-store.toml", &large, Some(&large_store)),
        ),
    ];
    for (label, manifest) in &manifests {
        bench_prepare(label, manifest);
    }
    for (label, manifest) in &manifests {
        bench_shard(label, manifest);
    }
    let retrieved = bench_scoring(
        "dl19_retrieved",
        &manifests[1].1,
        CandidateSource::Retrieved,
    );
    for (label, manifest) in [&manifests[1], &manifests[3]] {
        let corpus = bench_scoring(label, manifest, CandidateSource::Corpus);
        println!(
            "  corpus candidates cost {:.1}x retrieved ones per retrain",
            corpus / retrieved
        );
    }
}
