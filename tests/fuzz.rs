//! Fuzzing every reader of user files: runs, qrels, topics (TSV and TREC XML), team
//! files, `task.toml`, confusion tables (`synth --label-confusion`), corpora (TSV, JSONL, a
//! folder of files), the result files
//! `reusesim plot` reads (`summary.json`, `runs.tsv`, `lou.tsv`, `trials.tsv`, `ranks.tsv`;
//! with and without drawing the figures) and the `runs.tsv` that `reusesim audit --results`
//! reads alone.
//!
//! Each reader gets arbitrary bytes, soups of the tokens its formats are made of, and valid
//! files changed by a few mutations (bit flips, inserted tokens, deleted, repeated or swapped
//! lines, replaced fields, truncation), plain, gzip-compressed, or compressed and then
//! corrupted. The property: the reader never panics, and every error names the file (and a
//! line that exists).
//!
//! The suite runs [`SUITE_CASES`] cases per reader from a fixed seed. The long run
//! (`cargo test --release --test fuzz -- --ignored`) runs `REUSESIM_FUZZ_CASES` cases per reader
//! (default [`LONG_CASES`]) from the seed `REUSESIM_FUZZ_SEED` (default 12), so a failure
//! found with another seed can be replayed.

use std::io::Write;
use std::path::Path;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use reusesim::report::plots::FigureFormat;
use reusesim::sim::analysis::files::read_table;
use reusesim::sim::analysis::{RunRow, StudyResults};
use reusesim::{io, Error, Result};

/// Cases per reader in the normal suite.
const SUITE_CASES: u32 = 5_000;
/// Cases per reader in the long run when `REUSESIM_FUZZ_CASES` is unset (CI runs the long run
/// too, with `--include-ignored`, so this stays moderate).
const LONG_CASES: u32 = 20_000;
/// The seed of the long run when `REUSESIM_FUZZ_SEED` is unset.
const LONG_SEED: u64 = 12;

/// A reader under test: the file it is given and valid contents for it to start from.
struct Target {
    /// The name of the fuzzed file, inside the folder given to `read`.
    file: &'static str,
    /// Valid contents of the fuzzed file.
    seeds: &'static [&'static str],
    /// Valid files written beside it first (the other files of a results folder).
    beside: &'static [(&'static str, &'static str)],
    /// Whether the reader takes gzip-compressed files.
    is_gzip_read: bool,
    /// How many readings one case costs: the target runs `cases / cost` cases.
    cost: u32,
    /// Reads the folder (or the one file in it).
    read: fn(&Path) -> Result<()>,
}

// ---- The readers and their valid inputs -------------------------------------------------

const RUN: Target = Target {
    file: "run.txt",
    seeds: &[
        "1 Q0 d1 1 2.5 tagA\n1 Q0 d2 2 1.5 tagA\n2 Q0 d3 1 -0.25 tagA\n10 Q0 d1 1 7 tagA\n",
        "q\tQ0\tdoc-1\t1\t1e3\trun\r\nq\tQ0\tdoc-2\t2\t1e3\trun\r\n\r\nr Q0 x 9 0 run",
    ],
    beside: &[],
    is_gzip_read: true,
    cost: 1,
    read: |dir| {
        io::run::read_run(&dir.join("run.txt"))
            .map(drop)
            .map_err(Into::into)
    },
};

const QRELS: Target = Target {
    file: "qrels.txt",
    seeds: &[
        "1 0 d1 1\n1 0 d2 0\n2 Q0 d3 2\n3 0.5 d4 -1\n",
        "q1\t0\tdoc-a\t3\r\n\nq1  0  doc-b  0\nq2 iter doc-a 1",
    ],
    beside: &[],
    is_gzip_read: true,
    cost: 1,
    read: |dir| {
        io::qrels::read_qrels(&dir.join("qrels.txt"))
            .map(drop)
            .map_err(Into::into)
    },
};

const TOPICS_TSV: Target = Target {
    file: "topics.tsv",
    seeds: &[
        "1\tcoronavirus origin\n2\tweather &amp; virus\n\n3\tb\u{e9}b\u{e9} \u{1f980}\n",
        "q1\ttext\twith a second tab\r\nq2\t\n",
    ],
    beside: &[],
    is_gzip_read: true,
    cost: 1,
    read: read_topics,
};

