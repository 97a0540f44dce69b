//! The report's section on how far the study's assessor, when it is not the official one,
//! agrees with the official qrels: on the grades and on each measure's leaderboard, seed by
//! seed and over the seeds.

use super::cells::{fmt_count, fmt_spread, fmt_value, heading, paragraph};
use crate::report::document::{table, Block};
use crate::sim::analysis::agreement::{AssessorAgreement, TOP_RUNS};
use crate::sim::analysis::StudySummary;

/// The row label of the figures over the seeds.
const OVER_SEEDS: &str = "mean (range)";

/// The assessor's agreement with the official qrels, when the study has an assessor other
/// than the official one.
pub(super) fn agreement_section(summary: &StudySummary) -> Vec<Block> {
    let Some(report) = &summary.assessor else {
        return Vec::new();
    };
    let Some(agreement) = &report.agreement else {
        return Vec::new();
    };
    vec![
        heading(2, "How far the assessor agrees with the official qrels"),
        paragraph(format!(
            "The qrels of the assessor `{}` of each seed (docs/assessor.md: the fuller file's \
             grades with the official ones it lacks, or the seed's completed qrels) against \
             the official qrels, as `reusesim agree` compares two qrels: Cohen's kappa, the \
             binary kappa at relevance level {} and each side's relevant share are over the \
             (topic, document) pairs both grade; the last column is the assessor's relevant \
             share of the pairs only it grades.",
            report.name, agreement.relevance_level
        )),
        grade_table(agreement),
        paragraph(format!(
            "Every run scored on the assessor's qrels of the seed against the official scores: \
             tau_b, tau_ap of the assessor's ranking against the official one, tau_b among the \
             official ranking's {TOP_RUNS} best runs, the run that falls furthest (ranks), and \
             the mean and root mean square of the score difference (assessor − official)."
        )),
        leaderboard_table(agreement),
    ]
}

/// The grades' agreement: a row per seed, then over the seeds.
fn grade_table(agreement: &AssessorAgreement) -> Block {
    let mut rows: Vec<Vec<String>> = (agreement.seeds.iter())
        .map(|seed| {
            let grades = &seed.grades;
            vec![
                seed.seed.to_string(),
                grades.pairs.to_string(),
                grades.only_official.to_string(),
                grades.only_assessor.to_string(),
                fmt_value(grades.kappa),
                fmt_value(grades.binary_kappa),
                fmt_value(grades.relevant_share_official),
                fmt_value(grades.relevant_share_assessor),
                fmt_value(grades.relevant_share_only_assessor),
            ]
        })
        .collect();
    let over = &agreement.over_seeds.grades;
    rows.push(vec![
        OVER_SEEDS.to_string(),
        fmt_count(&over.pairs),
        fmt_count(&over.only_official),
        fmt_count(&over.only_assessor),
        fmt_spread(&over.kappa),
        fmt_spread(&over.binary_kappa),
        fmt_spread(&over.relevant_share_official),
        fmt_spread(&over.relevant_share_assessor),
        fmt_spread(&over.relevant_share_only_assessor),
    ]);
    table(
        &[
            "seed",
            "pairs both grade",
            "only official",
            "only assessor",
            "kappa",
            "binary kappa",
            "relevant share official",
            "relevant share assessor",
            "relevant share, only assessor",
        ],
        rows,
    )
}

/// The leaderboards' agreement: per measure, a row per seed, then over the seeds.
fn leaderboard_table(agreement: &AssessorAgreement) -> Block {
    let mut rows = Vec::new();
    for (name, over) in &agreement.over_seeds.measures {
        for seed in &agreement.seeds {
            let Some(figures) = seed.measures.get(name) else {
                continue;
            };
            let drop = match &figures.largest_drop_run {
                Some(run) => format!("{} ({run})", figures.largest_drop),
                None => "0".to_string(),
            };
            rows.push(vec![
                name.clone(),
                seed.seed.to_string(),
                fmt_value(figures.tau_b),
                fmt_value(figures.tau_ap),
                fmt_value(figures.top_10_tau_b),
                drop,
                fmt_value(Some(figures.mean_difference)),
                fmt_value(Some(figures.rmse)),
            ]);
        }
        rows.push(vec![
            name.clone(),
            OVER_SEEDS.to_string(),
            fmt_spread(&over.tau_b),
            fmt_spread(&over.tau_ap),
            fmt_spread(&over.top_10_tau_b),
            fmt_spread(&over.largest_drop),
            fmt_spread(&over.mean_difference),
            fmt_spread(&over.rmse),
        ]);
    }
    table(
        &[
            "measure",
            "seed",
            "tau_b",
            "tau_ap",
            "top-10 tau_b",
            "largest drop",
            "mean difference",
            "RMSE",
        ],
        rows,
    )
}
