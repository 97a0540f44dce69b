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
//! - `budget_<measure>` (studies with budget fractions): the control's and the paired tau_b and
//!   the control's recall against the fraction of the budget.
//!
//! Each figure is written as PNG and/or SVG, atomically, with the embedded DejaVu Sans font
//! ([`font`]). This module reads files and writes files; it never prints and does not compute
//! the study's statistics (those are in [`crate::sim::analysis`] and on disk).

mod bitmap;
mod budget;
pub mod estimates;
pub mod font;
mod rank_change;
mod rank_spread;
mod run_axis;
mod scatter;
mod strategies;
mod tau;
mod truth;
pub mod verdict;

use crate::base::choice::choice_enum;
use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::base::error::{Error, Result};
use crate::io::atomic::write_atomically;
use crate::sim::analysis::StudyResults;

/// Width of every figure, in pixels (SVG user units).
pub const WIDTH: u32 = 1200;
/// Height of every figure, in pixels (SVG user units).
pub const HEIGHT: u32 = 700;
/// Width of the legend column at the right of each figure.
const LEGEND_WIDTH: u32 = 210;

choice_enum! {
    /// Which files to write for each figure.
    pub enum FigureFormat {
        /// PNG only.
        Png = "png",
        /// SVG only.
        Svg = "svg",
        /// PNG and SVG.
        Both = "both",
    }
}

impl FigureFormat {
    fn has_png(self) -> bool {
        matches!(self, Self::Png | Self::Both)
    }

    fn has_svg(self) -> bool {
        matches!(self, Self::Svg | Self::Both)
    }
}

/// Where a run's marks sit in a figure, in the figure's pixels (its SVG user units): what the
/// HTML report makes hoverable and focusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSpot {
    /// The run's tag.
    pub run: String,
    /// The area its marks cover.
    pub area: SpotArea,
}

/// The area of a run's marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpotArea {
    /// A column holding every mark of the run: left, top, right, bottom.
    Column {
        /// Left edge.
        left: i32,
        /// Top edge.
        top: i32,
        /// Right edge.
        right: i32,
        /// Bottom edge.
        bottom: i32,
    },
    /// One point (the centre of the run's mark).
    Point {
        /// Horizontal position.
        x: i32,
        /// Vertical position.
        y: i32,
    },
}

/// A figure drawn as SVG, with the places of its runs' marks.
#[derive(Debug, Clone)]
pub struct SvgFigure {
    /// The SVG document, as the `.svg` file holds it.
    pub svg: String,
    /// Each run's marks (none for figures without run marks: tau_b, budget).
    pub spots: Vec<RunSpot>,
}

/// Draws one figure of `results` as SVG, with the places of its runs' marks.
///
/// # Errors
/// [`Error::Plot`] when the figure cannot be drawn.
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
/// scores, (with a truth file) truth, (with a budget curve) budget and (with a comparison of
/// judging strategies) strategies.
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
/// [`Error::Plot`] or [`Error::Write`] when a figure cannot be drawn or written.
pub fn plot_results(results_dir: &Path, out: &Path, format: FigureFormat) -> Result<Vec<PathBuf>> {
    let results = StudyResults::read(results_dir)?;
    draw_figures(&results, out, format)
}

/// Draws every figure of `results` into `out`. Returns the files written, in order.
///
/// # Errors
/// [`Error::Plot`] when a figure cannot be drawn or encoded, [`Error::Write`] when a file
/// cannot be written.
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

/// A figure that can draw itself on any plotters backend.
pub trait Drawing {
    /// Draws on `root`, adding the places of run marks to `spots`.
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        spots: &mut Vec<RunSpot>,
    ) -> DrawResult<DB>;
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

/// Writes `drawing` as `out/<stem>.png` and/or `.svg`, atomically. Returns the files written.
fn write_drawing(
    drawing: &impl Drawing,
    stem: &str,
    out: &Path,
    format: FigureFormat,
) -> Result<Vec<PathBuf>> {
    let plot_error = |message: String| Error::Plot {
        figure: stem.to_string(),
        message,
    };
    let mut written = Vec::new();
    if format.has_png() {
        let mut pixels = vec![0u8; WIDTH as usize * HEIGHT as usize * 3];
        {
            let root = bitmap::Bitmap(BitMapBackend::with_buffer(&mut pixels, (WIDTH, HEIGHT)))
                .into_drawing_area();
            drawing
                .draw(&root, &mut Vec::new())
                .and_then(|()| root.present())
                .map_err(|error| plot_error(error.to_string()))?;
        }
        let png = encode_png(&pixels).map_err(|error| plot_error(error.to_string()))?;
        let path = out.join(format!("{stem}.png"));
        write_atomically(&path, |file| file.write_all(&png))?;
        written.push(path);
    }
    if format.has_svg() {
        let figure = render_svg(drawing, stem)?;
        let path = out.join(format!("{stem}.svg"));
        write_atomically(&path, |file| file.write_all(figure.svg.as_bytes()))?;
        written.push(path);
    }
    Ok(written)
}

