//! Figures: `simulate` draws every figure of the embedded default task into `figures/`, and
//! `reusesim plot` redraws them from the files alone. PNGs must decode at the documented size
//! and hold a drawing; SVGs must parse as XML and carry the expected series and labels.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::util::{run, stdout_of};

const MEASURES: [&str; 3] = ["P_10", "map", "ndcg_cut_10"];
const KINDS: [&str; 5] = ["rank_change", "rank_spread", "tau_b", "scores", "truth"];
const WIDTH: u32 = 1200;
const HEIGHT: u32 = 700;
const SEEDS: usize = 2;

/// One small study of the embedded default task (2 seeds, 2,000 iterations), shared by the
/// tests of this module because it takes seconds to run. The folder lives until the test
/// process ends.
pub fn study() -> &'static Path {
    static STUDY: OnceLock<PathBuf> = OnceLock::new();
    STUDY.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let out = dir.join("study");
        stdout_of([
            "simulate",
            "--seeds",
            &SEEDS.to_string(),
            "--iterations",
            "2000",
            "--out",
            out.to_str().unwrap(),
        ]);
        out
    })
}

fn expected_files(extensions: &[&str]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for kind in KINDS {
        for measure in MEASURES {
            for extension in extensions {
                names.insert(format!("{kind}_{measure}.{extension}"));
            }
        }
    }
    names
}

fn files_in(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// The default task's run tags and teams, from its teams.tsv.
fn runs_and_teams() -> (Vec<String>, BTreeSet<String>) {
    let teams_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("runs/synth-passage/teams.tsv");
    let text = std::fs::read_to_string(teams_file).unwrap();
    let mut runs = Vec::new();
    let mut teams = BTreeSet::new();
    for line in text.lines().filter(|line| !line.is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        runs.push(fields[0].to_string());
        teams.insert(fields[1].to_string());
    }
    (runs, teams)
}

/// Decodes a PNG and returns its size and how many distinct colours it uses.
fn decode_png(path: &Path) -> (u32, u32, usize) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb, "{}", path.display());
    let colours: BTreeSet<&[u8]> = pixels[..info.buffer_size()].chunks(3).collect();
    (info.width, info.height, colours.len())
}

/// What an SVG holds: its texts, and how many elements of each name.
struct SvgContent {
    texts: Vec<String>,
    elements: std::collections::BTreeMap<String, usize>,
    width: Option<String>,
}

fn parse_svg(path: &Path) -> SvgContent {
    use quick_xml::events::Event;
    let text = std::fs::read_to_string(path).unwrap();
    let mut reader = quick_xml::Reader::from_str(&text);
    let mut content = SvgContent {
        texts: Vec::new(),
        elements: Default::default(),
        width: None,
    };
    loop {
        match reader.read_event() {
            Ok(Event::Eof) => break,
            Ok(Event::Start(element)) | Ok(Event::Empty(element)) => {
                let name = String::from_utf8(element.name().as_ref().to_vec()).unwrap();
                if name == "svg" {
                    content.width = element
                        .try_get_attribute("width")
                        .unwrap()
                        .map(|a| a.unescape_value().unwrap().into_owned());
                }
                *content.elements.entry(name).or_default() += 1;
            }
            Ok(Event::Text(text)) => {
                let text = text.unescape().unwrap().trim().to_string();
                if !text.is_empty() {
                    content.texts.push(text);
                }
            }
            Ok(_) => {}
            Err(error) => panic!("{} is not XML: {error}", path.display()),
        }
    }
    content
}

fn assert_has_text(content: &SvgContent, path: &Path, wanted: &str) {
    assert!(
        content.texts.iter().any(|text| text.contains(wanted)),
        "{} has no text containing {wanted:?}; texts: {:?}",
        path.display(),
        content.texts
    );
}

#[test]
fn simulate_draws_every_figure_as_png_and_svg() {
    let figures = study().join("figures");
    assert_eq!(files_in(&figures), expected_files(&["png", "svg"]));
    for name in expected_files(&["png"]) {
        let (width, height, colours) = decode_png(&figures.join(&name));
        assert_eq!((width, height), (WIDTH, HEIGHT), "{name}");
        // White background, black text and at least a few team colours with antialiasing.
        assert!(colours > 20, "{name} looks blank: {colours} colours");
    }
    let report = std::fs::read_to_string(study().join("report.md")).unwrap();
    for measure in MEASURES {
        assert!(report.contains(&format!("(figures/rank_change_{measure}.png)")));
    }
}

