//! The comparisons by significance (studies with budget fractions or judging strategies): per
//! fraction of each topic's budget, one bar per judging strategy (without strategies, the
//! budget curve's controls, labelled hical) stacking the reference's significant pairs of runs
//! that the controls' qrels keep (significant in the same direction), reverse (significant the
//! other way: the error that misleads a reader, in red, its mean count written over the bar)
//! and lose (no longer significant), as shares of the reference's significant pairs; the pairs
//! significant under the controls only (new) are an open box above 1, as many hundredths of
//! the reference's pairs as they number (at most 1), their mean count written over it. The
//! reference is the truth when the task has one, else the assessor's qrels when the study has
//! an assessor, else the official qrels. Bars whose pairs could not be tested or whose
//! reference has no significant pair read `NA`.

use std::collections::BTreeMap;

use plotters::prelude::*;

use super::chart::{chart, Axis, ColumnLabels, TickLabels};
use super::drawing::{Canvas, DrawingResult};
use super::legend::{Legend, LegendEntry, Mark};
use super::style::{text, LABEL_SIZE, PALETTE};
use crate::sim::analysis::{BudgetRow, StrategyRow};

/// The kept pairs' colour.
const KEPT_COLOUR: RGBColor = PALETTE[0];
/// The lost pairs' colour: pale, as pairs that are simply no longer told apart.
const LOST_COLOUR: RGBColor = RGBColor(205, 205, 205);
/// The reversed pairs' colour: strong, as the error that misleads.
const REVERSED_COLOUR: RGBColor = RGBColor(200, 20, 20);
/// The new pairs' outline and count.
const NEW_COLOUR: RGBColor = RGBColor(70, 70, 70);
/// The tallest box of new pairs, in shares of the reference's pairs (its count says more).
const NEW_SHARE_SHOWN: f64 = 1.0;
/// The strategy the budget curve judges with.
const BUDGET_STRATEGY: &str = "hical";
/// Half a bar's width, in slots.
const HALF_BAR: f64 = 0.4;

/// The qrels whose significant pairs the controls' are compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reference {
    /// The task's complete truth.
    Truth,
    /// The simulated assessor's qrels of each seed.
    Assessor,
    /// The official qrels.
    Official,
}

impl Reference {
    /// The reference as the axis names it.
    fn name(self) -> &'static str {
        match self {
            Self::Truth => "the truth",
            Self::Assessor => "the assessor's qrels",
            Self::Official => "the official qrels",
        }
    }
}

/// Pairs of runs as the controls' qrels judge them against the reference: counts (means over
/// seeds), or shares of the reference's significant pairs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Pairs {
    /// Significant under both, in the same direction.
    pub(super) kept: f64,
    /// Significant under the reference only.
    pub(super) lost: f64,
    /// Significant under both, in opposite directions.
    pub(super) reversed: f64,
    /// Significant under the controls only.
    pub(super) new: f64,
}

impl Pairs {
    /// The pairs from kept, lost, reversed and new counts, when all four are defined.
    fn of([kept, lost, reversed, new]: [Option<f64>; 4]) -> Option<Self> {
        Some(Self {
            kept: kept?,
            lost: lost?,
            reversed: reversed?,
            new: new?,
        })
    }

    /// The reference's significant pairs: kept, lost and reversed.
    pub(super) fn reference_pairs(&self) -> f64 {
        self.kept + self.lost + self.reversed
    }

    /// Each count as a share of the reference's significant pairs (`None` when it has none).
    pub(super) fn shares(&self) -> Option<Self> {
        let total = self.reference_pairs();
        (total > 0.0).then(|| Self {
            kept: self.kept / total,
            lost: self.lost / total,
            reversed: self.reversed / total,
            new: self.new / total,
        })
    }
}

/// A table row with kept, lost, reversed and new counts against each reference.
trait PairCounts {
    /// The counts against `reference` (`None` where the row has none).
    fn counts(&self, reference: Reference) -> [Option<f64>; 4];

