//! `report.md`: the study's tables and settings in Markdown, for people.

use std::io::{self, Write};

use crate::judge::settings::Withhold;
use crate::sim::analysis::{RunRow, StudySummary};
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

/// Writes the report.
///
/// # Errors
/// When writing fails.
pub fn write_report(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    write_intro(out, summary)?;
    write_paired(out, summary)?;
    write_rank_spread(out, summary)?;
    write_control(out, summary)?;
    write_lou(out, summary)?;
    write_classic(out, summary)?;
    write_truth(out, summary)?;
    write_rank_changes(out, summary)?;
    write_swapped_pairs(out, summary)?;
    if let Some(budget) = &summary.budget {
        super::budget::write_budget_section(out, budget)?;
    }
    if let Some(strategies) = &summary.strategies {
        super::strategies::write_strategies_section(out, strategies, &summary.strategy_rows)?;
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
         features `{}`, learner `{}` ({} iterations), schedule `{}`, candidates `{}`, carried \
         judgments `{}`, pool depth {}.\n",
        settings.seeds.len(),
        settings.held_out_teams.len(),
        settings.features,
        settings.judge.learner,
        settings.judge.iterations,
        settings.judge.schedule,
        settings.judge.candidates,
        settings.judge.carried,
        settings.judge.pool_depth
    )?;
    writeln!(
        out,
        "Leave-out trials withhold `{}`: {}\n",
        settings.judge.withhold,
        match settings.judge.withhold {
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
        }
    )?;
    writeln!(
        out,
        "Cells give the mean, with the range in brackets. The paired statistics and the ranks \
         over all trials come first: they isolate the leave-out effect. The LOU ranking and \
         classic leave-out-uniques follow; they compare with the official ranking, so they \
         also hold the simulation's own noise (the control's tau_b). tau >= 0.9 is the usual \
         threshold for equivalent rankings (Voorhees 2000).\n"
    )?;
    Ok(())
}

/// Held-out trials against their seed's control, with the control's own distance from the
/// official ranking beside them.
fn write_paired(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    writeln!(
        out,
        "## Leave-out trials paired with their seed's control\n\nThe trials of a seed share \
         their random streams, so a leave-out trial against its own control shows the leave-out \
         effect without the simulation's noise. Rank and score changes are the held-out team's \
         runs (trial − control; a positive rank change is a drop). The control's tau_b against \
         the official ranking is the simulation's own noise floor.\n"
    )?;
    writeln!(
        out,
        "| measure | paired tau_b | paired tau_ap | rank change | score change | control tau_b vs official |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|")?;
    for (name, m) in &summary.measures {
        writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} |",
            fmt_spread(&m.paired.tau_b),
            fmt_spread(&m.paired.tau_ap),
            fmt_spread(&m.paired.rank_change),
            fmt_spread(&m.paired.score_change),
            fmt_spread(&m.control.tau_b)
        )?;
    }
    Ok(())
}

/// Every run's ranks over all trials: the runs whose ranks spread widest.
fn write_rank_spread(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    writeln!(
        out,
        "\n## Every run's rank over all trials\n\nThe rank of each run in every trial, \
         control and leave-out trials of every seed (`ranks.tsv`, the `rank_spread` figures); \
         up to 5 runs per measure whose ranks spread widest.\n"
    )?;
    writeln!(
        out,
        "| measure | run | team | official rank | ranks over trials (min–max) | dominant rank (share of trials) |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|")?;
    for name in summary.measures.keys() {
        let mut rows = rank_spreads(summary, name);
        if rows.is_empty() {
            writeln!(out, "| {name} | (every run keeps one rank) | | | | |")?;
        }
        rows.sort_by(|(a, a_ranks), (b, b_ranks)| {
            (b_ranks.max - b_ranks.min)
                .total_cmp(&(a_ranks.max - a_ranks.min))
                .then_with(|| a.run.cmp(&b.run))
        });
        for (run, ranks) in rows.iter().take(5) {
            writeln!(
                out,
                "| {name} | {} | {} | {} | {}–{} | {} ({:.2}) |",
                run.run,
                run.team,
                run.official_rank,
                ranks.min,
                ranks.max,
                run.trials_dominant_rank,
                run.trials_dominant_rank_share
            )?;
        }
    }
    Ok(())
}

