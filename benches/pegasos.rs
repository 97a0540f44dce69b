//! Times the Pegasos learner on synthetic sparse documents drawn from `ChaCha8Rng` seed 2024:
//!
//! - `fit/auto`, `fit/dual`, `fit/dual_f64`, `fit/primal`: one 200,000-iteration fit (lambda
//!   1e-4; `f32` Gram matrix except in `dual_f64`) on 450 L2-normalised documents of ~200
//!   non-zeros over 2^16 features — 150 positives and 300 negatives, the size of a late HiCAL
//!   retrain (200 judged non-relevant + 100 random);
//! - `crossover/{dual,primal}/N`: the same fit on N documents (one third positive), to locate the
//!   size above which the primal solver is faster (`DUAL_MAX_DOCUMENTS`);
//! - `study_sizes/dual/N`: the same fit on the sizes a study's retrains have (16, 156 and 348
//!   documents);
//! - `score/20000`: one scoring pass of a fitted model over 20,000 candidates of ~200 non-zeros,
//!   four documents' sums interleaved (`Scorer::score_into`); `score/20000_one_by_one`: the same
//!   sums one document after another.
//!
//! Throughput is reported in iterations (fits) or candidates (scoring) per second.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reusesim::base::sparse::SparseVec;
use reusesim::judge::pegasos::{GramPrecision, PegasosParams, Solver};
use reusesim::judge::{Scorer, TrainingSet};

const SEED: u64 = 2024;
const DIMENSION: usize = 1 << 16;
const NNZ: usize = 200;
const ITERATIONS: usize = 200_000;

/// A document of about `NNZ` non-zeros; positives favour the first 1/16 of the features.
fn document(is_positive: bool, rng: &mut ChaCha8Rng) -> SparseVec {
    let pairs = (0..NNZ)
        .map(|_| {
            let feature = if is_positive && rng.random_bool(0.2) {
                rng.random_range(0..DIMENSION / 16)
            } else {
                rng.random_range(0..DIMENSION)
            };
            (feature as u32, rng.random_range(0.01_f32..1.0))
        })
        .collect();
    SparseVec::from_pairs(pairs)
        .expect("finite values")
        .l2_normalized()
}

fn documents(count: usize, is_positive: bool, rng: &mut ChaCha8Rng) -> Vec<SparseVec> {
    (0..count).map(|_| document(is_positive, rng)).collect()
}

/// The training set over `positives` and `negatives`, in the bench's feature space.
fn training_set<'a>(positives: &'a [SparseVec], negatives: &'a [SparseVec]) -> TrainingSet<'a> {
    TrainingSet::new(
        positives.iter().collect(),
        negatives.iter().collect(),
        DIMENSION,
    )
}

fn fit(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let positives = documents(150, true, &mut rng);
    let negatives = documents(300, false, &mut rng);
    let training = training_set(&positives, &negatives);
    let mut group = c.benchmark_group("fit");
    group.sample_size(10);
    group.throughput(Throughput::Elements(ITERATIONS as u64));
    for (name, solver, precision) in [
        ("auto", Solver::Auto, GramPrecision::F32),
        ("dual", Solver::Dual, GramPrecision::F32),
        ("dual_f64", Solver::Dual, GramPrecision::F64),
        ("primal", Solver::Primal, GramPrecision::F32),
    ] {
        let params = PegasosParams::new()
            .solver(solver)
            .precision(precision)
            .check()
            .expect("valid params");
        group.bench_function(name, |b| {
            b.iter(|| {
                params
                    .fit(&training, &mut ChaCha8Rng::seed_from_u64(SEED))
                    .expect("valid training set")
            })
        });
    }
    group.finish();
}

fn crossover(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut group = c.benchmark_group("crossover");
    group.sample_size(10);
    group.throughput(Throughput::Elements(ITERATIONS as u64));
    for size in [1_000, 2_000, 3_000] {
        let positives = documents(size / 3, true, &mut rng);
        let negatives = documents(size - size / 3, false, &mut rng);
        let training = training_set(&positives, &negatives);
        for (name, solver) in [("dual", Solver::Dual), ("primal", Solver::Primal)] {
            let params = PegasosParams::new()
                .solver(solver)
                .check()
                .expect("valid params");
            group.bench_with_input(BenchmarkId::new(name, size), &training, |b, training| {
                b.iter(|| {
                    params
                        .fit(training, &mut ChaCha8Rng::seed_from_u64(SEED))
                        .expect("valid training set")
                })
            });
        }
    }
    group.finish();
}

/// Fits of the sizes a study makes: the median training set of the embedded task's retrains
/// (156 documents of ~170 non-zeros), of TREC-COVID's (348 of ~93), and a first retrain's (16),
/// where the step's scalar chain is all of the cost.
fn study_sizes(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut group = c.benchmark_group("study_sizes");
    group.sample_size(20);
    group.throughput(Throughput::Elements(ITERATIONS as u64));
    for (size, nnz) in [(16, 170), (156, 170), (348, 93)] {
        let mut sized = |count: usize, is_positive: bool| -> Vec<SparseVec> {
            (0..count)
                .map(|_| {
                    let mut pairs = document(is_positive, &mut rng).as_pairs().to_vec();
                    pairs.truncate(nnz);
                    SparseVec::from_pairs(pairs)
                        .expect("finite values")
                        .l2_normalized()
                })
                .collect()
        };
        let positives = sized(size / 3, true);
        let negatives = sized(size - size / 3, false);
        let training = training_set(&positives, &negatives);
        let params = PegasosParams::new().check().expect("valid params");
        group.bench_with_input(BenchmarkId::new("dual", size), &training, |b, training| {
            b.iter(|| {
                params
                    .fit(training, &mut ChaCha8Rng::seed_from_u64(SEED))
                    .expect("valid training set")
            })
        });
    }
    group.finish();
}

fn score(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let positives = documents(150, true, &mut rng);
    let negatives = documents(300, false, &mut rng);
    let training = training_set(&positives, &negatives);
    let model = PegasosParams::new()
        .check()
        .expect("valid params")
        .fit(&training, &mut ChaCha8Rng::seed_from_u64(SEED))
        .expect("valid training set");
    let candidates: Vec<SparseVec> = (0..20_000)
        .map(|pos| document(pos % 10 == 0, &mut rng))
        .collect();
    let mut scores = vec![0.0_f32; candidates.len()];
    let pairs: Vec<&[(u32, f32)]> = candidates.iter().map(SparseVec::as_pairs).collect();
    let mut group = c.benchmark_group("score");
    group.throughput(Throughput::Elements(candidates.len() as u64));
    group.bench_function("20000", |b| {
        b.iter(|| model.score_into(&pairs, &mut scores))
    });
    // The lever alone: each document's sum on its own, one after another.
    group.bench_function("20000_one_by_one", |b| {
        b.iter(|| {
            for (slot, pairs) in scores.iter_mut().zip(&pairs) {
                *slot = model.score_pairs(pairs);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, fit, crossover, study_sizes, score);
criterion_main!(benches);