    /// The pairs against `reference`, when all four counts are defined.
    fn pairs(&self, reference: Reference) -> Option<Pairs> {
        Pairs::of(self.counts(reference))
    }
}

impl PairCounts for StrategyRow {
    fn counts(&self, reference: Reference) -> [Option<f64>; 4] {
        match reference {
            Reference::Truth => self.truth,
            Reference::Assessor => self.assessor.unwrap_or_default(),
            Reference::Official => self.official,
        }
        .to_array()
    }
}

impl PairCounts for BudgetRow {
    fn counts(&self, reference: Reference) -> [Option<f64>; 4] {
        match reference {
            Reference::Truth => self.truth,
            Reference::Assessor => self.assessor.unwrap_or_default(),
            Reference::Official => self.official,
        }
        .map(|count| count as f64)
        .to_array()
    }
}

/// The fullest reference `rows` have counts against: the truth, else the assessor's qrels,
/// else the official qrels.
fn fullest_reference(rows: &[&impl PairCounts]) -> Reference {
    let has = |reference| (rows.iter()).any(|row| row.counts(reference)[0].is_some());
    if has(Reference::Truth) {
        Reference::Truth
    } else if has(Reference::Assessor) {
        Reference::Assessor
    } else {
        Reference::Official
    }
}

/// The bars of the figure: per fraction (ascending), one per strategy (in the order the rows
/// first name them), each the strategy's pairs at that fraction (`None`: not tested).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Bars {
    pub(super) reference: Reference,
    pub(super) strategies: Vec<String>,
    pub(super) fractions: Vec<f64>,
    /// Indexed by fraction, then strategy.
    pub(super) pairs: Vec<Vec<Option<Pairs>>>,
}

impl Bars {
    /// The bars of `measure`: from the strategies' rows when the study compares strategies,
    /// else from the budget curve's controls.
    pub(super) fn of(strategies: &[StrategyRow], budget: &[BudgetRow], measure: &str) -> Self {
        if strategies.is_empty() {
            Self::of_budget(budget, measure)
        } else {
            Self::of_strategies(strategies, measure)
        }
    }

    /// Each strategy's controls at each fraction (their counts are already means over seeds).
    fn of_strategies(rows: &[StrategyRow], measure: &str) -> Self {
        let rows: Vec<&StrategyRow> = rows.iter().filter(|row| row.measure == measure).collect();
        let reference = fullest_reference(&rows);
        let bars =
            (rows.iter()).map(|row| (row.strategy.as_str(), row.fraction, row.pairs(reference)));
        Self::collect(reference, bars)
    }

    /// The budget curve's controls at each fraction: each seed's counts, then their mean over
    /// the seeds whose counts are defined.
    fn of_budget(rows: &[BudgetRow], measure: &str) -> Self {
        let controls: Vec<&BudgetRow> = (rows.iter())
            .filter(|row| row.measure == measure && row.held_out.is_none())
            .collect();
        let reference = fullest_reference(&controls);
        // Keyed by the fraction's bits: fractions are positive, so their bits sort as they do.
        let mut by_fraction: BTreeMap<u64, Vec<Pairs>> = BTreeMap::new();
        for row in &controls {
            let seeds = by_fraction.entry(row.fraction.to_bits()).or_default();
            seeds.extend(row.pairs(reference));
        }
        let bars = (by_fraction.into_iter())
            .map(|(fraction, seeds)| (BUDGET_STRATEGY, f64::from_bits(fraction), mean(&seeds)));
        Self::collect(reference, bars)
    }

