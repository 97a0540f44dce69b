//! The audit report's content, rendered as Markdown and as a page: the verdict first, then
//! (with returned judgments) what they changed, the merged list to judge, the audited runs
//! side by side (in the page, with the rank figure) and each run's own audit.

use std::io::{self, Write};

use super::changes::{DocRef, JudgedComparison, Standing};
use super::claims::render::{claims_blocks, claims_figure, judged_claims_blocks};
use super::figure::rank_figure;
use super::labels::labels_blocks;
use super::markdown::{
    at_risk_label, names, run_blocks, section, table, unlisted_note, LISTED_DOCUMENTS,
};
use super::team::TeamAuditReport;
use crate::report::document::{Block, Document};
use crate::report::html::document_page;

/// At most this many documents are named in the notes on returned judgments.
const NAMED_DOCUMENTS: usize = 20;

/// Writes `report` as Markdown.
///
/// # Errors
/// When writing fails.
pub fn write_markdown(out: &mut dyn Write, report: &TeamAuditReport) -> io::Result<()> {
    audit_document(report, false).write_markdown(out)
}

/// Writes `report` as one self-contained HTML page, with the rank figure.
///
/// # Errors
/// When writing fails.
pub fn write_html(out: &mut dyn Write, report: &TeamAuditReport) -> io::Result<()> {
    out.write_all(document_page(&audit_document(report, true)).as_bytes())
}

/// The audit report's content; `with_figure` adds the rank figure (for the page).
pub fn audit_document(report: &TeamAuditReport, with_figure: bool) -> Document {
    let runs: Vec<&str> = report.runs.iter().map(|r| r.run.as_str()).collect();
    let title = match runs[..] {
        [run] => format!("Audit of run {run} on task {}", report.task),
        _ => format!("Audit of runs {} on task {}", runs.join(", "), report.task),
    };
    let mut blocks = vec![
        Block::Lead(format!("Verdict: {}", report.verdict)),
        Block::Heading {
            level: 1,
            text: title,
        },
    ];
    blocks.extend(claims_blocks(&report.runs));
    if with_figure {
        blocks.extend(claims_figure(&report.runs));
    }
    if let Some(judged) = &report.judged {
        blocks.extend(judged_blocks(judged));
    }
    if let Some(labels) = &report.labels {
        let stage = report.settings.calibration.labels.as_ref();
        blocks.extend(labels_blocks(labels, stage));
    }
    blocks.extend(merged_list(report));
    blocks.extend(runs_side_by_side(report));
    if with_figure {
        blocks.push(rank_figure(report));
    }
    let is_single = report.runs.len() == 1;
    for run in &report.runs {
        if is_single {
            blocks.extend(run_blocks(run, 2, false));
        } else {
            blocks.push(section(2, &format!("Run {}", run.run)));
            blocks.extend(run_blocks(run, 3, true));
        }
    }
    Document { blocks }
}

/// "n documents (a/b c/d ...)" naming at most [`NAMED_DOCUMENTS`].
fn named(docs: &[DocRef]) -> String {
    let mut text: Vec<String> = docs
        .iter()
        .take(NAMED_DOCUMENTS)
        .map(|d| format!("{}/{}", d.topic, d.docid))
        .collect();
    if docs.len() > NAMED_DOCUMENTS {
        text.push(format!("and {} more", docs.len() - NAMED_DOCUMENTS));
    }
    format!("{} ({})", docs.len(), text.join(" "))
}

/// What the returned judgments changed, per run and measure.
fn judged_blocks(judged: &JudgedComparison) -> Vec<Block> {
    let mut notes = vec![format!(
        "{} returned grades from `{}` added to the task's qrels for this audit (the task's \
         files are unchanged). Before them: {}.",
        judged.judgments_added, judged.file, judged.verdict_before
    )];
    if !judged.listed_unjudged.is_empty() {
        notes.push(format!(
            "Listed documents without a grade: {}.",
            named(&judged.listed_unjudged)
        ));
    }
    if !judged.judged_unlisted.is_empty() {
        notes.push(format!(
            "Graded documents that were not on the list, used all the same: {}.",
            named(&judged.judged_unlisted)
        ));
    }
    if !judged.overridden.is_empty() {
        notes.push(format!(
            "Official grades replaced: {}.",
            named(&judged.overridden)
        ));
    }
    let cell = |before: &Standing, after: &Standing, value: fn(&Standing) -> String| {
        format!("{} → {}", value(before), value(after))
    };
    let rows = judged
        .runs
        .iter()
        .flat_map(|run| {
            run.measures.iter().map(move |m| {
                let (b, a) = (&m.before, &m.after);
                vec![
                    run.run.clone(),
                    m.measure.clone(),
                    cell(b, a, |s| format!("{:.4}", s.score)),
                    cell(b, a, |s| format!("{:.4}", s.expected)),
                    cell(b, a, |s| {
                        format!("{:.4}–{:.4}", s.sample_low, s.sample_high)
                    }),
                    cell(b, a, |s| s.rank.to_string()),
                    cell(b, a, |s| s.audited_rank.to_string()),
                    cell(b, a, |s| format!("{:.2}", s.probability_rank_moves)),
                    cell(b, a, |s| {
                        if s.is_at_risk { "yes" } else { "no" }.to_string()
                    }),
                ]
            })
        })
        .collect();
    let verdicts = judged
        .runs
        .iter()
        .map(|run| crate::report::document::ListItem {
            text: format!(
                "{}: {} → {}",
                run.run, run.verdict_before, run.verdict_after
            ),
            items: Vec::new(),
        })
        .collect();
    let mut blocks = vec![
        section(2, "With the returned judgments"),
        Block::Paragraph(notes.join(" ")),
        table(
            names(&[
                "run",
                "measure",
                "score",
                "expected",
                "90% range",
                "rank",
                "rank among audited",
                "P(rank moves)",
                "at risk",
            ]),
            "llrrrrrrl",
            rows,
        ),
        Block::List(verdicts),
    ];
    blocks.extend(judged_claims_blocks(&judged.claims));
    blocks
}

