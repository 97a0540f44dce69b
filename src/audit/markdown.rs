//! One run's part of the audit report: its own list to judge, coverage, the measures with
//! their intervals and ranks, the leave-team-out comparison and the topics.

use super::report::{AuditReport, MeasureAudit};
use super::settings::AUDIT_DEPTH;
use crate::report::document::{Align, Block, Table};

/// At most this many documents to judge are listed (the full list is in `--emit-pool` and the
/// JSON report).
pub const LISTED_DOCUMENTS: usize = 50;

/// The blocks of one run's audit: its file, the documents of its own list (`with_own_list`),
/// coverage, scores and ranks, the leave-team-out comparison and the topics, with sections at heading `level`.
pub(super) fn run_blocks(report: &AuditReport, level: u8, with_own_list: bool) -> Vec<Block> {
    let mut blocks = vec![run_file(report)];
    if with_own_list {
        blocks.extend(to_judge(report, level));
    }
    blocks.extend(coverage(report, level));
    blocks.extend(scores(report, level));
    blocks.extend(study(report, level));
    blocks.extend(topics(report, level));
    blocks
}

pub(super) fn section(level: u8, text: &str) -> Block {
    Block::Heading {
        level,
        text: text.to_string(),
    }
}

/// A table whose columns are aligned as `align` spells them (`l` left, `r` right).
pub(super) fn table(header: Vec<String>, align: &str, rows: Vec<Vec<String>>) -> Block {
    Block::Table(Table {
        header,
        align: align
            .chars()
            .map(|c| if c == 'r' { Align::Right } else { Align::Left })
            .collect(),
        rows,
    })
}

/// The note under a list of `total` documents cut at [`LISTED_DOCUMENTS`]: how many are not
/// listed, and where (`complete_in`) all of them are; none when the list is whole.
pub(super) fn unlisted_note(total: usize, complete_in: &str) -> Option<Block> {
    (total > LISTED_DOCUMENTS).then(|| {
        Block::Paragraph(format!(
            "… {} more (all of them in {complete_in}).",
            total - LISTED_DOCUMENTS
        ))
    })
}

pub(super) fn names(header: &[&str]) -> Vec<String> {
    header.iter().map(ToString::to_string).collect()
}

/// The cap per topic of a list as the reports say it: "5", or "any number of".
pub(super) fn per_topic_cap(cap: Option<usize>) -> String {
    cap.map_or("any number of".to_string(), |cap| cap.to_string())
}

/// Whether a measure is at risk, and whether judging cannot settle it.
pub(super) fn at_risk_label(measure: &MeasureAudit) -> String {
    match (measure.is_at_risk, measure.cannot_settle) {
        (false, _) => "no",
        (true, false) => "yes",
        (true, true) => "yes; judging cannot settle it",
    }
    .to_string()
}

/// The run file and the settings.
fn run_file(report: &AuditReport) -> Block {
    let in_task = match report.in_task {
        None => "not in the task".to_string(),
        Some(true) => "in the task, pooled".to_string(),
        Some(false) => "in the task, not pooled".to_string(),
    };
    Block::Paragraph(format!(
        "Run file `{}` ({in_task}); {} topics audited; {} features; relevance: grade >= {}. \
         Verdict of the run alone: {}.",
        report.run_file,
        report.topics_audited,
        report.settings.features,
        report.settings.relevance_level,
        report.verdict
    ))
}

/// Judgment coverage of the run's top.
fn coverage(report: &AuditReport, level: u8) -> Vec<Block> {
    let c = &report.coverage;
    let header = names(&[
        "judged_10",
        "judged_20",
        "judged_100",
        "unj_10",
        "unjudged in top 10",
        "top 20",
        "top 100",
    ]);
    let row = vec![
        format!("{:.4}", c.judged_10),
        format!("{:.4}", c.judged_20),
        format!("{:.4}", c.judged_100),
        format!("{:.4}", c.unj_10),
        c.unjudged_10.to_string(),
        c.unjudged_20.to_string(),
        c.unjudged_100.to_string(),
    ];
    vec![
        section(level, "Coverage"),
        table(header, "rrrrrrr", vec![row]),
    ]
}

