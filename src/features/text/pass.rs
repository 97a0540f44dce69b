//! The corpus pass every text-feature build shares: documents are read (and inflated) in
//! batches on a thread of their own, each batch's tokens looked up in the stemming cache on
//! every core, then counted in corpus order, so that the document frequencies and each
//! document's terms are those of adding the documents one by one. What happens to a document's terms is the [`DocumentSink`]'s choice: the in-memory
//! builder keeps those of the documents it wants ([`super::TextFeatureBuilder`]), the feature
//! store writes every document's to disk ([`crate::features::store`]). At the end the pass
//! fixes the [`Vocabulary`]: the stems with df >= 2, numbered in byte order, and their weights.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, SyncSender};

use rayon::prelude::*;

use super::rules::MIN_DOCUMENT_FREQUENCY;
use super::tokens::{for_each_token, StemTable, DROPPED, UNKNOWN};
use super::weighting::{hical_idf, Vocabulary};
use crate::base::error::{Error, ParseError, ParseErrorKind, Result};
use crate::io::corpus::{
    for_each_document, for_each_document_digested, CorpusLayout, FileDigest, Place,
};

/// The corpus is read in batches of this many documents: each batch's tokens are looked up in
/// the stem cache in parallel, then the documents are added in corpus order.
pub(crate) const BATCH_DOCUMENTS: usize = 4096;

/// How many read batches may wait to be counted: enough for reading to run ahead of counting,
/// few enough that memory stays a few batches.
const BATCHES_IN_FLIGHT: usize = 2;

/// Why a document was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Its id was seen before (where duplicates can be detected).
    DuplicateDocument,
    /// The corpus has more documents than the `u32` frequencies can count.
    TooManyDocuments,
}

impl Refusal {
    /// What was expected, for the error naming the document `name`.
    pub(crate) fn kind(self, name: &str) -> ParseErrorKind {
        ParseErrorKind::Invalid(match self {
            Self::DuplicateDocument => {
                format!("expected each document id once, found {name:?} again")
            }
            Self::TooManyDocuments => format!(
                "expected at most {} documents, found more at {name:?}",
                u32::MAX
            ),
        })
    }
}

/// What a corpus pass does with each document: admits it (or refuses it) before it counts, and
/// receives the terms of the documents it admitted to keep.
pub(crate) trait DocumentSink {
    /// Whether the terms of the document `name` are wanted; a refusal rejects the document
    /// before it counts towards anything.
    fn admit(&mut self, name: &str) -> std::result::Result<bool, Refusal>;

    /// The terms of a kept document, `(stem id, tf)` in the order of their first occurrence;
    /// `place` is where it was read (`None` for a document added alone).
    ///
    /// # Errors
    /// Whatever keeping them fails with (writing them to disk).
    fn keep(&mut self, place: Option<Place<'_>>, name: &str, terms: &[(u32, u32)]) -> Result<()>;
}

/// Documents read from one file but not yet added: their names and texts in one buffer.
#[derive(Debug, Default)]
struct DocumentBatch {
    /// The file they were read from.
    path: PathBuf,
    text: String,
    /// Per document: its line number, and the ends of its name and its text in `text`.
    documents: Vec<(usize, usize, usize)>,
}

impl DocumentBatch {
    fn push(&mut self, line_number: usize, name: &str, text: &str) {
        self.text.push_str(name);
        let name_end = self.text.len();
        self.text.push_str(text);
        self.documents
            .push((line_number, name_end, self.text.len()));
    }

    fn len(&self) -> usize {
        self.documents.len()
    }

