use super::reference::*;
use super::*;
use crate::base::error::LearnerError;
use crate::base::sparse::SparseVec;
use crate::judge::learner::{Scorer, TrainingSet};
use proptest::prelude::{any, prop, prop_assert, prop_assert_eq, proptest};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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
