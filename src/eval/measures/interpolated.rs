//! Interpolated precision: `iprec_at_recall_L`, the highest precision at any rank at or below
//! the one where the run reaches recall L (the recall-precision graph), and `11pt_avg`, its mean
//! over recall levels (0, 0.1, .. 1 unless given: `11pt_avg..25,.5,.75`). Recall L stands for
//! the first ⌊L × R + 0.9⌋ relevant documents in trec_eval 9.0.8 and for L × R rounded in 10.0;
//! a level the run never reaches scores 0, and level 0 scores as the first relevant document.

use crate::eval::measures::contract::MeasureArgs;
use crate::eval::ranking::JudgedRanking;

/// trec_eval's default recall levels for `11pt_avg`.
const ELEVEN_POINTS: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];

/// Interpolated precision at the measure's recall level.
pub fn precision_at_recall(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let level = args.params.map_or(0.0, |params| params.values()[0]);
    at_level(ranking, args, level)
}

/// Interpolated precision averaged over the measure's recall levels.
pub fn average_over_recall_levels(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let levels = args
        .params
        .map_or(&ELEVEN_POINTS[..], |params| params.values());
    let sum: f64 = levels
        .iter()
        .map(|&level| at_level(ranking, args, level))
        .fold(0.0, |total, value| total + value);
    sum / levels.len() as f64
}

/// Walks the ranking from the bottom, keeping the highest precision seen, until the relevant
/// document that reaches `level`.
fn at_level(ranking: &JudgedRanking, args: &MeasureArgs, level: f64) -> f64 {
    let retrieved = ranking.retrieved();
    let relevant_retrieved = ranking.relevant_retrieved(None, args.relevance_level);
    let relevant_total = ranking.counts.relevant(args.relevance_level);
    let needed = args.version.relevant_at_recall(level, relevant_total);
    if retrieved == 0 || relevant_retrieved == 0 || needed > relevant_retrieved as i64 {
        return 0.0;
    }
    let needed = needed.max(1) as usize;
    let mut relevant_so_far = relevant_retrieved;
    let mut best = relevant_retrieved as f64 / retrieved as f64;
    for rank in (1..=retrieved).rev() {
        best = best.max(relevant_so_far as f64 / rank as f64);
        if ranking.is_relevant_at(rank - 1, args.relevance_level) {
            if relevant_so_far == needed {
                break;
            }
            relevant_so_far -= 1;
        }
    }
    best
}
