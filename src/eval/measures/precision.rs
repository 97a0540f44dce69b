//! Precision at a cutoff: `P_k` / `P@k`. Ranks past the end of a short run count as
//! non-relevant: 4 relevant among 15 retrieved gives P_20 = 4/20 (trec_eval's convention).
//! Also `Rprec`: precision at rank R, R the number of relevant documents; `Rprec_mult_m`:
//! precision at rank ⌊m × R + 0.9⌋; and `relative_P_k`: precision at k over the best a run can
//! reach there, min(k, R) / k.

use crate::eval::measures::contract::MeasureArgs;
use crate::eval::ranking::JudgedRanking;

/// Relevant documents in the top `cutoff`, divided by `cutoff`.
pub fn precision(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let cutoff = args.cutoff;
    let relevance_level = args.relevance_level;
    let depth = cutoff.unwrap_or(ranking.retrieved());
    if depth == 0 {
        return 0.0;
    }
    ranking.relevant_retrieved(Some(depth), relevance_level) as f64 / depth as f64
}

/// R-precision: precision at rank R, R = the topic's number of relevant documents (0 when none).
pub fn r_precision(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let relevance_level = args.relevance_level;
    let relevant_total = ranking.counts.relevant(relevance_level);
    if relevant_total == 0 {
        return 0.0;
    }
    ranking.relevant_retrieved(Some(relevant_total), relevance_level) as f64 / relevant_total as f64
}

/// Precision at rank ⌊m × R + 0.9⌋, m the measure's level (trec_eval's `Rprec_mult`, whose
/// rounding did not change in 10.0); 0 when that rank is 0.
pub fn precision_at_r_multiple(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let multiple = args.params.map_or(1.0, |params| params.values()[0]);
    let relevant_total = ranking.counts.relevant(args.relevance_level);
    let depth = (multiple * relevant_total as f64 + 0.9) as usize;
    if depth == 0 {
        return 0.0;
    }
    ranking.relevant_retrieved(Some(depth), args.relevance_level) as f64 / depth as f64
}

/// Relevant documents in the top k over min(k, R); 0 when the topic has no relevant document.
pub fn relative_precision(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let relevant_total = ranking.counts.relevant(args.relevance_level);
    let depth = args.cutoff.unwrap_or(ranking.retrieved());
    if relevant_total == 0 || depth == 0 {
        return 0.0;
    }
    ranking.relevant_retrieved(Some(depth), args.relevance_level) as f64
        / depth.min(relevant_total) as f64
}