const TOPICS_XML: Target = Target {
    file: "topics.tsv",
    seeds: &[
        "<topics>\n <topic number=\"1\">\n  <query>coronavirus origin</query>\n  \
         <question>what?</question>\n </topic>\n <topic number=\"2\"><query>a &amp; b</query>\
         </topic>\n</topics>\n",
        "<?xml version=\"1.0\"?>\n<topics><topic number='7' type=\"x\"><query>one</query>\
         <query>two &#x41;</query><narrative><![CDATA[<q>]]></narrative></topic></topics>",
    ],
    beside: &[],
    is_gzip_read: true,
    cost: 1,
    read: read_topics,
};

fn read_topics(dir: &Path) -> Result<()> {
    io::topics::read_topics(&dir.join("topics.tsv"))
        .map(drop)
        .map_err(Into::into)
}

const TEAMS: Target = Target {
    file: "teams.tsv",
    seeds: &[
        "r1\tA\nr2\tA\tno\nr3\tB\tyes\n# a comment\n\nr4\tC\tY\n",
        "run.x\tteam one\t0\r\nrun.y\tteam.two\ttrue",
    ],
    beside: &[],
    is_gzip_read: true,
    cost: 1,
    read: |dir| {
        io::teams::read_teams(&dir.join("teams.tsv"))
            .map(drop)
            .map_err(Into::into)
    },
};

const TASK: Target = Target {
    file: "task.toml",
    seeds: &[
        "name = \"synth-passage\"\nruns = \"runs\"\nteams = \"teams.tsv\"\n\
         qrels = \"../../qrels/synth-passage.qrels\"\ntopics = \"topics.tsv\"\n\
         corpus = \"corpus.tsv.gz\"\nrelevance_level = 1\npool_depth = 10\n\
         truth = \"../../qrels/synth-passage.truth.qrels\"\nlabels = \"labels.qrels\"\n",
        "# a task without runs\nname = 'covid'\nqrels = \"q\"\npool_depth = \"auto\"\n\
         relevance_level = 2\n",
    ],
    beside: &[],
    is_gzip_read: true,
    cost: 1,
    read: |dir| {
        io::task::TaskManifest::read(&dir.join("task.toml"))
            .map(drop)
            .map_err(Into::into)
    },
};

const CONFUSION: Target = Target {
    file: "confusion.tsv",
    seeds: &[
        "# UMBRELA\n11293\t4108\t1522\t353\n965\t2781\t2056\t802\n\n200 1265 2356 1344\n\
         194\t250\t790\t1195\n",
        "0.5 0.5 0 0\r\n0 1 0 0\r\n0 0 1e-3 0\r\n0.25 0.25 0.25 0.25",
    ],
    beside: &[],
    is_gzip_read: true,
    cost: 1,
    read: |dir| {
        io::confusion::read_confusion(&dir.join("confusion.tsv"))
            .map(drop)
            .map_err(Into::into)
    },
};

const CORPUS: Target = Target {
    file: "corpus.tsv",
    seeds: &[
        "d1\tplain text\r\nd2\tfirst\tsecond\n\nD3\thttp://example.com/x\tThe Title\tThe body.\n\
         d4\ta\tb\tc\td\nd5\t\n",
        "doc-\u{e9}\tcaf\u{e9} \u{1f980}\ndoc-2\ttext",
    ],
    beside: &[],
    is_gzip_read: true,
    cost: 1,
    read: |dir| read_corpus(&dir.join("corpus.tsv")),
};

const CORPUS_JSONL: Target = Target {
    file: "corpus.jsonl",
    seeds: &[
        "{\"docid\": \"msmarco_doc_00_0\", \"url\": \"http://x\", \"title\": \"T\", \
         \"headings\": \"H1\\nH2\", \"body\": \"The body.\"}\n\n\
         {\"pid\": \"p_1\", \"passage\": \"caf\u{e9} \u{1f980}\", \"docid\": \"d\", \
         \"spans\": \"(0,5)\"}\r\n{\"_id\": 7, \"title\": null, \"text\": \"\\u00e9\\t\"}\n",
        "{\"doc_id\":\"a\",\"text\":\"x\"}\n{\"id\":\"b\",\"contents\":\"y\"}",
    ],
    beside: &[],
    is_gzip_read: true,
    cost: 1,
    read: |dir| read_corpus(&dir.join("corpus.jsonl")),
};

