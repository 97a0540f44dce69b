//! trec_eval's `-Z`: each per-topic value replaced by its z-score, (value − mean) / stddev,
//! the mean and standard deviation read for that topic and measure; the summaries are then
//! taken over the z-scores as over the values. A topic or measure the file lacks, or a zero
//! standard deviation with a value other than the mean, gives trec_eval's missing value.

use crate::eval::evaluator::{summarize, RunEvaluation};
use crate::eval::measure::Measure;
use crate::io::zscores::ZScores;

/// trec_eval's z-score for a value without a reference.
pub const MISSING_ZSCORE: f64 = -1_000_000.0;

/// `evaluation` with every per-topic value as a z-score and the summaries taken anew.
pub fn standardize(
    evaluation: &RunEvaluation,
    measures: &[Measure],
    zscores: &ZScores,
) -> RunEvaluation {
    let names: Vec<String> = measures.iter().map(ToString::to_string).collect();
    let topics: Vec<(String, Vec<f64>)> = evaluation
        .topics
        .iter()
        .map(|(topic, values)| {
            let standardized = values
                .iter()
                .zip(&names)
                .map(|(&value, name)| zscore(value, zscores.get(topic, name)))
                .collect();
            (topic.clone(), standardized)
        })
        .collect();
    let summary = summarize(measures, topics.iter().map(|(_, values)| &values[..]));
    RunEvaluation {
        topics,
        summary,
        ..evaluation.clone()
    }
}

fn zscore(value: f64, reference: Option<(f64, f64)>) -> f64 {
    match reference {
        Some((mean, stddev)) if stddev != 0.0 => (value - mean) / stddev,
        Some((mean, _)) if value == mean => 0.0,
        _ => MISSING_ZSCORE,
    }
}
