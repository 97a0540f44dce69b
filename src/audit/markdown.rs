//! The audit report in Markdown: the verdict first, then coverage, the measures with their
//! intervals and ranks, the leave-team-out comparison, the documents to judge and the topics.

use std::io::{self, Write};

use super::{AuditReport, AUDIT_DEPTH};

/// At most this many documents to judge are listed (the full list is in `--emit-pool` and the
/// JSON report).
pub const LISTED_DOCUMENTS: usize = 50;

/// Writes `report` as Markdown.
///
/// # Errors
/// When writing fails.
pub fn write_markdown(out: &mut dyn Write, report: &AuditReport) -> io::Result<()> {
    write_heading(out, report)?;
    write_coverage(out, report)?;
    write_scores(out, report)?;
    write_study(out, report)?;
    write_to_judge(out, report)?;
    write_topics(out, report)
}

/// The verdict, the run and the settings.
fn write_heading(out: &mut dyn Write, report: &AuditReport) -> io::Result<()> {
    writeln!(out, "**Verdict: {}**", report.verdict)?;
    writeln!(out)?;
    writeln!(out, "# Audit of run {} on task {}", report.run, report.task)?;
    writeln!(out)?;
    let in_task = match report.in_task {
        None => "not in the task".to_string(),
        Some(true) => "in the task, pooled".to_string(),
        Some(false) => "in the task, not pooled".to_string(),
    };
    writeln!(
        out,
        "Run file `{}` ({in_task}); {} topics audited; {} features; relevance: grade >= {}.",
        report.run_file,
        report.topics_audited,
        report.settings.features,
        report.settings.relevance_level
    )?;
    writeln!(out)?;
    Ok(())
}

/// Judgment coverage of the run's top.
fn write_coverage(out: &mut dyn Write, report: &AuditReport) -> io::Result<()> {
    let c = &report.coverage;
    writeln!(out, "## Coverage")?;
    writeln!(out)?;
    writeln!(
        out,
        "| judged_10 | judged_20 | judged_100 | unj_10 | unjudged in top 10 | top 20 | top 100 |"
    )?;
    writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|")?;
    writeln!(
        out,
        "| {:.4} | {:.4} | {:.4} | {:.4} | {} | {} | {} |",
        c.judged_10,
        c.judged_20,
        c.judged_100,
        c.unj_10,
        c.unjudged_10,
        c.unjudged_20,
        c.unjudged_100
    )?;
    writeln!(out)?;
    Ok(())
}

/// Score and rank intervals per measure.
fn write_scores(out: &mut dyn Write, report: &AuditReport) -> io::Result<()> {
    writeln!(out, "## Scores and ranks")?;
    writeln!(out)?;
    writeln!(
        out,
        "Lower: every unjudged document non-relevant (the collection's score). Upper: every \
         unjudged document of the top {AUDIT_DEPTH} relevant. Expected: under the judge model, \
         calibrated on what leaving a team out loses ({}; 90% of {} Monte-Carlo samples in the \
         range shown). P(rank moves): the \
         probability that the run's rank among the other runs moves by at least {} once its \
         unjudged documents are judged; a measure is at risk above {}, and the list of documents to \
         judge stops once it is at most {}.",
        match report.settings.evidence.as_str() {
            "trials" => "the study's leave-out trials",
            _ => "the pool",
        },
        report.settings.samples,
        report.settings.rank_margin,
        report.settings.risk_threshold,
        report.settings.settle_threshold
    )?;
    writeln!(out)?;
    writeln!(out, "| measure | lower | expected (90% range) | upper | rank | rank expected | rank best–worst | of runs | P(rank moves) | after judging | at risk |")?;
    writeln!(
        out,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    )?;
    for m in &report.measures {
        writeln!(
            out,
            "| {} | {:.4} | {:.4} ({:.4}–{:.4}) | {:.4} | {} | {} | {}–{} | {} | {:.2} | {:.2} | {} |",
            m.score.measure,
            m.score.lower,
            m.score.expected,
            m.score.sample_low,
            m.score.sample_high,
            m.score.upper,
            m.rank,
            m.rank_expected,
            m.rank_best,
            m.rank_worst,
            m.runs_ranked,
            m.probability_rank_moves,
            m.remaining_probability_rank_moves,
            if m.is_at_risk { "yes" } else { "no" }
        )?;
    }
    writeln!(out)?;
    Ok(())
}