/// A corpus folder: one fuzzed JSONL file between a valid TSV file and a valid JSONL file,
/// read in name order.
const CORPUS_FOLDER: Target = Target {
    file: "b.jsonl",
    seeds: CORPUS_JSONL.seeds,
    beside: &[
        ("a.tsv", "d1\tone\n"),
        ("c.jsonl", "{\"id\": \"d9\", \"text\": \"z\"}\n"),
    ],
    is_gzip_read: true,
    cost: 1,
    read: read_corpus,
};

/// Reads every document of the corpus at `path` (a file or a folder), in the default layout.
fn read_corpus(path: &Path) -> Result<()> {
    let layout = io::corpus::CorpusLayout::default();
    io::corpus::for_each_document(path, &layout, |_, _, _| Ok(()))
}

const SUMMARY_JSON: &str = r#"{
  "task": "synth-passage",
  "settings": {"seeds": [1, 2], "held_out_teams": ["a", "b"], "measures": ["map", "P_10"],
               "features": "text", "budget": null, "relevance_level": 1},
  "measures": {"map": {"lou": {"tau_b": {"mean": 0.9, "min": 0.8, "max": 1.0}}}},
  "elapsed_seconds": 1.5
}
"#;
const RUNS_TSV: &str = "run\tteam\tmeasure\tofficial_score\tofficial_rank\tlou_score_mean\t\
    lou_score_min\tlou_score_max\tlou_rank_min\tlou_rank_mean\tlou_rank_max\tdominant_rank\t\
    dominant_rank_frequency\ttrials_dominant_rank\ttrials_dominant_rank_share\ttruth_score\n\
    r1\ta\tmap\t0.5\t1\t0.4\t0.4\t0.4\t1\t1\t1\t1\t1\t1\t0.75\tNA\n\
    r2\tb\tmap\t0.25\t2\t0.3\t0.2\t0.35\t1\t1.5\t2\t2\t1\t2\t0.5\t0.3\n";
const LOU_TSV: &str = "seed\trun\tteam\tmeasure\tscore\trank\n\
    1\tr1\ta\tmap\t0.4\t1\n2\tr2\tb\tmap\t0.3\t1.5\n";
const TRIALS_TSV: &str = "seed\theld_out\tmeasure\ttau_b\ttau_ap\tpaired_tau_b\tpaired_tau_ap\t\
    overlap\trecall\tcarried\toverlap_found\trecall_found\twithheld\tsignificant\t\
    official_kept\tofficial_lost\tofficial_reversed\tofficial_new\t\
    paired_kept\tpaired_lost\tpaired_reversed\tpaired_new\t\
    held_out_kept\theld_out_lost\theld_out_reversed\theld_out_new\t\
    truth_kept\ttruth_lost\ttruth_reversed\ttruth_new\n\
    1\tcontrol\tmap\tNA\tNA\tNA\tNA\t1\t1\t2\t1\t1\t0\t3\t3\t0\t0\t0\t\
    NA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\n\
    1\ta\tmap\t0.5\t0.5\t1\t0.9\t1\t1\t2\t1\t1\t3\t2\t2\t1\t0\t0\t\
    2\t0\t0\t0\t1\t0\t0\t0\tNA\tNA\tNA\tNA\n\
    2\tb\tP_10\t-1\t0\t-0.5\tNA\t0.9\t0.75\t2\t0.8\t0.7\t0\t0\t0\t0\t0\t0\t\
    0\t0\t0\t0\t0\t0\t0\t0\tNA\tNA\tNA\tNA\n";
const RANKS_TSV: &str = "seed\ttrial\trun\tteam\tmeasure\tscore\trank\n\
    1\tcontrol\tr1\ta\tmap\t0.5\t1\n1\tcontrol\tr2\tb\tmap\t0.25\t2\n\
    1\ta\tr1\ta\tmap\t0.4\t1.5\n2\tb\tr2\tb\tmap\t0.3\t1.5\n";
