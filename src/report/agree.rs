//! Rendering the agreement of two qrels (`reusesim agree`): a readable table, JSON (the
//! complete record), TSV (one statistic a row) and LaTeX (booktabs tables of the grade
//! agreement and of the leaderboards' agreement per measure).

use std::io::{self, Write};

use serde::Serialize;

use super::compare::{latex_text, SettingsView};
use crate::base::choice::choice_enum;
use crate::stats::agreement::GradeAgreement;
use crate::stats::leaderboard::LeaderboardAgreement;
use crate::stats::pair_changes::PairChanges;
use crate::stats::summary::Spread;

choice_enum! {
    /// The layout of an agreement.
    pub enum AgreeFormat {
        /// Aligned text: the grades, the topics, then the leaderboards per measure.
        Table = "table",
        /// One JSON object, the complete record.
        Json = "json",
        /// Tab-separated values, one statistic a row (`section key statistic value`).
        Tsv = "tsv",
        /// LaTeX (booktabs) tables: the grade agreement, then a row per measure.
        Latex = "latex",
    }
}

/// How far two qrels, A and B, agree.
#[derive(Debug, Clone, Serialize)]
pub struct Agreement {
    /// Where A was read from.
    pub qrels_a: String,
    /// Where B was read from.
    pub qrels_b: String,
    /// The agreement on the pairs both grade.
    pub grades: GradeAgreement,
    /// Cohen's kappa per topic both grade: mean, min and max over the topics where it is
    /// defined.
    pub topic_kappa: Option<Spread>,
    /// The topics both grade where kappa is undefined (one grade on both sides).
    pub topics_without_kappa: usize,
    /// The pairs only A grades.
    pub only_a: usize,
    /// The pairs only B grades.
    pub only_b: usize,
    /// Every topic either grades, in topic id order.
    pub topics: Vec<TopicAgreement>,
    /// The runs' leaderboards under A and under B, when runs were given.
    pub leaderboard: Option<Leaderboard>,
    /// What a reader needs to know: topics left out of the rankings, the tests' notes.
    pub notes: Vec<String>,
}

/// One topic's pairs.
#[derive(Debug, Clone, Serialize)]
pub struct TopicAgreement {
    /// The topic id.
    pub topic: String,
    /// The pairs both grade.
    pub common: usize,
    /// The pairs only A grades.
    pub only_a: usize,
    /// The pairs only B grades.
    pub only_b: usize,
    /// Cohen's kappa of the common pairs; `None` when undefined or there are none.
    pub kappa: Option<f64>,
}

/// The runs ranked under A and under B.
#[derive(Debug, Clone, Serialize)]
pub struct Leaderboard {
    /// The test, its correction, level, samples and seed (as `compare`'s).
    #[serde(flatten)]
    pub settings: SettingsView,
    /// The runs ranked, in the order given.
    pub runs: Vec<String>,
    /// The topics the runs are scored on: those both qrels grade (a topic a run lacks scores
    /// 0, trec_eval's `-c`).
    pub topics: usize,
    /// Per measure, in the order named.
    pub measures: Vec<MeasureAgreement>,
}

/// The two leaderboards of one measure compared.
#[derive(Debug, Clone, Serialize)]
pub struct MeasureAgreement {
    /// The measure, in trec_eval's spelling.
    pub measure: String,
    /// Each run's mean under A, in run order.
    pub means_a: Vec<f64>,
    /// Each run's mean under B.
    pub means_b: Vec<f64>,
    /// tau_b, tau_ap, the top runs' tau_b, the largest drop, the mean difference and RMSE.
    #[serde(flatten)]
    pub ranks: LeaderboardAgreement,
    /// The tag of the run that falls furthest under B.
    pub largest_drop_run: Option<String>,
    /// The pairs of runs significantly different under A.
    pub significant_a: usize,
    /// The pairs significantly different under B.
    pub significant_b: usize,
    /// A's significant pairs that B keeps, loses or reverses, and those only B finds.
    pub pairs: PairChanges,
}

/// Writes `agreement` to `out` in `format`.
///
/// # Errors
/// A failed write.
pub fn write_agreement(
    out: &mut impl Write,
    format: AgreeFormat,
    agreement: &Agreement,
) -> io::Result<()> {
    match format {
        AgreeFormat::Table => write_table(out, agreement),
        AgreeFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, agreement)?;
            writeln!(out)
        }
        AgreeFormat::Tsv => write_tsv(out, agreement),
        AgreeFormat::Latex => write_latex(out, agreement),
    }
}

/// A statistic that may be undefined, to 4 decimals or `-`.
fn figure(value: Option<f64>) -> String {
    value.map_or("-".to_string(), |value| format!("{value:.4}"))
}

