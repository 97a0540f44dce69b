//! Recall at a cutoff: `recall_k` / `R@k`: relevant documents in the top k over all relevant
//! documents (0 when the topic has none).

use crate::base::Grade;
use crate::eval::ranking::JudgedRanking;

/// Relevant documents in the top `cutoff` (all retrieved without one) over all relevant ones.
pub fn recall(ranking: &JudgedRanking, cutoff: Option<usize>, relevance_level: Grade) -> f64 {
    let relevant_total = ranking.counts.relevant(relevance_level);
    if relevant_total == 0 {
        return 0.0;
    }
    ranking.relevant_retrieved(cutoff, relevance_level) as f64 / relevant_total as f64
}