    /// Document `index`'s line number, name and text.
    fn document(&self, index: usize) -> (usize, &str, &str) {
        let start = index
            .checked_sub(1)
            .map_or(0, |previous| self.documents[previous].2);
        let (line_number, name_end, end) = self.documents[index];
        (
            line_number,
            &self.text[start..name_end],
            &self.text[name_end..end],
        )
    }
}

/// Reads the corpus at `path` into batches of up to [`BATCH_DOCUMENTS`] documents of one file
/// each, and sends them in corpus order; stops when the receiver has hung up.
fn read_batches(
    path: &Path,
    layout: &CorpusLayout,
    digests: Option<&mut Vec<FileDigest>>,
    sender: &SyncSender<DocumentBatch>,
) -> Result<()> {
    let mut batch = DocumentBatch::default();
    let send = |batch: &mut DocumentBatch| {
        let full = std::mem::take(batch);
        if full.len() == 0 {
            return Ok(());
        }
        sender.send(full).map_err(|_| {
            // Only its own error, reported instead, makes the counting side hang up.
            Error::Invalid("the corpus pass stopped".to_string())
        })
    };
    let visit = |place: Place<'_>, name: &str, text: &str| {
        if batch.path.as_os_str() != place.path.as_os_str() || batch.len() == BATCH_DOCUMENTS {
            send(&mut batch)?;
            batch.path = place.path.to_path_buf();
        }
        batch.push(place.line, name, text);
        Ok(())
    };
    let read = match digests {
        Some(digests) => for_each_document_digested(path, layout, digests, visit),
        None => for_each_document(path, layout, visit),
    };
    // The documents read before a reading error come first in the corpus.
    send(&mut batch)?;
    read
}

/// The document frequencies of every stem seen, and the scratch space of counting one
/// document's terms.
#[derive(Debug, Default)]
pub(crate) struct CorpusPass {
    stems: StemTable,
    /// Per stem id: how many documents contain it.
    document_frequencies: Vec<u32>,
    /// Per stem id: its count in the current document (all zero between documents).
    term_counts: Vec<u32>,
    /// The current document's `(stem id, tf)`, in the order of first occurrence.
    document_terms: Vec<(u32, u32)>,
    document_count: u32,
}

impl CorpusPass {
    /// Adds every document of the corpus at `path` laid out as `layout`, giving each to `sink`;
    /// with `digests`, also digests the files read, in the same pass. A reader thread reads
    /// (and inflates) the corpus into batches while the batches read before are counted, at
    /// most [`BATCHES_IN_FLIGHT`] of them waiting.
    ///
    /// # Errors
    /// The corpus reader's errors (missing file, truncated gzip, binary data, a TSV line
    /// without a tab, a JSONL line without an id, naming file and line), a [`ParseError`]
    /// naming file and line for a document the sink refuses, and the sink's errors: the first
    /// in corpus order.
    pub(crate) fn add_corpus(
        &mut self,
        path: &Path,
        layout: &CorpusLayout,
        sink: &mut impl DocumentSink,
        digests: Option<&mut Vec<FileDigest>>,
    ) -> Result<()> {
        let (sender, receiver) = mpsc::sync_channel(BATCHES_IN_FLIGHT);
        std::thread::scope(|scope| {
            let reader = scope.spawn(move || read_batches(path, layout, digests, &sender));
            let added = (receiver.iter()).try_for_each(|batch| self.add_batch(&batch, sink));
            // After an error of adding, the reader's next send fails and it stops.
            drop(receiver);
            let read = reader
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            // Every batch read before a reading error was added first, so an error of adding
            // comes earlier in the corpus.
            added.and(read)
        })
    }

    /// Adds a batch of documents: their tokens are looked up in the stem cache in parallel,
    /// then each document is added in corpus order, with what the cache lacked stemmed then,
    /// so the result is the same as adding them one by one.
    fn add_batch(&mut self, batch: &DocumentBatch, sink: &mut impl DocumentSink) -> Result<()> {
        let stems = &self.stems;
        let cached: Vec<Vec<u32>> = (0..batch.len())
            .into_par_iter()
            .map(|index| stems.cached_ids(batch.document(index).2))
            .collect();
        for (index, cached) in cached.iter().enumerate() {
            let (line, name, text) = batch.document(index);
            let place = Place {
                path: &batch.path,
                line,
            };
            let is_kept = sink
                .admit(name)
                .map_err(|refusal| ParseError::new(&batch.path, line, refusal.kind(name)))?;
            self.count_document(text, cached, is_kept)
                .map_err(|refusal| ParseError::new(&batch.path, line, refusal.kind(name)))?;
            if is_kept {
                sink.keep(Some(place), name, &self.document_terms)?;
            }
        }
        Ok(())
    }

