//! Writing evaluations: trec_eval's text layout (measure name left-aligned in 22 columns, TAB,
//! topic or `all`, TAB, value to 4 decimals, counts as integers; `runid` and `relstring` where
//! trec_eval prints them; `Z` before each name for z-scores), JSON (run tag → measure → `all`
//! or topic → value at full precision) or TSV (`run measure topic value`).

use crate::base::choice::choice_enum;
use std::io::{self, Write};

use serde_json::{Map, Value};

use crate::base::error::{Error, Result};
use crate::eval::evaluator::RunEvaluation;
use crate::eval::measure::Measure;
use crate::eval::trec_names::trec_rank;
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

/// What to write besides the values.
#[derive(Debug, Clone, Copy)]
pub struct Layout<'a> {
    /// The measures, in the order of the evaluations' values.
    pub measures: &'a [Measure],
    /// Per-topic values (trec_eval `-q`).
    pub per_topic: bool,
    /// The summaries (trec_eval prints none with `-n`).
    pub summary: bool,
    /// trec_eval's `runid` line.
    pub runid: bool,
    /// `relstring`'s printed name, when the evaluations carry relstrings.
    pub relstring: Option<&'a str>,
    /// Whether the values are z-scores (trec_eval `-Z`).
    pub zscored: bool,
}

/// Writes evaluations in `format`.
///
/// # Errors
/// When writing fails.
pub fn write_evaluations(
    out: &mut dyn Write,
    format: Format,
    layout: &Layout,
    evaluations: &[RunEvaluation],
) -> io::Result<()> {
    match format {
        Format::Trec => write_trec(out, layout, evaluations),
        Format::Json => write_json(out, layout, evaluations),
        Format::Tsv => write_tsv(out, layout, evaluations),
    }
}

/// A value as trec_eval prints it: counts as whole numbers, unless they are z-scores.
fn trec_value(measure: &Measure, value: f64, zscored: bool) -> String {
    if measure.info().is_count() && !zscored {
        format!("{}", value as i64)
    } else {
        format!("{value:.4}")
    }
}

/// How many of `measures` print before `relstring`, in trec_eval's order.
fn before_relstring(measures: &[Measure]) -> usize {
    let place = trec_rank("relstring");
    measures
        .iter()
        .take_while(|measure| trec_rank(measure.trec_root()) < place)
        .count()
}

fn write_trec(
    out: &mut dyn Write,
    layout: &Layout,
    evaluations: &[RunEvaluation],
) -> io::Result<()> {
    let split = before_relstring(layout.measures);
    for evaluation in evaluations {
        if layout.per_topic {
            for (index, (topic, values)) in evaluation.topics.iter().enumerate() {
                let pairs: Vec<(&Measure, f64)> =
                    layout.measures.iter().zip(values.iter().copied()).collect();
                write_trec_lines(out, layout, topic, &pairs[..split])?;
                if let (Some(name), Some(relstring)) =
                    (layout.relstring, evaluation.relstrings.get(index))
                {
                    writeln!(out, "{name:<22}\t{topic}\t'{relstring}'")?;
                }
                write_trec_lines(out, layout, topic, &pairs[split..])?;
            }
        }
        if !layout.summary {
            continue;
        }
        if layout.runid {
            writeln!(out, "{:<22}\t{SUMMARY_KEY}\t{}", "runid", evaluation.tag)?;
        }
        let pairs: Vec<(&Measure, f64)> = layout
            .measures
            .iter()
            .zip(evaluation.summary.iter().copied())
            .collect();
        write_trec_lines(out, layout, SUMMARY_KEY, &pairs)?;
    }
    Ok(())
}

/// One line per measure whose values trec_eval prints for `key` (a topic or the summary's).
fn write_trec_lines(
    out: &mut dyn Write,
    layout: &Layout,
    key: &str,
    pairs: &[(&Measure, f64)],
) -> io::Result<()> {
    let prefix = if layout.zscored { "Z" } else { "" };
    for &(measure, value) in pairs {
        if key != SUMMARY_KEY && !measure.info().printed_per_topic {
            continue;
        }
        let name = measure.to_string();
        let value = trec_value(measure, value, layout.zscored);
        writeln!(out, "{prefix}{name:<22}\t{key}\t{value}")?;
    }
    Ok(())
}

fn json_value(measure: &Measure, value: f64, zscored: bool) -> Value {
    if measure.info().is_count() && !zscored {
        Value::from(value.round() as i64)
    } else {
        Value::from(value)
    }
}

fn write_json(
    out: &mut dyn Write,
    layout: &Layout,
    evaluations: &[RunEvaluation],
) -> io::Result<()> {
    let mut runs = Map::new();
    for evaluation in evaluations {
        let mut by_measure = Map::new();
        for (index, measure) in layout.measures.iter().enumerate() {
            let mut values = Map::new();
            if layout.summary {
                let value = json_value(measure, evaluation.summary[index], layout.zscored);
                values.insert(SUMMARY_KEY.into(), value);
            }
            if layout.per_topic {
                for (topic, topic_values) in &evaluation.topics {
                    let value = json_value(measure, topic_values[index], layout.zscored);
                    values.insert(topic.clone(), value);
                }
            }
            by_measure.insert(measure.to_string(), Value::Object(values));
        }
        if let (Some(name), true) = (layout.relstring, layout.per_topic) {
            let strings = evaluation
                .topics
                .iter()
                .zip(&evaluation.relstrings)
                .map(|((topic, _), relstring)| (topic.clone(), Value::from(relstring.as_str())))
                .collect();
            by_measure.insert(name.to_string(), Value::Object(strings));
        }
        runs.insert(evaluation.tag.clone(), Value::Object(by_measure));
    }
    serde_json::to_writer_pretty(&mut *out, &Value::Object(runs))?;
    writeln!(out)
}

fn write_tsv(
    out: &mut dyn Write,
    layout: &Layout,
    evaluations: &[RunEvaluation],
) -> io::Result<()> {
    writeln!(out, "run\tmeasure\ttopic\tvalue")?;
    for evaluation in evaluations {
        let tag = &evaluation.tag;
        if layout.per_topic {
            for (index, (topic, values)) in evaluation.topics.iter().enumerate() {
                for (measure, value) in layout.measures.iter().zip(values) {
                    writeln!(out, "{tag}\t{measure}\t{topic}\t{value}")?;
                }
                if let (Some(name), Some(relstring)) =
                    (layout.relstring, evaluation.relstrings.get(index))
                {
                    writeln!(out, "{tag}\t{name}\t{topic}\t{relstring}")?;
                }
            }
        }
        if layout.summary {
            for (measure, value) in layout.measures.iter().zip(&evaluation.summary) {
                writeln!(out, "{tag}\t{measure}\t{SUMMARY_KEY}\t{value}")?;
            }
        }
    }
    Ok(())
}
