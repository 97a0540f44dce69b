//! The chart set-up every figure shares: the caption over the plot area and the legend
//! column, the axes with their titles, ticks and faint grid, guide lines, the labels of charts
//! whose columns are categories (runs, trials), and the two kinds of chart several figures
//! draw on (estimate against truth on a square, a value against the budget fraction).

use std::ops::Range;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::drawing::{DrawResult, DrawingResult, LEGEND_WIDTH, WIDTH};
use super::legend::{draw_legend, Legend};
use super::style::{text, AXIS_TITLE_SIZE, CAPTION_SIZE, LABEL_SIZE, THRESHOLD_COLOUR};

/// A chart with numbers on both axes (every figure's).
pub(super) type NumberChart<'a, DB> =
    ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Draws a figure on `root`: a white ground, the caption, the chart that `chart` draws in the
/// plot area, and the legend it returns in the column at the right.
pub(super) fn draw_framed<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    caption: &str,
    chart: impl FnOnce(&DrawingArea<DB, Shift>) -> DrawingResult<DB, Legend>,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let body = root.titled(caption, text(CAPTION_SIZE))?;
    let (plot, legend_column) = body.split_horizontally(WIDTH - LEGEND_WIDTH);
    let legend = chart(&plot)?;
    draw_legend(&legend_column, &legend)
}

/// How an axis writes its tick values.
#[derive(Debug, Clone, Copy)]
pub(super) enum TickLabels {
    /// The value with this many decimals.
    Decimals(usize),
    /// A rank, drawn negated so that rank 1 is at the top: the whole rank.
    Ranks,
}

impl TickLabels {
    fn write(self, value: f64) -> String {
        match self {
            Self::Decimals(decimals) => format!("{value:.decimals$}"),
            Self::Ranks => format!("{:.0}", -value),
        }
    }
}

/// One axis of a chart: its range, title, tick labels and the room beside the plot for them.
pub(super) struct Axis {
    title: String,
    range: Range<f64>,
    ticks: usize,
    labels: TickLabels,
    room: u32,
}

impl Axis {
    /// An axis over `range` titled `title`, with ten tick labels of two decimals and 60 pixels
    /// of room.
    pub(super) fn new(title: impl Into<String>, range: Range<f64>) -> Self {
        Self {
            title: title.into(),
            range,
            ticks: 10,
            labels: TickLabels::Decimals(2),
            room: 60,
        }
    }

    /// `count` tick labels written as `labels` (0 on x: none, and no vertical grid lines, for
    /// charts that label their own columns).
    pub(super) fn ticks(self, count: usize, labels: TickLabels) -> Self {
        Self {
            ticks: count,
            labels,
            ..self
        }
    }

    /// `pixels` of room beside the plot for the tick labels and the title.
    pub(super) fn room(self, pixels: u32) -> Self {
        Self {
            room: pixels,
            ..self
        }
    }
}

/// Builds a chart on `plot` over the axes `x` and `y` and draws the axes and the faint grid in
/// the figures' shared style.
pub(super) fn chart<'a, DB: DrawingBackend>(
    plot: &'a DrawingArea<DB, Shift>,
    x: Axis,
    y: Axis,
) -> DrawingResult<DB, NumberChart<'a, DB>> {
    let mut chart = ChartBuilder::on(plot)
        .margin(12)
        .x_label_area_size(x.room)
        .y_label_area_size(y.room)
        .build_cartesian_2d(x.range, y.range)?;
    let x_format = |value: &f64| x.labels.write(*value);
    let y_format = |value: &f64| y.labels.write(*value);
    let mut mesh = chart.configure_mesh();
    if x.ticks == 0 {
        mesh.disable_x_mesh();
    }
    mesh.x_labels(x.ticks)
        .y_labels(y.ticks)
        .x_label_formatter(&x_format)
        .y_label_formatter(&y_format)
        .label_style(text(LABEL_SIZE))
        .x_desc(x.title.as_str())
        .y_desc(y.title.as_str())
        .axis_desc_style(text(AXIS_TITLE_SIZE))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .draw()?;
    Ok(chart)
}

