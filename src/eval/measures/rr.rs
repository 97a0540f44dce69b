//! Reciprocal rank: `recip_rank` / `RR`, and `RR@k` (0 when no relevant document is in the top k).

use crate::base::Grade;
use crate::eval::ranking::JudgedRanking;

/// One over the rank of the first relevant document in the top `cutoff`, or 0.
pub fn reciprocal_rank(
    ranking: &JudgedRanking,
    cutoff: Option<usize>,
    relevance_level: Grade,
) -> f64 {
    let depth = ranking.top(cutoff).len();
    (0..depth)
        .find(|&pos| ranking.is_relevant_at(pos, relevance_level))
        .map_or(0.0, |pos| 1.0 / (pos + 1) as f64)
}
