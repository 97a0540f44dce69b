//! The study's page, `report.html`, opened in a real headless Chromium over the DevTools
//! protocol: its DOM holds every section and every figure of `report.md`, every run of the
//! task has a titled mark in each rank figure, the page requests nothing but itself and its
//! console shows no error. The checks are shown to fail on pages with a figure or a run taken
//! out, or an outside image put in. Without Chromium the tests say so and pass, except under
//! CI (`CI` set), where `.ci/run` installs it.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use serde_json::Value;

#[path = "../support/browser.rs"]
mod browser;
use browser::{Browser, PageLog};

/// What the page must hold, read from the study's other files.
struct Expected {
    /// The headings of `report.md`, inline code marks dropped.
    headings: Vec<String>,
    /// The figure stems `report.md` shows.
    figures: Vec<String>,
    /// Every run of the task (`runs.tsv`).
    runs: BTreeSet<String>,
}

impl Expected {
    /// The headings and figures of a Markdown report, without runs.
    fn of_markdown(path: &Path) -> Self {
        let report = std::fs::read_to_string(path).unwrap();
        let headings = report
            .lines()
            .filter_map(|line| {
                let text = line.trim_start_matches('#');
                (text.len() < line.len()).then(|| text.trim().replace('`', ""))
            })
            .collect();
        let figures = report
            .lines()
            .filter_map(|line| line.split_once("](figures/"))
            .map(|(_, rest)| rest.trim_end_matches(".png)").to_string())
            .collect();
        Self {
            headings,
            figures,
            runs: BTreeSet::new(),
        }
    }

    /// What a study's page must hold: its report's headings and figures, and every run.
    fn of(study: &Path) -> Self {
        let runs_table = std::fs::read_to_string(study.join("runs.tsv")).unwrap();
        let mut lines = runs_table.lines();
        let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
        let run_column = header.iter().position(|name| *name == "run").unwrap();
        let runs = lines
            .map(|line| line.split('\t').nth(run_column).unwrap().to_string())
            .collect();
        Self {
            runs,
            ..Self::of_markdown(&study.join("report.md"))
        }
    }
}

/// The page's headings, and per figure its SVGs and the runs (and titles) of its marks.
const PAGE_STATE: &str = r#"(() => ({
  headings: Array.from(document.querySelectorAll("main h1, main h2, main h3"))
    .map((heading) => heading.textContent),
  figures: Array.from(document.querySelectorAll("main figure")).map((figure) => ({
    id: figure.id,
    svgs: figure.querySelectorAll("svg").length,
    spots: Array.from(figure.querySelectorAll(".spot")).map((spot) => ({
      run: spot.dataset.run,
      title: spot.querySelector("title") ? spot.querySelector("title").textContent : "",
    })),
  })),
}))()"#;

/// Everything wrong with a page: missing sections, figures or runs, requests other than the
/// page itself, console errors.
fn problems(expected: &Expected, state: &Value, log: &PageLog, url: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let headings: Vec<String> = state["headings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|heading| heading.as_str().unwrap().to_string())
        .collect();
    for heading in &expected.headings {
        if !headings.contains(heading) {
            problems.push(format!("section missing: {heading}"));
        }
    }
    let figures = state["figures"].as_array().unwrap();
    for stem in &expected.figures {
        let id = format!("figure-{stem}");
        let Some(figure) = figures.iter().find(|figure| figure["id"] == id.as_str()) else {
            problems.push(format!("figure missing: {stem}"));
            continue;
        };
        if figure["svgs"] != 1 {
            problems.push(format!("figure {stem} holds {} SVGs", figure["svgs"]));
        }
        if stem.starts_with("rank_change_") || stem.starts_with("rank_spread_") {
            problems.extend(run_problems(expected, stem, figure));
        }
    }
    for request in log.requests.iter().filter(|request| *request != url) {
        problems.push(format!("request: {request}"));
    }
    problems.extend(log.errors.iter().map(|error| format!("error: {error}")));
    problems
}

/// The runs of the task without a mark titled with their name in a rank figure.
fn run_problems(expected: &Expected, stem: &str, figure: &Value) -> Vec<String> {
    let spots = figure["spots"].as_array().unwrap();
    expected
        .runs
        .iter()
        .filter(|run| {
            !spots.iter().any(|spot| {
                spot["run"] == run.as_str()
                    && spot["title"].as_str().unwrap().starts_with(run.as_str())
            })
        })
        .map(|run| format!("run {run} missing from {stem}"))
        .collect()
}

/// A browser, or `None` (after saying why) on a machine without Chromium outside CI.
fn browser() -> Option<Browser> {
    let Some(chromium) = browser::chromium() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs Chromium for the page tests: .ci/run installs Debian's chromium"
        );
        // Written to the terminal directly, past the test harness's capture, to be seen.
        let _ = writeln!(
            std::io::stderr(),
            "skipping a browser test: no chromium on the PATH (install Debian's chromium or \
             set REUSESIM_CHROMIUM)"
        );
        return None;
    };
    Some(Browser::start(&chromium))
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.canonicalize().unwrap().display())
}

