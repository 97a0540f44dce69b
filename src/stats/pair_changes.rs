//! Whether the significant differences between runs under one set of judgments survive under
//! another: every pair of runs is tested on each side with the same test and correction, and
//! each pair significant on either side is classified as kept, lost, reversed or new (Otero,
//! Parapar and Ferro 2023 compare judging methods by how they keep the full judgments'
//! significant pairs; Sakai 2006 calls the share of pairs a test finds significant the
//! discriminative power).

use serde::{Deserialize, Serialize};

use super::comparison::PairComparison;

/// The outcome of one pair of runs under one set of judgments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// No significant difference.
    Neither,
    /// The first run of the pair is significantly better.
    First,
    /// The second run of the pair is significantly better.
    Second,
}

impl Direction {
    /// Whether the difference is significant, either way.
    pub fn is_significant(self) -> bool {
        self != Self::Neither
    }
}

/// Every pair of `runs` runs, `(first, second)` with `first < second`, in the order
/// (0, 1), (0, 2), …, (1, 2), ….
pub fn all_pairs(runs: usize) -> Vec<(usize, usize)> {
    (0..runs)
        .flat_map(|first| (first + 1..runs).map(move |second| (first, second)))
        .collect()
}

/// The position of the pair `(first, second)`, `first < second`, among the [`all_pairs`] of
/// `runs` runs.
pub fn pair_index(runs: usize, first: usize, second: usize) -> usize {
    debug_assert!(first < second && second < runs);
    first * runs - first * (first + 1) / 2 + (second - first - 1)
}

/// The direction of each of `compared`: which run of the pair is significantly better.
pub fn directions(compared: &[PairComparison]) -> Vec<Direction> {
    (compared.iter())
        .map(
            |pair| match (pair.significant, pair.mean_difference > 0.0) {
                (false, _) => Direction::Neither,
                (true, true) => Direction::First,
                (true, false) => Direction::Second,
            },
        )
        .collect()
}

/// How the pairs significant under a reference fare under another set of judgments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PairChanges {
    /// Significant under both, in the same direction.
    pub kept: usize,
    /// Significant under the reference only.
    pub lost: usize,
    /// Significant under both, in opposite directions: the error that misleads a reader.
    pub reversed: usize,
    /// Significant under the other judgments only.
    pub new: usize,
}

impl PairChanges {
    /// Classifies the pairs for which `include(pair index)` holds, `reference` and `other`
    /// giving each pair's direction in the same order.
    ///
    /// # Panics
    /// When the two sides have different numbers of pairs.
    pub fn classify(
        reference: &[Direction],
        other: &[Direction],
        include: impl Fn(usize) -> bool,
    ) -> Self {
        assert_eq!(reference.len(), other.len(), "the same pairs on both sides");
        let mut changes = Self::default();
        for (index, (&before, &after)) in reference.iter().zip(other).enumerate() {
            if !include(index) {
                continue;
            }
            match (before, after) {
                (Direction::Neither, Direction::Neither) => {}
                (Direction::Neither, _) => changes.new += 1,
                (_, Direction::Neither) => changes.lost += 1,
                _ if before == after => changes.kept += 1,
                _ => changes.reversed += 1,
            }
        }
        changes
    }

    /// The pairs significant under the reference: kept, lost and reversed.
    pub fn reference_significant(&self) -> usize {
        self.kept + self.lost + self.reversed
    }

    /// The share of the reference's significant pairs kept (`None` when it has none).
    pub fn kept_share(&self) -> Option<f64> {
        let reference = self.reference_significant();
        (reference > 0).then(|| self.kept as f64 / reference as f64)
    }

    /// The share of the reference's significant pairs reversed (`None` when it has none).
    pub fn reversed_share(&self) -> Option<f64> {
        let reference = self.reference_significant();
        (reference > 0).then(|| self.reversed as f64 / reference as f64)
    }
}

impl std::ops::Add for PairChanges {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            kept: self.kept + other.kept,
            lost: self.lost + other.lost,
            reversed: self.reversed + other.reversed,
            new: self.new + other.new,
        }
    }
}

impl std::iter::Sum for PairChanges {
    fn sum<I: Iterator<Item = Self>>(changes: I) -> Self {
        changes.fold(Self::default(), |total, one| total + one)
    }
}

#[cfg(test)]
#[path = "pair_changes_tests.rs"]
mod tests;
