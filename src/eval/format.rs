//! Writing evaluations: trec_eval's text layout (measure name left-aligned in 22 columns, TAB,
//! topic or `all`, TAB, value to 4 decimals, counts as integers), JSON (run tag → measure →
//! `all` or topic → value at full precision), or TSV (`run measure topic value`).

use crate::base::choice::choice_enum;
use std::io::{self, Write};

use serde_json::{Map, Value};

use crate::eval::{Measure, RunEvaluation};

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
        writeln!(out, "{:<22}\tall\t{}", "runid", evaluation.tag)?;
        writeln!(out, "{:<22}\tall\t{}", "num_q", evaluation.topics.len())?;
        for (measure, value) in measures.iter().zip(&evaluation.summary) {
            let name = measure.to_string();
            writeln!(out, "{name:<22}\tall\t{}", trec_value(measure, *value))?;
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
            values.insert("all".into(), json_value(measure, evaluation.summary[index]));
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
            writeln!(out, "{}\t{measure}\tall\t{value}", evaluation.tag)?;
        }
    }
    Ok(())
}
