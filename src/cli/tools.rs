//! The arguments of the commands around a study: `plot`, `index` and `synth`.

use std::path::PathBuf;

use reusesim::jobs::index::IndexOptions;
use reusesim::jobs::plot::PlotOptions;
use reusesim::jobs::synth::SynthOptions;
use reusesim::report::PlotFormat;
use reusesim::synth::Preset;

use super::{choice, ThreadsArgs};

/// Arguments of `reusesim plot`.
#[derive(Debug, clap::Args)]
pub struct PlotArgs {
    /// The results folder written by `simulate` (summary.json, runs.tsv, lou.tsv, trials.tsv).
    #[arg(value_name = "RESULTS_DIR")]
    pub results: PathBuf,
    /// Output folder (default: RESULTS_DIR/figures; RESULTS_DIR itself with `--format html`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Which files to write for each figure, or `html` for the study's page `report.html`.
    #[arg(long, value_parser = choice::<PlotFormat>(), default_value_t = PlotOptions::default().format)]
    pub format: PlotFormat,
}

impl PlotArgs {
    /// The plot's options.
    pub fn options(&self) -> PlotOptions {
        PlotOptions {
            out: self.out.clone(),
            format: self.format,
        }
    }
}

/// Arguments of `reusesim index`.
#[derive(Debug, clap::Args)]
pub struct IndexArgs {
    /// The corpus: files or folders of files (TSV or JSONL, plain or gzip), read in the order
    /// given, a folder's files in name order.
    #[arg(long, value_name = "PATH", num_args = 1.., required = true)]
    pub corpus: Vec<PathBuf>,
    /// The store to write.
    #[arg(long, value_name = "STORE")]
    pub out: PathBuf,
    /// How corpus lines are laid out: tsv, jsonl, or auto (decided per file).
    #[arg(long, value_name = "FORMAT")]
    pub corpus_format: Option<String>,
    /// JSONL: the fields a document's id may be in, the first present taken (comma separated).
    #[arg(long, value_name = "FIELDS", value_delimiter = ',')]
    pub corpus_id_fields: Option<Vec<String>>,
    /// JSONL: the parts of a document's text (comma separated), each field names joined by `|`
    /// as alternatives.
    #[arg(long, value_name = "PARTS", value_delimiter = ',')]
    pub corpus_text_fields: Option<Vec<String>>,
    /// The worker threads.
    #[command(flatten)]
    pub threads: ThreadsArgs,
}

impl IndexArgs {
    /// The index's options.
    pub fn options(&self) -> IndexOptions {
        IndexOptions {
            corpus_format: self.corpus_format.clone(),
            corpus_id_fields: self.corpus_id_fields.clone(),
            corpus_text_fields: self.corpus_text_fields.clone(),
        }
    }
}

/// Arguments of `reusesim synth`.
#[derive(Debug, clap::Args)]
pub struct SynthArgs {
    /// The shape: default (passage-like, small enough for a fast study) or dl19 (TREC DL 2019
    /// document-task shape).
    #[arg(long, value_parser = choice::<Preset>(), default_value_t = SynthOptions::default().preset)]
    pub preset: Preset,
    /// The seed.
    #[arg(long, default_value_t = SynthOptions::default().seed)]
    pub seed: u64,
    /// Write in the repository layout: the task in DIR/runs/<name>/ and its qrels in
    /// DIR/qrels/ (how the embedded default task is made, with --out .).
    #[arg(long)]
    pub embedded: bool,
    /// Write only DIR/corpus.tsv.gz, the preset's corpus (extended by --documents), without
    /// topics, runs or judging.
    #[arg(long, conflicts_with_all = [
        "embedded", "iterations", "label_leniency", "label_topic_sd", "label_confusion",
        "label_depth",
    ])]
    pub corpus_only: bool,
    /// With --corpus-only: the corpus size, at least the preset's; documents past the preset's
    /// own are background documents (default: the preset's count).
    #[arg(long, value_name = "N", requires = "corpus_only")]
    pub documents: Option<usize>,
    /// Pegasos iterations per retrain when judging (HiCAL: 200000).
    #[arg(long, default_value_t = SynthOptions::default().iterations)]
    pub iterations: usize,
    /// The labeller's leniency, in logits of its latent scale: +1 multiplies the odds of every
    /// "label above k" by e (docs/synth.md#the-labeller).
    #[arg(long, value_name = "LOGITS", allow_negative_numbers = true,
          default_value_t = SynthOptions::default().label_leniency)]
    pub label_leniency: f64,
    /// The standard deviation of the labeller's per-topic effect, in logits.
    #[arg(long, value_name = "LOGITS", allow_negative_numbers = true,
          default_value_t = SynthOptions::default().label_topic_sd)]
    pub label_topic_sd: f64,
    /// The labeller's confusion table: 4 rows (true grades 0-3) of 4 counts or probabilities
    /// (label grades 0-3) (default: UMBRELA's GPT-4 against NIST on TREC DL 2019-2021).
    #[arg(long, value_name = "FILE")]
    pub label_confusion: Option<PathBuf>,
    /// The documents of every run's top N per topic are labelled (default: the audit's reach).
    #[arg(long, value_name = "N", default_value_t = SynthOptions::default().label_depth)]
    pub label_depth: usize,
    /// The worker threads.
    #[command(flatten)]
    pub threads: ThreadsArgs,
    /// Output folder.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

impl SynthArgs {
    /// The synthetic task's options.
    pub fn options(&self) -> SynthOptions {
        SynthOptions {
            preset: self.preset,
            seed: self.seed,
            embedded: self.embedded,
            iterations: self.iterations,
            label_leniency: self.label_leniency,
            label_topic_sd: self.label_topic_sd,
            label_confusion: self.label_confusion.clone(),
            label_depth: self.label_depth,
        }
    }
}
