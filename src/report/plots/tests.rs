//! The figures checked against the data they draw: marks read back from the SVG are where the
//! data puts them (a run's column is the x of its label, a rank's row the y of its tick label,
//! a score's position the tick of that score), in their team's colour, and the captions and
//! legends say what the data holds.

use std::collections::BTreeSet;

use super::drawing::LEGEND_WIDTH;
use super::style::{team_colour, PALETTE};
use super::*;
use crate::sim::analysis::files::Counts;
use crate::sim::analysis::{BudgetRow, LouRow, RankRow, RunRow, TrialRow};
use crate::stats::Spread;

/// The first two palette colours, as the SVG writes them.
const FIRST_COLOUR: &str = "#1F77B4";
const SECOND_COLOUR: &str = "#FF7F0E";

/// The attributes of every `<name …>` element of `svg`, in document order.
fn elements(svg: &str, name: &str) -> Vec<Vec<(String, String)>> {
    svg.split(&format!("<{name} "))
        .skip(1)
        .map(|rest| {
            let tag = &rest[..rest.find('>').expect("a closed tag")];
            tag.split('"')
                .collect::<Vec<_>>()
                .chunks(2)
                .filter(|pair| pair.len() == 2)
                .map(|pair| {
                    let key = pair[0].trim().trim_end_matches('=').to_string();
                    (key, pair[1].to_string())
                })
                .collect()
        })
        .collect()
}

fn attribute<'a>(element: &'a [(String, String)], key: &str) -> &'a str {
    element
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, value)| value.as_str())
        .unwrap_or_else(|| panic!("no {key} in {element:?}"))
}

fn number(element: &[(String, String)], key: &str) -> i32 {
    attribute(element, key).parse().unwrap()
}

/// Every text of `svg`: its content and anchor position.
fn texts(svg: &str) -> Vec<(String, i32, i32)> {
    let attributes = elements(svg, "text");
    svg.split("<text ")
        .skip(1)
        .zip(attributes)
        .map(|(rest, element)| {
            let content = &rest[rest.find('>').unwrap() + 1..rest.find("</text>").unwrap()];
            (
                content.trim().to_string(),
                number(&element, "x"),
                number(&element, "y"),
            )
        })
        .collect()
}

/// Where `label` is written: its (x, y); of several, the one `pick` chooses.
fn text_at(
    texts: &[(String, i32, i32)],
    label: &str,
    pick: fn(&(String, i32, i32)) -> i32,
) -> (i32, i32) {
    texts
        .iter()
        .filter(|(text, _, _)| text == label)
        .max_by_key(|text| pick(text))
        .map(|(_, x, y)| (*x, *y))
        .unwrap_or_else(|| panic!("no text {label:?} in {texts:?}"))
}

fn run_row(run: &str, team: &str, official: (f64, f64), lou: (f64, f64, f64)) -> RunRow {
    let (official_score, official_rank) = official;
    let (lou_min, lou_mean, lou_max) = lou;
    RunRow {
        run: run.into(),
        team: team.into(),
        measure: "map".into(),
        official_score,
        official_rank,
        lou_score: Spread {
            mean: lou_mean,
            min: lou_min,
            max: lou_max,
        },
        lou_rank: Spread {
            mean: official_rank,
            min: official_rank,
            max: official_rank,
        },
        dominant_rank: official_rank,
        dominant_rank_frequency: 2,
        trials_dominant_rank: official_rank,
        trials_dominant_rank_share: 1.0,
        truth_score: None,
    }
}

