//! Reciprocal rank: `recip_rank` / `RR`, and `RR@k` (0 when no relevant document is in the top k).
//! Success: `success_k` / `Success@k`, 1 when a relevant document is in the top k.

use crate::eval::measures::contract::MeasureArgs;
use crate::eval::ranking::JudgedRanking;

/// One over the rank of the first relevant document in the top `cutoff`, or 0.
pub fn reciprocal_rank(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let cutoff = args.cutoff;
    let relevance_level = args.relevance_level;
    let depth = ranking.top(cutoff).len();
    (0..depth)
        .find(|&pos| ranking.is_relevant_at(pos, relevance_level))
        .map_or(0.0, |pos| 1.0 / (pos + 1) as f64)
}

/// 1 when the top `cutoff` holds a relevant document, else 0.
pub fn success(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    f64::from(u8::from(
        ranking.relevant_retrieved(args.cutoff, args.relevance_level) > 0,
    ))
}
