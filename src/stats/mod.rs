//! Statistics over run scores and grades: how far two assessors agree on grades ([`agreement`]:
//! Cohen's kappa, Krippendorff's alpha); official rankings with average ranks for ties, a score's rank
//! among others and nearest-rank quantiles, rank correlation (Kendall's tau_b, Yilmaz et al.'s
//! tau_ap), paired significance tests (Student's t, Wilcoxon's signed rank, sign-flip
//! randomization, the paired bootstrap, the randomised Tukey HSD) with corrections for multiple
//! comparisons and the comparison of pairs of runs, the summaries the reports print
//! (mean/min/max spreads, rank changes, swapped pairs), and probabilities on the log-odds scale
//! ([`log_odds`]).
//!
//! Everything here is a pure function of slices of scores or ranks: no I/O, no global state, and
//! randomness only through a caller-supplied `Rng` or, for [`comparison`], a caller-supplied
//! seed. Scoring runs lives in [`crate::eval`]; turning
//! these figures into files lives in the report layer.
//!
//! Conventions shared by every function:
//! - Higher scores are better; rank 1 is the best run; tied scores share the average of the ranks
//!   they span (so ranks are `f64`).
//! - `NaN` scores are ordered below every number and tie with each other (see
//!   [`compare_scores`]); the numeric tests in [`significance`] reject non-finite values instead.
//! - Two slices that describe the same runs or topics must have the same length; otherwise the
//!   function returns
//!   [`StatsError::LengthMismatch`](crate::base::error::StatsError::LengthMismatch) rather
//!   than panicking.

pub mod agreement;
pub mod comparison;
pub mod correction;
pub mod kendall;
pub mod leaderboard;
pub mod log_odds;
pub mod pair_changes;
mod paired;
pub mod rank;
pub mod resampling;
mod sign_flips;
pub mod significance;
pub mod summary;
pub mod wilcoxon;

pub use kendall::{tau_ap, tau_b};
pub use rank::{compare_scores, dominant_rank, official_ranks, DominantRank};
pub use significance::{
    paired_t_test, randomization_test, TTest, DEFAULT_RANDOMIZATION_PERMUTATIONS,
};
pub use summary::{swapped_pairs, RankComparison, RunChange, Spread};
