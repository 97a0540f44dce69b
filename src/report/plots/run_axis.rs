//! The chart shared by the figures that show runs along x in official order and ranks along y
//! (1 = best, at the top): its axes, a faint guide per run, and the run labels, rotated when
//! they do not fit and thinned (one in k) when there are more runs than room.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::chart::{chart, Axis, ColumnLabels, NumberChart, TickLabels};
use super::drawing::{DrawResult, DrawingResult, RunSpot, SpotArea};
use crate::sim::analysis::RunRow;

/// The least horizontal room (pixels) a rotated run label needs.
const MIN_LABEL_SPACING: f64 = 14.0;

/// The runs along the x axis and how their labels are laid out.
pub(super) struct RunRankAxis {
    tags: Vec<String>,
    run_count: usize,
    labels: ColumnLabels,
    label_stride: usize,
}

impl RunRankAxis {
    /// Builds the chart for `runs` (official order) on `plot`, with its mesh and run guides
    /// drawn.
    pub(super) fn chart<'a, DB: DrawingBackend>(
        plot: &'a DrawingArea<DB, Shift>,
        runs: &[&RunRow],
    ) -> DrawingResult<DB, (NumberChart<'a, DB>, Self)> {
        let tags: Vec<String> = runs.iter().map(|run| run.run.clone()).collect();
        let run_count = tags.len().max(1);
        let labels = ColumnLabels::fit(plot, &tags)?;
        // Rotated labels need a line's height each; with more runs than fit, label every
        // `label_stride`-th run (the faint guides still mark every run).
        let label_stride = (MIN_LABEL_SPACING / labels.spacing).ceil().max(1.0) as usize;
        let stride_note = if label_stride > 1 {
            format!(" (one label in {label_stride})")
        } else {
            String::new()
        };
        let mut chart = chart(
            plot,
            labels.axis(format!("runs in official order{stride_note}")),
            Axis::new("rank (1 = best)", -(run_count as f64 + 0.5)..-0.5)
                .ticks(run_count.min(15), TickLabels::Ranks)
                .room(70),
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
            tags,
            run_count,
            labels,
            label_stride,
        };
        Ok((chart, axis))
    }

    /// One column per run, from the top of the chart to its x axis.
    pub(super) fn spots<DB: DrawingBackend>(&self, chart: &NumberChart<'_, DB>) -> Vec<RunSpot> {
        let bottom = -(self.run_count as f64 + 0.5);
        (self.tags.iter().enumerate())
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
        chart: &NumberChart<'_, DB>,
    ) -> DrawResult<DB> {
        let axis_y = -(self.run_count as f64 + 0.5);
        let labels: Vec<(String, (i32, i32))> = (self.tags.iter().enumerate())
            .step_by(self.label_stride)
            .map(|(position, tag)| (tag.clone(), chart.backend_coord(&(position as f64, axis_y))))
            .collect();
        self.labels.draw(root, &labels)
    }
}
