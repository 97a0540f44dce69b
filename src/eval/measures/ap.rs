//! Average precision: `map` / `AP`, and `map_cut_k` / `AP@k` (only the top k count; the
//! denominator stays the number of relevant documents, as trec_eval's `map_cut`).
//! Cite: Buckley and Voorhees, "Evaluating evaluation measure stability", SIGIR 2000.

use crate::eval::measures::contract::MeasureArgs;
use crate::eval::ranking::JudgedRanking;

/// The mean of the precision at each relevant retrieved document, over all relevant documents.
pub fn average_precision(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let relevance_level = args.relevance_level;
    let relevant_total = ranking.counts.relevant(relevance_level);
    if relevant_total == 0 {
        return 0.0;
    }
    let mut relevant_so_far = 0usize;
    let mut precision_sum = 0.0;
    for (pos, grade) in ranking.top(args.cutoff).iter().enumerate() {
        if matches!(grade, Some(g) if crate::base::is_relevant(*g, relevance_level)) {
            relevant_so_far += 1;
            precision_sum += relevant_so_far as f64 / (pos + 1) as f64;
        }
    }
    precision_sum / relevant_total as f64
}

/// The logarithm that `gm_map` averages: ln max(AP, 0.00001), the floor keeping a topic
/// without a relevant retrieved document finite.
pub fn log_average_precision(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    log_floored(average_precision(ranking, args))
}

/// ln max(value, 0.00001): trec_eval's geometric-mean floor, which it chose because it prints
/// four decimals.
pub(crate) fn log_floored(value: f64) -> f64 {
    const FLOOR: f64 = 0.00001;
    value.max(FLOOR).ln()
}
