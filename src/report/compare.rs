//! Rendering a comparison of runs (`reusesim compare`): a readable table, JSON, TSV (a row per
//! pair and measure), and a LaTeX results table (booktabs) with marks against the baseline.

use std::io::{self, Write};

use serde::Serialize;

use crate::base::choice::choice_enum;
use crate::stats::comparison::{PairComparison, TestSettings};

choice_enum! {
    /// The layout of a comparison.
    pub enum CompareFormat {
        /// Aligned text: the notes, then per measure the runs' means and the pairs.
        Table = "table",
        /// One JSON object.
        Json = "json",
        /// Tab-separated values, a row per pair and measure, with a header.
        Tsv = "tsv",
        /// A LaTeX (booktabs) table: a row per run, a column per measure, marks against the
        /// baseline.
        Latex = "latex",
    }
}

/// Runs compared on one qrels, measure by measure.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The test, its correction, level, samples and seed.
    #[serde(flatten)]
    pub settings: SettingsView,
    /// The runs' tags, in the order given.
    pub runs: Vec<String>,
    /// The run every other is compared with, if one is (else every pair is compared).
    pub baseline: Option<String>,
    /// The number of topics every test is over.
    pub topics: usize,
    /// Whether a qrels topic a run lacks scores 0 (trec_eval's `-c`); otherwise only the
    /// topics every run has are compared.
    pub missing_topics_score_zero: bool,
    /// Per measure, in the order named.
    pub measures: Vec<MeasureComparison>,
    /// What a reader needs to know: identical runs, the exact tests used, ignored options.
    pub notes: Vec<String>,
}

/// The settings as the outputs show them.
#[derive(Debug, Clone, Serialize)]
pub struct SettingsView {
    /// The test's name.
    pub test: String,
    /// The correction's name.
    pub correction: String,
    /// The significance level.
    pub alpha: f64,
    /// Random samples of the resampling tests.
    pub permutations: usize,
    /// Their seed.
    pub seed: u64,
}

impl From<&TestSettings> for SettingsView {
    fn from(settings: &TestSettings) -> Self {
        Self {
            test: settings.test.to_string(),
            correction: settings.correction.to_string(),
            alpha: settings.alpha,
            permutations: settings.permutations,
            seed: settings.seed,
        }
    }
}

/// The runs compared on one measure.
#[derive(Debug, Clone, Serialize)]
pub struct MeasureComparison {
    /// The measure, in trec_eval's spelling.
    pub measure: String,
    /// Each run's mean over the topics, in run order.
    pub means: Vec<f64>,
    /// The pairs compared.
    pub pairs: Vec<PairComparison>,
}

/// Writes `comparison` to `out` in `format`.
///
/// # Errors
/// A failed write.
pub fn write_comparison(
    out: &mut impl Write,
    format: CompareFormat,
    comparison: &Comparison,
) -> io::Result<()> {
    match format {
        CompareFormat::Table => write_table(out, comparison),
        CompareFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &json_view(comparison))?;
            writeln!(out)
        }
        CompareFormat::Tsv => write_tsv(out, comparison),
        CompareFormat::Latex => write_latex(out, comparison),
    }
}

/// The header of the TSV layout (and the columns of the Python DataFrame).
pub const TSV_COLUMNS: [&str; 12] = [
    "measure",
    "run",
    "against",
    "run_mean",
    "against_mean",
    "mean_difference",
    "ci_low",
    "ci_high",
    "effect_size",
    "p_value",
    "adjusted_p_value",
    "significant",
];

/// The JSON layout: the pairs with their runs named.
fn json_view(comparison: &Comparison) -> serde_json::Value {
    let mut value = serde_json::to_value(comparison).expect("a comparison serialises to JSON");
    let measures = (comparison.measures.iter())
        .map(|measure| {
            let means: Vec<_> = (comparison.runs.iter().zip(&measure.means))
                .map(|(run, mean)| serde_json::json!({"run": run, "mean": mean}))
                .collect();
            let pairs: Vec<_> = (measure.pairs.iter())
                .map(|pair| {
                    serde_json::json!({
                        "run": comparison.runs[pair.first],
                        "against": comparison.runs[pair.second],
                        "mean_difference": pair.mean_difference,
                        "confidence_interval": pair.confidence_interval,
                        "effect_size": pair.effect_size,
                        "p_value": pair.p_value,
                        "adjusted_p_value": pair.adjusted_p_value,
                        "significant": pair.significant,
                    })
                })
                .collect();
            serde_json::json!({"measure": measure.measure, "means": means, "pairs": pairs})
        })
        .collect();
    value["measures"] = serde_json::Value::Array(measures);
    value
}

