//! `report.md`: the study's tables and settings in Markdown, for people.

use std::io::{self, Write};

use crate::judge::settings::Withhold;
use crate::sim::analysis::StudySummary;
use crate::stats::Spread;

fn fmt_spread(spread: &Option<Spread>) -> String {
    match spread {
        Some(s) => format!("{:.3} ({:.3}–{:.3})", s.mean, s.min, s.max),
        None => "n/a".into(),
    }
}

fn fmt_value(value: Option<f64>) -> String {
    value.map_or_else(|| "n/a".into(), |v| format!("{v:.3}"))
}

/// Writes the report.
///
/// # Errors
/// When writing fails.
pub fn write_report(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    write_intro(out, summary)?;
    write_rankings(out, summary)?;
    write_paired(out, summary)?;
    write_control(out, summary)?;
    write_truth(out, summary)?;
    write_rank_changes(out, summary)?;
    write_swapped_pairs(out, summary)?;
    if let Some(budget) = &summary.budget {
        super::budget::write_budget_section(out, budget)?;
    }
    write_figure_links(out, summary)?;
    write_settings(out, summary)
}

/// The title, what was run, and how to read the tables.
fn write_intro(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    let settings = &summary.settings;
    writeln!(out, "# Reusability study: {}\n", summary.task)?;
    writeln!(
        out,
        "{} seeds; each seed judges a control trial and one trial per held-out team ({} teams); \
         features `{}`, learner `{}` ({} iterations), schedule `{}`, candidates `{}`, pool depth \
         {}.\n",
        settings.seeds.len(),
        settings.held_out_teams.len(),
        settings.features,
        settings.judge.learner,
        settings.judge.iterations,
        settings.judge.schedule,
        settings.judge.candidates,
        settings.judge.pool_depth
    )?;
    writeln!(
        out,
        "Leave-out trials withhold `{}`: {}\n",
        settings.judge.withhold,
        match settings.judge.withhold {
            Withhold::None => {
                "a trial drops the team's runs from the pool and the features; the judge may still \
                 find the team's documents by their text or through other runs, as it could have \
                 had the team never taken part"
            }
            Withhold::Uniques => {
                "a trial also withholds the team's unique relevant documents from the simulated \
                 assessor: the bound classic leave-out-uniques assumes, in which nobody ever \
                 finds them"
            }
        }
    )?;
    writeln!(
        out,
        "Cells give the mean over seeds, with the range in brackets. The LOU ranking \
        scores each run on the qrels judged without its team. tau >= 0.9 is the usual threshold \
        for equivalent rankings (Voorhees 2000).\n"
    )?;
    Ok(())
}

/// The LOU, per-trial and classic leave-out-uniques rankings against the official one.
fn write_rankings(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    writeln!(out, "## Rankings against the official ranking\n")?;
    writeln!(out, "| measure | LOU tau_b | LOU tau_ap | max drop | runs changed | trial tau_b | classic LOU tau_b | classic max drop |")?;
    writeln!(out, "|---|---|---|---|---|---|---|---|")?;
    for (name, m) in &summary.measures {
        writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {} | {} |",
            fmt_spread(&m.lou.tau_b),
            fmt_spread(&m.lou.tau_ap),
            fmt_spread(&m.lou.max_drop),
            fmt_spread(&m.lou.runs_changed),
            fmt_spread(&m.trials.tau_b),
            fmt_value(m.classic_lou.tau_b),
            m.classic_lou.max_drop
        )?;
    }
    Ok(())
}

/// Held-out trials against their seed's control.
fn write_paired(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    writeln!(
        out,
        "\n## Held-out trials paired with their seed's control\n\nThe trials of a seed share \
         their random streams, so a held-out trial against its own control shows the leave-out \
         effect without the simulation's noise. Rank and score changes are the held-out team's \
         runs (trial − control; a positive rank change is a drop).\n"
    )?;
    writeln!(
        out,
        "| measure | paired tau_b | paired tau_ap | rank change | score change |"
    )?;
    writeln!(out, "|---|---|---|---|---|")?;
    for (name, m) in &summary.measures {
        writeln!(
            out,
            "| {name} | {} | {} | {} | {} |",
            fmt_spread(&m.paired.tau_b),
            fmt_spread(&m.paired.tau_ap),
            fmt_spread(&m.paired.rank_change),
            fmt_spread(&m.paired.score_change)
        )?;
    }
    Ok(())
}

/// The control trials against the official qrels.
fn write_control(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    writeln!(
        out,
        "\n## Control trials (nothing held out) against the official qrels\n"
    )?;
    writeln!(out, "| measure | overlap | recall of relevant | tau_b |")?;
    writeln!(out, "|---|---|---|---|")?;
    for (name, m) in &summary.measures {
        writeln!(
            out,
            "| {name} | {} | {} | {} |",
            fmt_spread(&m.control.overlap),
            fmt_spread(&m.control.recall),
            fmt_spread(&m.control.tau_b)
        )?;
    }
    Ok(())
}

