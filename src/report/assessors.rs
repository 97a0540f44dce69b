//! The top folder of a study of several assessors on the same seeds: `assessors.tsv`, a
//! `summary.json` naming each assessor's sub-folder with its figures, the figures
//! `assessors_<measure>` and the report (`report.md`, `report.html`) that puts the assessors'
//! reusability figures side by side. Each assessor's own study is a results folder of its own.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::base::error::Result;
use crate::io::atomic::write_atomically;
use crate::report::document::{table, Block, Document};
use crate::report::html::document_page;
use crate::report::plots::assessors::AssessorsFigure;
use crate::report::plots::{
    measure_in_file_name, standalone_svg, write_standalone_figure, FigureFormat,
};
use crate::sim::analysis::files::{write_table, AssessorRow};
use crate::sim::analysis::StudySummary;

/// The top `summary.json` of a study of several assessors.
#[derive(Debug, Clone, Serialize)]
pub struct AssessorsSummary {
    /// The task's name.
    pub task: String,
    /// Each assessor as given, with its sub-folder, in the order given.
    pub assessors: Vec<AssessorFolder>,
    /// Per assessor and measure, the figures side by side (`assessors.tsv`'s rows).
    pub rows: Vec<AssessorRow>,
    /// Wall time of the whole study, every assessor's included.
    pub elapsed_seconds: f64,
}

/// An assessor and the sub-folder of its study.
#[derive(Debug, Clone, Serialize)]
pub struct AssessorFolder {
    /// The assessor as given.
    pub name: String,
    /// Its sub-folder.
    pub folder: String,
}

/// Writes the top folder `dir` of a study of several assessors: the table, the summary, the
/// figures and the report. Returns the figure files written.
///
/// # Errors
/// When a file cannot be written or a figure drawn.
pub fn write_assessors(dir: &Path, summary: &AssessorsSummary) -> Result<Vec<PathBuf>> {
    write_table(dir, &summary.rows)?;
    write_atomically(&dir.join("summary.json"), |out| {
        serde_json::to_writer_pretty(&mut *out, summary).map_err(std::io::Error::other)?;
        out.write_all(b"\n")
    })?;
    let mut measures: Vec<&str> = Vec::new();
    for row in &summary.rows {
        if !measures.contains(&row.measure.as_str()) {
            measures.push(&row.measure);
        }
    }
    let mut files = Vec::new();
    let mut blocks = vec![
        Block::Heading {
            level: 1,
            text: format!("Assessors side by side: {}", summary.task),
        },
        Block::Paragraph(format!(
            "Each assessor's study ran on the same seeds, trials and pools; its own results \
             folder is named in the table ({}). Paired tau_b is the held-out trials' mean \
             against their seed's control (smallest in brackets); rank change is the held-out \
             runs' mean paired rank change (largest in brackets); kept, lost and reversed are \
             the controls' significant pairs that the held-out trials keep, lose or reverse, \
             summed over the held-out trials (see docs/assessor.md).",
            (summary.assessors.iter())
                .map(|a| format!("`{}`: `{}/`", a.name, a.folder))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    ];
    let cell = |value: Option<f64>| value.map_or("NA".to_string(), |v| format!("{v:.3}"));
    let count = |value: Option<usize>| value.map_or("NA".to_string(), |v| v.to_string());
    let rows = (summary.rows.iter())
        .map(|row| {
            vec![
                row.measure.clone(),
                format!("`{}`", row.assessor),
                format!(
                    "{} ({})",
                    cell(row.paired_tau_b),
                    cell(row.paired_tau_b_min)
                ),
                format!(
                    "{} ({})",
                    cell(row.rank_change_mean),
                    cell(row.rank_change_max)
                ),
                count(row.significant),
                format!(
                    "{} / {} / {}",
                    count(row.kept),
                    count(row.lost),
                    count(row.reversed)
                ),
            ]
        })
        .collect();
    blocks.push(table(
        &[
            "measure",
            "assessor",
            "paired tau_b (min)",
            "rank change (max)",
            "significant pairs",
            "kept / lost / reversed",
        ],
        rows,
    ));
    for measure in measures {
        let figure = AssessorsFigure {
            caption: format!("{} · {measure} · assessors side by side", summary.task),
            rows: (summary.rows.iter())
                .filter(|row| row.measure == measure)
                .cloned()
                .collect(),
        };
        let stem = format!("assessors_{}", measure_in_file_name(measure));
        files.extend(write_standalone_figure(
            &figure,
            &dir.join("figures"),
            &stem,
            FigureFormat::Both,
        )?);
        blocks.push(Block::Drawing {
            caption: format!("{measure}: the assessors side by side (figures/{stem}.png)"),
            svg: standalone_svg(&figure, &stem)?.svg,
        });
    }
    let document = Document { blocks };
    write_atomically(&dir.join("report.md"), |out| document.write_markdown(out))?;
    let page = document_page(&document);
    write_atomically(&dir.join("report.html"), |out| {
        out.write_all(page.as_bytes())
    })?;
    Ok(files)
}

/// The rows of one assessor's study (`assessor` as given, written in `folder`), in its
/// measures' order.
pub fn assessor_rows(assessor: &str, folder: &str, summary: &StudySummary) -> Vec<AssessorRow> {
    (summary.measures.iter())
        .map(|(measure, stats)| {
            let paired = &stats.paired;
            let pairs = (stats.significance.as_ref()).and_then(|s| s.paired.as_ref());
            AssessorRow {
                assessor: assessor.to_string(),
                folder: folder.to_string(),
                measure: measure.clone(),
                paired_tau_b: paired.tau_b.map(|s| s.mean),
                paired_tau_b_min: paired.tau_b.map(|s| s.min),
                rank_change_mean: paired.rank_change.map(|s| s.mean),
                rank_change_max: paired.rank_change.map(|s| s.max),
                significant: pairs.map(|p| p.reference_significant),
                kept: pairs.map(|p| p.kept),
                lost: pairs.map(|p| p.lost),
                reversed: pairs.map(|p| p.reversed),
            }
        })
        .collect()
}