/// Three runs, listed out of official order: r1 (team "y") first officially, r2 (team "x")
/// second, r3 (team "x") third. Two seeds, teams x and y held out: 6 trials, in which r1 takes
/// ranks 1, 2, 1, 1, 2, 1; r2 2, 1, 2, 2, 1, 2; r3 always 3.
fn results() -> StudyResults {
    let runs = vec![
        run_row("r3", "x", (0.2, 3.0), (0.1, 0.2, 0.3)),
        run_row("r1", "y", (0.6, 1.0), (0.2, 0.3, 0.4)),
        run_row("r2", "x", (0.8, 2.0), (0.6, 0.7, 0.8)),
    ];
    let mut ranks = Vec::new();
    for (trial, (r1, r2)) in [(1, 2), (2, 1), (1, 2), (1, 2), (2, 1), (1, 2)]
        .into_iter()
        .enumerate()
    {
        let held_out = [None, Some("x"), Some("y")][trial % 3].map(str::to_string);
        for (run, team, rank) in [("r1", "y", r1), ("r2", "x", r2), ("r3", "x", 3)] {
            ranks.push(RankRow {
                seed: trial as u64 / 3 + 1,
                held_out: held_out.clone(),
                run: run.into(),
                team: team.into(),
                measure: "map".into(),
                score: 1.0 / f64::from(rank),
                rank: f64::from(rank),
            });
        }
    }
    StudyResults {
        task: "hand".into(),
        seeds: vec![1, 2],
        held_out_teams: vec!["x".into(), "y".into()],
        measures: vec!["map".into()],
        runs,
        lou: Vec::<LouRow>::new(),
        trials: Vec::<TrialRow>::new(),
        ranks,
        budget: Vec::new(),
        strategies: Vec::new(),
    }
}

fn svg_of(kind: FigureKind) -> String {
    font::register().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let written = write_figure(&results(), kind, "map", dir.path(), FigureFormat::Svg).unwrap();
    std::fs::read_to_string(&written[0]).unwrap()
}

/// The legend's texts from `first` on, and the fills of its team squares, top to bottom.
fn legend(svg: &str, first: &str) -> (Vec<String>, Vec<String>) {
    let texts = texts(svg);
    let start = texts.iter().position(|(text, _, _)| text == first).unwrap();
    let labels = texts[start..].iter().map(|(text, _, _)| text.clone());
    let mut squares: Vec<(i32, String)> = elements(svg, "rect")
        .iter()
        .filter(|rect| number(rect, "width") == 12 && number(rect, "height") == 12)
        .map(|rect| (number(rect, "y"), attribute(rect, "fill").to_string()))
        .collect();
    squares.sort();
    (labels.collect(), squares.into_iter().map(|s| s.1).collect())
}

#[test]
fn each_rank_of_a_run_is_a_dot_in_its_column_on_its_ranks_row_in_its_teams_colour() {
    let svg = svg_of(FigureKind::RankSpread);
    let texts = texts(&svg);
    // A run's column is the x of its label (the lowest text of that name); a rank's row the y
    // of its tick label (the leftmost).
    let column = |run: &str| text_at(&texts, run, |t| t.2).0;
    let row = |rank: u32| text_at(&texts, &rank.to_string(), |t| -t.1).1;
    assert!(column("r1") < column("r2") && column("r2") < column("r3"));
    assert!(row(1) < row(2) && row(2) < row(3), "rank 1 at the top");
    // (x, y, radius, fill): the radius grows with the share of trials, sqrt(share) x 9.
    let expected: BTreeSet<(i32, i32, i32, String)> = [
        ("r1", 1, 7, SECOND_COLOUR),
        ("r1", 2, 5, SECOND_COLOUR),
        ("r2", 2, 7, FIRST_COLOUR),
        ("r2", 1, 5, FIRST_COLOUR),
        ("r3", 3, 9, FIRST_COLOUR),
    ]
    .into_iter()
    .map(|(run, rank, radius, fill)| (column(run), row(rank), radius, fill.to_string()))
    .collect();
    let circles = elements(&svg, "circle");
    let dots: BTreeSet<(i32, i32, i32, String)> = circles
        .iter()
        .filter(|c| attribute(c, "opacity") == "0.75")
        .map(|c| {
            let fill = attribute(c, "fill").to_string();
            (number(c, "cx"), number(c, "cy"), number(c, "r"), fill)
        })
        .collect();
    assert_eq!(dots, expected);
    // The dominant rank over trials is ringed: r1 1, r2 2, r3 3 (`trials_dominant_rank`).
    let rings: BTreeSet<(i32, i32)> = circles
        .iter()
        .filter(|c| attribute(c, "fill") == "none" && number(c, "r") == 11)
        .map(|c| (number(c, "cx"), number(c, "cy")))
        .collect();
    let expected_rings =
        [("r1", 1), ("r2", 2), ("r3", 3)].map(|(run, rank)| (column(run), row(rank)));
    assert_eq!(rings, expected_rings.into_iter().collect());
}