/// The leave-team-out comparison.
fn write_study(out: &mut dyn Write, report: &AuditReport) -> io::Result<()> {
    writeln!(out, "## Leave-team-out comparison")?;
    writeln!(out)?;
    writeln!(out, "Source: {}.", report.study.source)?;
    if !report.study.measures.is_empty() {
        writeln!(out)?;
        writeln!(out, "| measure | pooled runs | largest rank drop | run | largest score drop | run | this run's interval width |")?;
        writeln!(out, "|---|---:|---:|---|---:|---|---:|")?;
        for drop in &report.study.measures {
            let width = report
                .measures
                .iter()
                .find(|m| m.score.measure == drop.measure)
                .map_or(0.0, |m| (m.score.upper - m.score.lower).abs());
            writeln!(
                out,
                "| {} | {} | {} | {} | {:.4} | {} | {width:.4} |",
                drop.measure,
                drop.pooled_runs,
                drop.max_rank_drop,
                drop.max_rank_drop_run,
                drop.max_score_drop,
                drop.max_score_drop_run
            )?;
        }
    }
    writeln!(out)?;
    Ok(())
}

/// The documents to judge, in priority order.
fn write_to_judge(out: &mut dyn Write, report: &AuditReport) -> io::Result<()> {
    writeln!(out, "## Documents to judge")?;
    writeln!(out)?;
    if report.to_judge.is_empty() {
        writeln!(out, "None.")?;
    } else {
        writeln!(
            out,
            "{} of {} documents, in priority order (each document's share of the at-risk \
             measures' expected squared score movement). The last column is the largest \
             probability that the run's rank still moves once the documents up to that one \
             are judged.",
            report.to_judge.len(),
            report.candidates,
        )?;
        writeln!(out)?;
        writeln!(
            out,
            "| topic | docid | rank | probability | P(rank moves) after |"
        )?;
        writeln!(out, "|---|---|---:|---:|---:|")?;
        for entry in report.to_judge.iter().take(LISTED_DOCUMENTS) {
            writeln!(
                out,
                "| {} | {} | {} | {:.3} | {:.3} |",
                entry.topic, entry.docid, entry.rank, entry.probability, entry.remaining_risk
            )?;
        }
        if report.to_judge.len() > LISTED_DOCUMENTS {
            writeln!(
                out,
                "\n… {} more (all of them in the JSON report and the emitted pool).",
                report.to_judge.len() - LISTED_DOCUMENTS
            )?;
        }
    }
    writeln!(out)?;
    Ok(())
}

/// Coverage and intervals per topic.
fn write_topics(out: &mut dyn Write, report: &AuditReport) -> io::Result<()> {
    writeln!(out, "## Topics")?;
    writeln!(out)?;
    write!(
        out,
        "| topic | judged_10 | judged_20 | judged_100 | unjudged top 10 / 20 / 100 |"
    )?;
    for m in &report.measures {
        write!(out, " {} lower–upper (expected) |", m.score.measure)?;
    }
    writeln!(out)?;
    write!(out, "|---|---:|---:|---:|---:|")?;
    for _ in &report.measures {
        write!(out, "---:|")?;
    }
    writeln!(out)?;
    for topic in &report.topics {
        let c = &topic.coverage;
        write!(
            out,
            "| {} | {:.2} | {:.2} | {:.2} | {} / {} / {} |",
            topic.topic,
            c.judged_10,
            c.judged_20,
            c.judged_100,
            c.unjudged_10,
            c.unjudged_20,
            c.unjudged_100
        )?;
        for s in &topic.scores {
            write!(out, " {:.4}–{:.4} ({:.4}) |", s.lower, s.upper, s.expected)?;
        }
        writeln!(out)?;
    }
    Ok(())
}
