//! The corpus pass: every document counts towards the document frequencies, the documents the
//! caller keeps are stored as `(stem id, tf)` pairs, and [`TextFeatureBuilder::finish`] maps
//! them to the final features and weights them. The corpus is read in batches whose tokens are
//! looked up in the stemming cache on every core, then added in corpus order, so the features
//! are bit-identical to adding the documents one by one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::tokens::{for_each_token, StemTable, DROPPED, UNKNOWN};
use super::weighting::{document_vector, hical_idf};
use super::{TextFeatures, MIN_DOCUMENT_FREQUENCY};
use crate::base::error::{Error, ParseError, ParseErrorKind, Result};
use crate::base::ids::Interner;
use crate::io::corpus::{for_each_document, CorpusLayout};

/// The corpus is read in batches of this many documents: each batch's tokens are looked up in
/// the stem cache in parallel, then the documents are added in corpus order.
pub(super) const BATCH_DOCUMENTS: usize = 4096;

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

    fn clear(&mut self) {
        self.text.clear();
        self.documents.clear();
    }
}

/// Why a document was refused.
enum Refusal {
    /// Its id was seen before (where duplicates can be detected).
    DuplicateDocument,
    /// The corpus has more documents than the `u32` frequencies can count.
    TooManyDocuments,
}

impl Refusal {
    fn kind(&self, name: &str) -> ParseErrorKind {
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
    keep: K,
    stems: StemTable,
    /// Per stem id: how many documents contain it.
    document_frequencies: Vec<u32>,
    /// Per stem id: its count in the current document (all zero between documents).
    term_counts: Vec<u32>,
    /// The stem ids counted in the current document.
    touched: Vec<u32>,
    /// Scratch space for the tokenizer.
    token_buffer: Vec<u8>,
    document_count: u32,
    kept_names: Interner,
    /// `(stem id, tf)` of every kept document, concatenated; document i owns
    /// `kept_terms[kept_offsets[i]..kept_offsets[i + 1]]`.
    kept_terms: Vec<(u32, u32)>,
    kept_offsets: Vec<usize>,
    all_names: Option<Interner>,
}

impl<K: FnMut(&str) -> bool> TextFeatureBuilder<K> {
    /// A builder that keeps the vector of every document whose id satisfies `keep`.
    pub fn new(keep: K) -> Self {
        Self {
            keep,
            stems: StemTable::default(),
            document_frequencies: Vec::new(),
            term_counts: Vec::new(),
            touched: Vec::new(),
            token_buffer: Vec::new(),
            document_count: 0,
            kept_names: Interner::new(),
            kept_terms: Vec::new(),
            kept_offsets: vec![0],
            all_names: None,
        }
    }

    /// Also records the id of every document (for drawing random negatives from the whole
    /// corpus), and rejects any id seen twice. This costs memory in proportion to the corpus's
    /// number of documents.
    pub fn record_all_document_names(mut self) -> Self {
        self.all_names = Some(Interner::new());
        self
    }

    /// Reads the corpus at `path` laid out as `layout` with [`for_each_document`] (a file or a
    /// folder, TSV or JSONL, plain or gzip; the rules are there), keeps the documents accepted
    /// by `keep`, and returns the features.
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
    /// without a tab, a JSONL line without an id, naming file and line), and a [`ParseError`]
    /// naming file and line for a document id seen twice (detected among kept documents, and
    /// among all when names are recorded).
    pub fn add_corpus(&mut self, path: &Path, layout: &CorpusLayout) -> Result<()> {
        let mut batch = DocumentBatch::default();
        let read = for_each_document(path, layout, |place, name, text| {
            if batch.path.as_os_str() != place.path.as_os_str() {
                self.add_batch(&batch)?;
                batch.clear();
                batch.path = place.path.to_path_buf();
            }
            batch.push(place.line, name, text);
            if batch.len() < BATCH_DOCUMENTS {
                return Ok(());
            }
            let added = self.add_batch(&batch);
            batch.clear();
            added
        });
        // The documents read before a reading error come first in the corpus, and so does any
        // error of theirs (after an error of adding, the batch is empty).
        self.add_batch(&batch)?;
        read
    }

    /// Adds a batch of documents: their tokens are looked up in the stem cache in parallel,
    /// then each document is added in corpus order, with what the cache lacked stemmed then,
    /// so the result is the same as adding them one by one.
    fn add_batch(&mut self, batch: &DocumentBatch) -> Result<()> {
        let stems = &self.stems;
        let cached: Vec<Vec<u32>> = (0..batch.len())
            .into_par_iter()
            .map(|index| stems.cached_ids(batch.document(index).2))
            .collect();
        for (index, cached) in cached.iter().enumerate() {
            let (line_number, name, text) = batch.document(index);
            self.add_looked_up(name, text, cached)
                .map_err(|refusal| ParseError::new(&batch.path, line_number, refusal.kind(name)))?;
        }
        Ok(())
    }