/// Score and rank intervals per measure.
fn scores(report: &AuditReport, level: u8) -> Vec<Block> {
    let explanation = format!(
        "Lower: every unjudged document non-relevant (the collection's score). Upper: every \
         unjudged document of the top {AUDIT_DEPTH} relevant. Expected: under the judge model, \
         calibrated on what leaving a team out loses ({}; 90% of {} Monte-Carlo samples in the \
         range shown). P(rank moves): the \
         probability that the run's rank among the other runs moves by at least {} once its \
         unjudged documents are judged; a measure is at risk above {}, and the list of documents to \
         judge stops once it is at most {}. Judging cannot settle an at-risk measure when its own \
         whole list, at most {} documents a topic, would leave P(rank moves) above that; the \
         list then does not serve it. Extrapolated: the part of the expected score that \
         documents beyond the pool's reach bring ({}), where the collection has no judgment.",
        match report.settings.evidence.as_str() {
            "trials" => "the study's leave-out trials",
            _ => "the pool",
        },
        report.settings.samples,
        report.settings.rank_margin,
        report.settings.risk_threshold,
        report.settings.settle_threshold,
        per_topic_cap(report.settings.list_per_topic),
        match report.settings.beyond_pool.as_str() {
            "non-relevant" => "counted non-relevant, as the collection presumes them",
            _ => "extrapolated from what the collection shows",
        }
    );
    let header = names(&[
        "measure",
        "lower",
        "expected (90% range)",
        "extrapolated",
        "upper",
        "rank",
        "rank expected",
        "rank best–worst",
        "of runs",
        "P(rank moves)",
        "after judging",
        "at risk",
    ]);
    let rows = report
        .measures
        .iter()
        .map(|m| {
            vec![
                m.score.measure.clone(),
                format!("{:.4}", m.score.lower),
                format!(
                    "{:.4} ({:.4}–{:.4})",
                    m.score.expected, m.score.sample_low, m.score.sample_high
                ),
                format!("{:.4}", m.score.extrapolated),
                format!("{:.4}", m.score.upper),
                m.rank.to_string(),
                m.rank_expected.to_string(),
                format!("{}–{}", m.rank_best, m.rank_worst),
                m.runs_ranked.to_string(),
                format!("{:.2}", m.probability_rank_moves),
                format!("{:.2}", m.remaining_probability_rank_moves),
                at_risk_label(m),
            ]
        })
        .collect();
    vec![
        section(level, "Scores and ranks"),
        Block::Paragraph(explanation),
        table(header, "lrrrrrrrrrrl", rows),
    ]
}

/// The leave-team-out comparison.
fn study(report: &AuditReport, level: u8) -> Vec<Block> {
    let mut blocks = vec![
        section(level, "Leave-team-out comparison"),
        Block::Paragraph(format!("Source: {}.", report.study.source)),
    ];
    if !report.study.measures.is_empty() {
        let header = names(&[
            "measure",
            "pooled runs",
            "largest rank drop",
            "run",
            "largest score drop",
            "run",
            "this run's interval width",
        ]);
        let rows = report
            .study
            .measures
            .iter()
            .map(|drop| {
                let width = report
                    .measures
                    .iter()
                    .find(|m| m.score.measure == drop.measure)
                    .map_or(0.0, |m| (m.score.upper - m.score.lower).abs());
                vec![
                    drop.measure.clone(),
                    drop.pooled_runs.to_string(),
                    drop.max_rank_drop.to_string(),
                    drop.max_rank_drop_run.clone(),
                    format!("{:.4}", drop.max_score_drop),
                    drop.max_score_drop_run.clone(),
                    format!("{width:.4}"),
                ]
            })
            .collect();
        blocks.push(table(header, "lrrlrlr", rows));
    }
    blocks
}

/// The documents to judge, in priority order.
fn to_judge(report: &AuditReport, level: u8) -> Vec<Block> {
    let mut blocks = vec![section(level, "Its own list")];
    if report.to_judge.is_empty() {
        blocks.push(Block::Paragraph("None.".into()));
        return blocks;
    }
    blocks.push(Block::Paragraph(format!(
        "{} of {} documents, in priority order (each document's share of the at-risk \
         measures' expected squared score movement relative to the runs within reach). The last column is the largest \
         probability that the run's rank still moves once the documents up to that one \
         are judged.",
        report.to_judge.len(),
        report.candidates,
    )));
    let rows = report
        .to_judge
        .iter()
        .take(LISTED_DOCUMENTS)
        .map(|entry| {
            vec![
                entry.topic.to_string(),
                entry.docid.to_string(),
                entry.rank.to_string(),
                format!("{:.3}", entry.probability),
                format!("{:.3}", entry.remaining_risk),
            ]
        })
        .collect();
    blocks.push(table(
        names(&[
            "topic",
            "docid",
            "rank",
            "probability",
            "P(rank moves) after",
        ]),
        "llrrr",
        rows,
    ));
    blocks.extend(unlisted_note(
        report.to_judge.len(),
        "the JSON report and the emitted pool",
    ));
    blocks
}

/// Coverage and intervals per topic.
fn topics(report: &AuditReport, level: u8) -> Vec<Block> {
    let mut header = names(&[
        "topic",
        "judged_10",
        "judged_20",
        "judged_100",
        "unjudged top 10 / 20 / 100",
    ]);
    header.extend(
        report
            .measures
            .iter()
            .map(|m| format!("{} lower–upper (expected)", m.score.measure)),
    );
    let align = format!("lrrrr{}", "r".repeat(report.measures.len()));
    let rows = report
        .topics
        .iter()
        .map(|topic| {
            let c = &topic.coverage;
            let mut row = vec![
                topic.topic.to_string(),
                format!("{:.2}", c.judged_10),
                format!("{:.2}", c.judged_20),
                format!("{:.2}", c.judged_100),
                format!("{} / {} / {}", c.unjudged_10, c.unjudged_20, c.unjudged_100),
            ];
            row.extend(
                topic
                    .scores
                    .iter()
                    .map(|s| format!("{:.4}–{:.4} ({:.4})", s.lower, s.upper, s.expected)),
            );
            row
        })
        .collect();
    vec![section(level, "Topics"), table(header, &align, rows)]
}