#[test]
fn the_rank_spread_caption_and_legend_count_the_trials_and_name_the_teams_in_their_colours() {
    let svg = svg_of(FigureKind::RankSpread);
    let caption = "hand · map · rank of every run in every trial · 6 trials: 2 seeds × \
                   (control + 2 held-out teams)";
    assert_eq!(texts(&svg)[0].0, caption);
    let (labels, squares) = legend(&svg, "dot area: share of trials");
    assert_eq!(
        labels,
        [
            "dot area: share of trials",
            "official rank",
            "rank in a trial (6 trials)",
            "dominant rank",
            "x",
            "y"
        ]
    );
    assert_eq!(squares, [FIRST_COLOUR, SECOND_COLOUR]);
}

#[test]
fn each_run_is_a_dot_at_its_official_and_mean_lou_scores_in_its_teams_colour() {
    let svg = svg_of(FigureKind::Scores);
    let texts = texts(&svg);
    // An x tick label is the lower of two equal texts, a y tick label the one further left.
    let x_of = |score: f64| text_at(&texts, &format!("{score:.2}"), |t| t.2).0;
    let y_of = |score: f64| text_at(&texts, &format!("{score:.2}"), |t| -t.1).1;
    let expected: BTreeSet<(i32, i32, String)> = [
        (0.6, 0.3, SECOND_COLOUR),
        (0.8, 0.7, FIRST_COLOUR),
        (0.2, 0.2, FIRST_COLOUR),
    ]
    .into_iter()
    .map(|(official, lou, fill)| (x_of(official), y_of(lou), fill.to_string()))
    .collect();
    let dots: BTreeSet<(i32, i32, String)> = elements(&svg, "circle")
        .iter()
        .filter(|c| number(c, "r") == 5 && number(c, "cx") < (WIDTH - LEGEND_WIDTH) as i32)
        .map(|c| {
            let fill = attribute(c, "fill").to_string();
            (number(c, "cx"), number(c, "cy"), fill)
        })
        .collect();
    let near = |a: &(i32, i32, String), b: &(i32, i32, String)| {
        (a.0 - b.0).abs() <= 1 && (a.1 - b.1).abs() <= 1 && a.2 == b.2
    };
    assert_eq!(dots.len(), expected.len(), "{dots:?}");
    for dot in &expected {
        assert!(dots.iter().any(|d| near(d, dot)), "{dot:?} not in {dots:?}");
    }
    let (labels, squares) = legend(&svg, "mean LOU score");
    assert_eq!(
        labels,
        [
            "mean LOU score",
            "range over seeds",
            "LOU = official",
            "x",
            "y"
        ]
    );
    assert_eq!(squares, [FIRST_COLOUR, SECOND_COLOUR]);
    let caption = "hand · map · official score vs LOU score · 6 trials: 2 seeds × (control + \
                   2 held-out teams)";
    assert_eq!(texts[0].0, caption);
}

#[test]
fn a_teams_colour_is_its_place_in_the_sorted_team_list() {
    let teams = results().teams();
    assert_eq!(teams, ["x", "y"]);
    assert_eq!(team_colour(&teams, "x"), PALETTE[0]);
    assert_eq!(team_colour(&teams, "y"), PALETTE[1]);
    let many: Vec<String> = (0..13).map(|team| format!("t{team:02}")).collect();
    assert_eq!(team_colour(&many, "t12"), PALETTE[0], "the palette cycles");
}

#[test]
fn a_runs_spot_is_its_column_in_rank_figures_and_its_point_in_the_scores_figure() {
    let drawn = svg_figure(&results(), FigureKind::RankSpread, "map").unwrap();
    assert_eq!(
        drawn.svg,
        svg_of(FigureKind::RankSpread),
        "the same drawing as the file"
    );
    let texts = texts(&drawn.svg);
    let runs: Vec<&str> = drawn.spots.iter().map(|spot| spot.run.as_str()).collect();
    assert_eq!(runs, ["r1", "r2", "r3"], "official order");
    for spot in &drawn.spots {
        let SpotArea::Column {
            left,
            top,
            right,
            bottom,
        } = spot.area
        else {
            panic!("a rank figure's spot is a column: {spot:?}");
        };
        let (label_x, label_y) = text_at(&texts, &spot.run, |t| t.2);
        assert!(
            (left + right - 2 * label_x).abs() <= 1,
            "{spot:?} centred on its label"
        );
        assert!(
            top < bottom && bottom <= label_y,
            "{spot:?} above its label"
        );
    }

    let drawn = svg_figure(&results(), FigureKind::Scores, "map").unwrap();
    let centres: BTreeSet<(i32, i32)> = elements(&drawn.svg, "circle")
        .iter()
        .map(|c| (number(c, "cx"), number(c, "cy")))
        .collect();
    assert_eq!(drawn.spots.len(), 3);
    for spot in &drawn.spots {
        let SpotArea::Point { x, y } = spot.area else {
            panic!("a scores figure's spot is a point: {spot:?}");
        };
        assert!(centres.contains(&(x, y)), "{spot:?} on a mark");
    }
    let tau = svg_figure(&results(), FigureKind::TauB, "map").unwrap();
    assert!(tau.spots.is_empty());
}

