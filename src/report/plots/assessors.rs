//! The assessors side by side (a study of several assessors on the same seeds): for one
//! measure, each assessor's held-out trials' paired tau_b (mean, and a line down to the
//! smallest), the held-out runs' paired rank change (mean, and a line up to the largest), and
//! the shares of the controls' significant pairs the held-out trials keep, lose and reverse.
//! Assessors sit along x by their number in the legend.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::chart::{chart, draw_framed, draw_guide, Axis, TickLabels};
use super::drawing::{DrawResult, Drawing, RunSpot};
use super::legend::{Legend, LegendEntry, Mark};
use super::style::{palette_colour, THRESHOLD_COLOUR};
use crate::sim::analysis::budget::EQUIVALENT_TAU_B;
use crate::sim::analysis::files::AssessorRow;
use crate::sim::analysis::strategies::RANK_CHANGE_LIMIT;

/// The colours of kept, lost and reversed pairs.
const PAIR_COLOURS: [RGBColor; 3] = [
    RGBColor(60, 140, 60),
    RGBColor(150, 150, 150),
    RGBColor(200, 30, 30),
];

/// The figure of one measure: its caption and each assessor's row, in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct AssessorsFigure {
    /// The caption.
    pub caption: String,
    /// One row per assessor, of the figure's measure.
    pub rows: Vec<AssessorRow>,
}

impl Drawing for AssessorsFigure {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        _spots: &mut Vec<RunSpot>,
    ) -> DrawResult<DB> {
        draw_framed(root, &self.caption, |plot| {
            let third = plot.dim_in_pixel().0 / 3;
            let (left, rest) = plot.split_horizontally(third);
            let (middle, right) = rest.split_horizontally(third);
            let x_end = self.rows.len() as f64 + 0.5;
            let x_axis = || {
                Axis::new("assessor", 0.5..x_end).ticks(self.rows.len(), TickLabels::Decimals(0))
            };
            // Paired tau_b: the mean, and a line down to the smallest.
            let lowest = (self.rows.iter())
                .filter_map(|row| row.paired_tau_b_min)
                .fold(EQUIVALENT_TAU_B, f64::min);
            let mut taus = chart(
                &left,
                x_axis(),
                Axis::new(
                    "paired tau_b",
                    ((lowest - 0.02) * 20.0).floor() / 20.0..1.005,
                ),
            )?;
            draw_guide(
                &mut taus,
                (0.5, EQUIVALENT_TAU_B),
                (x_end, EQUIVALENT_TAU_B),
                THRESHOLD_COLOUR.stroke_width(2),
            )?;
            self.marks(&mut taus, |row| (row.paired_tau_b, row.paired_tau_b_min))?;
            // Rank change: the mean, and a line up to the largest.
            let highest = (self.rows.iter())
                .filter_map(|row| row.rank_change_max)
                .fold(RANK_CHANGE_LIMIT, f64::max);
            let mut changes = chart(
                &middle,
                x_axis(),
                Axis::new("held-out runs' paired rank change", -0.05..highest * 1.1),
            )?;
            draw_guide(
                &mut changes,
                (0.5, RANK_CHANGE_LIMIT),
                (x_end, RANK_CHANGE_LIMIT),
                THRESHOLD_COLOUR.stroke_width(2),
            )?;
            self.marks(&mut changes, |row| {
                (row.rank_change_mean, row.rank_change_max)
            })?;
            // The significant pairs' shares, three bars per assessor.
            let mut pairs = chart(
                &right,
                x_axis(),
                Axis::new("share of the controls' significant pairs", 0.0..1.02)
                    .ticks(10, TickLabels::Decimals(1)),
            )?;
            for (pos, row) in self.rows.iter().enumerate() {
                let (Some(significant), Some(kept), Some(lost), Some(reversed)) =
                    (row.significant, row.kept, row.lost, row.reversed)
                else {
                    continue;
                };
                let total = significant.max(1) as f64;
                let x = pos as f64 + 1.0;
                for (offset, (count, colour)) in [kept, lost, reversed]
                    .into_iter()
                    .zip(PAIR_COLOURS)
                    .enumerate()
                {
                    let left = x - 0.36 + offset as f64 * 0.24;
                    pairs.draw_series(std::iter::once(Rectangle::new(
                        [(left, 0.0), (left + 0.22, count as f64 / total)],
                        colour.filled(),
                    )))?;
                }
            }
            let mut entries: Vec<LegendEntry> = (self.rows.iter().enumerate())
                .map(|(pos, row)| {
                    LegendEntry::new(
                        format!("{} {}", pos + 1, row.folder),
                        palette_colour(pos),
                        Mark::Line,
                    )
                })
                .collect();
            for (name, colour) in ["kept", "lost", "reversed"].into_iter().zip(PAIR_COLOURS) {
                entries.push(LegendEntry::new(name, colour, Mark::Line));
            }
            entries.push(LegendEntry::new(
                "tau_b 0.9, rank change 1",
                THRESHOLD_COLOUR,
                Mark::Dashed,
            ));
            Ok(Legend {
                title: "assessor",
                entries,
            })
        })
    }
}

impl AssessorsFigure {
    /// Each assessor's (mean, extreme): a dot at the mean and a line to the extreme.
    fn marks<DB: DrawingBackend>(
        &self,
        chart: &mut super::chart::NumberChart<'_, DB>,
        value: impl Fn(&AssessorRow) -> (Option<f64>, Option<f64>),
    ) -> DrawResult<DB> {
        for (pos, row) in self.rows.iter().enumerate() {
            let colour = palette_colour(pos);
            let x = pos as f64 + 1.0;
            if let (Some(mean), extreme) = value(row) {
                if let Some(extreme) = extreme {
                    chart.draw_series(LineSeries::new(
                        [(x, mean), (x, extreme)],
                        colour.stroke_width(3),
                    ))?;
                }
                chart.draw_series(std::iter::once(Circle::new((x, mean), 7, colour.filled())))?;
            }
        }
        Ok(())
    }
}
