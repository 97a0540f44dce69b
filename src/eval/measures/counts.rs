//! Counts: `num_ret` / `NumRet`, `num_rel` / `NumRel`, `num_rel_ret` / `NumRelRet`. Their
//! summary over topics is a sum, not a mean, as in trec_eval.

use crate::base::Grade;
use crate::eval::ranking::JudgedRanking;

/// The number of retrieved documents (in the top `cutoff`, if given).
pub fn retrieved(ranking: &JudgedRanking, cutoff: Option<usize>, _relevance_level: Grade) -> f64 {
    ranking.top(cutoff).len() as f64
}

/// The number of relevant documents of the topic.
pub fn relevant(ranking: &JudgedRanking, _cutoff: Option<usize>, relevance_level: Grade) -> f64 {
    ranking.counts.relevant(relevance_level) as f64
}

/// The number of relevant retrieved documents (in the top `cutoff`, if given).
pub fn relevant_retrieved(
    ranking: &JudgedRanking,
    cutoff: Option<usize>,
    relevance_level: Grade,
) -> f64 {
    ranking.relevant_retrieved(cutoff, relevance_level) as f64
}
