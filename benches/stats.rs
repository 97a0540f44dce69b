//! Times the statistics run once per (seed, trial, measure) of a simulation: Kendall's tau_b and
//! tau_ap between two scorings of 150 runs (the size of a TREC-COVID round), and a paired
//! randomization test with the default 10,000 sign flips over 43 topics. Inputs are synthetic:
//! uniform scores from `ChaCha8Rng` seed 42, the second scoring a noisy copy of the first (as a
//! leave-out scoring is), rounded to 4 decimals so that some runs tie.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use reusesim::stats::{randomization_test, tau_ap, tau_b, DEFAULT_RANDOMIZATION_PERMUTATIONS};

const RUNS: usize = 150;
const TOPICS: usize = 43;

/// `count` scores in [0, 1) and a noisy copy, both rounded to 4 decimals.
fn paired_scores(rng: &mut ChaCha8Rng, count: usize) -> (Vec<f64>, Vec<f64>) {
    let round = |value: f64| (value * 1e4).round() / 1e4;
    let first: Vec<f64> = (0..count).map(|_| round(rng.random::<f64>())).collect();
    let second = first
        .iter()
        .map(|score| round(score + 0.1 * (rng.random::<f64>() - 0.5)))
        .collect();
    (first, second)
}

fn rank_correlation(criterion: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let (official, other) = paired_scores(&mut rng, RUNS);
    let mut group = criterion.benchmark_group("kendall");
    // One element = one ranking compared.
    group.throughput(Throughput::Elements(1));
    group.bench_function("tau_b_150_runs", |bencher| {
        bencher.iter(|| {
            tau_b(
                std::hint::black_box(&official),
                std::hint::black_box(&other),
            )
        })
    });
    group.bench_function("tau_ap_150_runs", |bencher| {
        bencher.iter(|| {
            tau_ap(
                std::hint::black_box(&official),
                std::hint::black_box(&other),
            )
        })
    });
    group.finish();
}

fn randomization(criterion: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let (run_a, run_b) = paired_scores(&mut rng, TOPICS);
    let mut group = criterion.benchmark_group("significance");
    group.throughput(Throughput::Elements(
        DEFAULT_RANDOMIZATION_PERMUTATIONS as u64,
    ));
    group.bench_function("randomization_10000_flips_43_topics", |bencher| {
        bencher.iter(|| {
            let mut flips = ChaCha8Rng::seed_from_u64(7);
            randomization_test(
                std::hint::black_box(&run_a),
                std::hint::black_box(&run_b),
                DEFAULT_RANDOMIZATION_PERMUTATIONS,
                &mut flips,
            )
        })
    });
    group.finish();
}

criterion_group!(benches, rank_correlation, randomization);
criterion_main!(benches);
