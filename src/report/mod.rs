//! The outputs of a study (DESIGN section 6): `summary.json`, `runs.tsv`, `trials.tsv`,
//! `heldout.tsv`, `lou.tsv`, `report.md`, and with `--keep-qrels` every trial's simulated qrels
//! and trace. Every file is written atomically.

pub mod markdown;
pub mod plots;
pub mod summary;

use std::path::Path;

use crate::base::error::Result;
use crate::io::atomic::write_atomically;
use crate::judge::cal::{to_qrels, write_traces};
use crate::sim::study::StudyOutcome;
use summary::StudySummary;

fn optional(value: Option<f64>) -> String {
    value.map_or_else(|| "NA".to_string(), |v| v.to_string())
}

/// Writes every output of a study into `dir`.
///
/// # Errors
/// When a file cannot be written.
pub fn write_study(dir: &Path, summary: &StudySummary, outcome: &StudyOutcome) -> Result<()> {
    write_atomically(&dir.join("summary.json"), |out| {
        serde_json::to_writer_pretty(&mut *out, summary)?;
        writeln!(out)
    })?;
    write_atomically(&dir.join("runs.tsv"), |out| {
        writeln!(
            out,
            "run\tteam\tmeasure\tofficial_score\tofficial_rank\tlou_score_mean\tlou_score_min\t\
             lou_score_max\tlou_rank_min\tlou_rank_mean\tlou_rank_max\tdominant_rank\t\
             dominant_rank_frequency\ttruth_score"
        )?;
        for row in &summary.runs {
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                row.run,
                row.team,
                row.measure,
                row.official_score,
                row.official_rank,
                row.lou_score.mean,
                row.lou_score.min,
                row.lou_score.max,
                row.lou_rank.min,
                row.lou_rank.mean,
                row.lou_rank.max,
                row.dominant_rank,
                row.dominant_rank_frequency,
                optional(row.truth_score)
            )?;
        }
        Ok(())
    })?;
    write_atomically(&dir.join("lou.tsv"), |out| {
        writeln!(out, "seed\trun\tteam\tmeasure\tscore\trank")?;
        for row in &summary.runs {
            for (seed, (score, rank)) in (1..).zip(&row.lou_by_seed) {
                writeln!(
                    out,
                    "{seed}\t{}\t{}\t{}\t{score}\t{rank}",
                    row.run, row.team, row.measure
                )?;
            }
        }
        Ok(())
    })?;
    write_atomically(&dir.join("trials.tsv"), |out| {
        writeln!(
            out,
            "seed\theld_out\tmeasure\ttau_b\ttau_ap\toverlap\trecall"
        )?;
        for row in &summary.trials {
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                row.seed,
                row.held_out.as_deref().unwrap_or("control"),
                row.measure,
                optional(row.tau_b),
                optional(row.tau_ap),
                row.overlap,
                row.recall
            )?;
        }
        Ok(())
    })?;
    write_atomically(&dir.join("heldout.tsv"), |out| {
        writeln!(
            out,
            "seed\tteam\trun\tmeasure\tscore\trank\tofficial_score\tofficial_rank"
        )?;
        for row in &summary.held_out {
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                row.seed,
                row.team,
                row.run,
                row.measure,
                row.score,
                row.rank,
                row.official_score,
                row.official_rank
            )?;
        }
        Ok(())
    })?;
    write_atomically(&dir.join("report.md"), |out| {
        markdown::write_report(out, summary)
    })?;
    for trial in &outcome.trials {
        let Some(judgings) = &trial.judgings else {
            continue;
        };
        let name = format!(
            "{}-s{}",
            trial.trial.held_out.as_deref().unwrap_or("control"),
            trial.trial.seed
        );
        let qrels = to_qrels(&outcome.collection, judgings);
        write_atomically(&dir.join("qrels").join(format!("{name}.qrels")), |out| {
            qrels.write_trec(out)
        })?;
        write_atomically(
            &dir.join("qrels").join(format!("{name}.trace.tsv")),
            |out| write_traces(out, &outcome.collection, judgings),
        )?;
    }
    Ok(())
}
