//! Grades below the relevance level that graded measures count. At relevance level 2 a passage
//! graded 1 is not relevant, yet nDCG gains from it, so an unjudged document that is not
//! relevant may still move a graded measure once judged. The chance of that follows a
//! proportional-odds model: a document's log-odds of a grade above 0 are its calibrated
//! log-odds of relevance plus a shift δ ≥ 0, so that a document that is not relevant has a grade
//! above 0 with chance (σ(η + δ) − σ(η)) / (1 − σ(η)). The shift is fitted by maximum
//! likelihood on the calibration rows that are not relevant (the documents a team's absence
//! leaves unjudged, with the grade the collection gives them), one within the pool's reach and
//! one beyond it; which grade above 0 follows the topic's judgments below the level.

use serde::Serialize;

use crate::stats::log_odds::sigmoid;

/// The largest shift fitted: rows that all have a grade above 0 give a grade to nearly every
/// document.
const MAX_SHIFT: f64 = 30.0;

/// A calibration row that is not relevant: its calibrated log-odds of relevance, whether the
/// collection grades it above 0, and whether it lies within the pool's reach.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BelowLevelRow {
    /// Calibrated log-odds of relevance.
    pub log_odds: f64,
    /// Whether the collection grades it above 0 (and below the relevance level).
    pub is_graded: bool,
    /// Whether it lies within the pool's reach.
    pub is_in_pool: bool,
}

/// The shifts of the log-odds of a grade above 0 over those of relevance, within the pool's
/// reach and beyond it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BelowLevelShift {
    /// For documents within the pool's reach.
    pub within_reach: f64,
    /// For documents beyond it.
    pub beyond_reach: f64,
}

impl BelowLevelShift {
    /// The maximum-likelihood shifts of `rows`, each reach on its own rows (0, no grade above 0,
    /// for a reach whose rows have none).
    pub fn fit(rows: &[BelowLevelRow]) -> Self {
        let reach = |in_pool: bool| {
            fit_shift(
                (rows.iter())
                    .filter(|row| row.is_in_pool == in_pool)
                    .map(|row| (row.log_odds, row.is_graded)),
            )
        };
        Self {
            within_reach: reach(true),
            beyond_reach: reach(false),
        }
    }

    /// The shift of a document within the pool's reach, or beyond it.
    pub fn for_reach(&self, is_in_pool: bool) -> f64 {
        if is_in_pool {
            self.within_reach
        } else {
            self.beyond_reach
        }
    }
}

/// The chance that a document of log-odds of relevance `log_odds`, not relevant, has a grade
/// above 0 under the shift `shift`.
pub fn graded_chance(log_odds: f64, shift: f64) -> f64 {
    let relevant = sigmoid(log_odds);
    if relevant >= 1.0 {
        return 0.0;
    }
    ((sigmoid(log_odds + shift) - relevant) / (1.0 - relevant)).clamp(0.0, 1.0)
}

/// The shift δ in [0, [`MAX_SHIFT`]] that maximises the likelihood of `rows` (log-odds, graded
/// above 0): the root of its derivative, which falls as δ grows, found by bisection.
fn fit_shift(rows: impl Iterator<Item = (f64, bool)> + Clone) -> f64 {
    if !rows.clone().any(|(_, graded)| graded) {
        return 0.0;
    }
    let slope = |shift: f64| -> f64 {
        (rows.clone())
            .map(|(log_odds, graded)| {
                let (relevant, above) = (sigmoid(log_odds), sigmoid(log_odds + shift));
                if graded {
                    let gap = above - relevant;
                    if gap > 0.0 {
                        above * (1.0 - above) / gap
                    } else {
                        0.0
                    }
                } else {
                    -above
                }
            })
            .sum()
    };
    let (mut low, mut high) = (0.0, MAX_SHIFT);
    if slope(high) > 0.0 {
        return MAX_SHIFT;
    }
    for _ in 0..60 {
        let middle = 0.5 * (low + high);
        if slope(middle) > 0.0 {
            low = middle;
        } else {
            high = middle;
        }
    }
    0.5 * (low + high)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn the_fit_recovers_the_shift_the_rows_were_drawn_with() {
        // Rows not relevant, drawn at log-odds spread over [-6, 0], graded above 0 with the
        // chance of shift 2 within the reach and 0.5 beyond it.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut rows = Vec::new();
        while rows.len() < 40_000 {
            let log_odds = -6.0 * rng.random::<f64>();
            if rng.random::<f64>() < sigmoid(log_odds) {
                continue;
            }
            let is_in_pool = rows.len() % 2 == 0;
            let shift = if is_in_pool { 2.0 } else { 0.5 };
            let is_graded = rng.random::<f64>() < graded_chance(log_odds, shift);
            rows.push(BelowLevelRow {
                log_odds,
                is_graded,
                is_in_pool,
            });
        }
        let fitted = BelowLevelShift::fit(&rows);
        assert!((fitted.within_reach - 2.0).abs() < 0.1, "{fitted:?}");
        assert!((fitted.beyond_reach - 0.5).abs() < 0.1, "{fitted:?}");
    }

    #[test]
    fn rows_without_a_grade_above_0_give_no_shift_and_no_chance() {
        let rows = [BelowLevelRow {
            log_odds: -2.0,
            is_graded: false,
            is_in_pool: true,
        }];
        let fitted = BelowLevelShift::fit(&rows);
        assert_eq!((fitted.within_reach, fitted.beyond_reach), (0.0, 0.0));
        assert_eq!(graded_chance(-2.0, 0.0), 0.0);
        // A larger shift, a larger chance; a certain relevant document has none left.
        assert!(graded_chance(-2.0, 1.0) < graded_chance(-2.0, 2.0));
        assert_eq!(graded_chance(f64::INFINITY, 1.0), 0.0);
        assert_eq!(graded_chance(f64::NEG_INFINITY, 1.0), 0.0);
    }
}
