//! Binary preference: `bpref` / `Bpref`, as trec_eval computes it: for each relevant retrieved
//! document, the fraction of the first R judged non-relevant documents ranked above it is a
//! penalty; unjudged documents and negative grades are skipped. Cite: Buckley and Voorhees,
//! "Retrieval evaluation with incomplete information", SIGIR 2004.

use crate::base::is_relevant;
use crate::eval::measures::contract::MeasureArgs;
use crate::eval::ranking::JudgedRanking;

/// bpref over the whole ranking (or the top `cutoff`).
pub fn bpref(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let relevance_level = args.relevance_level;
    let relevant_total = ranking.counts.relevant(relevance_level);
    if relevant_total == 0 {
        return 0.0;
    }
    let nonrelevant_total = ranking.counts.nonrelevant(relevance_level);
    let denominator = nonrelevant_total.min(relevant_total) as f64;
    let mut nonrelevant_so_far = 0usize;
    let mut sum = 0.0;
    for grade in ranking.top(args.cutoff).iter().flatten() {
        if *grade < 0 {
            continue;
        }
        if is_relevant(*grade, relevance_level) {
            sum += if nonrelevant_so_far > 0 {
                1.0 - nonrelevant_so_far.min(relevant_total) as f64 / denominator
            } else {
                1.0
            };
        } else {
            nonrelevant_so_far += 1;
        }
    }
    sum / relevant_total as f64
}

/// The logarithm that `gm_bpref` averages: ln max(bpref, 0.00001).
pub fn log_bpref(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    crate::eval::measures::ap::log_floored(bpref(ranking, args))
}