/// Draws `drawing` as SVG, collecting the places of its run marks.
fn render_svg(drawing: &impl Drawing, stem: &str) -> Result<SvgFigure> {
    let mut svg = String::new();
    let mut spots = Vec::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        drawing
            .draw(&root, &mut spots)
            .and_then(|()| root.present())
            .map_err(|error| Error::Plot {
                figure: stem.to_string(),
                message: error.to_string(),
            })?;
    }
    Ok(SvgFigure { svg, spots })
}

/// Encodes an RGB buffer of `WIDTH` x `HEIGHT` pixels as PNG.
fn encode_png(pixels: &[u8]) -> std::result::Result<Vec<u8>, png::EncodingError> {
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, WIDTH, HEIGHT);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(pixels)?;
        writer.finish()?;
    }
    Ok(bytes)
}

/// A value computed while drawing on a backend, or the backend's error.
type DrawingResult<DB, T> =
    std::result::Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// The plot area and the legend column of a figure.
type AreaPair<DB> = (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>);

/// The result of drawing on a backend.
type DrawResult<DB> =
    std::result::Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn draw_figure<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    results: &StudyResults,
    kind: FigureKind,
    measure: &str,
    spots: &mut Vec<RunSpot>,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    match kind {
        FigureKind::RankChange => rank_change::draw(root, results, measure, spots),
        FigureKind::TauB => tau::draw(root, results, measure),
        FigureKind::Scores => scatter::draw(root, results, measure, spots),
        FigureKind::Truth => truth::draw(root, results, measure, spots),
        FigureKind::RankSpread => rank_spread::draw(root, results, measure, spots),
        FigureKind::Budget => budget::draw(root, results, measure),
        FigureKind::Strategies => strategies::draw(root, results, measure),
    }
}

// ---- Shared style: fonts, colours, caption, legend, axis labels. ----

/// Text of the given pixel size in the embedded font.
fn text(size: u32) -> TextStyle<'static> {
    (font::FAMILY, size).into_font().color(&BLACK)
}

/// The caption's font size.
const CAPTION_SIZE: u32 = 21;
/// Axis titles.
const AXIS_TITLE_SIZE: u32 = 18;
/// Tick and run labels.
const LABEL_SIZE: u32 = 14;
/// Legend entries.
const LEGEND_SIZE: u32 = 15;

/// Categorical colours (Tableau 10, then two darker extras), cycled when there are more teams.
const PALETTE: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(57, 59, 121),
    RGBColor(132, 60, 57),
];

/// The colour of a team: its position in the sorted team list picks a palette entry.
fn team_colour(teams: &[String], team: &str) -> RGBColor {
    let position = teams.iter().position(|t| t == team).unwrap_or(0);
    PALETTE[position % PALETTE.len()]
}

/// The caption naming task, measure and number of trials.
fn caption(results: &StudyResults, measure: &str, what: &str) -> String {
    let trials = results.seeds.len() * (1 + results.held_out_teams.len());
    format!(
        "{} · {measure} · {what} · {trials} trials: {} seed{} × (control + {} held-out teams)",
        results.task,
        results.seeds.len(),
        if results.seeds.len() == 1 { "" } else { "s" },
        results.held_out_teams.len()
    )
}

/// Draws the caption and splits the rest into the plot area and the legend column.
fn layout<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    caption: &str,
) -> DrawingResult<DB, AreaPair<DB>> {
    let body = root.titled(caption, text(CAPTION_SIZE))?;
    let (plot, legend) = body.split_horizontally(WIDTH - LEGEND_WIDTH);
    Ok((plot, legend))
}

/// A chart with numbers on both axes (every figure's).
type NumberChart<'a, DB> = ChartContext<
    'a,
    DB,
    plotters::coord::cartesian::Cartesian2d<
        plotters::coord::types::RangedCoordf64,
        plotters::coord::types::RangedCoordf64,
    >,
>;

/// The axes of a chart: titles, how many ticks (0 on x: no ticks and no vertical grid lines,
/// for charts that label their own columns) and how tick values are written.
struct Axes<'f> {
    x_title: String,
    y_title: String,
    x_ticks: usize,
    y_ticks: usize,
    x_format: &'f dyn Fn(&f64) -> String,
    y_format: &'f dyn Fn(&f64) -> String,
}

/// Draws the axes and the faint grid in the figures' shared style.
fn draw_axes<DB: DrawingBackend>(chart: &mut NumberChart<'_, DB>, axes: &Axes) -> DrawResult<DB> {
    let mut mesh = chart.configure_mesh();
    if axes.x_ticks == 0 {
        mesh.disable_x_mesh();
    }
    mesh.x_labels(axes.x_ticks)
        .y_labels(axes.y_ticks)
        .x_label_formatter(axes.x_format)
        .y_label_formatter(axes.y_format)
        .label_style(text(LABEL_SIZE))
        .x_desc(axes.x_title.as_str())
        .y_desc(axes.y_title.as_str())
        .axis_desc_style(text(AXIS_TITLE_SIZE))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .draw()
}

