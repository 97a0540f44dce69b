//! Set measures, which ignore the order of the retrieved documents: `set_P`, `set_recall`,
//! `set_relative_P` (set precision over its best possible value), `set_map` (set precision ×
//! set recall), `set_F` (van Rijsbergen's F with β = 1 unless given: `set_F.0.5`) and `utility`
//! (a × relevant retrieved + b × non-relevant retrieved + c × relevant missed + d × the rest of
//! the collection, coefficients 1, -1, 0, 0 unless given: `utility.2,-1,0,0`; the collection
//! holds trec_eval's `-N` documents, none unless given). Each is 0 for an empty ranking.

use crate::eval::measures::contract::MeasureArgs;
use crate::eval::ranking::JudgedRanking;

/// The retrieved, relevant and relevant retrieved counts.
fn counts(ranking: &JudgedRanking, args: &MeasureArgs) -> (f64, f64, f64) {
    (
        ranking.retrieved() as f64,
        ranking.counts.relevant(args.relevance_level) as f64,
        ranking.relevant_retrieved(None, args.relevance_level) as f64,
    )
}

/// `numerator / denominator`, or 0 when the denominator is 0 (an empty ranking or topic).
fn ratio(numerator: f64, denominator: f64) -> f64 {
    if denominator > 0.0 {
        numerator / denominator
    } else {
        0.0
    }
}

/// Relevant retrieved over retrieved.
pub fn precision(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let (retrieved, _, relevant_retrieved) = counts(ranking, args);
    ratio(relevant_retrieved, retrieved)
}

/// Relevant retrieved over relevant.
pub fn recall(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let (_, relevant, relevant_retrieved) = counts(ranking, args);
    ratio(relevant_retrieved, relevant)
}

/// Relevant retrieved over min(retrieved, relevant).
pub fn relative_precision(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let (retrieved, relevant, relevant_retrieved) = counts(ranking, args);
    ratio(relevant_retrieved, retrieved.min(relevant))
}

/// Relevant retrieved² over (retrieved × relevant).
pub fn precision_times_recall(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let (retrieved, relevant, relevant_retrieved) = counts(ranking, args);
    ratio(
        relevant_retrieved * relevant_retrieved,
        retrieved * relevant,
    )
}

/// (β + 1) P R / (β P + R).
pub fn f_measure(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let beta = args.params.map_or(1.0, |params| params.values()[0]);
    let (retrieved, relevant, relevant_retrieved) = counts(ranking, args);
    if relevant_retrieved == 0.0 {
        return 0.0;
    }
    let precision = relevant_retrieved / retrieved;
    let recall = relevant_retrieved / relevant;
    (beta + 1.0) * precision * recall / (beta * precision + recall)
}

/// a × relevant retrieved + b × non-relevant retrieved + c × relevant missed + d × the rest.
pub fn utility(ranking: &JudgedRanking, args: &MeasureArgs) -> f64 {
    let [a, b, c, d] = match args.params.map(|params| params.values()) {
        Some(&[a, b, c, d]) => [a, b, c, d],
        _ => [1.0, -1.0, 0.0, 0.0],
    };
    let (retrieved, relevant, relevant_retrieved) = counts(ranking, args);
    if retrieved == 0.0 {
        return 0.0;
    }
    let collection = args.documents_in_collection as f64;
    a * relevant_retrieved
        + b * (retrieved - relevant_retrieved)
        + c * (relevant - relevant_retrieved)
        + d * (collection + relevant_retrieved - retrieved - relevant)
}
