//! Recall at a cutoff: `recall_k` / `R@k`: relevant documents in the top k over all relevant
//! documents (0 when the topic has none).

use crate::eval::measures::contract::MeasureArgs;
use crate::eval::ranking::JudgedRanking;

/// Relevant documents in the top `cutoff` (all retrieved without one) over all relevant ones.
pub fn recall(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let relevant_total = ranking.counts.relevant(args.relevance_level);
    if relevant_total == 0 {
        return 0.0;
    }
    ranking.relevant_retrieved(args.cutoff, args.relevance_level) as f64 / relevant_total as f64
}