/// Opens `page` and returns its problems against `expected`.
fn check(browser: &mut Browser, expected: &Expected, page: &Path) -> Vec<String> {
    let url = file_url(page);
    let (tab, log) = browser.open(&url);
    let state = browser.evaluate(&tab, PAGE_STATE);
    problems(expected, &state, &log, &url)
}

#[test]
fn the_study_page_holds_every_section_figure_and_run_and_loads_nothing_else() {
    let Some(mut browser) = browser() else {
        return;
    };
    let study = crate::plot::study();
    let expected = Expected::of(study);
    assert!(expected.figures.len() >= 12 && expected.runs.len() >= 20);
    let problems = check(&mut browser, &expected, &study.join("report.html"));
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn pointing_at_a_run_shows_its_name_team_and_ranks() {
    let Some(mut browser) = browser() else {
        return;
    };
    let study = crate::plot::study();
    let (page, _) = browser.open(&file_url(&study.join("report.html")));
    // The middle of the last run's column in the rank change figure of MAP.
    let target = browser.evaluate(
        &page,
        r##"(() => {
          const spots = document.querySelectorAll("#figure-rank_change_map .spot");
          const spot = spots[spots.length - 1];
          spot.scrollIntoView({ block: "center" });
          const box = spot.getBoundingClientRect();
          return { run: spot.dataset.run, team: spot.dataset.team,
                   x: box.left + box.width / 2, y: box.top + box.height / 2 };
        })()"##,
    );
    let at = |key: &str| target[key].as_f64().unwrap();
    browser.move_mouse(&page, at("x"), at("y"));
    let tip = browser.evaluate(
        &page,
        r#"(() => { const tip = document.getElementById("tip");
                    return tip.hidden ? null : tip.textContent; })()"#,
    );
    let tip = tip
        .as_str()
        .unwrap_or_else(|| panic!("no tip over {target}"));
    let (run, team) = (
        target["run"].as_str().unwrap(),
        target["team"].as_str().unwrap(),
    );
    assert!(
        tip.starts_with(&format!("{run} · team {team} · official rank ")),
        "{tip}"
    );
    assert!(tip.contains("ranks over all trials"), "{tip}");
}

#[test]
fn a_focused_run_mark_shows_its_name_and_a_picked_team_is_highlighted_in_every_figure() {
    let Some(mut browser) = browser() else {
        return;
    };
    let study = crate::plot::study();
    let (page, _) = browser.open(&file_url(&study.join("report.html")));
    let shown = browser.evaluate(
        &page,
        r##"(() => {
          const spot = document.querySelector("#figure-rank_spread_map .spot");
          spot.focus();
          const tip = document.getElementById("tip");
          return { run: spot.dataset.run, hidden: tip.hidden, text: tip.textContent };
        })()"##,
    );
    assert_eq!(shown["hidden"], false);
    let run = shown["run"].as_str().unwrap();
    assert!(shown["text"].as_str().unwrap().starts_with(run), "{shown}");
    let picked = browser.evaluate(
        &page,
        r#"(() => {
          const picker = document.getElementById("team-pick");
          picker.value = picker.options[1].value;
          picker.dispatchEvent(new Event("change"));
          const team = picker.value;
          const figures = Array.from(document.querySelectorAll("figure"))
            .filter((figure) => figure.querySelector(".spot"));
          return {
            figures: figures.length,
            highlighted: figures.filter((figure) =>
              figure.querySelector(`.spot.picked[data-team="${team}"]`)).length,
            wrong: document.querySelectorAll(`.spot.picked:not([data-team="${team}"])`).length,
          };
        })()"#,
    );
    assert!(picked["figures"].as_u64().unwrap() >= 9, "{picked}");
    assert_eq!(picked["highlighted"], picked["figures"], "{picked}");
    assert_eq!(picked["wrong"], 0, "{picked}");
}

