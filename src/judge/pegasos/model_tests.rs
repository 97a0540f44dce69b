use super::super::reference::pairs_of;
use super::*;
use crate::base::sparse::SparseVec;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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