/// Draws a dashed guide line (a diagonal, a threshold) from `from` to `to`.
pub(super) fn draw_guide<DB: DrawingBackend>(
    chart: &mut NumberChart<'_, DB>,
    from: (f64, f64),
    to: (f64, f64),
    style: ShapeStyle,
) -> DrawResult<DB> {
    chart.draw_series(DashedLineSeries::new([from, to], 8, 5, style))?;
    Ok(())
}

/// A square chart of estimates (y) against the truth (x) over `span` on both axes, ticks
/// written as `labels`, with the dashed diagonal where an estimate is exact.
pub(super) fn square_chart<'a, DB: DrawingBackend>(
    plot: &'a DrawingArea<DB, Shift>,
    (x_title, y_title): (String, String),
    (low, high): (f64, f64),
    labels: TickLabels,
) -> DrawingResult<DB, NumberChart<'a, DB>> {
    let mut chart = chart(
        plot,
        Axis::new(x_title, low..high).ticks(10, labels),
        Axis::new(y_title, low..high).ticks(10, labels).room(80),
    )?;
    draw_guide(
        &mut chart,
        (low, low),
        (high, high),
        BLACK.mix(0.6).stroke_width(2),
    )?;
    Ok(chart)
}

/// The fraction of the budget along x.
const FRACTIONS: Range<f64> = 0.0..1.05;

/// A chart of a value titled `y_title` over `y_range` against the fraction of each topic's
/// budget, with the dashed `limit` a reusable collection keeps.
pub(super) fn fraction_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    y_title: String,
    y_range: Range<f64>,
    limit: f64,
) -> DrawingResult<DB, NumberChart<'a, DB>> {
    let mut chart = chart(
        area,
        Axis::new("fraction of each topic's budget N_t", FRACTIONS)
            .ticks(11, TickLabels::Decimals(1)),
        Axis::new(y_title, y_range).room(70),
    )?;
    draw_guide(
        &mut chart,
        (FRACTIONS.start, limit),
        (FRACTIONS.end, limit),
        THRESHOLD_COLOUR.stroke_width(2),
    )?;
    Ok(chart)
}

/// How the labels of a chart whose columns are categories (runs, trials) fit under it: a
/// quarter turn when they would overlap, and the room they take.
pub(super) struct ColumnLabels {
    columns: usize,
    pub(super) spacing: f64,
    is_rotated: bool,
    /// The room under the plot the labels and the axis title take.
    pub(super) room: u32,
}

impl ColumnLabels {
    /// How `labels`, one a column, fit on `plot`.
    pub(super) fn fit<DB: DrawingBackend>(
        plot: &DrawingArea<DB, Shift>,
        labels: &[String],
    ) -> DrawingResult<DB, Self> {
        let columns = labels.len().max(1);
        let style = text(LABEL_SIZE);
        let mut widest = 0;
        for label in labels {
            widest = widest.max(plot.estimate_text_size(label, &style)?.0);
        }
        let (plot_width, _) = plot.dim_in_pixel();
        // The spacing before the chart exists: the y label area is 70 pixels.
        let spacing = f64::from(plot_width - 90) / columns as f64;
        let is_rotated = f64::from(widest) + 6.0 > spacing;
        let label_height = if is_rotated { widest + 14 } else { 24 };
        Ok(Self {
            columns,
            spacing,
            is_rotated,
            room: label_height + 34,
        })
    }

    /// The x axis of the columns, titled `title`: one unit a column, without ticks.
    pub(super) fn axis(&self, title: impl Into<String>) -> Axis {
        Axis::new(title, -0.5..(self.columns as f64 - 0.5))
            .ticks(0, TickLabels::Decimals(0))
            .room(self.room)
    }

    /// Draws the labels under the x axis at their pixel positions (backend coordinates of the
    /// axis).
    pub(super) fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        labels: &[(String, (i32, i32))],
    ) -> DrawResult<DB> {
        for (label, (x, y)) in labels {
            let style = if self.is_rotated {
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
}

/// A small horizontal offset for the `index`-th of `count` points of one category, so
/// equal values stay visible side by side (at most ±`half_width`).
pub(super) fn spread_offset(index: usize, count: usize, half_width: f64) -> f64 {
    if count <= 1 {
        0.0
    } else {
        (index as f64 / (count - 1) as f64 - 0.5) * 2.0 * half_width
    }
}
