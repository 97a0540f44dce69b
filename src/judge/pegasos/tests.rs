use super::hical_port::AddOrder;
use super::*;
use crate::base::sparse::SparseVec;
use proptest::prelude::{any, prop, prop_assert, prop_assert_eq, proptest};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The plain formula, eagerly: a dense `f64` vector, the shrink applied to every weight and
/// the norm recomputed at every step.
fn reference_fit(
    lambda: f64,
    iterations: usize,
    training: &TrainingSet,
    rng: &mut impl Rng,
) -> (Vec<f64>, usize) {
    let mut weights = vec![0.0_f64; training.dimension];
    let mut projections = 0;
    for step in 1..=iterations {
        let a = training.positives[rng.random_range(0..training.positives.len())];
        let b = training.negatives[rng.random_range(0..training.negatives.len())];
        let learning_rate = 1.0 / (lambda * step as f64);
        let margin = a.dot_dense_f64(&weights) - b.dot_dense_f64(&weights);
        let loss = 1.0 / (1.0 + margin.exp());
        let shrink = (1.0 - learning_rate * lambda).max(1e-7);
        for weight in &mut weights {
            *weight *= shrink;
        }
        for (feature, value) in a.iter() {
            weights[feature as usize] += learning_rate * loss * f64::from(value);
        }
        for (feature, value) in b.iter() {
            weights[feature as usize] -= learning_rate * loss * f64::from(value);
        }
        let squared_norm: f64 = weights.iter().map(|w| w * w).sum();
        if squared_norm > 1.0 / lambda {
            let factor = 1.0 / (lambda * squared_norm).sqrt();
            for weight in &mut weights {
                *weight *= factor;
            }
            projections += 1;
        }
    }
    (weights, projections)
}

/// `count` random L2-normalised documents with about `nnz` positive values each; documents
/// of the positive class put extra weight on the first `dimension / 8` features so that the
/// classes are learnable but overlap.
fn random_documents(
    count: usize,
    nnz: usize,
    dimension: usize,
    is_positive: bool,
    rng: &mut impl Rng,
) -> Vec<SparseVec> {
    let favoured = (dimension / 8, 0.3);
    (0..count)
        .map(|_| random_document(nnz, dimension, favoured, is_positive, rng))
        .collect()
}

/// A random L2-normalised document of about `nnz` positive values; in a positive one each
/// value falls with probability `favoured.1` among the first `favoured.0` features.
fn random_document(
    nnz: usize,
    dimension: usize,
    favoured: (usize, f64),
    is_positive: bool,
    rng: &mut impl Rng,
) -> SparseVec {
    let pairs = (0..nnz)
        .map(|_| {
            let feature = if is_positive && rng.random_bool(favoured.1) {
                rng.random_range(0..favoured.0)
            } else {
                rng.random_range(0..dimension)
            };
            (feature as u32, rng.random_range(0.01_f32..1.0))
        })
        .collect();
    SparseVec::from_pairs(pairs)
        .expect("finite values")
        .l2_normalized()
}

fn relative_distance(fast: &[f32], reference: &[f64]) -> f64 {
    let difference: f64 = fast
        .iter()
        .zip(reference)
        .map(|(&f, &r)| (f64::from(f) - r).powi(2))
        .sum();
    let norm: f64 = reference.iter().map(|r| r * r).sum();
    (difference / norm.max(f64::MIN_POSITIVE)).sqrt()
}

/// Positions of the `count` highest scores, best first (ties: lower position first).
fn top(scores: &[f64], count: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&x, &y| scores[y].total_cmp(&scores[x]).then(x.cmp(&y)));
    order.truncate(count);
    order
}

/// Asserts the fast model ranks the top `count` candidates as the reference does, allowing
/// swaps only between candidates whose reference scores are within `tolerance`.
fn assert_same_top(
    fast: &LinearModel,
    reference: &[f64],
    candidates: &[SparseVec],
    count: usize,
    tolerance: f64,
) {
    let reference_scores: Vec<f64> = candidates
        .iter()
        .map(|c| c.dot_dense_f64(reference))
        .collect();
    let mut fast_scores = vec![0.0_f32; candidates.len()];
    fast.score_into(&pairs_of(candidates), &mut fast_scores);
    let fast_scores: Vec<f64> = fast_scores.iter().map(|&s| f64::from(s)).collect();
    let (expected, actual) = (top(&reference_scores, count), top(&fast_scores, count));
    for (&e, &a) in expected.iter().zip(&actual) {
        assert!(
            e == a || (reference_scores[e] - reference_scores[a]).abs() <= tolerance,
            "top-{count} differs: {e} (reference {}) vs {a} (reference {})",
            reference_scores[e],
            reference_scores[a]
        );
    }
}

