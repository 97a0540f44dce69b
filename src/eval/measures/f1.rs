//! ranx's `f1@k`: the harmonic mean of precision at k (relevant documents in the top k over k,
//! whatever the ranking's length) and recall at k. Without k it is `set_F`: precision over the
//! whole ranking. 0 when nothing relevant is retrieved.

use crate::eval::measures::contract::MeasureArgs;
use crate::eval::ranking::JudgedRanking;

/// 2 P R / (P + R) of the top `args.cutoff`.
pub fn f1(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let depth = args.cutoff.unwrap_or(ranking.retrieved()) as f64;
    let relevant = ranking.counts.relevant(args.relevance_level) as f64;
    let hits = ranking.relevant_retrieved(args.cutoff, args.relevance_level) as f64;
    if hits == 0.0 {
        return 0.0;
    }
    let precision = hits / depth;
    let recall = hits / relevant;
    2.0 * precision * recall / (precision + recall)
}
