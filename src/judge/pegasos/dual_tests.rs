use super::super::hical_port::AddOrder;
use super::super::reference::*;
use super::super::*;
use crate::base::sparse::SparseVec;
use crate::judge::learner::{Scorer, TrainingSet};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The dual fit's steps compiled for every instruction set this processor runs give
/// bit-identical models, reports and projections, in both precisions (with scale folds).
#[test]
fn every_vector_level_gives_the_same_dual_fit() {
    let dimension = 512;
    let mut data_rng = ChaCha8Rng::seed_from_u64(19);
    let positives = random_documents(23, 30, dimension, true, &mut data_rng);
    let negatives = random_documents(41, 30, dimension, false, &mut data_rng);
    let training = TrainingSet::new(
        positives.iter().collect(),
        negatives.iter().collect(),
        dimension,
    );
    for precision in [GramPrecision::F32, GramPrecision::F64] {
        let params = PegasosParams::new()
            .iterations(30_000)
            .precision(precision)
            .check()
            .expect("valid params");
        let fit = |level| {
            let mut memory = FitMemory::new();
            let mut rng = ChaCha8Rng::seed_from_u64(23);
            let report = dual::fit_dual(&params, &training, None, &mut memory, &mut rng, level);
            let bits: Vec<u32> = memory.model.weights.iter().map(|w| w.to_bits()).collect();
            (bits, report)
        };
        let levels = kernels::VectorLevel::available();
        let (portable, report) = fit(levels[0]);
        assert!(
            report.projections > 0 && report.scale_folds > 0,
            "{report:?}"
        );
        for &level in &levels[1..] {
            assert_eq!(
                fit(level),
                (portable.clone(), report),
                "{level:?}, {precision:?}"
            );
        }
    }
}

/// How far a fitted model is from the all-`f64` reference: the two distances of the HiCAL fidelity
/// criterion (at most 1.5 times as far as HiCAL's own `f32` classifier).
#[derive(Debug, Clone, Copy)]
struct Distance {
    /// `max |w − reference| / max |reference|`.
    weights: f64,
    /// Positions of the top 100 candidates where the model's ranking (`f32` scores, as the judge
    /// ranks) differs from the reference's (`f64` scores).
    top_100: usize,
}

fn distance(weights: &[f32], reference: &[f64], candidates: &[SparseVec]) -> Distance {
    let largest = reference.iter().fold(0.0_f64, |max, r| max.max(r.abs()));
    let largest_difference = weights
        .iter()
        .zip(reference)
        .fold(0.0_f64, |max, (&w, &r)| max.max((f64::from(w) - r).abs()));
    let reference_scores: Vec<f64> = candidates
        .iter()
        .map(|c| c.dot_dense_f64(reference))
        .collect();
    let mut scores = vec![0.0_f32; candidates.len()];
    LinearModel::new(weights.to_vec()).score_into(&pairs_of(candidates), &mut scores);
    let scores: Vec<f64> = scores.iter().map(|&s| f64::from(s)).collect();
    let (expected, actual) = (top(&reference_scores, 100), top(&scores, 100));
    Distance {
        weights: largest_difference / largest.max(f64::MIN_POSITIVE),
        top_100: expected.iter().zip(&actual).filter(|(e, a)| e != a).count(),
    }
}

/// The distances to the all-`f64` reference of the default (`f32` Gram) dual path, of HiCAL's
/// `f32` classifier, and of the same classifier with its two `AddVector` calls reordered.
#[derive(Debug, Clone, Copy)]
struct Fidelity {
    fast: Distance,
    hical: Distance,
    reordered: Distance,
}

impl Fidelity {
    /// Whether `distance` is more than 1.5 times HiCAL's, in the weights or in the top 100.
    fn beyond_criterion(&self, distance: Distance) -> bool {
        distance.weights > 1.5 * self.hical.weights
            || distance.top_100 as f64 > 1.5 * self.hical.top_100 as f64
    }
}

/// Fits the default dual path and the two HiCAL ports on the same pairs, asserts that the dual
/// path makes the reference's number of projections, and returns the three distances.
fn fidelity(
    training: &TrainingSet,
    candidates: &[SparseVec],
    (lambda, iterations, seed): (f64, usize, u64),
    (reference, reference_projections): &(Vec<f64>, usize),
) -> Fidelity {
    let params = PegasosParams::new()
        .lambda(lambda)
        .iterations(iterations)
        .solver(Solver::Dual)
        .check()
        .expect("valid params");
    let (model, report) = params
        .fit_with_report(training, &mut ChaCha8Rng::seed_from_u64(seed))
        .expect("valid training set");
    assert_eq!(report.projections, *reference_projections, "projections");
    let port = |order| {
        let rng = &mut ChaCha8Rng::seed_from_u64(seed);
        let (weights, _) = hical_port::hical_fit(lambda, iterations, training, order, rng);
        distance(&weights, reference, candidates)
    };
    Fidelity {
        fast: distance(&model.weights, reference, candidates),
        hical: port(AddOrder::PositiveFirst),
        reordered: port(AddOrder::NegativeFirst),
    }
}

