//! The in-memory build: a [`CorpusPass`] whose sink keeps the terms of the documents the caller
//! wants as `(stem id, tf)` pairs, which [`TextFeatureBuilder::finish`] maps to the final
//! features and weights.

use std::path::Path;

use rayon::prelude::*;

use super::pass::{CorpusPass, DocumentSink, Refusal};
use super::TextFeatures;
use crate::base::error::Result;
use crate::base::ids::Interner;
use crate::io::corpus::{CorpusLayout, Place};

/// The documents a [`TextFeatureBuilder`] keeps, as the pass gave their terms.
struct KeptDocuments<K> {
    keep: K,
    names: Interner,
    /// `(stem id, tf)` of every kept document, concatenated; document i owns
    /// `terms[offsets[i]..offsets[i + 1]]`.
    terms: Vec<(u32, u32)>,
    offsets: Vec<usize>,
}

impl<K: FnMut(&str) -> bool> DocumentSink for KeptDocuments<K> {
    fn admit(&mut self, name: &str) -> std::result::Result<bool, Refusal> {
        let is_kept = (self.keep)(name);
        if is_kept && self.names.get(name).is_some() {
            return Err(Refusal::DuplicateDocument);
        }
        Ok(is_kept)
    }

    fn keep(&mut self, _: Option<Place<'_>>, name: &str, terms: &[(u32, u32)]) -> Result<()> {
        self.names.intern(name);
        self.terms.extend_from_slice(terms);
        self.offsets.push(self.terms.len());
        Ok(())
    }
}

/// Builds [`TextFeatures`] from a stream of documents: every document counts towards the
/// document frequencies, and only documents accepted by the `keep` predicate get a vector.
///
/// ```
/// use reusesim::features::text::TextFeatureBuilder;
/// let mut builder = TextFeatureBuilder::new(|name: &str| name == "d1");
/// builder.add_document("d1", "cats chase mice")?;
/// builder.add_document("d2", "cats sleep")?;
/// builder.add_document("d3", "dogs chase cats")?;
/// let features = builder.finish()?;
/// assert_eq!(features.document_count(), 3);
/// assert!(features.vector("d1").is_some());
/// assert!(features.vector("d2").is_none());
/// # Ok::<(), reusesim::Error>(())
/// ```
pub struct TextFeatureBuilder<K> {
    pass: CorpusPass,
    kept: KeptDocuments<K>,
}

impl<K: FnMut(&str) -> bool> TextFeatureBuilder<K> {
    /// A builder that keeps the vector of every document whose id satisfies `keep`.
    pub fn new(keep: K) -> Self {
        Self {
            pass: CorpusPass::default(),
            kept: KeptDocuments {
                keep,
                names: Interner::new(),
                terms: Vec::new(),
                offsets: vec![0],
            },
        }
    }

    /// Reads the corpus at `path` laid out as `layout` with
    /// [`for_each_document`](crate::io::corpus::for_each_document) (a file or a folder, TSV or
    /// JSONL, plain or gzip; the rules are there), keeps the documents accepted by `keep`, and
    /// returns the features.
    ///
    /// # Errors
    /// As [`Self::add_corpus`] and [`Self::finish`].
    pub fn from_corpus(path: &Path, layout: &CorpusLayout, keep: K) -> Result<TextFeatures> {
        let mut builder = Self::new(keep);
        builder.add_corpus(path, layout)?;
        builder.finish()
    }

    /// Adds every document of the corpus at `path` laid out as `layout`.
    ///
    /// # Errors
    /// The corpus reader's errors (missing file, truncated gzip, binary data, a TSV line
    /// without a tab, a JSONL line without an id, naming file and line), and a
    /// [`ParseError`](crate::base::error::ParseError) naming file and line for a kept document
    /// id seen twice.
    pub fn add_corpus(&mut self, path: &Path, layout: &CorpusLayout) -> Result<()> {
        self.pass.add_corpus(path, layout, &mut self.kept, None)
    }

    /// Adds one document.
    ///
    /// # Errors
    /// [`Error::Invalid`](crate::Error::Invalid) for a kept document id seen twice, or when the
    /// corpus exceeds 2^32 - 1 documents.
    pub fn add_document(&mut self, name: &str, text: &str) -> Result<()> {
        self.pass.add_document(name, text, &mut self.kept)
    }

    /// Fixes the vocabulary (stems with df >= 2, numbered in byte order) and weights the kept
    /// documents.
    ///
    /// # Errors
    /// [`Error::Invalid`](crate::Error::Invalid) when no document was added.
    pub fn finish(self) -> Result<TextFeatures> {
        let vocabulary = self.pass.finish()?;
        let kept = self.kept;
        // Each vector is its own computation, so weighting them in parallel changes no bit.
        let vectors = kept
            .offsets
            .par_windows(2)
            .map(|bounds| vocabulary.document_vector(&kept.terms[bounds[0]..bounds[1]]))
            .collect();
        Ok(TextFeatures::new(vocabulary, kept.names, vectors))
    }
}

impl TextFeatures {
    /// Reads the corpus at `path` laid out as `layout` (see
    /// [`TextFeatureBuilder::from_corpus`]).
    ///
    /// # Errors
    /// As [`TextFeatureBuilder::from_corpus`].
    pub fn from_corpus(
        path: &Path,
        layout: &CorpusLayout,
        keep: impl FnMut(&str) -> bool,
    ) -> Result<Self> {
        TextFeatureBuilder::from_corpus(path, layout, keep)
    }
}
