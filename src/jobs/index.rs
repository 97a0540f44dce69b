//! `index`: a corpus's feature store, written once and memory-mapped by every job that names it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::error::{Context, Error, Result};
use crate::base::progress::StagedProgress;
use crate::features::store::{build_store, BuildOutcome, FeatureStore};
use crate::io::corpus::settings::CorpusSettings;

/// The options of `index`: how the corpus's lines are laid out (each `None`: decided per file,
/// or the layout's default fields).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IndexOptions {
    /// `tsv`, `jsonl` or `auto`.
    pub corpus_format: Option<String>,
    /// JSONL: the fields a document's id may be in, the first present taken.
    pub corpus_id_fields: Option<Vec<String>>,
    /// JSONL: the parts of a document's text, each field names joined by `|` as alternatives.
    pub corpus_text_fields: Option<Vec<String>>,
}

/// What `index` did.
#[derive(Debug)]
pub struct Indexed {
    /// Built, or already up to date.
    pub outcome: BuildOutcome,
    /// The store, opened.
    pub store: FeatureStore,
    /// The store file's size.
    pub store_bytes: u64,
}

/// Writes the feature store of the corpus `corpus` (files or folders, read in the order given)
/// at `out`, unless an up-to-date one is there. Runs on the current rayon pool.
///
/// # Errors
/// Invalid corpus settings (naming the setting), the corpus reader's errors and write errors,
/// under the context `indexing into STORE`.
pub fn index(
    corpus: &[PathBuf],
    out: &Path,
    options: &IndexOptions,
    progress: StagedProgress<'_>,
) -> Result<Indexed> {
    let layout = CorpusSettings {
        format: options.corpus_format.clone(),
        id_fields: options.corpus_id_fields.clone(),
        text_fields: options.corpus_text_fields.clone(),
    }
    .layout(true)
    .map_err(|(_, message)| Error::Invalid(message))?;
    let outcome = build_store(corpus, &layout, out, progress)
        .with_context(|| format!("indexing into {}", out.display()))?;
    let store = FeatureStore::open(out)?;
    let store_bytes = std::fs::metadata(out).map_err(Error::reading(out))?.len();
    Ok(Indexed {
        outcome,
        store,
        store_bytes,
    })
}
