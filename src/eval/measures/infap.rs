//! Inferred average precision: `infAP` (Yilmaz and Aslam, "Estimating average precision with
//! incomplete and imperfect judgments", CIKM 2006), as trec_eval computes it. The qrels are a
//! sample of the pool: a document they grade negatively was pooled but not judged, one they
//! lack was not pooled. At each judged relevant document, the precision above it is estimated
//! from the judged documents above it, the unpooled ones counting as non-relevant and the
//! pooled unjudged ones as relevant in the judged proportion.

use crate::base::is_relevant;
use crate::eval::measures::contract::MeasureArgs;
use crate::eval::ranking::JudgedRanking;

/// Keeps the estimate defined when nothing above a document is judged.
const EPSILON: f64 = 0.00001;

/// infAP over the whole ranking.
pub fn inferred_average_precision(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let (mut relevant, mut nonrelevant, mut pooled_unjudged) = (0usize, 0usize, 0usize);
    let mut sum = 0.0;
    for (pos, grade) in ranking.grades.iter().enumerate() {
        match *grade {
            None => continue,
            Some(grade) if grade < 0 => pooled_unjudged += 1,
            Some(grade) if !is_relevant(grade, args.relevance_level) => nonrelevant += 1,
            Some(_) => {
                relevant += 1;
                sum += if pos == 0 {
                    1.0
                } else {
                    let above = pos as f64;
                    let judged_above = (relevant - 1 + nonrelevant) as f64;
                    1.0 / (above + 1.0)
                        + (above / (above + 1.0))
                            * ((judged_above + pooled_unjudged as f64) / above)
                            * (((relevant - 1) as f64 + EPSILON) / (judged_above + 2.0 * EPSILON))
                };
            }
        }
    }
    let relevant_total = ranking.counts.relevant(args.relevance_level);
    if relevant_total == 0 {
        sum
    } else {
        sum / relevant_total as f64
    }
}
