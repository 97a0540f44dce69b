//! The content of a study's report (`report.md`, `report.html`): its tables and settings, in
//! reading order, as a [`Document`]. The tables of one row per measure are in `measures`, the
//! tables of runs in `runs`, the budget curve's and the strategies' sections in their own
//! files, and how cells are written in `cells`.

mod agreement;
mod budget;
mod cells;
mod measures;
mod rows;
mod runs;
mod significance;
mod strategies;

pub use self::rows::ReportRows;

use self::agreement::agreement_section;
use self::budget::budget_section;
use self::cells::{heading, paragraph};
use self::measures::{assessor, classic, control, lou, paired, truth};
use self::runs::{rank_changes, rank_spread, swapped_pairs};
use self::significance::{significance_lead, significance_section};
use self::strategies::strategies_section;
use crate::judge::settings::Withhold;
use crate::report::document::{Block, Document, Figure, ListItem};
use crate::report::plots::{figure_list, FigureKind};
use crate::sim::analysis::StudySummary;

/// The study's report: the settings and what to read first, the paired statistics, the ranks
/// over all trials, the comparisons with the official ranking, the budget curve, the figures
/// and the settings.
pub fn study_document(summary: &StudySummary, rows: ReportRows<'_>) -> Document {
    let mut blocks = intro(summary);
    blocks.extend(paired(summary));
    blocks.extend(rank_spread(summary, rows));
    blocks.extend(control(summary));
    blocks.extend(lou(summary));
    blocks.extend(classic(summary));
    blocks.extend(truth(summary));
    blocks.extend(assessor(summary));
    blocks.extend(agreement_section(summary));
    blocks.extend(significance_section(summary));
    blocks.extend(rank_changes(summary, rows));
    blocks.extend(swapped_pairs(summary));
    if let Some(budget) = &summary.budget {
        blocks.extend(budget_section(budget));
    }
    if let Some(strategies) = &summary.strategies {
        blocks.extend(strategies_section(strategies, rows.strategies));
    }
    blocks.extend(figures(summary, rows));
    blocks.extend(settings(summary));
    Document { blocks }
}

/// The title, what was run, and how to read the tables.
fn intro(summary: &StudySummary) -> Vec<Block> {
    let settings = &summary.settings;
    let withholding = match settings.judge.withhold {
        Withhold::Uniques => {
            "a trial drops the team's runs from the pool and the features, and withholds \
             the team's unique relevant documents (no other team's run retrieved them) from \
             the simulated assessor: had the team never taken part, would its runs be \
             scored and ranked fairly?"
        }
        Withhold::None => {
            "a trial drops the team's runs from the pool and the features only; the judge \
             may still find the team's documents by their text or through other runs: could \
             the judging have found them without the team?"
        }
    };
    let mut blocks = vec![
        heading(1, format!("Reusability study: {}", summary.task)),
        paragraph(format!(
            "{} seeds; each seed judges a control trial and one trial per held-out team ({} \
             teams); features `{}`, learner `{}` ({} iterations), schedule `{}`, candidates \
             `{}`, carried judgments `{}`, pool depth {}.",
            settings.seeds.len(),
            settings.held_out_teams.len(),
            settings.features,
            settings.judge.learner,
            settings.judge.iterations,
            settings.judge.schedule,
            settings.judge.candidates,
            settings.judge.carried,
            settings.judge.pool_depth
        )),
        paragraph(format!(
            "Leave-out trials withhold `{}`: {withholding}",
            settings.judge.withhold
        )),
    ];
    blocks.extend(assessor_lead(summary));
    blocks.extend(significance_lead(summary));
    blocks.push(paragraph(
        "Cells give the mean, with the range in brackets. The paired statistics and the ranks \
             over all trials come first: they isolate the leave-out effect. The LOU ranking and \
             classic leave-out-uniques follow; they compare with the official ranking, so they \
             also hold the simulation's own noise (the control's tau_b). tau >= 0.9 is the usual \
             threshold for equivalent rankings (Voorhees 2000).",
    ));
    blocks
}

/// Who graded the judgments, when the assessor is not the official qrels.
fn assessor_lead(summary: &StudySummary) -> Option<Block> {
    let report = summary.assessor.as_ref()?;
    let unofficial = report.from_file + report.drawn + report.presumed;
    let total = report.official + unofficial;
    let percent = |count: usize| 100.0 * count as f64 / total.max(1) as f64;
    Some(paragraph(format!(
        "The simulated assessor is `{}` (docs/assessor.md): {} of the {total} judgments of all \
         trials ({:.1}%) fell on documents the official qrels never judged; {} ({:.1}%) took \
         the fuller file's grade, {} ({:.1}%) a grade drawn from the relevance model, and {} \
         ({:.1}%) stayed presumed non-relevant. Every ranking is also compared with the \
         assessor's own ranking of the runs (\"Against the assessor's ranking\"), and its \
         qrels with the official ones (\"How far the assessor agrees with the official \
         qrels\").",
        report.name,
        unofficial,
        percent(unofficial),
        report.from_file,
        percent(report.from_file),
        report.drawn,
        percent(report.drawn),
        report.presumed,
        percent(report.presumed),
    )))
}

/// Deviations from HiCAL, the work done and the time taken.
fn settings(summary: &StudySummary) -> Vec<Block> {
    let counts = &summary.simulations;
    vec![
        heading(2, "Settings"),
        Block::List(vec![
            ListItem {
                text: "deviations from HiCAL as TREC DL ran it:".into(),
                items: summary.settings.deviations.clone(),
            },
            ListItem {
                text: format!(
                    "{} trials, {} (trial, topic) units, {} distinct units judged, {} retrains; \
                     {} units had a pool larger than their budget (the whole pool was kept).",
                    counts.trials,
                    counts.units,
                    counts.distinct_units,
                    counts.retrains,
                    counts.pools_over_budget
                ),
                items: Vec::new(),
            },
            ListItem {
                text: format!("elapsed: {:.1} s", summary.elapsed_seconds),
                items: Vec::new(),
            },
        ]),
    ]
}

/// The figures `simulate` draws into `figures/` beside the report.
fn figures(summary: &StudySummary, rows: ReportRows<'_>) -> Vec<Block> {
    let has_truth = rows.runs.iter().any(|run| run.truth_score.is_some());
    let has_budget = summary.budget.is_some();
    let has_strategies = summary.strategies.is_some();
    let figures = figure_list(
        &summary.settings.measures,
        has_truth,
        has_budget,
        has_strategies,
    )
    .into_iter()
    .map(|(kind, measure)| Figure {
        title: figure_title(kind).to_string(),
        kind,
        measure,
    })
    .collect();
    vec![
        heading(2, "Figures"),
        paragraph("PNG and SVG in `figures/` (redraw with `reusesim plot <this folder>`)."),
        Block::Figures(figures),
    ]
}

/// What a kind of figure shows, in words.
fn figure_title(kind: FigureKind) -> &'static str {
    match kind {
        FigureKind::RankChange => "rank change (official rank and each seed's LOU rank)",
        FigureKind::TauB => "tau_b per held-out team across seeds",
        FigureKind::Scores => "official score against LOU score",
        FigureKind::Truth => "official and LOU rankings against the truth",
        FigureKind::RankSpread => "every run's rank over all trials, dominant rank ringed",
        FigureKind::Budget => "tau_b and recall against the fraction of the budget",
        FigureKind::Strategies => "judging strategies against the fraction of the budget",
        FigureKind::Significance => {
            "significant pairs kept, lost, reversed and new by fraction and strategy"
        }
    }
}
