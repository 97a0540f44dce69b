//! The chart shared by the figures that show runs along x in official order and ranks along y
//! (1 = best, at the top): its axes, a faint guide per run, and the run labels, rotated when
//! they do not fit and thinned (one in k) when there are more runs than room.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    draw_axes, draw_x_labels, needs_rotation, widest_label, Axes, DrawResult, DrawingResult,
    RunSpot, SpotArea,
};

/// The least horizontal room (pixels) a rotated run label needs.
const MIN_LABEL_SPACING: f64 = 14.0;

/// A chart with runs along x (position 0, 1, ...) and negated ranks along y.
pub(super) type RankChart<'a, DB> =
    ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// How the run labels are laid out.
pub(super) struct RunRankAxis {
    run_count: usize,
    is_rotated: bool,
    label_stride: usize,
}

impl RunRankAxis {
    /// Builds the chart for runs tagged `tags` (official order) on `plot`, with its mesh and
    /// run guides drawn.
    pub(super) fn chart<'a, DB: DrawingBackend>(
        plot: &'a DrawingArea<DB, Shift>,
        tags: &[String],
    ) -> DrawingResult<DB, (RankChart<'a, DB>, Self)> {
        let run_count = tags.len().max(1);
        let widest = widest_label(plot, tags)?;
        let (plot_width, _) = plot.dim_in_pixel();
        // The spacing before the chart exists: the y label area is 70 pixels.
        let spacing = f64::from(plot_width - 90) / run_count as f64;
        let is_rotated = needs_rotation(widest, spacing);
        let label_height = if is_rotated { widest + 14 } else { 24 };
        // Rotated labels need a line's height each; with more runs than fit, label every
        // `label_stride`-th run (the faint guides still mark every run).
        let label_stride = (MIN_LABEL_SPACING / spacing).ceil().max(1.0) as usize;
        let mut chart = ChartBuilder::on(plot)
            .margin(12)
            .x_label_area_size(label_height + 34)
            .y_label_area_size(70)
            .build_cartesian_2d(
                -0.5..(run_count as f64 - 0.5),
                -(run_count as f64 + 0.5)..-0.5,
            )?;
        let stride_note = if label_stride > 1 {
            format!(" (one label in {label_stride})")
        } else {
            String::new()
        };
        draw_axes(
            &mut chart,
            &Axes {
                x_title: format!("runs in official order{stride_note}"),
                y_title: "rank (1 = best)".to_string(),
                x_ticks: 0,
                y_ticks: run_count.min(15),
                x_format: &|x| format!("{x}"),
                y_format: &|y| format!("{:.0}", -y),
            },
        )?;
        // A faint guide per run, so a mark can be traced down to its label.
        for position in 0..tags.len() {
            let x = position as f64;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x, -(run_count as f64 + 0.5)), (x, -0.5)],
                BLACK.mix(0.06),
            )))?;
        }
        let axis = Self {
            run_count,
            is_rotated,
            label_stride,
        };
        Ok((chart, axis))
    }

    /// One column per run, from the top of the chart to its x axis.
    pub(super) fn spots<DB: DrawingBackend>(
        &self,
        chart: &RankChart<'_, DB>,
        tags: &[String],
    ) -> Vec<RunSpot> {
        let bottom = -(self.run_count as f64 + 0.5);
        tags.iter()
            .enumerate()
            .map(|(position, tag)| {
                let x = position as f64;
                let (left, top) = chart.backend_coord(&(x - 0.5, -0.5));
                let (right, bottom) = chart.backend_coord(&(x + 0.5, bottom));
                RunSpot {
                    run: tag.clone(),
                    area: SpotArea::Column {
                        left,
                        top,
                        right,
                        bottom,
                    },
                }
            })
            .collect()
    }

    /// Draws the run labels under the chart.
    pub(super) fn draw_labels<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        chart: &RankChart<'_, DB>,
        tags: &[String],
    ) -> DrawResult<DB> {
        let axis_y = -(self.run_count as f64 + 0.5);
        let labels: Vec<(String, (i32, i32))> = tags
            .iter()
            .enumerate()
            .step_by(self.label_stride)
            .map(|(position, tag)| (tag.clone(), chart.backend_coord(&(position as f64, axis_y))))
            .collect();
        draw_x_labels(root, &labels, self.is_rotated)
    }
}