/// The runs of `measure` whose rank differs between trials, with their ranks over all trials.
fn rank_spreads<'s>(summary: &'s StudySummary, measure: &str) -> Vec<(&'s RunRow, Spread)> {
    summary
        .runs
        .iter()
        .filter(|run| run.measure == measure)
        .filter_map(|run| {
            let ranks: Vec<f64> = summary
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
fn write_control(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    writeln!(
        out,
        "\n## Control trials (nothing held out) against the official qrels\n"
    )?;
    writeln!(
        out,
        "Carried judgments are official judgments of documents no run retrieved, copied into \
         the qrels unchanged: overlap and recall count them, overlap_found and recall_found \
         count only what the pool and CAL judged, out of the official judgments they could \
         judge.\n"
    )?;
    writeln!(
        out,
        "| measure | carried | overlap | recall of relevant | overlap_found | recall_found | tau_b |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|")?;
    for (name, m) in &summary.measures {
        writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {} |",
            fmt_count(&m.control.carried),
            fmt_spread(&m.control.overlap),
            fmt_spread(&m.control.recall),
            fmt_spread(&m.control.overlap_found),
            fmt_spread(&m.control.recall_found),
            fmt_spread(&m.control.tau_b)
        )?;
    }
    Ok(())
}

/// The LOU ranking, and every held-out trial's ranking, against the official one.
fn write_lou(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    writeln!(
        out,
        "\n## The LOU ranking against the official ranking\n\nThe LOU ranking scores each run \
         on the qrels of its own team's trial (the control's when its team was not held out); \
         trial tau_b compares each leave-out trial's ranking of all runs.\n"
    )?;
    writeln!(
        out,
        "| measure | LOU tau_b | LOU tau_ap | max drop | runs changed | trial tau_b |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|")?;
    for (name, m) in &summary.measures {
        writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} |",
            fmt_spread(&m.lou.tau_b),
            fmt_spread(&m.lou.tau_ap),
            fmt_spread(&m.lou.max_drop),
            fmt_spread(&m.lou.runs_changed),
            fmt_spread(&m.trials.tau_b),
        )?;
    }
    Ok(())
}

/// Classic leave-out-uniques on the official qrels against the official ranking.
fn write_classic(out: &mut dyn Write, summary: &StudySummary) -> io::Result<()> {
    writeln!(
        out,
        "\n## Classic leave-out-uniques against the official ranking\n\nEach team's runs \
         scored on the official qrels less the documents only its pooled runs put in the pool.\n"
    )?;
    writeln!(
        out,
        "| measure | tau_b | tau_ap | max drop | runs changed |"
    )?;
    writeln!(out, "|---|---|---|---|---|")?;
    for (name, m) in &summary.measures {
        writeln!(
            out,
            "| {name} | {} | {} | {} | {} |",
            fmt_value(m.classic_lou.tau_b),
            fmt_value(m.classic_lou.tau_ap),
            m.classic_lou.max_drop,
            m.classic_lou.runs_changed
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
    let has_strategies = summary.strategies.is_some();
    let figures = figure_list(
        &summary.settings.measures,
        has_truth,
        has_budget,
        has_strategies,
    );
    for (kind, measure) in figures {
        let title = match kind {
            FigureKind::RankChange => "rank change (official rank and each seed's LOU rank)",
            FigureKind::TauB => "tau_b per held-out team across seeds",
            FigureKind::Scores => "official score against LOU score",
            FigureKind::Truth => "official and LOU rankings against the truth",
            FigureKind::RankSpread => "every run's rank over all trials, dominant rank ringed",
            FigureKind::Budget => "tau_b and recall against the fraction of the budget",
            FigureKind::Strategies => "judging strategies against the fraction of the budget",
        };
        let stem = figure_stem(kind, &measure);
        writeln!(
            out,
            "### {measure}: {title}\n\n![{measure}: {title}](figures/{stem}.png)\n"
        )?;
    }
    Ok(())
}