    /// The bars from (strategy, fraction, pairs) in any order.
    fn collect<'s>(
        reference: Reference,
        bars: impl Iterator<Item = (&'s str, f64, Option<Pairs>)>,
    ) -> Self {
        let mut strategies: Vec<String> = Vec::new();
        let mut by_fraction: BTreeMap<u64, BTreeMap<usize, Option<Pairs>>> = BTreeMap::new();
        for (strategy, fraction, pairs) in bars {
            let position = match strategies.iter().position(|known| known == strategy) {
                Some(position) => position,
                None => {
                    strategies.push(strategy.to_string());
                    strategies.len() - 1
                }
            };
            let fraction_bars = by_fraction.entry(fraction.to_bits()).or_default();
            fraction_bars.insert(position, pairs);
        }
        let fractions = by_fraction
            .keys()
            .map(|&bits| f64::from_bits(bits))
            .collect();
        let pairs = (by_fraction.values())
            .map(|bars| {
                (0..strategies.len())
                    .map(|position| bars.get(&position).copied().flatten())
                    .collect()
            })
            .collect();
        Self {
            reference,
            strategies,
            fractions,
            pairs,
        }
    }

    /// The slot of the bar of strategy `strategy` at fraction `fraction`: the strategies side
    /// by side, an empty slot between fractions.
    fn slot(&self, fraction: usize, strategy: usize) -> f64 {
        (fraction * (self.strategies.len() + 1) + strategy) as f64
    }

    /// Each slot's label: the strategy's name under its bar, nothing between fractions.
    fn slot_labels(&self) -> Vec<String> {
        let group = self.strategies.iter().cloned().chain([String::new()]);
        let mut labels: Vec<String> = (self.fractions.iter())
            .flat_map(|_| group.clone())
            .collect();
        labels.pop();
        labels
    }

    /// The reference's significant pairs over the bars: the lowest and the highest.
    fn reference_pairs(&self) -> Option<(f64, f64)> {
        let totals = (self.pairs.iter().flatten().flatten()).map(Pairs::reference_pairs);
        totals.fold(None, |range, total| match range {
            None => Some((total, total)),
            Some((low, high)) => Some((f64::min(low, total), f64::max(high, total))),
        })
    }
}

/// The mean of each count over `seeds` (`None` without any).
fn mean(seeds: &[Pairs]) -> Option<Pairs> {
    if seeds.is_empty() {
        return None;
    }
    let count = seeds.len() as f64;
    let sum = |count_of: fn(&Pairs) -> f64| seeds.iter().map(count_of).sum::<f64>() / count;
    Some(Pairs {
        kept: sum(|pairs| pairs.kept),
        lost: sum(|pairs| pairs.lost),
        reversed: sum(|pairs| pairs.reversed),
        new: sum(|pairs| pairs.new),
    })
}

/// A count as the figure writes it: a mean over seeds, to one decimal when it has one.
fn count_label(count: f64) -> String {
    if count.fract() == 0.0 {
        format!("{count:.0}")
    } else {
        format!("{count:.1}")
    }
}