/// `reusesim audit --results DIR` reads the study's `runs.tsv` alone.
const AUDIT_RUNS: Target = Target {
    file: "runs.tsv",
    seeds: &[RUNS_TSV],
    beside: &[],
    is_gzip_read: false,
    cost: 1,
    read: |dir| read_table::<RunRow>(dir).map(drop),
};
/// A valid results folder.
const RESULTS: &[(&str, &str)] = &[
    ("summary.json", SUMMARY_JSON),
    ("runs.tsv", RUNS_TSV),
    ("lou.tsv", LOU_TSV),
    ("trials.tsv", TRIALS_TSV),
    ("ranks.tsv", RANKS_TSV),
];

/// One file of a results folder, fuzzed while the others stay valid, read by `read` at a
/// relative cost of `cost` (the number of cases is divided by it).
const fn results_file(
    file: &'static str,
    seeds: &'static [&'static str],
    read: fn(&Path) -> Result<()>,
    cost: u32,
) -> Target {
    Target {
        file,
        seeds,
        beside: RESULTS,
        is_gzip_read: false,
        cost,
        read,
    }
}

/// What `reusesim plot` reads; a folder read without an error holds only values within their
/// domains, which the figures' axes rely on.
fn read_results(dir: &Path) -> Result<()> {
    assert_within_domains(&StudyResults::read(dir)?);
    Ok(())
}

/// Scores >= 0, ranks between 1 and the number of runs of their measure in `runs.tsv`,
/// correlations between -1 and 1, shares and fractions between 0 and 1.
fn assert_within_domains(results: &StudyResults) {
    let runs_of = |measure: &str| results.runs.iter().filter(|r| r.measure == measure).count();
    let score = |value: f64, what: &str| {
        assert!(value.is_finite() && value >= 0.0, "{what}: score {value}");
    };
    let rank = |value: f64, measure: &str, what: &str| {
        let runs = runs_of(measure) as f64;
        assert!(
            (1.0..=runs).contains(&value),
            "{what}: rank {value} of {runs}"
        );
    };
    let fraction = |value: f64, what: &str| {
        assert!((0.0..=1.0).contains(&value), "{what}: fraction {value}");
    };
    let tau = |value: Option<f64>, what: &str| {
        assert!(
            value.is_none_or(|tau| (-1.0..=1.0).contains(&tau)),
            "{what}: correlation {value:?}"
        );
    };
    for row in &results.runs {
        let what = format!("runs.tsv {}", row.run);
        let scores = [row.official_score, row.lou_score.min, row.lou_score.mean];
        scores
            .into_iter()
            .chain([row.lou_score.max])
            .chain(row.truth_score)
            .for_each(|value| score(value, &what));
        for value in [row.official_rank, row.lou_rank.min, row.lou_rank.max] {
            rank(value, &row.measure, &what);
        }
        rank(row.dominant_rank, &row.measure, &what);
        rank(row.trials_dominant_rank, &row.measure, &what);
        fraction(row.trials_dominant_rank_share, &what);
    }
    for row in &results.lou {
        score(row.score, "lou.tsv");
        rank(row.rank, &row.measure, "lou.tsv");
    }
    for row in &results.ranks {
        score(row.score, "ranks.tsv");
        rank(row.rank, &row.measure, "ranks.tsv");
    }
    for row in &results.trials {
        for value in [row.tau_b, row.tau_ap, row.paired_tau_b, row.paired_tau_ap] {
            tau(value, "trials.tsv");
        }
        fraction(row.overlap, "trials.tsv overlap");
        fraction(row.recall, "trials.tsv recall");
        fraction(row.overlap_found, "trials.tsv overlap_found");
        fraction(row.recall_found, "trials.tsv recall_found");
    }
}

/// What `reusesim plot` does: read, then draw every figure (SVG only, to stay fast).
fn plot(dir: &Path) -> Result<()> {
    let out = dir.join("figures");
    reusesim::report::plots::plot_results(dir, &out, FigureFormat::Svg).map(drop)
}

/// Drawing costs about ten readings.
const PLOT_COST: u32 = 10;

