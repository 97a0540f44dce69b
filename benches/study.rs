//! The leave-team-out study at TREC DL 2019 document-task size: the `dl19` synthetic preset
//! (43 topics, 11 teams, 38 runs, 200,000 documents of about 200 distinct terms, budgets
//! 150-600), seed 2019, judged with HiCAL's settings (text features, 200,000 Pegasos
//! iterations, BMI batches), 2 seeds. One timed run (a study takes minutes, so criterion's
//! repeated sampling does not fit): it prints the wall time, retrains per second, peak memory
//! (VmHWM) and the extrapolation to 10 seeds. Set `REUSESIM_BENCH_SEEDS` to change the seeds.
//! The collection is generated once into `target/bench-synth-dl19/` and reused.
//!
//! With `REUSESIM_BENCH_COLLECTION=trec-covid` it times TREC-COVID round 1 instead (143 runs, 56
//! teams, pool depth 7, run features, 1 seed unless `REUSESIM_BENCH_SEEDS` says otherwise), read
//! from `$REUSESIM_DATA` (the bench stops with a message when it is unset); the task manifest is
//! written into `target/bench-trec-covid/`.

use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "../tests/support/covid.rs"]
mod covid;
mod support;

use reusesim::collection::Collection;
use reusesim::io::task::Task;
use reusesim::sim::study::{held_out_teams, run_study};
use support::{dl19_task_dir, study_settings};

/// This process's peak resident memory (VmHWM), in MiB.
pub fn peak_memory_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// The collection to time: its name, task manifest, whether it has text features, and the
/// default number of seeds.
fn collection() -> (&'static str, PathBuf, bool, u64) {
    match std::env::var("REUSESIM_BENCH_COLLECTION").as_deref() {
        Ok("trec-covid") => {
            let data = PathBuf::from(
                std::env::var("REUSESIM_DATA").expect("trec-covid needs REUSESIM_DATA (a path)"),
            );
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-trec-covid");
            std::fs::create_dir_all(&dir).expect("target/bench-trec-covid is writable");
            let manifest = covid::write_covid_task(
                &dir,
                &data.join("trec-covid/round1/runs"),
                &data.join("trec-covid/qrels/qrels.covid-round1.txt"),
                &data.join("trec-covid/round1/leaderboard.csv"),
            );
            ("trec_covid", manifest, false, 1)
        }
        Ok("dl19") | Err(_) => ("dl19", dl19_task_dir().join("task.toml"), true, 2),
        Ok(other) => panic!("REUSESIM_BENCH_COLLECTION is dl19 or trec-covid, not {other}"),
    }
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        println!("study: benchmark");
        return;
    }
    let (name, manifest, text_features, default_seeds) = collection();
    let seeds: u64 = std::env::var("REUSESIM_BENCH_SEEDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default_seeds);
    let started = Instant::now();
    let task = Task::open(&manifest).expect("the task loads");
    let collection =
        Collection::prepare(&task, &task.qrels, text_features).expect("features build");
    let prepared = started.elapsed().as_secs_f64();
    let settings = study_settings(&task, seeds);
    let teams = held_out_teams(&task, None).unwrap();
    let outcome = run_study(&task, &collection, &settings, teams, &|_, _| {}).expect("study runs");
    let total = started.elapsed().as_secs_f64();
    let judging = total - prepared;
    println!("study_{name}_{seeds}_seeds: {total:.1} s wall ({prepared:.1} s reading the collection and building features)");
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
