//! Normalised cumulative gain at a cutoff: `ncg_cut_k` / `NCG@k` = the sum of gains in the top k
//! over the sum of gains of the ideal top k, without discount (Rosset et al., "Optimizing query
//! evaluations using reinforcement learning for web search", SIGIR 2018). Gains are the raw
//! grades; grades <= 0 gain nothing.

use crate::eval::measures::contract::MeasureArgs;
use crate::eval::ranking::JudgedRanking;

/// Gain in the top `cutoff` over the ideal gain in the top `cutoff`; 0 when nothing is relevant.
pub fn ncg(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let cutoff = args.cutoff;
    let depth = cutoff.unwrap_or(usize::MAX);
    let gain: f64 = ranking
        .top(cutoff)
        .iter()
        .filter_map(|grade| grade.filter(|&g| g > 0).map(f64::from))
        .fold(0.0, |total, value| total + value);
    let ideal: f64 = ranking
        .counts
        .ideal_gains()
        .take(depth)
        .fold(0.0, |total, value| total + value);
    if ideal > 0.0 {
        gain / ideal
    } else {
        0.0
    }
}