/// One legend entry per team, in its colour.
fn team_entries(teams: &[String]) -> impl Iterator<Item = LegendEntry> + '_ {
    teams
        .iter()
        .map(|team| LegendEntry::new(team.clone(), team_colour(teams, team), Mark::Square))
}

/// How a legend entry is drawn.
#[derive(Debug, Clone, Copy)]
enum Mark {
    /// A filled circle.
    Dot,
    /// An open circle.
    Ring,
    /// A filled square.
    Square,
    /// A solid line.
    Line,
    /// A vertical bar (a range).
    Bar,
    /// A dashed line.
    Dashed,
    /// A cross.
    Cross,
}

/// One legend line.
struct LegendEntry {
    label: String,
    colour: RGBColor,
    mark: Mark,
}

impl LegendEntry {
    fn new(label: impl Into<String>, colour: RGBColor, mark: Mark) -> Self {
        Self {
            label: label.into(),
            colour,
            mark,
        }
    }
}

/// Draws the legend in its own column, so it never covers data. Entries that do not fit are
/// summarised in a last line.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    entries: &[LegendEntry],
) -> DrawResult<DB> {
    const LINE_HEIGHT: i32 = 22;
    const TOP: i32 = 30;
    let (_, height) = area.dim_in_pixel();
    if !title.is_empty() {
        area.draw(&Text::new(
            title.to_string(),
            (8, TOP),
            text(LEGEND_SIZE).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    let fitting = ((height as i32 - TOP - 2 * LINE_HEIGHT) / LINE_HEIGHT).max(1) as usize;
    for (index, entry) in entries.iter().take(fitting).enumerate() {
        let y = TOP + LINE_HEIGHT * (index as i32 + 1);
        let x = 20;
        let colour = entry.colour;
        match entry.mark {
            Mark::Dot => area.draw(&Circle::new((x, y), 5, colour.filled()))?,
            Mark::Ring => area.draw(&Circle::new((x, y), 5, colour.stroke_width(2)))?,
            Mark::Square => area.draw(&Rectangle::new(
                [(x - 6, y - 6), (x + 6, y + 6)],
                colour.filled(),
            ))?,
            Mark::Line => area.draw(&PathElement::new(
                vec![(x - 10, y), (x + 10, y)],
                colour.stroke_width(3),
            ))?,
            Mark::Bar => area.draw(&Rectangle::new(
                [(x - 2, y - 9), (x + 2, y + 9)],
                colour.mix(0.45).filled(),
            ))?,
            Mark::Dashed => {
                for start in [x - 10, x - 1, x + 8] {
                    area.draw(&PathElement::new(
                        vec![(start, y), (start + 5, y)],
                        colour.stroke_width(2),
                    ))?;
                }
            }
            Mark::Cross => area.draw(&Cross::new((x, y), 5, colour.stroke_width(2)))?,
        }
        area.draw(&Text::new(
            entry.label.clone(),
            (40, y),
            text(LEGEND_SIZE).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    if entries.len() > fitting {
        let y = TOP + LINE_HEIGHT * (fitting as i32 + 1);
        area.draw(&Text::new(
            format!("… and {} more", entries.len() - fitting),
            (40, y),
            text(LEGEND_SIZE).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// The widest of `labels` in pixels at the label size.
fn widest_label<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    labels: &[String],
) -> std::result::Result<u32, DrawingAreaErrorKind<DB::ErrorType>> {
    let style = text(LABEL_SIZE);
    let mut widest = 0;
    for label in labels {
        widest = widest.max(area.estimate_text_size(label, &style)?.0);
    }
    Ok(widest)
}

/// Whether labels of width `widest` spaced `spacing` pixels apart must be rotated to fit.
fn needs_rotation(widest: u32, spacing: f64) -> bool {
    f64::from(widest) + 6.0 > spacing
}

/// Draws category labels under the x axis at the given pixel positions (backend coordinates
/// of the axis), rotated a quarter turn when they would overlap.
fn draw_x_labels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &[(String, (i32, i32))],
    is_rotated: bool,
) -> DrawResult<DB> {
    for (label, (x, y)) in labels {
        let style = if is_rotated {
            text(LABEL_SIZE)
                .transform(FontTransform::Rotate270)
                .pos(Pos::new(HPos::Right, VPos::Center))
        } else {
            text(LABEL_SIZE).pos(Pos::new(HPos::Center, VPos::Top))
        };
        root.draw(&Text::new(label.clone(), (*x, y + 6), style))?;
    }
    Ok(())
}

/// A small horizontal offset for the `index`-th of `count` points of one category, so
/// equal values stay visible side by side (at most ±`half_width`).
fn spread_offset(index: usize, count: usize, half_width: f64) -> f64 {
    if count <= 1 {
        0.0
    } else {
        (index as f64 / (count - 1) as f64 - 0.5) * 2.0 * half_width
    }
}

#[cfg(test)]
mod tests;
