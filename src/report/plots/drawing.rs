//! What every figure draws on: the frame's size, the canvas a study figure draws on, the
//! places of its runs' marks, and the trait a figure drawn on any backend implements.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::sim::analysis::{RunRow, StudyResults};

/// Width of every figure, in pixels (SVG user units).
pub const WIDTH: u32 = 1200;
/// Height of every figure, in pixels (SVG user units).
pub const HEIGHT: u32 = 700;
/// Width of the legend column at the right of each figure.
pub(super) const LEGEND_WIDTH: u32 = 210;

/// A figure that can draw itself on any plotters backend.
pub trait Drawing {
    /// Draws on `root`, adding the places of run marks to `spots`.
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        spots: &mut Vec<RunSpot>,
    ) -> DrawResult<DB>;
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

/// A value computed while drawing on a backend, or the backend's error.
pub(super) type DrawingResult<DB, T> =
    std::result::Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// The result of drawing on a backend.
pub(super) type DrawResult<DB> =
    std::result::Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// What a study figure draws on and from: the whole figure (for labels outside the plot),
/// the plot area, the results and the measure.
pub(super) struct Canvas<'a, DB: DrawingBackend> {
    pub(super) root: &'a DrawingArea<DB, Shift>,
    pub(super) plot: &'a DrawingArea<DB, Shift>,
    pub(super) results: &'a StudyResults,
    pub(super) measure: &'a str,
}

impl<'a, DB: DrawingBackend> Canvas<'a, DB> {
    /// The measure's runs, best official rank first, and every team (the order of the team
    /// colours): what a figure of runs coloured by team draws.
    pub(super) fn runs_and_teams(&self) -> (Vec<&'a RunRow>, Vec<String>) {
        (self.results.runs_of(self.measure), self.results.teams())
    }
}

/// The study's trials: a control and one per held-out team, for each seed.
pub(super) fn trial_count(results: &StudyResults) -> usize {
    results.seeds.len() * (1 + results.held_out_teams.len())
}
