//! The content of a study's report (`report.md`, `report.html`): its tables and settings, in
//! reading order, as a [`Document`].

use crate::judge::settings::Withhold;
use crate::report::budget::budget_section;
use crate::report::document::{table, Block, Document, Figure, ListItem};
use crate::report::plots::{figure_list, FigureKind};
use crate::report::strategies::strategies_section;
use crate::sim::analysis::{RankRow, RunRow, StrategyRow, StudySummary};
use crate::stats::Spread;

fn fmt_spread(spread: &Option<Spread>) -> String {
    match spread {
        Some(s) => format!("{:.3} ({:.3}–{:.3})", s.mean, s.min, s.max),
        None => "n/a".into(),
    }
}

/// A count over seeds: the count when every seed gave the same, else its spread.
fn fmt_count(spread: &Option<Spread>) -> String {
    match spread {
        Some(s) if s.min == s.max => format!("{:.0}", s.mean),
        Some(s) => format!("{:.1} ({:.0}–{:.0})", s.mean, s.min, s.max),
        None => "n/a".into(),
    }
}

fn fmt_value(value: Option<f64>) -> String {
    value.map_or_else(|| "n/a".into(), |v| format!("{v:.3}"))
}

/// The rows of the tables a report reads beside its summary.
#[derive(Debug, Clone, Copy)]
pub struct ReportRows<'r> {
    /// Rows of `runs.tsv`.
    pub runs: &'r [RunRow],
    /// Rows of `ranks.tsv`.
    pub ranks: &'r [RankRow],
    /// Rows of `strategies.tsv` (none without a comparison of strategies).
    pub strategies: &'r [StrategyRow],
}

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

fn heading(level: u8, text: impl Into<String>) -> Block {
    Block::Heading {
        level,
        text: text.into(),
    }
}

fn paragraph(text: impl Into<String>) -> Block {
    Block::Paragraph(text.into())
}

/// A row that says something about a measure in its second cell, the others blank.
fn note_row(measure: &str, note: &str, columns: usize) -> Vec<String> {
    let mut row = vec![measure.to_string(), note.to_string()];
    row.resize(columns, String::new());
    row
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
         assessor's own ranking of the runs (\"Against the assessor's ranking\").",
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

/// Held-out trials against their seed's control, with the control's own distance from the
/// official ranking beside them.
fn paired(summary: &StudySummary) -> Vec<Block> {
    let rows = summary
        .measures
        .iter()
        .map(|(name, m)| {
            vec![
                name.clone(),
                fmt_spread(&m.paired.tau_b),
                fmt_spread(&m.paired.tau_ap),
                fmt_spread(&m.paired.rank_change),
                fmt_spread(&m.paired.score_change),
                fmt_spread(&m.control.tau_b),
            ]
        })
        .collect();
    vec![
        heading(2, "Leave-out trials paired with their seed's control"),
        paragraph(
            "The trials of a seed share their random streams, so a leave-out trial against its \
             own control shows the leave-out effect without the simulation's noise. Rank and \
             score changes are the held-out team's runs (trial − control; a positive rank \
             change is a drop). The control's tau_b against the official ranking is the \
             simulation's own noise floor.",
        ),
        table(
            &[
                "measure",
                "paired tau_b",
                "paired tau_ap",
                "rank change",
                "score change",
                "control tau_b vs official",
            ],
            rows,
        ),
    ]
}

/// Every run's ranks over all trials: the runs whose ranks spread widest.
fn rank_spread(summary: &StudySummary, report_rows: ReportRows<'_>) -> Vec<Block> {
    let mut rows = Vec::new();
    for name in summary.measures.keys() {
        let mut spreads = rank_spreads(report_rows, name);
        if spreads.is_empty() {
            rows.push(note_row(name, "(every run keeps one rank)", 6));
        }
        spreads.sort_by(|(a, a_ranks), (b, b_ranks)| {
            (b_ranks.max - b_ranks.min)
                .total_cmp(&(a_ranks.max - a_ranks.min))
                .then_with(|| a.run.cmp(&b.run))
        });
        for (run, ranks) in spreads.iter().take(5) {
            rows.push(vec![
                name.clone(),
                run.run.clone(),
                run.team.clone(),
                run.official_rank.to_string(),
                format!("{}–{}", ranks.min, ranks.max),
                format!(
                    "{} ({:.2})",
                    run.trials_dominant_rank, run.trials_dominant_rank_share
                ),
            ]);
        }
    }
    vec![
        heading(2, "Every run's rank over all trials"),
        paragraph(
            "The rank of each run in every trial, control and leave-out trials of every seed \
             (`ranks.tsv`, the `rank_spread` figures); up to 5 runs per measure whose ranks \
             spread widest.",
        ),
        table(
            &[
                "measure",
                "run",
                "team",
                "official rank",
                "ranks over trials (min–max)",
                "dominant rank (share of trials)",
            ],
            rows,
        ),
    ]
}

/// The runs of `measure` whose rank differs between trials, with their ranks over all trials.
fn rank_spreads<'r>(rows: ReportRows<'r>, measure: &str) -> Vec<(&'r RunRow, Spread)> {
    rows.runs
        .iter()
        .filter(|run| run.measure == measure)
        .filter_map(|run| {
            let ranks: Vec<f64> = rows
                .ranks
                .iter()
                .filter(|rank| rank.measure == measure && rank.run == run.run)
                .map(|rank| rank.rank)
                .collect();
            Some((run, Spread::of(&ranks)?))
        })
        .filter(|(_, ranks)| ranks.max > ranks.min)
        .collect()
}

