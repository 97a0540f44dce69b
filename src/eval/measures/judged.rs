//! Judgment coverage of a ranking's top:
//! - `judged_k` / `Judged@k` (ir_measures): the fraction of the top min(k, retrieved) documents
//!   that appear in the qrels with any grade, negative grades included; 0 when nothing was
//!   retrieved (MacAvaney et al., "ABNIRML", and Sakai's condensed-list analyses).
//! - `unj_k` (trec_eval 10, `m_unjudged.c`): the number of unjudged documents in the top k over
//!   k; documents past the end of a short run count as judged, and, as in trec_eval, a negative
//!   grade ("in the pool but unjudged") counts as unjudged.

use crate::eval::measures::contract::MeasureArgs;
use crate::eval::ranking::JudgedRanking;

/// The judged fraction of the top min(`cutoff`, retrieved).
pub fn judged(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let cutoff = args.cutoff;
    let top = ranking.top(cutoff);
    if top.is_empty() {
        return 0.0;
    }
    top.iter().filter(|grade| grade.is_some()).count() as f64 / top.len() as f64
}

/// The unjudged count in the top `cutoff` over `cutoff` (over all retrieved without a cutoff).
pub fn unjudged(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let cutoff = args.cutoff;
    let top = ranking.top(cutoff);
    let depth = cutoff.unwrap_or(top.len());
    if depth == 0 {
        return 0.0;
    }
    let unjudged = top
        .iter()
        .filter(|grade| !matches!(grade, Some(g) if *g >= 0))
        .count();
    unjudged as f64 / depth as f64
}
