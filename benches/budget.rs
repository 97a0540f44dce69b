//! What a budget curve costs: the default study (the embedded task `runs/synth-passage`, HiCAL's
//! settings, measures map, P_10 and ndcg_cut_10) with the whole budget alone and with the budget
//! fractions 0.25, 0.5, 0.75 and 1. The judging is the same for both (the fractions only cut
//! its traces), so it is done once, timed, into a journal; criterion then times what differs,
//! everything after the judging: `jobs::simulate::simulate` resuming from that journal (reading it,
//! scoring every trial at every fraction, the statistics, every table, `report.md` and every
//! figure). The bench prints the time of the first, whole study and the ratio of the whole
//! studies, (that study − the rest with 1 fraction + the rest with 4) / that study, from the
//! medians of its own repetitions. Seeds: 2 unless `REUSESIM_BENCH_SEEDS` says otherwise (both parts grow
//! with the seeds alike).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

use reusesim::io::task::Task;
use reusesim::jobs::simulate::{simulate, SimulateOptions};
use reusesim::sim::lock::FolderAccess;

/// The default task's manifest.
fn task_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("runs/synth-passage/task.toml")
}

/// The default study's options with `budget_fractions`.
fn options(seeds: u64, budget_fractions: &[f64]) -> SimulateOptions {
    SimulateOptions {
        seeds,
        budget_fractions: budget_fractions.to_vec(),
        ..SimulateOptions::default()
    }
}

/// The median of `repetitions` timings of `work`.
fn median_time(repetitions: usize, mut work: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..repetitions)
        .map(|_| {
            let started = Instant::now();
            work();
            started.elapsed()
        })
        .collect();
    times.sort();
    times[repetitions / 2]
}

fn budget_curve(criterion: &mut Criterion) {
    let seeds: u64 = std::env::var("REUSESIM_BENCH_SEEDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(2);
    let task = Task::open(&task_path()).expect("the embedded task loads");
    let whole = options(seeds, &[1.0]);
    let curve = options(seeds, &[0.25, 0.5, 0.75, 1.0]);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = dir.path();
    let started = Instant::now();
    simulate(&task, &whole, out, FolderAccess::FRESH, &|_, _, _| {}).expect("the study runs");
    let whole_study = started.elapsed().as_secs_f64();
    // From here on every study resumes every unit from the journal: no judging.
    let after_judging = |options: &SimulateOptions| {
        let report = simulate(
            &task,
            options,
            out,
            FolderAccess {
                resume: true,
                ..FolderAccess::FRESH
            },
            &|_, _, _| {},
        )
        .expect("the study resumes");
        assert_eq!(report.resumed, report.summary.simulations.distinct_units);
    };
    let mut group = criterion.benchmark_group(format!("default_study_{seeds}_seeds_after_judging"));
    group.sample_size(10);
    group.bench_function("whole_budget", |bencher| {
        bencher.iter(|| after_judging(&whole))
    });
    group.bench_function("4_budget_fractions", |bencher| {
        bencher.iter(|| after_judging(&curve))
    });
    group.finish();
    let rest_whole = median_time(5, || after_judging(&whole));
    let rest_curve = median_time(5, || after_judging(&curve));
    let curve_study = whole_study - rest_whole.as_secs_f64() + rest_curve.as_secs_f64();
    println!(
        "default study, {seeds} seeds: {whole_study:.1} s with the whole budget alone, of which \
         {:.2} s after the judging; {:.2} s after it with 4 fractions; 4 fractions / whole \
         budget = {:.3}",
        rest_whole.as_secs_f64(),
        rest_curve.as_secs_f64(),
        curve_study / whole_study
    );
}

criterion_group!(benches, budget_curve);
criterion_main!(benches);
