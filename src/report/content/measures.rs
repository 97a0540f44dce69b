//! The report's tables of one row per measure: the paired statistics, the control trials, the
//! LOU ranking, classic leave-out-uniques, and the rankings against the truth and against the
//! assessor's ranking.

use super::cells::{fmt_count, fmt_spread, fmt_value, table_section};
use crate::report::document::Block;
use crate::sim::analysis::{AssessorSummary, MeasureSummary, StudySummary, TruthSummary};

/// A column of a table of one row per measure: its name and how its cell is written from the
/// part of the measure's summary the table shows.
type Column<T> = (&'static str, fn(&T) -> String);

/// A section of one table with a row per measure that has the `part` it shows: the measure's
/// name, then one cell per column.
fn measure_section<T>(
    summary: &StudySummary,
    title: &str,
    text: Option<String>,
    part: fn(&MeasureSummary) -> Option<&T>,
    columns: &[Column<T>],
) -> Vec<Block> {
    let header: Vec<&str> = std::iter::once("measure")
        .chain(columns.iter().map(|(name, _)| *name))
        .collect();
    let rows = (summary.measures.iter())
        .filter_map(|(name, measure)| {
            let part = part(measure)?;
            let cells = columns.iter().map(|(_, cell)| cell(part));
            Some(std::iter::once(name.clone()).chain(cells).collect())
        })
        .collect();
    table_section(title, text, &header, rows)
}

/// The whole of a measure's summary, for the tables that show more than one part of it.
fn whole(measure: &MeasureSummary) -> Option<&MeasureSummary> {
    Some(measure)
}

/// Held-out trials against their seed's control, with the control's own distance from the
/// official ranking beside them.
pub(super) fn paired(summary: &StudySummary) -> Vec<Block> {
    measure_section(
        summary,
        "Leave-out trials paired with their seed's control",
        Some(
            "The trials of a seed share their random streams, so a leave-out trial against its \
             own control shows the leave-out effect without the simulation's noise. Rank and \
             score changes are the held-out team's runs (trial − control; a positive rank \
             change is a drop). The control's tau_b against the official ranking is the \
             simulation's own noise floor."
                .into(),
        ),
        whole,
        &[
            ("paired tau_b", |m| fmt_spread(&m.paired.tau_b)),
            ("paired tau_ap", |m| fmt_spread(&m.paired.tau_ap)),
            ("rank change", |m| fmt_spread(&m.paired.rank_change)),
            ("score change", |m| fmt_spread(&m.paired.score_change)),
            ("control tau_b vs official", |m| {
                fmt_spread(&m.control.tau_b)
            }),
        ],
    )
}

/// The control trials against the official qrels.
pub(super) fn control(summary: &StudySummary) -> Vec<Block> {
    measure_section(
        summary,
        "Control trials (nothing held out) against the official qrels",
        Some(
            "Carried judgments are official judgments of documents no run retrieved, copied into \
             the qrels unchanged: overlap and recall count them, overlap_found and recall_found \
             count only what the pool and CAL judged, out of the official judgments they could \
             judge."
                .into(),
        ),
        whole,
        &[
            ("carried", |m| fmt_count(&m.control.carried)),
            ("overlap", |m| fmt_spread(&m.control.overlap)),
            ("recall of relevant", |m| fmt_spread(&m.control.recall)),
            ("overlap_found", |m| fmt_spread(&m.control.overlap_found)),
            ("recall_found", |m| fmt_spread(&m.control.recall_found)),
            ("tau_b", |m| fmt_spread(&m.control.tau_b)),
        ],
    )
}

/// The LOU ranking, and every held-out trial's ranking, against the official one.
pub(super) fn lou(summary: &StudySummary) -> Vec<Block> {
    measure_section(
        summary,
        "The LOU ranking against the official ranking",
        Some(
            "The LOU ranking scores each run on the qrels of its own team's trial (the control's \
             when its team was not held out); trial tau_b compares each leave-out trial's \
             ranking of all runs."
                .into(),
        ),
        whole,
        &[
            ("LOU tau_b", |m| fmt_spread(&m.lou.tau_b)),
            ("LOU tau_ap", |m| fmt_spread(&m.lou.tau_ap)),
            ("max drop", |m| fmt_spread(&m.lou.max_drop)),
            ("runs changed", |m| fmt_spread(&m.lou.runs_changed)),
            ("trial tau_b", |m| fmt_spread(&m.trials.tau_b)),
        ],
    )
}

/// Classic leave-out-uniques on the official qrels against the official ranking.
pub(super) fn classic(summary: &StudySummary) -> Vec<Block> {
    measure_section(
        summary,
        "Classic leave-out-uniques against the official ranking",
        Some(
            "Each team's runs scored on the official qrels less the documents only its pooled \
             runs put in the pool."
                .into(),
        ),
        whole,
        &[
            ("tau_b", |m| fmt_value(m.classic_lou.tau_b)),
            ("tau_ap", |m| fmt_value(m.classic_lou.tau_ap)),
            ("max drop", |m| m.classic_lou.max_drop.to_string()),
            ("runs changed", |m| m.classic_lou.runs_changed.to_string()),
        ],
    )
}

/// Every ranking against the complete truth, on tasks with one.
pub(super) fn truth(summary: &StudySummary) -> Vec<Block> {
    if summary.measures.values().all(|m| m.truth.is_none()) {
        return Vec::new();
    }
    measure_section::<TruthSummary>(
        summary,
        "Against the complete truth",
        None,
        |m| m.truth.as_ref(),
        &[
            ("official tau_b", |m| fmt_value(m.official_tau_b)),
            ("LOU tau_b", |m| fmt_spread(&m.lou_tau_b)),
            ("control tau_b", |m| fmt_spread(&m.control_tau_b)),
            ("trial tau_b", |m| fmt_spread(&m.trials_tau_b)),
            ("classic LOU tau_b", |m| fmt_value(m.classic_lou_tau_b)),
        ],
    )
}

/// Every ranking against the assessor's own, when the assessor is not the official qrels.
pub(super) fn assessor(summary: &StudySummary) -> Vec<Block> {
    let Some(report) = &summary.assessor else {
        return Vec::new();
    };
    measure_section::<AssessorSummary>(
        summary,
        "Against the assessor's ranking",
        Some(format!(
            "Each ranking against the runs' ranking on the qrels of the assessor `{}` (of the \
             same seed): how far the official collection, the leave-out trials and the control \
             stand from what the fuller assessor would say. Control recall is the share of the \
             assessor's relevant documents within the judging's reach that the control judged.",
            report.name
        )),
        |m| m.assessor.as_ref(),
        &[
            ("official tau_b", |m| fmt_spread(&m.official_tau_b)),
            ("LOU tau_b", |m| fmt_spread(&m.lou_tau_b)),
            ("control tau_b", |m| fmt_spread(&m.control_tau_b)),
            ("trial tau_b", |m| fmt_spread(&m.trials_tau_b)),
            ("classic LOU tau_b", |m| fmt_spread(&m.classic_lou_tau_b)),
            ("control recall", |m| fmt_spread(&m.control_recall)),
        ],
    )
}