/// A statistic that may be undefined, at full precision or `NA`.
fn full(value: Option<f64>) -> String {
    value.map_or("NA".to_string(), |value| value.to_string())
}

/// The grade statistics as (name, value).
fn grade_statistics(grades: &GradeAgreement) -> [(&'static str, Option<f64>); 8] {
    [
        ("kappa", grades.kappa),
        ("kappa_linear", grades.kappa_linear),
        ("kappa_quadratic", grades.kappa_quadratic),
        ("binary_kappa", grades.binary_kappa),
        ("alpha_ordinal", grades.alpha_ordinal),
        ("alpha_interval", grades.alpha_interval),
        ("relevant_share_a", grades.relevant_share_a),
        ("relevant_share_b", grades.relevant_share_b),
    ]
}

/// One measure's figures as (name, value), in the order of every layout.
fn measure_statistics(measure: &MeasureAgreement) -> Vec<(String, Option<f64>)> {
    let ranks = &measure.ranks;
    let mut statistics = vec![
        ("tau_b".to_string(), ranks.tau_b),
        ("tau_ap".to_string(), ranks.tau_ap),
    ];
    for top in &ranks.top {
        statistics.push((format!("tau_b_top_{}", top.top), top.tau_b));
    }
    let drop = ranks.largest_drop.map_or(0.0, |drop| drop.drop);
    statistics.push(("largest_drop".to_string(), Some(drop)));
    statistics.push(("mean_difference".to_string(), Some(ranks.mean_difference)));
    statistics.push(("rmse".to_string(), Some(ranks.rmse)));
    let counts = [
        ("significant_a", measure.significant_a),
        ("significant_b", measure.significant_b),
        ("kept", measure.pairs.kept),
        ("lost", measure.pairs.lost),
        ("reversed", measure.pairs.reversed),
        ("new", measure.pairs.new),
    ];
    for (name, count) in counts {
        statistics.push((name.to_string(), Some(count as f64)));
    }
    statistics
}

fn write_tsv(out: &mut impl Write, agreement: &Agreement) -> io::Result<()> {
    writeln!(out, "section\tkey\tstatistic\tvalue")?;
    let grades = &agreement.grades;
    let counts = [
        ("pairs", grades.pairs),
        ("only_a", agreement.only_a),
        ("only_b", agreement.only_b),
    ];
    for (name, count) in counts {
        writeln!(out, "grades\tall\t{name}\t{count}")?;
    }
    for (name, value) in grade_statistics(grades) {
        writeln!(out, "grades\tall\t{name}\t{}", full(value))?;
    }
    for (row, counts) in grades.table.iter().enumerate() {
        for (column, count) in counts.iter().enumerate() {
            let (a, b) = (grades.grades[row], grades.grades[column]);
            writeln!(out, "grades\tall\tcount_a{a}_b{b}\t{count}")?;
        }
    }
    if let Some(spread) = agreement.topic_kappa {
        for (name, value) in [
            ("mean", spread.mean),
            ("min", spread.min),
            ("max", spread.max),
        ] {
            writeln!(out, "grades\tall\ttopic_kappa_{name}\t{value}")?;
        }
    }
    for topic in &agreement.topics {
        let key = &topic.topic;
        writeln!(out, "topic\t{key}\tcommon\t{}", topic.common)?;
        writeln!(out, "topic\t{key}\tonly_a\t{}", topic.only_a)?;
        writeln!(out, "topic\t{key}\tonly_b\t{}", topic.only_b)?;
        writeln!(out, "topic\t{key}\tkappa\t{}", full(topic.kappa))?;
    }
    for measure in leaderboard_measures(agreement) {
        for (name, value) in measure_statistics(measure) {
            writeln!(out, "measure\t{}\t{name}\t{}", measure.measure, full(value))?;
        }
    }
    Ok(())
}

/// The measures compared, none without runs.
fn leaderboard_measures(agreement: &Agreement) -> &[MeasureAgreement] {
    (agreement.leaderboard.as_ref()).map_or(&[], |leaderboard| &leaderboard.measures)
}

/// The lines before the tables: the inputs, the pairs, the settings and the notes.
fn header_lines(agreement: &Agreement) -> Vec<String> {
    let grades = &agreement.grades;
    let mut lines = vec![
        format!("A: {}", agreement.qrels_a),
        format!("B: {}", agreement.qrels_b),
        format!(
            "{} pairs both grade, {} only A, {} only B; relevant: grade >= {}",
            grades.pairs, agreement.only_a, agreement.only_b, grades.relevance_level
        ),
    ];
    if let Some(leaderboard) = &agreement.leaderboard {
        let settings = &leaderboard.settings;
        lines.push(format!(
            "{} runs on {} topics both grade; test {} (two-sided), correction {}, alpha {}",
            leaderboard.runs.len(),
            leaderboard.topics,
            settings.test,
            settings.correction,
            settings.alpha
        ));
    }
    lines.extend(agreement.notes.iter().map(|note| format!("note: {note}")));
    lines
}

fn write_table(out: &mut impl Write, agreement: &Agreement) -> io::Result<()> {
    for line in header_lines(agreement) {
        writeln!(out, "# {line}")?;
    }
    let grades = &agreement.grades;
    writeln!(out, "\ngrades (rows A, columns B)")?;
    let cells: Vec<String> = grades.grades.iter().map(|g| format!("{g:>7}")).collect();
    writeln!(out, "{:>5}  {}", "A\\B", cells.join(" "))?;
    for (grade, counts) in grades.grades.iter().zip(&grades.table) {
        let cells: Vec<String> = counts.iter().map(|count| format!("{count:>7}")).collect();
        writeln!(out, "{grade:>5}  {}", cells.join(" "))?;
    }
    writeln!(out)?;
    for (name, value) in grade_statistics(grades) {
        writeln!(out, "{name:<18}{:>8}", figure(value))?;
    }
    let spread = agreement.topic_kappa;
    writeln!(
        out,
        "kappa per topic: mean {}, min {}, max {} ({} topic(s) undefined)",
        figure(spread.map(|s| s.mean)),
        figure(spread.map(|s| s.min)),
        figure(spread.map(|s| s.max)),
        agreement.topics_without_kappa
    )?;
    writeln!(
        out,
        "\n{:<12}  {:>7}  {:>7}  {:>7}  {:>7}",
        "topic", "common", "only A", "only B", "kappa"
    )?;
    for topic in &agreement.topics {
        writeln!(
            out,
            "{:<12}  {:>7}  {:>7}  {:>7}  {:>7}",
            topic.topic,
            topic.common,
            topic.only_a,
            topic.only_b,
            figure(topic.kappa)
        )?;
    }
    for measure in leaderboard_measures(agreement) {
        writeln!(out, "\n{}", measure.measure)?;
        for (name, value) in measure_statistics(measure) {
            let shown = match name.as_str() {
                "largest_drop" => format!(
                    "{} ({})",
                    value.unwrap_or(0.0),
                    measure
                        .largest_drop_run
                        .as_deref()
                        .unwrap_or("no run falls")
                ),
                _ if name.starts_with("significant") || is_count(&name) => {
                    format!("{}", value.unwrap_or(0.0))
                }
                _ => figure(value),
            };
            writeln!(out, "{name:<18}{shown:>8}")?;
        }
    }
    Ok(())
}

/// Whether a measure statistic is a count of pairs.
fn is_count(name: &str) -> bool {
    ["kept", "lost", "reversed", "new"].contains(&name)
}

fn write_latex(out: &mut impl Write, agreement: &Agreement) -> io::Result<()> {
    for line in header_lines(agreement) {
        writeln!(out, "% {line}")?;
    }
    writeln!(out, "% requires booktabs")?;
    writeln!(out, "\\begin{{tabular}}{{lr}}")?;
    writeln!(out, "\\toprule")?;
    writeln!(out, "Statistic & Value \\\\")?;
    writeln!(out, "\\midrule")?;
    for (name, value) in grade_statistics(&agreement.grades) {
        writeln!(out, "{} & {} \\\\", latex_text(name), figure(value))?;
    }
    writeln!(out, "\\bottomrule")?;
    writeln!(out, "\\end{{tabular}}")?;
    let measures = leaderboard_measures(agreement);
    let Some(first) = measures.first() else {
        return Ok(());
    };
    let names: Vec<String> = (measure_statistics(first).into_iter())
        .map(|(name, _)| latex_text(&name))
        .collect();
    writeln!(out, "\n\\begin{{tabular}}{{l{}}}", "r".repeat(names.len()))?;
    writeln!(out, "\\toprule")?;
    writeln!(out, "Measure & {} \\\\", names.join(" & "))?;
    writeln!(out, "\\midrule")?;
    for measure in measures {
        let cells: Vec<String> = (measure_statistics(measure).into_iter())
            .map(
                |(name, value)| match name.starts_with("significant") || is_count(&name) {
                    true => format!("{}", value.unwrap_or(0.0)),
                    false => figure(value),
                },
            )
            .collect();
        writeln!(
            out,
            "{} & {} \\\\",
            latex_text(&measure.measure),
            cells.join(" & ")
        )?;
    }
    writeln!(out, "\\bottomrule")?;
    writeln!(out, "\\end{{tabular}}")
}
