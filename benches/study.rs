//! The leave-team-out study at TREC DL 2019 document-task size: the `dl19` synthetic preset
//! (43 topics, 11 teams, 38 runs, 200,000 documents of about 200 distinct terms, budgets
//! 150-600), seed 2019, judged with HiCAL's settings (text features, 200,000 Pegasos
//! iterations, BMI batches), 2 seeds. One timed run (a study takes minutes, so criterion's
//! repeated sampling does not fit): it prints the wall time, retrains per second, peak memory
//! (VmHWM) and the extrapolation to 10 seeds. Set `REUSESIM_BENCH_SEEDS` to change the seeds.
//! The collection is generated once into `target/bench-synth-dl19/` and reused.

use std::path::{Path, PathBuf};
use std::time::Instant;

use reusesim::eval::parse_measures;
use reusesim::io::task::Task;
use reusesim::judge::cal::{JudgeSettings, LearnerChoice, RANDOM_NEGATIVES};
use reusesim::judge::collection::{CandidateSource, Collection};
use reusesim::judge::pegasos::{Precision, DEFAULT_ITERATIONS};
use reusesim::judge::schedule::Schedule;
use reusesim::sim::study::{held_out_teams, run_study, StudySettings};
use reusesim::synth::{build_task, write::TaskLayout, Preset};

fn judge_settings(seed: u64, candidates: CandidateSource) -> JudgeSettings {
    JudgeSettings {
        seed,
        learner: LearnerChoice::Pegasos,
        iterations: DEFAULT_ITERATIONS,
        precision: Precision::default(),
        schedule: Schedule::Bmi,
        candidates,
        pool_depth: 10,
        random_negatives: RANDOM_NEGATIVES,
    }
}

fn collection_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-synth-dl19");
    if !dir.join("task.toml").exists() || !dir.join("qrels.txt").exists() {
        let started = Instant::now();
        build_task(
            Preset::Dl19,
            2019,
            &dir,
            &TaskLayout::standalone("synth-dl19"),
            &judge_settings(2019, CandidateSource::Corpus),
        )
        .expect("the dl19 collection builds");
        eprintln!(
            "generated the dl19 collection in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    dir
}

fn peak_memory_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        println!("study_dl19_2_seeds: benchmark");
        return;
    }
    let seeds: u64 = std::env::var("REUSESIM_BENCH_SEEDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(2);
    let dir = collection_dir();
    let started = Instant::now();
    let task = Task::open(&dir.join("task.toml")).expect("the dl19 task loads");
    let collection = Collection::prepare(&task, &task.qrels, true).expect("features build");
    let prepared = started.elapsed().as_secs_f64();
    let settings = StudySettings {
        seeds,
        measures: parse_measures(&["map,P_10,ndcg_cut_10"]).unwrap(),
        teams: None,
        judge: judge_settings(0, CandidateSource::Retrieved),
        budget: None,
        keep_qrels: false,
    };
    let teams = held_out_teams(&task, None).unwrap();
    let outcome = run_study(&task, collection, &settings, teams, &|_, _| {}).expect("study runs");
    let total = started.elapsed().as_secs_f64();
    let judging = total - prepared;
    println!("study_dl19_{seeds}_seeds: {total:.1} s wall ({prepared:.1} s reading the corpus and building features)");
    println!(
        "  {} trials, {} units, {} distinct, {} retrains: {:.0} retrains/s",
        outcome.trials.len(),
        outcome.units,
        outcome.distinct_units,
        outcome.retrains,
        outcome.retrains as f64 / judging
    );
    if let Some(peak) = peak_memory_mib() {
        println!("  peak memory {peak:.0} MiB");
    }
    println!(
        "  extrapolated to 10 seeds: {:.1} min",
        (prepared + judging * 10.0 / seeds as f64) / 60.0
    );
}