/// The control trials against the official qrels.
fn control(summary: &StudySummary) -> Vec<Block> {
    let rows = summary
        .measures
        .iter()
        .map(|(name, m)| {
            vec![
                name.clone(),
                fmt_count(&m.control.carried),
                fmt_spread(&m.control.overlap),
                fmt_spread(&m.control.recall),
                fmt_spread(&m.control.overlap_found),
                fmt_spread(&m.control.recall_found),
                fmt_spread(&m.control.tau_b),
            ]
        })
        .collect();
    vec![
        heading(
            2,
            "Control trials (nothing held out) against the official qrels",
        ),
        paragraph(
            "Carried judgments are official judgments of documents no run retrieved, copied into \
             the qrels unchanged: overlap and recall count them, overlap_found and recall_found \
             count only what the pool and CAL judged, out of the official judgments they could \
             judge.",
        ),
        table(
            &[
                "measure",
                "carried",
                "overlap",
                "recall of relevant",
                "overlap_found",
                "recall_found",
                "tau_b",
            ],
            rows,
        ),
    ]
}

/// The LOU ranking, and every held-out trial's ranking, against the official one.
fn lou(summary: &StudySummary) -> Vec<Block> {
    let rows = summary
        .measures
        .iter()
        .map(|(name, m)| {
            vec![
                name.clone(),
                fmt_spread(&m.lou.tau_b),
                fmt_spread(&m.lou.tau_ap),
                fmt_spread(&m.lou.max_drop),
                fmt_spread(&m.lou.runs_changed),
                fmt_spread(&m.trials.tau_b),
            ]
        })
        .collect();
    vec![
        heading(2, "The LOU ranking against the official ranking"),
        paragraph(
            "The LOU ranking scores each run on the qrels of its own team's trial (the control's \
             when its team was not held out); trial tau_b compares each leave-out trial's \
             ranking of all runs.",
        ),
        table(
            &[
                "measure",
                "LOU tau_b",
                "LOU tau_ap",
                "max drop",
                "runs changed",
                "trial tau_b",
            ],
            rows,
        ),
    ]
}

/// Classic leave-out-uniques on the official qrels against the official ranking.
fn classic(summary: &StudySummary) -> Vec<Block> {
    let rows = summary
        .measures
        .iter()
        .map(|(name, m)| {
            vec![
                name.clone(),
                fmt_value(m.classic_lou.tau_b),
                fmt_value(m.classic_lou.tau_ap),
                m.classic_lou.max_drop.to_string(),
                m.classic_lou.runs_changed.to_string(),
            ]
        })
        .collect();
    vec![
        heading(2, "Classic leave-out-uniques against the official ranking"),
        paragraph(
            "Each team's runs scored on the official qrels less the documents only its pooled \
             runs put in the pool.",
        ),
        table(
            &["measure", "tau_b", "tau_ap", "max drop", "runs changed"],
            rows,
        ),
    ]
}