#[test]
fn svgs_carry_the_series_and_labels() {
    let figures = study().join("figures");
    let (runs, teams) = runs_and_teams();
    let trials = SEEDS * (teams.len() + 1);
    for measure in MEASURES {
        for kind in KINDS {
            let path = figures.join(format!("{kind}_{measure}.svg"));
            let content = parse_svg(&path);
            assert_eq!(content.width.as_deref(), Some("1200"), "{}", path.display());
            // The caption names task, measure and number of trials.
            let caption = content
                .texts
                .iter()
                .find(|text| text.starts_with("synth-passage"))
                .unwrap_or_else(|| panic!("{} has no caption", path.display()));
            assert!(caption.contains(measure), "{caption}");
            assert!(caption.contains(&format!("{trials} trials")), "{caption}");
        }

        let path = figures.join(format!("rank_change_{measure}.svg"));
        let content = parse_svg(&path);
        for tag in &runs {
            assert_has_text(&content, &path, tag);
        }
        for team in &teams {
            assert_has_text(&content, &path, team);
        }
        for title in ["runs in official order", "rank (1 = best)", "official rank"] {
            assert_has_text(&content, &path, title);
        }
        // One dot per run and seed (plus the legend's).
        let circles = content.elements.get("circle").copied().unwrap_or(0);
        assert!(circles > runs.len() * SEEDS, "{circles} circles");

        let path = figures.join(format!("rank_spread_{measure}.svg"));
        let content = parse_svg(&path);
        for tag in &runs {
            assert_has_text(&content, &path, tag);
        }
        for title in ["runs in official order", "dominant rank", "official rank"] {
            assert_has_text(&content, &path, title);
        }
        // Per run at least one rank dot and the dominant rank's ring.
        let circles = content.elements.get("circle").copied().unwrap_or(0);
        assert!(circles >= 2 * runs.len(), "{circles} circles");

        let path = figures.join(format!("tau_b_{measure}.svg"));
        let content = parse_svg(&path);
        for label in ["control", "tau_b = 0.9", "mean over seeds"] {
            assert_has_text(&content, &path, label);
        }
        for team in &teams {
            assert_has_text(&content, &path, team);
        }
        let circles = content.elements.get("circle").copied().unwrap_or(0);
        assert!(circles >= trials, "{circles} circles for {trials} trials");

        let path = figures.join(format!("scores_{measure}.svg"));
        let content = parse_svg(&path);
        assert_has_text(&content, &path, &format!("official {measure}"));
        assert_has_text(&content, &path, &format!("LOU {measure}"));
        assert_has_text(&content, &path, "LOU = official");

        let path = figures.join(format!("truth_{measure}.svg"));
        let content = parse_svg(&path);
        assert_has_text(&content, &path, "rank under the complete truth");
        assert_has_text(&content, &path, "tau_b vs truth");
    }
}