pub(super) fn draw<DB: DrawingBackend>(canvas: &Canvas<'_, DB>) -> DrawingResult<DB, Legend> {
    let (results, measure) = (canvas.results, canvas.measure);
    let bars = Bars::of(&results.strategies, &results.budget, measure);
    let slot_labels = bars.slot_labels();
    let labels = ColumnLabels::fit(canvas.plot, &slot_labels)?;
    let highest_new = (bars.pairs.iter().flatten().flatten())
        .filter_map(Pairs::shares)
        .map(|shares| shares.new.min(NEW_SHARE_SHOWN))
        .fold(0.0, f64::max);
    // Room over the tallest bar for its two counts.
    let y_max = 1.0 + highest_new + 0.15;
    let reference_pairs = match bars.reference_pairs() {
        Some((low, high)) if low == high => format!("{} a seed", count_label(low)),
        Some((low, high)) => format!("{}–{} a seed", count_label(low), count_label(high)),
        None => "none".to_string(),
    };
    let mut chart = chart(
        canvas.plot,
        labels
            .axis("fraction of each topic's budget N_t: one bar per strategy")
            .room(labels.room + 26),
        Axis::new(
            format!(
                "share of the significant pairs under {} ({measure}; {reference_pairs})",
                bars.reference.name()
            ),
            0.0..y_max,
        )
        .ticks(12, TickLabels::Decimals(1))
        .room(70),
    )?;
    let small = text(LABEL_SIZE - 1);
    for (fraction, fraction_bars) in bars.pairs.iter().enumerate() {
        for (strategy, pairs) in fraction_bars.iter().enumerate() {
            let x = bars.slot(fraction, strategy);
            let Some((pairs, shares)) = pairs.and_then(|p| Some((p, p.shares()?))) else {
                chart.draw_series(std::iter::once(
                    EmptyElement::at((x, 0.0))
                        + Text::new("NA", (0, -4), small.pos(bottom_centre())),
                ))?;
                continue;
            };
            let segments = [
                (0.0, shares.kept, KEPT_COLOUR),
                (shares.kept, shares.reversed, REVERSED_COLOUR),
                (shares.kept + shares.reversed, shares.lost, LOST_COLOUR),
            ];
            chart.draw_series(segments.into_iter().map(|(base, height, colour)| {
                Rectangle::new(
                    [(x - HALF_BAR, base), (x + HALF_BAR, base + height)],
                    colour.filled(),
                )
            }))?;
            let new_top = 1.0 + shares.new.min(NEW_SHARE_SHOWN);
            if pairs.new > 0.0 {
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x - HALF_BAR, 1.0), (x + HALF_BAR, new_top)],
                    NEW_COLOUR.stroke_width(2),
                )))?;
            }
            let mut counts = Vec::new();
            if pairs.new > 0.0 {
                counts.push((format!("+{}", count_label(pairs.new)), NEW_COLOUR));
            }
            if pairs.reversed > 0.0 {
                counts.push((count_label(pairs.reversed), REVERSED_COLOUR));
            }
            for (line, (label, colour)) in counts.into_iter().enumerate() {
                let style = small.color(&colour).pos(bottom_centre());
                let y = -4 - 16 * line as i32;
                chart.draw_series(std::iter::once(
                    EmptyElement::at((x, new_top)) + Text::new(label, (0, y), style),
                ))?;
            }
        }
    }
    let (_, axis_y) = chart.backend_coord(&(0.0, 0.0));
    let slot_positions: Vec<(String, (i32, i32))> = (slot_labels.iter().enumerate())
        .map(|(slot, label)| (label.clone(), chart.backend_coord(&(slot as f64, 0.0))))
        .collect();
    labels.draw(canvas.root, &slot_positions)?;
    let strategies = bars.strategies.len();
    for (index, fraction) in bars.fractions.iter().enumerate() {
        let middle = (bars.slot(index, 0) + bars.slot(index, strategies - 1)) / 2.0;
        let (x, _) = chart.backend_coord(&(middle, 0.0));
        canvas.root.draw(&Text::new(
            format!("{fraction}"),
            (x, axis_y + labels.room as i32 - 28),
            text(LABEL_SIZE + 1).pos(top_centre()),
        ))?;
    }
    Ok(Legend::untitled(vec![
        LegendEntry::new("kept", KEPT_COLOUR, Mark::Square),
        LegendEntry::new("reversed (red count)", REVERSED_COLOUR, Mark::Square),
        LegendEntry::new("lost", LOST_COLOUR, Mark::Square),
        LegendEntry::new("new (+count)", NEW_COLOUR, Mark::OpenSquare),
    ]))
}

fn bottom_centre() -> plotters::style::text_anchor::Pos {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    Pos::new(HPos::Center, VPos::Bottom)
}

fn top_centre() -> plotters::style::text_anchor::Pos {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    Pos::new(HPos::Center, VPos::Top)
}

#[cfg(test)]
#[path = "significance_tests.rs"]
mod tests;
