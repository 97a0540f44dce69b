//! The figures of a study (see docs/plot.md), drawn with plotters from a results folder:
//!
//! - `rank_change_<measure>`: runs along x in official order; each run's official rank, its
//!   rank under the LOU ranking for every seed, and their range; teams coloured (the paper's
//!   Figure 4, TREC DL's reusability figure).
//! - `tau_b_<measure>`: tau_b of each trial's ranking against the official one, per held-out
//!   team (and the control) across seeds, with the 0.9 line.
//! - `scores_<measure>`: official score against LOU score per run, with the diagonal.
//! - `truth_<measure>` (tasks with a truth file): the official and LOU rankings against the
//!   ranking under the complete truth.
//! - `rank_spread_<measure>`: every run's rank over all trials, the dominant one ringed.
//! - `budget_<measure>` (studies with budget fractions): the control's and the paired tau_b and
//!   the control's recall against the fraction of the budget.
//! - `strategies_<measure>` (studies comparing judging strategies): each strategy's paired rank
//!   change and tau_b against the fraction of the budget.
//! - `significance_<measure>` (studies with budget fractions or judging strategies): per
//!   fraction and strategy, the reference's significant pairs of runs kept, lost and reversed.
//! - `assessors_<measure>` (a study of several assessors, in its top folder): each assessor's
//!   paired tau_b, rank change and significant pairs side by side ([`assessors`]).
//!
//! Every figure is drawn on the same frame (caption, plot area, legend column) and axes; each
//! figure's file draws its own marks and says what its legend holds. Each figure is written as
//! PNG and/or SVG, atomically, with the embedded DejaVu Sans font ([`font`]). This module reads files and writes files; it never prints and does not compute
//! the study's statistics (those are in [`crate::sim::analysis`] and on disk).

pub mod assessors;
mod bitmap;
mod budget;
mod chart;
mod drawing;
pub mod estimates;
pub mod font;
mod legend;
mod output;
mod rank_change;
mod rank_spread;
mod run_axis;
mod scatter;
mod significance;
mod strategies;
mod style;
mod tau;
mod truth;
pub mod verdict;

pub use drawing::{Drawing, RunSpot, SpotArea, HEIGHT, WIDTH};
pub use output::{FigureFormat, SvgFigure};

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use self::chart::draw_framed;
use self::drawing::{trial_count, Canvas, DrawResult};
use self::output::{render_svg, write_drawing};
use crate::base::error::Result;
use crate::sim::analysis::StudyResults;

/// Draws one figure of `results` as SVG, with the places of its runs' marks.
///
/// # Errors
/// [`Error::Plot`](crate::base::error::Error::Plot) when the figure cannot be drawn.
pub fn svg_figure(results: &StudyResults, kind: FigureKind, measure: &str) -> Result<SvgFigure> {
    font::register()?;
    let figure = StudyFigure {
        results,
        kind,
        measure,
    };
    render_svg(&figure, &figure_stem(kind, measure))
}

/// The kinds of figure, one file of each per measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FigureKind {
    /// Official rank against each seed's LOU rank, runs in official order.
    RankChange,
    /// tau_b per held-out team across seeds.
    TauB,
    /// Official score against LOU score.
    Scores,
    /// Official and LOU rankings against the truth ranking.
    Truth,
    /// Every run's rank over all trials, the dominant one marked.
    RankSpread,
    /// tau_b and recall against the fraction of the budget.
    Budget,
    /// Each judging strategy's paired rank change and tau_b against the budget fraction.
    Strategies,
    /// The reference's significant pairs kept, lost and reversed per fraction and strategy.
    Significance,
}

impl FigureKind {
    fn prefix(self) -> &'static str {
        match self {
            Self::RankChange => "rank_change",
            Self::TauB => "tau_b",
            Self::Scores => "scores",
            Self::Truth => "truth",
            Self::RankSpread => "rank_spread",
            Self::Budget => "budget",
            Self::Strategies => "strategies",
            Self::Significance => "significance",
        }
    }

    /// What the figure shows, as its caption says it.
    fn subject(self) -> &'static str {
        match self {
            Self::RankChange => "rank change, leave-one-team-out (LOU)",
            Self::TauB => "tau_b of each trial vs official",
            Self::Scores => "official score vs LOU score",
            Self::Truth => "rankings vs the complete truth",
            Self::RankSpread => "rank of every run in every trial",
            Self::Budget => "tau_b and recall against the budget",
            Self::Strategies => "judging strategies against the budget",
            Self::Significance => "significant pairs kept, lost, reversed",
        }
    }
}

/// The file name (without extension) of a figure: `<kind>_<measure>`, the measure name as
/// [`measure_in_file_name`] writes it (`map(rel=2)` gives `rank_change_map_rel_2_`).
pub fn figure_stem(kind: FigureKind, measure: &str) -> String {
    format!("{}_{}", kind.prefix(), measure_in_file_name(measure))
}