fn write_tsv(out: &mut impl Write, comparison: &Comparison) -> io::Result<()> {
    writeln!(out, "{}", TSV_COLUMNS.join("\t"))?;
    for measure in &comparison.measures {
        for pair in &measure.pairs {
            let effect = pair.effect_size.map_or("NA".to_string(), |e| e.to_string());
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{effect}\t{}\t{}\t{}",
                measure.measure,
                comparison.runs[pair.first],
                comparison.runs[pair.second],
                measure.means[pair.first],
                measure.means[pair.second],
                pair.mean_difference,
                pair.confidence_interval[0],
                pair.confidence_interval[1],
                pair.p_value,
                pair.adjusted_p_value,
                pair.significant,
            )?;
        }
    }
    Ok(())
}

/// The lines before the tables: the settings, the topics and the notes.
fn header_lines(comparison: &Comparison) -> Vec<String> {
    let settings = &comparison.settings;
    let mut lines = vec![format!(
        "test {} (two-sided), correction {}, alpha {}, {} topics",
        settings.test, settings.correction, settings.alpha, comparison.topics
    )];
    lines.push(if comparison.missing_topics_score_zero {
        "topics: every qrels topic; a topic a run lacks scores 0 (trec_eval -c)".to_string()
    } else {
        "topics: those every run has".to_string()
    });
    lines.extend(comparison.notes.iter().map(|note| format!("note: {note}")));
    lines
}

fn write_table(out: &mut impl Write, comparison: &Comparison) -> io::Result<()> {
    for line in header_lines(comparison) {
        writeln!(out, "# {line}")?;
    }
    writeln!(
        out,
        "# * marks a pair whose adjusted p-value is below {}",
        comparison.settings.alpha
    )?;
    let width = (comparison.runs.iter().map(String::len))
        .chain([3, 7])
        .max()
        .unwrap_or(0);
    for measure in &comparison.measures {
        writeln!(out, "\n{}", measure.measure)?;
        writeln!(out, "{:<width$}  {:>8}", "run", "mean")?;
        for (run, mean) in comparison.runs.iter().zip(&measure.means) {
            writeln!(out, "{run:<width$}  {mean:>8.4}")?;
        }
        writeln!(
            out,
            "\n{:<width$}  {:<width$}  {:>10}  {:>21}  {:>7}  {:>8}  {:>8}",
            "run", "against", "difference", "95% CI", "effect", "p", "adjusted"
        )?;
        for pair in &measure.pairs {
            let interval = format!(
                "[{:+.4}, {:+.4}]",
                pair.confidence_interval[0], pair.confidence_interval[1]
            );
            let effect = pair
                .effect_size
                .map_or("-".to_string(), |e| format!("{e:.3}"));
            writeln!(
                out,
                "{:<width$}  {:<width$}  {:>+10.4}  {interval:>21}  {effect:>7}  {:>8.4}  {:>8.4}{}",
                comparison.runs[pair.first],
                comparison.runs[pair.second],
                pair.mean_difference,
                pair.p_value,
                pair.adjusted_p_value,
                if pair.significant { " *" } else { "" }
            )?;
        }
    }
    Ok(())
}

/// LaTeX with its special characters escaped.
pub(crate) fn latex_text(text: &str) -> String {
    text.chars()
        .map(|character| match character {
            '_' | '&' | '%' | '$' | '#' | '{' | '}' => format!("\\{character}"),
            '~' => "\\textasciitilde{}".to_string(),
            '^' => "\\textasciicircum{}".to_string(),
            '\\' => "\\textbackslash{}".to_string(),
            other => other.to_string(),
        })
        .collect()
}

fn write_latex(out: &mut impl Write, comparison: &Comparison) -> io::Result<()> {
    let baseline = match &comparison.baseline {
        Some(tag) => comparison.runs.iter().position(|run| run == tag),
        None => None,
    }
    .unwrap_or(0);
    for line in header_lines(comparison) {
        writeln!(out, "% {line}")?;
    }
    writeln!(
        out,
        "% $^\\dagger$: a significant difference from {} (adjusted p < {}); requires booktabs",
        comparison.runs[baseline], comparison.settings.alpha
    )?;
    let columns = "r".repeat(comparison.measures.len());
    writeln!(out, "\\begin{{tabular}}{{l{columns}}}")?;
    writeln!(out, "\\toprule")?;
    let names: Vec<String> = (comparison.measures.iter())
        .map(|measure| latex_text(&measure.measure))
        .collect();
    writeln!(out, "Run & {} \\\\", names.join(" & "))?;
    writeln!(out, "\\midrule")?;
    for (run, tag) in comparison.runs.iter().enumerate() {
        let cells: Vec<String> = (comparison.measures.iter())
            .map(|measure| {
                let against_baseline = measure.pairs.iter().find(|pair| {
                    run != baseline
                        && ((pair.first, pair.second) == (run, baseline)
                            || (pair.first, pair.second) == (baseline, run))
                });
                let mark = match against_baseline {
                    Some(pair) if pair.significant => "$^\\dagger$",
                    _ => "",
                };
                format!("{:.4}{mark}", measure.means[run])
            })
            .collect();
        writeln!(out, "{} & {} \\\\", latex_text(tag), cells.join(" & "))?;
    }
    writeln!(out, "\\bottomrule")?;
    writeln!(out, "\\end{{tabular}}")
}