#[test]
fn a_table_sorts_by_the_clicked_column_up_then_down() {
    let Some(mut browser) = browser() else {
        return;
    };
    let study = crate::plot::study();
    let (page, _) = browser.open(&file_url(&study.join("report.html")));
    // The classic leave-out-uniques table: tau_b in the second column.
    let sorted = browser.evaluate(
        &page,
        r#"(() => {
          const heading = Array.from(document.querySelectorAll("h2"))
            .find((h) => h.textContent.startsWith("Classic leave-out-uniques"));
          let table = heading.nextElementSibling;
          while (table.tagName !== "TABLE") table = table.nextElementSibling;
          const column = () => Array.from(table.tBodies[0].rows)
            .map((row) => parseFloat(row.cells[1].textContent));
          const button = table.querySelectorAll("th button")[1];
          button.click();
          const up = column();
          button.click();
          return { up, down: column() };
        })()"#,
    );
    let numbers = |key: &str| -> Vec<f64> {
        sorted[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|value| value.as_f64().unwrap())
            .collect()
    };
    let (up, down) = (numbers("up"), numbers("down"));
    assert!(up.len() >= 3, "{sorted}");
    assert!(up.windows(2).all(|pair| pair[0] <= pair[1]), "{sorted}");
    assert!(down.windows(2).all(|pair| pair[0] >= pair[1]), "{sorted}");
    assert!(up.first() < up.last(), "{sorted}");
}

#[test]
fn the_checks_fail_on_a_page_missing_a_figure_or_a_run_or_loading_an_outside_image() {
    let Some(mut browser) = browser() else {
        return;
    };
    let study = crate::plot::study();
    let expected = Expected::of(study);
    let page = std::fs::read_to_string(study.join("report.html")).unwrap();
    let dir = tempfile::tempdir().unwrap();

    // The first run mark of the first figure, and the whole rank_spread figure of map, gone;
    // an image from outside put in (the page's policy blocks it: the console says so).
    let first_spot = page.find("<rect class=\"spot\"").unwrap();
    let spot_end = first_spot + page[first_spot..].find("</rect>").unwrap() + "</rect>".len();
    let spot = &page[first_spot..spot_end];
    let run = spot
        .split("data-run=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let mut tampered = page.replacen(spot, "", 1);
    let figure_start = tampered
        .find("<figure id=\"figure-rank_spread_map\"")
        .unwrap();
    let figure_end =
        figure_start + tampered[figure_start..].find("</figure>").unwrap() + "</figure>".len();
    tampered.replace_range(figure_start..figure_end, "");
    let outside = "<img src=\"http://127.0.0.1:9/pixel.png\" alt=\"\">";
    let tampered = tampered.replacen("<main>", &format!("<main>{outside}"), 1);
    let path = dir.path().join("tampered.html");
    std::fs::write(&path, &tampered).unwrap();
    let problems = check(&mut browser, &expected, &path);
    let has = |text: &str| problems.iter().any(|problem| problem.contains(text));
    assert!(has("figure missing: rank_spread_map"), "{problems:#?}");
    assert!(
        has(&format!("run {run} missing from rank_change_")),
        "{problems:#?}"
    );
    assert!(has("error: "), "{problems:#?}");

    // Without the policy, the request itself is seen.
    let policy_start = tampered
        .find("<meta http-equiv=\"Content-Security-Policy\"")
        .unwrap();
    let policy_end = policy_start + tampered[policy_start..].find('>').unwrap() + 1;
    let mut unguarded = tampered.clone();
    unguarded.replace_range(policy_start..policy_end, "");
    let path = dir.path().join("unguarded.html");
    std::fs::write(&path, &unguarded).unwrap();
    let problems = check(&mut browser, &expected, &path);
    assert!(
        problems
            .iter()
            .any(|problem| problem == "request: http://127.0.0.1:9/pixel.png"),
        "{problems:#?}"
    );
}

#[test]
fn the_audit_page_leads_with_the_verdict_and_holds_every_section_of_the_markdown() {
    let Some(mut browser) = browser() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let task = crate::util::write_tiny_text_task(dir.path());
    let audit = |format: &str| {
        crate::util::stdout_of([
            "audit",
            "--task",
            task.to_str().unwrap(),
            "--run",
            dir.path().join("runs/t1r0").to_str().unwrap(),
            "--study-seeds",
            "0",
            "--format",
            format,
        ])
    };
    std::fs::write(dir.path().join("report.md"), audit("md")).unwrap();
    let page = dir.path().join("audit.html");
    std::fs::write(&page, audit("html")).unwrap();
    let expected = Expected {
        figures: Vec::new(),
        runs: BTreeSet::new(),
        ..Expected::of_markdown(&dir.path().join("report.md"))
    };
    assert!(expected.headings.len() >= 6);
    let url = file_url(&page);
    let (tab, log) = browser.open(&url);
    let state = browser.evaluate(&tab, PAGE_STATE);
    let problems = problems(&expected, &state, &log, &url);
    assert!(problems.is_empty(), "{problems:#?}");
    let first = browser.evaluate(
        &tab,
        "document.querySelector('main').firstElementChild.textContent",
    );
    assert!(first.as_str().unwrap().starts_with("Verdict: "), "{first}");
}