/// A measure name as part of a file name: every character that is not a letter, digit, `_` or
/// `-` replaced by `_` (`RBP(p=0.8)` gives `RBP_p_0_8_`).
pub fn measure_in_file_name(measure: &str) -> String {
    measure
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The figures of a study, in drawing order: per measure, rank change, rank spread, tau_b,
/// scores, (with a truth file) truth, (with a budget curve) budget, (with a comparison of
/// judging strategies) strategies and (with either) significance.
pub fn figure_list(
    measures: &[String],
    has_truth: bool,
    has_budget: bool,
    has_strategies: bool,
) -> Vec<(FigureKind, String)> {
    let mut kinds = vec![
        FigureKind::RankChange,
        FigureKind::RankSpread,
        FigureKind::TauB,
        FigureKind::Scores,
    ];
    if has_truth {
        kinds.push(FigureKind::Truth);
    }
    if has_budget {
        kinds.push(FigureKind::Budget);
    }
    if has_strategies {
        kinds.push(FigureKind::Strategies);
    }
    if has_budget || has_strategies {
        kinds.push(FigureKind::Significance);
    }
    measures
        .iter()
        .flat_map(|measure| kinds.iter().map(move |&kind| (kind, measure.clone())))
        .collect()
}

/// Reads the results folder `results_dir` and draws every figure into `out`.
/// Returns the files written, in order.
///
/// # Errors
/// A [`crate::base::error::ParseError`] naming file and line when the results are malformed;
/// [`Error::Plot`](crate::base::error::Error::Plot) or
/// [`Error::Write`](crate::base::error::Error::Write) when a figure cannot be drawn or written.
pub fn plot_results(results_dir: &Path, out: &Path, format: FigureFormat) -> Result<Vec<PathBuf>> {
    let results = StudyResults::read(results_dir)?;
    draw_figures(&results, out, format)
}

/// Draws every figure of `results` into `out`. Returns the files written, in order.
///
/// # Errors
/// [`Error::Plot`](crate::base::error::Error::Plot) when a figure cannot be drawn or encoded,
/// [`Error::Write`](crate::base::error::Error::Write) when a file cannot be written.
pub fn draw_figures(
    results: &StudyResults,
    out: &Path,
    format: FigureFormat,
) -> Result<Vec<PathBuf>> {
    use rayon::prelude::*;
    font::register()?;
    let figures = figure_list(
        &results.measures,
        results.has_truth(),
        !results.budget.is_empty(),
        !results.strategies.is_empty(),
    );
    // Figures are independent; `collect` keeps their order.
    let written: Vec<Vec<PathBuf>> = figures
        .par_iter()
        .map(|(kind, measure)| write_figure(results, *kind, measure, out, format))
        .collect::<Result<_>>()?;
    Ok(written.into_iter().flatten().collect())
}

fn write_figure(
    results: &StudyResults,
    kind: FigureKind,
    measure: &str,
    out: &Path,
    format: FigureFormat,
) -> Result<Vec<PathBuf>> {
    let figure = StudyFigure {
        results,
        kind,
        measure,
    };
    write_drawing(&figure, &figure_stem(kind, measure), out, format)
}

/// One of a study's figures.
struct StudyFigure<'r> {
    results: &'r StudyResults,
    kind: FigureKind,
    measure: &'r str,
}

impl Drawing for StudyFigure<'_> {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        spots: &mut Vec<RunSpot>,
    ) -> DrawResult<DB> {
        draw_figure(root, self.results, self.kind, self.measure, spots)
    }
}

/// Draws a standalone figure as SVG (for a page that holds it inline).
///
/// # Errors
/// When the font cannot be registered or the figure drawn.
pub fn standalone_svg(figure: &impl Drawing, stem: &str) -> Result<SvgFigure> {
    font::register()?;
    render_svg(figure, stem)
}

/// Writes a standalone figure (the backtest's) as `out/<stem>.png` and/or `.svg`, atomically.
/// Returns the files written.
///
/// # Errors
/// When the font cannot be registered or the figure drawn or written.
pub fn write_standalone_figure(
    figure: &impl Drawing,
    out: &Path,
    stem: &str,
    format: FigureFormat,
) -> Result<Vec<PathBuf>> {
    font::register()?;
    write_drawing(figure, stem, out, format)
}

fn draw_figure<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &StudyResults,
    kind: FigureKind,
    measure: &str,
    spots: &mut Vec<RunSpot>,
) -> DrawResult<DB> {
    draw_framed(root, &caption(results, measure, kind.subject()), |plot| {
        let canvas = Canvas {
            root,
            plot,
            results,
            measure,
        };
        match kind {
            FigureKind::RankChange => rank_change::draw(&canvas, spots),
            FigureKind::TauB => tau::draw(&canvas),
            FigureKind::Scores => scatter::draw(&canvas, spots),
            FigureKind::Truth => truth::draw(&canvas, spots),
            FigureKind::RankSpread => rank_spread::draw(&canvas, spots),
            FigureKind::Budget => budget::draw(&canvas),
            FigureKind::Strategies => strategies::draw(&canvas),
            FigureKind::Significance => significance::draw(&canvas),
        }
    })
}

/// The caption naming task, measure, what the figure shows and the number of trials.
fn caption(results: &StudyResults, measure: &str, subject: &str) -> String {
    format!(
        "{} · {measure} · {subject} · {} trials: {} seed{} × (control + {} held-out teams)",
        results.task,
        trial_count(results),
        results.seeds.len(),
        if results.seeds.len() == 1 { "" } else { "s" },
        results.held_out_teams.len()
    )
}

#[cfg(test)]
mod tests;