    /// Adds one document on its own.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a document the sink refuses or beyond 2^32 - 1 documents, and the
    /// sink's errors.
    pub(crate) fn add_document(
        &mut self,
        name: &str,
        text: &str,
        sink: &mut impl DocumentSink,
    ) -> Result<()> {
        let refused = |refusal: Refusal| Error::Invalid(refusal.kind(name).to_string());
        let is_kept = sink.admit(name).map_err(refused)?;
        let cached = self.stems.cached_ids(text);
        self.count_document(text, &cached, is_kept)
            .map_err(refused)?;
        if is_kept {
            sink.keep(None, name, &self.document_terms)?;
        }
        Ok(())
    }

    /// Counts one document whose tokens' cached stem ids are `cached` (see
    /// [`StemTable::cached_ids`]; the cache may have grown since, never shrunk) towards the
    /// document frequencies; when `is_kept`, leaves its terms in `document_terms`.
    fn count_document(
        &mut self,
        text: &str,
        cached: &[u32],
        is_kept: bool,
    ) -> std::result::Result<(), Refusal> {
        // The check comes before any change, so a refused document leaves no trace.
        let document_count = self
            .document_count
            .checked_add(1)
            .ok_or(Refusal::TooManyDocuments)?;
        self.document_count = document_count;
        let Self {
            stems,
            document_frequencies,
            term_counts,
            document_terms,
            ..
        } = self;
        document_terms.clear();
        let mut count = |id: u32, term_counts: &mut Vec<u32>| {
            let count = &mut term_counts[id as usize];
            if *count == 0 {
                document_terms.push((id, 0));
            }
            *count += 1;
        };
        if cached.contains(&UNKNOWN) {
            // Stem what the cache lacked, token by token in text order, as a sequential pass.
            let mut position = 0;
            for_each_token(text, |token| {
                let id = match cached[position] {
                    UNKNOWN => stems.stem_id(token, || {
                        document_frequencies.push(0);
                        term_counts.push(0);
                    }),
                    DROPPED => None,
                    id => Some(id),
                };
                position += 1;
                if let Some(id) = id {
                    count(id, term_counts);
                }
            });
        } else {
            for &id in cached.iter().filter(|&&id| id != DROPPED) {
                count(id, term_counts);
            }
        }
        for (id, term_frequency) in document_terms.iter_mut() {
            document_frequencies[*id as usize] += 1;
            *term_frequency = std::mem::take(&mut term_counts[*id as usize]);
        }
        if !is_kept {
            document_terms.clear();
        }
        Ok(())
    }

    /// Fixes the vocabulary: the stems with df >= 2, numbered in byte order.
    ///
    /// # Errors
    /// [`Error::Invalid`] when no document was added.
    pub(crate) fn finish(self) -> Result<Vocabulary> {
        if self.document_count == 0 {
            return Err(Error::Invalid(
                "the corpus has no documents; text features need at least one".to_string(),
            ));
        }
        let stems = &self.stems.stems;
        let mut vocabulary: Vec<(&[u8], u32)> = (0..stems.len() as u32)
            .filter(|&id| self.document_frequencies[id as usize] >= MIN_DOCUMENT_FREQUENCY)
            .map(|id| (stems.stem(id), id))
            .collect();
        vocabulary.sort_unstable();
        let mut feature_of_stem = vec![DROPPED; self.document_frequencies.len()];
        let mut terms = Vec::with_capacity(vocabulary.len());
        let mut document_frequencies = Vec::with_capacity(vocabulary.len());
        for (feature, (stem, stem_id)) in vocabulary.into_iter().enumerate() {
            let feature = u32::try_from(feature).expect("fewer features than stems");
            let term: Box<str> = std::str::from_utf8(stem)
                .expect("stems of ASCII tokens are ASCII")
                .into();
            feature_of_stem[stem_id as usize] = feature;
            terms.push(term);
            document_frequencies.push(self.document_frequencies[stem_id as usize]);
        }
        Ok(Vocabulary {
            inverse_document_frequencies: document_frequencies
                .iter()
                .map(|&df| hical_idf(self.document_count, df))
                .collect(),
            terms,
            document_frequencies,
            feature_of_stem,
            document_count: self.document_count,
        })
    }
}