    /// Adds one document.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a document id seen twice (detected among kept documents, and
    /// among all when names are recorded), or when the corpus exceeds 2^32 - 1 documents.
    pub fn add_document(&mut self, name: &str, text: &str) -> Result<()> {
        let cached = self.stems.cached_ids(text);
        self.add_looked_up(name, text, &cached)
            .map_err(|refusal| Error::Invalid(refusal.kind(name).to_string()))
    }

    /// Adds one document whose tokens' cached stem ids are `cached` (see
    /// [`StemTable::cached_ids`]; the cache may have grown since, never shrunk).
    fn add_looked_up(
        &mut self,
        name: &str,
        text: &str,
        cached: &[u32],
    ) -> std::result::Result<(), Refusal> {
        // Every check comes before any change, so a refused document leaves no trace.
        let document_count = self
            .document_count
            .checked_add(1)
            .ok_or(Refusal::TooManyDocuments)?;
        if let Some(all_names) = &self.all_names {
            if all_names.get(name).is_some() {
                return Err(Refusal::DuplicateDocument);
            }
        }
        let is_kept = (self.keep)(name);
        if is_kept && self.kept_names.get(name).is_some() {
            return Err(Refusal::DuplicateDocument);
        }
        self.document_count = document_count;
        if let Some(all_names) = &mut self.all_names {
            all_names.intern(name);
        }

        let Self {
            stems,
            document_frequencies,
            term_counts,
            touched,
            token_buffer,
            ..
        } = self;
        let mut count = |id: u32, term_counts: &mut Vec<u32>| {
            let count = &mut term_counts[id as usize];
            if *count == 0 {
                touched.push(id);
            }
            *count += 1;
        };
        if cached.contains(&UNKNOWN) {
            // Stem what the cache lacked, token by token in text order, as a sequential pass.
            let mut position = 0;
            for_each_token(text, token_buffer, |token| {
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
        for &id in touched.iter() {
            document_frequencies[id as usize] += 1;
            if is_kept {
                self.kept_terms.push((id, term_counts[id as usize]));
            }
            term_counts[id as usize] = 0;
        }
        touched.clear();
        if is_kept {
            self.kept_names.intern(name);
            self.kept_offsets.push(self.kept_terms.len());
        }
        Ok(())
    }

    /// Fixes the vocabulary (stems with df >= 2, numbered in byte order) and weights the kept
    /// documents.
    ///
    /// # Errors
    /// [`Error::Invalid`] when no document was added.
    pub fn finish(self) -> Result<TextFeatures> {
        if self.document_count == 0 {
            return Err(Error::Invalid(
                "the corpus has no documents; text features need at least one".to_string(),
            ));
        }
        let mut vocabulary: Vec<(Box<[u8]>, u32)> = self
            .stems
            .ids
            .into_iter()
            .filter(|&(_, id)| self.document_frequencies[id as usize] >= MIN_DOCUMENT_FREQUENCY)
            .collect();
        vocabulary.sort_unstable();
        let mut feature_of_stem = vec![DROPPED; self.document_frequencies.len()];
        let mut terms = Vec::with_capacity(vocabulary.len());
        let mut feature_indices = HashMap::with_capacity(vocabulary.len());
        let mut document_frequencies = Vec::with_capacity(vocabulary.len());
        let mut inverse_document_frequencies = Vec::with_capacity(vocabulary.len());
        for (feature, (stem, stem_id)) in vocabulary.into_iter().enumerate() {
            let feature = u32::try_from(feature).expect("fewer features than stems");
            let term: Box<str> = String::from_utf8(stem.into_vec())
                .expect("stems of ASCII tokens are ASCII")
                .into_boxed_str();
            let document_frequency = self.document_frequencies[stem_id as usize];
            feature_of_stem[stem_id as usize] = feature;
            feature_indices.insert(term.clone(), feature);
            terms.push(term);
            document_frequencies.push(document_frequency);
            inverse_document_frequencies.push(hical_idf(self.document_count, document_frequency));
        }

        let vectors = self
            .kept_offsets
            .windows(2)
            .map(|bounds| {
                let pairs = self.kept_terms[bounds[0]..bounds[1]].iter().filter_map(
                    |&(stem_id, term_frequency)| {
                        let feature = feature_of_stem[stem_id as usize];
                        (feature != DROPPED).then_some((feature, term_frequency))
                    },
                );
                document_vector(pairs, &inverse_document_frequencies)
            })
            .collect();

        Ok(TextFeatures {
            terms,
            feature_indices,
            document_frequencies,
            inverse_document_frequencies,
            document_count: self.document_count,
            kept_names: self.kept_names,
            vectors,
            all_names: self.all_names,
        })
    }
}