/// Every ranking against the complete truth, on tasks with one.
fn write_truth(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    if summary.measures.values().any(|m| m.truth.is_some()) {
        writeln!(out, "\n## Against the complete truth\n")?;
        writeln!(
            out,
            "| measure | official tau_b | LOU tau_b | control tau_b | trial tau_b | classic LOU tau_b |"
        )?;
        writeln!(out, "|---|---|---|---|---|---|")?;
        for (name, m) in &summary.measures {
            if let Some(truth) = &m.truth {
                writeln!(
                    out,
                    "| {name} | {} | {} | {} | {} | {} |",
                    fmt_value(truth.official_tau_b),
                    fmt_spread(&truth.lou_tau_b),
                    fmt_spread(&truth.control_tau_b),
                    fmt_spread(&truth.trials_tau_b),
                    fmt_value(truth.classic_lou_tau_b)
                )?;
            }
        }
    }
    Ok(())
}

/// The runs whose LOU rank moved most.
fn write_rank_changes(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    writeln!(
        out,
        "\n## Rank changes under the LOU ranking (largest drops first, up to 5 runs per measure)\n"
    )?;
    writeln!(out, "| measure | run | team | official rank | LOU rank (mean, min–max) | dominant rank (seeds) |")?;
    writeln!(out, "|---|---|---|---|---|---|")?;
    for name in summary.measures.keys() {
        let mut rows: Vec<_> = summary
            .runs
            .iter()
            .filter(|r| &r.measure == name)
            .filter(|r| r.lou_rank.min != r.official_rank || r.lou_rank.max != r.official_rank)
            .collect();
        if rows.is_empty() {
            writeln!(out, "| {name} | (no run changed rank) | | | | |")?;
        }
        rows.sort_by(|a, b| {
            (b.lou_rank.max - b.official_rank)
                .total_cmp(&(a.lou_rank.max - a.official_rank))
                .then_with(|| a.run.cmp(&b.run))
        });
        for row in rows.iter().take(5) {
            writeln!(
                out,
                "| {name} | {} | {} | {} | {:.1} ({}–{}) | {} ({}) |",
                row.run,
                row.team,
                row.official_rank,
                row.lou_rank.mean,
                row.lou_rank.min,
                row.lou_rank.max,
                row.dominant_rank,
                row.dominant_rank_frequency
            )?;
        }
    }
    Ok(())
}

/// Run pairs whose mean LOU order differs from the official order.
fn write_swapped_pairs(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    writeln!(
        out,
        "\n## Swapped pairs (mean LOU order differs from the official order)\n"
    )?;
    writeln!(out, "| measure | officially better | officially worse | official scores | mean LOU scores | t-test p | randomization p |")?;
    writeln!(out, "|---|---|---|---|---|---|---|")?;
    for (name, m) in &summary.measures {
        if m.swapped_pairs.is_empty() {
            writeln!(out, "| {name} | (none) | | | | | |")?;
        }
        for pair in &m.swapped_pairs {
            writeln!(
                out,
                "| {name} | {} | {} | {:.4} / {:.4} | {:.4} / {:.4} | {} | {} |",
                pair.better,
                pair.worse,
                pair.official[0],
                pair.official[1],
                pair.lou_mean[0],
                pair.lou_mean[1],
                fmt_value(pair.t_test_p),
                fmt_value(pair.randomization_p)
            )?;
        }
    }
    Ok(())
}

/// Deviations from HiCAL, the work done and the time taken.
fn write_settings(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    let settings = &summary.settings;
    writeln!(out, "\n## Settings\n")?;
    writeln!(out, "- deviations from HiCAL as TREC DL ran it:")?;
    for deviation in &settings.deviations {
        writeln!(out, "  - {deviation}")?;
    }
    let counts = &summary.simulations;
    writeln!(
        out,
        "- {} trials, {} (trial, topic) units, {} distinct units judged, {} retrains; {} units \
         had a pool larger than their budget (the whole pool was kept).",
        counts.trials,
        counts.units,
        counts.distinct_units,
        counts.retrains,
        counts.pools_over_budget
    )?;
    writeln!(out, "- elapsed: {:.1} s", summary.elapsed_seconds)?;
    Ok(())
}

/// Links to the figures `simulate` draws into `figures/` beside the report.
fn write_figure_links(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    use crate::report::plots::{figure_list, figure_stem, FigureKind};
    writeln!(out, "\n## Figures\n")?;
    writeln!(
        out,
        "PNG and SVG in `figures/` (redraw with `reusesim plot <this folder>`).\n"
    )?;
    let has_truth = summary.runs.iter().any(|run| run.truth_score.is_some());
    let has_budget = summary.budget.is_some();
    for (kind, measure) in figure_list(&summary.settings.measures, has_truth, has_budget) {
        let title = match kind {
            FigureKind::RankChange => "rank change (official rank and each seed's LOU rank)",
            FigureKind::TauB => "tau_b per held-out team across seeds",
            FigureKind::Scores => "official score against LOU score",
            FigureKind::Truth => "official and LOU rankings against the truth",
            FigureKind::RankSpread => "every run's rank over all trials, dominant rank ringed",
            FigureKind::Budget => "tau_b and recall against the fraction of the budget",
        };
        let stem = figure_stem(kind, &measure);
        writeln!(
            out,
            "### {measure}: {title}\n\n![{measure}: {title}](figures/{stem}.png)\n"
        )?;
    }
    Ok(())
}
