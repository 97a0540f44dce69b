//! Estimated scores against true scores, one colour per estimator, with the diagonal where an
//! estimate is exact, and the audit's 90% ranges as vertical bars: the backtest's figure. A
//! point above the diagonal over-estimates; a bar that the diagonal does not cross missed the
//! truth.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::chart::{draw_framed, square_chart, NumberChart, TickLabels};
use super::drawing::{DrawResult, Drawing, RunSpot};
use super::legend::{Legend, LegendEntry, Mark};
use super::style::palette_colour;

/// One estimator's points: (truth, estimate), such as (true score, estimated score).
#[derive(Debug, Clone, PartialEq)]
pub struct EstimateSeries {
    /// The estimator's name, for the legend.
    pub name: String,
    /// (truth, estimate) per run.
    pub points: Vec<(f64, f64)>,
}

/// Ranges of an estimate: (true score, low, high) per run.
#[derive(Debug, Clone, PartialEq)]
pub struct EstimateRanges {
    /// What the ranges are, for the legend.
    pub name: String,
    /// The series whose colour they take (an index into `series`).
    pub series: usize,
    /// (true score, low end, high end) per run.
    pub bars: Vec<(f64, f64, f64)>,
}

/// The figure's data.
#[derive(Debug, Clone, PartialEq)]
pub struct EstimatesFigure {
    /// The caption.
    pub caption: String,
    /// The x axis title.
    pub x_title: String,
    /// The y axis title.
    pub y_title: String,
    /// One series per estimator, drawn in order.
    pub series: Vec<EstimateSeries>,
    /// Ranges drawn under the points, if any.
    pub ranges: Option<EstimateRanges>,
}

/// The square both axes span: from just below the lowest to just above the highest value.
fn span(figure: &EstimatesFigure) -> (f64, f64) {
    let bars = figure.ranges.iter().flat_map(|r| &r.bars);
    let values = figure
        .series
        .iter()
        .flat_map(|s| s.points.iter().flat_map(|&(x, y)| [x, y]))
        .chain(bars.flat_map(|&(x, low, high)| [x, low, high]));
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !(low.is_finite() && high.is_finite()) || high <= low {
        return (0.0, 1.0);
    }
    let margin = (high - low) * 0.05;
    ((low - margin).max(0.0), high + margin)
}

impl Drawing for EstimatesFigure {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        _spots: &mut Vec<RunSpot>,
    ) -> DrawResult<DB> {
        draw_framed(root, &self.caption, |plot| {
            let titles = (self.x_title.clone(), self.y_title.clone());
            let mut chart = square_chart(plot, titles, span(self), TickLabels::Decimals(3))?;
            let mut entries = vec![LegendEntry::new("estimate = truth", BLACK, Mark::Dashed)];
            if let Some(ranges) = &self.ranges {
                let colour = palette_colour(ranges.series);
                chart.draw_series(ranges.bars.iter().map(|&(x, low, high)| {
                    PathElement::new(vec![(x, low), (x, high)], colour.mix(0.35).stroke_width(2))
                }))?;
                entries.push(LegendEntry::new(ranges.name.clone(), colour, Mark::Bar));
            }
            draw_dots(&mut chart, &self.series, &mut entries)?;
            Ok(Legend::untitled(entries))
        })
    }
}

/// Draws each series' points as dots in its palette colour, adding its legend entry.
pub(super) fn draw_dots<DB: DrawingBackend>(
    chart: &mut NumberChart<'_, DB>,
    series: &[EstimateSeries],
    entries: &mut Vec<LegendEntry>,
) -> DrawResult<DB> {
    for (index, series) in series.iter().enumerate() {
        let colour = palette_colour(index);
        chart.draw_series(
            series
                .points
                .iter()
                .map(|&point| Circle::new(point, 4, colour.mix(0.7).filled())),
        )?;
        entries.push(LegendEntry::new(series.name.clone(), colour, Mark::Dot));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_axes_span_every_point_with_a_margin() {
        let figure = EstimatesFigure {
            caption: String::new(),
            x_title: String::new(),
            y_title: String::new(),
            series: vec![EstimateSeries {
                name: "a".into(),
                points: vec![(0.2, 0.3), (0.4, 0.25)],
            }],
            ranges: None,
        };
        let (low, high) = span(&figure);
        assert!(
            (low - 0.19).abs() < 1e-12 && (high - 0.41).abs() < 1e-12,
            "{low} {high}"
        );
        // A range reaching past every point widens the square.
        let ranged = EstimatesFigure {
            ranges: Some(EstimateRanges {
                name: "r".into(),
                series: 0,
                bars: vec![(0.3, 0.1, 0.5)],
            }),
            ..figure
        };
        let (low, high) = span(&ranged);
        assert!(
            (low - 0.08).abs() < 1e-12 && (high - 0.52).abs() < 1e-12,
            "{low} {high}"
        );
    }
}
