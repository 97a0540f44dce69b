//! `synth`: a synthetic task whose complete truth is known, or a preset's corpus alone.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::error::Result;
use crate::base::progress::StagedProgress;
use crate::collection::CandidateSource;
use crate::judge::pegasos::DEFAULT_ITERATIONS;
use crate::judge::settings::JudgeSettings;
use crate::synth::write::TaskLayout;
use crate::synth::{write_corpus_file, Preset, SynthCorpus, SynthReport};

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
}

impl Default for SynthOptions {
    fn default() -> Self {
        Self {
            preset: Preset::Default,
            seed: 2019,
            embedded: false,
            iterations: DEFAULT_ITERATIONS,
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

/// Generates the task of `options` under `out`, and judges it (pool plus CAL over the whole
/// corpus, the truth as assessor). Runs on the current rayon pool.
///
/// # Errors
/// Invalid judge settings, generation, writing or judging errors.
pub fn synth(options: &SynthOptions, out: &Path) -> Result<SynthTask> {
    let name = options.preset.params().name.to_string();
    let (layout, folder) = if options.embedded {
        (TaskLayout::embedded(&name), out.join("runs").join(&name))
    } else {
        (TaskLayout::standalone(&name), out.to_path_buf())
    };
    let judge = JudgeSettings {
        seed: options.seed,
        iterations: options.iterations,
        candidates: CandidateSource::Corpus,
        ..JudgeSettings::hical(options.preset.params().pool_depth)
    }
    .check()?;
    let report = crate::synth::build_task(options.preset, options.seed, &folder, &layout, &judge)?;
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
