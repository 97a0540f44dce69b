//! `synth`: a synthetic task whose complete truth is known, with a labeller's labels of its runs'
//! tops, or a preset's corpus alone.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::error::{Error, Result};
use crate::base::progress::StagedProgress;
use crate::collection::CandidateSource;
use crate::io::confusion::read_confusion;
use crate::judge::pegasos::DEFAULT_ITERATIONS;
use crate::judge::settings::JudgeSettings;
use crate::synth::write::TaskLayout;
use crate::synth::{
    write_corpus_file, Confusion, Labeller, Preset, SynthCorpus, SynthReport, TaskLabels,
    LABEL_DEPTH,
};

/// The options of `synth`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SynthOptions {
    /// The shape: default (passage-like) or dl19 (TREC DL 2019 document-task shape).
    pub preset: Preset,
    /// The seed.
    pub seed: u64,
    /// Write in the repository layout: the task in DIR/runs/<name>/, its qrels in DIR/qrels/.
    pub embedded: bool,
    /// Pegasos iterations per retrain when judging.
    pub iterations: usize,
    /// The labeller's leniency, in logits of its latent scale (docs/synth.md#the-labeller).
    pub label_leniency: f64,
    /// The standard deviation of the labeller's per-topic effect, in logits.
    pub label_topic_sd: f64,
    /// The labeller's confusion table, a 4x4 file of counts or probabilities (rows: true
    /// grades 0-3; columns: label grades 0-3); `None`: UMBRELA's GPT-4 against NIST on DL19-21.
    pub label_confusion: Option<PathBuf>,
    /// How deep into each run the documents are labelled.
    pub label_depth: usize,
}

impl Default for SynthOptions {
    fn default() -> Self {
        Self {
            preset: Preset::Default,
            seed: 2019,
            embedded: false,
            iterations: DEFAULT_ITERATIONS,
            label_leniency: 0.0,
            label_topic_sd: 0.0,
            label_confusion: None,
            label_depth: LABEL_DEPTH,
        }
    }
}

/// A task written by [`synth`].
#[derive(Debug)]
pub struct SynthTask {
    /// The preset's name, the task's.
    pub name: String,
    /// The task's folder.
    pub folder: PathBuf,
    /// How its official qrels were made.
    pub report: SynthReport,
}

/// The labels' file of a synthetic task, beside its `task.toml`.
pub const LABELS_FILE: &str = "labels.qrels";

impl SynthOptions {
    /// The labeller and depth of the options, the confusion table read from its file.
    ///
    /// # Errors
    /// The confusion file's [`crate::base::error::ParseError`]; a depth of 0, or a leniency or
    /// topic sd out of range ([`Error::Invalid`]).
    pub fn task_labels(&self) -> Result<TaskLabels> {
        let confusion = match &self.label_confusion {
            None => Confusion::default(),
            Some(path) => Confusion::new(read_confusion(path)?)?,
        };
        if self.label_depth == 0 {
            return Err(Error::Invalid(
                "expected a label depth >= 1 (the documents of every run's top depth are \
                 labelled)"
                    .into(),
            ));
        }
        let labeller = Labeller {
            confusion,
            leniency: self.label_leniency,
            topic_sd: self.label_topic_sd,
        };
        labeller.check()?;
        Ok(TaskLabels {
            labeller,
            depth: self.label_depth,
        })
    }
}

/// Generates the task of `options` under `out`, and judges it (pool plus CAL over the whole
/// corpus, the truth as assessor); labels the documents of its runs' tops into
/// [`LABELS_FILE`]. Runs on the current rayon pool.
///
/// # Errors
/// Invalid judge or labeller settings, an unreadable confusion table, generation, writing or
/// judging errors.
pub fn synth(options: &SynthOptions, out: &Path) -> Result<SynthTask> {
    let labels = options.task_labels()?;
    let name = options.preset.params().name.to_string();
    let (layout, folder) = if options.embedded {
        (TaskLayout::embedded(&name), out.join("runs").join(&name))
    } else {
        (TaskLayout::standalone(&name), out.to_path_buf())
    };
    let layout = layout.with_labels(LABELS_FILE);
    let judge = JudgeSettings {
        seed: options.seed,
        iterations: options.iterations,
        candidates: CandidateSource::Corpus,
        ..JudgeSettings::hical(options.preset.params().pool_depth)
    }
    .check()?;
    let report = crate::synth::build_task(
        options.preset,
        options.seed,
        &folder,
        &layout,
        &judge,
        &labels,
    )?;
    Ok(SynthTask {
        name,
        folder,
        report,
    })
}

/// Writes `out/corpus.tsv.gz`, the corpus of `preset` and `seed` extended to `documents`
/// (`None`: the preset's own count) with background documents; `progress(written)` is called
/// as documents are written. Returns the number of documents.
///
/// # Errors
/// Fewer documents than the preset's, write errors.
pub fn synth_corpus(
    preset: Preset,
    seed: u64,
    documents: Option<usize>,
    out: &Path,
    progress: StagedProgress<'_>,
) -> Result<usize> {
    let documents = documents.unwrap_or(preset.params().document_count);
    let corpus = SynthCorpus::generate(preset, seed, documents)?;
    write_corpus_file(&out.join("corpus.tsv.gz"), &corpus, progress)?;
    Ok(documents)
}