/// Settings for the tests that hold the `f64` path to the exact iterates.
fn params(lambda: f64, iterations: usize, solver: Solver) -> PegasosValidParams {
    PegasosParams::new()
        .lambda(lambda)
        .iterations(iterations)
        .solver(solver)
        .precision(GramPrecision::F64)
        .check()
        .expect("valid params")
}

#[test]
fn check_rejects_invalid_settings() {
    for lambda in [0.0, -1e-4, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            PegasosParams::new().lambda(lambda).check(),
            Err(LearnerError::InvalidLambda(_))
        ));
    }
    assert_eq!(
        PegasosParams::new().iterations(0).check(),
        Err(LearnerError::ZeroIterations)
    );
    let valid = PegasosParams::default()
        .check()
        .expect("defaults are valid");
    assert_eq!(valid.lambda(), DEFAULT_LAMBDA);
    assert_eq!(valid.iterations(), DEFAULT_ITERATIONS);
    assert_eq!(valid.solver(), Solver::Auto);
    assert_eq!(valid.precision(), GramPrecision::F32);
}

#[test]
fn fit_rejects_one_class_and_out_of_range_features() {
    let document = SparseVec::from_pairs(vec![(3, 1.0)]).expect("finite values");
    let params = params(1e-4, 10, Solver::Auto);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let no_positives = TrainingSet::new(vec![], vec![&document], 4);
    assert!(matches!(
        params.fit(&no_positives, &mut rng),
        Err(crate::base::error::Error::Learner(
            LearnerError::NoPositives
        ))
    ));
    let no_negatives = TrainingSet::new(vec![&document], vec![], 4);
    assert!(matches!(
        params.fit(&no_negatives, &mut rng),
        Err(crate::base::error::Error::Learner(
            LearnerError::NoNegatives
        ))
    ));
    let too_small = TrainingSet::new(vec![&document], vec![&document], 3);
    assert!(matches!(
        params.fit(&too_small, &mut rng),
        Err(crate::base::error::Error::Learner(
            LearnerError::FeatureOutOfRange {
                feature: 3,
                dimension: 3
            }
        ))
    ));
}

#[test]
fn primal_and_dual_equal_the_reference() {
    let dimension = 2048;
    let mut data_rng = ChaCha8Rng::seed_from_u64(7);
    let positives = random_documents(30, 50, dimension, true, &mut data_rng);
    let negatives = random_documents(60, 50, dimension, false, &mut data_rng);
    let mut candidates = random_documents(150, 50, dimension, true, &mut data_rng);
    candidates.extend(random_documents(150, 50, dimension, false, &mut data_rng));
    let training = TrainingSet::new(
        positives.iter().collect(),
        negatives.iter().collect(),
        dimension,
    );
    let (lambda, iterations) = (1e-4, 20_000);
    let (reference, reference_projections) = reference_fit(
        lambda,
        iterations,
        &training,
        &mut ChaCha8Rng::seed_from_u64(11),
    );
    let reference_norm = reference.iter().map(|w| w * w).sum::<f64>().sqrt();
    for solver in [Solver::Primal, Solver::Dual] {
        let (model, report) = params(lambda, iterations, solver)
            .fit_with_report(&training, &mut ChaCha8Rng::seed_from_u64(11))
            .expect("valid training set");
        assert_eq!(report.solver, solver);
        assert_eq!(report.iterations, iterations);
        assert_eq!(report.projections, reference_projections, "{solver:?}");
        let distance = relative_distance(&model.weights, &reference);
        assert!(distance <= 1e-5, "{solver:?}: relative distance {distance}");
        assert_same_top(&model, &reference, &candidates, 100, 1e-5 * reference_norm);
    }
}

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