const RESULTS_SUMMARY: Target = results_file("summary.json", &[SUMMARY_JSON], read_results, 1);
const RESULTS_RUNS: Target = results_file("runs.tsv", &[RUNS_TSV], read_results, 1);
const RESULTS_LOU: Target = results_file("lou.tsv", &[LOU_TSV], read_results, 1);
const RESULTS_TRIALS: Target = results_file("trials.tsv", &[TRIALS_TSV], read_results, 1);
const RESULTS_RANKS: Target = results_file("ranks.tsv", &[RANKS_TSV], read_results, 1);
const PLOT_SUMMARY: Target = results_file("summary.json", &[SUMMARY_JSON], plot, PLOT_COST);
const PLOT_RUNS: Target = results_file("runs.tsv", &[RUNS_TSV], plot, PLOT_COST);
const PLOT_LOU: Target = results_file("lou.tsv", &[LOU_TSV], plot, PLOT_COST);
const PLOT_TRIALS: Target = results_file("trials.tsv", &[TRIALS_TSV], plot, PLOT_COST);
const PLOT_RANKS: Target = results_file("ranks.tsv", &[RANKS_TSV], plot, PLOT_COST);

// ---- Inputs: arbitrary bytes, token soups, mutated valid files -----------------------------

/// Pieces of the formats under test and values at their edges.
#[rustfmt::skip]
const TOKENS: &[&str] = &[
    "", " ", "  ", "\t", "\t\t\t", "\n", "\r\n", "\r", "0", "1", "-1", "2", "0.5", "-0", "1e3",
    "1e308", "-1e308", "1e400", "5e-324", "NaN", "inf", "-inf", "+1", "0x10", "1_0", "2147483648",
    "-2147483649", "4294967296", "9223372036854775807", "18446744073709551615",
    "18446744073709551616", "99999999999999999999999999", "Q0", "all", "control", "Control",
    "NA", "yes", "no", "auto", "true", "..", ".", "/", "\\", "../x", "#", "\u{0}", "\u{1b}",
    "\u{7f}", "\u{85}", "\u{a0}", "\u{e9}", "\u{feff}", "\u{10ffff}", "\u{1f980}", "<", ">",
    "</", "/>", "&", "&amp;", "&#x0;", "&#1114112;", "&bogus;", "<![CDATA[", "]]>", "<!--", "-->",
    "<?xml", "<topic number=\"", "<topic>", "</topic>", "<query>", "</query>", "\"", "'", "=",
    "[", "]", "[[", "{", "}", ",", ":", "null", "name = ", "relevance_level = ", "pool_depth = ",
    "\"seeds\": ", "\"settings\"", "\"task\"",
];

