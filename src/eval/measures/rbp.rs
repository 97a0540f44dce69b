//! Rank-biased precision: `RBP(p=0.8)`, `RBP(rel=2,p=0.95)@10`, and its residual
//! `RBPResidual(p=0.8)`. A user reads the first document and each next one with probability
//! p (the persistence); RBP = (1 - p) × Σ relevant(i) × p^(i-1) over ranks i, binary relevance
//! at the relevance level, so it lies in [0, 1) and a cutoff k stops the sum at rank k.
//!
//! The residual (Moffat and Zobel, "Rank-biased precision for measurement of retrieval
//! effectiveness", ACM TOIS 27(1), 2008) is how much RBP could still rise: the weight of every
//! unjudged document in the ranking plus the weight of the ranks the run leaves empty, p^n (up
//! to the cutoff: p^n - p^k). RBP + residual is RBP with every unjudged document and missing
//! rank relevant. A document is unjudged when the qrels lack it or grade it negatively
//! (trec_eval's "in the pool but unjudged").
//!
//! trec_eval's own `rbp` and `rbp_resid` differ: `rbp` is graded, each grade's gain (see
//! [`Gains`]) rescaled into [0, 1] when any lies outside it, with p = 0.9 unless given
//! (`rbp.p=0.8`), and `rbp_resid` is p^n + (1 - p) × Σ p^(i-1) over unjudged ranks i, n the
//! ranking's length, or 0 when every retrieved document is judged.

use crate::base::{is_relevant, Grade};
use crate::eval::measures::contract::MeasureArgs;
use crate::eval::measures::gain_lookup::Gains;
use crate::eval::ranking::JudgedRanking;

/// RBP of the top `cutoff` (the whole ranking without one) with persistence `persistence`.
pub fn rbp(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let cutoff = args.cutoff;
    let relevance_level = args.relevance_level;
    let persistence = args.persistence;
    weighted_sum(
        ranking.top(cutoff),
        persistence,
        |grade| matches!(grade, Some(g) if is_relevant(g, relevance_level)),
    )
}

/// RBP's residual: the weight of the unjudged documents of the top `cutoff` and of the ranks
/// up to the cutoff (to infinity without one) that the run leaves empty.
pub fn residual(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let cutoff = args.cutoff;
    let persistence = args.persistence;
    let top = ranking.top(cutoff);
    let unjudged = weighted_sum(
        top,
        persistence,
        |grade| !matches!(grade, Some(g) if g >= 0),
    );
    let beyond_run = power(persistence, top.len());
    let beyond_cutoff = cutoff.map_or(0.0, |depth| power(persistence, depth));
    unjudged + beyond_run - beyond_cutoff
}

/// (1 - p) × Σ p^pos over the 0-based positions whose grade `counts`.
fn weighted_sum(
    grades: &[Option<Grade>],
    persistence: f64,
    counts: impl Fn(Option<Grade>) -> bool,
) -> f64 {
    let mut weight = 1.0 - persistence;
    let mut sum = 0.0;
    for &grade in grades {
        if counts(grade) {
            sum += weight;
        }
        weight *= persistence;
    }
    sum
}

/// p^depth, 0 once it underflows.
fn power(persistence: f64, depth: usize) -> f64 {
    i32::try_from(depth).map_or(0.0, |depth| persistence.powi(depth))
}

/// trec_eval's default persistence for `rbp` and `rbp_resid`.
const TREC_EVAL_PERSISTENCE: f64 = 0.9;

/// The persistence `rbp.p=X` gives, else trec_eval's default.
fn trec_eval_persistence(args: &MeasureArgs) -> f64 {
    args.params
        .and_then(|params| params.pair("p"))
        .unwrap_or(TREC_EVAL_PERSISTENCE)
}

/// trec_eval's graded `rbp` over the whole ranking.
pub fn graded_rbp(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let persistence = trec_eval_persistence(args);
    let gains = Gains::new(ranking, args.params).into_unit_interval();
    let mut weight = 1.0;
    let mut sum = 0.0;
    for &grade in ranking.grades {
        let gain = gains.gain(grade);
        if gain != 0.0 {
            sum += gain * weight;
        }
        weight *= persistence;
    }
    (1.0 - persistence) * sum
}

/// trec_eval's `rbp_resid` over the whole ranking.
pub fn graded_residual(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let persistence = trec_eval_persistence(args);
    let mut weight = 1.0;
    let mut sum = 0.0;
    let mut unjudged = 0usize;
    for grade in ranking.grades {
        if !matches!(grade, Some(g) if *g >= 0) {
            unjudged += 1;
            sum += weight;
        }
        weight *= persistence;
    }
    if unjudged == 0 {
        0.0
    } else {
        weight + (1.0 - persistence) * sum
    }
}