#[test]
fn auto_chooses_by_size_and_is_deterministic() {
    let dimension = 256;
    let mut data_rng = ChaCha8Rng::seed_from_u64(3);
    let positives = random_documents(5, 10, dimension, true, &mut data_rng);
    let negatives = random_documents(10, 10, dimension, false, &mut data_rng);
    let training = TrainingSet::new(
        positives.iter().collect(),
        negatives.iter().collect(),
        dimension,
    );
    let params = params(1e-4, 1_000, Solver::Auto);
    let fit = |seed| {
        params
            .fit_with_report(&training, &mut ChaCha8Rng::seed_from_u64(seed))
            .expect("valid training set")
    };
    let (first, report) = fit(5);
    assert_eq!(report.solver, Solver::Dual);
    assert_eq!(fit(5).0, first);
    assert_ne!(fit(6).0, first);
}

#[test]
fn separates_a_linearly_separable_set() {
    // Positives use features 0..100, negatives 100..200: w = Σ positives − Σ negatives
    // separates them, and Pegasos must find such a w.
    let mut data_rng = ChaCha8Rng::seed_from_u64(17);
    let mut class = |offset: u32| -> Vec<SparseVec> {
        (0..40)
            .map(|_| {
                let pairs = (0..20)
                    .map(|_| {
                        (
                            offset + data_rng.random_range(0..100),
                            data_rng.random_range(0.1_f32..1.0),
                        )
                    })
                    .collect();
                SparseVec::from_pairs(pairs)
                    .expect("finite values")
                    .l2_normalized()
            })
            .collect()
    };
    let (positives, negatives) = (class(0), class(100));
    let training = TrainingSet::new(positives.iter().collect(), negatives.iter().collect(), 200);
    for solver in [Solver::Primal, Solver::Dual] {
        let model = params(DEFAULT_LAMBDA, 20_000, solver)
            .fit(&training, &mut ChaCha8Rng::seed_from_u64(2))
            .expect("valid training set");
        let lowest_positive = positives
            .iter()
            .map(|d| model.score(d))
            .fold(f32::INFINITY, f32::min);
        let highest_negative = negatives
            .iter()
            .map(|d| model.score(d))
            .fold(f32::NEG_INFINITY, f32::max);
        assert!(
            lowest_positive > highest_negative,
            "{solver:?}: {lowest_positive} <= {highest_negative}"
        );
    }
}

/// The documents' `(feature, value)` pairs, for [`Scorer::score_into`].
fn pairs_of(documents: &[SparseVec]) -> Vec<&[(u32, f32)]> {
    documents.iter().map(SparseVec::as_pairs).collect()
}

#[test]
fn score_into_matches_score() {
    let model = LinearModel::new(vec![1.0, -2.0, 0.5]);
    let documents = [
        SparseVec::from_pairs(vec![(0, 1.0), (2, 2.0)]).expect("finite values"),
        SparseVec::from_pairs(vec![(1, 1.0), (7, 3.0)]).expect("finite values"),
        SparseVec::empty(),
    ];
    let mut out = [f32::NAN; 3];
    model.score_into(&pairs_of(&documents), &mut out);
    assert_eq!(out, [2.0, -2.0, 0.0]);
}

#[test]
fn score_into_scores_groups_and_the_rest_as_score_does() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let weights: Vec<f32> = (0..50).map(|_| rng.random_range(-1e3..1e3)).collect();
    let model = LinearModel::new(weights);
    // 4 groups of four and a rest of three, of lengths that differ, some beyond the weights.
    let documents: Vec<SparseVec> = (0..19)
        .map(|_| {
            let length = rng.random_range(0..40);
            let pairs = (0..length)
                .map(|_| (rng.random_range(0..60), rng.random_range(-1e3..1e3)))
                .collect();
            SparseVec::from_pairs(pairs).expect("finite values")
        })
        .collect();
    let mut out = vec![f32::NAN; documents.len()];
    model.score_into(&pairs_of(&documents), &mut out);
    for (score, document) in out.iter().zip(&documents) {
        assert_eq!(score.to_bits(), model.score(document).to_bits());
    }
}

#[test]
#[should_panic(expected = "one slot per document")]
fn score_into_panics_on_length_mismatch() {
    let documents = [SparseVec::empty(), SparseVec::empty()];
    LinearModel::default().score_into(&pairs_of(&documents), &mut [0.0_f32; 1]);
}

#[test]
fn autotraits() {
    fn is_send_sync<T: Send + Sync>() {}
    is_send_sync::<PegasosParams>();
    is_send_sync::<PegasosValidParams>();
    is_send_sync::<LinearModel>();
    is_send_sync::<FitReport>();
    is_send_sync::<TrainingSet>();
}

