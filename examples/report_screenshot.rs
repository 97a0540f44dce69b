//! A screenshot of a study's `report.html` in headless Chromium, with one run's mark focused
//! (its tip showing its name, team and ranks) and its team highlighted:
//!
//! ```sh
//! cargo run --release --example report_screenshot -- RESULTS/report.html FIGURE RUN OUT.png
//! ```
//!
//! FIGURE is a figure's stem (`rank_spread_map`), RUN a run tag. Chromium is
//! `$REUSESIM_CHROMIUM` or `chromium` on the `PATH`.

#[path = "../tests/support/browser.rs"]
mod browser;

use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [page, figure, run, out] = args.as_slice() else {
        eprintln!("usage: report_screenshot REPORT_HTML FIGURE RUN OUT_PNG");
        std::process::exit(2);
    };
    let chromium = browser::chromium().unwrap_or_else(|| {
        eprintln!("report_screenshot: no chromium on the PATH (or set REUSESIM_CHROMIUM)");
        std::process::exit(2);
    });
    let page = PathBuf::from(page).canonicalize().unwrap_or_else(|error| {
        eprintln!("report_screenshot: {page}: {error}");
        std::process::exit(2);
    });
    let mut chrome = browser::Browser::start(&chromium);
    let (tab, log) = chrome.open(&format!("file://{}", page.display()));
    assert!(log.errors.is_empty(), "the page reported {:?}", log.errors);
    let focus = format!(
        r#"(() => {{
          const figure = document.getElementById({figure:?});
          const spot = figure && figure.querySelector(`.spot[data-run=${{JSON.stringify({run:?})}}]`);
          if (!spot) return false;
          const picker = document.getElementById("team-pick");
          picker.value = spot.dataset.team;
          picker.dispatchEvent(new Event("change"));
          figure.scrollIntoView({{ block: "center" }});
          spot.focus({{ preventScroll: true }});
          return true;
        }})()"#,
        figure = format!("figure-{figure}"),
    );
    if chrome.evaluate(&tab, &focus) != serde_json::Value::Bool(true) {
        eprintln!("report_screenshot: no mark of {run} in figure {figure}");
        std::process::exit(2);
    }
    std::fs::write(out, chrome.screenshot(&tab)).unwrap_or_else(|error| {
        eprintln!("report_screenshot: {out}: {error}");
        std::process::exit(2);
    });
}
