//! Average precision: `map` / `AP`, and `map_cut_k` / `AP@k` (only the top k count; the
//! denominator stays the number of relevant documents, as trec_eval's `map_cut`).
//! Cite: Buckley and Voorhees, "Evaluating evaluation measure stability", SIGIR 2000.

use crate::base::Grade;
use crate::eval::ranking::JudgedRanking;

/// The mean of the precision at each relevant retrieved document, over all relevant documents.
pub fn average_precision(
    ranking: &JudgedRanking,
    cutoff: Option<usize>,
    relevance_level: Grade,
) -> f64 {
    let relevant_total = ranking.counts.relevant(relevance_level);
    if relevant_total == 0 {
        return 0.0;
    }
    let mut relevant_so_far = 0usize;
    let mut precision_sum = 0.0;
    for (pos, grade) in ranking.top(cutoff).iter().enumerate() {
        if matches!(grade, Some(g) if crate::base::is_relevant(*g, relevance_level)) {
            relevant_so_far += 1;
            precision_sum += relevant_so_far as f64 / (pos + 1) as f64;
        }
    }
    precision_sum / relevant_total as f64
}
