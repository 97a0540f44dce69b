//! Precision at a cutoff: `P_k` / `P@k`. Ranks past the end of a short run count as
//! non-relevant: 4 relevant among 15 retrieved gives P_20 = 4/20 (trec_eval's convention).
//! Also `Rprec`: precision at rank R, R the number of relevant documents.

use crate::base::Grade;
use crate::eval::ranking::JudgedRanking;

/// Relevant documents in the top `cutoff`, divided by `cutoff`.
pub fn precision(ranking: &JudgedRanking, cutoff: Option<usize>, relevance_level: Grade) -> f64 {
    let depth = cutoff.unwrap_or(ranking.retrieved());
    if depth == 0 {
        return 0.0;
    }
    ranking.relevant_retrieved(Some(depth), relevance_level) as f64 / depth as f64
}

/// R-precision: precision at rank R, R = the topic's number of relevant documents (0 when none).
pub fn r_precision(ranking: &JudgedRanking, _cutoff: Option<usize>, relevance_level: Grade) -> f64 {
    let relevant_total = ranking.counts.relevant(relevance_level);
    if relevant_total == 0 {
        return 0.0;
    }
    ranking.relevant_retrieved(Some(relevant_total), relevance_level) as f64 / relevant_total as f64
}