proptest! {
    #![proptest_config(crate::base::fuzz::property_config(48))]
    #[test]
    fn fast_solvers_equal_the_reference_on_small_sets(
        positive_count in 1_usize..8,
        negative_count in 1_usize..12,
        nnz in 1_usize..12,
        iterations in 1_usize..3_000,
        lambda in prop::sample::select(vec![1e-4, 1e-3, 1e-2, 0.3]),
        seed in any::<u64>(),
    ) {
        let dimension = 64;
        let mut data_rng = ChaCha8Rng::seed_from_u64(seed);
        let positives = random_documents(positive_count, nnz, dimension, true, &mut data_rng);
        let negatives = random_documents(negative_count, nnz, dimension, false, &mut data_rng);
        let training = TrainingSet::new(
            positives.iter().collect(),
            negatives.iter().collect(),
            dimension,
        );
        let (reference, reference_projections) =
            reference_fit(lambda, iterations, &training, &mut ChaCha8Rng::seed_from_u64(seed ^ 1));
        for solver in [Solver::Primal, Solver::Dual] {
            let (model, report) = params(lambda, iterations, solver)
                .fit_with_report(&training, &mut ChaCha8Rng::seed_from_u64(seed ^ 1))
                .expect("valid training set");
            prop_assert_eq!(report.projections, reference_projections, "{:?}", solver);
            let distance = relative_distance(&model.weights, &reference);
            prop_assert!(distance <= 1e-5, "{:?}: relative distance {}", solver, distance);
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

proptest! {
    #![proptest_config(crate::base::fuzz::property_config(32))]
    /// Reuse between retrains: a unit's fits, each over the documents judged so far
    /// plus fresh random negatives (drawn with repeats, some already judged), give bit-identical
    /// models whether dot products are remembered or not, in both precisions, and after a
    /// `forget` (the next unit, whose keys name other vectors) as well.
    #[test]
    fn fits_reusing_memory_equal_fresh_fits(
        document_count in 4_usize..40,
        nnz in 1_usize..20,
        retrains in 1_usize..6,
        seed in any::<u64>(),
    ) {
        let dimension = 96;
        let mut data_rng = ChaCha8Rng::seed_from_u64(seed);
        let positives = random_documents(document_count, nnz, dimension, true, &mut data_rng);
        let negatives = random_documents(document_count, nnz, dimension, false, &mut data_rng);
        let mut memory = FitMemory::new();
        for precision in [GramPrecision::F32, GramPrecision::F64] {
            let params = PegasosParams::new()
                .iterations(500)
                .precision(precision)
                .check()
                .expect("valid params");
            for unit in 0..2 {
                memory.forget();
                for retrain in 1..=retrains {
                    // Judged so far: the first `judged` of each class; keys: positives 0.., negatives 1000...
                    let judged = (retrain * document_count / retrains).max(1);
                    let mut keys: Vec<u64> = (0..judged as u64).collect();
                    let mut negative_keys: Vec<u64> = (1000..1000 + judged as u64 / 2 + 1).collect();
                    for _ in 0..3 {
                        negative_keys.push(1000 + data_rng.random_range(0..document_count as u64));
                    }
                    // The second unit's keys name other vectors than the first's.
                    let document = |position: usize| if unit == 0 { position } else { document_count - 1 - position };
                    let training = TrainingSet::new(
                        keys.iter().map(|&key| &positives[document(key as usize)]).collect(),
                        negative_keys.iter().map(|&key| &negatives[document(key as usize - 1000)]).collect(),
                        dimension,
                    );
                    keys.extend(negative_keys);
                    let rng_seed = seed ^ (unit * 100 + retrain) as u64;
                    let (fresh, _) = params
                        .fit_with_report(&training, &mut ChaCha8Rng::seed_from_u64(rng_seed))
                        .expect("valid training set");
                    let (reused, _) = params
                        .fit_reusing(&training, &keys, &mut memory, &mut ChaCha8Rng::seed_from_u64(rng_seed))
                        .expect("valid training set");
                    let bits = |model: &LinearModel| model.weights.iter().map(|w| w.to_bits()).collect::<Vec<_>>();
                    prop_assert_eq!(bits(&fresh), bits(reused), "{:?}, unit {}, retrain {}", precision, unit, retrain);
                }
            }
        }
    }
}