#[test]
fn plot_redraws_svg_only_into_another_folder() {
    let other = tempfile::tempdir().unwrap();
    let out = other.path().join("svg");
    stdout_of([
        "plot",
        study().to_str().unwrap(),
        "--format",
        "svg",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(files_in(&out), expected_files(&["svg"]));
    // Drawn from the files alone, the figures equal those simulate drew from memory.
    for name in expected_files(&["svg"]) {
        assert_eq!(
            std::fs::read_to_string(out.join(&name)).unwrap(),
            std::fs::read_to_string(study().join("figures").join(&name)).unwrap(),
            "{name} differs"
        );
    }
}

#[test]
fn plot_html_writes_the_page_simulate_wrote_from_the_results_folder_alone() {
    let other = tempfile::tempdir().unwrap();
    let out = other.path().join("page");
    stdout_of([
        "plot",
        study().to_str().unwrap(),
        "--format",
        "html",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(files_in(&out), BTreeSet::from(["report.html".to_string()]));
    // The report's content read back from summary.json and the tables is what simulate had in
    // memory, so the pages are the same bytes.
    assert!(
        std::fs::read(out.join("report.html")).unwrap()
            == std::fs::read(study().join("report.html")).unwrap(),
        "plot --format html and simulate wrote different pages"
    );
}

#[test]
fn plot_html_names_the_line_of_a_malformed_summary() {
    let copy = tempfile::tempdir().unwrap();
    for name in [
        "summary.json",
        "runs.tsv",
        "lou.tsv",
        "trials.tsv",
        "ranks.tsv",
    ] {
        std::fs::copy(study().join(name), copy.path().join(name)).unwrap();
    }
    let summary = copy.path().join("summary.json");
    let text = std::fs::read_to_string(&summary).unwrap();
    std::fs::write(
        &summary,
        text.replacen("\"schedule\": \"bmi\"", "\"schedule\": \"weekly\"", 1),
    )
    .unwrap();
    let line = text
        .lines()
        .position(|line| line.contains("\"schedule\""))
        .unwrap()
        + 1;
    let output = run(["plot", copy.path().to_str().unwrap(), "--format", "html"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("summary.json:{line}:")),
        "{stderr}"
    );
    assert!(stderr.contains("\"weekly\""), "{stderr}");
    assert!(!copy.path().join("report.html").exists());
}

#[test]
fn plot_names_the_file_and_line_of_a_malformed_result() {
    let copy = tempfile::tempdir().unwrap();
    for name in ["summary.json", "runs.tsv", "lou.tsv", "trials.tsv"] {
        std::fs::copy(study().join(name), copy.path().join(name)).unwrap();
    }
    let lou = copy.path().join("lou.tsv");
    let text = std::fs::read_to_string(&lou).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // Line 3, column 5 (score): not a number.
    let mut fields: Vec<&str> = lines[2].split('\t').collect();
    fields[4] = "high";
    lines[2] = fields.join("\t");
    std::fs::write(&lou, lines.join("\n") + "\n").unwrap();
    let output = run(["plot", copy.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("lou.tsv:3:"), "{stderr}");
    assert!(stderr.contains("\"high\""), "{stderr}");
    assert!(!copy.path().join("figures").exists());

    let output = run(["plot", copy.path().join("missing").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("summary.json"), "{stderr}");
}

/// A results folder whose `trials.tsv` reusesim 0.2.0 wrote (tests/golden/study-0.2.0/, the
/// golden table of that release: no significance columns) is refused by `plot`, in figures and
/// as a page, with the version that wrote it and what to run.
#[test]
fn plot_refuses_the_tables_of_0_2_0_saying_which_version_wrote_them_and_what_to_run() {
    let copy = tempfile::tempdir().unwrap();
    for name in ["summary.json", "runs.tsv", "lou.tsv", "ranks.tsv"] {
        std::fs::copy(study().join(name), copy.path().join(name)).unwrap();
    }
    let old = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/study-0.2.0/trials.tsv");
    std::fs::copy(old, copy.path().join("trials.tsv")).unwrap();
    for format in ["png", "html"] {
        let output = run(["plot", copy.path().to_str().unwrap(), "--format", format]);
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("trials.tsv:1: expected a header with a \"significant\" column, found the tables of reusesim 0.2.0 as released or earlier (summary.json names reusesim "), "{stderr}");
        assert!(
            stderr.contains("plot it with that version, or run the study again with this one"),
            "{stderr}"
        );
    }
    assert!(!copy.path().join("figures").exists());
    assert!(!copy.path().join("report.html").exists());
}

/// The result tables, as written before they were read and written with the `csv` crate.
const GOLDEN_TABLES: [&str; 5] = [
    "runs.tsv",
    "lou.tsv",
    "trials.tsv",
    "heldout.tsv",
    "ranks.tsv",
];

/// The study's tables equal the golden files byte for byte: the columns, the number formats
/// and `NA` stay what the committed figures and users' scripts read. `REUSESIM_BLESS=1`
/// rewrites the golden files instead (review the diff).
#[test]
fn the_study_tables_equal_the_golden_files() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/study");
    for name in GOLDEN_TABLES {
        let written = std::fs::read(study().join(name)).unwrap();
        if std::env::var_os("REUSESIM_BLESS").is_some() {
            std::fs::write(golden.join(name), &written).unwrap();
            continue;
        }
        let expected = std::fs::read(golden.join(name)).unwrap();
        assert!(
            written == expected,
            "{name} differs from tests/golden/study/{name}"
        );
    }
}