/// Every ranking against the complete truth, on tasks with one.
fn truth(summary: &StudySummary) -> Vec<Block> {
    let rows: Vec<Vec<String>> = summary
        .measures
        .iter()
        .filter_map(|(name, m)| {
            let truth = m.truth.as_ref()?;
            Some(vec![
                name.clone(),
                fmt_value(truth.official_tau_b),
                fmt_spread(&truth.lou_tau_b),
                fmt_spread(&truth.control_tau_b),
                fmt_spread(&truth.trials_tau_b),
                fmt_value(truth.classic_lou_tau_b),
            ])
        })
        .collect();
    if rows.is_empty() {
        return Vec::new();
    }
    vec![
        heading(2, "Against the complete truth"),
        table(
            &[
                "measure",
                "official tau_b",
                "LOU tau_b",
                "control tau_b",
                "trial tau_b",
                "classic LOU tau_b",
            ],
            rows,
        ),
    ]
}

/// Every ranking against the assessor's own, when the assessor is not the official qrels.
fn assessor(summary: &StudySummary) -> Vec<Block> {
    let Some(report) = &summary.assessor else {
        return Vec::new();
    };
    let rows: Vec<Vec<String>> = summary
        .measures
        .iter()
        .filter_map(|(name, m)| {
            let against = m.assessor.as_ref()?;
            Some(vec![
                name.clone(),
                fmt_spread(&against.official_tau_b),
                fmt_spread(&against.lou_tau_b),
                fmt_spread(&against.control_tau_b),
                fmt_spread(&against.trials_tau_b),
                fmt_spread(&against.classic_lou_tau_b),
                fmt_spread(&against.control_recall),
            ])
        })
        .collect();
    vec![
        heading(2, "Against the assessor's ranking"),
        paragraph(format!(
            "Each ranking against the runs' ranking on the qrels of the assessor `{}` (of the \
             same seed): how far the official collection, the leave-out trials and the control \
             stand from what the fuller assessor would say. Control recall is the share of the \
             assessor's relevant documents within the judging's reach that the control judged.",
            report.name
        )),
        table(
            &[
                "measure",
                "official tau_b",
                "LOU tau_b",
                "control tau_b",
                "trial tau_b",
                "classic LOU tau_b",
                "control recall",
            ],
            rows,
        ),
    ]
}

/// The runs whose LOU rank moved most.
fn rank_changes(summary: &StudySummary, report_rows: ReportRows<'_>) -> Vec<Block> {
    let mut rows = Vec::new();
    for name in summary.measures.keys() {
        let mut changed: Vec<_> = report_rows
            .runs
            .iter()
            .filter(|r| &r.measure == name)
            .filter(|r| r.lou_rank.min != r.official_rank || r.lou_rank.max != r.official_rank)
            .collect();
        if changed.is_empty() {
            rows.push(note_row(name, "(no run changed rank)", 6));
        }
        changed.sort_by(|a, b| {
            (b.lou_rank.max - b.official_rank)
                .total_cmp(&(a.lou_rank.max - a.official_rank))
                .then_with(|| a.run.cmp(&b.run))
        });
        for row in changed.iter().take(5) {
            rows.push(vec![
                name.clone(),
                row.run.clone(),
                row.team.clone(),
                row.official_rank.to_string(),
                format!(
                    "{:.1} ({}–{})",
                    row.lou_rank.mean, row.lou_rank.min, row.lou_rank.max
                ),
                format!("{} ({})", row.dominant_rank, row.dominant_rank_frequency),
            ]);
        }
    }
    vec![
        heading(
            2,
            "Rank changes under the LOU ranking (largest drops first, up to 5 runs per measure)",
        ),
        table(
            &[
                "measure",
                "run",
                "team",
                "official rank",
                "LOU rank (mean, min–max)",
                "dominant rank (seeds)",
            ],
            rows,
        ),
    ]
}

/// Run pairs whose mean LOU order differs from the official order.
fn swapped_pairs(summary: &StudySummary) -> Vec<Block> {
    let mut rows = Vec::new();
    for (name, m) in &summary.measures {
        if m.swapped_pairs.is_empty() {
            rows.push(note_row(name, "(none)", 7));
        }
        for pair in &m.swapped_pairs {
            rows.push(vec![
                name.clone(),
                pair.better.clone(),
                pair.worse.clone(),
                format!("{:.4} / {:.4}", pair.official[0], pair.official[1]),
                format!("{:.4} / {:.4}", pair.lou_mean[0], pair.lou_mean[1]),
                fmt_value(pair.t_test_p),
                fmt_value(pair.randomization_p),
            ]);
        }
    }
    vec![
        heading(
            2,
            "Swapped pairs (mean LOU order differs from the official order)",
        ),
        table(
            &[
                "measure",
                "officially better",
                "officially worse",
                "official scores",
                "mean LOU scores",
                "t-test p",
                "randomization p",
            ],
            rows,
        ),
    ]
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
    }
}
