//! ranx's discounted cumulative gain: `dcg`, `dcg_burges`, `ndcg_burges` (ranx's `ndcg` is
//! trec_eval's `ndcg` / `ndcg_cut`). Only grades >= the relevance level gain; the gain is the
//! grade (Järvelin and Kekäläinen, ACM TOIS 20(4), 2002) or 2^grade − 1 (Burges et al., ICML
//! 2005); the discount is log2(rank + 1). The ideal ranking orders the topic's gaining
//! documents by gain, cut at the same k; nDCG is 0 when nothing gains.

use crate::base::{is_relevant, Grade};
use crate::eval::measures::contract::MeasureArgs;
use crate::eval::measures::ndcg::discount;
use crate::eval::ranking::JudgedRanking;

/// How a grade becomes a gain.
#[derive(Debug, Clone, Copy)]
enum GainRule {
    /// The grade itself.
    Jarvelin,
    /// 2^grade − 1.
    Burges,
}

impl GainRule {
    fn gain(self, grade: Grade) -> f64 {
        match self {
            GainRule::Jarvelin => f64::from(grade),
            GainRule::Burges => 2f64.powi(grade) - 1.0,
        }
    }
}

/// DCG of the top `args.cutoff` with gain `rule`.
fn dcg_with(ranking: &JudgedRanking, args: &MeasureArgs, rule: GainRule) -> f64 {
    ranking
        .top(args.cutoff)
        .iter()
        .enumerate()
        .filter_map(|(pos, grade)| match *grade {
            Some(grade) if is_relevant(grade, args.relevance_level) => {
                Some(rule.gain(grade) / discount(pos))
            }
            _ => None,
        })
        .fold(0.0, |total, value| total + value)
}

/// The DCG of the ideal ranking at `args.cutoff` with gain `rule`.
fn ideal_dcg_with(ranking: &JudgedRanking, args: &MeasureArgs, rule: GainRule) -> f64 {
    ranking
        .counts
        .ideal_gains()
        .map(|gain| gain as Grade)
        .filter(|&grade| is_relevant(grade, args.relevance_level))
        .take(args.cutoff.unwrap_or(usize::MAX))
        .enumerate()
        .map(|(pos, grade)| rule.gain(grade) / discount(pos))
        .fold(0.0, |total, value| total + value)
}

/// ranx's `dcg`: gains are the grades.
pub fn dcg(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    dcg_with(ranking, args, GainRule::Jarvelin)
}

/// ranx's `dcg_burges`: gains are 2^grade − 1.
pub fn dcg_burges(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    dcg_with(ranking, args, GainRule::Burges)
}

/// ranx's `ndcg_burges`: `dcg_burges` over the ideal ranking's.
pub fn ndcg_burges(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let ideal = ideal_dcg_with(ranking, args, GainRule::Burges);
    if ideal > 0.0 {
        dcg_with(ranking, args, GainRule::Burges) / ideal
    } else {
        0.0
    }
}
