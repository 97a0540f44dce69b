//! The budget curve (studies with budget fractions): against the fraction of each topic's
//! budget, the control rankings' tau_b against the official ranking, the held-out trials'
//! tau_b against their own control (paired), and the control's recall of officially relevant
//! documents; each a line through the means over seeds with a band from the lowest to the
//! highest seed (a seed's paired tau_b is the mean over its held-out trials), the 0.9 line and
//! the whole budget at 1. The legend names the series: control tau_b (against the official
//! ranking), paired tau_b (held-out trials against their control) and control recall.

use std::collections::BTreeMap;

use plotters::prelude::*;

use super::chart::fraction_chart;
use super::drawing::{Canvas, DrawingResult};
use super::legend::{Legend, LegendEntry, Mark};
use super::style::{PALETTE, THRESHOLD_COLOUR};
use crate::sim::analysis::budget::EQUIVALENT_TAU_B;
use crate::sim::analysis::BudgetRow;

/// The whole budget's line.
const WHOLE_BUDGET_COLOUR: RGBColor = RGBColor(100, 100, 100);

/// One curve: per fraction (ascending), the mean, lowest and highest value over seeds.
type Curve = Vec<(f64, [f64; 3])>;

pub(super) fn draw<DB: DrawingBackend>(canvas: &Canvas<'_, DB>) -> DrawingResult<DB, Legend> {
    let (results, measure) = (canvas.results, canvas.measure);
    let rows: Vec<&BudgetRow> = results
        .budget
        .iter()
        .filter(|row| row.measure == measure)
        .collect();
    let controls: Vec<&BudgetRow> = rows
        .iter()
        .copied()
        .filter(|row| row.held_out.is_none())
        .collect();
    let series = [
        (
            "control tau_b",
            PALETTE[0],
            curve(&controls, |row| row.tau_b),
        ),
        (
            "paired tau_b",
            PALETTE[1],
            curve(&rows, |row| row.paired_tau_b),
        ),
        (
            "control recall",
            PALETTE[2],
            curve(&controls, |row| Some(row.recall)),
        ),
    ];
    let lowest = series
        .iter()
        .flat_map(|(_, _, curve)| curve.iter().map(|(_, [_, min, _])| *min))
        .fold(EQUIVALENT_TAU_B, f64::min);
    let y_min = ((lowest - 0.02) * 20.0).floor() / 20.0;
    let mut chart = fraction_chart(
        canvas.plot,
        format!("tau_b ({measure}) or recall"),
        y_min..1.005,
        EQUIVALENT_TAU_B,
    )?;
    // The whole budget's line, dashed finer than the limit's.
    chart.draw_series(DashedLineSeries::new(
        [(1.0, y_min), (1.0, 1.005)],
        4,
        4,
        WHOLE_BUDGET_COLOUR.stroke_width(2),
    ))?;
    for (_, colour, curve) in &series {
        let band: Vec<(f64, f64)> = curve
            .iter()
            .map(|&(x, [_, min, _])| (x, min))
            .chain(curve.iter().rev().map(|&(x, [_, _, max])| (x, max)))
            .collect();
        chart.draw_series(std::iter::once(Polygon::new(
            band,
            colour.mix(0.2).filled(),
        )))?;
        let means: Vec<(f64, f64)> = curve.iter().map(|&(x, [mean, _, _])| (x, mean)).collect();
        chart.draw_series(LineSeries::new(means.clone(), colour.stroke_width(3)))?;
        chart.draw_series(
            means
                .into_iter()
                .map(|point| Circle::new(point, 5, colour.filled())),
        )?;
    }

    let mut entries: Vec<LegendEntry> = series
        .iter()
        .map(|(label, colour, _)| LegendEntry::new(*label, *colour, Mark::Line))
        .collect();
    entries.extend([
        LegendEntry::new(
            format!(
                "band: range of {} seed{}",
                results.seeds.len(),
                if results.seeds.len() == 1 { "" } else { "s" }
            ),
            BLACK,
            Mark::Bar,
        ),
        LegendEntry::new("tau_b = 0.9", THRESHOLD_COLOUR, Mark::Dashed),
        LegendEntry::new("whole budget", WHOLE_BUDGET_COLOUR, Mark::Dashed),
    ]);
    Ok(Legend::untitled(entries))
}

/// The curve of `value` over `rows`: per fraction, each seed's mean value (rows whose value is
/// undefined left out), then the mean, lowest and highest of the seeds' means.
fn curve(rows: &[&BudgetRow], value: impl Fn(&BudgetRow) -> Option<f64>) -> Curve {
    // Keyed by the fraction's bits: fractions are positive, so their bits sort as they do.
    let mut by_fraction: BTreeMap<u64, BTreeMap<u64, Vec<f64>>> = BTreeMap::new();
    for row in rows {
        if let Some(value) = value(row) {
            by_fraction
                .entry(row.fraction.to_bits())
                .or_default()
                .entry(row.seed)
                .or_default()
                .push(value);
        }
    }
    by_fraction
        .into_iter()
        .map(|(fraction, seeds)| {
            let means: Vec<f64> = seeds
                .values()
                .map(|values| values.iter().sum::<f64>() / values.len() as f64)
                .collect();
            let mean = means.iter().sum::<f64>() / means.len() as f64;
            let min = means.iter().copied().fold(f64::INFINITY, f64::min);
            let max = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (f64::from_bits(fraction), [mean, min, max])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(fraction: f64, seed: u64, paired_tau_b: Option<f64>) -> BudgetRow {
        BudgetRow {
            fraction,
            seed,
            held_out: Some("A".into()),
            measure: "map".into(),
            tau_b: None,
            tau_ap: None,
            paired_tau_b,
            ..BudgetRow::default()
        }
    }

    #[test]
    fn a_curve_averages_each_seed_then_spans_the_seeds() {
        let rows = [
            row(1.0, 1, Some(1.0)),
            row(1.0, 2, None),
            row(0.5, 1, Some(0.8)),
            row(0.5, 1, Some(0.9)),
            row(0.5, 2, Some(0.6)),
            row(0.5, 2, Some(0.7)),
        ];
        let rows: Vec<&BudgetRow> = rows.iter().collect();
        let curve = curve(&rows, |row| row.paired_tau_b);
        let fractions: Vec<f64> = curve.iter().map(|(fraction, _)| *fraction).collect();
        assert_eq!(fractions, [0.5, 1.0]);
        for ((_, got), expected) in curve.iter().zip([[0.75, 0.65, 0.85], [1.0, 1.0, 1.0]]) {
            for (got, expected) in got.iter().zip(expected) {
                assert!((got - expected).abs() < 1e-12, "{curve:?}");
            }
        }
    }
}