/// One change to a file's bytes. Positions are [`Index`]es, so they fit any length.
#[derive(Debug, Clone)]
enum Mutation {
    /// Flip one bit of one byte.
    FlipBit(Index, u8),
    /// Insert a token.
    Insert(Index, &'static str),
    /// Insert one arbitrary byte.
    InsertByte(Index, u8),
    /// Delete up to this many bytes.
    Delete(Index, usize),
    /// Cut the file here.
    Truncate(Index),
    /// Repeat a line.
    RepeatLine(Index),
    /// Delete a line.
    DeleteLine(Index),
    /// Swap two lines.
    SwapLines(Index, Index),
    /// Replace one field (a run of bytes between spaces or tabs) of a line by a token.
    ReplaceField(Index, Index, &'static str),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let token = || select(TOKENS);
    prop_oneof![
        (any::<Index>(), 0..8u8).prop_map(|(at, bit)| Mutation::FlipBit(at, bit)),
        (any::<Index>(), token()).prop_map(|(at, token)| Mutation::Insert(at, token)),
        (any::<Index>(), any::<u8>()).prop_map(|(at, byte)| Mutation::InsertByte(at, byte)),
        (any::<Index>(), 1..16usize).prop_map(|(at, len)| Mutation::Delete(at, len)),
        any::<Index>().prop_map(Mutation::Truncate),
        any::<Index>().prop_map(Mutation::RepeatLine),
        any::<Index>().prop_map(Mutation::DeleteLine),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (any::<Index>(), any::<Index>(), token())
            .prop_map(|(line, field, token)| Mutation::ReplaceField(line, field, token)),
    ]
}

/// The byte ranges of the lines of `bytes`, each with its `\n`.
fn line_ranges(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    for (pos, &byte) in bytes.iter().enumerate() {
        if byte == b'\n' {
            ranges.push(start..pos + 1);
            start = pos + 1;
        }
    }
    if start < bytes.len() {
        ranges.push(start..bytes.len());
    }
    ranges
}

impl Mutation {
    fn apply(&self, bytes: &mut Vec<u8>) {
        let position = |at: &Index, bytes: &Vec<u8>| at.index(bytes.len() + 1);
        match self {
            Mutation::FlipBit(at, bit) if !bytes.is_empty() => {
                let pos = at.index(bytes.len());
                bytes[pos] ^= 1 << bit;
            }
            Mutation::Insert(at, token) => {
                let pos = position(at, bytes);
                bytes.splice(pos..pos, token.bytes());
            }
            Mutation::InsertByte(at, byte) => bytes.insert(position(at, bytes), *byte),
            Mutation::Delete(at, len) => {
                let pos = position(at, bytes);
                bytes.drain(pos..(pos + len).min(bytes.len()));
            }
            Mutation::Truncate(at) => bytes.truncate(position(at, bytes)),
            Mutation::RepeatLine(line) | Mutation::DeleteLine(line) => {
                let lines = line_ranges(bytes);
                if lines.is_empty() {
                    return;
                }
                let range = lines[line.index(lines.len())].clone();
                if matches!(self, Mutation::RepeatLine(_)) {
                    let copy = bytes[range.clone()].to_vec();
                    bytes.splice(range.start..range.start, copy);
                } else {
                    bytes.drain(range);
                }
            }
            Mutation::SwapLines(a, b) => {
                let lines = line_ranges(bytes);
                if lines.is_empty() {
                    return;
                }
                let (a, b) = (a.index(lines.len()), b.index(lines.len()));
                let mut order: Vec<usize> = (0..lines.len()).collect();
                order.swap(a, b);
                *bytes = order
                    .iter()
                    .flat_map(|&line| bytes[lines[line].clone()].to_vec())
                    .collect();
            }
            Mutation::ReplaceField(line, field, token) => {
                let lines = line_ranges(bytes);
                if lines.is_empty() {
                    return;
                }
                let range = lines[line.index(lines.len())].clone();
                let is_separator = |byte: &u8| matches!(byte, b' ' | b'\t' | b'\n' | b'\r');
                let mut fields = Vec::new();
                let mut start = None;
                for pos in range.clone() {
                    match (start, is_separator(&bytes[pos])) {
                        (None, false) => start = Some(pos),
                        (Some(first), true) => {
                            fields.push(first..pos);
                            start = None;
                        }
                        _ => {}
                    }
                }
                if let Some(first) = start {
                    fields.push(first..range.end);
                }
                if !fields.is_empty() {
                    let target = fields[field.index(fields.len())].clone();
                    bytes.splice(target, token.bytes());
                }
            }
            Mutation::FlipBit(..) => {}
        }
    }
}

/// How a mutated file is stored.
#[derive(Debug, Clone, Copy)]
enum Packing {
    /// As text.
    Plain,
    /// Mutated, then gzip-compressed.
    Gzip,
    /// Gzip-compressed, then mutated (a corrupt stream).
    CorruptGzip,
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("compressing in memory");
    encoder.finish().expect("compressing in memory")
}

/// A valid file changed by 1 to 3 mutations, stored as text or (for a reader of gzip files,
/// 1 in 4) gzip.
fn mutated(target: &Target) -> impl Strategy<Value = Vec<u8>> {
    let packing = if target.is_gzip_read {
        prop_oneof![
            6 => Just(Packing::Plain),
            1 => Just(Packing::Gzip),
            1 => Just(Packing::CorruptGzip),
        ]
        .boxed()
    } else {
        Just(Packing::Plain).boxed()
    };
    (select(target.seeds), vec(mutation(), 1..4), packing).prop_map(|(seed, mutations, packing)| {
        let mut bytes = match packing {
            Packing::CorruptGzip => gzip(seed.as_bytes()),
            Packing::Plain | Packing::Gzip => seed.as_bytes().to_vec(),
        };
        for mutation in &mutations {
            mutation.apply(&mut bytes);
        }
        match packing {
            Packing::Gzip => gzip(&bytes),
            Packing::Plain | Packing::CorruptGzip => bytes,
        }
    })
}

/// The inputs of one reader: arbitrary bytes (1 in 8), token soups (1 in 8), mutated valid
/// files (the rest).
fn inputs(target: &Target) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        1 => vec(any::<u8>(), 0..512),
        1 => vec(select(TOKENS), 0..80).prop_map(|tokens| tokens.concat().into_bytes()),
        6 => mutated(target),
    ]
}