/// The merged list to judge.
fn merged_list(report: &TeamAuditReport) -> Vec<Block> {
    let mut blocks = vec![section(2, "Documents to judge")];
    if report.to_judge.is_empty() {
        blocks.push(Block::Paragraph("None.".into()));
        return blocks;
    }
    blocks.push(Block::Paragraph(format!(
        "{} of {} documents (the runs' own lists hold {} together), each once, in order of \
         their combined value to every audited run's verdict (the sum of their shares of each \
         run's at-risk measures' expected squared score movement relative to the runs within \
         reach). The last column is the largest probability, over the audited runs, that a \
         rank still moves once the documents up to that one are judged.",
        report.to_judge.len(),
        report.candidates,
        report.single_run_documents,
    )));
    let with_claims = report.runs.iter().any(|run| !run.claims.is_empty());
    if with_claims {
        blocks.push(Block::Paragraph(
            "The list also serves the claims: a document's value adds its shares of each \
             unsettled claim's expected squared change in the test statistic, and the last \
             column is then the largest probability that a rank moves or a claim's outcome \
             changes."
                .into(),
        ));
    }
    let rows = report
        .to_judge
        .iter()
        .take(LISTED_DOCUMENTS)
        .map(|entry| {
            let mut row = vec![
                entry.topic.clone(),
                entry.docid.clone(),
                entry.rank.to_string(),
                format!("{:.3}", entry.probability),
                entry.runs.join(" "),
            ];
            if with_claims {
                row.push(entry.claims.join("; "));
            }
            row.push(format!("{:.3}", entry.remaining_risk));
            row
        })
        .collect();
    let mut header = vec!["topic", "docid", "best rank", "probability", "runs served"];
    if with_claims {
        header.push("claims served");
    }
    header.push("P(rank moves) after");
    blocks.push(table(
        names(&header),
        if with_claims { "llrrllr" } else { "llrrlr" },
        rows,
    ));
    blocks.extend(unlisted_note(
        report.to_judge.len(),
        "the JSON report, the sheet and the emitted pool",
    ));
    blocks
}

/// Every audited run's measures side by side: scores, ranks among the task's runs and among
/// the audited runs, and the risk before and after the lists.
fn runs_side_by_side(report: &TeamAuditReport) -> Vec<Block> {
    let rows = report
        .runs
        .iter()
        .flat_map(|run| {
            run.measures.iter().map(move |m| {
                vec![
                    run.run.clone(),
                    m.score.measure.clone(),
                    format!("{:.4}", m.score.lower),
                    format!("{:.4}", m.score.expected),
                    format!("{} of {}", m.rank, m.runs_ranked),
                    m.rank_expected.to_string(),
                    format!("{} of {}", m.audited_rank, m.audited_runs),
                    m.audited_rank_expected.to_string(),
                    format!("{:.2}", m.probability_rank_moves),
                    format!("{:.2}", m.remaining_probability_rank_moves),
                    format!("{:.2}", m.remaining_after_merged_list),
                    at_risk_label(m),
                ]
            })
        })
        .collect();
    vec![
        section(2, "Audited runs"),
        Block::Paragraph(
            "Ranks among the task's runs and among the audited runs, on the collection and at \
             the expected scores: the audited runs move together when the list is judged. \
             P(rank moves) before judging, after the run's own list and after the merged list."
                .into(),
        ),
        table(
            names(&[
                "run",
                "measure",
                "score",
                "expected",
                "rank",
                "rank expected",
                "rank among audited",
                "expected among audited",
                "P(rank moves)",
                "after own list",
                "after merged list",
                "at risk",
            ]),
            "llrrrrrrrrrl",
            rows,
        ),
    ]
}
