//! The audit's probability that a run's rank moves against how far the truth moved it: the
//! backtest's verdict figure. The risk threshold and the rank margin split it in four: points
//! above the threshold left of the margin are false alarms, points below it right of the margin
//! are missed moves.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::chart::{chart, draw_framed, draw_guide, Axis, TickLabels};
use super::drawing::{DrawResult, Drawing, RunSpot};
use super::estimates::{draw_dots, EstimateSeries};
use super::legend::{Legend, LegendEntry, Mark};

/// The figure's data.
#[derive(Debug, Clone, PartialEq)]
pub struct VerdictFigure {
    /// The caption.
    pub caption: String,
    /// The x axis title (the truth's rank move).
    pub x_title: String,
    /// One series per verdict: (the truth's rank move, P(rank moves)) per run.
    pub series: Vec<EstimateSeries>,
    /// The risk threshold: above it a measure is at risk.
    pub risk_threshold: f64,
    /// The rank margin: a move of at least this many places counts.
    pub rank_margin: f64,
}

impl VerdictFigure {
    /// The x axis's end: past the largest move and the margin.
    fn largest_move(&self) -> f64 {
        let largest = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|&(x, _)| x))
            .fold(self.rank_margin, f64::max);
        largest * 1.05 + 1.0
    }
}

impl Drawing for VerdictFigure {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        _spots: &mut Vec<RunSpot>,
    ) -> DrawResult<DB> {
        draw_framed(root, &self.caption, |plot| {
            let right = self.largest_move();
            let mut chart = chart(
                plot,
                Axis::new(self.x_title.clone(), 0.0..right).ticks(10, TickLabels::Decimals(0)),
                Axis::new("P(rank moves)", 0.0..1.02)
                    .ticks(10, TickLabels::Decimals(1))
                    .room(80),
            )?;
            let (threshold, margin) = (self.risk_threshold, self.rank_margin);
            let guide = BLACK.mix(0.6).stroke_width(2);
            draw_guide(&mut chart, (0.0, threshold), (right, threshold), guide)?;
            draw_guide(&mut chart, (margin, 0.0), (margin, 1.02), guide)?;
            let mut entries = vec![LegendEntry::new(
                format!("threshold {threshold} · margin {margin}"),
                BLACK,
                Mark::Dashed,
            )];
            draw_dots(&mut chart, &self.series, &mut entries)?;
            Ok(Legend::untitled(entries))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_axis_reaches_past_the_largest_move_and_the_margin() {
        let figure = |moves: &[f64]| VerdictFigure {
            caption: String::new(),
            x_title: String::new(),
            series: vec![EstimateSeries {
                name: "a".into(),
                points: moves.iter().map(|&x| (x, 0.5)).collect(),
            }],
            risk_threshold: 0.2,
            rank_margin: 2.0,
        };
        assert!((figure(&[0.0, 10.0]).largest_move() - 11.5).abs() < 1e-12);
        // No run moves past the margin: the margin's line still shows.
        assert!((figure(&[0.0, 1.0]).largest_move() - 3.1).abs() < 1e-12);
    }
}
