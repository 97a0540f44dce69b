//! Run features, for tasks without a corpus (see docs/judge.md): one feature per available run,
//! `1 / (60 + rank)` when the run retrieved the document for the topic (reciprocal-rank fusion's
//! constant), plus the fraction of available runs that retrieved it; then L2-normalised. A
//! held-out team's runs are "unavailable": removed from the features as if the team never
//! existed. The fraction is feature number `run_count`.

use crate::base::sparse::SparseVec;

/// The constant of reciprocal-rank fusion (Cormack, Clarke and Büttcher 2009).
pub const RANK_OFFSET: f64 = 60.0;

/// The rank (1-based) at which each run retrieved one document for one topic.
pub type RunHits = [(u32, u32)];

/// The feature vector of a document retrieved at `hits` (run index, 1-based rank), counting
/// only the runs for which `is_available(run)` holds, out of `available_runs` such runs, in a
/// space of `run_count` run features plus the fraction feature.
pub fn run_feature_vector(
    hits: &RunHits,
    is_available: impl Fn(u32) -> bool,
    available_runs: usize,
    run_count: usize,
) -> SparseVec {
    let mut pairs: Vec<(u32, f32)> = hits
        .iter()
        .filter(|&&(run, _)| is_available(run))
        .map(|&(run, rank)| (run, (1.0 / (RANK_OFFSET + f64::from(rank))) as f32))
        .collect();
    if pairs.is_empty() || available_runs == 0 {
        return SparseVec::empty();
    }
    let fraction = pairs.len() as f64 / available_runs as f64;
    let fraction_feature = u32::try_from(run_count).expect("fewer than 2^32 runs");
    pairs.push((fraction_feature, fraction as f32));
    SparseVec::from_pairs(pairs)
        .expect("run features are finite")
        .l2_normalized()
}

/// The pseudo-positive seed: a document at rank 1 of every available run.
pub fn pseudo_positive(
    is_available: impl Fn(u32) -> bool,
    available_runs: usize,
    run_count: usize,
) -> SparseVec {
    let run_count_u32 = u32::try_from(run_count).expect("fewer than 2^32 runs");
    let hits: Vec<(u32, u32)> = (0..run_count_u32).map(|run| (run, 1)).collect();
    run_feature_vector(&hits, is_available, available_runs, run_count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_by_hand_and_held_out_runs_vanish() {
        // Retrieved at rank 1 by run 0 and rank 40 by run 2, of 4 runs; run 1 unavailable.
        let vector = run_feature_vector(&[(0, 1), (2, 40)], |run| run != 1, 3, 4);
        let raw = [1.0 / 61.0, 1.0 / 100.0, 2.0 / 3.0];
        let norm = raw.iter().map(|v: &f64| v * v).sum::<f64>().sqrt();
        let expected: Vec<(u32, f32)> = [0, 2, 4]
            .into_iter()
            .zip(raw)
            .map(|(feature, value)| (feature, (value / norm) as f32))
            .collect();
        for ((feature, value), (expected_feature, expected_value)) in vector.iter().zip(expected) {
            assert_eq!(feature, expected_feature);
            assert!((value - expected_value).abs() < 1e-6);
        }
        let only_held_out = run_feature_vector(&[(1, 3)], |run| run != 1, 3, 4);
        assert!(only_held_out.is_empty());
        let seed = pseudo_positive(|run| run != 1, 3, 4);
        assert_eq!(seed.iter().len(), 4);
    }
}
