//! Counts: `num_q`, `num_ret` / `NumRet`, `num_rel` / `NumRel`, `num_rel_ret` / `NumRelRet`,
//! `num_nonrel_judged_ret`. Their summary over topics is a sum, not a mean, as in trec_eval.

use crate::base::is_relevant;
use crate::eval::measures::contract::MeasureArgs;
use crate::eval::ranking::JudgedRanking;

/// The number of retrieved documents (in the top `cutoff`, if given).
pub fn retrieved(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let cutoff = args.cutoff;
    ranking.top(cutoff).len() as f64
}

/// The number of relevant documents of the topic.
pub fn relevant(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let relevance_level = args.relevance_level;
    ranking.counts.relevant(relevance_level) as f64
}

/// The number of relevant retrieved documents (in the top `cutoff`, if given).
pub fn relevant_retrieved(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let cutoff = args.cutoff;
    let relevance_level = args.relevance_level;
    ranking.relevant_retrieved(cutoff, relevance_level) as f64
}

/// One per topic: `num_q` counts the topics.
pub fn one(_ranking: &JudgedRanking, _args: &MeasureArgs) -> f64 {
    1.0
}

/// The number of retrieved documents judged non-relevant (0 <= grade < the relevance level).
pub fn nonrelevant_judged_retrieved(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    ranking
        .grades
        .iter()
        .filter(
            |grade| matches!(grade, Some(g) if *g >= 0 && !is_relevant(*g, args.relevance_level)),
        )
        .count() as f64
}
