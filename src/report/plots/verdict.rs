//! The audit's probability that a run's rank moves against how far the truth moved it: the
//! backtest's verdict figure. The risk threshold and the rank margin split it in four: points
//! above the threshold left of the margin are false alarms, points below it right of the margin
//! are missed moves.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::estimates::{draw_dots, EstimateSeries};
use super::{
    draw_axes, draw_legend, layout, Axes, DrawResult, Drawing, LegendEntry, Mark, RunSpot,
};

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
        root.fill(&WHITE)?;
        let (plot, legend) = layout(root, &self.caption)?;
        let right = self.largest_move();
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(60)
            .y_label_area_size(80)
            .build_cartesian_2d(0.0..right, 0.0..1.02)?;
        draw_axes(
            &mut chart,
            &Axes {
                x_title: self.x_title.clone(),
                y_title: "P(rank moves)".to_string(),
                x_ticks: 10,
                y_ticks: 10,
                x_format: &|v| format!("{v:.0}"),
                y_format: &|v| format!("{v:.1}"),
            },
        )?;
        let guide = BLACK.mix(0.6).stroke_width(2);
        chart.draw_series(DashedLineSeries::new(
            [(0.0, self.risk_threshold), (right, self.risk_threshold)],
            8,
            5,
            guide,
        ))?;
        chart.draw_series(DashedLineSeries::new(
            [(self.rank_margin, 0.0), (self.rank_margin, 1.02)],
            8,
            5,
            guide,
        ))?;
        let mut entries = vec![LegendEntry::new(
            format!(
                "threshold {} · margin {}",
                self.risk_threshold, self.rank_margin
            ),
            BLACK,
            Mark::Dashed,
        )];
        draw_dots(&mut chart, &self.series, &mut entries)?;
        draw_legend(&legend, "", &entries)
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
