//! Normalised discounted cumulative gain: `ndcg` / `nDCG` over the whole ranking and
//! `ndcg_cut_k` / `nDCG@k`. Gains are the grades unless `ndcg`'s parameters give others
//! (`ndcg.1=3,2=9`; see [`Gains`]), the discount is log2(rank + 1), and the ideal ranking
//! orders all judged documents of the topic by gain (trec_eval's). Cite: Järvelin and
//! Kekäläinen, ACM TOIS 20(4), 2002.

use crate::eval::measures::contract::MeasureArgs;
use crate::eval::measures::gain_lookup::Gains;
use crate::eval::ranking::JudgedRanking;

/// The log2(rank + 1) discount of the document at 0-based position `pos`.
#[inline]
pub(crate) fn discount(pos: usize) -> f64 {
    ((pos + 2) as f64).log2()
}

/// DCG of the top `cutoff` over the ideal DCG at the same cutoff; 0 when nothing is relevant.
pub fn ndcg(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let gains = Gains::new(ranking, args.params);
    let dcg: f64 = ranking
        .top(args.cutoff)
        .iter()
        .enumerate()
        .map(|(pos, &grade)| (pos, gains.gain(grade)))
        .filter(|&(_, gain)| gain != 0.0)
        .map(|(pos, gain)| gain / discount(pos))
        .fold(0.0, |total, value| total + value);
    let ideal: f64 = gains
        .ideal()
        .take(args.cutoff.unwrap_or(usize::MAX))
        .enumerate()
        .map(|(pos, gain)| gain / discount(pos))
        .fold(0.0, |total, value| total + value);
    if ideal > 0.0 {
        dcg / ideal
    } else {
        0.0
    }
}
