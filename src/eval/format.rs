//! Writing evaluations: trec_eval's text layout (measure name left-aligned in 22 columns, TAB,
//! topic or `all`, TAB, value to 4 decimals, counts as integers), JSON (run tag → measure →
//! `all` or topic → value at full precision), or TSV (`run measure topic value`).

use crate::base::choice::choice_enum;
use std::io::{self, Write};

use serde_json::{Map, Value};

use crate::base::error::{Error, Result};
use crate::eval::{Measure, RunEvaluation};
use crate::io::run::Run;

choice_enum! {
    /// An output layout.
    pub enum Format {
        /// trec_eval's text layout.
        Trec = "trec",
        /// One JSON object.
        Json = "json",
        /// Tab-separated values with a header.
        Tsv = "tsv",
    }
}

/// The key of the summary values: trec_eval's topic column, the JSON key and the TSV `topic`.
const SUMMARY_KEY: &str = "all";

/// Checks that every value of the output will have a key of its own, in every format: no two
/// runs share a tag (JSON would keep only the last one, and the text layouts could not be told
/// apart), and, with per-topic values, no topic is called `all`, the summary's key.
///
/// # Errors
/// [`Error::Invalid`] naming the run file (and, for a repeated tag, the file that carries it
/// first).
pub fn check_distinct_keys(runs: &[Run], per_topic: bool) -> Result<()> {
    let mut first_with_tag: std::collections::BTreeMap<&str, &Run> = Default::default();
    for run in runs {
        if let Some(first) = first_with_tag.insert(&run.tag, run) {
            return Err(Error::Invalid(format!(
                "{}: expected a run tag of its own, found {:?}, the tag of {}",
                run.path.display(),
                run.tag,
                first.path.display()
            )));
        }
        if per_topic && run.topic(SUMMARY_KEY).is_some() {
            return Err(Error::Invalid(format!(
                "{}: expected topic ids other than {SUMMARY_KEY:?} (the summary's key) with \
                 per-topic values, found topic {SUMMARY_KEY:?}",
                run.path.display()
            )));
        }
    }
    Ok(())
}

/// Writes evaluations in `format`; per-topic values only when `per_topic` (trec_eval `-q`).
///
/// # Errors
/// When writing fails.
pub fn write_evaluations(
    out: &mut dyn Write,
    format: Format,
    measures: &[Measure],
    evaluations: &[RunEvaluation],
    per_topic: bool,
) -> io::Result<()> {
    match format {
        Format::Trec => write_trec(out, measures, evaluations, per_topic),
        Format::Json => write_json(out, measures, evaluations, per_topic),
        Format::Tsv => write_tsv(out, measures, evaluations, per_topic),
    }
}

fn trec_value(measure: &Measure, value: f64) -> String {
    if measure.info().is_count {
        format!("{}", value.round() as i64)
    } else {
        format!("{value:.4}")
    }
}

fn write_trec(
    out: &mut dyn Write,
    measures: &[Measure],
    evaluations: &[RunEvaluation],
    per_topic: bool,
) -> io::Result<()> {
    for evaluation in evaluations {
        if per_topic {
            for (topic, values) in &evaluation.topics {
                for (measure, value) in measures.iter().zip(values) {
                    let name = measure.to_string();
                    writeln!(out, "{name:<22}\t{topic}\t{}", trec_value(measure, *value))?;
                }
            }
        }
        writeln!(out, "{:<22}\t{SUMMARY_KEY}\t{}", "runid", evaluation.tag)?;
        writeln!(
            out,
            "{:<22}\t{SUMMARY_KEY}\t{}",
            "num_q",
            evaluation.topics.len()
        )?;
        for (measure, value) in measures.iter().zip(&evaluation.summary) {
            let name = measure.to_string();
            writeln!(
                out,
                "{name:<22}\t{SUMMARY_KEY}\t{}",
                trec_value(measure, *value)
            )?;
        }
    }
    Ok(())
}

fn json_value(measure: &Measure, value: f64) -> Value {
    if measure.info().is_count {
        Value::from(value.round() as i64)
    } else {
        Value::from(value)
    }
}

fn write_json(
    out: &mut dyn Write,
    measures: &[Measure],
    evaluations: &[RunEvaluation],
    per_topic: bool,
) -> io::Result<()> {
    let mut runs = Map::new();
    for evaluation in evaluations {
        let mut by_measure = Map::new();
        for (index, measure) in measures.iter().enumerate() {
            let mut values = Map::new();
            values.insert(
                SUMMARY_KEY.into(),
                json_value(measure, evaluation.summary[index]),
            );
            if per_topic {
                for (topic, topic_values) in &evaluation.topics {
                    values.insert(topic.clone(), json_value(measure, topic_values[index]));
                }
            }
            by_measure.insert(measure.to_string(), Value::Object(values));
        }
        runs.insert(evaluation.tag.clone(), Value::Object(by_measure));
    }
    serde_json::to_writer_pretty(&mut *out, &Value::Object(runs))?;
    writeln!(out)
}

fn write_tsv(
    out: &mut dyn Write,
    measures: &[Measure],
    evaluations: &[RunEvaluation],
    per_topic: bool,
) -> io::Result<()> {
    writeln!(out, "run\tmeasure\ttopic\tvalue")?;
    for evaluation in evaluations {
        if per_topic {
            for (topic, values) in &evaluation.topics {
                for (measure, value) in measures.iter().zip(values) {
                    writeln!(out, "{}\t{measure}\t{topic}\t{value}", evaluation.tag)?;
                }
            }
        }
        for (measure, value) in measures.iter().zip(&evaluation.summary) {
            writeln!(out, "{}\t{measure}\t{SUMMARY_KEY}\t{value}", evaluation.tag)?;
        }
    }
    Ok(())
}
