//! The calibration's own uncertainty: the fit repeated on samples of the calibration rows
//! drawn team by team with replacement (a cluster bootstrap), since rows of one team share
//! its runs and its pool contributions and so are not independent.

use rand::Rng;
use rayon::prelude::*;

use crate::base::error::Result;
use crate::base::sparse::SparseVec;
use crate::judge::logistic::{fit_logistic, LogisticModel};
use crate::judge::TrainingSet;

/// Bootstrap replicates of the calibration fit. The Monte-Carlo samples of an audit cycle
/// through them, so that each sample's probabilities come from one plausible fit.
pub const REPLICATES: usize = 16;

/// The seed of the bootstrap's draws (mixed with the replicate number).
pub const BOOTSTRAP_SEED: u64 = 16;

/// Labelled rows and the cluster (team) of each.
pub struct ClusteredRows<'a> {
    /// Relevant rows.
    pub positives: &'a [SparseVec],
    /// The cluster of each of `positives`.
    pub positive_clusters: &'a [usize],
    /// Non-relevant rows.
    pub negatives: &'a [SparseVec],
    /// The cluster of each of `negatives`.
    pub negative_clusters: &'a [usize],
    /// The number of clusters.
    pub clusters: usize,
    /// The number of features.
    pub dimension: usize,
}

/// One bootstrap replicate: its fit and how often it drew each cluster.
pub struct Replicate {
    /// The fit on the replicate's rows.
    pub model: LogisticModel,
    /// How often each cluster was drawn (0 for a cluster the replicate left out).
    pub times: Vec<usize>,
}

/// [`REPLICATES`] fits, each on the rows of `clusters` clusters drawn with replacement (a row
/// enters a replicate as often as its cluster was drawn). A replicate whose draw holds no
/// relevant or no non-relevant row is left out. Deterministic: each replicate draws from its
/// own ChaCha8 stream.
///
/// # Errors
/// When a logistic fit fails.
pub fn replicate_fits(
    rows: &ClusteredRows,
    alpha: f64,
    max_iterations: u64,
) -> Result<Vec<Replicate>> {
    if rows.clusters == 0 {
        return Ok(Vec::new());
    }
    let fits = (0..REPLICATES)
        .into_par_iter()
        .map(|replicate| {
            let mut rng = crate::base::seed::keyed_rng(BOOTSTRAP_SEED, &replicate.to_string());
            let mut times = vec![0usize; rows.clusters];
            for _ in 0..rows.clusters {
                times[rng.random_range(0..rows.clusters)] += 1;
            }
            let positives = repeated(rows.positives, rows.positive_clusters, &times);
            let negatives = repeated(rows.negatives, rows.negative_clusters, &times);
            if positives.is_empty() || negatives.is_empty() {
                return Ok(None);
            }
            let training = TrainingSet::new(positives, negatives, rows.dimension);
            let model = fit_logistic(&training, alpha, max_iterations)?;
            Ok(Some(Replicate { model, times }))
        })
        .collect::<Result<Vec<Option<Replicate>>>>()?;
    Ok(fits.into_iter().flatten().collect())
}

/// Each row of `vectors` as often as its cluster (`clusters`) was drawn (`times`).
fn repeated<'a>(
    vectors: &'a [SparseVec],
    clusters: &[usize],
    times: &[usize],
) -> Vec<&'a SparseVec> {
    vectors
        .iter()
        .zip(clusters)
        .flat_map(|(row, &cluster)| std::iter::repeat_n(row, times[cluster]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(value: f32) -> SparseVec {
        SparseVec::from_pairs(vec![(0, value)]).unwrap()
    }

    #[test]
    fn replicates_are_fixed_and_vary_with_the_teams_drawn() {
        // Two teams that disagree: team 0's positives sit at x = 1, team 1's at x = -1; each
        // team's negatives at the opposite end. A replicate that draws one team more often
        // leans its way.
        let positives = vec![row(1.0), row(1.0), row(-1.0), row(-1.0)];
        let negatives = vec![row(-1.0), row(-1.0), row(1.0), row(1.0), row(0.5)];
        let rows = ClusteredRows {
            positives: &positives,
            positive_clusters: &[0, 0, 1, 1],
            negatives: &negatives,
            negative_clusters: &[0, 0, 1, 1, 1],
            clusters: 2,
            dimension: 1,
        };
        let first = replicate_fits(&rows, 1e-3, 100).unwrap();
        let again = replicate_fits(&rows, 1e-3, 100).unwrap();
        assert!(!first.is_empty() && first.len() <= REPLICATES);
        assert_eq!(
            first.iter().map(|f| f.model.weights[0]).collect::<Vec<_>>(),
            again.iter().map(|f| f.model.weights[0]).collect::<Vec<_>>()
        );
        assert!(first
            .iter()
            .all(|f| f.times.len() == 2 && f.times.iter().sum::<usize>() == 2));
        let slopes: Vec<f64> = first.iter().map(|f| f.model.weights[0]).collect();
        assert!(slopes.iter().any(|&w| w > 0.5), "{slopes:?}");
        assert!(slopes.iter().any(|&w| w < -0.5), "{slopes:?}");
    }

    #[test]
    fn a_row_counts_as_often_as_its_cluster_was_drawn() {
        let vectors = vec![row(1.0), row(2.0), row(3.0)];
        let picked = repeated(&vectors, &[0, 1, 1], &[2, 0]);
        assert_eq!(picked.len(), 2);
        assert!(picked.iter().all(|v| v.as_pairs() == [(0, 1.0)]));
        assert!(replicate_fits(
            &ClusteredRows {
                positives: &[],
                positive_clusters: &[],
                negatives: &[],
                negative_clusters: &[],
                clusters: 0,
                dimension: 1,
            },
            1e-3,
            10
        )
        .unwrap()
        .is_empty());
    }
}
