//! Expected reciprocal rank: `ERR@k` (Chapelle, Metzler, Zhang and Grinspan, "Expected
//! reciprocal rank for graded relevance", CIKM 2009), as the TREC Web track's `gdeval.pl`
//! computes it (ir_measures' provider): a user stops at a document of grade g with probability
//! (2^g - 1) / 2^4, 4 being gdeval's highest grade, and ERR@k = Σ over ranks i <= k of that
//! probability × the chance of reaching rank i / i. Grades <= 0 and unjudged documents stop no
//! user; grades above 4, which gdeval refuses, count as 4.

use crate::base::Grade;
use crate::eval::measures::contract::MeasureArgs;
use crate::eval::ranking::JudgedRanking;

/// gdeval's highest grade: a document of this grade stops 15 users in 16.
const HIGHEST_GRADE: Grade = 4;

/// The probability that a user stops at a document of `grade`.
fn stop_probability(grade: Option<Grade>) -> f64 {
    let grade = grade.unwrap_or(0).clamp(0, HIGHEST_GRADE);
    f64::from((1 << grade) - 1) / f64::from(1 << HIGHEST_GRADE)
}

/// ERR of the top `cutoff` (the whole ranking without one).
pub fn expected_reciprocal_rank(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let cutoff = args.cutoff;
    let mut reaching = 1.0;
    let mut score = 0.0;
    for (pos, &grade) in ranking.top(cutoff).iter().enumerate() {
        let stop = stop_probability(grade);
        score += stop * reaching / (pos + 1) as f64;
        reaching *= 1.0 - stop;
    }
    score
}
