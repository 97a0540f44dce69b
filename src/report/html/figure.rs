//! A study figure in the page: its SVG inline, with a focusable, titled spot over each run's
//! marks.

use std::collections::HashMap;

use maud::{html, Markup, PreEscaped};

use super::text::inline;
use crate::base::error::{Error, Result};
use crate::report::document::Figure;
use crate::report::plots::{svg_figure, RunSpot, SpotArea};
use crate::sim::analysis::{RunRow, StudyResults};
use crate::stats::Spread;

/// The radius of the spot over a run's point.
const POINT_RADIUS: i32 = 8;

/// What a run's spot says: its name, team and ranks (official, LOU, over all trials).
fn run_tip(run: &RunRow, trial_ranks: Option<Spread>) -> String {
    let mut tip = format!(
        "{} · team {} · official rank {} · LOU rank {:.1} ({}–{})",
        run.run, run.team, run.official_rank, run.lou_rank.mean, run.lou_rank.min, run.lou_rank.max
    );
    if let Some(ranks) = trial_ranks {
        tip.push_str(&format!(
            " · ranks over all trials {}–{}, dominant {} ({:.0}% of trials)",
            ranks.min,
            ranks.max,
            run.trials_dominant_rank,
            100.0 * run.trials_dominant_rank_share
        ));
    }
    tip
}

/// Each run of `measure`: its team and its tip.
fn run_tips<'r>(results: &'r StudyResults, measure: &str) -> HashMap<&'r str, (&'r str, String)> {
    let mut trial_ranks: HashMap<&str, Vec<f64>> = HashMap::new();
    for row in results.ranks.iter().filter(|row| row.measure == measure) {
        trial_ranks.entry(&row.run).or_default().push(row.rank);
    }
    results
        .runs_of(measure)
        .into_iter()
        .map(|run| {
            let ranks = trial_ranks
                .get(run.run.as_str())
                .and_then(|ranks| Spread::of(ranks));
            (run.run.as_str(), (run.team.as_str(), run_tip(run, ranks)))
        })
        .collect()
}

/// The figure, drawn from `results`, with its heading and a spot over each run.
pub(super) fn render(figure: &Figure, results: &StudyResults) -> Result<Markup> {
    let drawn = svg_figure(results, figure.kind, &figure.measure)?;
    let end = drawn.svg.rfind("</svg>").ok_or_else(|| Error::Plot {
        figure: figure.stem(),
        message: "the drawing has no closing </svg>".into(),
    })?;
    let tips = run_tips(results, &figure.measure);
    let spots = html! {
        g.spots {
            @for spot in &drawn.spots {
                @if let Some((team, tip)) = tips.get(spot.run.as_str()) {
                    (render_spot(spot, team, tip))
                }
            }
        }
    };
    let heading = figure.heading();
    Ok(html! {
        figure id=(figure_id(figure)) data-kind=(figure.stem()) {
            h3 { (inline(&heading)) }
            (PreEscaped(&drawn.svg[..end]))
            (spots)
            (PreEscaped(&drawn.svg[end..]))
        }
    })
}

/// A transparent, focusable shape over a run's marks.
fn render_spot(spot: &RunSpot, team: &str, tip: &str) -> Markup {
    match spot.area {
        SpotArea::Column {
            left,
            top,
            right,
            bottom,
        } => html! {
            rect.spot x=(left) y=(top) width=(right - left) height=(bottom - top) tabindex="0"
                data-run=(spot.run) data-team=(team) data-tip=(tip) { title { (tip) } }
        },
        SpotArea::Point { x, y } => html! {
            circle.spot cx=(x) cy=(y) r=(POINT_RADIUS) tabindex="0"
                data-run=(spot.run) data-team=(team) data-tip=(tip) { title { (tip) } }
        },
    }
}

/// A figure's element id: `figure-<stem>`.
fn figure_id(figure: &Figure) -> String {
    format!("figure-{}", figure.stem())
}