#[test]
fn f32_gram_is_as_close_as_hical_on_the_bench_set() {
    // The bench's training set (`benches/pegasos.rs`): 150 positives and 300 negatives of ~200
    // non-zeros over 2^16 features, positives favouring the first 1/16; 20,000 candidates. The
    // all-`f64` reference is the primal solver (lazily scaled `f64` weights), which the tests
    // above hold to the eager formula.
    let dimension = 1 << 16;
    let document = |is_positive: bool, rng: &mut ChaCha8Rng| {
        random_document(200, dimension, (dimension / 16, 0.2), is_positive, rng)
    };
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let positives: Vec<SparseVec> = (0..150).map(|_| document(true, &mut rng)).collect();
    let negatives: Vec<SparseVec> = (0..300).map(|_| document(false, &mut rng)).collect();
    let candidates: Vec<SparseVec> = (0..20_000)
        .map(|pos| document(pos % 10 == 0, &mut rng))
        .collect();
    let training = TrainingSet::new(
        positives.iter().collect(),
        negatives.iter().collect(),
        dimension,
    );
    let settings = (DEFAULT_LAMBDA, DEFAULT_ITERATIONS, 2024);
    let (model, report) = params(DEFAULT_LAMBDA, DEFAULT_ITERATIONS, Solver::Primal)
        .fit_with_report(&training, &mut ChaCha8Rng::seed_from_u64(2024))
        .expect("valid training set");
    let reference = (
        model.weights.iter().map(|&w| f64::from(w)).collect(),
        report.projections,
    );
    let fidelity = fidelity(&training, &candidates, settings, &reference);
    eprintln!("bench set: {fidelity:?}, {} projections", reference.1);
    assert!(!fidelity.beyond_criterion(fidelity.fast), "{fidelity:?}");
}

/// Random small sets over 64 features (1 to 7 positives, 1 to 11 negatives, 1 to 11 non-zeros,
/// so documents overlap heavily), against the eager `f64` formula.
///
/// Where few steps with lambda 1e-4 saturate the loss, a rounding can flip a near-zero margin and
/// send the iterates elsewhere, so on a few sets any `f32` arithmetic lands far from the exact
/// iterates by chance: HiCAL's classifier with its two `AddVector` calls reordered is more than
/// 1.5 times as far as HiCAL's order on 9 of these 300 sets. The fidelity criterion is therefore
/// held per set as often as HiCAL holds it against itself (the dual path misses it on 3 sets),
/// and on the worst and median distances of the family.
#[test]
fn f32_gram_is_as_close_as_hical_on_small_overlapping_sets() {
    let dimension = 64;
    let mut fidelities = Vec::new();
    for seed in 0..300_u64 {
        let mut data_rng = ChaCha8Rng::seed_from_u64(seed);
        let positive_count = data_rng.random_range(1..8);
        let negative_count = data_rng.random_range(1..12);
        let nnz = data_rng.random_range(1..12);
        let positives = random_documents(positive_count, nnz, dimension, true, &mut data_rng);
        let negatives = random_documents(negative_count, nnz, dimension, false, &mut data_rng);
        let mut candidates = random_documents(10_000, nnz, dimension, true, &mut data_rng);
        candidates.extend(random_documents(
            10_000,
            nnz,
            dimension,
            false,
            &mut data_rng,
        ));
        let training = TrainingSet::new(
            positives.iter().collect(),
            negatives.iter().collect(),
            dimension,
        );
        let lambda = [1e-4, 1e-3, 1e-2][seed as usize % 3];
        let iterations = data_rng.random_range(1..3_000);
        let reference = reference_fit(
            lambda,
            iterations,
            &training,
            &mut ChaCha8Rng::seed_from_u64(seed),
        );
        let settings = (lambda, iterations, seed);
        fidelities.push(fidelity(&training, &candidates, settings, &reference));
    }
    let misses = |pick: fn(&Fidelity) -> Distance| {
        let missing = fidelities.iter().filter(|f| f.beyond_criterion(pick(f)));
        missing.count()
    };
    let (fast_misses, reordered_misses) = (misses(|f| f.fast), misses(|f| f.reordered));
    let summary = |pick: fn(&Fidelity) -> f64| {
        let mut values: Vec<f64> = fidelities.iter().map(pick).collect();
        values.sort_by(f64::total_cmp);
        (values[values.len() - 1], values[values.len() / 2])
    };
    let (fast_worst, fast_median) = summary(|f| f.fast.weights);
    let (hical_worst, hical_median) = summary(|f| f.hical.weights);
    eprintln!(
        "small sets: beyond 1.5 times HiCAL on {fast_misses} sets (reordered HiCAL \
         {reordered_misses}); worst f32 Gram {fast_worst:.3e}, HiCAL port {hical_worst:.3e}; \
         median f32 Gram {fast_median:.3e}, HiCAL port {hical_median:.3e}"
    );
    assert!(fast_misses <= reordered_misses);
    assert!(fast_worst <= 1.5 * hical_worst && fast_median <= 1.5 * hical_median);
}