#[test]
fn significance_bars_stack_kept_reversed_and_lost_up_to_one_with_the_new_pairs_above() {
    let mut results = results();
    // One seed's control at the whole budget: of the official qrels' 10 significant pairs, 6
    // kept, 3 lost, 1 reversed; 2 more significant under the control only.
    results.budget = vec![BudgetRow {
        fraction: 1.0,
        seed: 1,
        measure: "map".into(),
        official: Counts::from_array([Some(6), Some(3), Some(1), Some(2)]),
        ..BudgetRow::default()
    }];
    let svg = svg_figure(&results, FigureKind::Significance, "map")
        .unwrap()
        .svg;
    let rects = elements(&svg, "rect");
    let bar = |fill: &str| {
        let rect = (rects.iter())
            .find(|r| attribute(r, "fill") == fill && number(r, "width") > 12)
            .unwrap_or_else(|| panic!("no bar filled {fill}"));
        let top = number(rect, "y");
        (top, top + number(rect, "height"))
    };
    let (kept, reversed, lost) = (bar("#1F77B4"), bar("#C81414"), bar("#CDCDCD"));
    // Stacked from the axis up: kept, reversed, lost, each touching the next.
    assert!((kept.0 - reversed.1).abs() <= 1 && (reversed.0 - lost.1).abs() <= 1);
    let unit = f64::from(kept.1 - lost.0);
    let share = |(top, bottom): (i32, i32)| f64::from(bottom - top) / unit;
    for (got, expected) in [
        (share(kept), 0.6),
        (share(reversed), 0.1),
        (share(lost), 0.3),
    ] {
        assert!((got - expected).abs() < 0.01, "{got} != {expected}");
    }
    // The new pairs: an open box from 1 up by 2 / 10 of the reference's pairs.
    let new = (rects.iter())
        .find(|r| attribute(r, "fill") == "none" && number(r, "width") > 12)
        .expect("an open box of new pairs");
    assert!((number(new, "y") + number(new, "height") - lost.0).abs() <= 1);
    assert!((f64::from(number(new, "height")) / unit - 0.2).abs() < 0.01);
    let texts: Vec<String> = texts(&svg).into_iter().map(|(text, _, _)| text).collect();
    for wanted in [
        "share of the significant pairs under the official qrels (map; 10 a seed)",
        "+2",
        "hical",
        "reversed (red count)",
        "new (+count)",
    ] {
        assert!(
            texts.iter().any(|text| text == wanted),
            "{wanted:?} in {texts:?}"
        );
    }
    // The reversed pairs' count in red.
    let red: Vec<&String> = (texts.iter().zip(elements(&svg, "text")))
        .filter(|(_, element)| attribute(element, "fill") == "#C81414")
        .map(|(text, _)| text)
        .collect();
    assert_eq!(red, ["1"]);
}

#[test]
fn the_significance_figure_is_drawn_with_a_budget_curve_or_strategies() {
    let measures = ["map".to_string()];
    let has_significance = |has_budget, has_strategies| {
        figure_list(&measures, false, has_budget, has_strategies)
            .iter()
            .any(|(kind, _)| *kind == FigureKind::Significance)
    };
    assert!(!has_significance(false, false));
    assert!(has_significance(true, false));
    assert!(has_significance(true, true));
    assert_eq!(
        figure_stem(FigureKind::Significance, "map"),
        "significance_map"
    );
}
