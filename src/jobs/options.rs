//! A job's options given as JSON, the way the Python package passes its keywords: a missing
//! option takes the job's default, an unknown one is refused, and a bad value is refused naming
//! the option (`expected learner to be one of pegasos, logistic, found "svm"`). Also every
//! job's defaults as JSON, which the Python package reads for its signatures and its tests.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::base::error::{Error, Result};

/// The options `text` gives (a JSON object), the job's defaults for the rest.
///
/// # Errors
/// [`Error::Invalid`] for text that is not a JSON object, an option the job does not know, or
/// a value of the wrong kind, naming the option.
pub fn from_json<T: DeserializeOwned>(text: &str) -> Result<T> {
    let given: Map<String, Value> = serde_json::from_str(text).map_err(|error| {
        Error::Invalid(format!("expected the options as a JSON object: {error}"))
    })?;
    serde_json::from_value(Value::Object(given.clone())).map_err(|error| {
        let Some((option, error)) = failing_option::<T>(&[], &given) else {
            return Error::Invalid(format!("expected valid options: {error}"));
        };
        let message = error.to_string();
        match message.strip_prefix("expected ") {
            Some(expected) => Error::Invalid(format!("expected {option} to be {expected}")),
            None => Error::Invalid(format!("{option}: {message}")),
        }
    })
}

/// The first option of `given` (under the options `path`, for nested ones such as the judge's)
/// that the job refuses on its own, with the reason: the innermost option named.
fn failing_option<T: DeserializeOwned>(
    path: &[&str],
    given: &Map<String, Value>,
) -> Option<(String, String)> {
    given.iter().find_map(|(option, value)| {
        let mut nested = path.to_vec();
        nested.push(option);
        let error = serde_json::from_value::<T>(wrapped(&nested, value.clone())).err()?;
        let inner = match value {
            Value::Object(options) => failing_option::<T>(&nested, options),
            _ => None,
        };
        Some(inner.unwrap_or_else(|| (option.clone(), error.to_string())))
    })
}

/// `value` under the keys of `path`, outermost first.
fn wrapped(path: &[&str], value: Value) -> Value {
    path.iter().rev().fold(value, |inner, key| {
        Value::Object(Map::from_iter([(key.to_string(), inner)]))
    })
}

/// `options` as a JSON object (the defaults of a job, for the Python package).
///
/// # Panics
/// Never: options serialise to JSON by construction (no map with non-string keys).
pub fn to_json<T: Serialize>(options: &T) -> String {
    serde_json::to_string(options).expect("a job's options serialise to JSON")
}

/// Every job's default options as one JSON object keyed by the job's name.
pub fn all_defaults() -> String {
    let jobs = [
        ("evaluate", value(&super::eval::EvaluateOptions::default())),
        ("compare", value(&super::compare::CompareOptions::default())),
        ("agree", value(&super::agree::AgreeOptions::default())),
        (
            "simulate",
            value(&super::simulate::SimulateOptions::default()),
        ),
        ("judge", value(&super::judge::JudgeJobOptions::default())),
        (
            "complete",
            value(&super::complete::CompleteOptions::default()),
        ),
        ("audit", value(&super::audit::AuditOptions::default())),
        (
            "backtest",
            value(&super::backtest::BacktestOptions::default()),
        ),
        ("plot", value(&super::plot::PlotOptions::default())),
        ("index", value(&super::index::IndexOptions::default())),
        ("synth", value(&super::synth::SynthOptions::default())),
    ];
    to_json(&Map::from_iter(
        jobs.into_iter()
            .map(|(job, options)| (job.to_string(), options)),
    ))
}

fn value<T: Serialize>(options: &T) -> Value {
    serde_json::to_value(options).expect("a job's options serialise to JSON")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::audit::{AuditOptions, RulesOptions};
    use crate::jobs::backtest::BacktestOptions;
    use crate::jobs::simulate::SimulateOptions;

    #[test]
    fn options_left_out_take_the_jobs_defaults() {
        let options: SimulateOptions =
            from_json(r#"{"seeds": 2, "judge": {"iterations": 7}}"#).expect("valid options");
        let defaults = SimulateOptions::default();
        let expected = SimulateOptions {
            seeds: 2,
            judge: crate::jobs::judge::JudgeOptions {
                iterations: 7,
                ..defaults.judge.clone()
            },
            ..defaults
        };
        assert_eq!(options, expected);
        assert_eq!(
            from_json::<SimulateOptions>("{}").unwrap(),
            SimulateOptions::default()
        );
    }

    #[test]
    fn a_bad_value_is_refused_naming_the_option_even_inside_a_group() {
        let error = from_json::<SimulateOptions>(r#"{"seeds": 2, "judge": {"carried": "keep"}}"#)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            r#"expected carried to be one of train, ignore, found "keep""#
        );
        let error = from_json::<SimulateOptions>(r#"{"seeds": "two"}"#).unwrap_err();
        assert!(
            error.to_string().starts_with("seeds: invalid type"),
            "{error}"
        );
    }

    #[test]
    fn an_unknown_option_is_refused() {
        let error = from_json::<SimulateOptions>(r#"{"seed": 2}"#).unwrap_err();
        assert!(
            error.to_string().contains("unknown field `seed`"),
            "{error}"
        );
        assert!(from_json::<SimulateOptions>("[1]").is_err());
    }

    #[test]
    fn the_rules_audit_and_backtest_share_are_flat_options_and_unknown_ones_are_refused() {
        let options: AuditOptions =
            from_json(r#"{"risk_threshold": 0.2, "budget": 5}"#).expect("valid options");
        assert_eq!(options.rules.risk_threshold, 0.2);
        assert_eq!(options.budget, Some(5));
        let options: BacktestOptions =
            from_json(r#"{"rank_margin": 2.0, "seed": 3}"#).expect("valid options");
        assert_eq!(options.rules.rank_margin, 2.0);
        assert_eq!(options.seed, 3);
        let error = from_json::<AuditOptions>(r#"{"risk": 0.2}"#).unwrap_err();
        assert!(
            error.to_string().contains("unknown field `risk`"),
            "{error}"
        );
        let error = from_json::<BacktestOptions>(r#"{"budget": 5}"#).unwrap_err();
        assert!(
            error.to_string().contains("unknown field `budget`"),
            "{error}"
        );
        let error = from_json::<BacktestOptions>(r#"{"list_per_topic": "all"}"#).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("list_per_topic: invalid type"),
            "{error}"
        );
        let defaults = serde_json::to_value(AuditOptions::default()).unwrap();
        assert_eq!(
            defaults["settle_threshold"],
            RulesOptions::default().settle_threshold
        );
    }

    #[test]
    fn every_jobs_defaults_are_listed_and_read_back() {
        let all: Map<String, Value> = serde_json::from_str(&all_defaults()).unwrap();
        assert_eq!(all.len(), 11);
        let agree = to_json(&all["agree"]);
        assert_eq!(
            from_json::<super::super::agree::AgreeOptions>(&agree).unwrap(),
            super::super::agree::AgreeOptions::default()
        );
        let simulate = to_json(&all["simulate"]);
        assert_eq!(
            from_json::<SimulateOptions>(&simulate).unwrap(),
            SimulateOptions::default()
        );
    }
}
