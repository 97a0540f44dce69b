//! trec_eval-compatible evaluation (see docs/eval.md).
//!
//! A run is evaluated on the topics present in both the run and the qrels, judged topics
//! without relevant documents included; run topics absent from the qrels are ignored with a
//! warning; with `complete` (trec_eval `-c`) qrels topics absent from the run are evaluated as
//! empty rankings. The summary is the arithmetic mean over topics, a sum for counts.

pub mod evaluator;
pub mod family;
pub mod format;
pub mod measure;
pub mod measures;
pub mod params;
pub mod ranking;
pub mod ranx_names;
pub mod registry;
pub mod selection;
pub mod trec_names;
pub mod zscores;

#[cfg(test)]
mod tests;

pub use evaluator::{
    evaluate_runs, score_topic, summarize, Collection, EvalOptions, Evaluator, RunEvaluation,
};
pub use family::Family;
pub use measure::Measure;
pub use params::TrecEvalVersion;
pub use ranking::{GradeCounts, JudgedRanking};
pub use selection::Selection;

/// The measures `reusesim eval` reports when none is named: trec_eval's.
pub const DEFAULT_MEASURES: &str = "official";

/// Parses a comma- or space-separated list of measure specifications for a job that scores
/// runs (the study, the audit, the backtest): as [`Selection::parse`], in the order named. The
/// nicknames' `runid`, `num_q` and `relstring` are dropped, as they score nothing.
///
/// # Errors
/// As [`Selection::parse`], and for `runid` or `relstring` named outright.
pub fn parse_measures<S: AsRef<str>>(specs: &[S]) -> crate::base::error::Result<Vec<Measure>> {
    let selection = Selection::parse(specs, TrecEvalVersion::default())?;
    let from_nickname = specs
        .iter()
        .flat_map(|spec| selection::split_specifications(spec.as_ref()))
        .any(|piece| trec_names::NICKNAMES.iter().any(|(name, _)| *name == piece));
    if !from_nickname && (selection.runid || selection.relstring.is_some()) {
        return Err(crate::base::error::Error::Measure(
            "runid and relstring are lines of trec_eval's output, not scores: only \
             `reusesim eval` prints them"
                .into(),
        ));
    }
    let measures: Vec<Measure> = selection
        .measures
        .into_iter()
        .filter(|measure| !(from_nickname && measure.family == Family::Topics))
        .collect();
    if measures.is_empty() {
        return Err(crate::base::error::Error::Measure(
            "no measure given".into(),
        ));
    }
    Ok(measures)
}

/// Checks that every measure can rank runs, as `job` (the study, the audit, the backtest) ranks
/// runs by each of them.
///
/// # Errors
/// [`Error::Measure`](crate::base::error::Error::Measure) naming the first measure that cannot,
/// and why.
pub fn check_rankable(measures: &[Measure], job: &str) -> crate::base::error::Result<()> {
    for measure in measures {
        if let Some(reason) = measure.family.unrankable_reason() {
            return Err(crate::base::error::Error::Measure(format!(
                "{measure} cannot rank runs in {job}: {reason}"
            )));
        }
    }
    Ok(())
}

/// Checks that `job` (the audit, the backtest) can estimate every measure's score: that it
/// can rank runs by it, and that the score moves by its topics' changes.
///
/// # Errors
/// [`Error::Measure`](crate::base::error::Error::Measure) naming the first measure that
/// cannot, and why.
pub fn check_auditable(measures: &[Measure], job: &str) -> crate::base::error::Result<()> {
    check_rankable(measures, job)?;
    for measure in measures {
        if let Some(reason) = measure.family.unauditable_reason() {
            return Err(crate::base::error::Error::Measure(format!(
                "{measure} cannot be estimated in {job}: {reason}"
            )));
        }
    }
    Ok(())
}