// ---- The property -------------------------------------------------------------------------

/// Reads `bytes` as the target's file: no panic, and an error names the file.
fn check(target: &Target, dir: &Path, bytes: &[u8]) -> std::result::Result<(), TestCaseError> {
    let path = dir.join(target.file);
    // A new file each time: ext4 flushes a file truncated and rewritten in place to disk on
    // close (`auto_da_alloc`), which made the suite wait on the disk.
    std::fs::remove_file(&path).ok();
    std::fs::write(&path, bytes).expect("writing the fuzzed file");
    let Err(error) = (target.read)(dir) else {
        return Ok(());
    };
    let message = error.to_string();
    prop_assert!(
        message.contains(&path.display().to_string()),
        "the error does not name {}: {message}",
        path.display()
    );
    // A problem found in a valid file beside the fuzzed one (a rank beyond the runs that a
    // mutated `runs.tsv` lists) is that file's, and the message names the fuzzed file too.
    if let Error::Parse(parse) = &error {
        if parse.path == path && !bytes.starts_with(&[0x1f, 0x8b]) {
            let lines = bytes.iter().filter(|&&byte| byte == b'\n').count() + 1;
            prop_assert!(parse.line <= lines, "line beyond the end: {message}");
        }
    }
    Ok(())
}

/// Runs `cases` cases of the target from `seed`; panics with the smallest failing input.
fn fuzz(target: &Target, cases: u32, seed: u64) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for (name, text) in target.beside {
        std::fs::write(dir.path().join(name), text).expect("writing a valid file");
    }
    let config = Config {
        cases: (cases / target.cost).max(1),
        failure_persistence: None,
        ..Config::default()
    };
    let mut rng_seed = [0u8; 32];
    rng_seed[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &rng_seed);
    let mut runner = TestRunner::new_with_rng(config, rng);
    if let Err(failure) = runner.run(&inputs(target), |bytes| check(target, dir.path(), &bytes)) {
        panic!("{}: {failure}", target.file);
    }
}

/// The long run's case count and seed, from the environment.
fn long_run() -> (u32, u64) {
    let number = |name: &str| {
        std::env::var(name).ok().map(|text| {
            text.parse()
                .unwrap_or_else(|_| panic!("{name}={text}: a number"))
        })
    };
    let cases = number("REUSESIM_FUZZ_CASES").unwrap_or(u64::from(LONG_CASES));
    let cases = u32::try_from(cases).expect("REUSESIM_FUZZ_CASES fits in 32 bits");
    (cases, number("REUSESIM_FUZZ_SEED").unwrap_or(LONG_SEED))
}

/// A suite test and a long-run test per reader.
macro_rules! fuzz_tests {
    ($($name:ident: $target:expr,)*) => {
        mod suite {
            use super::*;
            $(
                #[test]
                fn $name() {
                    fuzz(&$target, SUITE_CASES, 0);
                }
            )*
        }
        mod long {
            use super::*;
            $(
                #[test]
                #[ignore = "long fuzz run"]
                fn $name() {
                    let (cases, seed) = long_run();
                    fuzz(&$target, cases, seed);
                }
            )*
        }
    };
}

fuzz_tests! {
    runs: RUN,
    qrels: QRELS,
    topics_tsv: TOPICS_TSV,
    topics_xml: TOPICS_XML,
    teams: TEAMS,
    task_toml: TASK,
    confusion_table: CONFUSION,
    corpus: CORPUS,
    corpus_jsonl: CORPUS_JSONL,
    corpus_folder: CORPUS_FOLDER,
    audit_runs_tsv: AUDIT_RUNS,
    results_summary_json: RESULTS_SUMMARY,
    results_runs_tsv: RESULTS_RUNS,
    results_lou_tsv: RESULTS_LOU,
    results_trials_tsv: RESULTS_TRIALS,
    results_ranks_tsv: RESULTS_RANKS,
    plot_summary_json: PLOT_SUMMARY,
    plot_runs_tsv: PLOT_RUNS,
    plot_lou_tsv: PLOT_LOU,
    plot_trials_tsv: PLOT_TRIALS,
    plot_ranks_tsv: PLOT_RANKS,
}
