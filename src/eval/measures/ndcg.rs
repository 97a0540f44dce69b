//! Normalised discounted cumulative gain: `ndcg` / `nDCG` over the whole ranking and
//! `ndcg_cut_k` / `nDCG@k`. Gains are the raw grades (grades <= 0 gain nothing), the discount
//! is log2(rank + 1), and the ideal ranking orders all judged documents of the topic by grade
//! (trec_eval's default). Cite: Järvelin and Kekäläinen, ACM TOIS 20(4), 2002.

use crate::base::Grade;
use crate::eval::ranking::JudgedRanking;

/// The log2(rank + 1) discount of the document at 0-based position `pos`.
#[inline]
pub(crate) fn discount(pos: usize) -> f64 {
    ((pos + 2) as f64).log2()
}

/// DCG of the top `cutoff` over the ideal DCG at the same cutoff; 0 when nothing is relevant.
pub fn ndcg(ranking: &JudgedRanking, cutoff: Option<usize>, _relevance_level: Grade) -> f64 {
    let dcg: f64 = ranking
        .top(cutoff)
        .iter()
        .enumerate()
        .filter_map(|(pos, grade)| match grade {
            Some(gain) if *gain > 0 => Some(f64::from(*gain) / discount(pos)),
            _ => None,
        })
        .sum();
    let ideal_depth = cutoff.unwrap_or(usize::MAX);
    let ideal: f64 = ranking
        .counts
        .ideal_gains()
        .take(ideal_depth)
        .enumerate()
        .map(|(pos, gain)| gain / discount(pos))
        .sum();
    if ideal > 0.0 {
        dcg / ideal
    } else {
        0.0
    }
}
